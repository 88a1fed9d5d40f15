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

"""Reward argument entries (``rewards:`` / ``eval_rewards:`` lists in YAML)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC


@dataclass
class RewardArguments(ArgABC):
    """One reward model with its aggregation weight."""

    name: str = "reward"
    reward_model: str = "toy_target"
    weight: float = 1.0
    batch_size: int = 16
    device: str = "cpu"
    dtype: str = "float32"
    async_reward: bool = False
    num_workers: int = 1
    applicable_datasets: list[str] | None = None

    def __post_init__(self) -> None:
        self.weight = float(self.weight)


__all__ = ["RewardArguments"]
