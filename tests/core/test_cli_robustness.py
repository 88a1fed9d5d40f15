"""The CLI as a hostile CI runs it: JSON only once the outcome is known, a signal after the last
write, a file-size limit, closed standard streams, an ASCII-only stdout, diffs in a log."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ffgen.cli import app
from ffgen.write.apply import PAUSE_AFTER_ENV, PAUSE_MARKER_ENV, PAUSE_SECONDS_ENV
from tests.helpers import SPECS, tree

REPO = Path(__file__).resolve().parents[2]
CHILD = "from ffgen.entry import main; main()"


def new_args(root: Path, *extra: str) -> list[str]:
    return ["new", "my-algo", "--checkout", str(root), "--yes", "--model-type", "toy",
            *SPECS["sft"], *extra]


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **kwargs.pop("env", {})}
    return subprocess.run([sys.executable, "-c", CHILD, *args], cwd=REPO, env=env, text=True,
                          capture_output=True, timeout=120, **kwargs)


def one_error(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


# --- --format json is printed once the outcome is known ----------------------------------------


def failing_writes(monkeypatch) -> None:
    from ffgen.write import apply as apply_mod

    def fail(path, data, mode):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(apply_mod, "write_file", fail)


def test_new_json_is_not_printed_when_the_write_fails(runner, sandbox, monkeypatch):
    before = tree(sandbox)
    failing_writes(monkeypatch)
    result = runner.invoke(app, new_args(sandbox, "--format", "json"))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "No space left on device" in one_error(result.stderr)
    assert tree(sandbox) == before


def test_remove_and_update_json_are_not_printed_when_the_write_fails(
    runner, sandbox, monkeypatch
):
    assert runner.invoke(app, new_args(sandbox)).exit_code == 0
    trainer = sandbox / "src/flow_factory/trainers/offline/my_algo.py"
    trainer.write_text(trainer.read_text().replace("import torch\n", "import torch  # mine\n"))
    before = tree(sandbox)
    failing_writes(monkeypatch)
    for command in ("remove", "update"):
        result = runner.invoke(app, [command, "my-algo", "--checkout", str(sandbox), "--force"
                                     if command == "remove" else "--dry-run", "--format", "json"])
        if command == "update":  # a dry run writes nothing, so it still prints its plan
            assert result.exit_code == 0 and json.loads(result.stdout)["written"] is False
            continue
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        one_error(result.stderr)
    assert tree(sandbox) == before


def test_new_json_says_written_after_the_write(runner, sandbox):
    result = runner.invoke(app, new_args(sandbox, "--format", "json"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["written"] is True and data["dry_run"] is False
    assert all((sandbox / f["path"]).exists() for f in data["files"] if f["status"] == "CREATE")


# --- a signal after the last write -------------------------------------------------------------


def test_signal_after_the_last_write_reports_what_was_written(runner, sandbox, tmp_path):
    plan = runner.invoke(app, new_args(sandbox, "--dry-run", "--format", "json"))
    total = sum(f["status"] in ("CREATE", "UPDATE") for f in json.loads(plan.stdout)["files"])
    marker = tmp_path / "done"
    env = {**os.environ, PAUSE_AFTER_ENV: str(total + 1), PAUSE_MARKER_ENV: str(marker),
           PAUSE_SECONDS_ENV: "1", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *new_args(sandbox)], cwd=REPO,
                            env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    line = one_error(err)
    assert "after the last write" in line and f"{total} file(s) written" in line
    assert (sandbox / "src/flow_factory/trainers/offline/my_algo.py").exists()
    assert not (sandbox / ".ffgen/journal.json").exists()
    listed = runner.invoke(app, ["list", "--checkout", str(sandbox)])
    assert "my-algo" in listed.stdout and "note:" not in listed.stderr


# --- the environment ----------------------------------------------------------------------------


def test_a_file_size_limit_is_one_line_and_changes_nothing(sandbox):
    before = tree(sandbox)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(
            resource.RLIMIT_FSIZE)[1]))

    result = run(new_args(sandbox), preexec_fn=limit)
    assert result.returncode == 1, result.stderr
    assert "File too large" in one_error(result.stderr)
    assert tree(sandbox) == before


def test_closed_stdin_and_stdout_do_not_crash(sandbox):
    script = 'exec "$@" <&- >&-'
    result = subprocess.run(
        ["bash", "-c", script, "_", sys.executable, "-c", CHILD, *new_args(sandbox)],
        cwd=REPO, text=True, capture_output=True, timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert (sandbox / "src/flow_factory/trainers/offline/my_algo.py").exists()


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"},
                                 {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}],
                         ids=["pythonioencoding", "lc-all-c"])
def test_non_ascii_text_is_escaped_on_an_ascii_stdout(sandbox, env):
    with (sandbox / "guidance/algorithms.md").open("a", encoding="utf-8") as handle:
        handle.write("\nCaf\u00e9 \u2192 ok\n")
    example = next((sandbox / "examples/sft").rglob("*.yaml"))
    example.write_text(example.read_text().replace("trainer_type: sft", "trainer_type: sft\u00f6"))
    dry = run(new_args(sandbox, "--dry-run"), env=env)
    assert dry.returncode == 0, dry.stderr
    assert "Caf\\xe9 \\u2192 ok" in dry.stdout
    for fmt in ("text", "github"):
        checked = run(["verify", "--checkout", str(sandbox), "--format", fmt], env=env)
        assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked.stderr
        assert "sft\\xf6" in checked.stdout


def test_diffs_in_a_log_are_never_cut(sandbox):
    plan = run(new_args(sandbox, "--dry-run", "--format", "json"))
    lines = [line for f in json.loads(plan.stdout)["files"] for line in f["diff"].splitlines()]
    long = [line for line in lines if len(line) > 80]
    assert long, "the plan has no line wider than 80 columns to check"
    text = run(new_args(sandbox, "--dry-run"), env={"COLUMNS": "80"})
    shown = set(text.stdout.splitlines())
    assert [line for line in long if line not in shown] == []


# --- Ctrl+C while ffgen is still loading ------------------------------------------------------

# The interrupt arrives after the ``ffgen`` package is imported and before the commands are: the
# window where a real Ctrl+C during start-up lands (importing typer, rich and the commands). The
# child first takes SIGINT as Python does when started from a terminal: a runner that starts the
# tests in the background hands them SIGINT ignored, and Python keeps it so.
STARTUP_INTERRUPT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'ffgen'; import ffgen; "
    "os.kill(os.getpid(), signal.SIGINT); import ffgen.entry; ffgen.entry.main()"
)


def test_ctrl_c_during_start_up_exits_130_without_a_traceback():
    done = subprocess.run([sys.executable, "-c", STARTUP_INTERRUPT, "--help"], cwd=REPO,
                          text=True, capture_output=True, timeout=60, check=False)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_an_update_with_nothing_to_do_says_nothing_was_written(runner, sandbox):
    assert runner.invoke(app, new_args(sandbox)).exit_code == 0
    key = new_args(sandbox)[1]
    result = runner.invoke(app, ["update", key, "--checkout", str(sandbox), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dry_run"] is False and data["written"] is False
    assert {f["status"] for f in data["files"]} <= {"IDENTICAL"}
