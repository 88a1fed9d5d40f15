"""Offline batch types (frozen dataclasses) and the cached-condition dataset."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch.utils.data import Dataset

from .schema import NormalizedModelInput

OfflineSupervisionType = Literal["demonstration", "preference"]
SUPERVISION_TYPES = ("demonstration", "preference")


@dataclass(frozen=True)
class DecodedMedia:
    """A decoded media item; toy images carry an ``(8,)`` tensor ``payload``."""

    type: str
    path: str
    payload: Any
    fps: float | None = None
    sample_rate: int | None = None


@dataclass(frozen=True)
class DemonstrationOutputBatch:
    """Per record, the target media."""

    target_media: tuple[tuple[DecodedMedia, ...], ...]


@dataclass(frozen=True)
class PreferenceOutputBatch:
    """Per record, the chosen and the rejected media."""

    chosen_media: tuple[tuple[DecodedMedia, ...], ...]
    rejected_media: tuple[tuple[DecodedMedia, ...], ...]


@dataclass(frozen=True)
class OfflineBatch:
    """One collated offline batch (cached conditions + decoded supervision)."""

    condition: Mapping[str, Any]
    condition_ids: tuple[str, ...]
    record_ids: tuple[str, ...]
    sources: tuple[str, ...]
    source_ids: torch.Tensor
    model_inputs: tuple[NormalizedModelInput, ...]
    supervision_type: str
    output: DemonstrationOutputBatch | PreferenceOutputBatch
    metadata_json: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.record_ids)


@dataclass(frozen=True)
class OfflineItem:
    """One dataset item before collation."""

    condition: Mapping[str, Any]
    condition_id: str
    record_id: str
    source: str
    source_id: int
    model_input: NormalizedModelInput
    supervision_type: str
    outputs: tuple[tuple[DecodedMedia, ...], ...]
    metadata: Mapping[str, Any]


class OfflineDataset(Dataset):
    """In-memory list of :class:`OfflineItem` (input conditions cached, outputs decoded)."""

    def __init__(self, items: Sequence[OfflineItem]) -> None:
        self.items = list(items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> OfflineItem:
        return self.items[index]


def collate_condition(conditions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Stack tensor values on dim 0; keep other values as lists."""
    keys = list(conditions[0])
    collated: dict[str, Any] = {}
    for key in keys:
        values = [c[key] for c in conditions]
        if all(isinstance(v, torch.Tensor) for v in values):
            collated[key] = torch.stack(values, dim=0)
        else:
            collated[key] = list(values)
    return collated


def collate_offline_items(items: Sequence[OfflineItem]) -> OfflineBatch:
    """Collate items of one supervision type into an :class:`OfflineBatch`."""
    kinds = {item.supervision_type for item in items}
    if len(kinds) != 1:
        raise ValueError(f"an offline batch needs one supervision type, got {sorted(kinds)}")
    kind = kinds.pop()
    if kind == "demonstration":
        output: Any = DemonstrationOutputBatch(tuple(item.outputs[0] for item in items))
    else:
        output = PreferenceOutputBatch(
            tuple(item.outputs[0] for item in items), tuple(item.outputs[1] for item in items)
        )
    return OfflineBatch(
        condition=collate_condition([item.condition for item in items]),
        condition_ids=tuple(item.condition_id for item in items),
        record_ids=tuple(item.record_id for item in items),
        sources=tuple(item.source for item in items),
        source_ids=torch.tensor([item.source_id for item in items], dtype=torch.long),
        model_inputs=tuple(item.model_input for item in items),
        supervision_type=kind,
        output=output,
        metadata_json=tuple(json.dumps(dict(item.metadata), sort_keys=True) for item in items),
    )


__all__ = [
    "SUPERVISION_TYPES",
    "DecodedMedia",
    "DemonstrationOutputBatch",
    "OfflineBatch",
    "OfflineDataset",
    "OfflineItem",
    "OfflineSupervisionType",
    "PreferenceOutputBatch",
    "collate_condition",
    "collate_offline_items",
]
