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

"""``TeacherConfig``: a frozen teacher source used by distillation algorithms."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..abc import ArgABC


@dataclass
class TeacherConfig(ArgABC):
    """One teacher: ``path`` (sandbox: ``"toy:seed=<n>"``), snapshot ``name`` (None: the
    algorithm names it), the datasets it is distilled on, its CFG scale (None: the student's)."""

    path: str = "toy:seed=1"
    name: str | None = None
    applicable_datasets: list[str] = field(default_factory=list)
    guidance_scale: float | None = None


__all__ = ["TeacherConfig"]
