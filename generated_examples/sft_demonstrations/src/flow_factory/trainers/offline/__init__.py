"""Offline (dataset) trainers."""

from .my_sft import MySftTrainer
from .offline_dpo import OfflineDPOTrainer
from .sft import SFTTrainer

__all__ = ["MySftTrainer", "OfflineDPOTrainer", "SFTTrainer"]
