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

"""Per-item samples and their stacked batches."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import torch

from .trajectory import LatentState


@dataclass
class BaseSample:
    """One generated item: prompt, media, rollout trajectory and free-form ``extra_kwargs``.

    Trajectory fields follow Flow-Factory's single-component layout: ``all_latents`` holds the
    kept rollout positions ``(stored, ...)``; ``latent_index_map`` ``(T + 1,)`` maps each rollout
    position to its stored row (-1: not kept); ``timesteps`` ``(T + 1,)``; ``log_probs``
    ``(stored_steps,)`` with ``log_prob_index_map`` ``(T,)``. Attribute access falls back to
    ``extra_kwargs`` (``sample.advantage``).
    """

    #: Fields every sample of a batch shares: stacking keeps one copy instead of a batch axis.
    _shared_fields: ClassVar[frozenset[str]] = frozenset(
        {"height", "width", "latent_index_map", "log_prob_index_map"}
    )

    prompt: str | None = None
    prompt_ids: torch.Tensor | None = None
    prompt_embeds: torch.Tensor | None = None
    negative_prompt: str | None = None
    negative_prompt_ids: torch.Tensor | None = None
    negative_prompt_embeds: torch.Tensor | None = None
    image: Any = None
    video: Any = None
    audio: torch.Tensor | None = None
    audio_sample_rate: int | None = None
    height: int | None = None
    width: int | None = None
    all_latents: torch.Tensor | None = None
    latent_index_map: torch.Tensor | None = None
    timesteps: torch.Tensor | None = None
    log_probs: torch.Tensor | None = None
    log_prob_index_map: torch.Tensor | None = None
    trajectory: Any = None
    source: str | None = None
    source_id: int | None = None
    applicable_rewards: set[str] = field(default_factory=set)
    extra_kwargs: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, key: str) -> Any:
        extra = self.__dict__.get("extra_kwargs") or {}
        if key in extra:
            return extra[key]
        raise AttributeError(f"{type(self).__name__} has no attribute {key!r}")

    def to(
        self,
        device: torch.device | str,
        depth: int = 1,
        non_blocking: bool = False,
        pin_memory: bool = False,
    ) -> BaseSample:
        """Move tensors (fields and, ``depth`` containers deep, extras) to ``device`` in place;
        returns ``self``."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "extra_kwargs":
                setattr(self, f.name, _moved(value, device, depth, non_blocking, pin_memory))
        self.extra_kwargs = {
            key: _moved(value, device, depth, non_blocking, pin_memory)
            for key, value in self.extra_kwargs.items()
        }
        return self

    @classmethod
    def shared_fields(cls) -> frozenset[str]:
        """Field names stacking keeps once per batch."""
        return cls._shared_fields

    @classmethod
    def stack(cls, samples: list[BaseSample]) -> StackedSampleBatch:
        """Stack tensor fields on dim 0, keep shared fields once, lift extras
        (``batch["advantage"]`` is ``(B,)``); other values become lists."""
        if not samples:
            raise ValueError("BaseSample.stack needs at least one sample, got none")
        batch = StackedSampleBatch(list(samples))
        shared = cls.shared_fields()
        for f in fields(samples[0]):
            if f.name == "extra_kwargs":
                continue
            values = [getattr(s, f.name) for s in samples]
            if all(v is None for v in values):
                continue
            batch[f.name] = _shared_value(f.name, values) if f.name in shared else _stacked(values)
        for key in samples[0].extra_kwargs:
            batch[key] = _stacked([s.extra_kwargs.get(key) for s in samples], numbers=True)
        return batch


class StackedSampleBatch(dict):
    """A dict of stacked sample fields; ``.samples`` keeps the original list. ``len()`` is the
    number of keys (as for any dict): the batch size is ``len(batch.samples)``."""

    def __init__(self, samples: list[BaseSample]) -> None:
        super().__init__()
        self.samples = list(samples)

    def __getattr__(self, name: str) -> Any:
        if name in self:
            return self[name]
        raise AttributeError(f"{type(self).__name__} has no attribute or key {name!r}")

    @property
    def sample_cls(self) -> type[BaseSample]:
        """Class of the stacked samples."""
        return type(self.samples[0]) if self.samples else BaseSample


def _moved(value: Any, device: Any, depth: int, non_blocking: bool, pin_memory: bool) -> Any:
    if isinstance(value, torch.Tensor):
        if pin_memory and torch.device(device).type == "cpu" and torch.cuda.is_available():
            return value.pin_memory()
        return value.to(device, non_blocking=non_blocking)
    if isinstance(value, LatentState):
        moved = {k: v.to(device, non_blocking=non_blocking) for k, v in value.components.items()}
        return LatentState(moved, active_masks=value.active_masks)
    if depth > 0 and isinstance(value, dict):
        return {k: _moved(v, device, depth - 1, non_blocking, pin_memory) for k, v in value.items()}
    if depth > 0 and isinstance(value, list):
        return [_moved(v, device, depth - 1, non_blocking, pin_memory) for v in value]
    return value


def _shared_value(name: str, values: list[Any]) -> Any:
    """The one value every sample holds for a shared field."""
    first = values[0]
    for value in values[1:]:
        same = torch.equal(first, value) if isinstance(first, torch.Tensor) and isinstance(
            value, torch.Tensor
        ) else first == value
        if not same:
            raise ValueError(f"samples disagree on shared field {name!r}: {first!r} vs {value!r}")
    return first


def _stacked(values: list[Any], numbers: bool = False) -> Any:
    """Tensors stacked on dim 0; (for extras) numbers as a float tensor; else the list."""
    if all(isinstance(v, torch.Tensor) for v in values):
        return torch.stack([torch.as_tensor(v) for v in values], dim=0)
    if numbers and all(isinstance(v, (int, float)) for v in values):
        return torch.tensor(values, dtype=torch.float32)
    return values


__all__ = ["BaseSample", "StackedSampleBatch"]
