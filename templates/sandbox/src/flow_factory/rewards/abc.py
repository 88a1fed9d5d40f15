"""Reward model interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import torch


class BaseRewardModel(ABC):
    """Scores a list of samples; higher is better."""

    def __init__(self, config: Any, accelerator: Any) -> None:
        self.config = config
        self.accelerator = accelerator

    @abstractmethod
    def __call__(self, samples: Sequence[Any]) -> torch.Tensor:
        """Return rewards ``(N,)`` fp32."""


__all__ = ["BaseRewardModel"]
