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

"""Training argument classes, one module per algorithm, plus the registry."""

from ._base import EvaluationArguments, TrainingArguments
from ._registry import get_training_args_class, list_registered_training_args
from .grpo import GRPOTrainingArguments
from .offline_dpo import OfflineDPOTrainingArguments
from .sft import SFTTrainingArguments
from .teacher import TeacherConfig

__all__ = [
    "EvaluationArguments",
    "TrainingArguments",
    "GRPOTrainingArguments",
    "SFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "TeacherConfig",
    "get_training_args_class",
    "list_registered_training_args",
]
