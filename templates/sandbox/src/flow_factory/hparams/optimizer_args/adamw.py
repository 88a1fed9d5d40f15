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
