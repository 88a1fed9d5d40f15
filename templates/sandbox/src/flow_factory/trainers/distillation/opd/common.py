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

"""Teacher loading for on-policy distillation (sandbox miniature of the OPD helpers).

A teacher is external LoRA weights sharing the student's LoRA architecture. Each is loaded into
the student's live LoRA parameters, captured as a named snapshot, and the student's own weights
are put back, so ``adapter.use_named_parameters(name)`` swaps the teacher in later.
"""

from __future__ import annotations

from typing import Any

import torch

from ....models.abc import BaseAdapter


def load_teachers(
    adapter: BaseAdapter,
    teacher_paths: list[str],
    teacher_param_device: str,
    teacher_names: list[str | None] | None = None,
) -> list[str]:
    """Load every teacher LoRA into its own named snapshot; returns the snapshot names.

    Args:
        adapter: A LoRA-finetuned adapter with the student's LoRA attached.
        teacher_paths: One checkpoint location per teacher (non-empty).
        teacher_param_device: Where the snapshots live (``"cpu"`` or ``"cuda"``).
        teacher_names: Optional snapshot name per teacher; missing ones become
            ``opd_teacher_<i>``.

    Returns:
        The snapshot names, in the order of ``teacher_paths``.
    """
    if not teacher_paths:
        raise ValueError(f"expected at least one teacher path, received {list(teacher_paths)!r}")
    if adapter.model_args.finetune_type != "lora":
        raise ValueError(
            "teachers load into the student's LoRA slot, so model.finetune_type must be 'lora', "
            f"received {adapter.model_args.finetune_type!r}"
        )
    components = [name for name, modules in adapter.target_module_map.items() if modules]
    names = []
    for index, path in enumerate(teacher_paths):
        given = teacher_names[index] if teacher_names and index < len(teacher_names) else None
        name = given or f"opd_teacher_{index}"
        _load_one(adapter, name, path, components, teacher_param_device)
        names.append(name)
    return names


def _load_one(adapter: Any, name: str, path: str, components: list[str], device: str) -> None:
    live = adapter._get_component_parameters(components)
    student = [p.detach().clone() for p in live]
    try:
        adapter._load_lora(adapter._resolve_checkpoint_path(path))
        adapter.add_named_parameters(
            name, target_components=components, device=device, overwrite=True
        )
    finally:
        # The student's weights come back whatever happened while the teacher was loaded.
        with torch.no_grad():
            for param, saved in zip(live, student, strict=True):
                param.data.copy_(saved.to(param.device))


__all__ = ["load_teachers"]
