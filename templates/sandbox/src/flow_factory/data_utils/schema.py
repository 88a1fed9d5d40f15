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

"""Strict V2 JSONL schema for offline records.

``{"schema_version": 2, "id"?: str, "input": {"prompt": str, "negative_prompt"?: str | null,
"media": []}, "supervision": {"type": "demonstration", "target": {"media": [...]}}
| {"type": "preference", "chosen": {"media": [...]}, "rejected": {"media": [...]}},
"metadata"?: {}}``; each media is ``{"type": "image"|"video"|"audio", "path": str}``.

Public types carry the real names and fields (``MediaAsset``, ``NormalizedModelInput``); the
parser itself is a private toy (the sandbox accepts an optional ``id`` used as the record id).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..contracts.pipeline_io import MediaType

_SCHEMA_VERSION = 2
_MEDIA_TYPES = tuple(media.value for media in MediaType)
_RECORD_KEYS = {"schema_version", "input", "supervision"}
_OPTIONAL_RECORD_KEYS = {"id", "metadata"}


@dataclass(frozen=True)
class MediaRef:
    """A media file as one record references it (path as written in the JSONL)."""

    type: str
    path: str


@dataclass(frozen=True)
class MediaAsset:
    """A normalised media reference whose ``path`` is resolved (what loaders hand out)."""

    type: MediaType
    path: str
    fps: float | None = None
    sample_rate: int | None = None
    slot: str | None = None


@dataclass(frozen=True)
class NormalizedModelInput:
    """Model input of one record: prompt, optional negative prompt, ordered input media."""

    prompt: str
    negative_prompt: str | None
    media: tuple[MediaAsset, ...]


@dataclass(frozen=True)
class _ParsedRecord:
    """One validated V2 line; ``outputs`` is ``(target,)`` or ``(chosen, rejected)``."""

    record_id: str
    prompt: str
    negative_prompt: str | None
    input_media: tuple[MediaRef, ...]
    supervision_type: str
    outputs: tuple[tuple[MediaRef, ...], ...]
    metadata_json: str


def _require_keys(obj: Any, required: set[str], optional: set[str], where: str) -> None:
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be an object, got {type(obj).__name__}")
    missing, extra = required - set(obj), set(obj) - required - optional
    if missing or extra:
        raise ValueError(
            f"{where} keys must be {sorted(required)} (+ optional {sorted(optional)}); "
            f"missing {sorted(missing)}, unexpected {sorted(extra)}"
        )


def _media_list(obj: Any, where: str, *, required: bool) -> tuple[MediaRef, ...]:
    _require_keys(obj, {"media"}, set(), where)
    if not isinstance(obj["media"], list):
        raise ValueError(f"{where}.media must be a list, got {type(obj['media']).__name__}")
    if required and not obj["media"]:
        raise ValueError(f"{where}.media must hold at least one media, got none")
    refs = []
    for index, item in enumerate(obj["media"]):
        _require_keys(item, {"type", "path"}, set(), f"{where}.media[{index}]")
        if item["type"] not in _MEDIA_TYPES or not isinstance(item["path"], str) \
                or not item["path"].strip():
            raise ValueError(
                f"{where}.media[{index}] needs type in {_MEDIA_TYPES} and a non-empty string "
                f"path, got {item!r}"
            )
        refs.append(MediaRef(item["type"], item["path"]))
    return tuple(refs)


def _parse_record(record: Any, *, where: str, default_id: str) -> _ParsedRecord:
    """Validate one decoded JSON line (``where`` names it in error messages)."""
    _require_keys(record, _RECORD_KEYS, _OPTIONAL_RECORD_KEYS, where)
    if record["schema_version"] != _SCHEMA_VERSION:
        raise ValueError(
            f"{where}.schema_version must be {_SCHEMA_VERSION}, got {record['schema_version']!r}"
        )
    model_input = record["input"]
    _require_keys(model_input, {"prompt"}, {"negative_prompt", "media"}, f"{where}.input")
    if not isinstance(model_input["prompt"], str):
        raise ValueError(f"{where}.input.prompt must be a string, got {model_input['prompt']!r}")
    negative = model_input.get("negative_prompt")
    if negative is not None and not isinstance(negative, str):
        raise ValueError(f"{where}.input.negative_prompt must be a string or null, got {negative!r}")
    media = _media_list({"media": model_input.get("media", [])}, f"{where}.input", required=False)
    supervision = record["supervision"]
    kind = supervision.get("type") if isinstance(supervision, dict) else None
    if kind == "demonstration":
        _require_keys(supervision, {"type", "target"}, set(), f"{where}.supervision")
        outputs = (_media_list(supervision["target"], f"{where}.supervision.target",
                               required=True),)
    elif kind == "preference":
        _require_keys(supervision, {"type", "chosen", "rejected"}, set(), f"{where}.supervision")
        outputs = (
            _media_list(supervision["chosen"], f"{where}.supervision.chosen", required=True),
            _media_list(supervision["rejected"], f"{where}.supervision.rejected", required=True),
        )
    else:
        raise ValueError(
            f"{where}.supervision.type must be 'demonstration' or 'preference', got {kind!r}"
        )
    metadata = record.get("metadata", {})
    if not isinstance(metadata, dict):
        raise ValueError(f"{where}.metadata must be an object, got {type(metadata).__name__}")
    return _ParsedRecord(
        record_id=str(record.get("id", default_id)),
        prompt=model_input["prompt"],
        negative_prompt=negative,
        input_media=media,
        supervision_type=kind,
        outputs=outputs,
        metadata_json=json.dumps(metadata, ensure_ascii=False, allow_nan=False,
                                 separators=(",", ":"), sort_keys=True),
    )


__all__ = [
    "MediaAsset",
    "MediaRef",
    "NormalizedModelInput",
]
