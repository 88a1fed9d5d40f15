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

"""One ``data.datasets`` entry: a source with its train and eval splits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .abc import ArgABC


@dataclass
class DatasetTrainSpec(ArgABC):
    """The ``train:`` part of a source (``enabled: false`` or ``train: null`` disables it)."""

    enabled: bool = True
    split: str = "train"
    weight: int = 1
    max_dataset_size: int | None = None


@dataclass
class DatasetEvalSpec(ArgABC):
    """The ``eval:`` part of a source; unset overrides fall back to the ``eval:`` group."""

    enabled: bool = True
    split: str = "test"
    max_dataset_size: int | None = None
    resolution: int | tuple[int, int] | list[int] | None = None
    num_inference_steps: int | None = None
    guidance_scale: float | None = None

    def get_merged_eval_kwargs(self, base_eval_args: Any) -> dict[str, Any]:
        """The ``eval:`` group's sampling values with this source's overrides on top."""
        merged = {**base_eval_args}
        for name in ("resolution", "num_inference_steps", "guidance_scale"):
            if getattr(self, name) is not None:
                merged[name] = getattr(self, name)
        return merged


@dataclass
class DatasetArguments(ArgABC):
    """A named source: ``dataset_dir`` (relative to the checkout root, then the cwd), media
    folders, and its ``train``/``eval`` specs."""

    name: str = "default"
    dataset_dir: str = ""
    image_dir: str | None = None
    video_dir: str | None = None
    audio_dir: str | None = None
    train: DatasetTrainSpec | None = field(default_factory=DatasetTrainSpec)
    eval: DatasetEvalSpec | None = None
    source_id: int | None = None

    def __post_init__(self) -> None:
        self.train = _spec(self.train, DatasetTrainSpec, f"{self.name}.train")
        self.eval = _spec(self.eval, DatasetEvalSpec, f"{self.name}.eval")

    @property
    def is_training_source(self) -> bool:
        """True when the train split is configured and enabled."""
        return self.train is not None and self.train.enabled is not False

    @property
    def is_eval_source(self) -> bool:
        """True when the eval split is configured and enabled."""
        return self.eval is not None and self.eval.enabled is not False

    def get_dataset_overrides(self) -> dict[str, Any]:
        """The media folders this source sets (to override the ``data:`` group's)."""
        folders = ("image_dir", "video_dir", "audio_dir")
        return {k: getattr(self, k) for k in folders if getattr(self, k) is not None}


def _spec(value: Any, cls: type, where: str) -> Any:
    if value is None or isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"data.datasets[{where}] must be a mapping or null, got {value!r}")
    return cls.from_dict(value)


__all__ = ["DatasetArguments", "DatasetEvalSpec", "DatasetTrainSpec"]
