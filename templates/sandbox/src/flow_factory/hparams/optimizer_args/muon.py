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

"""Muon optimizer entry (parsed and validated; the sandbox refuses to run it)."""

from __future__ import annotations

from dataclasses import dataclass

from ._base import OptimizerArguments


@dataclass
class MuonOptimizerArguments(OptimizerArguments):
    """Muon hyper-parameters, with the AdamW fallback for parameters Muon does not take."""

    optimizer: str = "muon"
    momentum: float = 0.95
    nesterov: bool = True
    ns_steps: int = 5
    ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315)
    eps: float = 1e-7
    adjust_lr_fn: str = "original"
    fallback_betas: tuple[float, float] = (0.9, 0.999)
    fallback_eps: float = 1e-8

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(
                f"optimizers[{self.name}].adjust_lr_fn must be 'original' or "
                f"'match_rms_adamw', got {self.adjust_lr_fn!r}"
            )


__all__ = ["MuonOptimizerArguments"]
