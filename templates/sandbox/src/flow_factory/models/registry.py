"""Model adapter registry keyed by ``model.model_type``."""

from __future__ import annotations

import importlib
from typing import Any

_MODEL_REGISTRY: dict[str, str] = {
    "toy": "flow_factory.models.toy.ToyAdapter",
}


def get_model_class(model_type: str) -> type:
    """Adapter class for a registry key or a dotted path (lazy import)."""
    path = _MODEL_REGISTRY.get(model_type.lower(), model_type)
    try:
        module_path, class_name = path.rsplit(".", 1)
        return getattr(importlib.import_module(module_path), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ImportError(
            f"Unknown model_type {model_type!r}; expected one of {sorted(_MODEL_REGISTRY)} "
            f"or a dotted path ({exc})"
        ) from exc


def list_registered_models() -> dict[str, str]:
    """Copy of the registry."""
    return dict(_MODEL_REGISTRY)


def load_model(config: Any, accelerator: Any = None) -> Any:
    """Build the adapter named by ``config.model_args.model_type``."""
    return get_model_class(config.model_args.model_type)(config=config, accelerator=accelerator)


__all__ = ["get_model_class", "list_registered_models", "load_model"]
