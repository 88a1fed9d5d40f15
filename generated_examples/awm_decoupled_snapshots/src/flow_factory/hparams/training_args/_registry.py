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

"""Registry of training argument classes keyed by ``train.trainer_type``."""

from __future__ import annotations

import importlib
from typing import Dict, Type

from ._base import TrainingArguments
from .grpo import GRPOTrainingArguments
from .my_awm import MyAWMTrainingArguments
from .offline_dpo import OfflineDPOTrainingArguments
from .sft import SFTTrainingArguments

# ============================================================================
# Registry: trainer_type key -> training arguments class (append new keys last)
# ============================================================================
_TRAINING_ARGS_REGISTRY: Dict[str, Type[TrainingArguments]] = {
    "grpo": GRPOTrainingArguments,
    "sft": SFTTrainingArguments,
    "offline-dpo": OfflineDPOTrainingArguments,
    "my-awm": MyAWMTrainingArguments,
}


def get_training_args_class(identifier: str) -> Type[TrainingArguments]:
    """Return the args class for a registry key or a dotted ``module.Class`` path."""
    key = identifier.lower()
    if key in _TRAINING_ARGS_REGISTRY:
        return _TRAINING_ARGS_REGISTRY[key]
    try:
        module_path, class_name = identifier.rsplit(".", 1)
        cls = getattr(importlib.import_module(module_path), class_name)
        if not (isinstance(cls, type) and issubclass(cls, TrainingArguments)):
            raise TypeError(f"{identifier} is not a TrainingArguments subclass")
        return cls
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        raise ImportError(
            f"Unknown training arguments {identifier!r}; expected one of "
            f"{sorted(_TRAINING_ARGS_REGISTRY)} or a dotted path to a TrainingArguments "
            f"subclass ({exc})"
        ) from exc


def list_registered_training_args() -> Dict[str, Type[TrainingArguments]]:
    """Copy of the registry."""
    return dict(_TRAINING_ARGS_REGISTRY)
