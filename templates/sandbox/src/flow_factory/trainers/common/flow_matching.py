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

"""Offline flow-matching helpers: timestep sampling, noising, per-sample loss, pair checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from ...models.output_state import EncodedOutputState
from ...samples import ComponentTimes, LatentState, NoisedState


def _shift_timesteps(t: torch.Tensor, shift: float) -> torch.Tensor:
    """SD3-style shift ``s t / (1 + (s - 1) t)`` (identity for ``s == 1``)."""
    return t if shift == 1.0 else shift * t / (1.0 + (shift - 1.0) * t)


def _draw_timesteps(
    strategy: str,
    shape: tuple[int, ...],
    *,
    timestep_range: tuple[float, float],
    time_shift: float = 1.0,
    logit_mean: float = 0.0,
    logit_std: float = 1.0,
    device: Any = "cpu",
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Timesteps in ``timestep_range``: ``uniform`` or ``logit_normal`` then shifted."""
    lo, hi = float(timestep_range[0]), float(timestep_range[1])
    if strategy == "uniform":
        unit = torch.rand(shape, generator=generator)
    elif strategy == "logit_normal":
        unit = torch.sigmoid(logit_mean + logit_std * torch.randn(shape, generator=generator))
    else:
        raise ValueError(
            f"time sampling strategy must be uniform or logit_normal, got {strategy!r}"
        )
    return _shift_timesteps(lo + (hi - lo) * unit, float(time_shift)).to(device)


def sample_offline_timesteps(
    training_args: Any,
    *,
    batch_size: int,
    device: torch.device | str,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """``(num_train_timesteps, batch_size)`` timesteps in [0, 1] from the offline args fields."""
    _require_positive_int(batch_size, "batch_size")
    count = getattr(training_args, "num_train_timesteps", None)
    _require_positive_int(count, "training_args.num_train_timesteps")
    scheme = getattr(training_args, "weighting_scheme", None)
    if scheme not in ("logit_normal", "uniform"):
        raise ValueError(f"offline weighting_scheme must be 'logit_normal' or 'uniform', "
                         f"received {scheme!r}")
    return _draw_timesteps(
        scheme,
        (count, batch_size),
        timestep_range=training_args.timestep_range,
        time_shift=float(training_args.time_shift),
        logit_mean=float(training_args.logit_mean),
        logit_std=float(training_args.logit_std),
        device=torch.device(device),
        generator=generator,
    )


def build_noised_output_state(
    adapter: Any,
    clean_state: LatentState,
    primary_timesteps: torch.Tensor,
    *,
    batch: Mapping[str, Any],
    generator: torch.Generator | None = None,
    noise: LatentState | None = None,
) -> tuple[ComponentTimes, NoisedState]:
    """Component times for ``primary_timesteps`` ``(B,)``, then fresh noise (from ``generator``)
    or the given shared ``noise`` (never both)."""
    _require_instance(clean_state, LatentState, "clean_state")
    _require_instance(primary_timesteps, torch.Tensor, "primary_timesteps")
    _require_instance(batch, Mapping, "batch")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"expected generator to be torch.Generator or None, "
                        f"received {type(generator).__name__}: {generator!r}")
    if noise is not None and not isinstance(noise, LatentState):
        raise TypeError(
            f"expected noise to be LatentState or None, received {type(noise).__name__}"
        )
    if noise is not None and generator is not None:
        raise ValueError("generator and explicit noise are mutually exclusive; explicit shared "
                         "noise must not consume another RNG stream")
    times = adapter.build_training_component_times(primary_timesteps, batch=batch)
    if not isinstance(times, ComponentTimes):
        raise TypeError("adapter.build_training_component_times must return ComponentTimes, "
                        f"received {type(times).__name__}")
    if noise is None:
        noised = adapter.add_forward_process_noise(clean_state, times, generator=generator)
    else:
        noised = adapter.apply_forward_process_noise(clean_state, times, noise)
    if not isinstance(noised, NoisedState):
        raise TypeError(
            "adapter forward-process hook must return NoisedState, "
            f"received {type(noised).__name__}"
        )
    return times, noised


def flow_matching_per_sample_loss(
    adapter: Any, predicted_velocity: LatentState, noised: NoisedState
) -> torch.Tensor:
    """fp32 squared velocity error, reduced per sample by the adapter -> ``(B,)`` fp32.

    The adapter receives a plain ``{component: squared error}`` dict (in the target's order)
    and the noised state.
    """
    _require_instance(predicted_velocity, LatentState, "predicted_velocity")
    _require_instance(noised, NoisedState, "noised")
    target = noised.target_velocity
    names = target.component_names
    if predicted_velocity.component_names != names:
        raise ValueError(f"predicted and target velocity component order mismatch: expected "
                         f"{names}, received {predicted_velocity.component_names}")
    errors = {}
    for name in names:
        predicted, wanted = predicted_velocity.components[name], target.components[name]
        _require_matching_velocity(predicted, wanted, name)
        errors[name] = (predicted.float() - wanted.float()).square()
    reduced = adapter.reduce_flow_matching_objective_values(errors, state=noised.state)
    if not isinstance(reduced, torch.Tensor):
        raise TypeError("adapter.reduce_flow_matching_objective_values must return "
                        f"torch.Tensor, received {type(reduced).__name__}")
    batch_size = next(iter(errors.values())).shape[0]
    if tuple(reduced.shape) != (batch_size,):
        raise ValueError("adapter.reduce_flow_matching_objective_values must return one value "
                         f"per sample with shape ({batch_size},), received {tuple(reduced.shape)}")
    if reduced.dtype is not torch.float32:
        raise TypeError(
            f"offline flow-matching reduction must preserve fp32 errors, received {reduced.dtype}"
        )
    return reduced


def validate_preference_output_states(
    chosen: EncodedOutputState, rejected: EncodedOutputState
) -> None:
    """Both arms: same components with the same shape/dtype/device, identical geometry
    signatures and active masks, and forward contexts of the same structure."""
    for arm, value in (("chosen", chosen), ("rejected", rejected)):
        if not isinstance(value, EncodedOutputState):
            raise TypeError(f"expected {arm} output to be EncodedOutputState, "
                            f"received {type(value).__name__}")
    a, b = chosen.clean_state, rejected.clean_state
    if a.component_names != b.component_names:
        raise ValueError(f"preference arm component order mismatch: chosen={a.component_names}, "
                         f"rejected={b.component_names}")
    for name in a.component_names:
        x, y = a.components[name], b.components[name]
        if x.shape != y.shape:
            raise ValueError(f"preference arm shape mismatch for component {name!r}: "
                             f"chosen={tuple(x.shape)}, rejected={tuple(y.shape)}")
        if x.dtype != y.dtype:
            raise TypeError(f"preference arm dtype mismatch for component {name!r}: "
                            f"chosen={x.dtype}, rejected={y.dtype}")
        if x.device != y.device:
            raise ValueError(f"preference arm device mismatch for component {name!r}: "
                             f"chosen={x.device}, rejected={y.device}")
    if chosen.geometry_signatures != rejected.geometry_signatures:
        raise ValueError("preference arms must use identical geometry signatures before "
                         f"shared-noise training, received chosen={chosen.geometry_signatures}, "
                         f"rejected={rejected.geometry_signatures}")
    _require_matching_masks(a, b)
    _require_same_structure(chosen.forward_context, rejected.forward_context, "forward_context")


def validate_preference_component_times(chosen: ComponentTimes, rejected: ComponentTimes) -> None:
    """Both arms resolve the very same times: same fields present, component order, tensor
    metadata and values."""
    for arm, value in (("chosen", chosen), ("rejected", rejected)):
        if not isinstance(value, ComponentTimes):
            raise TypeError(f"expected {arm} component times to be ComponentTimes, "
                            f"received {type(value).__name__}: {value!r}")
    for field_name in ("timestep", "next_timestep", "sigma", "next_sigma"):
        a, b = getattr(chosen, field_name), getattr(rejected, field_name)
        if (a is None) != (b is None):
            raise TypeError(
                f"preference arm component times optional-field mismatch for {field_name!r}"
            )
        if a is None:
            continue
        if tuple(a) != tuple(b):
            raise ValueError(f"preference arm component times order mismatch for "
                             f"{field_name!r}: chosen={tuple(a)}, rejected={tuple(b)}")
        for name in a:
            where = f"{field_name}[{name!r}]"
            x, y = a[name], b[name]
            if (x.shape, x.dtype, x.device) != (y.shape, y.dtype, y.device):
                raise ValueError(f"preference arm component times tensor metadata mismatch for "
                                 f"{where}")
            if not torch.equal(x, y):
                raise ValueError(f"preference arm component times values mismatch for {where}")


def _require_instance(value: Any, kind: type, name: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"expected {name} to be {kind.__name__}, "
                        f"received {type(value).__name__}: {value!r}")


def _require_positive_int(value: Any, identifier: str) -> None:
    if type(value) is not int or value <= 0:
        raise ValueError(f"expected positive int for {identifier}, received {value!r}")


def _require_matching_velocity(predicted: torch.Tensor, target: torch.Tensor, name: str) -> None:
    if predicted.shape != target.shape:
        raise ValueError(f"velocity shape mismatch for component {name!r}: expected "
                         f"{tuple(target.shape)}, received {tuple(predicted.shape)}")
    if predicted.device != target.device:
        raise ValueError(f"velocity device mismatch for component {name!r}: expected "
                         f"{target.device}, received {predicted.device}")
    if not predicted.is_floating_point() or not target.is_floating_point():
        raise TypeError(f"velocity component {name!r} must use floating tensors, received "
                        f"predicted={predicted.dtype}, target={target.dtype}")


def _require_matching_masks(chosen: LatentState, rejected: LatentState) -> None:
    if (chosen.active_masks is None) != (rejected.active_masks is None):
        raise ValueError("preference arms must either both define active masks or both omit them")
    if chosen.active_masks is None:
        return
    for name in chosen.component_names:
        a, b = chosen.active_masks[name], rejected.active_masks[name]
        if a.shape != b.shape or a.device != b.device or not torch.equal(a, b):
            raise ValueError(
                f"preference arms require identical active masks for component {name!r}"
            )


def _require_same_structure(chosen: Any, rejected: Any, identifier: str) -> None:
    """Same nesting, keys and tensor shapes/dtypes/devices (values may differ)."""
    if isinstance(chosen, torch.Tensor) or isinstance(rejected, torch.Tensor):
        same = isinstance(chosen, torch.Tensor) and isinstance(rejected, torch.Tensor) and (
            (chosen.shape, chosen.dtype, chosen.device)
            == (rejected.shape, rejected.dtype, rejected.device)
        )
        if not same:
            raise ValueError(f"preference arm {identifier} tensor structure mismatch")
    elif isinstance(chosen, Mapping) or isinstance(rejected, Mapping):
        if not isinstance(chosen, Mapping) or not isinstance(rejected, Mapping) or (
            tuple(chosen) != tuple(rejected)
        ):
            raise ValueError(f"preference arm {identifier} key/order mismatch")
        for key in chosen:
            _require_same_structure(chosen[key], rejected[key], f"{identifier}[{key!r}]")
    elif isinstance(chosen, (list, tuple)) or isinstance(rejected, (list, tuple)):
        if type(chosen) is not type(rejected) or len(chosen) != len(rejected):
            raise TypeError(f"preference arm {identifier} sequence structure mismatch")
        for index, (a, b) in enumerate(zip(chosen, rejected, strict=True)):
            _require_same_structure(a, b, f"{identifier}[{index}]")
    elif type(chosen) is not type(rejected):
        raise TypeError(f"preference arm {identifier} scalar type mismatch")


__all__ = [
    "build_noised_output_state",
    "flow_matching_per_sample_loss",
    "sample_offline_timesteps",
    "validate_preference_component_times",
    "validate_preference_output_states",
]
