"""The suites stage: each point's generated suite, started as soon as the point is written.

One runner process (:mod:`ffgen.quality.runner`) imports torch once and runs the suites
``jobs`` at a time; the points are fed to it while the other points are still being checked, so
the suites overlap the in-process stages and ruff. A point that then fails ruff keeps that
failure: its suite's outcome is not reported. Points whose plans write the same code and configs
(``ode`` and ``any`` dynamics often render one trainer) share one suite run, its outcome
reported on each.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ffgen.quality import gates, runner
from ffgen.quality.points import Failure, PointResult
from ffgen.quality.stages import one_line

SUITE_TIMEOUT_S = 300  # per point, generous for a loaded 2-core machine


def suite_env() -> dict[str, str]:
    """The suites' environment: one thread per torch (the cores are the runner's), no bytecode
    files left in the points' copies, and only pytest's own plugins (the suites use no other;
    an installed plugin's start-up, and pytest rewriting its package, would cost every suite)."""
    return {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


class SuiteRunner:
    """The runner process: ``send`` a point, ``poll`` for the ids of finished suites, ``close``
    for every outcome (``{id: outcome}``, and under ``""`` the end of the runner's output)."""

    def __init__(self, work: Path, jobs: int) -> None:
        self.out = work / "suites.out.json"
        command = [sys.executable, runner.__file__, "--run-suites", "-", str(self.out)]
        self.child = subprocess.Popen(
            [*command, str(jobs), str(SUITE_TIMEOUT_S)],
            cwd=work,
            env=suite_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        os.set_blocking(self.child.stdout.fileno(), False)
        self.buffer = b""
        self.other: list[str] = []  # what the runner printed besides its progress lines

    def send(self, item: dict) -> None:
        self.child.stdin.write(json.dumps(item).encode() + b"\n")
        self.child.stdin.flush()

    def poll(self, wait: float = 0.0) -> list[str]:
        fd = self.child.stdout.fileno()
        if wait and not select.select([fd], [], [], wait)[0]:
            return []
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        done = []
        for line in (raw.decode(errors="replace") for raw in lines):
            word, _, pid = line.strip().partition(" ")
            if word == "done":
                done.append(pid)
            else:
                self.other.append(line)
        return done

    def close(self, finished: Callable[[str], None]) -> dict[str, object]:
        self.child.stdin.close()
        while self.child.poll() is None:
            for pid in self.poll(wait=0.1):
                finished(pid)
        for pid in self.poll():
            finished(pid)
        results = json.loads(self.out.read_text(encoding="utf-8")) if self.out.exists() else {}
        return {**results, "": one_line("\n".join(self.other)[-400:])}

    def stop(self) -> None:
        if self.child.poll() is None:
            self.child.kill()
            self.child.wait()


class SuiteStage:
    """The suites of the chosen points, fed one by one (``add``), done by ``finish``."""

    def __init__(
        self, work: Path, jobs: int, skipped: dict[str, str], advance: Callable[[int], None]
    ) -> None:
        self.work, self.jobs, self.advance = work, jobs, advance
        self.reason = gates.suite_skip_reason()
        if self.reason:
            skipped["suite"] = self.reason
        self.runner: SuiteRunner | None = None
        self.first: dict[str, PointResult] = {}  # files digest -> the point whose suite runs
        self.runs: dict[str, PointResult] = {}  # id -> point whose suite runs
        self.copies: dict[str, list[PointResult]] = {}  # id -> points with the same files
        self.done: set[str] = set()

    def add(self, p: PointResult) -> None:
        """Run ``p``'s suite, or share the run of a point that leaves the same files."""
        if self.reason:
            return
        same = self.first.get(p.files_digest) if p.files_digest else None
        if same is not None:
            self.copies.setdefault(same.id, []).append(p)
            if same.id in self.done:
                self.advance(1)
            return
        if p.files_digest:
            self.first[p.files_digest] = p
        self.runs[p.id] = p
        if self.runner is None:
            self.runner = SuiteRunner(self.work, self.jobs)
        self.runner.send({"id": p.id, "root": str(self.work / p.id), "tests": list(p.tests)})

    def poll(self) -> None:
        if self.runner is not None:
            for pid in self.runner.poll():
                self._finished(pid)

    def _finished(self, pid: str) -> None:
        if pid in self.runs and pid not in self.done:
            self.done.add(pid)
            self.advance(1 + len(self.copies.get(pid, ())))

    def finish(self) -> None:
        """Wait for every suite; record each outcome on the points still passing."""
        if self.runner is None:
            return
        outcomes = self.runner.close(self._finished)
        for pid, run in self.runs.items():
            if run.failure is None:  # else it failed ruff while its suite ran
                _suite_outcome(run, outcomes.get(pid), outcomes[""])
            for copy in self.copies.get(pid, ()):
                if copy.failure is None:
                    _same_outcome(copy, run)

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.stop()


def _same_outcome(copy: PointResult, run: PointResult) -> None:
    if run.failure is None:
        copy.passed.append("suite")
    else:
        copy.failure = Failure("suite", f"{run.failure.detail} (the same files as {run.id})")


def _suite_outcome(p: PointResult, outcome: dict | None, tail: str) -> None:
    if outcome is None:
        p.failure = Failure("suite", f"the suite runner stopped before this point: {tail}")
    elif outcome["exit"] is None:
        p.failure = Failure("suite", one_line(f"generated suite stopped: {outcome['log']}"))
    elif outcome["exit"] != 0:
        failed = ", ".join(outcome["failed"][:3]) or f"pytest exit {outcome['exit']}"
        p.failure = Failure("suite", one_line(f"generated suite failed: {failed}"))
    else:
        p.passed.append("suite")
