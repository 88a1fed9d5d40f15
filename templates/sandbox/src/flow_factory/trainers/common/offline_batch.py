"""Helpers to move cached conditions and bind output forward contexts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from ...contracts import NON_MODEL_CONDITION_KEYS


def move_condition_to_device(
    condition: Mapping[str, Any], device: Any, *, non_blocking: bool = False
) -> dict[str, Any]:
    """Copy of ``condition`` with tensors on ``device``."""
    return {
        k: v.to(device, non_blocking=non_blocking) if isinstance(v, torch.Tensor) else v
        for k, v in condition.items()
    }


def bind_output_forward_context(
    condition: Mapping[str, Any], forward_context: Mapping[str, Any]
) -> dict[str, Any]:
    """Merge an output forward context into the condition (reserved keys and clashes raise)."""
    reserved = sorted(set(forward_context) & NON_MODEL_CONDITION_KEYS)
    if reserved:
        raise ValueError(f"output forward context may not bind reserved keys {reserved}")
    clashes = sorted(set(forward_context) & set(condition))
    if clashes:
        raise ValueError(f"output forward context keys collide with condition keys {clashes}")
    return {**condition, **forward_context}


def bind_prepared_condition_output(
    prepared: Any, output_forward_context: Mapping[str, Any]
) -> dict[str, Any]:
    """Model-forward condition of ``prepared`` plus the output forward context."""
    return bind_output_forward_context(prepared.model_forward_condition(), output_forward_context)


__all__ = [
    "bind_output_forward_context",
    "bind_prepared_condition_output",
    "move_condition_to_device",
]
