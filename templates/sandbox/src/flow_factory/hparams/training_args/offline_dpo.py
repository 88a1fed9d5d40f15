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

"""Offline Diffusion-DPO on preference pairs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ...contracts.execution import OFFLINE_EXECUTION_CONTRACT, ExecutionContract
from ._offline import OfflineFlowMatchingTrainingArguments, _finite_float


@dataclass
class OfflineDPOTrainingArguments(OfflineFlowMatchingTrainingArguments):
    """Arguments of ``trainer_type: offline-dpo``."""

    execution_contract: ClassVar[ExecutionContract] = OFFLINE_EXECUTION_CONTRACT

    trainer_type: Literal["offline-dpo"] = field(
        default="offline-dpo", metadata={"help": "Registry key."}
    )
    beta: float = field(default=2000.0, metadata={"help": "DPO inverse temperature (> 0)."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.trainer_type != "offline-dpo":
            raise ValueError(
                f"train.trainer_type must be 'offline-dpo', got {self.trainer_type!r}"
            )
        self.beta = _finite_float(self.beta, "beta", strictly_positive=True)

    @classmethod
    def from_dict(cls, args_dict: Mapping[str, Any]) -> OfflineDPOTrainingArguments:
        """Refuse ``reference_free``: offline DPO always uses the frozen reference."""
        if isinstance(args_dict, Mapping) and "reference_free" in args_dict:
            raise ValueError(
                "train.reference_free is not supported by offline-dpo (the reference is "
                f"always used), got reference_free={args_dict['reference_free']!r}"
            )
        return super().from_dict(args_dict)

    @property
    def requires_ref_model(self) -> bool:
        """DPO compares against the frozen initial weights."""
        return True


__all__ = ["OfflineDPOTrainingArguments"]
