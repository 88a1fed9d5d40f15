"""Gradient checkpointing policy names (the toy model never checkpoints)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class GradientCheckpointingPolicy(str, Enum):
    """Where activation checkpointing applies."""

    NONE = "none"
    FULL = "full"


@dataclass(frozen=True)
class GradientCheckpointingSpec:
    """Resolved checkpointing choice for one module."""

    policy: GradientCheckpointingPolicy = GradientCheckpointingPolicy.NONE


__all__ = ["GradientCheckpointingPolicy", "GradientCheckpointingSpec"]
