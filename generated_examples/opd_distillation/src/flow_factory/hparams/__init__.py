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
    GRPOTrainingArguments,
    MyOPDTrainingArguments,
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
    "GRPOTrainingArguments",
    "SFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "MyOPDTrainingArguments",
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
