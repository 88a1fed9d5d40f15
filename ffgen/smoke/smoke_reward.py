"""The reward ``ffgen smoke`` gives reward-driven algorithms: cheap, deterministic, model-free.

Imported by the checkout's reward loader through the dotted path ``smoke_reward.SmokeReward``
(the driver's folder is on ``sys.path``). The score is the negative mean square of each sample's
output, a smooth function of the weights, so advantages are non-zero and training moves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from flow_factory.rewards.abc import BaseRewardModel


class SmokeReward(BaseRewardModel):
    def __call__(self, samples: Sequence[Any] = (), **kwargs: Any) -> torch.Tensor:
        outputs = [getattr(s, "image", None) for s in samples]
        scores = [
            -torch.as_tensor(o).detach().float().cpu().pow(2).mean() if o is not None
            else torch.tensor(0.0)
            for o in outputs
        ]
        return torch.stack(scores).float() if scores else torch.zeros(0)
