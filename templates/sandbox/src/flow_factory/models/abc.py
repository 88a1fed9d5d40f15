"""``BaseAdapter``: the model-facing API trainers use (generic over a small velocity network)."""

from __future__ import annotations

import contextlib
import copy
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any, ClassVar

import torch
from torch import nn

from ..contracts.pipeline_io import PipelineIOContract
from ..samples import BaseSample, ComponentTimes, LatentState, MultiModalStepOutput, NoisedState
from ..scheduler import SandboxScheduler, build_scheduler
from .condition_state import PreparedConditionState
from .output_state import EncodedOutputState

DEFAULT_BASE_VARIANT = "base"
REFERENCE_SNAPSHOT = "__reference__"


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
    pipeline_io_contract: ClassVar[PipelineIOContract] = PipelineIOContract()

    def __init__(self, config: Any, accelerator: Any) -> None:
        self.config = config
        self.accelerator = accelerator
        self.model_args = config.model_args
        self.training_args = config.training_args
        self.scheduler_args = config.scheduler_args
        self.transformer: nn.Module = self.load_transformer()
        self._snapshots: dict[str, list[torch.Tensor]] = {}
        self._ema: list[torch.Tensor] | None = None
        # Live trainable roles: the first owns the base network (see declare_component_variants).
        self._variant_order: tuple[str, ...] = (DEFAULT_BASE_VARIANT,)
        self._variant_modules: dict[str, nn.Module] = {DEFAULT_BASE_VARIANT: self.transformer}
        self._variant_snapshots: dict[str, str] = {}
        self._generator = torch.Generator().manual_seed(int(self.scheduler_args.seed))
        self._scheduler = build_scheduler(self.scheduler_args, self.training_args)
        self.scheduler_group = SimpleNamespace(
            dynamics=dict(self.scheduler_args.component_dynamics), primary=self._scheduler
        )
        # Real adapters map each trainable component to its LoRA target modules; the sandbox has
        # one component, ``transformer``, whose LoRA targets are its linear layers.
        lora = self.model_args.finetune_type == "lora"
        self.target_module_map: dict[str, list[str]] = {
            "transformer": ["fc1", "fc2", "out"] if lora else []
        }

    # ------------------------------------------------------------------ model hooks
    @abstractmethod
    def load_transformer(self) -> nn.Module:
        """Build the velocity network (trainable parameters already selected)."""

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
        """Media this adapter consumes and produces."""
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

    def set_prepared_module(self, module: nn.Module) -> None:
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
        return PreparedConditionState.identity(condition)

    def encode_output_state(
        self,
        media_batch: Sequence[Sequence[Any]],
        condition: PreparedConditionState,
        generator: torch.Generator | None = None,
    ) -> EncodedOutputState:
        """Encode target media into a clean ``LatentState`` (offline training)."""
        raise NotImplementedError(f"{type(self).__name__} cannot encode output media")

    def forward_state(
        self,
        *,
        batch: Mapping[str, Any],
        state: LatentState,
        times: ComponentTimes,
        next_state: LatentState | None = None,
        compute_log_prob: bool = False,
        return_fields: Sequence[str] = (),
        noise_level: float | None = None,
        **kwargs: Any,
    ) -> MultiModalStepOutput:
        """Velocity at ``(state, times)``; with ``compute_log_prob`` the Gaussian log-density of
        ``next_state`` under an Euler-Maruyama step of std ``noise_level * sqrt(dt)``."""
        velocity = self.forward(state, times, batch)
        output = MultiModalStepOutput(velocity=velocity)
        if not compute_log_prob:
            return output
        if next_state is None or times.next_timestep is None:
            raise ValueError("compute_log_prob=True needs next_state and times.next_timestep")
        level = float(self._scheduler.noise_level if noise_level is None else noise_level)
        dt = (times.timestep - times.next_timestep).to(torch.float32)
        log_prob, mean, std = None, {}, None
        for name, x in state.components.items():
            step_mean = x - _expand(dt, x) * velocity.components[name]
            std = (level * dt.clamp_min(1e-8).sqrt()).clamp_min(1e-6)
            term = gaussian_log_prob(next_state.components[name], step_mean, _expand(std, x))
            log_prob = term if log_prob is None else log_prob + term
            mean[name] = step_mean
        output.log_prob, output.mean, output.std = log_prob, LatentState(mean), std
        return output

    # ------------------------------------------------------------------ forward process
    def build_training_component_times(
        self, primary_timesteps: torch.Tensor, *, batch: Mapping[str, Any] | None = None
    ) -> ComponentTimes:
        """Times ``(B,)`` for a training forward (``sigma == timestep``)."""
        return ComponentTimes(timestep=primary_timesteps, sigma=primary_timesteps)

    def add_forward_process_noise(
        self,
        clean_state: LatentState,
        times: ComponentTimes,
        *,
        generator: torch.Generator | None = None,
    ) -> NoisedState:
        """Draw fresh Gaussian noise and noise ``clean_state`` to ``times``."""
        noise = LatentState(
            {
                k: torch.randn(v.shape, generator=generator, dtype=v.dtype).to(v.device)
                for k, v in clean_state.components.items()
            }
        )
        return self.apply_forward_process_noise(clean_state, times, noise)

    def apply_forward_process_noise(
        self, clean_state: LatentState, times: ComponentTimes, noise: LatentState
    ) -> NoisedState:
        """``x_t = (1 - t) x0 + t n``, target velocity ``n - x0``."""
        noised, target = {}, {}
        for name, x0 in clean_state.components.items():
            n = noise.components[name]
            t = _expand(times.sigma, x0).to(x0.dtype)
            noised[name] = (1.0 - t) * x0 + t * n
            target[name] = n - x0
        return NoisedState(LatentState(noised), LatentState(target), noise)

    def project_velocity_to_clean_state(
        self, state: LatentState, times: ComponentTimes, velocity: LatentState
    ) -> LatentState:
        """``x0 = x_t - t v``."""
        return LatentState(
            {
                k: x - _expand(times.sigma, x) * velocity.components[k]
                for k, x in state.components.items()
            }
        )

    def reduce_latent_values(
        self, values: Any, *, active_numel: Any = None, state: LatentState | None = None
    ) -> torch.Tensor:
        """Per-sample mean over non-batch dims, averaged over components -> ``(B,)``."""
        tensors = list(values.components.values()) if isinstance(values, LatentState) else [values]
        per_component = [t.reshape(t.shape[0], -1).mean(dim=1) for t in tensors]
        return torch.stack(per_component, dim=0).mean(dim=0)

    def reduce_flow_matching_objective_values(
        self, values: Any, *, state: LatentState | None = None
    ) -> torch.Tensor:
        """Flow-matching reduction, fp32 ``(B,)``."""
        return self.reduce_latent_values(values, state=state).float()

    # ------------------------------------------------------------------ replay
    def get_terminal_state(self, batch: Mapping[str, Any]) -> LatentState:
        """Final clean samples of a stacked batch."""
        return LatentState({"latent": batch["image"]})

    def get_train_step_indices(self) -> torch.Tensor:
        """Rollout step positions that training replays (the scheduler's SDE steps)."""
        return self._scheduler.train_step_indices()

    def get_replay_step(self, batch: Mapping[str, Any], step_index: int) -> Any:
        """Stored transition ``step_index`` of each trajectory as a ``ReplayStep``.

        The rollout must have kept positions ``step_index`` and ``step_index + 1``
        (``compute_trajectory_indices`` of the train step indices keeps exactly those).
        """
        from ..samples import ReplayStep

        if "log_probs" not in batch:
            raise ValueError("replay needs rollouts generated with compute_log_prob=True")
        index_map, timesteps = batch["latent_index_map"], batch["timesteps"]
        step = int(step_index)
        if not 0 <= step < timesteps.shape[1] - 1:
            raise ValueError(f"step_index {step} is outside the rollout's {timesteps.shape[1] - 1} steps")
        here, there = int(index_map[0, step]), int(index_map[0, step + 1])
        if here < 0 or there < 0:
            raise ValueError(
                f"the rollout did not keep trajectory positions {step} and {step + 1}; sample "
                "with trajectory_indices=compute_trajectory_indices(...) of the train steps"
            )
        latents = batch["latents"]
        return ReplayStep(
            state=LatentState({"latent": latents[:, here]}),
            times=ComponentTimes(timesteps[:, step], timesteps[:, step + 1]),
            next_state=LatentState({"latent": latents[:, there]}),
            log_prob=batch["log_probs"][:, step],
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

    def create_reference_snapshot(self) -> None:
        """Freeze the current weights as the reference (called by the trainer at init)."""
        self._snapshots[REFERENCE_SNAPSHOT] = self._clone_all()

    @contextlib.contextmanager
    def use_ref_parameters(self) -> Iterator[BaseAdapter]:
        """Swap the frozen reference weights in (no grad) for the ``with`` body."""
        if REFERENCE_SNAPSHOT not in self._snapshots:
            raise RuntimeError("no reference snapshot: training_args.requires_ref_model is False")
        with torch.no_grad(), self._swapped(self._snapshots[REFERENCE_SNAPSHOT]):
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
        if name == REFERENCE_SNAPSHOT or not name:
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
        state = self.load_weights_from_source(str(path))
        self.load_trainable_state_dict(state)

    def load_weights_from_source(self, source: str) -> dict[str, torch.Tensor]:
        """Trainable weights stored at ``source`` keyed like ``trainable_state_dict()``."""
        return dict(torch.load(source, map_location="cpu"))

    def list_named_parameters(self) -> list[str]:
        """Names of the named snapshots (reference and role variants excluded)."""
        return list(self.named_parameter_names())

    def named_parameter_names(self) -> tuple[str, ...]:
        """Names of user snapshots (reference and role variants excluded)."""
        return tuple(
            n for n in self._snapshots
            if n != REFERENCE_SNAPSHOT and n not in self._variant_snapshots
        )

    @contextlib.contextmanager
    def use_named_parameters(self, name: str) -> Iterator[BaseAdapter]:
        """Swap snapshot ``name`` in for the ``with`` body."""
        if name not in self._snapshots:
            known = self.named_parameter_names()
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
            raise KeyError(f"unknown named parameters {name!r}; have {self.named_parameter_names()}")
        source = self._all_tensors() if new_parameters is None else list(new_parameters)
        with torch.no_grad():
            for snap, p in zip(self._snapshots[name], source, strict=True):
                snap.copy_(p.detach())

    def named_state_dict(self, name: str) -> dict[str, torch.Tensor]:
        """Snapshot ``name`` keyed by parameter name."""
        keys = [k for k, _ in self.transformer.named_parameters()]
        return {k: t.clone() for k, t in zip(keys, self._snapshots[name], strict=True)}

    def load_named_state_dict(self, name: str, state: Mapping[str, torch.Tensor]) -> None:
        """Restore snapshot ``name`` exactly."""
        keys = [k for k, _ in self.transformer.named_parameters()]
        if sorted(state) != sorted(keys):
            raise ValueError(f"snapshot {name!r} keys differ from the network's parameters")
        self._snapshots[name] = [state[k].clone() for k in keys]

    # ------------------------------------------------------------------ EMA
    def init_ema(self) -> None:
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
        self, path: str, strict: bool = True, resume_type: str | None = None
    ) -> None:
        """Load the trainable weights (every role's) a checkpoint folder's ``model.pt`` holds."""
        self._load_checkpoint_state_dict(torch.load(Path(path) / "model.pt"), strict=strict)

    def _checkpoint_state_dict(
        self, include_training_roles: bool = True
    ) -> dict[str, torch.Tensor]:
        """The base role's trainable weights under their names, each other role's (when
        included) as ``<role>::<name>``."""
        state = self.trainable_state_dict()
        if include_training_roles:
            for role in self._variant_order[1:]:
                for name, tensor in self._variant_state_dict(role).items():
                    state[f"{role}::{name}"] = tensor
        return state

    def _load_checkpoint_state_dict(
        self, state: Mapping[str, torch.Tensor], strict: bool = True
    ) -> None:
        """The inverse of :meth:`_checkpoint_state_dict`; ``strict``: every role must be there."""
        self.load_trainable_state_dict({k: v for k, v in state.items() if "::" not in k})
        for role in self._variant_order[1:]:
            prefix = f"{role}::"
            part = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
            if part or strict:
                self._load_variant_state_dict(role, part)

    def trainable_state_dict(self) -> dict[str, torch.Tensor]:
        """Trainable weights keyed by parameter name (cloned)."""
        return {
            k: p.detach().clone() for k, p in self.transformer.named_parameters() if p.requires_grad
        }

    def load_trainable_state_dict(self, state: Mapping[str, torch.Tensor]) -> None:
        """Copy trainable weights back exactly; keys must match."""
        params = {k: p for k, p in self.transformer.named_parameters() if p.requires_grad}
        if sorted(params) != sorted(state):
            missing, extra = sorted(set(params) - set(state)), sorted(set(state) - set(params))
            raise ValueError(f"trainable keys differ: missing {missing}, unexpected {extra}")
        with torch.no_grad():
            for k, p in params.items():
                p.copy_(state[k].to(p.device, p.dtype))

    def ema_state_dict(self) -> list[torch.Tensor] | None:
        """EMA tensors (or None)."""
        return None if self._ema is None else [t.clone() for t in self._ema]

    def load_ema_state_dict(self, state: list[torch.Tensor] | None) -> None:
        """Restore EMA tensors."""
        self._ema = None if state is None else [t.clone() for t in state]


def _expand(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Reshape ``(B,)`` to broadcast against ``like`` ``(B, ...)``."""
    return values.reshape(values.shape[0], *([1] * (like.dim() - 1))).to(like.device)


def gaussian_log_prob(x: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    """Diagonal Gaussian log-density summed over non-batch dims -> ``(B,)`` fp32."""
    var = std.float() ** 2
    log_density = -((x.float() - mean.float()) ** 2) / (2 * var) - 0.5 * torch.log(
        2 * torch.pi * var
    )
    return log_density.reshape(x.shape[0], -1).sum(dim=1)


__all__ = ["BaseAdapter", "DEFAULT_BASE_VARIANT", "REFERENCE_SNAPSHOT", "gaussian_log_prob"]
