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

"""Shared arguments of offline (dataset) flow-matching trainers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from ._base import TrainingArguments

_WEIGHTING_SCHEMES = ("logit_normal", "uniform")


def _positive_int(value: Any, field_name: str) -> int:
    """Require an exact ``int >= 1`` (bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"train.{field_name} must be an int >= 1, got {value!r}")
    return value


def _finite_float(value: Any, field_name: str, *, strictly_positive: bool) -> float:
    """Require a finite real number (and ``> 0`` when ``strictly_positive``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"train.{field_name} must be a finite number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or (strictly_positive and number <= 0):
        expected = "a finite number > 0" if strictly_positive else "a finite number"
        raise ValueError(f"train.{field_name} must be {expected}, got {value!r}")
    return number


def _timestep_range(value: Any) -> tuple[float, float]:
    """Standardise and require finite ``0 <= lo < hi <= 1``."""
    lo, hi = TrainingArguments._standardize_timestep_range(value)
    if not (math.isfinite(lo) and math.isfinite(hi) and 0.0 <= lo < hi <= 1.0):
        raise ValueError(f"train.timestep_range must satisfy 0 <= lo < hi <= 1, got {value!r}")
    return (lo, hi)


@dataclass
class OfflineFlowMatchingTrainingArguments(TrainingArguments):
    """Finite-epoch, explicit-GAS flow-matching fields (no execution contract declared here)."""

    max_epochs: int = 1
    gradient_accumulation_steps: int = 1
    weighting_scheme: Literal["logit_normal", "uniform"] = field(
        default="logit_normal", metadata={"help": "Timestep density."}
    )
    num_train_timesteps: int = field(
        default=1, metadata={"help": "Monte-Carlo timesteps per example (does not scale GAS)."}
    )
    timestep_range: Any = 0.99
    time_shift: float = 1.0
    logit_mean: float = 0.0
    logit_std: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.max_epochs = _positive_int(self.max_epochs, "max_epochs")
        self.num_train_timesteps = _positive_int(self.num_train_timesteps, "num_train_timesteps")
        if self.weighting_scheme not in _WEIGHTING_SCHEMES:
            raise ValueError(
                f"train.weighting_scheme must be one of {_WEIGHTING_SCHEMES}, "
                f"got {self.weighting_scheme!r}"
            )
        self.timestep_range = _timestep_range(self.timestep_range)
        self.time_shift = _finite_float(self.time_shift, "time_shift", strictly_positive=True)
        self.logit_mean = _finite_float(self.logit_mean, "logit_mean", strictly_positive=False)
        self.logit_std = _finite_float(self.logit_std, "logit_std", strictly_positive=True)


__all__ = ["OfflineFlowMatchingTrainingArguments"]
