"""The stages over all points at once: ruff (one run per tool) and the generated suites."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ffgen.quality import runner
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
SUITE_BATCH = 12  # most suites one runner interpreter runs
SUITE_TIMEOUT_S = 300  # per point, generous for a loaded 2-core machine

# -- the stages over all points: ruff, then the suites --------------------------------------------


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


def run_suites(
    work: Path,
    points: list[PointResult],
    jobs: int,
    skipped: dict[str, str],
    advance: Callable[[int], None],
) -> None:
    chosen = [p for p in points if p.suite and p.failure is None]
    reason = suite_skip_reason()
    if reason:
        skipped["suite"] = reason
        return
    if not chosen:
        return
    from concurrent.futures import ThreadPoolExecutor, as_completed

    runs, copies = _distinct_checkouts(chosen)
    # One interpreter per batch imports torch once; batches stay small enough that one runner
    # never accumulates a whole --full run, and there are at least as many as workers (more
    # runners than cores measured slower: a suite keeps its core busy).
    count = max(min(jobs, len(runs)), -(-len(runs) // SUITE_BATCH))
    batches = [runs[i::count] for i in range(count)]
    with ThreadPoolExecutor(min(jobs, count)) as pool:
        for future in as_completed([pool.submit(_suite_batch, work, b) for b in batches]):
            done = future.result()
            advance(sum(1 + len(copies.get(p.index, ())) for p in done))
    for run in runs:
        for copy in copies.get(run.index, ()):
            _same_outcome(copy, run)


def _distinct_checkouts(chosen: list[PointResult]) -> tuple[list[PointResult], dict]:
    """The points whose suite runs (the first of each set of byte-identical checkouts), and for
    each of them the points that leave the same files (their suite would run the same code on
    the same data: it is run once)."""
    runs: list[PointResult] = []
    first: dict[str, PointResult] = {}
    copies: dict[int, list[PointResult]] = {}
    for p in chosen:
        same = first.get(p.files_digest) if p.files_digest else None
        if same is None:
            runs.append(p)
            first.setdefault(p.files_digest, p)
        else:
            copies.setdefault(same.index, []).append(p)
    return runs, copies


def _same_outcome(copy: PointResult, run: PointResult) -> None:
    if run.failure is None:
        copy.passed.append("suite")
    else:
        copy.failure = Failure("suite", f"{run.failure.detail} (the same files as {run.id})")


def _suite_batch(work: Path, batch: list[PointResult]) -> list[PointResult]:
    """Run the generated suites of ``batch`` in one child interpreter; record each outcome."""
    spec = work / f"suites-{batch[0].id}.json"
    out = work / f"suites-{batch[0].id}.out.json"
    items = [{"id": p.id, "root": str(work / p.id), "tests": list(p.tests)} for p in batch]
    spec.write_text(json.dumps(items), encoding="utf-8")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        # The runner module runs as a script: it needs nothing but the stdlib and pytest.
        run = subprocess.run(
            [sys.executable, runner.__file__, "--run-suites", str(spec), str(out)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=SUITE_TIMEOUT_S * len(batch),
        )
        tail = one_line((run.stdout + run.stderr)[-400:])
    except subprocess.TimeoutExpired:
        tail = f"timed out after {SUITE_TIMEOUT_S * len(batch)} s"
    results = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    for p in batch:
        _suite_outcome(p, results.get(p.id), tail)
    return batch


def _suite_outcome(p: PointResult, outcome: dict | None, tail: str) -> None:
    if outcome is None:
        p.failure = Failure("suite", f"the suite runner stopped before this point: {tail}")
    elif outcome["exit"] != 0:
        failed = ", ".join(outcome["failed"][:3]) or f"pytest exit {outcome['exit']}"
        p.failure = Failure("suite", one_line(f"generated suite failed: {failed}"))
    else:
        p.passed.append("suite")
