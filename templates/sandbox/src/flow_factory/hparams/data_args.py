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

"""Data argument group (``data:`` in YAML)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .abc import ArgABC
from .dataset_args import DatasetArguments


@dataclass
class DataArguments(ArgABC):
    """Training / evaluation sources and preprocessing switches (the sandbox preprocesses
    in memory: the cache and parallelism fields are accepted and unused)."""

    datasets: list[DatasetArguments] | None = field(default_factory=list)
    dataset_dir: str = ""
    image_dir: str | None = None
    video_dir: str | None = None
    audio_dir: str | None = None
    cache_dir: str = ".cache/flow_factory"
    enable_preprocess: bool = True
    force_reprocess: bool = False
    preprocessing_batch_size: int = 8
    preprocess_parallelism: str = "local"
    dataloader_num_workers: int = 0
    max_dataset_size: int | None = None
    sampler_type: str = "auto"

    def __post_init__(self) -> None:
        self.datasets = [
            d if isinstance(d, DatasetArguments) else DatasetArguments.from_dict(d)
            for d in (self.datasets or [])
        ]
        for source_id, source in enumerate(self.datasets):
            if source.source_id is None:
                source.source_id = source_id

    @property
    def training_datasets(self) -> list[DatasetArguments]:
        """Sources whose train split is enabled."""
        return [d for d in self.datasets if d.is_training_source]

    @property
    def eval_datasets(self) -> list[DatasetArguments]:
        """Sources whose eval split is enabled."""
        return [d for d in self.datasets if d.is_eval_source]

    @property
    def source_id_to_name(self) -> list[str]:
        """Source names by source id."""
        return [d.name for d in sorted(self.datasets, key=lambda d: d.source_id)]

    @property
    def source_name_to_id(self) -> dict[str, int]:
        """Source ids by name."""
        return {d.name: d.source_id for d in self.datasets}


__all__ = ["DataArguments"]
