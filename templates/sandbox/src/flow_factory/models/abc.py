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

"""``BaseAdapter``: the model-facing API trainers use (generic over a small velocity network)."""

from __future__ import annotations

import contextlib
import copy
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any, ClassVar, Literal

import torch
from torch import nn

from ..contracts.pipeline_io import PipelineIOContract
from ..samples import (
    BaseSample,
    ComponentTimes,
    LatentState,
    MultiModalStepOutput,
    NoisedState,
    ReplayStep,
    StackedSampleBatch,
)
from ..scheduler import SandboxScheduler, build_scheduler
from .condition_state import PreparedConditionState
from .output_state import DecodedMediaBatch, EncodedOutputState

DEFAULT_BASE_VARIANT = "base"
_REFERENCE_SNAPSHOT = "__reference__"


class BaseAdapter(ABC):
    """Wraps one trainable velocity network ``self.transformer`` and its weight snapshots.

    Snapshots (reference, named, variants) hold *all* network tensors and are swapped in by
    re-pointing ``param.data`` (no in-place copies, so autograd graphs built before the swap stay
    valid). EMA holds the trainable tensors only.
    """

    offline_training_forward_overrides: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {"guidance_scale": 1.0}
    )
    trajectory_component_order: ClassVar[tuple[str, ...]] = ("latent",)
    pipeline_io_contract: ClassVar[PipelineIOContract | None] = None

    def __init__(self, config: Any, accelerator: Any) -> None:
        self.config = config
        self.accelerator = accelerator
        self.model_args = config.model_args
        self.training_args = config.training_args
        scheduler_args = config.scheduler_args
        self.transformer: nn.Module = self._sandbox_load_transformer()
        self._snapshots: dict[str, list[torch.Tensor]] = {}
        self._ema: list[torch.Tensor] | None = None
        # Live trainable roles: the first owns the base network (see declare_component_variants).
        self._variant_order: tuple[str, ...] = (DEFAULT_BASE_VARIANT,)
        self._variant_modules: dict[str, nn.Module] = {DEFAULT_BASE_VARIANT: self.transformer}
        self._variant_snapshots: dict[str, str] = {}
        self._generator = torch.Generator().manual_seed(int(scheduler_args.seed))
        self._scheduler = build_scheduler(scheduler_args, self.training_args)
        # One trajectory component (``latent``), sampled with the configured dynamics.
        self.scheduler_group = SimpleNamespace(
            dynamics={"latent": scheduler_args.dynamics_type}, primary=self._scheduler
        )
        # Real adapters map each trainable component to its LoRA target modules; the sandbox has
        # one component, ``transformer``, whose LoRA targets are its linear layers.
        lora = self.model_args.finetune_type == "lora"
        self.target_module_map: dict[str, list[str]] = {
            "transformer": ["fc1", "fc2", "out"] if lora else []
        }

    # ------------------------------------------------------------------ model hooks
    @abstractmethod
    def _sandbox_load_transformer(self) -> nn.Module:
        """Build the velocity network, trainable parameters selected (sandbox plumbing: real
        adapters load a pipeline with ``load_pipeline``)."""

    @abstractmethod
    def forward(self, state: LatentState, times: ComponentTimes, batch: Mapping[str, Any]):
        """Return the predicted velocity ``LatentState``."""

    @abstractmethod
    def inference(self, **kwargs: Any) -> list[BaseSample]:
        """Generate samples (signature filters the kwargs ``generate_samples`` passes)."""

    @abstractmethod
    def preprocess_func(
        self,
        prompt: Any = None,
        images: Any = None,
        videos: Any = None,
        audios: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Encode raw inputs into cached model conditions."""

    # ------------------------------------------------------------------ properties
    @property
    def device(self) -> torch.device:
        """Device of the trainable network."""
        return next(self.transformer.parameters()).device

    @property
    def scheduler(self) -> SandboxScheduler:
        """The sampling scheduler (``num_sde_steps``, ``noise_level``, train step indices)."""
        return self._scheduler

    @property
    def effective_pipeline_io_contract(self) -> PipelineIOContract:
        """Media this adapter consumes and produces (its declared ``pipeline_io_contract``)."""
        if not isinstance(self.pipeline_io_contract, PipelineIOContract):
            raise TypeError(f"{type(self).__name__} declares no PipelineIOContract "
                            f"(pipeline_io_contract={self.pipeline_io_contract!r})")
        return self.pipeline_io_contract

    @classmethod
    def validate_offline_output_capability(cls) -> None:
        """Raise ``TypeError`` unless the adapter can encode target media for offline training."""
        if cls.encode_output_state is BaseAdapter.encode_output_state:
            raise TypeError(f"{cls.__name__} cannot encode output media for offline training")

    def get_trainable_parameters(self) -> list[nn.Parameter]:
        """Parameters with ``requires_grad``."""
        return [p for p in self.transformer.parameters() if p.requires_grad]

    def _get_component_parameters(self, component_names: Sequence[str]) -> list[nn.Parameter]:
        """Trainable parameters of the named components (the sandbox has ``transformer``)."""
        unknown = [name for name in component_names if name != "transformer"]
        if unknown:
            raise ValueError(f"unknown components {unknown}; this adapter has ['transformer']")
        return self.get_trainable_parameters()

    def _sandbox_set_prepared_module(self, module: nn.Module) -> None:
        """Use the accelerator-prepared network from now on (the base role's network)."""
        base = self._variant_order[0]
        if self._variant_modules.get(base) is self.transformer:
            self._variant_modules[base] = module
        self.transformer = module

    # ------------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> BaseAdapter:
        """Training mode."""
        self.transformer.train(mode)
        return self

    def eval(self) -> BaseAdapter:
        """Evaluation mode."""
        return self.train(False)

    def rollout(self) -> BaseAdapter:
        """Sampling mode (eval)."""
        return self.eval()

    def set_trajectory_seed(self, seed: int) -> None:
        """Seed the sampling noise generator."""
        self._generator.manual_seed(int(seed))

    # ------------------------------------------------------------------ conditions/outputs
    def prepare_condition_state(
        self, condition: Mapping[str, Any], generator: torch.Generator | None = None
    ) -> PreparedConditionState:
        """Per-batch condition preparation (identity for simple models)."""
        if not isinstance(condition, Mapping):
            raise TypeError(
                "expected Mapping[str, Any] for prepare_condition_state condition, "
                f"received {type(condition).__name__}"
            )
        return PreparedConditionState.identity(condition)

    def encode_output_state(
        self,
        media_batch: DecodedMediaBatch,
        condition: Mapping[str, Any] | PreparedConditionState,
        generator: torch.Generator | None = None,
    ) -> EncodedOutputState:
        """Encode target media into a clean ``LatentState`` (offline training)."""
        raise NotImplementedError(f"{type(self).__name__} cannot encode output media")

    def decode_output_state(
        self, encoded: EncodedOutputState, *, output_type: Literal["pil", "pt", "np"] = "pil"
    ) -> Any:
        """Decode an encoding's clean state back to media of ``output_type``."""
        if not isinstance(encoded, EncodedOutputState):
            raise TypeError(
                "expected EncodedOutputState for decode_output_state encoded, "
                f"received {type(encoded).__name__}"
            )
        if output_type not in ("pil", "pt", "np"):
            raise ValueError(f"expected output_type 'pil', 'pt' or 'np', received {output_type!r}")
        return self._decode_output_state(encoded, output_type=output_type)

    def _decode_output_state(
        self, encoded: EncodedOutputState, *, output_type: Literal["pil", "pt", "np"]
    ) -> Any:
        raise NotImplementedError(f"{type(self).__name__} cannot decode output states")

    def cast_latent_state(
        self, state: LatentState, default_dtype: torch.dtype | None = None
    ) -> LatentState:
        """Every component in the storage dtype (``training_args.latent_storage_dtype``, else
        ``default_dtype``, else unchanged); active masks are carried over."""
        if not isinstance(state, LatentState):
            raise TypeError(
                f"expected LatentState for cast_latent_state, got {type(state).__name__}"
            )
        target = _STORAGE_DTYPES.get(getattr(self.training_args, "latent_storage_dtype", None))
        target = target or default_dtype
        if target is None:
            return state
        cast = {name: value.to(target) for name, value in state.components.items()}
        return LatentState(cast, active_masks=state.active_masks)

    def forward_state(
        self,
        *,
        batch: Mapping[str, Any],
        state: LatentState,
        times: ComponentTimes,
        next_state: LatentState | None = None,
        compute_log_prob: bool = False,
        return_fields: tuple[str, ...] = (),
        noise_level: float | None = None,
        **kwargs: Any,
    ) -> MultiModalStepOutput:
        """Velocity at ``(state, times)``; with ``compute_log_prob`` the Gaussian log-density of
        ``next_state`` under an Euler-Maruyama step of std ``noise_level * sqrt(|dt|)``."""
        order = self.trajectory_component_order
        self._sandbox_require_order(state, order, "forward_state state")
        _require_times_order(times, order, "forward_state", ("timestep", "next_timestep"))
        velocity = self.forward(state, times, batch)
        # Transition statistics come with a log-probability, or when asked for by name.
        statistics = {"next_state_mean", "std_dev_t", "dt"} & set(return_fields)
        if not compute_log_prob and not statistics:
            return MultiModalStepOutput(velocity=velocity)
        if compute_log_prob and next_state is None:
            raise ValueError("compute_log_prob=True needs next_state")
        if compute_log_prob:
            self._sandbox_require_order(next_state, order, "forward_state next_state")
        level = float(self._scheduler.noise_level if noise_level is None else noise_level)
        mean, std, dt, log_probs = {}, {}, {}, {}
        for name, x in state.components.items():
            # dt < 0: time runs from 1 (noise) to 0 (data).
            step = _per_sample(times.next_timestep[name] - times.timestep[name], x).float()
            mean[name] = x + _expand(step, x) * velocity.components[name]
            scale = (level * step.abs().clamp_min(1e-8).sqrt()).clamp_min(1e-6)
            std[name], dt[name] = _expand(scale, x), _expand(step, x)
            if compute_log_prob:
                log_probs[name] = _gaussian_log_prob(
                    next_state.components[name], mean[name], std[name]
                )
        if not compute_log_prob:
            return MultiModalStepOutput(
                next_state_mean=LatentState(mean, active_masks=state.active_masks),
                std_dev_t=std,
                dt=dt,
                velocity=velocity,
            )
        return MultiModalStepOutput(
            next_state_mean=LatentState(mean, active_masks=state.active_masks),
            std_dev_t=std,
            dt=dt,
            log_prob=torch.stack(list(log_probs.values()), dim=0).sum(dim=0),
            component_log_probs=log_probs,
            velocity=velocity,
        )

    # ------------------------------------------------------------------ forward process
    def build_training_component_times(
        self, primary_timesteps: torch.Tensor, *, batch: Mapping[str, Any] | None = None
    ) -> ComponentTimes:
        """Per-component times for training forwards at ``primary_timesteps`` ``(B,)``: next
        time 0 and ``sigma == timestep`` (the sandbox's scheduler scale is [0, 1])."""
        if not isinstance(primary_timesteps, torch.Tensor):
            raise TypeError(
                "expected torch.Tensor primary_timesteps for build_training_component_times, "
                f"received {type(primary_timesteps).__name__}: {primary_timesteps!r}"
            )
        if primary_timesteps.ndim != 1:
            raise ValueError(
                "expected primary_timesteps with one scheduler coordinate per sample, shape "
                f"(B,), received {tuple(primary_timesteps.shape)}"
            )
        names = self.trajectory_component_order
        return ComponentTimes(
            timestep={name: primary_timesteps for name in names},
            next_timestep={name: torch.zeros_like(primary_timesteps) for name in names},
            sigma={name: primary_timesteps for name in names},
            next_sigma={name: torch.zeros_like(primary_timesteps) for name in names},
        )

    def add_forward_process_noise(
        self,
        clean_state: LatentState,
        times: ComponentTimes,
        *,
        generator: torch.Generator | None = None,
    ) -> NoisedState:
        """Draw Gaussian noise in component order (the only RNG use), then noise ``clean_state``
        to ``times`` with :meth:`apply_forward_process_noise`."""
        order = self.trajectory_component_order
        self._sandbox_require_order(clean_state, order, "add_forward_process_noise clean_state")
        _require_times_order(times, order, "add_forward_process_noise", ("sigma",))
        noise = {
            name: torch.randn(x.shape, generator=generator, dtype=x.dtype).to(x.device)
            for name, x in clean_state.components.items()
        }
        return self.apply_forward_process_noise(clean_state, times, LatentState(noise))

    def apply_forward_process_noise(
        self, clean_state: LatentState, times: ComponentTimes, noise: LatentState
    ) -> NoisedState:
        """``x_t = (1 - sigma) x0 + sigma n``, target velocity ``n - x0``; elements outside the
        active masks stay clean with a zero target."""
        order = self.trajectory_component_order
        self._sandbox_require_order(clean_state, order, "apply_forward_process_noise clean_state")
        self._sandbox_require_order(noise, order, "apply_forward_process_noise noise")
        _require_times_order(times, order, "apply_forward_process_noise", ("sigma",))
        noised, target = {}, {}
        for name, x0 in clean_state.components.items():
            n = noise.components[name]
            _require_like(n, x0, f"noise component {name!r}")
            sigma = _expand(_per_sample(times.sigma[name], x0), x0).to(x0.dtype)
            noised[name] = (1.0 - sigma) * x0 + sigma * n
            target[name] = n - x0
            if clean_state.active_masks is not None:
                mask = clean_state.active_masks[name].to(x0.device)
                noised[name] = torch.where(mask, noised[name], x0)
                target[name] = torch.where(mask, target[name], torch.zeros_like(target[name]))
        masks = clean_state.active_masks
        return NoisedState(
            state=LatentState(noised, active_masks=masks),
            target_velocity=LatentState(target, active_masks=masks),
            noise=noise,
        )

    def project_velocity_to_clean_state(
        self, state: LatentState, times: ComponentTimes, velocity: LatentState
    ) -> LatentState:
        """``x0 = x_t - sigma v`` per component."""
        order = self.trajectory_component_order
        self._sandbox_require_order(state, order, "project_velocity_to_clean_state state")
        self._sandbox_require_order(velocity, order, "project_velocity_to_clean_state velocity")
        _require_times_order(times, order, "project_velocity_to_clean_state", ("sigma",))
        clean = {}
        for name, x in state.components.items():
            v = velocity.components[name]
            if v.shape != x.shape or v.device != x.device:
                raise ValueError(
                    f"expected velocity component {name!r} to match state shape/device "
                    f"({tuple(x.shape)}, {x.device}), received ({tuple(v.shape)}, {v.device})"
                )
            dtype = torch.promote_types(x.dtype, v.dtype)
            sigma = _expand(_per_sample(times.sigma[name], x), x).to(dtype)
            clean[name] = x.to(dtype) - sigma * v.to(dtype)
        return LatentState(clean, active_masks=state.active_masks)

    def reduce_latent_values(
        self,
        values: Mapping[str, torch.Tensor],
        *,
        active_numel: Mapping[str, int] | None = None,
        state: LatentState | None = None,
    ) -> torch.Tensor:
        """Per-sample values ``(B,)`` weighted by element count over every component.

        ``values`` is a plain ``{component: tensor}`` mapping in ``trajectory_component_order``
        (a ``LatentState`` is refused). ``active_numel`` marks components whose values are
        already per-sample means ``(B,)`` over that many elements.
        """
        self._sandbox_check_reduction_state(state)
        reduced = self._reduce_latent_values(values, active_numel=active_numel, state=state)
        return self._sandbox_check_reduced(reduced, values, "reduce_latent_values")

    def _reduce_latent_values(
        self,
        values: Mapping[str, torch.Tensor],
        *,
        active_numel: Mapping[str, int] | None = None,
        state: LatentState | None = None,
    ) -> torch.Tensor:
        return _weighted_element_mean(values, self.trajectory_component_order, active_numel)

    def reduce_flow_matching_objective_values(
        self, values: Mapping[str, torch.Tensor], *, state: LatentState | None = None
    ) -> torch.Tensor:
        """The flow-matching objective's per-sample reduction (default:
        ``reduce_latent_values``)."""
        self._sandbox_check_reduction_state(state)
        reduced = self._reduce_flow_matching_objective_values(values, state=state)
        return self._sandbox_check_reduced(reduced, values, "reduce_flow_matching_objective_values")

    def _reduce_flow_matching_objective_values(
        self, values: Mapping[str, torch.Tensor], *, state: LatentState | None = None
    ) -> torch.Tensor:
        return self.reduce_latent_values(values, state=state)

    def _sandbox_check_reduction_state(self, state: LatentState | None) -> None:
        if state is None:
            return
        if not isinstance(state, LatentState):
            raise TypeError(f"expected LatentState or None for reduction state, "
                            f"received {type(state).__name__}")
        order = self.trajectory_component_order
        if state.component_names != order:
            raise ValueError(
                f"expected state component order {order}, received {state.component_names}"
            )

    def _sandbox_check_reduced(self, reduced: Any, values: Any, method: str) -> torch.Tensor:
        first = next(iter(values.values()))
        expected = (int(first.shape[0]),)
        if not isinstance(reduced, torch.Tensor) or tuple(reduced.shape) != expected:
            shape = tuple(getattr(reduced, "shape", ())) or type(reduced).__name__
            raise ValueError(
                f"{method} of {type(self).__name__} must return one value per sample, shape "
                f"{expected}, received {shape}"
            )
        return reduced

    def _sandbox_require_order(self, state: Any, order: tuple[str, ...], identifier: str) -> None:
        if not isinstance(state, LatentState):
            raise TypeError(f"expected LatentState for {identifier}, "
                            f"received {type(state).__name__}")
        if state.component_names != order:
            raise ValueError(f"expected {identifier} component order {order}, "
                             f"received {state.component_names}")

    # ------------------------------------------------------------------ replay
    def get_terminal_state(self, batch: StackedSampleBatch) -> LatentState:
        """Final clean samples of a stacked batch: the stored latents of the last rollout
        position (``all_latents`` through ``latent_index_map``)."""
        index_map = batch["latent_index_map"]
        last = _stored_position(index_map, index_map.shape[0] - 1, "latent_index_map")
        return LatentState({"latent": batch["all_latents"][:, last]})

    def get_train_step_indices(self) -> torch.Tensor:
        """Rollout step positions that training replays (the scheduler's SDE steps)."""
        return self._scheduler.train_step_indices()

    def get_replay_step(self, batch: StackedSampleBatch, step_index: int) -> ReplayStep:
        """Stored transition ``step_index`` of each trajectory as a ``ReplayStep``.

        The rollout must have kept positions ``step_index`` and ``step_index + 1``
        (``compute_trajectory_indices`` of the train step indices keeps exactly those). As for
        Flow-Factory's single-component trajectories, the times carry no sigmas.
        """
        if not isinstance(step_index, int):
            raise TypeError(f"expected int step_index for get_replay_step, received "
                            f"{type(step_index).__name__}: {step_index!r}")
        if step_index < 0:
            raise ValueError(f"expected non-negative step_index, received {step_index}")
        index_map, timesteps = batch["latent_index_map"], batch["timesteps"]
        steps = timesteps.shape[1] - 1
        if step_index >= steps:
            raise ValueError(f"step_index {step_index} is outside the rollout's {steps} steps")
        here = _stored_position(index_map, step_index, "latent_index_map")
        there = _stored_position(index_map, step_index + 1, "latent_index_map")
        latents = batch["all_latents"]
        log_prob = None
        if batch.get("log_probs") is not None:
            column = _stored_position(batch["log_prob_index_map"], step_index, "log_prob_index_map")
            log_prob = batch["log_probs"][:, column]
        return ReplayStep(
            state=LatentState({"latent": latents[:, here]}),
            next_state=LatentState({"latent": latents[:, there]}),
            times=ComponentTimes(
                timestep={"latent": timesteps[:, step_index]},
                next_timestep={"latent": timesteps[:, step_index + 1]},
            ),
            log_prob=log_prob,
            component_log_probs=None if log_prob is None else {"latent": log_prob},
        )

    # ------------------------------------------------------------------ snapshots
    def _all_tensors(self) -> list[nn.Parameter]:
        return list(self.transformer.parameters())

    def _clone_all(self) -> list[torch.Tensor]:
        return [p.detach().clone() for p in self._all_tensors()]

    @contextlib.contextmanager
    def _swapped(self, tensors: list[torch.Tensor], params: list[nn.Parameter] | None = None):
        params = self._all_tensors() if params is None else params
        originals = [p.data for p in params]
        try:
            for p, t in zip(params, tensors, strict=True):
                p.data = t
            yield self
        finally:
            for p, t in zip(params, originals, strict=True):
                p.data = t

    def _init_ref_parameters(self) -> None:
        """Freeze the current weights as the reference (called by the trainer at init)."""
        self._snapshots[_REFERENCE_SNAPSHOT] = self._clone_all()

    @contextlib.contextmanager
    def use_ref_parameters(self) -> Iterator[BaseAdapter]:
        """Swap the frozen reference weights in (no grad) for the ``with`` body."""
        if _REFERENCE_SNAPSHOT not in self._snapshots:
            raise RuntimeError("no reference snapshot: training_args.requires_ref_model is False")
        with torch.no_grad(), self._swapped(self._snapshots[_REFERENCE_SNAPSHOT]):
            yield self

    def add_named_parameters(
        self,
        name: str,
        target_components: Sequence[str] | None = None,
        device: Any = None,
        overwrite: bool = True,
    ) -> None:
        """Snapshot ``name``: a copy of the current weights (the sandbox copies every tensor).

        ``target_components`` are checked against this adapter's components; ``device`` is
        accepted for interface parity (the sandbox keeps snapshots beside the weights).
        """
        if name == _REFERENCE_SNAPSHOT or not name:
            raise ValueError(f"invalid snapshot name {name!r}")
        if target_components is not None:
            self._get_component_parameters(target_components)
        if name in self._snapshots and not overwrite:
            raise ValueError(f"named parameters {name!r} already exist and overwrite=False")
        self._snapshots[name] = self._clone_all()

    def remove_named_parameters(self, name: str) -> None:
        """Drop snapshot ``name``."""
        self._snapshots.pop(name, None)

    def _resolve_checkpoint_path(self, path: str) -> str:
        """Resolve a checkpoint location (the sandbox accepts ``toy:seed=<n>`` and files)."""
        return str(path)

    def _load_lora(self, path: str) -> None:
        """Load LoRA weights from ``path`` into the live trainable (active-slot) parameters."""
        self._load_into_trainable(path, lora=True)

    def _load_full_model(self, path: str, strict: bool = True) -> None:
        """Load full-model weights from ``path`` into the live trainable parameters."""
        self._load_into_trainable(path, lora=False)

    def _load_into_trainable(self, path: str, *, lora: bool) -> None:
        if (self.model_args.finetune_type == "lora") != lora:
            kind = "LoRA" if lora else "full-model"
            raise ValueError(
                f"cannot load {kind} weights {path!r} into a "
                f"{self.model_args.finetune_type!r} finetune"
            )
        state = self._sandbox_read_weights(str(path))
        self._sandbox_load_trainable_state_dict(state)

    def _sandbox_read_weights(self, source: str) -> dict[str, torch.Tensor]:
        """Trainable weights stored at ``source``, keyed like the trainable state dict (a
        ``torch.save``d file; the toy adapter also reads ``toy:...`` sources)."""
        return dict(torch.load(source, map_location="cpu"))

    def list_named_parameters(self) -> list[str]:
        """Names of the named snapshots (reference and role variants excluded)."""
        return [
            n for n in self._snapshots
            if n != _REFERENCE_SNAPSHOT and n not in self._variant_snapshots
        ]

    @contextlib.contextmanager
    def use_named_parameters(self, name: str) -> Iterator[BaseAdapter]:
        """Swap snapshot ``name`` in for the ``with`` body."""
        if name not in self._snapshots:
            known = self.list_named_parameters()
            raise KeyError(f"unknown named parameters {name!r}; have {known}")
        with self._swapped(self._snapshots[name]):
            yield self

    def update_named_parameters(
        self,
        name: str,
        target_components: Sequence[str] | None = None,
        new_parameters: Sequence[torch.Tensor] | None = None,
    ) -> None:
        """Overwrite snapshot ``name`` with ``new_parameters`` (default: the current weights)."""
        if name not in self._snapshots:
            known = self.list_named_parameters()
            raise KeyError(f"unknown named parameters {name!r}; have {known}")
        source = self._all_tensors() if new_parameters is None else list(new_parameters)
        with torch.no_grad():
            for snap, p in zip(self._snapshots[name], source, strict=True):
                snap.copy_(p.detach())

    def _sandbox_named_state_dict(self, name: str) -> dict[str, torch.Tensor]:
        """Snapshot ``name`` keyed by parameter name."""
        keys = [k for k, _ in self.transformer.named_parameters()]
        return {k: t.clone() for k, t in zip(keys, self._snapshots[name], strict=True)}

    def _sandbox_load_named_state_dict(self, name: str, state: Mapping[str, torch.Tensor]) -> None:
        """Restore snapshot ``name`` exactly."""
        keys = [k for k, _ in self.transformer.named_parameters()]
        if sorted(state) != sorted(keys):
            raise ValueError(f"snapshot {name!r} keys differ from the network's parameters")
        self._snapshots[name] = [state[k].clone() for k in keys]

    # ------------------------------------------------------------------ EMA
    def _init_ema(self) -> None:
        """Start the EMA copy of the trainable weights."""
        self._ema = [p.detach().clone() for p in self.get_trainable_parameters()]

    def ema_step(self, step: int) -> None:
        """EMA update every ``ema_update_interval`` steps (no-op when EMA is disabled)."""
        decay = float(getattr(self.training_args, "ema_decay", 0.0) or 0.0)
        interval = max(1, int(getattr(self.training_args, "ema_update_interval", 1)))
        if self._ema is None or decay <= 0 or int(step) % interval:
            return
        with torch.no_grad():
            for e, p in zip(self._ema, self.get_trainable_parameters(), strict=True):
                e.mul_(decay).add_(p.detach(), alpha=1.0 - decay)

    @contextlib.contextmanager
    def use_ema_parameters(self) -> Iterator[BaseAdapter]:
        """Swap the EMA weights in for the ``with`` body."""
        if self._ema is None:
            raise RuntimeError("EMA is disabled (training_args.ema_decay == 0)")
        with torch.no_grad(), self._swapped(self._ema, self.get_trainable_parameters()):
            yield self

    # ------------------------------------------------------------------ variants (multi-role)
    def declare_component_variants(self, trainable_variants: Sequence[str]) -> None:
        """Declare the live trainable roles before ``prepare``.

        The first role owns the canonical (base) network; every other role gets its own copy of
        it, with its own parameters, so each role has its own optimizer groups and gradients.
        """
        roles = tuple(trainable_variants)
        if not roles or len(set(roles)) != len(roles):
            raise ValueError(f"component variants must be distinct and non-empty, got {roles}")
        base = self._variant_modules.get(self._variant_order[0], self.transformer)
        modules = {roles[0]: base}
        for role in roles[1:]:
            existing = self._variant_modules.get(role)
            modules[role] = copy.deepcopy(base) if existing is None else existing
        self._variant_order, self._variant_modules = roles, modules

    def variant_parameters(self, variant_name: str) -> list[nn.Parameter]:
        """Trainable parameters owned by role ``variant_name``."""
        return [p for p in self._variant_module(variant_name).parameters() if p.requires_grad]

    def _variant_module(self, variant_name: str) -> nn.Module:
        if variant_name not in self._variant_modules:
            declared = list(self._variant_order)
            raise KeyError(f"unknown component variant {variant_name!r}; declared {declared}")
        return self._variant_modules[variant_name]

    def _bundle_members(self) -> dict[str, nn.Module]:
        """Every role's network, keyed ``transformer`` (base) and ``transformer@<role>``."""
        return {
            "transformer" if index == 0 else f"transformer@{role}": self._variant_modules[role]
            for index, role in enumerate(self._variant_order)
        }

    def _variant_state_dict(self, variant_name: str) -> dict[str, torch.Tensor]:
        module = self._variant_module(variant_name)
        return {k: p.detach().clone() for k, p in module.named_parameters() if p.requires_grad}

    def _load_variant_state_dict(self, variant_name: str, state: Mapping[str, Any]) -> None:
        module = self._variant_module(variant_name)
        params = {k: p for k, p in module.named_parameters() if p.requires_grad}
        if sorted(params) != sorted(state):
            raise ValueError(f"role {variant_name!r} weights do not match its network")
        with torch.no_grad():
            for k, p in params.items():
                p.copy_(state[k].to(p.device, p.dtype))

    def declare_variant_snapshot(self, variant_name: str, snapshot_name: str) -> None:
        """Register a parameter EMA ``snapshot_name`` that follows variant ``variant_name``."""
        with self.use_component_variant(variant_name):
            self._snapshots[snapshot_name] = self._clone_all()
        self._variant_snapshots[snapshot_name] = variant_name

    def has_variant_snapshot(self, snapshot_name: str) -> bool:
        """Whether a variant snapshot ``snapshot_name`` exists."""
        return snapshot_name in self._variant_snapshots

    def update_variant_snapshot(self, snapshot_name: str, decay: float) -> None:
        """EMA-update a variant snapshot towards the live weights of its variant."""
        with torch.no_grad(), self.use_component_variant(self._variant_snapshots[snapshot_name]):
            for snap, p in zip(self._snapshots[snapshot_name], self._all_tensors(), strict=True):
                snap.mul_(decay).add_(p.detach(), alpha=1.0 - decay)

    @contextlib.contextmanager
    def use_variant_snapshot(self, snapshot_name: str) -> Iterator[BaseAdapter]:
        """Swap a variant snapshot in for the ``with`` body."""
        with self._swapped(self._snapshots[snapshot_name]):
            yield self

    @contextlib.contextmanager
    def use_component_variant(self, variant_name: str) -> Iterator[BaseAdapter]:
        """Route the network to role ``variant_name`` for the ``with`` body (forwards, backward
        and optimizer steps inside use and update that role's own parameters)."""
        module = self._variant_module(variant_name)
        previous, self.transformer = self.transformer, module
        try:
            yield self
        finally:
            self.transformer = previous

    # ------------------------------------------------------------------ checkpoint helpers
    def save_checkpoint(
        self,
        save_directory: str,
        max_shard_size: str = "5GB",
        dtype: Any = None,
        save_ema: bool = True,
        model_only: bool = True,
        safe_serialization: bool = True,
        variant: str | None = None,
        include_training_roles: bool = False,
        **kwargs: Any,
    ) -> None:
        """Model-only save (``log.save_model_only``): the trainable weights as ``model.pt``.

        The real adapter writes sharded safetensors per component; one file stands in for them.
        """
        folder = Path(save_directory)
        folder.mkdir(parents=True, exist_ok=True)
        torch.save(self._checkpoint_state_dict(include_training_roles), folder / "model.pt")

    def load_checkpoint(
        self,
        path: str,
        strict: bool = True,
        resume_type: Literal["lora", "full", "state"] | None = None,
    ) -> None:
        """Load the trainable weights (every role's) a checkpoint folder's ``model.pt`` holds.

        ``lora``, ``full`` and None (the real adapter detects which) read the same file here;
        any other type is refused, as the real adapter refuses it. ``state`` is refused too:
        the sandbox keeps exact training state with the trainer, which restores it only while
        it is built (``model.resume_path`` with ``model.resume_type: state``).
        """
        if resume_type not in (None, "lora", "full", "state"):
            raise ValueError(
                f"resume_type must be 'lora', 'full', 'state' or None, got {resume_type!r}"
            )
        if resume_type == "state":
            raise RuntimeError(
                "the sandbox restores exact training state only while the trainer is built: "
                "set model.resume_path and model.resume_type: state"
            )
        self._load_checkpoint_state_dict(torch.load(Path(path) / "model.pt"), strict=strict)

    def _checkpoint_state_dict(
        self, include_training_roles: bool = True
    ) -> dict[str, torch.Tensor]:
        """The base role's trainable weights under their names, each other role's (when
        included) as ``<role>::<name>``."""
        state = self._sandbox_trainable_state_dict()
        if include_training_roles:
            for role in self._variant_order[1:]:
                for name, tensor in self._variant_state_dict(role).items():
                    state[f"{role}::{name}"] = tensor
        return state

    def _load_checkpoint_state_dict(
        self, state: Mapping[str, torch.Tensor], strict: bool = True
    ) -> None:
        """The inverse of :meth:`_checkpoint_state_dict`; ``strict``: every role must be there."""
        self._sandbox_load_trainable_state_dict({k: v for k, v in state.items() if "::" not in k})
        for role in self._variant_order[1:]:
            prefix = f"{role}::"
            part = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
            if part or strict:
                self._load_variant_state_dict(role, part)

    def _sandbox_trainable_state_dict(self) -> dict[str, torch.Tensor]:
        """Trainable weights keyed by parameter name (cloned)."""
        return {
            k: p.detach().clone() for k, p in self.transformer.named_parameters() if p.requires_grad
        }

    def _sandbox_load_trainable_state_dict(self, state: Mapping[str, torch.Tensor]) -> None:
        """Copy trainable weights back exactly; keys must match."""
        params = {k: p for k, p in self.transformer.named_parameters() if p.requires_grad}
        if sorted(params) != sorted(state):
            missing, extra = sorted(set(params) - set(state)), sorted(set(state) - set(params))
            raise ValueError(f"trainable keys differ: missing {missing}, unexpected {extra}")
        with torch.no_grad():
            for k, p in params.items():
                p.copy_(state[k].to(p.device, p.dtype))

    def _sandbox_ema_state_dict(self) -> list[torch.Tensor] | None:
        """EMA tensors (or None)."""
        return None if self._ema is None else [t.clone() for t in self._ema]

    def _sandbox_load_ema_state_dict(self, state: list[torch.Tensor] | None) -> None:
        """Restore EMA tensors."""
        self._ema = None if state is None else [t.clone() for t in state]


# training_args.latent_storage_dtype spellings -> dtype
_STORAGE_DTYPES: dict[Any, torch.dtype] = {
    "fp16": torch.float16, "float16": torch.float16,
    "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
    "fp32": torch.float32, "float32": torch.float32,
}


def _expand(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Reshape ``(B,)`` to broadcast against ``like`` ``(B, ...)``."""
    return values.reshape(values.shape[0], *([1] * (like.dim() - 1))).to(like.device)


def _stored_position(index_map: torch.Tensor, position: int, map_name: str) -> int:
    """Stored row of rollout ``position`` through a shared ``(T,)`` index map (-1: not kept)."""
    if index_map.ndim != 1:
        raise TypeError(f"expected {map_name} with shape (T,), received {tuple(index_map.shape)}")
    if position >= index_map.shape[0]:
        raise ValueError(f"expected rollout position below {index_map.shape[0]} for {map_name}, "
                         f"received {position}")
    stored = int(index_map[position])
    if stored < 0:
        raise ValueError(
            f"{map_name} at rollout position {position} received uncollected sentinel -1; map "
            f"contents {index_map.tolist()} (sample with trajectory_indices="
            "compute_trajectory_indices(...) of the train steps)"
        )
    return stored


def _per_sample(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """A time coordinate as ``(B,)``: a 0-dim one is shared by the batch of ``like``."""
    batch_size = like.shape[0]
    if values.ndim == 0:
        return values.expand(batch_size).to(like.device)
    if values.numel() != batch_size:
        raise ValueError(f"expected one time value per sample ({batch_size},), "
                         f"received shape {tuple(values.shape)}")
    return values.reshape(batch_size).to(like.device)


def _require_like(value: torch.Tensor, like: torch.Tensor, identifier: str) -> None:
    if (value.shape, value.dtype, value.device) != (like.shape, like.dtype, like.device):
        raise ValueError(
            f"expected {identifier} to match the clean shape/dtype/device "
            f"({tuple(like.shape)}, {like.dtype}, {like.device}), received "
            f"({tuple(value.shape)}, {value.dtype}, {value.device})"
        )


def _require_times_order(
    times: Any, order: tuple[str, ...], operation: str, fields: tuple[str, ...]
) -> None:
    """``times`` is a ``ComponentTimes`` whose ``fields`` name exactly ``order``."""
    if not isinstance(times, ComponentTimes):
        raise TypeError(f"expected ComponentTimes for {operation} times, "
                        f"received {type(times).__name__}")
    for field_name in fields:
        values = getattr(times, field_name)
        received = None if values is None else tuple(values)
        if received != order:
            raise ValueError(f"expected {field_name} component order {order} for {operation}, "
                             f"received {received}")


def _weighted_element_mean(
    values: Any, order: tuple[str, ...], active_numel: Mapping[str, int] | None
) -> torch.Tensor:
    """Sum of every component's elements over their count, per sample.

    A component listed in ``active_numel`` holds per-sample means ``(B,)`` over that many
    elements. A single component of shape ``(B,)`` is returned as is.
    """
    if not isinstance(values, Mapping) or not values:
        raise ValueError(f"expected non-empty Mapping[str, torch.Tensor] for values, "
                         f"received {type(values).__name__}")
    if tuple(values) != order:
        raise ValueError(f"expected values keys/order to match trajectory_component_order "
                         f"{order}, received {tuple(values)}")
    overrides = _check_active_numel(active_numel, order)
    first = values[order[0]]
    if not isinstance(first, torch.Tensor) or first.ndim < 1:
        raise TypeError(f"expected batched torch.Tensor for values[{order[0]!r}], "
                        f"received {type(first).__name__}")
    if len(order) == 1 and first.ndim == 1:
        return first
    total, weight = None, 0
    for name in order:
        part, count = _component_sum(values[name], name, first, overrides.get(name))
        total = part if total is None else total + part
        weight += count
    return total / weight


def _check_active_numel(active_numel: Any, order: tuple[str, ...]) -> dict[str, int]:
    if active_numel is None:
        return {}
    if not isinstance(active_numel, Mapping):
        raise TypeError(f"expected Mapping[str, int] or None for active_numel, "
                        f"received {type(active_numel).__name__}")
    unknown = tuple(name for name in active_numel if name not in order)
    if unknown:
        raise ValueError(f"active_numel received unknown keys {unknown}; expected a subset of "
                         f"trajectory_component_order {order}")
    for name, count in active_numel.items():
        if type(count) is not int or count <= 0:
            raise ValueError(f"expected active_numel[{name!r}] to be a positive int, "
                             f"received {count!r}")
    return dict(active_numel)


def _component_sum(
    value: Any, name: str, first: torch.Tensor, count: int | None
) -> tuple[torch.Tensor, int]:
    """Per-sample element sum of one component and how many elements it covers."""
    if not isinstance(value, torch.Tensor) or value.ndim < 1:
        raise TypeError(f"expected batched torch.Tensor for values[{name!r}], "
                        f"received {type(value).__name__}")
    if value.shape[0] != first.shape[0]:
        raise ValueError(f"expected batch size {first.shape[0]} for values[{name!r}], "
                         f"received shape {tuple(value.shape)}")
    if (value.device, value.dtype) != (first.device, first.dtype):
        raise ValueError(f"expected compatible dtype/device ({first.device}, {first.dtype}), "
                         f"received {name!r} ({value.device}, {value.dtype})")
    if count is not None:
        if value.ndim != 1:
            raise ValueError(f"expected already-reduced values[{name!r}] shape (B,) when "
                             f"active_numel is provided, received {tuple(value.shape)}")
        return value * count, count
    flat = value.reshape(value.shape[0], -1)
    return flat.sum(dim=1), int(flat.shape[1])


def _gaussian_log_prob(x: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    """Diagonal Gaussian log-density summed over non-batch dims -> ``(B,)`` fp32."""
    var = std.float() ** 2
    log_density = -((x.float() - mean.float()) ** 2) / (2 * var) - 0.5 * torch.log(
        2 * torch.pi * var
    )
    return log_density.reshape(x.shape[0], -1).sum(dim=1)


__all__ = ["BaseAdapter", "DEFAULT_BASE_VARIANT"]
