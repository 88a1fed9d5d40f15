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

"""Top-level ``Arguments``: one YAML file split into argument groups, with contract checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..contracts.execution import AcquisitionMode, FeedbackMode
from .abc import ArgABC
from .acceleration_args import AccelerationArguments
from .data_args import DataArguments
from .log_args import LogArguments
from .model_args import ModelArguments
from .optimizer_args import AdamWOptimizerArguments, MultiOptimizerArguments
from .reward_args import RewardArguments
from .scheduler_args import SchedulerArguments
from .training_args import EvaluationArguments, TrainingArguments, get_training_args_class

_TOP_LEVEL_KEYS = (
    "launcher",
    "config_file",
    "num_processes",
    "num_machines",
    "machine_rank",
    "main_process_ip",
    "main_process_port",
    "gpus_per_node",
    "mixed_precision",
)
_GROUP_KEYS = (
    "model", "data", "train", "scheduler", "eval", "log", "rewards", "eval_rewards",
    "acceleration",
)


def _mapping(value: Any, name: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {type(value).__name__}")
    return value


@dataclass
class Arguments(ArgABC):
    """All argument groups of one run (``model``, ``data``, ``train``, ... in YAML) and the
    launch settings (one process on one machine in the sandbox)."""

    model_args: ModelArguments = field(default_factory=ModelArguments)
    data_args: DataArguments = field(default_factory=DataArguments)
    training_args: TrainingArguments | None = None
    scheduler_args: SchedulerArguments = field(default_factory=SchedulerArguments)
    eval_args: EvaluationArguments = field(default_factory=EvaluationArguments)
    log_args: LogArguments = field(default_factory=LogArguments)
    reward_args: list[RewardArguments] = field(default_factory=list)
    eval_reward_args: list[RewardArguments] = field(default_factory=list)
    optimizer_args: MultiOptimizerArguments = field(default_factory=MultiOptimizerArguments)
    acceleration_args: AccelerationArguments = field(default_factory=AccelerationArguments)
    launcher: str = "accelerate"
    config_file: str | None = None
    num_processes: int = 1
    num_machines: int | None = None
    machine_rank: int | None = None
    main_process_ip: str | None = None
    main_process_port: int = 29500
    gpus_per_node: int | None = None
    process_index: int | None = None
    local_process_index: int | None = None
    mixed_precision: str = "no"

    @classmethod
    def load_from_yaml(cls, yaml_file: str) -> Arguments:
        """Parse a YAML config file (see :meth:`from_dict`)."""
        with Path(yaml_file).open(encoding="utf-8") as handle:
            return cls.from_dict(yaml.safe_load(handle) or {})

    @classmethod
    def from_dict(cls, args_dict: Mapping[str, Any]) -> Arguments:
        """Parse a full config mapping and apply the execution-contract checks."""
        config = _mapping(args_dict, "config")
        unknown = sorted(set(config) - set(_TOP_LEVEL_KEYS) - set(_GROUP_KEYS) - {"optimizers"})
        if unknown:
            raise ValueError(
                f"unknown top-level config keys {unknown}; expected a subset of "
                f"{sorted((*_TOP_LEVEL_KEYS, *_GROUP_KEYS, 'optimizers'))}"
            )
        train = dict(_mapping(config.get("train"), "train"))
        args_cls = get_training_args_class(str(train.get("trainer_type", "grpo")))
        training_args = args_cls.from_dict(train)
        args = cls(
            model_args=ModelArguments.from_dict(_mapping(config.get("model"), "model")),
            data_args=DataArguments.from_dict(_mapping(config.get("data"), "data")),
            training_args=training_args,
            scheduler_args=SchedulerArguments.from_dict(
                _mapping(config.get("scheduler"), "scheduler")
            ),
            eval_args=EvaluationArguments.from_dict(_mapping(config.get("eval"), "eval")),
            log_args=LogArguments.from_dict(_mapping(config.get("log"), "log")),
            reward_args=[RewardArguments.from_dict(r) for r in config.get("rewards") or []],
            eval_reward_args=[
                RewardArguments.from_dict(r) for r in config.get("eval_rewards") or []
            ],
            optimizer_args=_optimizer_args(config.get("optimizers"), training_args),
            acceleration_args=AccelerationArguments.from_dict(
                _mapping(config.get("acceleration"), "acceleration")
            ),
            **{k: config[k] for k in _TOP_LEVEL_KEYS if k in config},
        )
        args._resolve_scheduler_sde_defaults()
        args._validate_contract()
        if config.get("optimizers"):
            args._validate_role_optimizers()
        return args

    def _validate_role_optimizers(self) -> None:
        """An explicit ``optimizers:`` list of a multi-role algorithm names each role once and
        nothing else; refused here, at config time, before any model is built."""
        roles = tuple(getattr(self.training_args, "required_trainable_roles", None) or ())
        if len(roles) < 2:
            return
        key = self.training_args.trainer_type
        names = [entry.name for entry in self.optimizer_args]
        for role in roles:
            if role not in names:
                raise ValueError(
                    f"optimizers: no entry for role {role!r} of trainer_type {key!r} (roles "
                    f"{', '.join(roles)}); add `- name: {role}` with its settings, or drop "
                    "the optimizers list to use the algorithm's defaults"
                )
        for name in names:
            if name not in roles:
                raise ValueError(
                    f"optimizers: entry {name!r} names no role of trainer_type {key!r} (roles "
                    f"{', '.join(roles)}); rename it to one of them or remove it"
                )

    def _resolve_scheduler_sde_defaults(self) -> None:
        """Unset SDE steps default to every rollout step; ``num_sde_steps`` to all of them."""
        scheduler, steps = self.scheduler_args, int(self.training_args.num_inference_steps)
        if scheduler.sde_steps is None:
            scheduler.sde_steps = list(range(steps))
        bad = [s for s in scheduler.sde_steps if not 0 <= int(s) < steps]
        if bad:
            raise ValueError(
                f"scheduler.sde_steps must lie in [0, {steps}) (train.num_inference_steps), "
                f"got {bad}"
            )
        if scheduler.num_sde_steps is None:
            scheduler.num_sde_steps = len(scheduler.sde_steps)
        count = scheduler.num_sde_steps
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= len(
            scheduler.sde_steps
        ):
            raise ValueError(
                "scheduler.num_sde_steps must be an int in [1, len(scheduler.sde_steps)], "
                f"got {count!r}"
            )

    def _validate_contract(self) -> None:
        """Checks of the reference section 4.6 (dataset trainers return early)."""
        contract = type(self.training_args).execution_contract
        key = self.training_args.trainer_type
        if contract.feedback is FeedbackMode.NONE and self.reward_args:
            raise ValueError(
                f"trainer_type {key!r} does not accept training rewards (feedback: none), "
                f"got rewards {[r.name for r in self.reward_args]}"
            )
        if contract.feedback is FeedbackMode.RUNTIME_REWARD and not self.reward_args:
            raise ValueError(f"trainer_type {key!r} needs at least one `rewards` entry, got none")
        if contract.acquisition is AcquisitionMode.DATASET:
            self._validate_dataset_sources(key)
            return
        if not self.data_args.training_datasets:
            raise ValueError(f"trainer_type {key!r} needs a data.datasets train source (prompts)")
        args = self.training_args
        if not args._manual_gradient_accumulation_steps:
            # "auto" counts sample batches; each batch is several optimizer microbatches.
            args.gradient_accumulation_steps *= int(args.get_num_train_timesteps(self))

    def _validate_dataset_sources(self, key: str) -> None:
        sources = self.data_args.training_datasets
        if not sources:
            raise ValueError(f"dataset trainer {key!r} needs an enabled data.datasets train source")
        if self.data_args.enable_preprocess is not True:
            raise ValueError(
                f"dataset trainer {key!r} needs data.enable_preprocess: true, "
                f"got {self.data_args.enable_preprocess!r}"
            )
        if self.data_args.sampler_type != "auto":
            raise ValueError(
                f"dataset trainer {key!r} needs data.sampler_type: auto, "
                f"got {self.data_args.sampler_type!r}"
            )
        for source in sources:
            if source.train.weight != 1:
                raise ValueError(
                    f"dataset trainer {key!r} needs train.weight == 1 for source "
                    f"{source.name!r}, got {source.train.weight!r}"
                )


def _optimizer_args(items: Any, training_args: TrainingArguments) -> MultiOptimizerArguments:
    """YAML ``optimizers`` list, or one AdamW entry synthesised from the flat ``train`` fields."""
    if items:
        if not isinstance(items, list):
            raise TypeError(f"optimizers must be a list, got {type(items).__name__}")
        return MultiOptimizerArguments.from_dict(items)
    default = AdamWOptimizerArguments(
        name="default",
        learning_rate=training_args.learning_rate,
        weight_decay=training_args.adam_weight_decay,
        betas=training_args.adam_betas,
        eps=training_args.adam_epsilon,
        max_grad_norm=training_args.max_grad_norm,
    )
    return MultiOptimizerArguments(optimizer_configs=[default])


__all__ = ["Arguments"]
