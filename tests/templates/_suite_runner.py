"""Run a generated test suite once clean and once per mutant of the trainer, in one interpreter.

Usage: ``python _suite_runner.py ROOT TEST_PATHS TRAINER_PATH MUTANTS_JSON OUT_JSON`` with
``PYTHONPATH=<root>/src``; ``TEST_PATHS`` is comma-separated, relative to ``ROOT``.
``MUTANTS_JSON`` maps a mutant name to a list of ``[old, new]`` text edits of the trainer module;
the clean run is the name ``""``. Between runs every ``flow_factory`` module and the test modules
are dropped from ``sys.modules``, so each run imports the files as they are on disk; torch is
imported once. Writes name -> ``{"exit": pytest exit code, "failed": [failing test names],
"seconds": wall time of the run}``.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path


def _forget(test_modules: set[str]) -> None:
    for name in list(sys.modules):
        if name in test_modules or name == "flow_factory" or name.startswith("flow_factory."):
            del sys.modules[name]
    importlib.invalidate_caches()


class _Failures:
    """pytest plugin: the names of the tests that failed (in any phase)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.names.append(report.nodeid.rsplit("::", 1)[-1])


def main(root: str, test_paths: str, trainer_path: str, mutants_json: str, out_json: str) -> None:
    import pytest
    import torch  # noqa: F401  (imported once for every run)

    base = Path(root)
    tests = [base / path for path in test_paths.split(",")]
    trainer = base / trainer_path
    original = trainer.read_text(encoding="utf-8")
    mutants = {"": [], **json.loads(Path(mutants_json).read_text(encoding="utf-8"))}
    results: dict[str, object] = {}
    try:
        for name, edits in mutants.items():
            source = original
            for old, new in edits:
                if source.count(old) != 1:
                    results[name] = f"edit does not apply once: {old!r}"
                    break
                source = source.replace(old, new)
            else:
                trainer.write_text(source, encoding="utf-8")
                _forget({path.stem for path in tests})
                args = ["-q", "-x", "-p", "no:cacheprovider", "--rootdir", str(base),
                        *map(str, tests)]
                failures = _Failures()
                started = time.perf_counter()
                code = int(pytest.main(args, plugins=[failures]))
                results[name] = {"exit": code, "failed": failures.names,
                                 "seconds": round(time.perf_counter() - started, 3)}
    finally:
        trainer.write_text(original, encoding="utf-8")
    Path(out_json).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:6])
