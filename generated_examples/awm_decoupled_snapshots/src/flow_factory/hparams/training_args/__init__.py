"""Training argument classes, one module per algorithm, plus the registry."""

from ._base import EvaluationArguments, TrainingArguments
from ._registry import get_training_args_class, list_registered_training_args
from .my_awm import MyAwmTrainingArguments
from .offline_dpo import OfflineDPOTrainingArguments
from .sft import SFTTrainingArguments
from .teacher import TeacherConfig

__all__ = [
    "EvaluationArguments",
    "TrainingArguments",
    "SFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "MyAwmTrainingArguments",
    "TeacherConfig",
    "get_training_args_class",
    "list_registered_training_args",
]
