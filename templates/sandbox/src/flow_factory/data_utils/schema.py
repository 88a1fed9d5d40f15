"""Strict V2 JSONL schema for offline records.

``{"schema_version": 2, "id"?: str, "input": {"prompt": str, "media": []},
"supervision": {"type": "demonstration", "target": {"media": [...]}}
| {"type": "preference", "chosen": {"media": [...]}, "rejected": {"media": [...]}},
"metadata"?: {}}``; each media is ``{"type": "image"|"video"|"audio", "path": str}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..contracts.pipeline_io import MEDIA_TYPES

SCHEMA_VERSION = 2
_RECORD_KEYS = {"schema_version", "input", "supervision"}
_OPTIONAL_RECORD_KEYS = {"id", "metadata"}


@dataclass(frozen=True)
class MediaRef:
    """A media file referenced by a record."""

    type: str
    path: str


@dataclass(frozen=True)
class NormalizedModelInput:
    """Model input of one record: prompt text plus optional input media."""

    prompt: str
    media: tuple[MediaRef, ...] = ()


@dataclass(frozen=True)
class NormalizedRecord:
    """A validated V2 record; ``outputs`` is ``(target,)`` or ``(chosen, rejected)``."""

    record_id: str
    model_input: NormalizedModelInput
    supervision_type: str
    outputs: tuple[tuple[MediaRef, ...], ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)


def _require_keys(obj: Any, required: set[str], optional: set[str], where: str) -> None:
    if not isinstance(obj, Mapping):
        raise ValueError(f"{where} must be an object, got {type(obj).__name__}")
    missing, extra = required - set(obj), set(obj) - required - optional
    if missing or extra:
        raise ValueError(
            f"{where} keys must be {sorted(required)} (+ optional {sorted(optional)}); "
            f"missing {sorted(missing)}, unexpected {sorted(extra)}"
        )


def _media_list(obj: Any, where: str) -> tuple[MediaRef, ...]:
    _require_keys(obj, {"media"}, set(), where)
    if not isinstance(obj["media"], list):
        raise ValueError(f"{where}.media must be a list, got {type(obj['media']).__name__}")
    refs = []
    for index, item in enumerate(obj["media"]):
        _require_keys(item, {"type", "path"}, set(), f"{where}.media[{index}]")
        if item["type"] not in MEDIA_TYPES or not isinstance(item["path"], str):
            raise ValueError(
                f"{where}.media[{index}] needs type in {MEDIA_TYPES} and a string path, "
                f"got {item!r}"
            )
        refs.append(MediaRef(item["type"], item["path"]))
    return tuple(refs)


def parse_record(record: Any, *, where: str, default_id: str) -> NormalizedRecord:
    """Validate one decoded JSON record (``where`` names it in error messages)."""
    _require_keys(record, _RECORD_KEYS, _OPTIONAL_RECORD_KEYS, where)
    if record["schema_version"] != SCHEMA_VERSION:
        raise ValueError(
            f"{where}.schema_version must be {SCHEMA_VERSION}, got {record['schema_version']!r}"
        )
    model_input = record["input"]
    _require_keys(model_input, {"prompt"}, {"media"}, f"{where}.input")
    if not isinstance(model_input["prompt"], str):
        raise ValueError(f"{where}.input.prompt must be a string, got {model_input['prompt']!r}")
    media = _media_list({"media": model_input.get("media", [])}, f"{where}.input")
    supervision = record["supervision"]
    kind = supervision.get("type") if isinstance(supervision, Mapping) else None
    if kind == "demonstration":
        _require_keys(supervision, {"type", "target"}, set(), f"{where}.supervision")
        outputs = (_media_list(supervision["target"], f"{where}.supervision.target"),)
    elif kind == "preference":
        _require_keys(supervision, {"type", "chosen", "rejected"}, set(), f"{where}.supervision")
        outputs = (
            _media_list(supervision["chosen"], f"{where}.supervision.chosen"),
            _media_list(supervision["rejected"], f"{where}.supervision.rejected"),
        )
    else:
        raise ValueError(
            f"{where}.supervision.type must be 'demonstration' or 'preference', got {kind!r}"
        )
    metadata = record.get("metadata", {})
    if not isinstance(metadata, Mapping):
        raise ValueError(f"{where}.metadata must be an object, got {type(metadata).__name__}")
    return NormalizedRecord(
        record_id=str(record.get("id", default_id)),
        model_input=NormalizedModelInput(model_input["prompt"], media),
        supervision_type=kind,
        outputs=outputs,
        metadata=dict(metadata),
    )


__all__ = [
    "SCHEMA_VERSION",
    "MediaRef",
    "NormalizedModelInput",
    "NormalizedRecord",
    "parse_record",
]
