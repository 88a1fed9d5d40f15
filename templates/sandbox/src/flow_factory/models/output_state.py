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

"""Encoded training targets (a clean latent state) and their per-sample output geometry.

As in Flow-Factory, the containers are frozen, their context mappings are copied into read-only
views, and :func:`validate_encoded_output_state` checks an encoding against the adapter's
component order, the batch it was made for, the pipeline's output media and the device before an
offline objective uses it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import torch

from ..contracts import NON_MODEL_CONDITION_KEYS, MediaType, PipelineIOContract
from ..samples import LatentState

#: Decoded target media: per sample, one item per output media of the pipeline contract.
DecodedMediaBatch = tuple[tuple[Any, ...], ...]

#: Field names an encoding owns itself (they may not appear in its forward context).
OUTPUT_STATE_OWNED_KEYS = frozenset(
    {"clean_state", "decode_context", "forward_context", "geometry_signatures"}
)
OUTPUT_FORWARD_CONTEXT_RESERVED_KEYS = NON_MODEL_CONDITION_KEYS | OUTPUT_STATE_OWNED_KEYS

# Geometry fields each media type fills: (required, optional).
_GEOMETRY_FIELDS = {
    MediaType.IMAGE: ({"height", "width"}, set()),
    MediaType.VIDEO: ({"height", "width", "frames"}, {"fps"}),
    MediaType.AUDIO: ({"samples"}, {"sample_rate"}),
}
_FLOAT_LATENT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


@dataclass(frozen=True, slots=True)
class MediaGeometrySignature:
    """Geometry of one encoded output item: image ``height``/``width``; video ``height``/
    ``width``/``frames`` (+ ``fps``); audio ``samples`` (+ ``sample_rate``). Nothing else."""

    type: MediaType
    height: int | None = None
    width: int | None = None
    frames: int | None = None
    fps: float | None = None
    samples: int | None = None
    sample_rate: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.type, MediaType):
            raise TypeError("expected MediaGeometrySignature.type to be MediaType, "
                            f"received {type(self.type).__name__}: {self.type!r}")
        for name in ("height", "width", "frames", "samples", "sample_rate"):
            value = getattr(self, name)
            if value is not None:
                _require_positive_int(value, f"MediaGeometrySignature.{name}")
        if self.fps is not None:
            _require_positive_fps(self.fps, "MediaGeometrySignature.fps")
        filled = {
            name for name in ("height", "width", "frames", "fps", "samples", "sample_rate")
            if getattr(self, name) is not None
        }
        required, optional = _GEOMETRY_FIELDS[self.type]
        if not required <= filled or not filled <= required | optional:
            raise ValueError(
                f"expected {self.type.value} geometry fields {tuple(sorted(required))} "
                f"(optional {tuple(sorted(optional))}), received {tuple(sorted(filled))}"
            )


@dataclass(frozen=True, slots=True)
class GeometrySignature:
    """One sample's output geometry: a non-empty tuple, in the contract's output order."""

    media: tuple[MediaGeometrySignature, ...]

    def __post_init__(self) -> None:
        _require_exact_tuple(self.media, MediaGeometrySignature, "GeometrySignature.media")
        if not self.media:
            raise ValueError("expected GeometrySignature.media to contain at least one item")


@dataclass(frozen=True, slots=True)
class EncodedOutputState:
    """``clean_state`` plus the contexts to forward and decode it, and one geometry signature
    per sample. The context mappings are frozen copies; tensors are not cloned."""

    clean_state: LatentState
    forward_context: Mapping[str, Any]
    decode_context: Mapping[str, Any]
    geometry_signatures: tuple[GeometrySignature, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.clean_state, LatentState):
            raise TypeError("expected EncodedOutputState.clean_state to be LatentState, "
                            f"received {type(self.clean_state).__name__}")
        forward = _freeze_context_mapping(
            self.forward_context, "EncodedOutputState.forward_context"
        )
        reserved = tuple(sorted(set(forward) & OUTPUT_FORWARD_CONTEXT_RESERVED_KEYS))
        if reserved:
            raise ValueError("EncodedOutputState.forward_context contains non-model or "
                             f"state-owned fields {reserved}")
        decode = _freeze_context_mapping(self.decode_context, "EncodedOutputState.decode_context")
        object.__setattr__(self, "forward_context", forward)
        object.__setattr__(self, "decode_context", decode)
        _require_exact_tuple(
            self.geometry_signatures, GeometrySignature, "EncodedOutputState.geometry_signatures"
        )
        if not self.geometry_signatures:
            raise ValueError(
                "expected EncodedOutputState.geometry_signatures to contain at least one sample"
            )


def validate_encoded_output_state(
    encoded: object,
    *,
    contract: PipelineIOContract,
    expected_component_order: tuple[str, ...],
    expected_batch_size: int,
    device: torch.device | str,
) -> EncodedOutputState:
    """Check an encoding before an offline objective consumes it; returns it unchanged.

    The clean state has exactly ``expected_component_order``, float latents of batch
    ``expected_batch_size`` on ``device`` without grad, valid active masks; one geometry
    signature per sample matching the contract's output media; detached context tensors.
    """
    if not isinstance(encoded, EncodedOutputState):
        raise TypeError("expected encoded output to be EncodedOutputState, "
                        f"received {type(encoded).__name__}")
    _require_contract(contract)
    _validate_component_names(expected_component_order, "expected_component_order")
    _require_positive_int(expected_batch_size, "expected_batch_size")
    target = torch.device(device)
    state = encoded.clean_state
    if state.component_names != expected_component_order:
        raise ValueError(f"expected encoded clean_state component order "
                         f"{expected_component_order}, received {state.component_names}")
    for name in expected_component_order:
        _check_clean_component(state.components[name], name, expected_batch_size, target)
    if state.active_masks is not None:
        for name, mask in state.active_masks.items():
            _check_detached(mask, target, f"clean_state active mask {name!r}")
    _check_signatures(encoded.geometry_signatures, contract, expected_batch_size)
    _check_context_tree(encoded.forward_context, target, "EncodedOutputState.forward_context")
    _check_context_tree(encoded.decode_context, None, "EncodedOutputState.decode_context")
    return encoded


def _check_clean_component(
    component: torch.Tensor, name: str, batch_size: int, device: torch.device
) -> None:
    if component.ndim < 1 or component.shape[0] != batch_size:
        raise ValueError(f"expected clean_state component {name!r} to use batch size "
                         f"{batch_size}, received shape {tuple(component.shape)}")
    if component.dtype not in _FLOAT_LATENT_DTYPES:
        raise TypeError("expected float16, bfloat16, or float32 clean_state component "
                        f"{name!r}, received {component.dtype}")
    _check_detached(component, device, f"clean_state component {name!r}")


def _check_signatures(
    signatures: tuple[GeometrySignature, ...], contract: PipelineIOContract, batch_size: int
) -> None:
    if len(signatures) != batch_size:
        raise ValueError(f"expected one geometry signature per encoded sample ({batch_size}), "
                         f"received {len(signatures)}")
    expected = tuple(item.type for item in contract.output_media.items)
    for index, signature in enumerate(signatures):
        received = tuple(item.type for item in signature.media)
        if received != expected:
            raise ValueError(
                f"expected geometry signature {index} media types "
                f"{tuple(m.value for m in expected)}, received {tuple(m.value for m in received)}"
            )


def _check_detached(tensor: torch.Tensor, device: torch.device | None, identifier: str) -> None:
    if device is not None and tensor.device != device:
        raise ValueError(f"expected {identifier} on device {device}, received {tensor.device}")
    if tensor.requires_grad or tensor.grad_fn is not None:
        raise ValueError(f"expected detached no-grad tensor for {identifier}, received "
                         f"requires_grad={tensor.requires_grad}, grad_fn={tensor.grad_fn}")


def _check_context_tree(value: Any, device: torch.device | None, identifier: str) -> None:
    """Tensors in a context (nested mappings, lists, tuples) are detached (and on ``device``)."""
    if isinstance(value, torch.Tensor):
        _check_detached(value, device, identifier)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str) or not key:
                raise TypeError(f"expected non-empty string context keys for {identifier}, "
                                f"received {key!r}")
            _check_context_tree(item, device, f"{identifier}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_context_tree(item, device, f"{identifier}[{index}]")


def _require_contract(contract: object) -> None:
    if not isinstance(contract, PipelineIOContract):
        raise TypeError(
            f"expected contract to be PipelineIOContract, received {type(contract).__name__}"
        )


def _require_exact_tuple(value: object, item_type: type, identifier: str) -> None:
    if type(value) is not tuple:
        raise TypeError(
            f"expected {identifier} to be tuple, received {type(value).__name__}: {value!r}"
        )
    for index, item in enumerate(value):
        if type(item) is not item_type:
            raise TypeError(f"expected {identifier}[{index}] to be {item_type.__name__}, "
                            f"received {type(item).__name__}")


def _require_positive_int(value: object, identifier: str) -> None:
    if type(value) is not int:
        raise TypeError(
            f"expected positive int for {identifier}, received {type(value).__name__}: {value!r}"
        )
    if value <= 0:
        raise ValueError(f"expected positive int for {identifier}, received {value}")


def _require_positive_fps(value: object, identifier: str) -> None:
    if type(value) is not float:
        raise TypeError(f"expected positive finite float for {identifier}, "
                        f"received {type(value).__name__}: {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"expected positive finite float for {identifier}, received {value!r}")


def _freeze_context_mapping(value: object, identifier: str) -> Mapping[str, Any]:
    """Read-only copy of a string-keyed mapping."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected Mapping[str, Any] for {identifier}, "
                        f"received {type(value).__name__}: {value!r}")
    for key in value:
        if type(key) is not str:
            raise TypeError(
                f"expected string keys for {identifier}, received {type(key).__name__}: {key!r}"
            )
        if not key:
            raise ValueError(f"expected non-empty string keys for {identifier}")
    return MappingProxyType(dict(value))


def _validate_component_names(names: object, identifier: str) -> None:
    """A non-empty tuple of distinct non-empty strings."""
    if type(names) is not tuple:
        raise TypeError(
            f"expected {identifier} to be tuple, received {type(names).__name__}: {names!r}"
        )
    if not names:
        raise ValueError(f"expected {identifier} to contain at least one component")
    if any(type(name) is not str or not name for name in names):
        raise TypeError(f"expected non-empty str component names for {identifier}, "
                        f"received {names!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"expected unique component names for {identifier}, received {names}")


__all__ = [
    "OUTPUT_FORWARD_CONTEXT_RESERVED_KEYS",
    "OUTPUT_STATE_OWNED_KEYS",
    "DecodedMediaBatch",
    "EncodedOutputState",
    "GeometrySignature",
    "MediaGeometrySignature",
    "validate_encoded_output_state",
]
