"""Helpers: copy ``templates/sandbox`` and train on the copy in a subprocess."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[2] / "templates" / "sandbox"
CYCLE_LINE = re.compile(r"^cycle=(\d+) loss=(\S+)(?: reward=(\S+))?$")


def copy_sandbox(dest: Path) -> Path:
    """Copy the sandbox checkout (without bytecode caches) to ``dest``."""
    shutil.copytree(TEMPLATE, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def run_train(root: Path, config: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -m flow_factory.train CONFIG`` in a fresh interpreter on the copy."""
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "flow_factory.train", str(config)],
        cwd=root, env=env, capture_output=True, text=True, timeout=timeout,
    )


def parse_cycles(stdout: str) -> list[tuple[int, float, float | None]]:
    """``(cycle, loss, reward)`` per progress line."""
    rows = []
    for line in stdout.splitlines():
        match = CYCLE_LINE.match(line.strip())
        if match:
            reward = float(match.group(3)) if match.group(3) else None
            rows.append((int(match.group(1)), float(match.group(2)), reward))
    return rows
