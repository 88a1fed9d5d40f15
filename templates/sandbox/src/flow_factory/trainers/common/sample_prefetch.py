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
