"""Optimizer arguments: one entry per ``optimizers:`` item (one per trainable role)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..abc import ArgABC


@dataclass
class OptimizerArguments(ArgABC):
    """Common optimizer fields."""

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
class AdamWOptimizerArguments(OptimizerArguments):
    """AdamW hyper-parameters."""

    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8

    def __post_init__(self) -> None:
        super().__post_init__()
        self.betas = (float(self.betas[0]), float(self.betas[1]))
        self.eps = float(self.eps)


@dataclass
class MuonOptimizerArguments(OptimizerArguments):
    """Placeholder for the Muon optimizer (not runnable in the sandbox)."""

    optimizer: str = "muon"
    momentum: float = 0.95


_OPTIMIZER_CLASSES: dict[str, type[OptimizerArguments]] = {
    "adamw": AdamWOptimizerArguments,
    "muon": MuonOptimizerArguments,
}


@dataclass
class MultiOptimizerArguments:
    """Ordered, uniquely named optimizer entries."""

    entries: tuple[OptimizerArguments, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        names = [entry.name for entry in self.entries]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"optimizers names must be unique, got duplicates {duplicates}")

    @classmethod
    def from_list(cls, items: Sequence[Mapping[str, Any]]) -> MultiOptimizerArguments:
        """Build from the YAML list; ``optimizer`` picks the entry class (default adamw)."""
        entries = []
        for item in items:
            if not isinstance(item, Mapping):
                raise TypeError(f"optimizers entries must be mappings, got {type(item)!r}")
            kind = str(item.get("optimizer", "adamw")).lower()
            if kind not in _OPTIMIZER_CLASSES:
                raise ValueError(
                    f"optimizers[].optimizer must be one of {sorted(_OPTIMIZER_CLASSES)}, "
                    f"got {kind!r}"
                )
            entries.append(_OPTIMIZER_CLASSES[kind].from_dict(item))
        return cls(entries=tuple(entries))

    def get_by_name(self, name: str) -> OptimizerArguments | None:
        """Entry named ``name`` or None."""
        return next((e for e in self.entries if e.name == name), None)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[OptimizerArguments]:
        return iter(self.entries)

    def __getitem__(self, index: int) -> OptimizerArguments:
        return self.entries[index]


__all__ = [
    "AdamWOptimizerArguments",
    "MultiOptimizerArguments",
    "MuonOptimizerArguments",
    "OptimizerArguments",
]
