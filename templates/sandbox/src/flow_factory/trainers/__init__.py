"""Trainer framework: ``BaseTrainer``, drivers, progress, registry and ``load_trainer``."""

from .abc import BaseTrainer
from .execution import (
    DatasetAcquisitionDriver,
    GenerationAcquisitionDriver,
    TrainingProgress,
    build_acquisition_driver,
)
from .loader import load_trainer
from .registry import get_trainer_class, list_registered_trainers

__all__ = [
    "BaseTrainer",
    "DatasetAcquisitionDriver",
    "GenerationAcquisitionDriver",
    "TrainingProgress",
    "build_acquisition_driver",
    "get_trainer_class",
    "list_registered_trainers",
    "load_trainer",
]
