"""Per-item samples and their stacked batches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import torch

_STACK_FIELDS = (
    "prompt_embeds",
    "latents",
    "latent_index_map",
    "timesteps",
    "log_probs",
    "image",
)


@dataclass
class BaseSample:
    """One generated item: prompt, trajectory tensors and free-form ``extra_kwargs``.

    Attribute access falls back to ``extra_kwargs`` (``sample.advantage``).
    """

    prompt: str | None = None
    prompt_embeds: torch.Tensor | None = None
    image: torch.Tensor | None = None
    height: int | None = None
    width: int | None = None
    latents: torch.Tensor | None = None
    latent_index_map: torch.Tensor | None = None
    timesteps: torch.Tensor | None = None
    log_probs: torch.Tensor | None = None
    source: str | None = None
    extra_kwargs: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        extra = self.__dict__.get("extra_kwargs") or {}
        if name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def to(self, device: Any) -> BaseSample:
        """Move tensors (fields and extras) to ``device`` in place; returns ``self``."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, torch.Tensor):
                setattr(self, f.name, value.to(device))
        for key, value in self.extra_kwargs.items():
            if isinstance(value, torch.Tensor):
                self.extra_kwargs[key] = value.to(device)
        return self

    @staticmethod
    def stack(samples: Sequence[BaseSample]) -> StackedSampleBatch:
        """Stack tensor fields on dim 0 and lift extras (``batch["advantage"]`` is ``(B,)``)."""
        if not samples:
            raise ValueError("BaseSample.stack needs at least one sample, got none")
        batch = StackedSampleBatch(samples=list(samples))
        batch["prompt"] = [s.prompt for s in samples]
        for name in _STACK_FIELDS:
            values = [getattr(s, name) for s in samples]
            if all(isinstance(v, torch.Tensor) for v in values):
                batch[name] = torch.stack(values, dim=0)
        for key in samples[0].extra_kwargs:
            values = [s.extra_kwargs.get(key) for s in samples]
            if all(isinstance(v, torch.Tensor) for v in values):
                batch[key] = torch.stack([torch.as_tensor(v) for v in values], dim=0)
            elif all(isinstance(v, (int, float)) for v in values):
                batch[key] = torch.tensor(values, dtype=torch.float32)
            else:
                batch[key] = values
        return batch


class StackedSampleBatch(dict):
    """A dict of stacked sample fields; ``.samples`` keeps the original list."""

    def __init__(self, *args: Any, samples: list[BaseSample] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.samples = list(samples or [])

    def __len__(self) -> int:  # number of items, not of keys: trainers ask for batch size
        return len(self.samples) if self.samples else dict.__len__(self)

    def to(self, device: Any) -> StackedSampleBatch:
        """Move stacked tensors to ``device`` in place; returns ``self``."""
        for key, value in list(self.items()):
            if isinstance(value, torch.Tensor):
                self[key] = value.to(device)
        return self


__all__ = ["BaseSample", "StackedSampleBatch"]
