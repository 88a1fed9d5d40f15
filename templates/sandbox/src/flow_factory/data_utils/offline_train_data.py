"""Finite offline training loader: V2 JSONL -> cached conditions -> ``OfflineBatch``es."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.utils.data import DataLoader, DistributedSampler

from .offline_dataset import (
    SUPERVISION_TYPES,
    DecodedMedia,
    OfflineDataset,
    OfflineItem,
    collate_offline_items,
)
from .schema import MediaRef, NormalizedRecord, parse_record


def checkout_root() -> Path:
    """The checkout root (parent of ``src/``)."""
    return Path(__file__).resolve().parents[3]


def resolve_path(path: str, *bases: Path) -> Path:
    """First existing of ``path`` as given, under the checkout root, under ``bases``, under cwd."""
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate
    for base in (checkout_root(), *bases, Path.cwd()):
        if (base / candidate).exists():
            return base / candidate
    return checkout_root() / candidate


def decode_json_media(ref: MediaRef, path: Path) -> DecodedMedia:
    """Toy media: a JSON list of floats -> ``DecodedMedia(payload=Tensor)``."""
    values = json.loads(path.read_text())
    return DecodedMedia(type=ref.type, path=str(path), payload=torch.tensor(values).float())


def read_records(source: Any) -> tuple[Path, list[NormalizedRecord]]:
    """Parse ``{dataset_dir}/{split}.jsonl`` of one source strictly."""
    directory = resolve_path(source.dataset_dir)
    file = directory / f"{source.train_split}.jsonl"
    if not file.is_file():
        raise FileNotFoundError(f"dataset {source.name!r}: expected {file}, which does not exist")
    records = []
    for line_no, line in enumerate(file.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        record = parse_record(
            json.loads(line), where=f"{file}:{line_no}", default_id=f"{source.name}-{line_no}"
        )
        records.append(record)
        if source.max_dataset_size and len(records) >= int(source.max_dataset_size):
            break
    return directory, records


def _condition_id(prompt: str, extra_hash_strs: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join([prompt, *extra_hash_strs]).encode()).hexdigest()[:16]


def _build_items(
    config: Any,
    preprocess_func: Callable[..., Mapping[str, Any]],
    *,
    supervision_type: str,
    pipeline_io_contract: Any,
    preprocess_kwargs: Mapping[str, Any],
    extra_hash_strs: Sequence[str],
    media_decoders: Mapping[str, Callable[[MediaRef, Path], DecodedMedia]],
) -> list[OfflineItem]:
    items: list[OfflineItem] = []
    for source_id, source in enumerate(config.data_args.train_sources()):
        directory, records = read_records(source)
        for record in records:
            if record.supervision_type != supervision_type:
                raise ValueError(
                    f"dataset {source.name!r} record {record.record_id!r}: expected "
                    f"{supervision_type!r} supervision, got {record.supervision_type!r}"
                )
            outputs = tuple(
                tuple(_decode(ref, directory, media_decoders, pipeline_io_contract) for ref in arm)
                for arm in record.outputs
            )
            prompt = record.model_input.prompt
            encoded = preprocess_func(prompt=[prompt], **preprocess_kwargs)
            condition = {
                k: (v[0] if isinstance(v, (torch.Tensor, list)) else v) for k, v in encoded.items()
            }
            items.append(
                OfflineItem(
                    condition=condition,
                    condition_id=_condition_id(prompt, extra_hash_strs),
                    record_id=record.record_id,
                    source=source.name,
                    source_id=source_id,
                    model_input=record.model_input,
                    supervision_type=record.supervision_type,
                    outputs=outputs,
                    metadata=record.metadata,
                )
            )
    return items


def _decode(ref: MediaRef, directory: Path, decoders: Mapping[str, Any], contract: Any):
    if contract is not None and not contract.accepts_output(ref.type):
        raise ValueError(f"media type {ref.type!r} is not produced by the model ({contract})")
    if ref.type not in decoders:
        raise ValueError(f"no decoder for media type {ref.type!r}; have {sorted(decoders)}")
    return decoders[ref.type](ref, resolve_path(ref.path, directory))


def build_offline_train_dataloader(
    config: Any,
    accelerator: Any,
    preprocess_func: Callable[..., Mapping[str, Any]],
    *,
    supervision_type: str,
    pipeline_io_contract: Any,
    preprocess_kwargs: Mapping[str, Any] | None = None,
    extra_hash_strs: Sequence[str] | None = None,
    media_decoders: Mapping[str, Callable[[MediaRef, Path], DecodedMedia]] | None = None,
    shuffle: bool = True,
    sampler_drop_last: bool = False,
    batch_drop_last: bool = False,
    pin_memory: bool = False,
) -> DataLoader:
    """Finite loader with a ``DistributedSampler`` (never passed to ``accelerator.prepare``).

    Raises ``ValueError`` when the per-rank batch count does not divide by the explicit GAS.
    """
    if supervision_type not in SUPERVISION_TYPES:
        raise ValueError(
            f"supervision_type must be one of {SUPERVISION_TYPES}, got {supervision_type!r}"
        )
    items = _build_items(
        config,
        preprocess_func,
        supervision_type=supervision_type,
        pipeline_io_contract=pipeline_io_contract,
        preprocess_kwargs=dict(preprocess_kwargs or {}),
        extra_hash_strs=tuple(extra_hash_strs or ()),
        media_decoders=dict(media_decoders or {"image": decode_json_media}),
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
        collate_fn=collate_offline_items,
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


__all__ = [
    "build_offline_train_dataloader",
    "checkout_root",
    "decode_json_media",
    "read_records",
    "resolve_path",
]
