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

"""Registry of trainer classes keyed by ``train.trainer_type`` (dotted paths, lazy import)."""

from __future__ import annotations

import importlib
from typing import Callable, Dict, Type

# ============================================================================
# Registry: trainer_type key -> trainer class path (append new keys last)
# ============================================================================
_TRAINER_REGISTRY: Dict[str, str] = {
    "grpo": "flow_factory.trainers.rl.grpo.GRPOTrainer",
    "sft": "flow_factory.trainers.offline.sft.SFTTrainer",
    "offline-dpo": "flow_factory.trainers.offline.offline_dpo.OfflineDPOTrainer",
    "my-record": "flow_factory.trainers.offline.my_record.MyRecordTrainer",
}


def register_trainer(name: str) -> Callable[[Type], Type]:
    """Class decorator registering ``cls`` under ``name`` (stored as its dotted path)."""

    def decorator(cls: Type) -> Type:
        _TRAINER_REGISTRY[name] = f"{cls.__module__}.{cls.__name__}"
        return cls

    return decorator


def get_trainer_class(identifier: str) -> Type:
    """Trainer class for a registry key (case-insensitive) or a dotted path."""
    path = _TRAINER_REGISTRY.get(identifier.lower(), identifier)
    try:
        module_path, class_name = path.rsplit(".", 1)
        return getattr(importlib.import_module(module_path), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ImportError(
            f"Unknown trainer {identifier!r}; expected one of {sorted(_TRAINER_REGISTRY)} "
            f"or a dotted path to a trainer class ({exc})"
        ) from exc


def list_registered_trainers() -> Dict[str, str]:
    """Copy of the registry (key -> dotted path)."""
    return dict(_TRAINER_REGISTRY)
