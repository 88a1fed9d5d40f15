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

"""Sandbox-only prompt data behind ``get_train_dataloader`` (the real package has no such
module; real prompt datasets are ``data_utils.dataset.GeneralDataset`` with their samplers)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import torch
from torch.utils.data import Dataset, DistributedSampler

from .offline_train_data import _resolve_path


class PromptDataset(Dataset):
    """Prompts with their cached conditions."""

    def __init__(self, conditions: list[Mapping[str, Any]]) -> None:
        self.conditions = conditions

    def __len__(self) -> int:
        return len(self.conditions)

    def __getitem__(self, index: int) -> Mapping[str, Any]:
        return self.conditions[index]


class GroupedPromptSampler(DistributedSampler):
    """Per epoch: ``unique`` prompts drawn with ``seed + epoch``, each repeated ``group_size``
    times consecutively, then sharded by rank."""

    def __init__(self, dataset: Dataset, *, unique: int, group_size: int, **kwargs: Any):
        super().__init__(dataset, **kwargs)
        self.unique, self.group_size = int(unique), int(group_size)

    def __iter__(self) -> Iterator[int]:
        generator = torch.Generator().manual_seed(self.seed + self.epoch)
        n = len(self.dataset)
        picks = torch.randint(n, (self.unique,), generator=generator) if self.shuffle else (
            torch.arange(self.unique) % n
        )
        indices = picks.repeat_interleave(self.group_size).tolist()
        per_rank = len(indices) // self.num_replicas
        return iter(indices[self.rank * per_rank:(self.rank + 1) * per_rank])

    def __len__(self) -> int:
        return self.unique * self.group_size // self.num_replicas


def read_prompts(dataset_dir: str, split: str = "train") -> list[str]:
    """``{dataset_dir}/{split}.jsonl`` lines ``{"prompt": ...}`` or ``{split}.txt`` lines."""
    directory = _resolve_path(dataset_dir)
    jsonl, txt = directory / f"{split}.jsonl", directory / f"{split}.txt"
    if jsonl.is_file():
        return [json.loads(line)["prompt"] for line in jsonl.read_text().splitlines() if line]
    if txt.is_file():
        return [line.strip() for line in txt.read_text().splitlines() if line.strip()]
    raise FileNotFoundError(f"prompt dataset: expected {jsonl} or {txt}, neither exists")


__all__ = ["GroupedPromptSampler", "PromptDataset", "read_prompts"]
