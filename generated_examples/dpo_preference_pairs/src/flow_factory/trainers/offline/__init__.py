"""Offline (dataset) trainers."""

from .my_dpo import MyDpoTrainer
from .offline_dpo import OfflineDPOTrainer
from .sft import SFTTrainer

__all__ = ["MyDpoTrainer", "OfflineDPOTrainer", "SFTTrainer"]
