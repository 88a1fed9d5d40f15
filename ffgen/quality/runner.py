"""The child side of the suites stage: run generated suites with pytest, ``JOBS`` at a time.

Run as a script (``python runner.py --run-suites SPEC OUT JOBS TIMEOUT``); it imports nothing of
ffgen, only the standard library and pytest. It imports torch (and the parts of it the suites'
distributed checks load) once, then forks one child per suite: a child starts in a few
milliseconds with all of that already imported, imports the point's own ``flow_factory`` and
test files fresh, and leaves nothing behind for the next suite. Where there is no fork the suites
run one after another in this interpreter instead, each point's modules dropped after its run.

``SPEC`` is a JSON list of points (``{"id", "root", "tests"}``, optionally ``"options"``), or
``-``: the points then arrive as JSON lines on standard input while the runner works, the last
one followed by the end of the input. It prints one line per finished suite (``done ID``) for the
parent's progress display, and writes ``{id: {"exit", "failed", "seconds", "cpu_seconds"}}`` to
``OUT``; a suite whose child died (or ran past ``TIMEOUT`` seconds) has ``"exit": null`` and the
end of its log in ``"log"``.
"""

from __future__ import annotations

import gc
import importlib
import json
import multiprocessing
import multiprocessing.connection
import os
import resource
import select
import signal
import sys
import time
from pathlib import Path

# What every suite imports from site-packages, slowest first; its distributed checks load the
# FSDP2 parts. A module missing here is the suite's to report, not the runner's.
PRELOAD = (
    "torch",
    "torch.distributed",
    "torch.distributed.fsdp",
    "torch.distributed.device_mesh",
    "torch._dynamo",
    "yaml",
)
POLL_S = 0.01


class FailedTests:
    """pytest plugin: the names of the tests that failed (in any phase)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.names.append(report.nodeid.rsplit("::", 1)[-1])


def pytest_args(item: dict) -> list[str]:
    """One point's pytest command line. Its temporary folders go under the point's own folder:
    pytest's default, shared by every pytest run on the machine, costs each session a sweep of
    the old runs' folders."""
    root = item["root"]
    return [
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        root,
        "--basetemp",
        str(Path(root).with_name(Path(root).name + ".tmp")),
        *item.get("options", ()),
        *item["tests"],
    ]


def run_one(item: dict) -> dict[str, object]:
    """One point's suite in this interpreter, with the point's ``src`` first on the path."""
    import pytest

    sys.path.insert(0, str(Path(item["root"]) / "src"))
    importlib.invalidate_caches()
    os.chdir(item["root"])
    failures = FailedTests()
    started = time.perf_counter()
    code = pytest.main(pytest_args(item), plugins=[failures])
    return {
        "exit": int(code),
        "failed": failures.names,
        "seconds": round(time.perf_counter() - started, 2),
    }


# -- forked: one child per suite -----------------------------------------------------------------


def preload() -> None:
    """Import what every suite needs, then freeze it: the children's garbage collections (pytest
    runs a few per session) skip all of it, and its memory stays shared with this process."""
    import pytest  # noqa: F401

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 (the suite that needs it reports it)
            pass
    gc.collect()
    gc.freeze()


def _child(item: dict, logs: Path) -> None:
    """In the forked child (multiprocessing's, which ends the child itself once this returns):
    run the suite, its output to its log, the outcome and the child's CPU time to a file."""
    try:
        os.setpgid(0, 0)  # a timeout kills the suite's worker processes with it
        log = os.open(logs / f"{item['id']}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the parent's feed is not the suite's
        outcome = run_one(item)
        outcome["cpu_seconds"] = _cpu_seconds()
        (logs / f"{item['id']}.json").write_text(json.dumps(outcome), encoding="utf-8")
    except BaseException:  # noqa: BLE001 (reported as a suite that stopped, with its log)
        import traceback

        traceback.print_exc()
        sys.exit(70)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _cpu_seconds() -> float:
    """CPU time of this child since the fork (a new process starts its count at zero), the
    suite's worker processes included."""
    self, children = (resource.getrusage(who) for who in
                      (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    total = self.ru_utime + self.ru_stime + children.ru_utime + children.ru_stime
    return round(total, 3)


def _start(item: dict, logs: Path):
    child = multiprocessing.get_context("fork").Process(target=_child, args=(item, logs))
    child.start()
    try:
        os.setpgid(child.pid, child.pid)  # also here: the child may not have run yet
    except OSError:  # it already did, or already exited
        pass
    return child


def _finished(item: dict, logs: Path, status: int, timed_out: bool) -> dict[str, object]:
    result = logs / f"{item['id']}.json"
    if result.exists():
        return json.loads(result.read_text(encoding="utf-8"))
    log = logs / f"{item['id']}.log"
    tail = log.read_text(encoding="utf-8", errors="replace")[-400:] if log.exists() else ""
    why = "timed out" if timed_out else f"the suite's process ended with status {status}"
    return {"exit": None, "failed": [], "log": f"{why}: {tail}", "cpu_seconds": None}


class Feed:
    """The points to run: given at the start, or JSON lines on a file descriptor (the parent
    writes each as its point passes the other stages, and closes it after the last one)."""

    def __init__(self, fd: int | None, items: list[dict] | None = None) -> None:
        self.fd, self.buffer, self.closed = fd, b"", fd is None
        self.given = list(items or [])

    def read(self, wait: float | None) -> list[dict]:
        """The items that arrived, waiting up to ``wait`` seconds for some."""
        if self.given:
            given, self.given = self.given, []
            return given
        if self.closed or not select.select([self.fd], [], [], wait)[0]:
            return []
        chunk = os.read(self.fd, 65536)
        self.closed = not chunk
        *lines, self.buffer = (self.buffer + chunk).split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    @property
    def done(self) -> bool:
        return self.closed and not self.given

    def everything(self) -> list[dict]:
        items = self.read(None)
        while not self.closed:
            items += self.read(None)
        return items


def run_forked(feed: Feed, jobs: int, timeout: float, logs: Path) -> dict[str, object]:
    preload()
    pending: list[dict] = []
    running: dict[int, list] = {}  # sentinel -> [item, started, timed out, process]
    results: dict[str, object] = {}
    while pending or running or not feed.done:
        while pending and len(running) < jobs:
            item = pending.pop(0)
            child = _start(item, logs)
            running[child.sentinel] = [item, time.monotonic(), False, child]
        ended = multiprocessing.connection.wait(list(running), POLL_S) if running else []
        if not ended:
            _kill_overdue(running, timeout)
            if not feed.done:  # nothing running: wait for the next point as long as it takes
                pending += feed.read(POLL_S if running else None)
            continue
        for sentinel in ended:
            item, _, timed_out, child = running.pop(sentinel)
            child.join()
            results[item["id"]] = _finished(item, logs, child.exitcode, timed_out)
            child.close()
            print(f"done {item['id']}", flush=True)
    return results


def run_alone(item: dict, logs: Path) -> dict[str, object]:
    """One suite in a forked child (after :func:`preload`), waited for; with its CPU time."""
    if not hasattr(os, "fork"):
        outcome = run_one(item)
        sys.path.remove(str(Path(item["root"]) / "src"))
        _forget(item["root"])
        return outcome
    child = _start(item, logs)
    child.join()
    outcome = _finished(item, logs, child.exitcode, False)
    child.close()
    return outcome


def _kill_overdue(running: dict, timeout: float) -> None:
    now = time.monotonic()
    for entry in running.values():
        if not entry[2] and now - entry[1] > timeout:
            entry[2] = True
            try:
                os.killpg(entry[3].pid, signal.SIGKILL)
            except OSError:
                pass


# -- without fork: one after another here ---------------------------------------------------------


def run_in_turn(items: list[dict]) -> dict[str, object]:
    results: dict[str, object] = {}
    for item in items:
        results[item["id"]] = run_one(item)
        sys.path.remove(str(Path(item["root"]) / "src"))
        _forget(item["root"])
        print(f"done {item['id']}", flush=True)
    return results


def _forget(root: str) -> None:
    """Drop every module imported from ``root`` (flow_factory, conftest, the test modules)."""
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or ""
        inside = where.startswith(root.rstrip(os.sep) + os.sep)
        if inside or name == "flow_factory" or name.startswith("flow_factory."):
            del sys.modules[name]


def suite_runner(spec_path: str, out_path: str, jobs: int, timeout: float) -> None:
    """Run the suites of the points in ``spec_path`` (a JSON list), or arriving as JSON lines
    on standard input when it is ``-``; write the outcomes to ``out_path``."""
    if spec_path == "-":
        feed = Feed(sys.stdin.fileno())
    else:
        feed = Feed(None, json.loads(Path(spec_path).read_text(encoding="utf-8")))
    logs = Path(out_path).with_suffix(".logs")
    logs.mkdir(exist_ok=True)
    if hasattr(os, "fork") and jobs > 0:
        results = run_forked(feed, jobs, timeout, logs)
    else:
        results = run_in_turn(feed.everything())
    Path(out_path).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:2] == ["--run-suites"]:
    # Run as a script, Python put ffgen/quality/ itself first on the path; its module names
    # (points, stages, gates, ...) must not shadow what the generated suites import.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    suite_runner(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
