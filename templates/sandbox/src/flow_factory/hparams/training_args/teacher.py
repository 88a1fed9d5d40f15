"""``TeacherConfig``: a frozen teacher source used by distillation algorithms."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..abc import ArgABC


@dataclass
class TeacherConfig(ArgABC):
    """One teacher: ``path`` (sandbox: ``"toy:seed=<n>"``), snapshot ``name``, datasets, CFG."""

    path: str = "toy:seed=1"
    name: str = "teacher"
    applicable_datasets: list[str] = field(default_factory=list)
    guidance_scale: float = 1.0


__all__ = ["TeacherConfig"]
