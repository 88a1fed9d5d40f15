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

"""AdamW optimizer entry."""

from __future__ import annotations

from dataclasses import dataclass

from ._base import OptimizerArguments


@dataclass
class AdamWOptimizerArguments(OptimizerArguments):
    """AdamW hyper-parameters (the only optimizer the sandbox runs)."""

    optimizer: str = "adamw"
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8

    def __post_init__(self) -> None:
        super().__post_init__()
        self.betas = (float(self.betas[0]), float(self.betas[1]))
        self.eps = float(self.eps)


__all__ = ["AdamWOptimizerArguments"]
