"""Reward model interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import torch


class BaseRewardModel(ABC):
    """Scores a list of samples; higher is better."""

    def __init__(self, reward_args: Any = None) -> None:
        self.reward_args = reward_args

    @abstractmethod
    def __call__(self, samples: Sequence[Any]) -> torch.Tensor:
        """Return rewards ``(N,)`` fp32."""


__all__ = ["BaseRewardModel"]
