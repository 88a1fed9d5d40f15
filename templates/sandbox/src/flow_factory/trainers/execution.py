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

"""Training progress counters and the acquisition drivers behind ``BaseTrainer.start()``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from torch.utils.data import DistributedSampler

from ..contracts.execution import AcquisitionMode, ExecutionContract


def _check_counter(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"TrainingProgress.{name} must be an int >= 0, got {value!r}")


@dataclass(frozen=True)
class TrainingProgress:
    """Immutable counters: optimizer steps, generation cycles, dataset epochs."""

    optimizer_step: int = 0
    rollout_iteration: int = 0
    data_epoch: int = 0

    def __post_init__(self) -> None:
        for name in ("optimizer_step", "rollout_iteration", "data_epoch"):
            _check_counter(name, getattr(self, name))

    def cycle_index(self, acquisition: AcquisitionMode) -> int:
        """The counter that indexes cycles for ``acquisition``."""
        if acquisition is AcquisitionMode.DATASET:
            return self.data_epoch
        return self.rollout_iteration

    def advance_acquisition(self, acquisition: AcquisitionMode, *, completed: bool):
        """Next progress after a completed cycle; ``completed=False`` raises ``RuntimeError``."""
        if not completed:
            raise RuntimeError("cannot advance progress: the acquisition cycle did not complete")
        if acquisition is AcquisitionMode.DATASET:
            return replace(self, data_epoch=self.data_epoch + 1)
        return replace(self, rollout_iteration=self.rollout_iteration + 1)

    def advance_optimizer_step(self, count: int = 1) -> TrainingProgress:
        """Next progress after ``count`` optimizer steps."""
        _check_counter("count", count)
        return replace(self, optimizer_step=self.optimizer_step + count)


class GenerationAcquisitionDriver:
    """One cycle = seed the trajectory RNG, then ``run_generation_acquisition()``."""

    def prepare_cycle(self, host: Any, progress: TrainingProgress, *, seed: int) -> None:
        """Seed sampling with ``seed + rollout_iteration``."""
        host.set_trajectory_seed(int(seed) + progress.rollout_iteration)

    def run_cycle(self, host: Any, progress: TrainingProgress) -> None:
        """Sample, feedback, optimize."""
        host.run_generation_acquisition()


class DatasetAcquisitionDriver:
    """One cycle = one full traversal of the finite loader."""

    def prepare_cycle(self, host: Any, progress: TrainingProgress, *, seed: int) -> None:
        """Require a ``DistributedSampler`` (even with one process)."""
        sampler = getattr(getattr(host, "dataloader", None), "sampler", None)
        if not isinstance(sampler, DistributedSampler):
            raise TypeError(
                "dataset trainers need a DataLoader with a DistributedSampler, "
                f"got sampler {type(sampler).__name__}"
            )

    def run_cycle(self, host: Any, progress: TrainingProgress) -> None:
        """``sampler.set_epoch(data_epoch)`` then ``train_on_dataset_batch`` per batch."""
        host.dataloader.sampler.set_epoch(progress.data_epoch)
        for batch in host.dataloader:
            host.train_on_dataset_batch(batch)


def build_acquisition_driver(contract: ExecutionContract):
    """Driver for the contract's acquisition mode (an ``ExecutionContract``, nothing else)."""
    if not isinstance(contract, ExecutionContract):
        raise TypeError(
            f"build_acquisition_driver needs an ExecutionContract, got {type(contract).__name__}"
        )
    if contract.acquisition is AcquisitionMode.DATASET:
        return DatasetAcquisitionDriver()
    return GenerationAcquisitionDriver()


__all__ = [
    "DatasetAcquisitionDriver",
    "GenerationAcquisitionDriver",
    "TrainingProgress",
    "build_acquisition_driver",
]
