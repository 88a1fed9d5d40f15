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

"""Finite offline training loader: V2 JSONL -> cached conditions -> ``OfflineBatch``es."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.utils.data import DataLoader, DistributedSampler

from ..contracts.pipeline_io import MediaType, PipelineIOContract
from .offline_dataset import (
    _SUPERVISION_TYPES,
    DEFAULT_MEDIA_DECODERS,
    DecodedMedia,
    DemonstrationOutput,
    MediaDecoder,
    OfflineCollator,
    OfflineDataset,
    OfflineItem,
    PreferenceOutput,
)
from .schema import MediaAsset, MediaRef, NormalizedModelInput, _parse_record

_MEDIA_TYPES = tuple(media.value for media in MediaType)


def _checkout_root() -> Path:
    """The checkout root (parent of ``src/``)."""
    return Path(__file__).resolve().parents[3]


def _resolve_path(path: str, *bases: Path) -> Path:
    """First existing of ``path`` as given, under the checkout root, under ``bases``, under cwd."""
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate
    for base in (_checkout_root(), *bases, Path.cwd()):
        if (base / candidate).exists():
            return base / candidate
    return _checkout_root() / candidate


def _asset(ref: MediaRef, directory: Path) -> MediaAsset:
    return MediaAsset(type=ref.type, path=str(_resolve_path(ref.path, directory)))


def _read_source(source: Any) -> tuple[Path, list]:
    """Parse ``{dataset_dir}/{split}.jsonl`` of one source strictly."""
    directory = _resolve_path(source.dataset_dir)
    file = directory / f"{source.train.split}.jsonl"
    if not file.is_file():
        raise FileNotFoundError(f"dataset {source.name!r}: expected {file}, which does not exist")
    records = []
    for line_no, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = _parse_record(
            json.loads(line), where=f"{file}:{line_no}", default_id=f"{source.name}-{line_no}"
        )
        records.append(record)
        if source.train.max_dataset_size and len(records) >= int(source.train.max_dataset_size):
            break
    return directory, records


def _condition_id(model_input: NormalizedModelInput, extra_hash_strs: Sequence[str]) -> str:
    parts = [model_input.prompt, model_input.negative_prompt or "",
             *(asset.path for asset in model_input.media), *extra_hash_strs]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def _build_items(
    config: Any,
    preprocess_func: Callable[..., Mapping[str, Any]],
    *,
    supervision_type: str,
    pipeline_io_contract: Any,
    preprocess_kwargs: Mapping[str, Any],
    extra_hash_strs: Sequence[str],
    media_decoders: Mapping[str, MediaDecoder],
) -> list[OfflineItem]:
    items: list[OfflineItem] = []
    for source_id, source in enumerate(config.data_args.training_datasets):
        directory, records = _read_source(source)
        for record in records:
            if record.supervision_type != supervision_type:
                raise ValueError(
                    f"dataset {source.name!r} record {record.record_id!r}: expected "
                    f"{supervision_type!r} supervision, got {record.supervision_type!r}"
                )
            arms = tuple(
                tuple(
                    _decode(_asset(ref, directory), media_decoders, pipeline_io_contract)
                    for ref in arm
                )
                for arm in record.outputs
            )
            output: Any = (
                DemonstrationOutput(arms[0])
                if supervision_type == "demonstration"
                else PreferenceOutput(arms[0], arms[1])
            )
            model_input = NormalizedModelInput(
                prompt=record.prompt,
                negative_prompt=record.negative_prompt,
                media=tuple(_asset(ref, directory) for ref in record.input_media),
            )
            encoded = preprocess_func(prompt=[model_input.prompt], **preprocess_kwargs)
            condition = {
                k: (v[0] if isinstance(v, (torch.Tensor, list)) else v) for k, v in encoded.items()
            }
            items.append(
                OfflineItem(
                    condition=condition,
                    condition_id=_condition_id(model_input, extra_hash_strs),
                    record_id=record.record_id,
                    source=source.name,
                    source_id=source_id,
                    model_input=model_input,
                    supervision_type=supervision_type,
                    output=output,
                    metadata_json=record.metadata_json,
                )
            )
    return items


def _decode(asset: MediaAsset, decoders: Mapping[str, MediaDecoder], contract: Any):
    produced = () if contract is None else tuple(m.type.value for m in contract.output_media.items)
    if contract is not None and asset.type not in produced:
        raise ValueError(f"media type {asset.type!r} is not produced by the model ({contract})")
    if asset.type not in decoders:
        raise NotImplementedError(
            f"no decoder for media type {asset.type!r} ({asset.path}); have {sorted(decoders)}"
        )
    return DecodedMedia(
        type=asset.type,
        path=asset.path,
        payload=decoders[asset.type](asset),
        fps=asset.fps,
        sample_rate=asset.sample_rate,
    )


def build_offline_train_dataloader(
    config: Any,
    accelerator: Any,
    preprocess_func: Callable[..., Mapping[str, Any]],
    *,
    supervision_type: str,
    pipeline_io_contract: Any,
    preprocess_kwargs: Mapping[str, Any] | None = None,
    extra_hash_strs: Sequence[str] | None = None,
    media_decoders: Mapping[str, MediaDecoder] | None = None,
    shuffle: bool = True,
    sampler_drop_last: bool = False,
    batch_drop_last: bool = False,
    pin_memory: bool = False,
) -> DataLoader:
    """Finite loader with a ``DistributedSampler`` (never passed to ``accelerator.prepare``).

    ``media_decoders`` override ``DEFAULT_MEDIA_DECODERS`` per media type; a decoder takes one
    ``MediaAsset`` and returns the payload. Raises ``ValueError`` when the per-rank batch count
    does not divide by the explicit GAS.
    """
    if not isinstance(pipeline_io_contract, PipelineIOContract):
        raise TypeError(
            "pipeline_io_contract must be a PipelineIOContract, got "
            f"{type(pipeline_io_contract).__name__}"
        )
    if supervision_type not in _SUPERVISION_TYPES:
        raise ValueError(
            f"supervision_type must be one of {_SUPERVISION_TYPES}, got {supervision_type!r}"
        )
    decoders = dict(DEFAULT_MEDIA_DECODERS)
    for media_type, decoder in (media_decoders or {}).items():
        if media_type not in _MEDIA_TYPES or not callable(decoder):
            raise ValueError(
                f"media_decoders maps a type in {_MEDIA_TYPES} to a callable, got "
                f"{media_type!r}: {decoder!r}"
            )
        decoders[media_type] = decoder
    items = _build_items(
        config,
        preprocess_func,
        supervision_type=supervision_type,
        pipeline_io_contract=pipeline_io_contract,
        preprocess_kwargs=dict(preprocess_kwargs or {}),
        extra_hash_strs=tuple(extra_hash_strs or ()),
        media_decoders=decoders,
    )
    if not items:
        raise ValueError("offline training data is empty: the train sources hold no records")
    args = config.training_args
    dataset = OfflineDataset(items)
    sampler = DistributedSampler(
        dataset,
        num_replicas=accelerator.num_processes,
        rank=accelerator.process_index,
        shuffle=shuffle,
        seed=int(args.seed),
        drop_last=sampler_drop_last,
    )
    loader = DataLoader(
        dataset,
        batch_size=int(args.per_device_batch_size),
        sampler=sampler,
        collate_fn=OfflineCollator(supervision_type),
        drop_last=batch_drop_last,
        pin_memory=pin_memory,
    )
    gas = int(args.gradient_accumulation_steps)
    if len(loader) % gas:
        raise ValueError(
            f"per-rank batches per epoch ({len(loader)}) must be divisible by "
            f"train.gradient_accumulation_steps ({gas})"
        )
    return loader


__all__ = ["build_offline_train_dataloader"]
