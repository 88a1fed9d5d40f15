"""``suite_server``: one ``_suite_runner.py --serve`` process per test session (per xdist worker).

The generated suites, the example trainings and the pytest runs of these tests each start
from an interpreter that has imported torch already (a child forked from the server), instead of
importing it again in a fresh one: that import was most of their cost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("_suite_runner.py")


class SuiteServer:
    def __init__(self, log: Path) -> None:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTHONPATH", None)  # each run puts its own checkout's src first
        self.log = log
        with log.open("w", encoding="utf-8") as err:
            self.child = subprocess.Popen(
                [sys.executable, str(RUNNER), "--serve"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=err, text=True, env=env,
            )

    def request(self, **request: object) -> None:
        self.child.stdin.write(json.dumps(request) + "\n")
        self.child.stdin.flush()
        answer = self.child.stdout.readline().strip()
        if answer != "done":
            log = self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
            raise AssertionError(f"suite server: {answer or 'it stopped'}\n{log}")

    def run_jobs(self, root: Path, jobs: list[dict], tmp: Path) -> dict:
        """The jobs of ``_suite_runner.py`` (its docstring): results by job, then mutant."""
        out = tmp / "results.json"
        self.request(kind="suites", root=str(root), jobs=jobs, out=str(out))
        return json.loads(out.read_text(encoding="utf-8"))

    def completed(self, kind: str, root: Path, out: Path, **request: object):
        """A train or pytest run, as a ``subprocess.CompletedProcess`` of it."""
        self.request(kind=kind, root=str(root), out=str(out), **request)
        result = json.loads(out.read_text(encoding="utf-8"))
        return subprocess.CompletedProcess(
            [kind], result["returncode"], result["stdout"], result["stderr"]
        )

    def close(self) -> None:
        self.child.stdin.close()
        try:
            self.child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()


@pytest.fixture(scope="session")
def suite_server(tmp_path_factory):
    server = SuiteServer(tmp_path_factory.mktemp("suite-server") / "server.log")
    yield server
    server.close()
