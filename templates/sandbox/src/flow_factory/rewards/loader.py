"""``load_reward_model``: build the reward model one ``rewards`` entry names."""

from __future__ import annotations

from typing import Any

from .abc import BaseRewardModel
from .registry import get_reward_model_class


def load_reward_model(config: Any, accelerator: Any) -> BaseRewardModel:
    """The reward model of ``config.reward_model``, built with ``config`` and ``accelerator``."""
    return get_reward_model_class(config.reward_model)(config=config, accelerator=accelerator)


__all__ = ["load_reward_model"]
