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

"""Base training arguments shared by every algorithm."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...contracts.execution import (
    ONLINE_EXECUTION_CONTRACT,
    AcquisitionMode,
    ExecutionContract,
)
from ..abc import ArgABC
from ..gradient_checkpointing import (
    GradientCheckpointingSpec,
    normalize_gradient_checkpointing_policy,
)

_CONTRACT_KEY_ERROR = (
    "train.execution_contract is selected by trainer_type and cannot be configured"
)


def _compute_gradient_accumulation_steps(
    num_batches_per_epoch: int, gradient_step_per_epoch: int
) -> int:
    """Auto GAS: ``max(1, n // gradient_step_per_epoch)``."""
    return max(1, int(num_batches_per_epoch) // max(1, int(gradient_step_per_epoch)))


@dataclass
class EvaluationArguments(ArgABC):
    """Evaluation cadence and sampling (``eval:`` in YAML); ``eval_freq <= 0`` disables it."""

    resolution: int | tuple[int, int] | list[int] = (512, 512)
    height: int | None = None
    width: int | None = None
    num_frames: int | None = None
    frame_rate: float | None = None
    per_device_batch_size: int = 1
    guidance_scale: float = 3.5
    num_inference_steps: int = 10
    eval_freq: int = 10
    seed: int | None = None

    def __post_init__(self) -> None:
        self.resolution = _pair(self.resolution)
        self.height = self.height or self.resolution[0]
        self.width = self.width or self.resolution[1]


@dataclass
class TrainingArguments(ArgABC):
    """Fields every algorithm shares; see the interface reference section 4.2."""

    execution_contract: ClassVar[ExecutionContract] = ONLINE_EXECUTION_CONTRACT

    trainer_type: str = field(default="grpo", metadata={"help": "Registry key."})
    resolution: Any = (512, 512)
    height: int | None = None
    width: int | None = None
    num_frames: int | None = None
    frame_rate: float | None = None
    max_epochs: int | None = field(
        default=None, metadata={"help": "Acquisition cycles; None or < 0 = unlimited."}
    )
    per_device_batch_size: int = 1
    gradient_step_per_epoch: int = 2
    max_grad_norm: float = 1.0
    num_batches_per_epoch: int = field(init=False, default=0)
    gradient_accumulation_steps: Any = "auto"
    num_inner_epochs: int = 1
    group_size: int = 1
    unique_sample_num_per_epoch: int = 8
    num_inference_steps: int = 10
    guidance_scale: float = 3.5
    ref_param_device: str = "cuda"
    seed: int = 42
    learning_rate: float | None = 1e-5
    adam_weight_decay: float = 1e-4
    adam_betas: tuple[float, float] = (0.9, 0.999)
    adam_epsilon: float = 1e-8
    enable_gradient_checkpointing: bool | GradientCheckpointingSpec = False
    offload_samples_to_cpu: bool = False
    ema_decay: float = 0.995
    ema_update_interval: int = 10
    ema_device: str = "cuda"
    ema_decay_schedule: str = "power"
    latent_storage_dtype: str = "fp16"
    shuffle_samples: bool = True

    def __post_init__(self) -> None:
        self.resolution = _pair(self.resolution)
        self.enable_gradient_checkpointing = normalize_gradient_checkpointing_policy(
            self.enable_gradient_checkpointing
        )
        self.height = self.height or self.resolution[0]
        self.width = self.width or self.resolution[1]
        self._initialize_batch_geometry()
        if self.learning_rate is None:
            self.learning_rate = 1e-4 if "lora" in str(self.trainer_type) else 1e-5
        self.learning_rate = float(self.learning_rate)
        self.max_grad_norm = float(self.max_grad_norm)
        self.guidance_scale = float(self.guidance_scale)
        self.ema_decay = float(self.ema_decay)
        self.adam_weight_decay = float(self.adam_weight_decay)
        self.adam_epsilon = float(self.adam_epsilon)
        self.adam_betas = (float(self.adam_betas[0]), float(self.adam_betas[1]))

    # ------------------------------------------------------------------ geometry
    def _initialize_batch_geometry(self) -> None:
        """Resolve ``num_batches_per_epoch`` and gradient accumulation per acquisition mode."""
        gas = self.gradient_accumulation_steps
        if self.execution_contract.acquisition is AcquisitionMode.DATASET:
            if isinstance(gas, bool) or not isinstance(gas, int) or gas < 1:
                raise ValueError(
                    "train.gradient_accumulation_steps must be an explicit int >= 1 for "
                    f"dataset trainers, got {gas!r}"
                )
            self._manual_gradient_accumulation_steps = True
            self.num_batches_per_epoch = 0
            return
        world_size = int(os.environ.get("WORLD_SIZE", "1"))
        samples = int(self.unique_sample_num_per_epoch) * int(self.group_size)
        self.num_batches_per_epoch = samples // (world_size * int(self.per_device_batch_size))
        if self.num_batches_per_epoch < 1:
            raise ValueError(
                "unique_sample_num_per_epoch * group_size must cover at least one batch of "
                f"per_device_batch_size * world_size, got {samples} samples for "
                f"{self.per_device_batch_size} x {world_size}"
            )
        if gas == "auto":
            self._manual_gradient_accumulation_steps = False
            self.gradient_accumulation_steps = _compute_gradient_accumulation_steps(
                self.num_batches_per_epoch, self.gradient_step_per_epoch
            )
        elif isinstance(gas, bool) or not isinstance(gas, int) or gas < 1:
            raise ValueError(
                f"train.gradient_accumulation_steps must be 'auto' or an int >= 1, got {gas!r}"
            )
        else:
            self._manual_gradient_accumulation_steps = True

    def get_num_train_timesteps(self, args: Any) -> int:
        """Optimizer microbatches per sample batch (auto GAS is multiplied by it).

        Args:
            args: The parent ``Arguments`` (sibling groups such as ``scheduler_args``).
        """
        return 1

    @property
    def requires_ref_model(self) -> bool:
        """True when a frozen reference copy of the trainable weights is needed."""
        return float(getattr(self, "kl_beta", 0.0) or 0.0) > 0.0

    def get_preprocess_guidance_scale(self) -> float:
        """Guidance scale used at preprocessing (override to the largest CFG any stage uses)."""
        return self.guidance_scale

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _standardize_clip_range(value: Any, name: str) -> tuple[float, float]:
        """Turn ``c`` into ``(-c, c)``; validate a ``(lo, hi)`` pair with ``lo < hi``."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            lo, hi = -abs(float(value)), abs(float(value))
        elif isinstance(value, (list, tuple)) and len(value) == 2:
            lo, hi = float(value[0]), float(value[1])
        else:
            raise ValueError(f"train.{name} must be a number or a (lo, hi) pair, got {value!r}")
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"train.{name} must be finite with lo < hi, got {(lo, hi)!r}")
        return (lo, hi)

    @staticmethod
    def _standardize_timestep_range(value: Any) -> tuple[float, float]:
        """Turn ``f`` into ``(0.0, f)``; pairs pass through as floats."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (0.0, float(value))
        if isinstance(value, (list, tuple)) and len(value) == 2:
            return (float(value[0]), float(value[1]))
        raise ValueError(f"train.timestep_range must be a float or (lo, hi), got {value!r}")

    @classmethod
    def from_dict(cls, args_dict: Mapping[str, Any]) -> TrainingArguments:
        """Build from the ``train:`` mapping; the execution contract is never configurable."""
        if not isinstance(args_dict, Mapping):
            raise TypeError(f"train arguments must be a mapping, got {type(args_dict)!r}")
        if "execution_contract" in args_dict or "execution_contract" in (
            args_dict.get("extra_kwargs") or {}
        ):
            raise ValueError(_CONTRACT_KEY_ERROR)
        return super().from_dict(args_dict)


def _pair(resolution: Any) -> tuple[int, int]:
    """``512`` -> ``(512, 512)``; a pair stays a pair (as a tuple)."""
    if isinstance(resolution, int):
        return (resolution, resolution)
    return tuple(resolution)


__all__ = ["EvaluationArguments", "TrainingArguments"]
