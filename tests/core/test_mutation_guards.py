"""Write rules a one-line change to apply, the journal, the lock or the text-file codec would
break unnoticed (the first four from issue 22's audit, the rest from
``benchmarks/mutation_pass.py`` on those modules).

Each file is written through a temporary sibling (``.<name>.<random>.ffgen-tmp``) renamed over
it. A write that fails leaves no such sibling behind, and neither does a run killed in the
middle of one: the next command settles the journal and sweeps the strays with it.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from ffgen.checkout import textfile
from ffgen.errors import RefusedError
from ffgen.generate.plan import FileChange, Plan, Status
from ffgen.write import journal, lock
from ffgen.write.apply import apply_plan
from tests.helpers import tree

SUFFIX = ".ffgen-tmp"


def strays(root: Path) -> list[str]:
    return [p for p in tree(root) if p.endswith(SUFFIX)]


@pytest.fixture
def pkg(tmp_path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("B = 1\n")
    return tmp_path


def plan() -> Plan:
    return Plan("x", (
        FileChange("pkg/a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),
        FileChange("pkg/b.py", Status.UPDATE, "B = 1\n", "B = 2\n"),
    ))


def test_a_durable_write_that_fails_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "a.py"
    target.write_text("A = 1\n")

    def refuse(src, dst):
        raise OSError("rename refused (injected)")

    monkeypatch.setattr(journal.os, "replace", refuse)
    with pytest.raises(OSError, match="injected"):
        journal.durable_write(target, b"A = 2\n", 0o644)
    assert strays(tmp_path) == []
    assert target.read_text() == "A = 1\n"


def test_an_apply_whose_write_fails_midway_leaves_no_temporary_file(pkg, monkeypatch):
    """The journal is written first (one rename), then a.py, then b.py: b.py's rename fails
    after its temporary sibling was written and fsynced."""
    real = os.replace
    calls = []

    def fail_third(src, dst):
        calls.append(dst)
        if len(calls) == 3:
            raise OSError("disk full (injected)")
        real(src, dst)

    before = tree(pkg)
    monkeypatch.setattr(journal.os, "replace", fail_third)
    with pytest.raises(RefusedError, match="injected"):
        apply_plan(pkg, plan())
    monkeypatch.setattr(journal.os, "replace", real)
    assert Path(calls[2]).name == "b.py"
    assert strays(pkg) == []
    assert tree(pkg) == before


def _killed_mid_write(pkg: Path, *, new_content: bool) -> None:
    """What SIGKILL inside a durable write leaves: the journal, a.py old or new, and a.py's
    temporary sibling (written, not yet renamed)."""
    entries = [journal.Entry("pkg/a.py", b"A = 1\n", 0o644, journal.digest(b"A = 2\n"))]
    journal.begin(pkg, journal.new_journal("x", entries, []), 0o644)
    if new_content:
        (pkg / "pkg" / "a.py").write_text("A = 2\n")
    (pkg / "pkg" / f".a.py.k1ll3d{SUFFIX}").write_text("A = 2\n")


def test_settling_a_rolled_back_journal_sweeps_the_temporary_files(pkg):
    _killed_mid_write(pkg, new_content=False)
    note = journal.settle(pkg)
    assert note is not None and "back as they were" in note
    assert strays(pkg) == []
    assert (pkg / "pkg" / "a.py").read_text() == "A = 1\n"


def test_settling_a_finished_journal_sweeps_the_temporary_files(pkg):
    _killed_mid_write(pkg, new_content=True)
    note = journal.settle(pkg)
    assert note is not None and "finished it" in note
    assert strays(pkg) == []
    assert (pkg / "pkg" / "a.py").read_text() == "A = 2\n"



# --- text files as users have them (ffgen.checkout.textfile) --------------------------------------


def test_a_python_file_neither_utf8_nor_declared_fails_decoding_on_its_byte():
    """No BOM, no coding line, a Latin-1 byte: read as UTF-8, and the error names the byte."""
    data = b"NAME = '\xe9'\n"
    assert textfile.encoding_of(data, "pkg/a.py") == "utf-8"
    with pytest.raises(UnicodeDecodeError) as caught:
        textfile.decode(data, "pkg/a.py")
    assert caught.value.object[caught.value.start] == 0xE9


def test_an_unchanged_line_between_two_edited_ones_keeps_its_own_ending():
    """A long file (300 lines, so difflib's popular-line heuristic would apply) whose blank
    lines end in ``\\n`` and the rest in ``\\r\\n``: editing the two lines around a blank one
    leaves that blank line's ending as it was."""
    lines = ["" if i % 10 == 0 else f"X{i} = {i}" for i in range(300)]
    old = b"".join(b"\n" if not line else line.encode() + b"\r\n" for line in lines)
    edited = [f"Y{i} = {i}" if i in (9, 11) else line for i, line in enumerate(lines)]
    expected = old.replace(b"X9 = 9\r\n", b"Y9 = 9\r\n").replace(b"X11 = 11\r\n", b"Y11 = 11\r\n")
    assert textfile.encode_like(old, "\n".join(edited) + "\n", "pkg/a.py") == expected


def test_a_last_line_without_an_ending_takes_the_files_ending_once_followed():
    old = b"A = 1\r\nB = 2"
    new = "A = 1\nB = 2\nC = 3\n"
    assert textfile.encode_like(old, new, "pkg/a.py") == b"A = 1\r\nB = 2\r\nC = 3\r\n"
    # and a new last line without an ending stays without one
    assert textfile.encode_like(b"A = 1\r\nB = 2\r\n", "A = 1\nB = 2", "pkg/a.py") == (
        b"A = 1\r\nB = 2"
    )


# --- the checkout's lock (ffgen.write.lock) -------------------------------------------------------


def _folder_vanishes_at_first_open(monkeypatch, folder: Path, comes_back: bool) -> None:
    """The first attempt to create the lock finds ``.ffgen/`` gone (a releasing holder removed
    it just then); with ``comes_back`` a third process has made it again before we do."""
    real = os.open
    calls = []

    def racing_open(path, flags, *args):
        calls.append(path)
        if len(calls) == 1:
            folder.rmdir()
            if comes_back:
                folder.mkdir()
            raise FileNotFoundError(path)
        return real(path, flags, *args)

    monkeypatch.setattr(lock.os, "open", racing_open)


@pytest.mark.parametrize("comes_back", [False, True])
def test_the_lock_survives_its_folder_vanishing_under_it(tmp_path, monkeypatch, comes_back):
    folder = tmp_path / ".ffgen"
    folder.mkdir()
    _folder_vanishes_at_first_open(monkeypatch, folder, comes_back)
    with lock.checkout_lock(tmp_path, wait=0):
        assert (tmp_path / lock.LOCK_PATH).is_file()
    monkeypatch.undo()
    assert not (tmp_path / lock.LOCK_PATH).exists()


def test_a_folder_the_lock_had_to_make_again_goes_with_it(tmp_path, monkeypatch):
    """``.ffgen/`` was there (empty) and its previous holder removed it: the folder the lock
    made again is its own, and goes on release."""
    folder = tmp_path / ".ffgen"
    folder.mkdir()
    _folder_vanishes_at_first_open(monkeypatch, folder, comes_back=False)
    with lock.checkout_lock(tmp_path, wait=0):
        pass
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("pid", [0, -1])
def test_a_lock_naming_no_real_process_is_taken_over(tmp_path, pid):
    """pid 0 and below name no process (``kill`` would signal a whole group): such a lock is
    stale, never waited for."""
    path = tmp_path / lock.LOCK_PATH
    path.parent.mkdir()
    path.write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "time": "t"}))
    with lock.checkout_lock(tmp_path, wait=0.1):
        assert json.loads(path.read_text())["pid"] == os.getpid()
    assert not path.exists()


# --- settling and tidying (ffgen.write.journal) ---------------------------------------------------


def test_the_settle_note_counts_the_files_it_put_back(pkg):
    entries = [
        journal.Entry("pkg/a.py", b"A = 1\n", 0o644, journal.digest(b"A = 2\n")),
        journal.Entry("pkg/b.py", b"B = 1\n", 0o644, journal.digest(b"B = 2\n")),
        journal.Entry("pkg/c.py", None, None, journal.digest(b"C = 1\n")),
    ]
    journal.begin(pkg, journal.new_journal("x", entries, []), 0o644)
    (pkg / "pkg" / "a.py").write_text("A = 2\n")  # written before the kill; b.py, c.py not
    note = journal.settle(pkg)
    assert note is not None and "put 1 file(s) back" in note
    assert (pkg / "pkg" / "a.py").read_text() == "A = 1\n"


def test_a_rollback_puts_back_the_mode_of_a_file_whose_bytes_are_old(pkg):
    target = pkg / "pkg" / "a.py"
    target.chmod(0o640)
    entries = [journal.Entry("pkg/a.py", b"A = 1\n", 0o600, journal.digest(b"A = 2\n"))]
    journal.begin(pkg, journal.new_journal("x", entries, []), 0o644)
    journal.settle(pkg)
    assert target.read_text() == "A = 1\n" and target.stat().st_mode & 0o777 == 0o600


def test_a_deleted_modules_bytecode_and_emptied_cache_go_with_it(tmp_path):
    folder = tmp_path / "pkg" / "sub"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"")
    journal.remove_emptied_folders(tmp_path, [folder / "mod.py"])  # mod.py itself is gone
    assert tree(tmp_path) == {}


def test_another_modules_bytecode_keeps_the_cache(tmp_path):
    cache = tmp_path / "pkg" / "__pycache__"
    cache.mkdir(parents=True)
    (cache / "mod.cpython-311.pyc").write_bytes(b"")
    (cache / "other.cpython-311.pyc").write_bytes(b"")
    journal.remove_emptied_folders(tmp_path, [tmp_path / "pkg" / "mod.py"])
    assert sorted(tree(tmp_path)) == [
        "pkg", "pkg/__pycache__", "pkg/__pycache__/other.cpython-311.pyc"
    ]


def test_reading_the_umask_leaves_it_as_it_was():
    previous = os.umask(0o077)
    try:
        assert journal.umask_mode() == 0o600
        assert os.umask(0o077) == 0o077
    finally:
        os.umask(previous)
