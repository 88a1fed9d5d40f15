"""Argument groups and the training-argument registry."""

from .acceleration_args import AccelerationArguments
from .args import Arguments
from .data_args import DataArguments
from .dataset_args import DatasetArguments, DatasetEvalSpec, DatasetTrainSpec
from .gradient_checkpointing import GradientCheckpointingPolicy, GradientCheckpointingSpec
from .log_args import LogArguments
from .model_args import ModelArguments
from .optimizer_args import (
    AdamWOptimizerArguments,
    MultiOptimizerArguments,
    MuonOptimizerArguments,
    OptimizerArguments,
)
from .reward_args import RewardArguments
from .scheduler_args import SchedulerArguments
from .training_args import (
    MyGrpoTrainingArguments,
    OfflineDPOTrainingArguments,
    SFTTrainingArguments,
    TeacherConfig,
    TrainingArguments,
    get_training_args_class,
)

__all__ = [
    "Arguments",
    "DataArguments",
    "ModelArguments",
    "SchedulerArguments",
    "TrainingArguments",
    "GradientCheckpointingPolicy",
    "GradientCheckpointingSpec",
    "SFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "MyGrpoTrainingArguments",
    "TeacherConfig",
    "get_training_args_class",
    "AccelerationArguments",
    "RewardArguments",
    "AdamWOptimizerArguments",
    "MultiOptimizerArguments",
    "MuonOptimizerArguments",
    "OptimizerArguments",
    "DatasetArguments",
    "DatasetEvalSpec",
    "DatasetTrainSpec",
    "LogArguments",
]
