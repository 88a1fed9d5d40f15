"""Prompt loader for generation trainers: groups of ``group_size`` copies of each prompt."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from .offline_dataset import _collate_condition
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


def get_train_dataloader(
    config: Any,
    accelerator: Any,
    preprocess_func: Callable[..., Mapping[str, Any]] | None = None,
    **kwargs: Any,
) -> tuple[DataLoader, dict[str, DataLoader]]:
    """Grouped prompt loader over every enabled train source; ``(loader, {})``."""
    if preprocess_func is None:
        raise ValueError("the prompt loader needs the adapter's preprocess_func, got None")
    prompts: list[str] = []
    for source in config.data_args.train_sources():
        prompts.extend(read_prompts(source.dataset_dir, source.train_split))
    if not prompts:
        raise ValueError("prompt dataset is empty: the train sources hold no prompts")
    encoded = preprocess_func(prompt=prompts)
    conditions = [
        {k: v[i] for k, v in encoded.items() if isinstance(v, (torch.Tensor, list))}
        for i in range(len(prompts))
    ]
    args = config.training_args
    sampler = GroupedPromptSampler(
        PromptDataset(conditions),
        unique=args.unique_sample_num_per_epoch,
        group_size=args.group_size,
        num_replicas=accelerator.num_processes,
        rank=accelerator.process_index,
        seed=int(args.seed),
    )
    loader = DataLoader(
        sampler.dataset,
        batch_size=int(args.per_device_batch_size),
        sampler=sampler,
        collate_fn=_collate_condition,
    )
    return loader, {}


__all__ = ["GroupedPromptSampler", "PromptDataset", "get_train_dataloader", "read_prompts"]
