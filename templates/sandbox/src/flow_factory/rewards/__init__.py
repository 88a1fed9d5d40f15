"""Reward models, the reward buffer and the advantage processor."""

from .abc import BaseRewardModel
from .advantage_processor import AdvantageProcessor
from .loader import load_reward_model
from .registry import get_reward_model_class, list_registered_reward_models
from .reward_buffer import RewardBuffer

__all__ = [
    "AdvantageProcessor",
    "BaseRewardModel",
    "RewardBuffer",
    "get_reward_model_class",
    "list_registered_reward_models",
    "load_reward_model",
]
