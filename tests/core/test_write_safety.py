"""Safety of every write: paths stay inside the checkout, one process at a time, and a signal in
the middle of ``ffgen new`` leaves the checkout exactly as it was."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ffgen.cli import app
from ffgen.errors import RefusedError
from ffgen.generate.plan import FileChange, Plan, Status
from ffgen.write.apply import PAUSE_AFTER_ENV, PAUSE_MARKER_ENV, apply_plan
from ffgen.write.lock import LOCK_PATH, WAIT_ENV, checkout_lock
from ffgen.write.paths import check_spelling, safe_relative
from tests.helpers import SPECS, tree

REPO = Path(__file__).resolve().parents[2]
NAME = "my-grpo"
EXAMPLE_DIR = "examples/my_grpo"


def new_args(root: Path, *extra: str) -> list[str]:
    return [
        "new",
        NAME,
        "--checkout",
        str(root),
        "--yes",
        "--model-type",
        "toy",
        *SPECS["grpo"],
        *extra,
    ]


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def refused_one_line(result, *needles: str) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    (line,) = error_lines(result.output)
    for needle in needles:
        assert needle in line, line
    return line


# --- paths ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel, needle",
    [
        ("/etc/passwd", "absolute"),
        ("C:/Windows/x.py", "absolute"),
        ("../outside.py", "'..'"),
        ("src/../../outside.py", "'..'"),
        ("src/..", "'..'"),
        ("", "empty"),
        (".", "checkout root itself"),
        ("src\\x.py", "backslash"),
    ],
)
def test_bad_spellings_are_refused_without_reading_anything(rel, needle):
    with pytest.raises(RefusedError, match=needle) as caught:
        check_spelling(rel)
    assert "\n" not in caught.value.message


def test_safe_relative_resolves_inside_the_root(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to("real")  # a link that stays inside is fine
    assert safe_relative(tmp_path, "src/new/file.py") == tmp_path.resolve() / "src/new/file.py"
    assert safe_relative(tmp_path, "alias/f.py") == tmp_path.resolve() / "real/f.py"


def test_safe_relative_refuses_links_out_dangling_links_and_files_in_the_way(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "out").symlink_to(outside)
    (root / "nested").mkdir()
    (root / "nested" / "up").symlink_to("../../outside")
    (root / "gone").symlink_to("missing")
    (root / "file.txt").write_text("x\n")
    cases = {
        "out/x.py": "out is a symlink to",
        "nested/up/x.py": "nested/up is a symlink to",
        "gone/x.py": "gone is a dangling symlink",
        "gone": "gone is a dangling symlink",
        "file.txt/x.py": "file.txt is a file where ffgen needs a folder",
    }
    for rel, needle in cases.items():
        with pytest.raises(RefusedError, match=needle):
            safe_relative(root, rel)


@pytest.mark.parametrize("rel", ["../escape.py", "ABSOLUTE"])
def test_apply_refuses_paths_that_leave_the_checkout(tmp_path, rel):
    # The absolute target lies beside the checkout, inside this test's own temporary folder, so
    # no file left by another run can decide the outcome.
    escape = tmp_path / "ffgen-escape-test.py"
    rel = str(escape) if rel == "ABSOLUTE" else rel
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("A = 1\n")
    before = tree(tmp_path)
    plan = Plan(
        "x",
        (
            FileChange("pkg/a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),
            FileChange(rel, Status.CREATE, None, "E = 1\n"),
        ),
    )
    with pytest.raises(RefusedError, match="absolute|'..'"):
        apply_plan(root, plan)
    assert tree(tmp_path) == before
    assert not escape.exists() and not (tmp_path / "escape.py").exists()


def test_apply_refuses_to_delete_through_a_link(tmp_path):
    (tmp_path / "real.py").write_text("R = 1\n")
    (tmp_path / "link.py").symlink_to("real.py")
    before = tree(tmp_path)
    plan = Plan("x", (FileChange("link.py", Status.DELETE, "R = 1\n", ""),))
    with pytest.raises(RefusedError, match="link.py is a symlink"):
        apply_plan(tmp_path, plan)
    assert tree(tmp_path) == before


def test_apply_refuses_two_paths_that_are_one_file(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.py").write_text("A = 1\n")
    (tmp_path / "alias").symlink_to("real")
    plan = Plan(
        "x",
        (
            FileChange("real/a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),
            FileChange("alias/a.py", Status.UPDATE, "A = 1\n", "A = 3\n"),
        ),
    )
    with pytest.raises(RefusedError, match="same file"):
        apply_plan(tmp_path, plan)
    assert (tmp_path / "real" / "a.py").read_text() == "A = 1\n"


def test_new_refuses_an_example_folder_linked_outside(runner, sandbox, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (sandbox / EXAMPLE_DIR).symlink_to(outside, target_is_directory=True)
    before = tree(sandbox)
    result = runner.invoke(app, new_args(sandbox))
    refused_one_line(result, f"{EXAMPLE_DIR} is a symlink to", "outside the checkout")
    assert tree(sandbox) == before
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("target", ["not-there", "../../nowhere"])
def test_new_refuses_a_dangling_example_link(runner, sandbox, target):
    (sandbox / EXAMPLE_DIR).symlink_to(target)
    before = tree(sandbox)
    result = runner.invoke(app, new_args(sandbox))
    line = refused_one_line(result, EXAMPLE_DIR)
    assert "dangling symlink" in line or "outside the checkout" in line
    assert tree(sandbox) == before


def test_new_refuses_a_dot_folder_linked_outside(runner, sandbox, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (sandbox / ".ffgen").symlink_to(outside, target_is_directory=True)
    before = tree(sandbox)
    result = runner.invoke(app, new_args(sandbox))
    refused_one_line(result, ".ffgen is a symlink to")
    assert tree(sandbox) == before
    assert list(outside.iterdir()) == []


# --- the lock ---------------------------------------------------------------------------------

HOLDER = """
import sys, time
from pathlib import Path
from ffgen.write.lock import checkout_lock
with checkout_lock(Path(sys.argv[1])):
    Path(sys.argv[2]).touch()
    time.sleep(float(sys.argv[3]))
"""


def start_holder(root: Path, marker: Path, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root), str(marker), str(seconds)], cwd=REPO
    )
    wait_for(marker, proc)
    return proc


def wait_for(marker: Path, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not marker.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"process ended (rc {proc.returncode}) before {marker.name}: {out}{err}")
        assert time.monotonic() < deadline, f"timed out waiting for {marker}"
        time.sleep(0.02)


def test_second_process_is_refused_then_a_killed_holder_is_taken_over(
    runner, sandbox, tmp_path, monkeypatch
):
    monkeypatch.setenv(WAIT_ENV, "0.3")
    holder = start_holder(sandbox, tmp_path / "held", 120)
    try:
        before = tree(sandbox)
        started = time.monotonic()
        result = runner.invoke(app, new_args(sandbox))
        assert time.monotonic() - started >= 0.3  # it waited before refusing
        refused_one_line(result, str(sandbox / LOCK_PATH), f"pid {holder.pid}", "running `ffgen")
        assert tree(sandbox) == before
    finally:
        holder.kill()  # SIGKILL: no cleanup, the lock file stays behind
        holder.wait()
    left = json.loads((sandbox / LOCK_PATH).read_text())
    assert left["pid"] == holder.pid and left["host"] == socket.gethostname()
    # The kernel dropped the dead holder's lock: the next command needs no wait at all.
    monkeypatch.setenv(WAIT_ENV, "0")
    result = runner.invoke(app, new_args(sandbox))
    assert result.exit_code == 0, result.output
    assert (sandbox / "src/flow_factory/trainers/rl/my_grpo.py").exists()
    left_behind = {p.name for p in (sandbox / ".ffgen").iterdir()}
    assert "answers" in left_behind and not left_behind & {"lock", "journal.json"}


def test_second_process_waits_for_a_short_holder(runner, sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv(WAIT_ENV, "30")
    holder = start_holder(sandbox, tmp_path / "held", 0.5)
    assert (sandbox / LOCK_PATH).exists()
    result = runner.invoke(app, new_args(sandbox))
    assert holder.wait(timeout=60) == 0
    assert result.exit_code == 0, result.output
    assert not (sandbox / LOCK_PATH).exists()


def write_lock(root: Path, text: str) -> Path:
    path = root / LOCK_PATH
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text",
    [
        # a live process on this host (a reused pid looks exactly like this): not a holder
        json.dumps({"pid": os.getppid(), "host": socket.gethostname(), "time": "t"}),
        json.dumps({"pid": 1, "host": "build-box-7", "time": "t"}),
        "",
        "{not json",
    ],
    ids=["live-pid-here", "other-host", "empty", "garbled"],
)
def test_what_a_lock_file_says_never_decides_who_holds_it(tmp_path, text):
    path = write_lock(tmp_path, text)
    started = time.monotonic()
    with checkout_lock(tmp_path, wait=5):
        assert json.loads(path.read_text())["pid"] == os.getpid()
    assert time.monotonic() - started < 2  # taken at once, not after the wait
    assert not (tmp_path / ".ffgen").exists()


def test_a_holder_that_has_not_said_who_it_is_is_still_respected(tmp_path):
    path = write_lock(tmp_path, "")
    with open(path, "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # held, and nothing written yet
        with pytest.raises(RefusedError, match="holds the lock") as caught:
            with checkout_lock(tmp_path, wait=0.1):
                pass
    assert "\n" not in caught.value.message and str(path) in caught.value.message
    assert path.exists()


def test_lock_leaves_no_trace_and_keeps_an_empty_dot_folder(tmp_path):
    with checkout_lock(tmp_path, wait=0):
        with checkout_lock(tmp_path, wait=0):  # re-entrant within one process
            assert (tmp_path / LOCK_PATH).exists()
        assert (tmp_path / LOCK_PATH).exists()
    assert list(tmp_path.iterdir()) == []
    (tmp_path / ".ffgen").mkdir()
    with checkout_lock(tmp_path, wait=0):
        pass
    assert list(tmp_path.iterdir()) == [tmp_path / ".ffgen"]
    assert list((tmp_path / ".ffgen").iterdir()) == []


def test_lock_is_released_after_a_refused_apply(tmp_path):
    (tmp_path / "a.py").write_text("A = 99\n")
    plan = Plan("x", (FileChange("a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),))
    with pytest.raises(RefusedError, match="changed on disk"):
        apply_plan(tmp_path, plan)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_bad_wait_setting_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(WAIT_ENV, "soon")
    with pytest.raises(RefusedError, match=f"{WAIT_ENV}='soon' is not a number"):
        with checkout_lock(tmp_path):
            pass


COUNTER = """
import sys, time
from pathlib import Path
from ffgen.write.lock import checkout_lock
root = Path(sys.argv[1])
for _ in range(int(sys.argv[2])):
    with checkout_lock(root, wait=60):
        count = root / "count"
        value = int(count.read_text())
        time.sleep(0.002)  # widen the window a missing lock would lose an update in
        count.write_text(str(value + 1))
"""


def test_lock_excludes_concurrent_processes(tmp_path):
    (tmp_path / "count").write_text("0")
    procs = [
        subprocess.Popen([sys.executable, "-c", COUNTER, str(tmp_path), "15"], cwd=REPO)
        for _ in range(3)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert (tmp_path / "count").read_text() == "45"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["count"]


# --- a signal in the middle of `ffgen new` ----------------------------------------------------

# Runs the CLI as a terminal would start it: SIGINT raises KeyboardInterrupt (it is inherited
# as ignored under some CI runners, where Python would otherwise leave it ignored).
CHILD = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from ffgen.entry import main; main()"
)


def writes_of_new(runner, root: Path) -> int:
    result = runner.invoke(app, new_args(root, "--dry-run", "--format", "json"))
    assert result.exit_code == 0, result.output
    files = json.loads(result.output)["files"]
    return sum(f["status"] in ("CREATE", "UPDATE", "DELETE") for f in files)


@pytest.mark.parametrize(
    "signum, point",
    [
        (signal.SIGTERM, "first"),
        (signal.SIGTERM, "middle"),
        (signal.SIGTERM, "last"),
        (signal.SIGINT, "middle"),
        (signal.SIGINT, "last"),
    ],
)
def test_signal_during_new_leaves_the_checkout_fully_old(runner, sandbox, tmp_path, signum, point):
    total = writes_of_new(runner, sandbox)
    assert total >= 5
    k = {"first": 1, "middle": total // 2, "last": total}[point]
    before = tree(sandbox)
    marker = tmp_path / "paused"
    env = {
        **os.environ,
        PAUSE_AFTER_ENV: str(k),
        PAUSE_MARKER_ENV: str(marker),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, *new_args(sandbox)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(marker, proc)
        paused = tree(sandbox)
        changed = {p for p in paused.keys() | before.keys() if paused.get(p) != before.get(p)}
        assert LOCK_PATH in changed and len(changed) > 1  # k writes happened, and the lock
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, out + err
    name = signal.Signals(signum).name
    assert error_lines(err) == [
        f"error: interrupted by {name} while writing; every file was put back as it was, "
        "nothing was written"
    ]
    assert tree(sandbox) == before


def test_a_command_killed_while_holding_the_lock_never_blocks_the_next(runner, sandbox, tmp_path,
                                                                       monkeypatch):
    """``ffgen new`` SIGKILLed half-way through its writes: its lock file is left behind, naming
    it, yet the next command takes the lock without waiting (and puts the half-written files
    back before it plans)."""
    marker = tmp_path / "paused"
    env = {**os.environ, PAUSE_AFTER_ENV: "2", PAUSE_MARKER_ENV: str(marker)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *new_args(sandbox)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(marker, proc)
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    assert json.loads((sandbox / LOCK_PATH).read_text())["pid"] == proc.pid
    monkeypatch.setenv(WAIT_ENV, "0")
    result = runner.invoke(app, new_args(sandbox))
    assert result.exit_code == 0, result.output
    assert (sandbox / "src/flow_factory/trainers/rl/my_grpo.py").exists()
    assert not (sandbox / LOCK_PATH).exists()
