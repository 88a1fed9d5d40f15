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
