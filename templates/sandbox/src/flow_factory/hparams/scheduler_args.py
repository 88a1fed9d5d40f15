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

"""Scheduler argument group (``scheduler:`` in YAML)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC

_SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")
_DYNAMICS_TYPES = (*_SDE_DYNAMICS, "ODE")


@dataclass
class SchedulerArguments(ArgABC):
    """Sampling dynamics; the toy model uses Euler (ODE) or Euler-Maruyama (any SDE)."""

    dynamics_type: str = "ODE"
    noise_level: float = 0.7
    num_sde_steps: int | None = None
    sde_steps: list[int] | None = None
    seed: int = 42

    def __post_init__(self) -> None:
        if self.dynamics_type not in _DYNAMICS_TYPES:
            raise ValueError(
                f"scheduler.dynamics_type must be one of {_DYNAMICS_TYPES}, "
                f"got {self.dynamics_type!r}"
            )


__all__ = ["SchedulerArguments"]
