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
