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

"""``ModelBundle``: the one prepared root holding every trainable role's network."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torch import nn


class ModelBundle(nn.Module):
    """Every trainable member under one module, so ``accelerator.prepare`` sees one root."""

    def __init__(self, members: Mapping[str, nn.Module]) -> None:
        super().__init__()
        self.members = nn.ModuleDict(dict(members))

    @property
    def _no_split_modules(self) -> list[str]:
        return []

    def forward(self, component_name: str, *args: Any, **kwargs: Any) -> Any:
        """Run member ``component_name``."""
        return self.members[component_name](*args, **kwargs)


__all__ = ["ModelBundle"]
