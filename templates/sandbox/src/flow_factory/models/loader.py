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
