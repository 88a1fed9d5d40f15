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

"""Training forwards through the adapter that return a validated velocity state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..samples import ComponentTimes, LatentState
from .common.forward_kwargs import training_forward_kwargs
from .common.state_validation import require_velocity_state


def forward_velocity_state(
    trainer: Any,
    batch: Mapping[str, Any],
    state: LatentState,
    times: ComponentTimes,
    *,
    source: str,
    noise_level: float = 0.0,
    **overrides: Any,
) -> LatentState:
    """``adapter.forward_state`` with the training kwargs (+ ``overrides``, which win).

    Opens no autocast / no_grad scope: callers choose.
    """
    kwargs = {**training_forward_kwargs(trainer, batch), **overrides}
    for reserved in ("batch", "state", "times", "compute_log_prob", "return_fields"):
        kwargs.pop(reserved, None)
    kwargs.pop("noise_level", None)
    output = trainer.adapter.forward_state(
        batch=batch,
        state=state,
        times=times,
        compute_log_prob=False,
        return_fields=("velocity",),
        noise_level=noise_level,
        **kwargs,
    )
    return require_velocity_state(trainer, output, source, state)


__all__ = ["forward_velocity_state"]
