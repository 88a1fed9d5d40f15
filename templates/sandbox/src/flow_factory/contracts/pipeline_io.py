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

"""Pipeline input/output media contract (what a model consumes and produces).

A miniature of Flow-Factory's declarations: string enums for every choice, frozen dataclasses
that check their field types on construction, and every ``PipelineIOContract`` field required.
The sandbox checks output candidates (:func:`validate_pipeline_output_candidate`); input-media
slot resolution is not modelled (the toy model takes prompts only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any


class MediaType(str, Enum):
    """A media modality; a ``str`` enum, so ``MediaType.IMAGE == "image"``."""

    IMAGE = "image"
    VIDEO = "video"
    AUDIO = "audio"


class RateRequirement(str, Enum):
    """Whether a rate field (``fps``, ``sample_rate``) is not applicable, optional or required."""

    NOT_APPLICABLE = "not_applicable"
    OPTIONAL = "optional"
    REQUIRED = "required"


class InputMediaBinding(str, Enum):
    """How input media bind to model arguments."""

    GROUPED_BY_TYPE = "grouped_by_type"
    ORDERED_REFERENCES = "ordered_references"


class InputMediaOrder(str, Enum):
    """Which input-media order carries meaning."""

    INSENSITIVE = "insensitive"
    WITHIN_TYPE = "within_type"
    GLOBAL = "global"


class NegativePromptPolicy(str, Enum):
    """Whether a pipeline takes a negative prompt."""

    UNSUPPORTED = "unsupported"
    OPTIONAL = "optional"
    REQUIRED = "required"


class GeometrySource(str, Enum):
    """Where output geometry comes from."""

    CONFIGURED = "configured"
    INPUT_MEDIA = "input_media"
    OUTPUT_MEDIA = "output_media"
    PRIMARY_OUTPUT_MEDIA = "primary_output_media"


class BatchCapability(str, Enum):
    """Which media layouts one batch may mix."""

    UNIFORM = "uniform"
    RAGGED = "ragged"
    SINGLE_SAMPLE = "single_sample"


# Rate requirements each media type may declare: (fps allowed, sample_rate allowed).
_RATES = {
    MediaType.IMAGE: (False, False),
    MediaType.VIDEO: (True, False),
    MediaType.AUDIO: (False, True),
}


@dataclass(frozen=True, slots=True)
class MediaFormat:
    """One media modality and its rate requirements (video: fps; audio: sample_rate)."""

    type: MediaType
    fps: RateRequirement
    sample_rate: RateRequirement

    def __post_init__(self) -> None:
        _require_enum(self.type, MediaType, "type")
        _require_enum(self.fps, RateRequirement, "fps")
        _require_enum(self.sample_rate, RateRequirement, "sample_rate")
        fps_allowed, rate_allowed = _RATES[self.type]
        for name, allowed in (("fps", fps_allowed), ("sample_rate", rate_allowed)):
            applicable = getattr(self, name) is not RateRequirement.NOT_APPLICABLE
            if applicable != allowed:
                need = "must declare" if allowed else "cannot declare"
                raise ValueError(f"{self.type.value} media {need} a {name} requirement")


@dataclass(frozen=True, slots=True)
class InputMediaRule:
    """Count bounds (and optional named slots) for one input media format."""

    format: MediaFormat
    min_count: int
    max_count: int | None
    slots: tuple[str, ...] = ()
    required_slots: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _require_instance(self.format, MediaFormat, "format")
        _require_non_negative_int(self.min_count, "min_count")
        _require_string_tuple(self.slots, "slots")
        _require_string_tuple(self.required_slots, "required_slots")
        if self.max_count is not None:
            _require_non_negative_int(self.max_count, "max_count")
            if self.max_count == 0:
                raise ValueError("max_count=0 is not canonical; omit the media rule instead")
            if self.max_count < self.min_count:
                raise ValueError(f"expected max_count >= min_count, received "
                                 f"min_count={self.min_count} and max_count={self.max_count}")
        unknown = tuple(slot for slot in self.required_slots if slot not in self.slots)
        if len(set(self.slots)) != len(self.slots) or unknown:
            raise ValueError(f"input media slots must be unique and declare every required "
                             f"slot; slots={self.slots!r}, required={self.required_slots!r}")


@dataclass(frozen=True, slots=True)
class InputMediaSpec:
    """Input media rules (one per type, in ``MediaType`` order), binding and ordering."""

    rules: tuple[InputMediaRule, ...]
    binding: InputMediaBinding
    order: InputMediaOrder
    min_total_count: int | None = None
    max_total_count: int | None = None
    required_any_types: tuple[MediaType, ...] = ()

    def __post_init__(self) -> None:
        _require_tuple(self.rules, InputMediaRule, "rules")
        _require_enum(self.binding, InputMediaBinding, "binding")
        _require_enum(self.order, InputMediaOrder, "order")
        for name in ("min_total_count", "max_total_count"):
            if getattr(self, name) is not None:
                _require_non_negative_int(getattr(self, name), name)
        if type(self.required_any_types) is not tuple:
            raise TypeError(f"expected required_any_types to be tuple, "
                            f"received {type(self.required_any_types).__name__}")
        for index, media in enumerate(self.required_any_types):
            _require_enum(media, MediaType, f"required_any_types[{index}]")
        types = tuple(rule.format.type for rule in self.rules)
        if types != tuple(media for media in MediaType if media in types):
            raise ValueError(f"input media rules must name each media type at most once, in "
                             f"canonical order, received {types}")
        if not self.rules:
            if self.min_total_count or self.max_total_count or self.required_any_types:
                raise ValueError("media-free inputs cannot declare aggregate media constraints")
            if (self.binding, self.order) != (
                InputMediaBinding.GROUPED_BY_TYPE, InputMediaOrder.INSENSITIVE
            ):
                raise ValueError("media-free inputs must use grouped_by_type binding and "
                                 "insensitive ordering")


@dataclass(frozen=True, slots=True)
class OutputMediaSequence:
    """The exact, non-empty, ordered media a pipeline produces per sample."""

    items: tuple[MediaFormat, ...]

    def __post_init__(self) -> None:
        _require_tuple(self.items, MediaFormat, "items")
        if not self.items:
            raise ValueError("output media sequence must contain at least one item")


@dataclass(frozen=True, slots=True)
class PipelineIOContract:
    """What a pipeline takes as input and produces as output (every field required)."""

    input_media: InputMediaSpec
    negative_prompt: NegativePromptPolicy
    output_media: OutputMediaSequence
    geometry_source: GeometrySource
    batch_capability: BatchCapability

    def __post_init__(self) -> None:
        _require_instance(self.input_media, InputMediaSpec, "input_media")
        _require_enum(self.negative_prompt, NegativePromptPolicy, "negative_prompt")
        _require_instance(self.output_media, OutputMediaSequence, "output_media")
        _require_enum(self.geometry_source, GeometrySource, "geometry_source")
        _require_enum(self.batch_capability, BatchCapability, "batch_capability")
        spec = self.input_media
        guaranteed = any(rule.min_count > 0 for rule in spec.rules) or bool(
            spec.min_total_count or spec.required_any_types
        )
        if self.geometry_source is GeometrySource.INPUT_MEDIA and not guaranteed:
            raise ValueError("input_media geometry requires input constraints that guarantee at "
                             "least one media item")


def validate_pipeline_output_candidate(
    media: tuple[Any, ...], contract: PipelineIOContract
) -> None:
    """One output candidate's media (``type``/``fps``/``sample_rate`` each) match the contract's
    output sequence exactly: length, order, types and rates."""
    _require_instance(contract, PipelineIOContract, "contract")
    if type(media) is not tuple:
        raise TypeError(f"expected output candidate media to be tuple, "
                        f"received {type(media).__name__}: {media!r}")
    expected = contract.output_media.items
    if len(media) != len(expected):
        raise ValueError(f"expected output candidate exact media sequence length "
                         f"{len(expected)}, received {len(media)}")
    for index, (item, wanted) in enumerate(zip(media, expected, strict=True)):
        media_type = getattr(item, "type", None)
        if type(media_type) is not str and not isinstance(media_type, MediaType):
            raise TypeError(f"expected output candidate media[{index}].type to be str, "
                            f"received {type(media_type).__name__}: {media_type!r}")
        if media_type != wanted.type.value:
            raise ValueError(f"expected output candidate media[{index}].type "
                             f"{wanted.type.value!r}, received {media_type!r}")
        _require_rate(getattr(item, "fps", None), wanted.fps, f"media[{index}].fps")
        _require_rate(
            getattr(item, "sample_rate", None), wanted.sample_rate, f"media[{index}].sample_rate"
        )


def _require_rate(value: Any, requirement: RateRequirement, identifier: str) -> None:
    if requirement is RateRequirement.NOT_APPLICABLE:
        if value is not None:
            raise ValueError(f"expected output candidate {identifier}=None, received {value!r}")
        return
    if value is None:
        if requirement is RateRequirement.REQUIRED:
            raise ValueError(f"expected required output candidate {identifier}, received None")
        return
    valid = (type(value) is float and math.isfinite(value)) if identifier.endswith(".fps") else (
        type(value) is int
    )
    if not valid or value <= 0:
        raise ValueError(f"expected positive output candidate {identifier}, received {value!r}")


def _require_enum(value: object, enum_type: type[Enum], field_name: str) -> None:
    if not isinstance(value, enum_type):
        raise TypeError(f"expected {field_name} to be {enum_type.__name__}, received "
                        f"{type(value).__name__}: {value!r}")


def _require_instance(value: object, expected_type: type, field_name: str) -> None:
    if type(value) is not expected_type:
        raise TypeError(f"expected {field_name} to be {expected_type.__name__}, received "
                        f"{type(value).__name__}: {value!r}")


def _require_tuple(value: object, item_type: type, field_name: str) -> None:
    if type(value) is not tuple:
        raise TypeError(
            f"expected {field_name} to be tuple, received {type(value).__name__}: {value!r}"
        )
    for index, item in enumerate(value):
        _require_instance(item, item_type, f"{field_name}[{index}]")


def _require_string_tuple(value: object, field_name: str) -> None:
    if type(value) is not tuple or any(type(item) is not str or not item for item in value):
        raise TypeError(f"expected {field_name} to be a tuple of non-empty str, "
                        f"received {value!r}")


def _require_non_negative_int(value: object, field_name: str) -> None:
    if type(value) is not int:
        raise TypeError(
            f"expected {field_name} to be int, received {type(value).__name__}: {value!r}"
        )
    if value < 0:
        raise ValueError(f"expected {field_name} >= 0, received {value}")


__all__ = [
    "BatchCapability",
    "GeometrySource",
    "InputMediaBinding",
    "InputMediaOrder",
    "InputMediaRule",
    "InputMediaSpec",
    "MediaFormat",
    "MediaType",
    "NegativePromptPolicy",
    "OutputMediaSequence",
    "PipelineIOContract",
    "RateRequirement",
    "validate_pipeline_output_candidate",
]
