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

"""Turns per-reward scores into group-normalised advantages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch


class AdvantageProcessor:
    """``sum``: weighted sum then group normalisation; ``gdpo``: normalise each reward in its group,
    weighted sum, normalise again. Groups are samples sharing a prompt; ``global_std`` divides by
    the std over all samples. Results are clipped to ``adv_clip_range``."""

    def __init__(
        self,
        weights: Mapping[str, float],
        *,
        global_std: bool = True,
        adv_clip_range: tuple[float, float] = (-5.0, 5.0),
    ) -> None:
        self.reward_weights = dict(weights)
        self.global_std = bool(global_std)
        self._adv_clip_range = (float(adv_clip_range[0]), float(adv_clip_range[1]))
        self._metrics: dict[str, float] = {}

    def compute_advantages(
        self,
        *,
        samples: Sequence[Any],
        rewards: Mapping[str, torch.Tensor],
        store_to_samples: bool = True,
        aggregation_func: str = "gdpo",
    ) -> torch.Tensor:
        """Advantages ``(N,)``; written to ``extra_kwargs["advantage"]`` when storing."""
        groups = _group_ids([s.prompt for s in samples])
        if aggregation_func == "sum":
            advantages = self._normalise(self._weighted(rewards), groups)
        elif aggregation_func == "gdpo":
            normed = {k: self._normalise(v.float(), groups) for k, v in rewards.items()}
            advantages = self._normalise(self._weighted(normed), groups)
        else:
            raise ValueError(f"aggregation_func must be 'sum' or 'gdpo', got {aggregation_func!r}")
        advantages = advantages.clamp(*self._adv_clip_range)
        if store_to_samples:
            for sample, value in zip(samples, advantages, strict=True):
                sample.extra_kwargs["advantage"] = value
        self._record_metrics(rewards, advantages)
        return advantages

    def pop_advantage_metrics(self) -> dict[str, float]:
        """Return and clear the metrics of the last call (includes ``reward_mean``)."""
        metrics, self._metrics = self._metrics, {}
        return metrics

    def _weighted(self, rewards: Mapping[str, torch.Tensor]) -> torch.Tensor:
        total = None
        for name, values in rewards.items():
            term = self.reward_weights.get(name, 1.0) * values.float()
            total = term if total is None else total + term
        if total is None:
            raise ValueError("compute_advantages needs at least one reward, got none")
        return total

    def _normalise(self, values: torch.Tensor, groups: torch.Tensor) -> torch.Tensor:
        centred = values.clone()
        for gid in groups.unique():
            mask = groups == gid
            centred[mask] = values[mask] - values[mask].mean()
        if self.global_std:
            std = values.std() if values.numel() > 1 else values.new_tensor(0.0)
            return centred / (std + 1e-6)
        scaled = centred.clone()
        for gid in groups.unique():
            mask = groups == gid
            std = values[mask].std() if int(mask.sum()) > 1 else values.new_tensor(0.0)
            scaled[mask] = centred[mask] / (std + 1e-6)
        return scaled

    def _record_metrics(self, rewards: Mapping[str, torch.Tensor], adv: torch.Tensor) -> None:
        total = self._weighted(rewards)
        self._metrics = {
            "reward_mean": float(total.mean()),
            "reward_std": float(total.std()) if total.numel() > 1 else 0.0,
            "advantage_mean": float(adv.mean()),
            "advantage_abs_mean": float(adv.abs().mean()),
        }
        for name, values in rewards.items():
            self._metrics[f"reward_{name}_mean"] = float(values.float().mean())


def _group_ids(prompts: Sequence[Any]) -> torch.Tensor:
    index: dict[Any, int] = {}
    return torch.tensor([index.setdefault(p, len(index)) for p in prompts], dtype=torch.long)


__all__ = ["AdvantageProcessor"]
