"""Run generated test suites once clean and once per mutant, all in one interpreter.

Usage: ``python _suite_runner.py ROOT JOBS_JSON OUT_JSON`` with ``PYTHONPATH=<root>/src``.
``JOBS_JSON`` is a list of jobs ``{"name", "tests": [paths], "mutants": {name: [[path, old,
new], ...]}}``; paths are relative to ``ROOT`` and each edit replaces text that must occur exactly
once in that file (a mutant may edit several files, e.g. the trainer and the arguments module).
Each job runs its tests clean (mutant name ``""``) and then once per mutant. Between runs every
``flow_factory`` module, the test modules and the checklist they import are dropped from
``sys.modules``, so each run imports the files as they are on disk; torch and pytest are imported
once for all the jobs (that start-up is most of the cost of a run). Writes job -> mutant name -> ``{"exit": pytest exit code,
"failed": [failing test names], "seconds": wall time of the run, "cpu_seconds": CPU time of the
run, worker processes included}`` (or a string saying why an edit did not apply).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from pathlib import Path

from ffgen.checkout import layout
from ffgen.quality.runner import FailedTests


def _forget(test_modules: set[str]) -> None:
    for name in list(sys.modules):
        if name in test_modules or name == "flow_factory" or name.startswith("flow_factory."):
            del sys.modules[name]
    importlib.invalidate_caches()


def _mutated(base: Path, edits: list[list[str]]) -> dict[Path, str] | str:
    """The new text of every file the edits touch, or why an edit does not apply once."""
    sources: dict[Path, str] = {}
    for path, old, new in edits:
        target = base / path
        source = sources.get(target, target.read_text(encoding="utf-8"))
        if source.count(old) != 1:
            return f"edit does not apply once in {path}: {old!r}"
        sources[target] = source.replace(old, new)
    return sources


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the suite's worker processes)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _run(base: Path, job: dict, test_modules: set[str]) -> dict[str, object]:
    import pytest

    _forget(test_modules)
    args = ["-q", "-x", "-p", "no:cacheprovider", "--rootdir", str(base),
            *(str(base / path) for path in job["tests"])]
    failures = FailedTests()
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    code = int(pytest.main(args, plugins=[failures]))
    return {"exit": code, "failed": failures.names,
            "seconds": round(time.perf_counter() - started, 3),
            "cpu_seconds": round(_cpu_seconds() - cpu_started, 3)}


def main(root: str, jobs_json: str, out_json: str) -> None:
    import torch  # noqa: F401  (imported once for every run)

    base = Path(root)
    jobs = json.loads(Path(jobs_json).read_text(encoding="utf-8"))
    # The checklist module the test files import goes too: it holds the last run's classes.
    test_modules = {Path(path).stem for job in jobs for path in job["tests"]}
    test_modules.add(Path(layout.CHECKLIST_PATH).stem)
    results: dict[str, dict[str, object]] = {}
    for job in jobs:
        outcomes = results.setdefault(job["name"], {})
        for name, edits in {"": [], **job["mutants"]}.items():
            sources = _mutated(base, edits)
            if isinstance(sources, str):
                outcomes[name] = sources
                continue
            originals = {path: path.read_text(encoding="utf-8") for path in sources}
            try:
                for path, text in sources.items():
                    path.write_text(text, encoding="utf-8")
                outcomes[name] = _run(base, job, test_modules)
            finally:
                for path, text in originals.items():
                    path.write_text(text, encoding="utf-8")
    Path(out_json).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:4])
