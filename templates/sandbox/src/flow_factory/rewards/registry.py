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

"""Reward model registry keyed by ``rewards[].reward_model``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

_REWARD_MODEL_REGISTRY: dict[str, str] = {
    "toy_target": "flow_factory.rewards.toy_target.ToyTargetReward",
}


def register_reward_model(name: str) -> Callable[[type], type]:
    """Class decorator registering ``cls`` under ``name`` (stored as its dotted path)."""

    def decorator(cls: type) -> type:
        _REWARD_MODEL_REGISTRY[name] = f"{cls.__module__}.{cls.__name__}"
        return cls

    return decorator


def get_reward_model_class(identifier: str) -> type:
    """Reward class for a registry key (case-insensitive) or a dotted path."""
    path = _REWARD_MODEL_REGISTRY.get(identifier.lower(), identifier)
    try:
        module_path, class_name = path.rsplit(".", 1)
        return getattr(importlib.import_module(module_path), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ImportError(
            f"Unknown reward_model {identifier!r}; expected one of "
            f"{sorted(_REWARD_MODEL_REGISTRY)} or a dotted path ({exc})"
        ) from exc


def list_registered_reward_models() -> dict[str, str]:
    """Copy of the registry (key -> dotted path)."""
    return dict(_REWARD_MODEL_REGISTRY)


__all__ = ["get_reward_model_class", "list_registered_reward_models", "register_reward_model"]
