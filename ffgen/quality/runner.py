"""The child side of the suites stage: run generated suites with pytest in one interpreter.

Run as a script (``python runner.py --run-suites SPEC OUT``); it imports nothing of ffgen,
only the standard library and pytest.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


class FailedTests:
    """pytest plugin: the names of the tests that failed (in any phase)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.names.append(report.nodeid.rsplit("::", 1)[-1])


def suite_runner(spec_path: str, out_path: str) -> None:
    """Child side of :func:`ffgen.quality.gates._suite_batch`: each point's suite with pytest,
    in this interpreter, with the point's ``src`` on the path and everything imported from the
    last point dropped."""
    import importlib

    import pytest

    results: dict[str, object] = {}
    previous: str | None = None
    for item in json.loads(Path(spec_path).read_text(encoding="utf-8")):
        root = item["root"]
        if previous is not None:
            _forget(previous)
            sys.path.remove(str(Path(previous) / "src"))
        sys.path.insert(0, str(Path(root) / "src"))
        importlib.invalidate_caches()
        os.chdir(root)
        failures = FailedTests()
        started = time.perf_counter()
        code = pytest.main(
            ["-q", "-p", "no:cacheprovider", "--rootdir", root, *item["tests"]], plugins=[failures]
        )
        results[item["id"]] = {
            "exit": int(code),
            "failed": failures.names,
            "seconds": round(time.perf_counter() - started, 2),
        }
        Path(out_path).write_text(json.dumps(results), encoding="utf-8")  # a crash keeps these
        previous = root


def _forget(root: str) -> None:
    """Drop every module imported from ``root`` (flow_factory, conftest, the test modules)."""
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or ""
        inside = where.startswith(root.rstrip(os.sep) + os.sep)
        if inside or name == "flow_factory" or name.startswith("flow_factory."):
            del sys.modules[name]


if __name__ == "__main__" and sys.argv[1:2] == ["--run-suites"]:
    # Run as a script, Python put ffgen/quality/ itself first on the path; its module names
    # (points, stages, gates, ...) must not shadow what the generated suites import.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    suite_runner(sys.argv[2], sys.argv[3])
