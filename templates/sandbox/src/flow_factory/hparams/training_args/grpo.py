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

"""Flow-GRPO: group-relative policy optimisation over stored SDE rollouts."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ...contracts.execution import ONLINE_EXECUTION_CONTRACT, ExecutionContract
from ._base import TrainingArguments

# Where the KL to the reference is measured: the predicted velocity, or the transition's mean.
_KL_TYPES = ("v-based", "x-based")


@dataclass
class GRPOTrainingArguments(TrainingArguments):
    """Arguments of ``trainer_type: grpo`` (the real defaults: a tight ratio clip, no KL)."""

    execution_contract: ClassVar[ExecutionContract] = ONLINE_EXECUTION_CONTRACT

    trainer_type: Literal["grpo"] = field(default="grpo", metadata={"help": "Registry key."})
    global_std: bool = field(
        default=True,
        metadata={"help": "Scale advantages by the std over all rewards, not per group."},
    )
    advantage_aggregation: Literal["sum", "gdpo"] = field(
        default="gdpo", metadata={"help": "How several rewards become one advantage."}
    )
    clip_range: tuple[float, float] = field(
        default=(-1e-4, 1e-4),
        metadata={"help": "Ratio clip offsets (lo, hi): [1 + lo, 1 + hi]; v means (-|v|, |v|)."},
    )
    adv_clip_range: tuple[float, float] = field(
        default=(-5.0, 5.0),
        metadata={"help": "Advantages are clamped to (lo, hi); v means (-|v|, |v|)."},
    )
    kl_type: Literal["v-based", "x-based"] = field(
        default="x-based",
        metadata={"help": "KL to the reference on velocities or on transition means."},
    )
    kl_beta: float = field(
        default=0.0, metadata={"help": "Weight of the KL to the frozen reference; 0 = none."}
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.trainer_type != "grpo":
            raise ValueError(f"train.trainer_type must be 'grpo', got {self.trainer_type!r}")
        if self.advantage_aggregation not in ("sum", "gdpo"):
            raise ValueError(
                "train.advantage_aggregation must be 'sum' or 'gdpo', got "
                f"{self.advantage_aggregation!r}"
            )
        # YAML may give "1e-3" as a string; a bool is never a weight.
        if isinstance(self.kl_beta, bool):
            raise TypeError(f"train.kl_beta must be a number >= 0, got {self.kl_beta!r}")
        self.kl_beta = float(self.kl_beta)
        if not math.isfinite(self.kl_beta) or self.kl_beta < 0:
            raise ValueError(f"train.kl_beta must be a finite number >= 0, got {self.kl_beta!r}")
        self.clip_range = self._standardize_clip_range(self.clip_range, "clip_range")
        if self.clip_range[0] < -1.0:
            raise ValueError(
                f"train.clip_range low end must be >= -1 (a ratio is never negative), got "
                f"{self.clip_range!r}"
            )
        self.adv_clip_range = self._standardize_clip_range(self.adv_clip_range, "adv_clip_range")
        if self.kl_type not in _KL_TYPES:
            raise ValueError(f"train.kl_type must be one of {_KL_TYPES}, got {self.kl_type!r}")

    def get_num_train_timesteps(self, args: Any) -> int:
        """One optimisation microstep per replayed SDE step of a rollout."""
        return int(args.scheduler_args.num_sde_steps)


__all__ = ["GRPOTrainingArguments"]
