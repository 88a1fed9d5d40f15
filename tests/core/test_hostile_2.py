"""Found by a second fresh hostile probe (issue 31's last line): names and paths that read as
rich markup, a damaged record that changed another algorithm's verdict, a read-only command
calling a live writer "stopped", messages quoting a whole huge argument or a line ``None``, a
key too long for a file name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.core.test_hostile import REGISTRY, ffgen, new, one_line, tree
from tests.helpers import SPECS


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """As tests/core/test_hostile.py's: a sandbox with `my-grpo` and `my-dpo` generated."""
    from ffgen.sandbox import create_sandbox

    root = create_sandbox(tmp_path_factory.mktemp("hostile2") / "base")
    for name, spec in (("my-grpo", "grpo"), ("my-dpo", "offline_dpo")):
        result = new(root, name, *SPECS[spec])
        assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def root(base, tmp_path) -> Path:
    target = tmp_path / "checkout"
    shutil.copytree(base, target, symlinks=True)
    return target


# --- names and paths that look like rich markup ---------------------------------------------


def add_registry_key(root: Path, key: str) -> None:
    registry = root / REGISTRY
    text = registry.read_text()
    entry = f'    "{key}": "nowhere.X",\n'
    registry.write_text(text.replace('    "my-dpo":', entry + '    "my-dpo":', 1))


@pytest.mark.parametrize("command", [["verify"], ["verify", "--fix"], ["list"]])
def test_a_registry_key_that_reads_as_a_closing_tag_is_printed_as_it_is(root, command):
    add_registry_key(root, "[/x]")
    result = ffgen(*command, "--checkout", root)
    assert result.exit_code in (0, 1), result.output
    assert "[/x]" in result.stdout


def test_a_record_key_that_reads_as_a_closing_tag_is_reported_by_check(root):
    record = root / ".ffgen/answers/my-dpo.yml"
    record.write_text(record.read_text() + '"[/x]": 1\n')
    result = ffgen("check", "--checkout", root)
    assert result.exit_code == 1
    assert "unknown key '[/x]' in the record" in result.stdout


def test_an_error_quoting_a_closing_tag_is_one_line(root):
    result = ffgen("update", "[/x]", "--checkout", root)
    assert result.exit_code == 1
    assert "[/x] has no ffgen record" in one_line(result)


def test_a_checkout_path_that_reads_as_a_closing_tag_is_written_to_and_said(root):
    inside = root.parent / "co[" / "x]"
    inside.parent.mkdir()
    shutil.move(root, inside)
    result = new(inside, "b", *SPECS["sft"])
    assert result.exit_code == 0, result.output
    assert f"file(s) written under {inside.resolve()}" in result.stdout
    removed = ffgen("remove", "b", "--checkout", inside)
    assert removed.exit_code == 0 and f"changed under {inside.resolve()}" in removed.stdout


# --- one damaged record changes nothing about another algorithm ---------------------------------


@pytest.mark.parametrize("damage", ["answers: 5\nx:\n", "answers: [a]\nx:\n"])
def test_a_damaged_record_leaves_other_algorithms_checked_as_before(root, damage):
    record = root / ".ffgen/answers/my-dpo.yml"
    record.write_text(record.read_text().replace("answers:\n", damage, 1))
    result = ffgen("check", "--checkout", root)
    assert result.exit_code == 1
    lines = {line.split()[1].rstrip(":"): line for line in result.stdout.splitlines()}
    assert lines["my-grpo"].startswith("ok"), result.stdout
    assert lines["my-dpo"].startswith("FAIL")


# --- a read-only command beside a writer that runs --------------------------------------------


def test_a_read_only_command_does_not_call_a_running_writer_stopped(root):
    import subprocess
    import sys

    from ffgen.write.journal import Entry, begin, new_journal

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        from ffgen.write import journal

        writer = journal.this_writer(sleeper.pid)
        begin(root, new_journal("b", [Entry("x.txt", None, None, "0" * 64)], []), 0o644)
        path = root / ".ffgen/journal.json"
        data = json.loads(path.read_text())
        data["writer"] = {"host": writer.host, "boot": writer.boot, "pid": writer.pid,
                          "start": writer.start}
        path.write_text(json.dumps(data))
        result = ffgen("check", "--checkout", root)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert result.exit_code == 1
    line = one_line(result)
    assert f"ffgen process {sleeper.pid} is writing 'b' now" in line and "stopped" not in line


def test_a_nul_byte_in_a_module_is_refused_without_a_line_none(root):
    registry = root / REGISTRY
    registry.write_bytes(registry.read_bytes() + b"# a\x00b\n")
    result = new(root, "b", *SPECS["sft"])
    assert result.exit_code == 1
    line = one_line(result)
    assert f"{REGISTRY}: does not parse" in line and ":None:" not in line


# --- an error line quotes a huge argument bounded ---------------------------------------------


@pytest.mark.parametrize("args", [
    ["param", "add", "my-dpo", "x:str=" + "y" * 100_000],
    ["param", "add", "my-dpo", "y" * 100_000 + ":int=1"],
    ["update", "y" * 100_000],
    ["list", "--format", "y " * 50_000],
])
def test_an_error_line_quotes_a_huge_argument_bounded(root, args):
    result = ffgen(*args, "--checkout", root)
    assert result.exit_code in (1, 2)
    line = one_line(result)
    assert len(line) < 4100 and "characters)..." in line


@pytest.mark.parametrize("command", [["update"], ["remove"], ["remove", "--force"],
                                     ["param", "add", "zz:int=1"], ["param", "remove", "zz"]])
def test_a_key_too_long_for_a_file_name_is_no_traceback(root, command):
    before = tree(root)
    args = [*command[:-1], "k" * 300, command[-1]] if command[0] == "param" else [
        command[0], "k" * 300, *command[1:]]
    result = ffgen(*args, "--checkout", root)
    assert result.exit_code in (1, 2)
    assert "k" * 100 in one_line(result)
    assert tree(root) == before
