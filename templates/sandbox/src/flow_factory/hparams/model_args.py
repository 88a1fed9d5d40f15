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

"""Model argument group (``model:`` in YAML)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .abc import ArgABC

# The sandbox has one trainable component.
_COMPONENTS = ("transformer",)
_MODULE_WORDS = ("all", "default")


@dataclass
class ModelArguments(ArgABC):
    """Which adapter to build and how to finetune it (the toy model's own ``hidden_dim`` is an
    extra key, read from ``extra_kwargs``)."""

    model_type: str = "toy"
    model_name_or_path: str = "toy:seed=0"
    # As in the real class: full finetuning, rank 8, alpha 2 x rank, and LoRA on "all", which
    # the toy model (like SD3.5 in the real framework) refuses: a config must say "default".
    finetune_type: str = "full"
    lora_rank: int = 8
    lora_alpha: float | None = None
    target_components: str | list[str] = "transformer"
    target_modules: str | list[str] = "all"
    trainable_parameters_dtype: str = "fp32"
    frozen_parameters_dtype: Any = None
    component_load_dtypes: Any = None
    resume_path: str | None = None
    resume_type: str | None = None

    def __post_init__(self) -> None:
        if self.finetune_type not in ("lora", "full"):
            raise ValueError(
                f"model.finetune_type must be 'lora' or 'full', got {self.finetune_type!r}"
            )
        if isinstance(self.lora_rank, bool) or not isinstance(self.lora_rank, int):
            raise ValueError(f"model.lora_rank must be an int >= 1, got {self.lora_rank!r}")
        # The real field's values (Literal["lora", "full", "state"] or null to detect).
        if self.resume_type not in (None, "lora", "full", "state"):
            raise ValueError(
                "model.resume_type must be null, 'lora', 'full' or 'state', "
                f"got {self.resume_type!r}"
            )
        if self.lora_rank < 1:
            raise ValueError(f"model.lora_rank must be an int >= 1, got {self.lora_rank!r}")
        if self.lora_alpha is None:
            self.lora_alpha = 2 * self.lora_rank
        # "all" and "default" are words the loader resolves; any other name is one module.
        if isinstance(self.target_modules, str) and self.target_modules not in _MODULE_WORDS:
            self.target_modules = [self.target_modules]
        components = (
            [self.target_components] if isinstance(self.target_components, str)
            else list(self.target_components)
        )
        unknown = [c for c in components if c not in _COMPONENTS]
        if unknown:
            raise ValueError(
                f"model.target_components {unknown} are not components of the sandbox model "
                f"(it has {list(_COMPONENTS)})"
            )


__all__ = ["ModelArguments"]
