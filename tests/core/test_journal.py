"""The write-ahead journal: a `new` or `remove` killed with SIGKILL between any two writes leaves
a tree the next command makes fully old or fully new; two `new` runs on one checkout never plan
against each other's half-written tree."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ffgen.cli import app
from ffgen.errors import RefusedError
from ffgen.generate.plan import FileChange, Plan, Status
from ffgen.write import journal
from ffgen.write.apply import PAUSE_AFTER_ENV, PAUSE_MARKER_ENV, PAUSE_SECONDS_ENV, apply_plan
from ffgen.write.journal import JOURNAL_PATH
from ffgen.write.lock import WAIT_ENV
from tests.helpers import SPECS, tree

REPO = Path(__file__).resolve().parents[2]
CHILD = "from ffgen.entry import main; main()"


def new_args(root: Path, name: str = "my-grpo") -> list[str]:
    return ["new", name, "--checkout", str(root), "--yes", "--model-type", "toy", *SPECS["grpo"]]


def count_writes(runner, args: list[str]) -> int:
    result = runner.invoke(app, [*args, "--dry-run", "--format", "json"])
    assert result.exit_code == 0, result.output
    files = json.loads(result.stdout)["files"]
    return sum(f["status"] in ("CREATE", "UPDATE", "DELETE") for f in files)


def start(args: list[str], tmp_path: Path, env: dict[str, str]) -> subprocess.Popen:
    full = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, *args], cwd=REPO, env=full, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def kill_after_write(args: list[str], k: int, tmp_path: Path) -> None:
    """Run ``ffgen ARGS`` until it has made its k-th write, then SIGKILL it: no cleanup runs."""
    marker = tmp_path / f"paused-{k}"
    proc = start(args, tmp_path, {PAUSE_AFTER_ENV: str(k), PAUSE_MARKER_ENV: str(marker)})
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if proc.poll() is not None:
                pytest.fail(f"ended (rc {proc.returncode}) before write {k}: {proc.stderr.read()}")
            assert time.monotonic() < deadline, "timed out waiting for the pause"
            time.sleep(0.02)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL


def leftovers(root: Path) -> list[str]:
    return [p for p in tree(root) if p.endswith(".ffgen-tmp") or p == JOURNAL_PATH]


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """A fresh sandbox, and the same sandbox after a clean `new`: the only two legal states."""
    from typer.testing import CliRunner

    from ffgen.sandbox import create_sandbox

    base = tmp_path_factory.mktemp("trees")
    old = create_sandbox(base / "old")
    new = base / "new"
    shutil.copytree(old, new, symlinks=True)
    result = CliRunner().invoke(app, new_args(new))
    assert result.exit_code == 0, result.output
    return old, new


def copy_of(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "checkout"
    shutil.copytree(source, target, symlinks=True)
    return target


@pytest.mark.parametrize("point", ["first", "second", "middle", "next to last", "last"])
def test_new_killed_between_writes_is_settled_by_the_next_command(
    runner, trees, tmp_path, point
):
    old, new = trees
    root = copy_of(old, tmp_path)
    total = count_writes(runner, new_args(root))
    assert total >= 5
    k = {"first": 1, "second": 2, "middle": total // 2, "next to last": total - 1,
         "last": total}[point]
    kill_after_write(new_args(root), k, tmp_path)
    assert JOURNAL_PATH in tree(root)  # the kill left the transaction open
    result = runner.invoke(app, ["list", "--checkout", str(root)])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "stopped while writing my-grpo" in notes[0], result.stderr
    assert leftovers(root) == []
    if point == "last":  # every file was new already: the transaction is finished
        assert "finished it" in notes[0]
        assert tree(root) == tree(new)
    else:
        assert "back as they were" in notes[0]
        assert tree(root) == tree(old)
        again = runner.invoke(app, new_args(root))  # and `new` runs again as if nothing happened
        assert again.exit_code == 0, again.output
        assert tree(root) == tree(new)


@pytest.mark.parametrize("point", ["first", "middle", "last"])
def test_remove_killed_between_writes_is_settled_by_the_next_command(
    runner, trees, tmp_path, point
):
    old, new = trees
    root = copy_of(new, tmp_path)
    args = ["remove", "my-grpo", "--checkout", str(root)]
    total = count_writes(runner, args)
    assert total >= 3
    k = {"first": 1, "middle": total // 2, "last": total}[point]
    kill_after_write(args, k, tmp_path)
    result = runner.invoke(app, ["verify", "--checkout", str(root)])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("note:") == 1, result.stderr
    assert leftovers(root) == []
    assert tree(root) == (tree(old) if point == "last" else tree(new))


def test_two_new_runs_at_once_wait_for_each_other(runner, trees, tmp_path):
    old, _ = trees
    root = copy_of(old, tmp_path)
    marker = tmp_path / "first-paused"
    first = start(new_args(root, "algo-a"), tmp_path, {
        PAUSE_AFTER_ENV: "0", PAUSE_MARKER_ENV: str(marker), PAUSE_SECONDS_ENV: "3"})
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        # The first run has planned and not written yet: the second must wait, then plan on the
        # finished tree (a plan made now would be out of date when its turn to write comes).
        second = start(new_args(root, "algo-b"), tmp_path, {WAIT_ENV: "60"})
        out_b, err_b = second.communicate(timeout=120)
        out_a, err_a = first.communicate(timeout=60)
    finally:
        for proc in (first,):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert first.returncode == 0, err_a
    assert second.returncode == 0, err_b
    result = runner.invoke(app, ["verify", "--checkout", str(root)])
    assert result.exit_code == 0, result.output
    listed = runner.invoke(app, ["list", "--checkout", str(root), "--format", "json"])
    keys = {a["key"] for a in json.loads(listed.stdout)["algorithms"]}
    assert {"algo-a", "algo-b"} <= keys


# --- the journal itself ---------------------------------------------------------------------------


def small_plan() -> Plan:
    return Plan("x", (
        FileChange("pkg/a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),
        FileChange("pkg/new/c.py", Status.CREATE, None, "C = 1\n"),
    ))


@pytest.fixture
def pkg(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    return tmp_path


def test_apply_leaves_no_journal_and_writes_it_before_the_first_file(pkg, monkeypatch):
    from ffgen.write import apply as apply_mod

    seen = []
    real = apply_mod.write_file

    def spy(path, data, mode):
        seen.append(json.loads((pkg / JOURNAL_PATH).read_text()))
        real(path, data, mode)

    monkeypatch.setattr(apply_mod, "write_file", spy)
    apply_plan(pkg, small_plan())
    entries = seen[0]["entries"]
    assert [e["path"] for e in entries] == ["pkg/a.py", "pkg/new/c.py"]
    assert entries[1]["old"] is None and seen[0]["created_dirs"] == ["pkg/new"]
    assert not (pkg / ".ffgen").exists()


def write_journal(root: Path, text: str) -> None:
    (root / ".ffgen").mkdir(exist_ok=True)
    (root / JOURNAL_PATH).write_text(text)


@pytest.mark.parametrize("text", ["{", "[]", '{"format": 1}', '{"format": 9, "entries": []}'])
def test_a_garbled_journal_is_one_line_and_touches_nothing(pkg, text):
    write_journal(pkg, text)
    before = tree(pkg)
    with pytest.raises(RefusedError, match="is not a journal ffgen can read") as caught:
        journal.settle(pkg)
    assert "\n" not in caught.value.message
    assert tree(pkg) == before


def test_a_file_edited_since_the_kill_is_left_to_the_user(pkg):
    entries = [journal.Entry("pkg/a.py", b"A = 1\n", 0o644, journal.digest(b"A = 2\n"))]
    journal.begin(pkg, journal.new_journal("x", entries, []), 0o644)
    (pkg / "pkg" / "a.py").write_text("A = 3  # the user's\n")
    before = tree(pkg)
    with pytest.raises(RefusedError, match="pkg/a.py changed since"):
        journal.settle(pkg)
    assert tree(pkg) == before


def test_a_journal_path_outside_the_checkout_is_refused(pkg, tmp_path):
    entries = [journal.Entry("../evil.py", None, None, journal.digest(b"x"))]
    journal.begin(pkg, journal.new_journal("x", entries, []), 0o644)
    with pytest.raises(RefusedError, match="'..'"):
        journal.settle(pkg)


def test_a_journal_written_half_way_is_dropped(pkg):
    (pkg / ".ffgen").mkdir()
    (pkg / ".ffgen" / ".journal.json.abc.ffgen-tmp").write_text('{"form')
    (pkg / "pkg" / ".a.py.xyz.ffgen-tmp").write_text("A = 2")
    assert journal.settle(pkg) is None
    assert sorted(tree(pkg / ".ffgen")) == []


def test_new_files_take_the_umask_mode_and_replaced_files_keep_theirs(pkg):
    (pkg / "pkg" / "a.py").chmod(0o751)
    previous = os.umask(0o027)
    try:
        apply_plan(pkg, small_plan())
    finally:
        os.umask(previous)
    assert (pkg / "pkg" / "a.py").stat().st_mode & 0o777 == 0o751
    assert (pkg / "pkg" / "new" / "c.py").stat().st_mode & 0o777 == 0o640


def test_every_file_new_creates_has_the_umask_mode(trees):
    old, new = trees
    mask = os.umask(0o022)
    os.umask(mask)
    created = [p for p in tree(new) if p not in tree(old) and (new / p).is_file()]
    assert len(created) >= 6  # trainer, arguments, example, two tests, the record
    modes = {p: (new / p).stat().st_mode & 0o777 for p in created}
    assert set(modes.values()) == {0o666 & ~mask}, modes


def test_a_temporary_sibling_is_new_and_never_a_name_left_behind(tmp_path):
    from ffgen.write.journal import TMP_SUFFIX, _temporary_sibling, durable_write, remove_strays

    target = tmp_path / "x.py"
    left = tmp_path / f".x.py.{os.getpid()}-0{TMP_SUFFIX}"
    left.write_text("a killed run's")
    (tmp_path / f".x.py.{os.getpid()}-1{TMP_SUFFIX}").symlink_to(tmp_path / "elsewhere")
    fd, tmp = _temporary_sibling(target)
    os.close(fd)
    assert tmp.endswith(f".x.py.{os.getpid()}-2{TMP_SUFFIX}")
    assert os.stat(tmp).st_mode & 0o777 == 0o600 and not (tmp_path / "elsewhere").exists()
    assert left.read_text() == "a killed run's"  # skipped, not truncated
    durable_write(target, b"new", 0o644)
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o644
    remove_strays(tmp_path, "x.py")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.py"]
