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

"""Iterate stacked training batches of a cycle's samples."""

from __future__ import annotations

from collections.abc import Iterator

import torch

from ...samples import BaseSample, StackedSampleBatch
from .replay_batching import move_and_stack_samples


def iter_prefetched_batches(
    samples: list[BaseSample],
    per_device_batch_size: int,
    *,
    device: str | torch.device,
    offload_samples_to_cpu: bool,
) -> Iterator[StackedSampleBatch]:
    """Consecutive batches of ``per_device_batch_size`` samples stacked on ``device``; with
    ``offload_samples_to_cpu`` each batch's samples go back to the CPU once it is consumed.

    (Flow-Factory overlaps the next batch's host-to-device copy with the current step; the
    sandbox runs on one device and copies in order.)
    """
    if not isinstance(per_device_batch_size, int) or isinstance(per_device_batch_size, bool):
        raise TypeError(f"expected int per_device_batch_size, received "
                        f"{type(per_device_batch_size).__name__}: {per_device_batch_size!r}")
    if per_device_batch_size <= 0:
        raise ValueError(
            f"expected positive per_device_batch_size, received {per_device_batch_size}"
        )
    for start in range(0, len(samples), per_device_batch_size):
        chunk = list(samples[start : start + per_device_batch_size])
        yield move_and_stack_samples(chunk, device)
        if offload_samples_to_cpu:
            for sample in chunk:
                sample.to("cpu")


__all__ = ["iter_prefetched_batches"]
