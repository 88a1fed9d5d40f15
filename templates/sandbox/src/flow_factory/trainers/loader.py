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

"""``load_trainer``: resolve both registries, check contracts, then build the runtime."""

from __future__ import annotations

from typing import Any

from ..hparams.training_args import get_training_args_class
from ..models.loader import load_model
from ..models.registry import get_model_adapter_class
from .registry import get_trainer_class


def _resolve_trainer_class(config: Any) -> type:
    """Trainer class for ``config``; contracts are checked without building anything."""
    key = config.training_args.trainer_type
    args_cls = get_training_args_class(key)
    trainer_cls = get_trainer_class(key)
    if not isinstance(config.training_args, args_cls):
        raise TypeError(
            f"train.trainer_type {key!r} needs {args_cls.__name__}, "
            f"got {type(config.training_args).__name__}"
        )
    if args_cls.execution_contract != trainer_cls.execution_contract:
        raise ValueError(
            f"execution contract mismatch for {key!r}: {args_cls.__name__} declares "
            f"{args_cls.execution_contract}, {trainer_cls.__name__} declares "
            f"{trainer_cls.execution_contract}"
        )
    trainer_cls.validate_training_arguments_contract(config.training_args)
    trainer_cls.validate_adapter_class_execution_contract(
        get_model_adapter_class(config.model_args.model_type)
    )
    return trainer_cls


def load_trainer(config: Any) -> Any:
    """Check contracts (before any Accelerator/model work), then build accelerator, adapter,
    trainer (keyword arguments ``accelerator``, ``config``, ``adapter``)."""
    trainer_cls = _resolve_trainer_class(config)
    from accelerate import Accelerator
    from accelerate.utils import set_seed

    set_seed(int(config.training_args.seed))
    accelerator = Accelerator(
        cpu=not _use_cuda(),
        mixed_precision=config.mixed_precision,
        gradient_accumulation_steps=int(config.training_args.gradient_accumulation_steps),
    )
    adapter = load_model(config, accelerator)
    return trainer_cls(accelerator=accelerator, config=config, adapter=adapter)


def _use_cuda() -> bool:
    """CUDA when present, as ``accelerate`` picks the device for the real framework;
    ``FLOW_FACTORY_SANDBOX_DEVICE=cpu`` (or ``cuda``) pins it (a sandbox-only switch)."""
    import os

    import torch

    wanted = os.environ.get("FLOW_FACTORY_SANDBOX_DEVICE", "auto").lower()
    if wanted not in ("auto", "cpu", "cuda"):
        raise ValueError(f"FLOW_FACTORY_SANDBOX_DEVICE must be auto, cpu or cuda, got {wanted!r}")
    if wanted == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("FLOW_FACTORY_SANDBOX_DEVICE=cuda but torch sees no CUDA device")
    return wanted == "cuda" or (wanted == "auto" and torch.cuda.is_available())


__all__ = ["load_trainer"]
