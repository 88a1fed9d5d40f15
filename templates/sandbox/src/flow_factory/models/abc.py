"""``BaseAdapter``: the model-facing API trainers use (generic over a small velocity network)."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType, SimpleNamespace
from typing import Any, ClassVar

import torch
from torch import nn

from ..contracts.pipeline_io import PipelineIOContract
from ..samples import BaseSample, ComponentTimes, LatentState, MultiModalStepOutput, NoisedState
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

    def __init__(self, config: Any, accelerator: Any = None) -> None:
        self.config = config
        self.accelerator = accelerator
        self.model_args = config.model_args
        self.training_args = config.training_args
        self.scheduler_args = config.scheduler_args
        self.transformer: nn.Module = self.load_transformer()
        self._snapshots: dict[str, list[torch.Tensor]] = {}
        self._ema: list[torch.Tensor] | None = None
        self._variants: dict[str, str | None] = {DEFAULT_BASE_VARIANT: None}
        self._generator = torch.Generator().manual_seed(int(self.scheduler_args.seed))
        self.scheduler_group = SimpleNamespace(
            dynamics=dict(self.scheduler_args.component_dynamics)
        )

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
    def preprocess_func(self, prompt: Any, **kwargs: Any) -> dict[str, Any]:
        """Encode raw inputs into cached model conditions."""

    # ------------------------------------------------------------------ properties
    @property
    def device(self) -> torch.device:
        """Device of the trainable network."""
        return next(self.transformer.parameters()).device

    @property
    def effective_pipeline_io_contract(self) -> PipelineIOContract:
        """Media this adapter consumes and produces."""
        return self.pipeline_io_contract

    @classmethod
    def validate_offline_output_capability(cls) -> None:
        """Raise ``TypeError`` unless the adapter can encode target media for offline training."""
        if cls.encode_output_state is BaseAdapter.encode_output_state:
            raise TypeError(f"{cls.__name__} cannot encode output media for offline training")

    def trainable_parameters(self) -> list[nn.Parameter]:
        """Parameters with ``requires_grad``."""
        return [p for p in self.transformer.parameters() if p.requires_grad]

    def set_prepared_module(self, module: nn.Module) -> None:
        """Use the accelerator-prepared network from now on."""
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
        level = float(self.scheduler_args.noise_level if noise_level is None else noise_level)
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
        self, t: torch.Tensor, *, batch: Mapping[str, Any] | None = None
    ) -> ComponentTimes:
        """Times ``(B,)`` for a training forward (``sigma == timestep``)."""
        return ComponentTimes(timestep=t, sigma=t)

    def add_forward_process_noise(
        self, clean: LatentState, times: ComponentTimes, *, generator: torch.Generator | None = None
    ) -> NoisedState:
        """Draw fresh Gaussian noise and noise ``clean`` to ``times``."""
        noise = LatentState(
            {
                k: torch.randn(v.shape, generator=generator, dtype=v.dtype).to(v.device)
                for k, v in clean.components.items()
            }
        )
        return self.apply_forward_process_noise(clean, times, noise)

    def apply_forward_process_noise(
        self, clean: LatentState, times: ComponentTimes, noise: LatentState
    ) -> NoisedState:
        """``x_t = (1 - t) x0 + t n``, target velocity ``n - x0``."""
        noised, target = {}, {}
        for name, x0 in clean.components.items():
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

    def num_replay_steps(self, batch: Mapping[str, Any]) -> int:
        """Stored transitions per sample (needs full trajectories with log-probs)."""
        if "log_probs" not in batch:
            raise ValueError("replay needs rollouts generated with compute_log_prob=True")
        return int(batch["log_probs"].shape[1])

    def get_replay_step(self, batch: Mapping[str, Any], i: int) -> Any:
        """Transition ``i`` of each stored trajectory as a ``ReplayStep``."""
        from ..samples import ReplayStep

        latents, timesteps = batch["latents"], batch["timesteps"]
        if latents.shape[1] != timesteps.shape[1]:
            raise ValueError(
                "replay needs every trajectory point (trajectory_indices=None), got "
                f"{latents.shape[1]} kept points for {timesteps.shape[1]} timesteps"
            )
        return ReplayStep(
            state=LatentState({"latent": latents[:, i]}),
            times=ComponentTimes(timesteps[:, i], timesteps[:, i + 1]),
            next_state=LatentState({"latent": latents[:, i + 1]}),
            log_prob=batch["log_probs"][:, i],
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

    def add_named_parameters(self, name: str, source: str | None = None) -> None:
        """Snapshot ``name``: a copy of the current weights, or a fresh ``"toy:seed=<n>"`` net."""
        if name == REFERENCE_SNAPSHOT or not name:
            raise ValueError(f"invalid snapshot name {name!r}")
        if source is None:
            self._snapshots[name] = self._clone_all()
        else:
            fresh = self.build_network_from_source(source)
            self._snapshots[name] = [p.detach().clone() for p in fresh.parameters()]

    def build_network_from_source(self, source: str) -> nn.Module:
        """Build a network of the same architecture from ``source`` (model-specific)."""
        raise NotImplementedError(f"{type(self).__name__} cannot load {source!r}")

    def named_parameter_names(self) -> tuple[str, ...]:
        """Names of user snapshots (reference excluded)."""
        return tuple(n for n in self._snapshots if n != REFERENCE_SNAPSHOT)

    @contextlib.contextmanager
    def use_named_parameters(self, name: str) -> Iterator[BaseAdapter]:
        """Swap snapshot ``name`` in for the ``with`` body."""
        if name not in self._snapshots:
            known = self.named_parameter_names()
            raise KeyError(f"unknown named parameters {name!r}; have {known}")
        with self._swapped(self._snapshots[name]):
            yield self

    def update_named_parameters(self, name: str, decay: float = 0.0) -> None:
        """``snap = decay * snap + (1 - decay) * current`` (``decay=0`` copies)."""
        with torch.no_grad():
            for snap, p in zip(self._snapshots[name], self._all_tensors(), strict=True):
                snap.mul_(decay).add_(p.detach(), alpha=1.0 - decay)

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
        self._ema = [p.detach().clone() for p in self.trainable_parameters()]

    def ema_step(self, step: int) -> None:
        """EMA update every ``ema_update_interval`` steps (no-op when EMA is disabled)."""
        decay = float(getattr(self.training_args, "ema_decay", 0.0) or 0.0)
        interval = max(1, int(getattr(self.training_args, "ema_update_interval", 1)))
        if self._ema is None or decay <= 0 or int(step) % interval:
            return
        with torch.no_grad():
            for e, p in zip(self._ema, self.trainable_parameters(), strict=True):
                e.mul_(decay).add_(p.detach(), alpha=1.0 - decay)

    @contextlib.contextmanager
    def use_ema_parameters(self) -> Iterator[BaseAdapter]:
        """Swap the EMA weights in for the ``with`` body."""
        if self._ema is None:
            raise RuntimeError("EMA is disabled (training_args.ema_decay == 0)")
        with torch.no_grad(), self._swapped(self._ema, self.trainable_parameters()):
            yield self

    # ------------------------------------------------------------------ variants (multi-role)
    def declare_component_variants(self, roles: Sequence[str]) -> None:
        """Declare roles; the first uses the live weights, others get their own snapshot."""
        for index, role in enumerate(roles):
            if index == 0:
                self._variants[role] = None
            elif role not in self._variants:
                snapshot = f"variant:{role}"
                self.add_named_parameters(snapshot)
                self._variants[role] = snapshot

    def declare_variant_snapshot(self, variant: str, snapshot: str) -> None:
        """Bind ``variant`` to an existing named snapshot."""
        self._variants[variant] = snapshot

    def update_variant_snapshot(self, snapshot: str, decay: float) -> None:
        """EMA-update a named snapshot towards the live weights."""
        self.update_named_parameters(snapshot, decay)

    @contextlib.contextmanager
    def use_component_variant(self, name: str) -> Iterator[BaseAdapter]:
        """Swap the weights of role ``name`` in (optimizer steps inside update that role)."""
        if name not in self._variants:
            raise KeyError(f"unknown component variant {name!r}; declared {sorted(self._variants)}")
        snapshot = self._variants[name]
        if snapshot is None:
            yield self
            return
        with self._swapped(self._snapshots[snapshot]):
            yield self

    # ------------------------------------------------------------------ checkpoint helpers
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
