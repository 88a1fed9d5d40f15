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

"""Collects samples during rollout and scores them with every configured reward model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch


class RewardBuffer:
    """Scores samples as they are added (synchronously); ``finalize`` returns per-name rewards."""

    def __init__(self, reward_models: dict[str, Any], weights: dict[str, float]) -> None:
        self._reward_models = dict(reward_models)
        self._weights = dict(weights)
        self.clear()

    def clear(self) -> None:
        """Forget buffered samples and scores."""
        self._samples: list[Any] = []
        self._scores: dict[str, list[torch.Tensor]] = {name: [] for name in self._reward_models}

    def add_samples(self, samples: Sequence[Any]) -> None:
        """Buffer ``samples`` and score them with each reward model."""
        samples = list(samples)
        self._samples.extend(samples)
        for name, model in self._reward_models.items():
            self._scores[name].append(model(samples).float().reshape(-1))

    def finalize(
        self, store_to_samples: bool = True, split: str = "all"
    ) -> dict[str, torch.Tensor]:
        """Rewards ``{name: (N,)}``; with ``store_to_samples`` also ``extra_kwargs["reward"]``
        (weighted sum) and ``extra_kwargs["rewards"]`` (per name)."""
        if split != "all":
            raise ValueError(f"the sandbox reward buffer only supports split='all', got {split!r}")
        rewards = {
            name: torch.cat(chunks) if chunks else torch.zeros(0)
            for name, chunks in self._scores.items()
        }
        if store_to_samples:
            for index, sample in enumerate(self._samples):
                per_name = {name: values[index] for name, values in rewards.items()}
                total = sum(self._weights[name] * value for name, value in per_name.items())
                sample.extra_kwargs["rewards"] = per_name
                sample.extra_kwargs["reward"] = torch.as_tensor(total, dtype=torch.float32)
        return rewards


__all__ = ["RewardBuffer"]
