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

"""Prepared model conditions: the cached condition plus the contexts realised once per batch.

As in Flow-Factory the container is frozen and its three mappings are read-only copies; every
field has one owner (no key in two mappings, no non-model key in the model-forward ones).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..contracts import NON_MODEL_CONDITION_KEYS


@dataclass(frozen=True, slots=True)
class PreparedConditionState:
    """``condition`` (cached model inputs), ``forward_context`` (extra model-forward fields,
    realised per batch), ``output_context`` (fields only the output encoder reads).

    The toy model prepares nothing, so :meth:`identity` is what it returns.
    """

    condition: Mapping[str, Any]
    forward_context: Mapping[str, Any]
    output_context: Mapping[str, Any]

    def __post_init__(self) -> None:
        condition = _freeze_string_mapping(self.condition, "PreparedConditionState.condition")
        forward = _freeze_string_mapping(
            self.forward_context, "PreparedConditionState.forward_context"
        )
        output = _freeze_string_mapping(
            self.output_context, "PreparedConditionState.output_context"
        )
        _reject_non_model_keys(condition, "PreparedConditionState.condition")
        _reject_non_model_keys(forward, "PreparedConditionState.forward_context")
        for name, other in (("forward", forward), ("output", output)):
            clashes = tuple(sorted(set(condition) & set(other)))
            if clashes:
                raise ValueError(f"prepared condition {name} context collides with cached "
                                 f"condition keys {clashes}; every field must have one owner")
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "forward_context", forward)
        object.__setattr__(self, "output_context", output)

    @classmethod
    def identity(cls, condition: Mapping[str, Any]) -> PreparedConditionState:
        """``condition`` unchanged, with empty contexts."""
        return cls(condition=condition, forward_context={}, output_context={})

    def model_forward_condition(self) -> Mapping[str, Any]:
        """Read-only ``{**condition, **forward_context}`` (what the model forward receives)."""
        return MappingProxyType({**self.condition, **self.forward_context})

    def output_codec_condition(self) -> Mapping[str, Any]:
        """Read-only ``{**condition, **output_context}`` (what target encoding receives)."""
        return MappingProxyType({**self.condition, **self.output_context})


def _freeze_string_mapping(value: object, identifier: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected Mapping[str, Any] for {identifier}, "
                        f"received {type(value).__name__}: {value!r}")
    bad_keys = tuple(key for key in value if not isinstance(key, str) or not key)
    if bad_keys:
        raise TypeError(f"expected non-empty string keys for {identifier}, got {bad_keys!r}")
    return MappingProxyType(dict(value))


def _reject_non_model_keys(value: Mapping[str, Any], identifier: str) -> None:
    rejected = tuple(sorted(set(value) & NON_MODEL_CONDITION_KEYS))
    if rejected:
        raise ValueError(f"{identifier} contains fields that cannot enter model forward: "
                         f"{rejected}")


__all__ = ["PreparedConditionState"]
