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
