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

"""Keyword arguments for adapter forwards, taken from the training arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def training_forward_kwargs(trainer: Any, batch: Mapping[str, Any]) -> dict[str, Any]:
    """``{**trainer.training_args}`` minus keys already present in ``batch``."""
    batch_keys = set(batch.keys()) if isinstance(batch, Mapping) else set()
    return {k: v for k, v in {**trainer.training_args}.items() if k not in batch_keys}


def replay_forward_kwargs(trainer: Any, batch: Mapping[str, Any]) -> dict[str, Any]:
    """Same as :func:`training_forward_kwargs` (replay of stored rollouts)."""
    return training_forward_kwargs(trainer, batch)


def reference_forward_kwargs(
    trainer: Any, batch: Mapping[str, Any], **overrides: Any
) -> dict[str, Any]:
    """Training kwargs with ``overrides`` applied (reference-model forwards)."""
    return {**training_forward_kwargs(trainer, batch), **overrides}


__all__ = ["reference_forward_kwargs", "replay_forward_kwargs", "training_forward_kwargs"]
