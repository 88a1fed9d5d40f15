"""Run generated test suites once clean and once per mutant, torch imported once for all.

Usage: ``python _suite_runner.py ROOT JOBS_JSON OUT_JSON`` with ``PYTHONPATH=<root>/src``.
``JOBS_JSON`` is a list of jobs ``{"name", "tests": [paths], "mutants": {name: [[path, old,
new], ...]}}``; paths are relative to ``ROOT`` and each edit replaces text that must occur exactly
once in that file (a mutant may edit several files, e.g. the trainer and the arguments module).
Each job runs its tests clean (mutant name ``""``) and then once per mutant, each run in a child
forked from this process after it imported torch (``ffgen.quality.runner``, as check-templates
runs the suites): a run imports the files as they are on disk and leaves nothing to the next.
Only pytest's own plugins load (an installed plugin's start-up would cost every run). Writes job
-> mutant name -> ``{"exit": pytest exit code, "failed": [failing test names], "seconds": wall
time of the run, "cpu_seconds": CPU time of the run, worker processes included}`` (or a string
saying why an edit did not apply).

``python _suite_runner.py --serve`` does the same for many requests, torch imported once for a
whole test session (``suite_server`` in this folder's conftest): one JSON line per request on
standard input, one line ``done`` (or ``error: ...``) per request on standard output. Requests:
``{"kind": "suites", "root", "jobs", "out"}`` (the jobs above, ``"root"`` of a job overriding the
request's), ``{"kind": "train", "root", "config", "out"}`` (``python -m flow_factory.train
CONFIG`` in ROOT, as ``runpy`` runs a module), ``{"kind": "script", "root", "path", "args",
"out"}`` (``python PATH ARGS``) and ``{"kind": "pytest", "root", "args", "out"}``; the last three
write ``{"returncode", "stdout", "stderr"}`` to ``out``.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback
from pathlib import Path

from ffgen.quality.runner import preload, run_alone


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


def _run(base: Path, job: dict, logs: Path, index: int) -> dict[str, object]:
    item = {"id": f"run{index}", "root": str(base), "options": ["-x"],
            "tests": [str(base / path) for path in job["tests"]]}
    outcome = run_alone(item, logs)
    if outcome["exit"] is None:  # the run's process died: say how, with its log
        raise SystemExit(f"{job['name']}: {outcome['log']}")
    return outcome


def run_jobs(root: str, jobs: list[dict], out_json: str) -> None:
    logs = Path(out_json).with_suffix(".logs")
    logs.mkdir(exist_ok=True)
    results: dict[str, dict[str, object]] = {}
    for job in jobs:
        base = Path(job.get("root", root))
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
                outcomes[name] = _run(base, job, logs, sum(map(len, results.values())))
            finally:
                for path, text in originals.items():
                    path.write_text(text, encoding="utf-8")
    Path(out_json).write_text(json.dumps(results), encoding="utf-8")


def main(root: str, jobs_json: str, out_json: str) -> None:
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    preload()
    run_jobs(root, json.loads(Path(jobs_json).read_text(encoding="utf-8")), out_json)


# -- the server: many requests, torch imported once ----------------------------------------------


def _in_child(root: str, out: str, body) -> None:
    """Run ``body()`` in a forked child in ``root`` (its ``src`` first on the path), its output
    to ``out`` + ``.stdout`` / ``.stderr``, and write ``{"returncode", "stdout", "stderr"}``."""
    streams = {name: f"{out}.{name}" for name in ("stdout", "stderr")}
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(os.open(streams[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            os.chdir(root)
            os.environ["PYTHONPATH"] = str(Path(root) / "src")
            sys.path.insert(0, str(Path(root) / "src"))
            code = body()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # noqa: BLE001 (a crash is the run's failure, in its stderr)
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    texts = {name: Path(path).read_text(encoding="utf-8", errors="replace")
             for name, path in streams.items()}
    result = {"returncode": os.waitstatus_to_exitcode(status), **texts}
    Path(out).write_text(json.dumps(result), encoding="utf-8")


def _train(request: dict) -> None:
    def body() -> int:
        sys.argv = ["-m", request["config"]]
        runpy.run_module("flow_factory.train", run_name="__main__", alter_sys=True)
        return 0

    _in_child(request["root"], request["out"], body)


def _script(request: dict) -> None:
    def body() -> int:
        sys.argv = [request["path"], *request["args"]]
        runpy.run_path(request["path"], run_name="__main__")
        return 0

    _in_child(request["root"], request["out"], body)


def _pytest(request: dict) -> None:
    import pytest

    _in_child(request["root"], request["out"], lambda: int(pytest.main(request["args"])))


def serve() -> None:
    preload()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["kind"] == "suites":
                run_jobs(request["root"], request["jobs"], request["out"])
            elif request["kind"] == "train":
                _train(request)
            elif request["kind"] == "script":
                _script(request)
            else:
                _pytest(request)
            answer = "done"
        except BaseException as exc:  # noqa: BLE001 (the client reports it; the server goes on)
            answer = "error: " + " ".join(f"{type(exc).__name__}: {exc}".split())
        print(answer, flush=True)


if __name__ == "__main__":
    # Python put this folder first on the path; its conftest must not shadow a checkout's.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        main(*sys.argv[1:4])
