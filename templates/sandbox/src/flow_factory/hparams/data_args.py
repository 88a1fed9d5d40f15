"""Data argument group (``data:`` in YAML)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .abc import ArgABC


@dataclass
class DatasetSourceArguments(ArgABC):
    """One entry of ``data.datasets``."""

    name: str = "default"
    dataset_dir: str = ""
    train: dict[str, Any] | None = field(default_factory=dict)
    eval: dict[str, Any] | None = field(default_factory=dict)

    @property
    def train_enabled(self) -> bool:
        """True when the train split is configured (not null / not ``enabled: false``)."""
        return self.train is not None and self.train.get("enabled", True) is not False

    @property
    def train_split(self) -> str:
        """Split file stem (``train`` -> ``train.jsonl``)."""
        return str((self.train or {}).get("split", "train"))

    @property
    def train_weight(self) -> Any:
        """Sampling weight of this source."""
        return (self.train or {}).get("weight", 1)

    @property
    def max_dataset_size(self) -> int | None:
        """Optional cap on records read from this source."""
        return (self.train or {}).get("max_dataset_size")


@dataclass
class DataArguments(ArgABC):
    """Training / evaluation sources and preprocessing switches."""

    datasets: list[DatasetSourceArguments] = field(default_factory=list)
    enable_preprocess: bool = True
    sampler_type: str = "auto"
    dataloader_num_workers: int = 0

    def __post_init__(self) -> None:
        self.datasets = [
            d if isinstance(d, DatasetSourceArguments) else DatasetSourceArguments.from_dict(d)
            for d in (self.datasets or [])
        ]

    def train_sources(self) -> list[DatasetSourceArguments]:
        """Sources whose train split is enabled."""
        return [d for d in self.datasets if d.train_enabled]


__all__ = ["DataArguments", "DatasetSourceArguments"]
