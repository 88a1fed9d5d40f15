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

"""Gradient-checkpointing policy: ``train.enable_gradient_checkpointing`` (the toy model never
checkpoints; the policy is parsed and validated as the real framework does)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

GradientCheckpointingMode = Literal["full", "none", "fraction", "every_n", "layers"]
_SELECTORS = ("fraction", "every_n", "layers")


@dataclass(frozen=True)
class GradientCheckpointingSpec:
    """Which blocks recompute their activations: all (``full``), none, or a selection."""

    mode: GradientCheckpointingMode
    fraction: float | None = None
    every_n: int | None = None
    layers: tuple[int, ...] | None = None


GradientCheckpointingPolicy = Union[bool, GradientCheckpointingSpec, Mapping[str, Any]]  # noqa: UP007


def normalize_gradient_checkpointing_policy(
    value: GradientCheckpointingPolicy,
) -> bool | GradientCheckpointingSpec:
    """A bool or a spec as is; a mapping ``{mode?, fraction | every_n | layers}`` validated
    into a spec; anything else is refused."""
    if isinstance(value, (bool, GradientCheckpointingSpec)):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(
            "train.enable_gradient_checkpointing must be a bool, a Mapping or a "
            f"GradientCheckpointingSpec, got {type(value).__name__}"
        )
    unknown = sorted(set(value) - {"mode", *_SELECTORS})
    if unknown:
        raise ValueError(f"train.enable_gradient_checkpointing has unknown keys {unknown}")
    given = [name for name in _SELECTORS if value.get(name) is not None]
    mode = value.get("mode") or (given[0] if len(given) == 1 else None)
    if mode not in ("full", "none", *_SELECTORS):
        raise ValueError(
            f"gradient checkpointing needs a mode in full/none/{'/'.join(_SELECTORS)} or exactly "
            f"one selector, got mode={value.get('mode')!r} with selectors {given}"
        )
    if [name for name in given if name != mode]:
        raise ValueError(f"checkpoint mode {mode!r} does not take the selectors {given}")
    return _spec(mode, value.get(mode) if mode in _SELECTORS else None)


def _spec(mode: str, selector: Any) -> GradientCheckpointingSpec:
    if mode == "fraction":
        if isinstance(selector, bool) or not isinstance(selector, (int, float)) \
                or not 0 < float(selector) <= 1:
            raise ValueError(f"checkpoint fraction must be a number in (0, 1], got {selector!r}")
        return GradientCheckpointingSpec(mode, fraction=float(selector))
    if mode == "every_n":
        if isinstance(selector, bool) or not isinstance(selector, int) or selector < 1:
            raise ValueError(f"checkpoint every_n must be an int >= 1, got {selector!r}")
        return GradientCheckpointingSpec(mode, every_n=selector)
    if mode == "layers":
        if isinstance(selector, (str, bytes)) or not isinstance(selector, Sequence) or not all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in selector
        ) or not selector:
            raise ValueError(f"checkpoint layers must be ints >= 0, one or more: {selector!r}")
        return GradientCheckpointingSpec(mode, layers=tuple(dict.fromkeys(selector)))
    return GradientCheckpointingSpec(mode)


def gradient_checkpointing_enabled(value: bool | GradientCheckpointingSpec) -> bool:
    """Whether a normalised policy checkpoints anything."""
    return value if isinstance(value, bool) else value.mode != "none"


def serialize_gradient_checkpointing_policy(
    value: bool | GradientCheckpointingSpec,
) -> bool | dict[str, Any]:
    """A normalised policy as plain YAML data."""
    if isinstance(value, bool):
        return value
    data: dict[str, Any] = {"mode": value.mode}
    for name in _SELECTORS:
        selected = getattr(value, name)
        if selected is not None:
            data[name] = list(selected) if name == "layers" else selected
    return data


__all__ = [
    "GradientCheckpointingMode",
    "GradientCheckpointingPolicy",
    "GradientCheckpointingSpec",
    "gradient_checkpointing_enabled",
    "normalize_gradient_checkpointing_policy",
    "serialize_gradient_checkpointing_policy",
]
