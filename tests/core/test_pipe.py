"""A closed pipe on stdout (``ffgen new ... | head -1``) never changes an outcome silently.

Each command runs as the ``ffgen`` program does, in a child process whose stdout is a pipe the
test closes early: before anything is written (the reader is gone from the start) or after the
last write (the test-only pause hook holds the child there while the reader goes). The tree ends
as the exit code and the one stderr line say, and no traceback appears.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ffgen.cli import app
from ffgen.stdout_guard import EXIT_PIPE
from ffgen.write.apply import PAUSE_AFTER_ENV, PAUSE_MARKER_ENV, PAUSE_SECONDS_ENV
from tests.helpers import SPECS, tree

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pipes and SIGPIPE are POSIX")

REPO = Path(__file__).resolve().parents[2]
CHILD = "from ffgen.entry import main; main()"
TRAINER = "src/flow_factory/trainers/offline/my_algo.py"


def new_args(root: Path, *extra: str) -> list[str]:
    return ["new", "my-algo", "--checkout", str(root), "--yes", "--model-type", "toy",
            *SPECS["sft"], *extra]


def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    return subprocess.Popen([sys.executable, "-c", CHILD, *args], cwd=REPO, env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> str:
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return err


def closed_from_the_start(args: list[str]) -> tuple[int, str]:
    """The reader has gone before the child prints anything."""
    proc = start(args)
    proc.stdout.close()
    err = finish(proc)
    return proc.returncode, err


def one_error(stderr: str) -> str:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_new_with_its_reader_gone_writes_nothing_and_says_so(sandbox, fmt):
    before = tree(sandbox)
    code, err = closed_from_the_start(new_args(sandbox, "--format", fmt))
    assert code == EXIT_PIPE == 128 + signal.SIGPIPE
    line = one_error(err)
    assert "stdout was closed" in line and "nothing was written" in line
    assert tree(sandbox) == before


def test_new_whose_reader_goes_after_the_last_write_reports_the_writes(runner, sandbox, tmp_path):
    plan = runner.invoke(app, new_args(sandbox, "--dry-run", "--format", "json"))
    total = sum(f["status"] in ("CREATE", "UPDATE") for f in json.loads(plan.stdout)["files"])
    marker = tmp_path / "written"
    proc = start(new_args(sandbox, "--format", "json"), {
        PAUSE_AFTER_ENV: str(total + 1), PAUSE_MARKER_ENV: str(marker), PAUSE_SECONDS_ENV: "1"})
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline, finish(proc)
        time.sleep(0.02)
    proc.stdout.close()  # the reader goes while the last file is on disk, before the JSON
    err = finish(proc)
    assert proc.returncode == EXIT_PIPE, err
    line = one_error(err)
    assert "after the last write" in line and f"{total} file(s) written" in line
    assert (sandbox / TRAINER).exists()
    check = runner.invoke(app, ["check", "--checkout", str(sandbox)])
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize("command", [["list"], ["verify"], ["check"]])
def test_read_only_commands_with_their_reader_gone_exit_non_zero(sandbox, command):
    before = tree(sandbox)
    code, err = closed_from_the_start([*command, "--checkout", str(sandbox)])
    assert code == EXIT_PIPE
    assert "stdout was closed" in one_error(err)
    assert tree(sandbox) == before


def test_a_reader_that_reads_everything_changes_nothing(sandbox):
    proc = start(new_args(sandbox, "--format", "json"))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert json.loads(out)["written"] is True and err == ""
