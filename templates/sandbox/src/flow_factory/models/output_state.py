"""Encoded training targets (clean latent state) and their geometry signatures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..samples import LatentState


@dataclass(frozen=True)
class MediaGeometrySignature:
    """Shape of one media item as seen by the encoder."""

    media_type: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class GeometrySignature:
    """Latent geometry of one component (used to check that preference arms match)."""

    component: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class EncodedOutputState:
    """``clean_state`` plus the contexts needed to forward and decode it."""

    clean_state: LatentState
    forward_context: Mapping[str, Any] = field(default_factory=dict)
    decode_context: Mapping[str, Any] = field(default_factory=dict)
    geometry_signatures: tuple[GeometrySignature, ...] = ()


__all__ = ["EncodedOutputState", "GeometrySignature", "MediaGeometrySignature"]
