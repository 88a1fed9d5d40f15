"""Helpers shared by test modules (import as `tests.helpers`)."""

from __future__ import annotations

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
