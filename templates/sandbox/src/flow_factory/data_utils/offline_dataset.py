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

"""Offline items and batches (frozen dataclasses), toy media decoding and explicit collation.

The public names and fields are the real ones. Toy images are ``.json`` files holding a list of
floats: ``decode_image`` turns one into a ``float32`` tensor payload.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import torch
from torch.utils.data import Dataset

from ..contracts.pipeline_io import MediaType
from .schema import MediaAsset, NormalizedModelInput

OfflineSupervisionType = Literal["demonstration", "preference"]
_SUPERVISION_TYPES = ("demonstration", "preference")
MediaDecoder = Callable[[MediaAsset], Any]


@dataclass(frozen=True)
class DecodedMedia:
    """A decoded media item; toy images carry an ``(8,)`` tensor ``payload``."""

    type: MediaType
    path: str
    payload: Any
    fps: float | None = None
    sample_rate: int | None = None


@dataclass(frozen=True)
class DemonstrationOutput:
    """The decoded target media of one demonstration item."""

    target_media: tuple[DecodedMedia, ...]


@dataclass(frozen=True)
class PreferenceOutput:
    """The decoded chosen and rejected media of one preference item."""

    chosen_media: tuple[DecodedMedia, ...]
    rejected_media: tuple[DecodedMedia, ...]


DecodedOutput = DemonstrationOutput | PreferenceOutput


@dataclass(frozen=True)
class DemonstrationOutputBatch:
    """Per record, the target media."""

    target_media: tuple[tuple[DecodedMedia, ...], ...]


@dataclass(frozen=True)
class PreferenceOutputBatch:
    """Per record, the chosen and the rejected media."""

    chosen_media: tuple[tuple[DecodedMedia, ...], ...]
    rejected_media: tuple[tuple[DecodedMedia, ...], ...]


DecodedOutputBatch = DemonstrationOutputBatch | PreferenceOutputBatch


@dataclass(frozen=True)
class OfflineBatch:
    """One collated offline batch (cached conditions + decoded supervision)."""

    condition: dict[str, Any]
    condition_ids: tuple[str, ...]
    record_ids: tuple[str, ...]
    sources: tuple[str, ...]
    source_ids: torch.Tensor
    model_inputs: tuple[NormalizedModelInput, ...]
    supervision_type: OfflineSupervisionType
    output: DecodedOutputBatch
    metadata_json: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.record_ids)


@dataclass(frozen=True)
class OfflineItem:
    """One cached input condition paired with its decoded supervision."""

    condition: Mapping[str, Any]
    condition_id: str
    record_id: str
    source: str
    source_id: int
    model_input: NormalizedModelInput
    supervision_type: OfflineSupervisionType
    output: DecodedOutput
    metadata_json: str


class OfflineDataset(Dataset):
    """In-memory list of :class:`OfflineItem` (input conditions cached, outputs decoded)."""

    def __init__(self, items: Sequence[OfflineItem]) -> None:
        self._items = list(items)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: int) -> OfflineItem:
        return self._items[index]


@dataclass(frozen=True)
class OfflineCollator:
    """Collate items of one known supervision type into an :class:`OfflineBatch`."""

    supervision_type: OfflineSupervisionType

    def __post_init__(self) -> None:
        if self.supervision_type not in _SUPERVISION_TYPES:
            raise ValueError(
                f"supervision_type must be one of {_SUPERVISION_TYPES}, "
                f"got {self.supervision_type!r}"
            )

    def __call__(self, items: Sequence[OfflineItem]) -> OfflineBatch:
        if not items:
            raise ValueError("cannot collate an empty offline batch")
        for index, item in enumerate(items):
            if item.supervision_type != self.supervision_type:
                raise ValueError(
                    f"offline batch index {index}: expected {self.supervision_type!r} "
                    f"supervision, got {item.supervision_type!r}"
                )
        if self.supervision_type == "demonstration":
            output: DecodedOutputBatch = DemonstrationOutputBatch(
                tuple(_require(item.output, DemonstrationOutput).target_media for item in items)
            )
        else:
            pairs = [_require(item.output, PreferenceOutput) for item in items]
            output = PreferenceOutputBatch(
                tuple(p.chosen_media for p in pairs), tuple(p.rejected_media for p in pairs)
            )
        return OfflineBatch(
            condition=_collate_condition([item.condition for item in items]),
            condition_ids=tuple(item.condition_id for item in items),
            record_ids=tuple(item.record_id for item in items),
            sources=tuple(item.source for item in items),
            source_ids=torch.tensor([item.source_id for item in items], dtype=torch.long),
            model_inputs=tuple(item.model_input for item in items),
            supervision_type=self.supervision_type,
            output=output,
            metadata_json=tuple(item.metadata_json for item in items),
        )


def _require(output: Any, kind: type) -> Any:
    if not isinstance(output, kind):
        raise TypeError(f"expected a {kind.__name__} item output, got {type(output).__name__}")
    return output


def _collate_condition(conditions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
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


def decode_image(asset: MediaAsset) -> torch.Tensor:
    """Toy image: the JSON list of floats at ``asset.path`` as a ``float32`` tensor."""
    try:
        values = json.loads(Path(asset.path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"failed to decode toy image {asset.path!r}: {exc}") from exc
    return torch.tensor(values, dtype=torch.float32)


DEFAULT_MEDIA_DECODERS: Mapping[str, MediaDecoder] = MappingProxyType({"image": decode_image})


__all__ = [
    "DEFAULT_MEDIA_DECODERS",
    "DecodedMedia",
    "DecodedOutput",
    "DecodedOutputBatch",
    "DemonstrationOutput",
    "DemonstrationOutputBatch",
    "MediaDecoder",
    "OfflineBatch",
    "OfflineCollator",
    "OfflineDataset",
    "OfflineItem",
    "OfflineSupervisionType",
    "PreferenceOutput",
    "PreferenceOutputBatch",
    "decode_image",
]
