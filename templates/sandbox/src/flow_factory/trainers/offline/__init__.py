"""Offline (dataset) trainers."""

from .offline_dpo import OfflineDPOTrainer
from .sft import SFTTrainer

__all__ = ["OfflineDPOTrainer", "SFTTrainer"]
