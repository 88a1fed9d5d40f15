"""Reward model registry keyed by ``rewards[].reward_model``."""

from __future__ import annotations

import importlib
from typing import Any

_REWARD_REGISTRY: dict[str, str] = {
    "toy_target": "flow_factory.rewards.toy_target.ToyTargetReward",
}


def get_reward_model_class(identifier: str) -> type:
    """Reward class for a key or a dotted path."""
    path = _REWARD_REGISTRY.get(identifier.lower(), identifier)
    try:
        module_path, class_name = path.rsplit(".", 1)
        return getattr(importlib.import_module(module_path), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ImportError(
            f"Unknown reward_model {identifier!r}; expected one of {sorted(_REWARD_REGISTRY)} "
            f"or a dotted path ({exc})"
        ) from exc


def load_reward_model(reward_args: Any) -> Any:
    """Instantiate the reward model of one ``rewards`` entry."""
    return get_reward_model_class(reward_args.reward_model)(reward_args)


def list_registered_reward_models() -> dict[str, str]:
    """Copy of the registry."""
    return dict(_REWARD_REGISTRY)


__all__ = ["get_reward_model_class", "list_registered_reward_models", "load_reward_model"]
