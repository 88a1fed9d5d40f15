# Copyright 2026 The ffgen authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""``load_model``: build the adapter ``model.model_type`` names."""

from __future__ import annotations

from typing import Any

from .abc import BaseAdapter
from .registry import get_model_adapter_class


def load_model(config: Any, accelerator: Any) -> BaseAdapter:
    """The adapter of ``config.model_args.model_type``, built with ``config`` and
    ``accelerator`` (the sandbox only has ``toy``)."""
    adapter_cls = get_model_adapter_class(config.model_args.model_type)
    return adapter_cls(config=config, accelerator=accelerator)


__all__ = ["load_model"]
