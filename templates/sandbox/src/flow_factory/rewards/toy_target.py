# Copyright 2026 The ffgen authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

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
