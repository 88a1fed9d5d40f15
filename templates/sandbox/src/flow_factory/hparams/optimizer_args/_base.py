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

"""``OptimizerArguments`` (one ``optimizers:`` entry) and the ordered list of them."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..abc import ArgABC


@dataclass
class OptimizerArguments(ArgABC):
    """Fields every optimizer entry has (``optimizer`` picks the entry class, default adamw)."""

    name: str = "default"
    optimizer: str = "adamw"
    learning_rate: float = 1e-5
    weight_decay: float = 1e-4
    max_grad_norm: float = 1.0
    update_frequency: int = 1

    def __post_init__(self) -> None:
        self.learning_rate = float(self.learning_rate)
        self.weight_decay = float(self.weight_decay)
        self.max_grad_norm = float(self.max_grad_norm)
        if not math.isfinite(self.learning_rate) or self.learning_rate <= 0:
            raise ValueError(
                f"optimizers[{self.name}].learning_rate must be finite > 0, "
                f"got {self.learning_rate!r}"
            )


@dataclass
class MultiOptimizerArguments(ArgABC):
    """Ordered, uniquely named optimizer entries (``optimizers:`` in YAML)."""

    optimizer_configs: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.optimizer_configs = list(self.optimizer_configs)
        bad = [c for c in self.optimizer_configs if not isinstance(c, OptimizerArguments)]
        if bad:
            raise TypeError(f"optimizer_configs must hold OptimizerArguments, got {bad!r}")
        names = [entry.name for entry in self.optimizer_configs]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"optimizers names must be unique, got duplicates {duplicates}")

    @classmethod
    def from_dict(cls, args_input: Any) -> MultiOptimizerArguments:
        """Build from the YAML list (or one mapping); each entry through
        ``build_optimizer_args``."""
        from ._registry import build_optimizer_args

        items = [args_input] if isinstance(args_input, Mapping) else args_input
        if not isinstance(items, (list, tuple)):
            raise TypeError(f"optimizers must be a list of mappings, got {type(items).__name__}")
        return cls(optimizer_configs=[build_optimizer_args(item) for item in items])

    def get_by_name(self, name: str) -> OptimizerArguments | None:
        """Entry named ``name`` or None."""
        return next((e for e in self.optimizer_configs if e.name == name), None)

    def __len__(self) -> int:
        return len(self.optimizer_configs)

    def __iter__(self) -> Iterator[OptimizerArguments]:
        return iter(self.optimizer_configs)

    def __getitem__(self, index: int) -> OptimizerArguments:
        return self.optimizer_configs[index]


__all__ = ["MultiOptimizerArguments", "OptimizerArguments"]
