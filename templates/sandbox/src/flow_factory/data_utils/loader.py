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

"""Prompt loader for generation trainers: groups of ``group_size`` copies of each prompt."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch.utils.data import DataLoader

from .offline_dataset import _collate_condition
from .sandbox_prompts import GroupedPromptSampler, PromptDataset, read_prompts


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
    for source in config.data_args.training_datasets:
        prompts.extend(read_prompts(source.dataset_dir, source.train.split))
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


__all__ = ["get_train_dataloader"]
