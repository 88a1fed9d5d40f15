"""``toy_target``: reward = ``-mean((x0 - target(prompt)) ** 2)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ..models.toy import prompt_target
from .abc import BaseRewardModel


class ToyTargetReward(BaseRewardModel):
    """Negative squared distance of the final sample to the prompt's fixed target vector."""

    def __call__(self, samples: Sequence[Any]) -> torch.Tensor:
        rewards = [
            -torch.mean((s.image.float().cpu() - prompt_target(s.prompt)) ** 2) for s in samples
        ]
        return torch.stack(rewards).float()


__all__ = ["ToyTargetReward"]
