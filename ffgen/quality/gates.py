"""The stage over all points at once: ruff (one run per tool), and whether the suites can run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ffgen.quality.points import Failure, PointResult
from ffgen.quality.stages import one_line

LINE_LENGTH = "100"
RUFF_CHECK = (
    "check",
    "--isolated",
    "--select",
    "E,F,W,I,B,UP",
    "--config",
    "lint.isort.known-first-party = ['flow_factory']",
    "--line-length",
    LINE_LENGTH,
    "--target-version",
    "py310",
    "--output-format",
    "concise",
)
RUFF_FORMAT = (
    "format",
    "--check",
    "--isolated",
    "--line-length",
    LINE_LENGTH,
    "--target-version",
    "py310",
)


def ruff_command() -> list[str] | None:
    """How to run ruff here: this interpreter's ruff module, else a ruff on PATH."""
    import importlib.util

    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    return [found] if found else None


def run_ruff(work: Path, points: list[PointResult], skipped: dict[str, str]) -> None:
    ruff = ruff_command()
    if ruff is None:
        reason = "ruff is not installed (pip install ruff, or ffgen[test])"
        skipped["ruff-format"] = skipped["ruff-check"] = reason
        return
    _ruff_stage(
        work, points, "ruff-format", [*ruff, *RUFF_FORMAT], lambda p: (*p.rendered, *p.edited)
    )
    _ruff_stage(work, points, "ruff-check", [*ruff, *RUFF_CHECK], lambda p: p.rendered)


def _ruff_stage(
    work: Path,
    points: list[PointResult],
    stage: str,
    command: list[str],
    files: Callable[[PointResult], Iterable[str]],
) -> None:
    """One ruff run over every file of every point still going; failures go to their point."""
    going = [p for p in points if p.failure is None]
    paths = {p.index: [f"{p.id}/{f}" for f in files(p)] for p in going}
    every = [f for group in paths.values() for f in group]
    if not every:
        return
    run = subprocess.run([*command, *every], cwd=work, capture_output=True, text=True, check=False)
    lines = (run.stdout + run.stderr).splitlines()
    if run.returncode not in (0, 1):
        detail = next((line for line in lines if line.strip()), f"ruff exit {run.returncode}")
        for p in going:
            p.failure = Failure(stage, one_line(f"ruff could not run: {detail}"))
        return
    for p in going:
        bad = [f for f in paths[p.index] if any(f in line for line in lines)]
        if bad:
            p.failure = Failure(stage, _ruff_detail(stage, bad, lines, p.id))
        else:
            p.passed.append(stage)


def _ruff_detail(stage: str, bad: list[str], lines: list[str], pid: str) -> str:
    first = bad[0].removeprefix(f"{pid}/")
    if stage == "ruff-format":
        more = f" (and {len(bad) - 1} more file(s))" if len(bad) > 1 else ""
        return f"{first} is not formatted as ruff format --line-length 100 would{more}"
    hit = next(line for line in lines if bad[0] in line)
    return hit.replace(f"{pid}/", "", 1).strip()


def suite_skip_reason() -> str:
    import importlib.util

    for module in ("torch", "pytest"):
        if importlib.util.find_spec(module) is None:
            return (
                f"{module} is not installed (the generated suites need it; pip install ffgen[test])"
            )
    return ""
