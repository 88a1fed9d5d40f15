"""Offline (dataset) trainers."""

from .my_record import MyRecordTrainer
from .offline_dpo import OfflineDPOTrainer
from .sft import SFTTrainer

__all__ = ["MyRecordTrainer", "OfflineDPOTrainer", "SFTTrainer"]
