"""Helpers shared by test modules (import as `tests.helpers`)."""

from __future__ import annotations

import os
from pathlib import Path

SPECS = {
    # family -> flags that classify into it (model type toy, so the sandbox can run it)
    "grpo": [
        "--acquisition",
        "generation",
        "--feedback",
        "runtime_reward",
        "--paradigm",
        "coupled",
    ],
    "awm": [
        "--acquisition",
        "generation",
        "--feedback",
        "runtime_reward",
        "--paradigm",
        "decoupled",
        "--ownership",
        "snapshots",
    ],
    "opd": ["--acquisition", "generation", "--feedback", "none"],
    "sft": ["--acquisition", "dataset", "--supervision", "demonstrations"],
    "offline_dpo": ["--acquisition", "dataset", "--supervision", "preference_pairs"],
    "record": ["--acquisition", "dataset", "--supervision", "record:CaptionRecord"],
}


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def tree(root: Path) -> dict[str, object]:
    """Everything under ``root`` without following links, keyed relative to it: file bytes,
    ``"dir"`` for folders, ``("link", target)`` for symlinks. Equal trees: nothing changed."""
    out: dict[str, object] = {}
    for here, folders, files in os.walk(root):
        for name in (*folders, *files):
            path = Path(here) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[key] = ("link", os.readlink(path))
            elif path.is_dir():
                out[key] = "dir"
            else:
                out[key] = path.read_bytes()
    return out
