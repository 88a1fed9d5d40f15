"""Reward argument entries (``rewards:`` / ``eval_rewards:`` lists in YAML)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC


@dataclass
class RewardArguments(ArgABC):
    """One reward model with its aggregation weight."""

    name: str = "reward"
    reward_model: str = "toy_target"
    weight: float = 1.0
    batch_size: int = 16
    device: str = "cpu"
    dtype: str = "float32"
    async_reward: bool = False
    num_workers: int = 1
    applicable_datasets: list[str] | None = None

    def __post_init__(self) -> None:
        self.weight = float(self.weight)


__all__ = ["RewardArguments"]
