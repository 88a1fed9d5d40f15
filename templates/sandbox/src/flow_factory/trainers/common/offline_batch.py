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

"""Move cached offline conditions and bind output forward contexts (one owner per field)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import is_dataclass
from typing import Any

import torch

from ...contracts import NON_MODEL_CONDITION_KEYS
from ...models.condition_state import PreparedConditionState


def move_condition_to_device(
    condition: Mapping[str, Any], device: torch.device | str, *, non_blocking: bool = False
) -> dict[str, Any]:
    """A new container tree for ``condition`` with its tensor leaves on ``device``."""
    if not isinstance(non_blocking, bool):
        raise TypeError(f"non_blocking must be a bool, got {non_blocking!r}")
    _require_string_key_mapping(condition, "offline condition")
    target = torch.device(device)
    return {key: _moved(value, target, non_blocking) for key, value in condition.items()}


def bind_output_forward_context(
    condition: Mapping[str, Any], forward_context: Mapping[str, Any]
) -> dict[str, Any]:
    """``{**condition, **forward_context}``: string keys, no non-model keys, no key twice."""
    _require_string_key_mapping(condition, "offline condition")
    _require_string_key_mapping(forward_context, "output forward context")
    _reject_non_model_keys(condition, "offline condition")
    _reject_non_model_keys(forward_context, "output forward context")
    clashes = tuple(sorted(set(condition) & set(forward_context)))
    if clashes:
        raise ValueError(f"output forward context collides with cached condition keys {clashes}; "
                         "input and output fields must have one owner")
    return {**condition, **forward_context}


def bind_prepared_condition_output(
    prepared: PreparedConditionState, output_forward_context: Mapping[str, Any]
) -> dict[str, Any]:
    """Model-forward condition of ``prepared`` plus one candidate's output forward context."""
    if not isinstance(prepared, PreparedConditionState):
        raise TypeError("expected PreparedConditionState for prepared offline condition, "
                        f"received {type(prepared).__name__}: {prepared!r}")
    return bind_output_forward_context(prepared.model_forward_condition(), output_forward_context)


def _moved(value: Any, device: torch.device, non_blocking: bool) -> Any:
    """Copy of a condition value: tensors moved, mappings/lists/tuples rebuilt."""
    if isinstance(value, torch.Tensor):
        return value.to(device=device, non_blocking=non_blocking)
    if isinstance(value, Mapping):
        _require_string_key_mapping(value, "nested offline condition")
        return {key: _moved(item, device, non_blocking) for key, item in value.items()}
    if isinstance(value, list):
        return [_moved(item, device, non_blocking) for item in value]
    if type(value) is tuple:
        return tuple(_moved(item, device, non_blocking) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_moved(item, device, non_blocking) for item in value))
    if isinstance(value, AbstractSet) or is_dataclass(value):
        raise TypeError("offline condition trees support Mapping, list, tuple, namedtuple, and "
                        f"tensor containers only; received unsupported {type(value).__name__}")
    return value


def _require_string_key_mapping(value: Any, identifier: str) -> None:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected Mapping[str, Any] for {identifier}, "
                        f"received {type(value).__name__}: {value!r}")
    non_string = tuple(key for key in value if not isinstance(key, str))
    if non_string:
        raise TypeError(f"expected string keys for {identifier}, received {non_string!r}")
    if any(not key for key in value):
        raise ValueError(f"expected non-empty string keys for {identifier}")


def _reject_non_model_keys(value: Mapping[str, Any], identifier: str) -> None:
    rejected = tuple(sorted(set(value) & NON_MODEL_CONDITION_KEYS))
    if rejected:
        raise ValueError(f"{identifier} contains fields that cannot enter model forward: "
                         f"{rejected}")


__all__ = [
    "bind_output_forward_context",
    "bind_prepared_condition_output",
    "move_condition_to_device",
]
