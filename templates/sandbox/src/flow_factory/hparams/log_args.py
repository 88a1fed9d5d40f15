"""Logging / checkpoint argument group (``log:`` in YAML)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC


@dataclass
class LogArguments(ArgABC):
    """Where checkpoints go and how often; the sandbox logs in memory only."""

    project: str = "flow-factory-sandbox"
    run_name: str = "sandbox"
    save_dir: str | None = None
    save_freq: int = 0
    logging_backend: str = "none"
    verbose: bool = False
    save_model_only: bool = False


__all__ = ["LogArguments"]
