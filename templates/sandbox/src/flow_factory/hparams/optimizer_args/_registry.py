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

"""Optimizer entry classes keyed by ``optimizers[].optimizer``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import OptimizerArguments
from .adamw import AdamWOptimizerArguments
from .muon import MuonOptimizerArguments

_OPTIMIZER_ARGS_REGISTRY: dict[str, type[OptimizerArguments]] = {
    "adamw": AdamWOptimizerArguments,
    "muon": MuonOptimizerArguments,
}


def register_optimizer_args(identifier: str, args_class: type[OptimizerArguments]) -> None:
    """Register ``args_class`` for ``optimizer: <identifier>``."""
    _OPTIMIZER_ARGS_REGISTRY[identifier.lower()] = args_class


def get_optimizer_args_class(identifier: str) -> type[OptimizerArguments]:
    """Entry class for ``optimizer: <identifier>`` (case-insensitive)."""
    key = str(identifier).lower()
    if key not in _OPTIMIZER_ARGS_REGISTRY:
        raise ValueError(
            f"optimizers[].optimizer must be one of {sorted(_OPTIMIZER_ARGS_REGISTRY)}, "
            f"got {identifier!r}"
        )
    return _OPTIMIZER_ARGS_REGISTRY[key]


def build_optimizer_args(config: Mapping[str, Any]) -> OptimizerArguments:
    """One entry from its mapping; an absent ``optimizer`` means adamw."""
    if not isinstance(config, Mapping):
        raise TypeError(f"an optimizers entry must be a Mapping, got {type(config).__name__}")
    return get_optimizer_args_class(config.get("optimizer", "adamw")).from_dict(config)


__all__ = ["build_optimizer_args", "get_optimizer_args_class", "register_optimizer_args"]
