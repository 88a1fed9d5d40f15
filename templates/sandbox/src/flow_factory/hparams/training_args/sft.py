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

"""Supervised flow-matching finetuning on demonstrations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from ...contracts.execution import OFFLINE_EXECUTION_CONTRACT, ExecutionContract
from ._offline import OfflineFlowMatchingTrainingArguments


@dataclass
class SFTTrainingArguments(OfflineFlowMatchingTrainingArguments):
    """Arguments of ``trainer_type: sft``."""

    execution_contract: ClassVar[ExecutionContract] = OFFLINE_EXECUTION_CONTRACT

    trainer_type: Literal["sft"] = field(default="sft", metadata={"help": "Registry key."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.trainer_type != "sft":
            raise ValueError(f"train.trainer_type must be 'sft', got {self.trainer_type!r}")

    @property
    def requires_ref_model(self) -> bool:
        """SFT needs no reference model."""
        return False


__all__ = ["SFTTrainingArguments"]
