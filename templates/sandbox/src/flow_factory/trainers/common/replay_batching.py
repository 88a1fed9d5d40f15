"""Stack samples for a training pass on the training device."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ...samples import BaseSample, StackedSampleBatch


def move_and_stack_samples(
    samples: Sequence[BaseSample], device: str | torch.device, *, non_blocking: bool = False
) -> StackedSampleBatch:
    """Move each sample to ``device`` (in place), then stack them with their class's ``stack``."""
    if not samples:
        raise ValueError("move_and_stack_samples needs at least one sample, got none")
    moved = [sample.to(device, non_blocking=non_blocking) for sample in samples]
    return type(moved[0]).stack(moved)


__all__ = ["move_and_stack_samples"]
