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

"""The sampling scheduler the adapter exposes as ``adapter.scheduler`` (sandbox miniature).

Flow-SDE style: noise is injected only at the SDE step positions, and those are the steps a
coupled trainer replays (``adapter.get_train_step_indices()``). Every other step is a plain
Euler (ODE) step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import torch

SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")


@dataclass(frozen=True)
class SandboxScheduler:
    """Step schedule of one component: dynamics, noise level and the SDE step positions."""

    dynamics_type: str
    noise_level: float
    num_inference_steps: int
    sde_steps: tuple[int, ...]
    num_sde_steps: int

    @property
    def is_sde(self) -> bool:
        """Whether the dynamics inject noise at all."""
        return self.dynamics_type in SDE_DYNAMICS

    def train_step_indices(self) -> torch.Tensor:
        """The first ``num_sde_steps`` SDE positions, ascending (the sandbox picks no subset)."""
        return torch.tensor(sorted(self.sde_steps)[: self.num_sde_steps], dtype=torch.long)

    @cached_property
    def _noisy_steps(self) -> frozenset[int]:
        # Asked once per denoising step of every rollout: computed once per scheduler.
        return frozenset(self.train_step_indices().tolist()) if self.is_sde else frozenset()

    def is_noisy_step(self, step_index: int) -> bool:
        """Whether rollout step ``step_index`` is stochastic (and so has a log-probability)."""
        return int(step_index) in self._noisy_steps


def build_scheduler(scheduler_args, training_args) -> SandboxScheduler:
    """Scheduler of one run; ``Arguments`` has already resolved the SDE step defaults."""
    steps = int(getattr(training_args, "num_inference_steps", 10))
    sde_steps = scheduler_args.sde_steps
    sde_steps = tuple(range(steps)) if sde_steps is None else tuple(int(s) for s in sde_steps)
    count = scheduler_args.num_sde_steps
    return SandboxScheduler(
        dynamics_type=scheduler_args.dynamics_type,
        noise_level=float(scheduler_args.noise_level),
        num_inference_steps=steps,
        sde_steps=sde_steps,
        num_sde_steps=len(sde_steps) if count is None else int(count),
    )


__all__ = ["SDE_DYNAMICS", "SandboxScheduler", "build_scheduler"]
