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

"""Sandbox-only readers for tests and tools (the real Flow-Factory has no such module).

The sandbox's ``BaseTrainer`` and ``BaseAdapter`` keep what a test wants to read (the numbers
behind the ``cycle=...`` lines, every logged scalar, the trainable weights) under private
``_sandbox_*`` names, so the mirrored classes expose only the real members. Read them here;
generated trainers never import this module (a real checkout would not have it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch


def cycle_history(trainer: Any) -> list[dict[str, Any]]:
    """One dict per completed acquisition cycle: ``cycle``, ``loss``, ``reward`` (or None)."""
    return list(trainer.__dict__.get("_sandbox_history", ()))


def log_history(trainer: Any) -> list[dict[str, Any]]:
    """Every ``log_data`` call as ``{"step": step, **scalars}``, in order."""
    return list(trainer.__dict__.get("_sandbox_log_history", ()))


def trainable_state_dict(adapter: Any) -> dict[str, torch.Tensor]:
    """The adapter's trainable weights (the live role's network) by parameter name, cloned."""
    return adapter._sandbox_trainable_state_dict()


def load_trainable_state_dict(adapter: Any, state: Mapping[str, torch.Tensor]) -> None:
    """Copy trainable weights back exactly (the keys must match)."""
    adapter._sandbox_load_trainable_state_dict(state)


def trainer_class(config: Any) -> type:
    """The trainer class ``load_trainer`` would build for ``config``, after the same registry
    and contract checks, without building anything."""
    from .trainers.loader import _resolve_trainer_class

    return _resolve_trainer_class(config)


def read_weights(adapter: Any, source: str) -> dict[str, torch.Tensor]:
    """The trainable weights a weights source holds (``toy:seed=<n>``, ``toy:teacher``, or a
    ``torch.save``d file), keyed like :func:`trainable_state_dict`; nothing is loaded."""
    return adapter._sandbox_read_weights(str(source))


__all__ = [
    "cycle_history",
    "load_trainable_state_dict",
    "log_history",
    "read_weights",
    "trainable_state_dict",
    "trainer_class",
]
