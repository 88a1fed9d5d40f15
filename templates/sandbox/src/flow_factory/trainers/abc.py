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

"""``BaseTrainer``: contract validation, the acquisition loop (``start``) and shared helpers.

Subclasses implement hooks only: generation trainers ``sample()`` + ``optimize(samples)``;
dataset trainers ``optimize_batch(batch)``. They never override ``start()`` nor advance progress.
"""

from __future__ import annotations

import contextlib
import inspect
import math
from abc import ABC
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Literal

import torch

from ..contracts.execution import (
    ONLINE_EXECUTION_CONTRACT,
    AcquisitionMode,
    ExecutionContract,
    FeedbackMode,
)
from ..models.abc import DEFAULT_BASE_VARIANT, BaseAdapter
from ..models.model_bundle import ModelBundle
from ..rewards import AdvantageProcessor, RewardBuffer
from ..rewards.loader import load_reward_model
from ..samples import BaseSample, LatentState, NoisedState
from .common.flow_matching import _draw_timesteps
from .common.sample_prefetch import iter_prefetched_batches
from .common.runtime_state import TrainerRuntimeState, _CallbackRuntimeChild
from .execution import TrainingProgress, build_acquisition_driver
from .role_optimization import (
    OptimizationRole,
    RoleOptimizationCoordinator,
    RoleOptimizerConfig,
    RolePhase,
    RoleUpdatePlan,
)

_SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")
MULTIROLE_RUNTIME_CHILD_NAME = "multirole"
_RESERVED_RUNTIME_CHILD_NAMES = ("adapter_ema", "adapter_reference", MULTIROLE_RUNTIME_CHILD_NAME)
# What _sample_timesteps reads from the trainer (the algorithm sets them, as NFT/AWM do).
_TIMESTEP_ATTRIBUTES = (
    "time_sampling_strategy",
    "num_train_timesteps",
    "timestep_range",
    "time_shift",
)


class BaseTrainer(ABC):  # noqa: B024 - abstract by convention: hooks raise NotImplementedError
    """Base of every trainer (see the interface reference, section 5)."""

    paradigm: ClassVar[Literal["coupled", "decoupled", "distillation"] | None] = None
    execution_contract: ClassVar[ExecutionContract] = ONLINE_EXECUTION_CONTRACT
    runtime_child_names: ClassVar[tuple[str, ...]] = ()

    def __init__(self, accelerator: Any, config: Any, adapter: BaseAdapter) -> None:
        self.accelerator = accelerator
        self.config = config
        self.log_args = config.log_args
        self.model_args = config.model_args
        self.training_args = config.training_args
        self.eval_args = config.eval_args
        self._validate_execution_contract()
        self.adapter = adapter
        self.validate_adapter_class_execution_contract(type(adapter))
        self.runtime_state = TrainerRuntimeState(child_names=self._declared_runtime_child_names())
        self.acquisition_driver = build_acquisition_driver(self.execution_contract)
        self._validate_execution_hooks()
        # What flow_factory.sandbox_support reads (sandbox-only; the real trainer has neither).
        self._sandbox_history: list[dict[str, Any]] = []
        self._sandbox_log_history: list[dict[str, Any]] = []
        self._loss_info: defaultdict[str, list[torch.Tensor]] = defaultdict(list)
        self._registered_snapshots: set[str] = set()
        self._acquisition_cycle_incomplete = False
        self._reset_cycle_record()
        # The precision is the accelerator's, as the real trainer reads it (``enabled`` is the
        # sandbox's own: its CPU toy runs without autocast unless a precision is asked for).
        precision = self.accelerator.mixed_precision
        self.autocast = partial(
            torch.autocast,
            device_type=self.accelerator.device.type,
            dtype=torch.float16 if precision == "fp16" else torch.bfloat16,
            enabled=precision in ("fp16", "bf16"),
        )
        self._initialization()
        self._initialize_snapshots()
        self._register_builtin_runtime_children()
        self._finalize_adapter_runtime()

    # ================================================================== validation
    @classmethod
    def validate_training_arguments_contract(cls, training_args: Any) -> None:
        """The args' contract must be an ``ExecutionContract`` equal to the trainer's."""
        contract = getattr(training_args, "execution_contract", None)
        if not isinstance(contract, ExecutionContract):
            raise TypeError(
                f"{type(training_args).__name__}.execution_contract must be an "
                f"ExecutionContract, got {contract!r}"
            )
        if contract != cls.execution_contract:
            raise ValueError(
                f"execution contract mismatch: {cls.__name__} declares "
                f"{cls.execution_contract}, {type(training_args).__name__} declares {contract}"
            )

    def _validate_execution_contract(self) -> None:
        type(self).validate_training_arguments_contract(self.training_args)

    @classmethod
    def validate_adapter_class_execution_contract(cls, adapter_cls: type) -> None:
        """Dataset trainers need a ``BaseAdapter`` that can encode output media."""
        if cls.execution_contract.acquisition is not AcquisitionMode.DATASET:
            return
        if not (isinstance(adapter_cls, type) and issubclass(adapter_cls, BaseAdapter)):
            raise TypeError(f"dataset trainers need a BaseAdapter subclass, got {adapter_cls!r}")
        adapter_cls.validate_offline_output_capability()

    def _validate_execution_hooks(self) -> None:
        """Generation trainers override ``optimize``; dataset trainers ``optimize_batch``."""
        cls = type(self)
        if self.execution_contract.acquisition is AcquisitionMode.GENERATION:
            if cls.optimize is BaseTrainer.optimize:
                raise TypeError(
                    f"{cls.__name__} has a generation contract and must override "
                    "optimize(samples); it does not"
                )
            if not callable(getattr(cls, "sample", None)):
                raise TypeError(f"{cls.__name__} has a generation contract but no sample()")
            return
        if cls.optimize_batch is BaseTrainer.optimize_batch:
            raise TypeError(
                f"{cls.__name__} has a dataset contract and must override optimize_batch(batch); "
                "it does not"
            )
        if callable(getattr(cls, "sample", None)):
            raise TypeError(f"{cls.__name__} has a dataset contract and must not define sample()")

    def _validate_paradigm_dynamics(self) -> None:
        """Coupled trainers replay SDE log-probs, so every component needs SDE dynamics."""
        if self.paradigm != "coupled":
            return
        for component, dynamics in self.adapter.scheduler_group.dynamics.items():
            if dynamics not in _SDE_DYNAMICS:
                raise ValueError(
                    f"{type(self).__name__} is coupled and needs scheduler.dynamics_type in "
                    f"{_SDE_DYNAMICS} for component {component!r}, got {dynamics!r}"
                )

    # ================================================================== initialisation
    def _initialization(self) -> None:
        self._validate_paradigm_dynamics()
        self.dataloader, self.eval_dataloaders = self._build_train_dataloader()
        self._declare_model_variants()
        optimizer = self._init_optimizer()
        roles = self._required_trainable_roles()
        # Single-policy runs clip in _apply_optimizer_step; multi-role runs clip per role.
        self._max_grad_norm = float(self.optimization_roles[roles[0]].config.max_grad_norm)
        if len(roles) > 1:
            # One prepared root holds every role's network (the framework's model bundle).
            bundle = ModelBundle(self.adapter._bundle_members())
            self.model_bundle, self.optimizer = self.accelerator.prepare(bundle, optimizer)
        else:
            self.model_bundle, self.optimizer = self.accelerator.prepare(
                self.adapter.transformer, optimizer
            )
            self.adapter._sandbox_set_prepared_module(self.model_bundle)
        self._init_prepared_role_optimization()
        self._init_reward_model()
        if self.training_args.requires_ref_model:
            self.adapter._init_ref_parameters()
        if float(getattr(self.training_args, "ema_decay", 0.0) or 0.0) > 0:
            self.adapter._init_ema()

    def _build_train_dataloader(self) -> tuple[Any, dict[str, Any]]:
        """Default: grouped prompt loader for generation trainers."""
        from ..data_utils.loader import get_train_dataloader

        return get_train_dataloader(
            config=self.config,
            accelerator=self.accelerator,
            preprocess_func=self.adapter.preprocess_func,
        )

    def _required_trainable_roles(self) -> tuple[str, ...]:
        """The roles this run trains, the one owning the base weights first."""
        roles = getattr(getattr(self, "training_args", None), "required_trainable_roles", None)
        return tuple(roles) if roles else (DEFAULT_BASE_VARIANT,)

    def _primary_role(self) -> str:
        """The role whose optimizer steps are ``self.step``."""
        return self._required_trainable_roles()[0]

    def _declare_model_variants(self) -> None:
        """Declare one component variant per trainable role, before ``prepare``."""
        self.adapter.declare_component_variants(self._required_trainable_roles())

    def _optimizer_args_for_role(self, role_name: str) -> Any:
        """Configured ``optimizers`` entry named ``role_name``, else the only entry (renamed)."""
        entries = self.config.optimizer_args
        found = entries.get_by_name(role_name)
        if found is not None:
            return found
        if len(entries) == 1:
            return replace(entries[0], name=role_name)
        raise ValueError(
            f"no optimizers entry for role {role_name!r}; configured {[e.name for e in entries]}"
        )

    def _role_optimizer_configs(self) -> tuple[RoleOptimizerConfig, ...]:
        """One optimizer config per required role (the role plan must name exactly them)."""
        roles = self._required_trainable_roles()
        if getattr(self.training_args, "role_update_plan", None) is not None:
            plan_roles = {phase.role_name for phase in self._role_update_plan().phases}
            if plan_roles != set(roles):
                raise ValueError(
                    f"role_update_plan() names roles {sorted(plan_roles)}, the required "
                    f"trainable roles are {list(roles)}"
                )
        return tuple(
            self._role_optimizer_config_from_args(role, self._optimizer_args_for_role(role))
            for role in roles
        )

    @staticmethod
    def _role_optimizer_config_from_args(role_name: str, optimizer_args: Any) -> RoleOptimizerConfig:
        return RoleOptimizerConfig(
            role_name=role_name,
            learning_rate=float(optimizer_args.learning_rate),
            adam_betas=tuple(getattr(optimizer_args, "betas", (0.9, 0.999))),
            adam_weight_decay=float(optimizer_args.weight_decay),
            adam_epsilon=float(getattr(optimizer_args, "eps", 1e-8)),
            max_grad_norm=float(optimizer_args.max_grad_norm),
            update_frequency=int(getattr(optimizer_args, "update_frequency", 1)),
        )

    def _init_optimizer(self) -> torch.optim.Optimizer:
        """One AdamW over every role, one parameter group per role tagged ``role_name``."""
        configs = self._role_optimizer_configs()
        for config in configs:
            kind = getattr(self._optimizer_args_for_role(config.role_name), "optimizer", "adamw")
            if kind != "adamw":
                raise ValueError(
                    f"role {config.role_name!r}: optimizer {kind!r} is not available in the "
                    "sandbox; use optimizer: adamw"
                )
        groups = []
        for config in configs:
            params = self.adapter.variant_parameters(config.role_name)
            if not params:
                raise ValueError(f"role {config.role_name!r} owns no trainable parameters")
            groups.append({
                "params": params,
                "lr": config.learning_rate,
                "betas": config.adam_betas,
                "eps": config.adam_epsilon,
                "weight_decay": config.adam_weight_decay,
                "role_name": config.role_name,
            })
        self.optimizer = torch.optim.AdamW(groups)
        self.optimization_roles = {
            config.role_name: OptimizationRole(
                config=config, parameters=tuple(group["params"]), optimizer_group_ids=(index,)
            )
            for index, (config, group) in enumerate(zip(configs, groups, strict=True))
        }
        return self.optimizer

    def _init_prepared_role_optimization(self) -> None:
        """The role coordinator over the prepared root and optimizer."""
        self.role_optimization = RoleOptimizationCoordinator(
            accelerator=self.accelerator,
            model_bundle=self.model_bundle,
            optimizer=self.optimizer,
            roles=self.optimization_roles,
        )

    def _role_update_plan(self) -> RoleUpdatePlan:
        """``training_args.role_update_plan()``, else one phase per role in role order."""
        builder = getattr(self.training_args, "role_update_plan", None)
        if builder is not None:
            plan = builder()
            if not isinstance(plan, RoleUpdatePlan):
                raise TypeError(f"role_update_plan() must return a RoleUpdatePlan, got {plan!r}")
            return plan
        return RoleUpdatePlan(phases=tuple(RolePhase(r) for r in self._required_trainable_roles()))

    def _finish_role_microbatch(self) -> bool:
        """Finish a role microbatch; a step of the primary role advances ``self.step``."""
        role_name = self.role_optimization.active_role_name
        stepped = self.role_optimization.finish_microbatch()
        if stepped and role_name == self._primary_role():
            self.step += 1
        return stepped

    def _init_reward_model(self) -> None:
        """Reward buffer and advantage processor from ``rewards`` (empty lists are fine)."""
        reward_args = list(self.config.reward_args)
        models = {r.name: load_reward_model(r, self.accelerator) for r in reward_args}
        weights = {r.name: r.weight for r in reward_args}
        self.reward_buffer = RewardBuffer(models, weights)
        self.advantage_processor = AdvantageProcessor(
            weights,
            global_std=bool(getattr(self.training_args, "global_std", True)),
            adv_clip_range=tuple(getattr(self.training_args, "adv_clip_range", (-5.0, 5.0))),
        )

    def _initialize_snapshots(self) -> None:  # noqa: B027
        """Create and register algorithm snapshots (override)."""

    def _algorithm_runtime_child_names(self) -> tuple[str, ...]:
        """Checkpoint children this algorithm declares (default: ``runtime_child_names``)."""
        return tuple(type(self).runtime_child_names)

    def _declared_runtime_child_names(self) -> tuple[str, ...]:
        names: list[str] = []
        if float(getattr(self.training_args, "ema_decay", 0.0) or 0.0) > 0:
            names.append("adapter_ema")
        if self.training_args.requires_ref_model and self.model_args.finetune_type == "full":
            names.append("adapter_reference")
        if len(self._required_trainable_roles()) > 1:
            names.append(MULTIROLE_RUNTIME_CHILD_NAME)
        for name in self._algorithm_runtime_child_names():
            if name in _RESERVED_RUNTIME_CHILD_NAMES or name in names:
                raise ValueError(f"runtime child name {name!r} is reserved or duplicated")
            names.append(name)
        return tuple(names)

    def _register_builtin_runtime_children(self) -> None:
        declared = self.runtime_state.child_names
        if "adapter_ema" in declared:
            self.register_runtime_child(
                "adapter_ema",
                _CallbackRuntimeChild(
                    self.adapter._sandbox_ema_state_dict, self.adapter._sandbox_load_ema_state_dict
                ),
            )
        if "adapter_reference" in declared:
            self._register_snapshot_child("adapter_reference", "__reference__")
        if MULTIROLE_RUNTIME_CHILD_NAME in declared:
            # The framework's child covers every role: its counters and its live weights.
            self.register_runtime_child(
                MULTIROLE_RUNTIME_CHILD_NAME,
                _CallbackRuntimeChild(self._multirole_state_dict, self._load_multirole_state_dict),
            )

    def _multirole_metadata(self) -> dict[str, Any]:
        plan = self._role_update_plan()
        return {
            "version": 1,
            "roles": list(self._required_trainable_roles()),
            "optimizer_group_roles": [g.get("role_name") for g in self.optimizer.param_groups],
            "update_plan": [{"role_name": p.role_name, "repeats": p.repeats} for p in plan.phases],
        }

    def _multirole_state_dict(self) -> dict[str, Any]:
        """The framework's ``multirole`` child: role counters, the primary step, the layout
        the counters belong to, and the variant snapshots (role weights are in ``model.pt``)."""
        coordinator = self.role_optimization.state_dict()
        primary = self._primary_role()
        if coordinator["role_steps"][primary] != self.step:
            raise RuntimeError(
                f"trainer step {self.step} differs from role {primary!r} step "
                f"{coordinator['role_steps'][primary]}"
            )
        adapter = self.adapter
        return {
            "version": 1,
            "metadata": self._multirole_metadata(),
            "coordinator": coordinator,
            "trainer_step": self.step,
            "variant_snapshots": {
                n: adapter._sandbox_named_state_dict(n) for n in adapter._variant_snapshots
            },
        }

    def _load_multirole_state_dict(self, state: Mapping[str, Any]) -> None:
        expected = self._multirole_metadata()
        if state.get("metadata") != expected:
            raise ValueError(
                f"multi-role checkpoint layout {state.get('metadata')} does not match this "
                f"trainer's {expected}"
            )
        if state["coordinator"]["role_steps"][self._primary_role()] != state["trainer_step"]:
            raise ValueError("multi-role checkpoint: trainer_step differs from the primary role")
        self.role_optimization.load_state_dict(state["coordinator"])
        self.step = int(state["trainer_step"])
        for name, weights in state["variant_snapshots"].items():
            self.adapter._sandbox_load_named_state_dict(name, weights)

    def register_runtime_child(self, name: str, child: Any) -> None:
        """Register a declared checkpoint child (once)."""
        self.runtime_state.attach_child(name, child)

    def _register_named_parameter_runtime_child(self, name: str) -> None:
        """Register adapter snapshot ``name`` as the checkpoint child ``name``."""
        self._register_snapshot_child(name, name)
        self._registered_snapshots.add(name)

    def _register_snapshot_child(self, child_name: str, snapshot: str) -> None:
        adapter = self.adapter
        self.register_runtime_child(
            child_name,
            _CallbackRuntimeChild(
                lambda: adapter._sandbox_named_state_dict(snapshot),
                lambda state: adapter._sandbox_load_named_state_dict(snapshot, state),
            ),
        )

    # ================================================================== progress
    @property
    def progress(self) -> TrainingProgress:
        """Current counters (a private fallback when ``__init__`` was skipped in tests)."""
        state = self.__dict__.get("runtime_state")
        if state is not None:
            return state.progress
        return self.__dict__.setdefault("_fallback_progress", TrainingProgress())

    @progress.setter
    def progress(self, progress: TrainingProgress) -> None:
        if not isinstance(progress, TrainingProgress):
            raise TypeError(f"progress must be a TrainingProgress, got {type(progress).__name__}")
        state = self.__dict__.get("runtime_state")
        if state is not None:
            state.progress = progress
        else:
            self.__dict__["_fallback_progress"] = progress

    @property
    def cycle_index(self) -> int:
        """Completed cycles of the contract's acquisition mode."""
        return self.progress.cycle_index(self.execution_contract.acquisition)

    @property
    def epoch(self) -> int:
        """Alias of ``cycle_index``."""
        return self.cycle_index

    @epoch.setter
    def epoch(self, value: int) -> None:
        counter = (
            "data_epoch"
            if self.execution_contract.acquisition is AcquisitionMode.DATASET
            else "rollout_iteration"
        )
        self.progress = replace(self.progress, **{counter: value})

    @property
    def step(self) -> int:
        """Optimizer steps taken."""
        return self.progress.optimizer_step

    @step.setter
    def step(self, value: int) -> None:
        from dataclasses import replace

        self.progress = replace(self.progress, optimizer_step=int(value))

    def should_continue_training(self) -> bool:
        """``max_epochs`` None or < 0: forever; else ``cycle_index < max_epochs``."""
        max_epochs = getattr(self.training_args, "max_epochs", None)
        if max_epochs is None or max_epochs < 0:
            return True
        return self.cycle_index < max_epochs

    # ================================================================== the loop
    def start(self) -> None:
        """Run acquisition cycles until ``should_continue_training()`` is False."""
        acquisition = self.execution_contract.acquisition
        while self.should_continue_training():
            self.acquisition_driver.prepare_cycle(self, self.progress, seed=self.training_args.seed)
            if acquisition is AcquisitionMode.GENERATION:
                self._run_boundaries(("save", "eval"))
            self._acquisition_cycle_incomplete = True
            self._reset_cycle_record()
            self.acquisition_driver.run_cycle(self, self.progress)
            if acquisition is AcquisitionMode.GENERATION:
                self.adapter.ema_step(step=self.cycle_index)
            self._after_acquisition_cycle()
            completed = self.cycle_index
            self.progress = self.progress.advance_acquisition(acquisition, completed=True)
            self._acquisition_cycle_incomplete = False
            self._finish_cycle_record(completed)
            if acquisition is AcquisitionMode.DATASET:
                self._run_boundaries(("eval", "save"))

    def _run_boundaries(self, order: Sequence[str]) -> None:
        index = self.cycle_index
        for boundary in order:
            if boundary == "save":
                freq, save_dir = int(self.log_args.save_freq or 0), self.log_args.save_dir
                if freq > 0 and index % freq == 0 and save_dir:
                    path = Path(save_dir) / str(self.log_args.run_name) / "checkpoints"
                    self.save_checkpoint(str(path), epoch=index)
            else:
                freq = int(getattr(self.eval_args, "eval_freq", 0) or 0)
                if freq > 0 and index % freq == 0:
                    self.evaluate()

    def _reset_cycle_record(self) -> None:
        self._cycle_losses: list[float] = []
        self._cycle_rewards: list[float] = []

    def _finish_cycle_record(self, index: int) -> None:
        loss = _mean(self._cycle_losses)
        reward = _mean(self._cycle_rewards) if self._has_runtime_rewards() else None
        record = {"cycle": index, "loss": loss, "reward": reward}
        self.__dict__.setdefault("_sandbox_history", []).append(record)
        line = f"cycle={index} loss={loss:.6f}"
        if reward is not None:
            line += f" reward={reward:.6f}"
        if self.accelerator.is_main_process:
            print(line, flush=True)

    def _has_runtime_rewards(self) -> bool:
        return self.execution_contract.feedback is FeedbackMode.RUNTIME_REWARD

    def set_trajectory_seed(self, seed: int) -> None:
        """Seed the adapter's sampling noise (called by the generation driver)."""
        self.adapter.set_trajectory_seed(seed)

    def run_generation_acquisition(self) -> None:
        """One generation cycle."""
        self._run_training_step()

    def _run_training_step(self) -> None:
        with self.sampling_context():
            samples = self.sample()
        if self._has_runtime_rewards():
            self.prepare_feedback(samples)
        self.optimize(samples)

    def train_on_dataset_batch(self, batch: Any) -> None:
        """One dataset batch: feedback (runtime-reward contracts only), then ``optimize_batch``."""
        if self._has_runtime_rewards():
            self.prepare_feedback(batch)
        self.optimize_batch(batch)

    # ================================================================== hooks
    @contextlib.contextmanager
    def sampling_context(self) -> Iterator[None]:
        """Scope around ``sample()`` (override to sample under a snapshot)."""
        yield

    def _after_acquisition_cycle(self) -> None:  # noqa: B027
        """Called once per cycle, after EMA and before the counter advances."""

    def _after_gradient_step(self) -> None:  # noqa: B027
        """Called after every optimizer step."""

    def optimize(self, *args: Any, **kwargs: Any) -> None:
        """Generation trainers: update on the cycle's samples."""
        raise NotImplementedError(f"{type(self).__name__} does not implement optimize()")

    def optimize_batch(self, batch: Any) -> None:
        """Dataset trainers: update on one loader batch."""
        raise NotImplementedError(f"{type(self).__name__} does not implement optimize_batch()")

    def evaluate(self) -> None:
        """Score ODE samples with ``eval_rewards`` (generation trainers only; else a no-op)."""
        if not self.config.eval_reward_args or self.dataloader is None:
            return
        if self.execution_contract.acquisition is not AcquisitionMode.GENERATION:
            return
        samples = self.generate_samples()
        for reward in self.config.eval_reward_args:
            scores = load_reward_model(reward, self.accelerator)(samples)
            self.log_data({f"eval/{reward.name}": float(scores.mean())}, step=self.step)

    # ================================================================== feedback
    def prepare_feedback(self, samples: Sequence[BaseSample]) -> None:
        """Finalize rewards, compute advantages, log the advantage metrics."""
        rewards = self.reward_buffer.finalize(store_to_samples=True, split="all")
        self.compute_advantages(samples, rewards, store_to_samples=True)
        metrics = self.advantage_processor.pop_advantage_metrics()
        self.log_data({f"train/{k}": v for k, v in metrics.items()}, step=self.step)

    def compute_advantages(
        self,
        samples: Sequence[BaseSample],
        rewards: Mapping[str, torch.Tensor],
        store_to_samples: bool = True,
        aggregation_func: str | None = None,
    ) -> torch.Tensor:
        """Advantages ``(N,)`` stored in ``extra_kwargs["advantage"]``."""
        return self.advantage_processor.compute_advantages(
            samples=samples,
            rewards=rewards,
            store_to_samples=store_to_samples,
            aggregation_func=aggregation_func or self.training_args.advantage_aggregation,
        )

    # ================================================================== sampling
    def generate_samples(
        self,
        reward_buffer: RewardBuffer | None = None,
        compute_log_prob: bool = False,
        trajectory_indices: Sequence[int] | None = None,
        **extra_inference_kwargs: Any,
    ) -> list[BaseSample]:
        """``num_batches_per_epoch`` batches of rollouts (no grad, autocast)."""
        if self.dataloader is None:
            raise RuntimeError("generate_samples needs a prompt dataloader, got None")
        self.adapter.rollout()
        if reward_buffer is not None:
            reward_buffer.clear()
        samples: list[BaseSample] = []
        with torch.no_grad(), self.autocast():
            for _ in range(int(self.training_args.num_batches_per_epoch)):
                samples.extend(
                    self.sample_batch(
                        self._next_prompt_batch(),
                        reward_buffer=reward_buffer,
                        compute_log_prob=compute_log_prob,
                        trajectory_indices=trajectory_indices,
                        **extra_inference_kwargs,
                    )
                )
        return samples

    def sample_batch(
        self,
        batch: Mapping[str, Any],
        reward_buffer: RewardBuffer | None = None,
        **extra_inference_kwargs: Any,
    ) -> list[BaseSample]:
        """``adapter.inference`` with ``{**training_args, **extra_inference_kwargs, **batch}``
        filtered to its signature; samples go to ``reward_buffer`` when given."""
        merged = {**self.training_args, **extra_inference_kwargs, **batch}
        accepted = inspect.signature(self.adapter.inference).parameters
        samples = self.adapter.inference(**{k: v for k, v in merged.items() if k in accepted})
        if reward_buffer is not None:
            reward_buffer.add_samples(samples)
        return samples

    def _next_prompt_batch(self) -> Mapping[str, Any]:
        iterator = self.__dict__.get("_prompt_iter")
        while True:
            if iterator is None:
                epoch = self.__dict__.get("_prompt_epoch", -1) + 1
                skip = 0
                resumed = self.__dict__.pop("_prompt_resume", None)
                if resumed is not None:  # an exact resume continues the saved cursor
                    epoch, skip = resumed
                self._prompt_epoch, self._prompt_offset = epoch, 0
                self.dataloader.sampler.set_epoch(epoch)
                # Rebuilding the saved cursor must not draw from the restored RNG (creating a
                # loader iterator does): the uninterrupted run drew that number before saving.
                keep_rng = torch.random.fork_rng(devices=[]) if skip else contextlib.nullcontext()
                with keep_rng:
                    iterator = self._prompt_iter = iter(self.dataloader)
                    for _ in range(skip):
                        next(iterator)
                        self._prompt_offset += 1
            try:
                batch = next(iterator)
            except StopIteration:
                iterator = self._prompt_iter = None
                continue
            self._prompt_offset = self.__dict__.get("_prompt_offset", 0) + 1
            return batch

    def _prompt_cursor(self) -> tuple[int, int] | None:
        """(epoch, batches taken in it) of the prompt loader, or None before the first batch."""
        if "_prompt_epoch" not in self.__dict__:
            return None
        if self.__dict__.get("_prompt_iter") is None:
            return (self._prompt_epoch + 1, 0)
        return (self._prompt_epoch, self._prompt_offset)

    def _iter_prefetched_batches(
        self, samples: Sequence[BaseSample], per_device_batch_size: int
    ) -> Iterator[Any]:
        """Stacked batches of ``per_device_batch_size`` samples on the accelerator device."""
        yield from iter_prefetched_batches(
            list(samples), int(per_device_batch_size),
            device=self.accelerator.device, offload_samples_to_cpu=False,
        )

    def _order_samples_for_optimize(
        self, samples: Sequence[BaseSample], inner_epoch: int
    ) -> list[BaseSample]:
        """Seeded shuffle per cycle and inner epoch (identity when ``shuffle_samples`` is off)."""
        if not getattr(self.training_args, "shuffle_samples", True):
            return list(samples)
        seed = int(self.training_args.seed) + 1000 * self.cycle_index + int(inner_epoch)
        order = torch.randperm(len(samples), generator=torch.Generator().manual_seed(seed))
        return [samples[i] for i in order.tolist()]

    # ================================================================== optimisation
    def accumulate_gradients(self) -> Any:
        """``accelerator.accumulate(model_bundle)``."""
        return self.accelerator.accumulate(self.model_bundle)

    def _apply_optimizer_step(self, loss_info: Mapping[str, list[Any]]) -> defaultdict:
        """Clip, step, (dataset) EMA, zero grads, hook, log, ``step += 1``; fresh loss dict."""
        params = [p for p in self.model_bundle.parameters() if p.requires_grad]
        grad_norm = torch.nn.utils.clip_grad_norm_(params, self._max_grad_norm)
        self.optimizer.step()
        if self.execution_contract.acquisition is AcquisitionMode.DATASET:
            self.adapter.ema_step(step=self.step)
        self.optimizer.zero_grad(set_to_none=True)
        self._after_gradient_step()
        logged = {f"train/{k}": _mean([_to_float(v) for v in values])
                  for k, values in loss_info.items() if values}
        logged["train/grad_norm"] = float(grad_norm)
        self.log_data(logged, step=self.step)
        self._cycle_losses.extend(_to_float(v) for v in loss_info.get("loss", []))
        self.step += 1
        return defaultdict(list)

    def _sample_timesteps(
        self, batch_size: int, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """``(num_train_timesteps, batch_size)`` from the trainer attributes
        ``time_sampling_strategy`` (``uniform`` | ``logit_normal`` | ``discrete`` |
        ``discrete_with_init`` | ``discrete_wo_init``),
        ``num_train_timesteps``, ``timestep_range`` and ``time_shift``, which the algorithm sets
        (as Flow-Factory's NFT/AWM do); there are no defaults."""
        missing = [name for name in _TIMESTEP_ATTRIBUTES if not hasattr(self, name)]
        if missing:
            raise AttributeError(
                f"{type(self).__name__}._sample_timesteps needs trainer attributes {missing}; "
                "set them in __init__"
            )
        args = self.training_args
        strategy = self.time_sampling_strategy
        count = int(self.num_train_timesteps)
        span = args._standardize_timestep_range(self.timestep_range)
        shift = float(self.time_shift)
        if strategy in _DISCRETE_STRATEGIES:
            grid = torch.linspace(1.0, 0.0, int(args.num_inference_steps) + 1)[:-1]
            picks = _discrete_picks(grid, span, count, strategy, generator)
            return grid[picks].unsqueeze(1).expand(-1, int(batch_size)).to(self.accelerator.device)
        return _draw_timesteps(strategy, (count, int(batch_size)), timestep_range=span,
                              time_shift=shift, device=self.accelerator.device, generator=generator)

    def _velocity_kl(
        self, velocity: LatentState, other_velocity: LatentState, noised: NoisedState
    ) -> torch.Tensor:
        """Per-sample mean squared velocity difference ``(B,)`` (the Gaussian KL up to scale),
        reduced by the adapter from a plain ``{component: squared difference}`` dict."""
        for name, value in (("velocity", velocity), ("other_velocity", other_velocity)):
            if not isinstance(value, LatentState):
                raise TypeError(f"expected LatentState for _velocity_kl {name}, "
                                f"received {type(value).__name__}")
        diff = {k: (t - other_velocity.components[k]) ** 2 for k, t in velocity.components.items()}
        return self.adapter.reduce_latent_values(diff, state=noised.state).float()

    # ================================================================== logging
    def log_data(self, data: Mapping[str, Any], step: int) -> None:
        """Record scalars (``sandbox_support.log_history`` reads them); ``*reward_mean`` feeds
        the cycle's reward."""
        record = {k: _to_float(v) for k, v in data.items()}
        self.__dict__.setdefault("_sandbox_log_history", []).append({"step": int(step), **record})
        multi_role = len(self._required_trainable_roles()) > 1
        for key, value in record.items():
            if key.rsplit("/", 1)[-1] == "reward_mean":
                self._cycle_rewards.append(value)
            elif multi_role and key == "train/loss":
                # Multi-role trainers step through the coordinator, not _apply_optimizer_step:
                # their logged primary-role loss is the cycle's loss.
                self._cycle_losses.append(value)
        if getattr(self.log_args, "verbose", False) and self.accelerator.is_main_process:
            print(f"step={step} " + " ".join(f"{k}={v:.4g}" for k, v in record.items()))

    # ================================================================== checkpoints
    def save_checkpoint(self, save_directory: str, epoch: int | None = None) -> Path:
        """Write ``model.pt`` (trainable weights) and ``trainer_state.pt`` (optimizer, progress,
        runtime children) under ``<save_directory>/checkpoint-<epoch>``; returns that folder."""
        if self.log_args.save_model_only:
            if epoch is not None:
                save_directory = str(Path(save_directory) / f"checkpoint-{epoch}")
            self.adapter.save_checkpoint(
                save_directory=save_directory, model_only=True, include_training_roles=True
            )
            self.accelerator.wait_for_everyone()
            return Path(save_directory)
        self._preflight_exact_checkpoint()
        missing = list(self.runtime_state.pending_child_names)
        unregistered = [
            n for n in self.adapter.list_named_parameters() if n not in self._registered_snapshots
        ]
        if missing or unregistered:
            raise RuntimeError(
                "exact-state checkpointing needs every runtime child registered: declared but "
                f"unregistered {missing}, adapter snapshots without a child {unregistered}"
            )
        name = "checkpoint" if epoch is None else f"checkpoint-{epoch}"
        path = Path(save_directory) / name
        # One writer per filesystem, as the real trainer elects its publisher: the main process,
        # or each node's main one where every node saves to its own disk.
        save_on_each_node = self.accelerator.project_configuration.save_on_each_node
        writes = self.accelerator.is_main_process or (
            save_on_each_node and self.accelerator.is_local_main_process
        )
        self.accelerator.wait_for_everyone()
        if not writes:
            self.accelerator.wait_for_everyone()
            return path
        path.mkdir(parents=True, exist_ok=True)
        torch.save(self._model_state_dict(), path / "model.pt")
        state = {
            # What the resume checks against the resuming run, as the real manifest does.
            "process_index": self.accelerator.process_index,
            "device_type": self.accelerator.device.type,
            "optimizer": self.optimizer.state_dict(),
            "progress": asdict(self.progress),
            "children": {n: c.state_dict() for n, c in self.runtime_state._children.items()},
            # What an uninterrupted run would draw next: the global RNG and the prompt cursor.
            "rng": torch.random.get_rng_state(),
            "prompt_cursor": self._prompt_cursor(),
        }
        torch.save(state, path / "trainer_state.pt")
        self.accelerator.wait_for_everyone()
        return path

    def _preflight_exact_checkpoint(self) -> None:
        """What the real trainer refuses before an exact checkpoint: an MPS device (Accelerate
        does not save its RNG) and, under FSDP, auxiliary snapshots it cannot gather."""
        if self.accelerator.device.type == "mps":
            raise RuntimeError(
                "exact state checkpoints are unsupported on MPS; set log.save_model_only=true"
            )
        # ``accelerate.utils.DistributedType`` is a str enum: compared by value, unimported.
        if getattr(self.accelerator, "distributed_type", None) != "FSDP":
            return
        unsafe = [n for n in self.runtime_state.child_names if n != MULTIROLE_RUNTIME_CHILD_NAME]
        if unsafe:
            raise RuntimeError(
                "exact state checkpoints under FSDP cannot gather the auxiliary snapshots "
                f"{unsafe}; save model weights only (log.save_model_only=true)"
            )

    def _model_state_dict(self) -> dict[str, torch.Tensor]:
        """Trainable weights of every role (the prepared bundle holds them all)."""
        return self.adapter._checkpoint_state_dict(include_training_roles=True)

    def _load_model_state_dict(self, state: Mapping[str, torch.Tensor]) -> None:
        self.adapter._load_checkpoint_state_dict(state, strict=True)

    def load_checkpoint(
        self, path: str, resume_type: Literal["lora", "full", "state"] | None = None
    ) -> None:
        """Load trainable weights after construction (the adapter reads ``model.pt``).

        As in the real trainer, an exact (``state``) resume is refused here: it happens only
        while the trainer is built, from ``model.resume_path`` with ``model.resume_type: state``.
        """
        if resume_type == "state":
            raise RuntimeError(
                "an exact (state) resume cannot be loaded into a built trainer: configure "
                "model.resume_path and model.resume_type: state so the constructor restores it, "
                "before any prepared state changes"
            )
        self.adapter.load_checkpoint(path=path, strict=True, resume_type=resume_type)
        self.accelerator.wait_for_everyone()

    def _finalize_adapter_runtime(self) -> None:
        """The constructor's resume, once every runtime child is registered: ``state``
        restores everything exactly; another type loads the adapter's weights only (the real
        adapter does that in its ``post_init``, so a trainer's ``load_checkpoint`` is not used)."""
        path, resume_type = self.model_args.resume_path, self.model_args.resume_type
        if not path:
            return
        if resume_type == "state":
            self._load_exact_training_state(path)
            return
        self.adapter.load_checkpoint(path=path, strict=True, resume_type=resume_type)
        self.accelerator.wait_for_everyone()

    def _load_exact_training_state(self, path: str) -> None:
        """Weights, optimizer, progress, runtime children, RNG and prompt cursor."""
        folder = Path(path)
        self._load_model_state_dict(torch.load(folder / "model.pt"))
        state = torch.load(folder / "trainer_state.pt", weights_only=False)
        saved = (state.get("process_index"), state.get("device_type"))
        running = (self.accelerator.process_index, self.accelerator.device.type)
        if saved != running:
            raise ValueError(
                f"checkpoint {path!r} was saved by process/device {saved}, this run is {running}"
            )
        self.optimizer.load_state_dict(state["optimizer"])
        self.progress = TrainingProgress(**state["progress"])
        for name, child_state in state["children"].items():
            if name not in self.runtime_state._children:
                raise ValueError(f"checkpoint child {name!r} is not registered in this trainer")
            self.runtime_state._children[name].load_state_dict(child_state)
        if state.get("rng") is not None:
            torch.random.set_rng_state(state["rng"])
        if state.get("prompt_cursor") is not None:
            self._prompt_resume = tuple(state["prompt_cursor"])


def _to_float(value: Any) -> float:
    if isinstance(value, torch.Tensor):
        return float(value.detach().float().mean())
    return float(value)


def _mean(values: Sequence[float]) -> float:
    values = [v for v in values if v is not None]
    return float(sum(values) / len(values)) if values else math.nan


__all__ = ["BaseTrainer"]


# The discrete strategies, as (may the first step of the band be drawn, is it always drawn).
_DISCRETE_STRATEGIES = {
    "discrete": (True, False),
    "discrete_with_init": (True, True),
    "discrete_wo_init": (False, False),
}


def _discrete_picks(grid: torch.Tensor, span, count: int, strategy: str,
                    generator: torch.Generator | None) -> torch.Tensor:
    """``count`` indices into the rollout's step ``grid`` within ``span``, one per equal stratum
    of the band's steps (one row shared by the whole batch)."""
    band = torch.nonzero((grid >= span[0]) & (grid <= span[1])).flatten()
    if len(band) == 0:
        raise ValueError(f"timestep_range {tuple(span)} holds none of the {len(grid)} steps")
    first, last = int(band.min()), int(band.max())
    may_start, always_start = _DISCRETE_STRATEGIES[strategy]
    if always_start:
        rest = _strata(count - 1, first + 1, last, generator) if count > 1 else None
        start = torch.tensor([first])
        picks = start if rest is None else torch.cat([start, rest])
    else:
        picks = _strata(count, first if may_start else first + 1, last, generator)
    return picks.clamp(0, len(grid) - 1)


def _strata(count: int, low: int, high: int, generator: torch.Generator | None) -> torch.Tensor:
    """One random index from each of ``count`` equal slices of ``[low, high]``."""
    edges = torch.linspace(low, high, count + 1)
    starts, ends = edges[:-1].long(), edges[1:].long()
    return starts + (torch.rand(count, generator=generator) * (ends - starts)).long()
