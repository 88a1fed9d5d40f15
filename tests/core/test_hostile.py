"""A hostile CI system and a careless user (issue 31): a lock or a journal turned into a weapon,
docs markers lost, names that shadow modules, and inputs built to hang or crash ffgen."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ffgen.cli import app
from ffgen.write import JOURNAL_PATH
from tests.helpers import SPECS
from tests.helpers import tree as file_tree

DOCS = "guidance/algorithms.md"
REGISTRY = "src/flow_factory/trainers/registry.py"


def ffgen(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def new(root: Path, name: str, *flags: str):
    return ffgen("new", name, "--checkout", root, "--yes", "--model-type", "toy", *flags)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A sandbox with a GRPO-like `my-grpo` and an offline-DPO `my-dpo` generated into it."""
    from ffgen.sandbox import create_sandbox

    root = create_sandbox(tmp_path_factory.mktemp("hostile") / "base")
    for name, spec in (("my-grpo", "grpo"), ("my-dpo", "offline_dpo")):
        result = new(root, name, *SPECS[spec])
        assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def root(base, tmp_path) -> Path:
    target = tmp_path / "checkout"
    shutil.copytree(base, target, symlinks=True)
    return target


def tree(root: Path) -> dict[str, object]:
    """``tests.helpers.tree``, with a FIFO shown as such (reading one would block)."""
    fifos = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_fifo()]
    for rel in fifos:
        (root / rel).unlink()
    try:
        out = file_tree(root)
    finally:
        for rel in fifos:
            os.mkfifo(root / rel)
    return {**out, **dict.fromkeys(fifos, "fifo")}


def one_line(result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# --- 1, 11: a lock that is not a plain file of ffgen's ------------------------------------------


@pytest.mark.parametrize("kind", ["symlink", "hard link", "fifo"])
@pytest.mark.parametrize("command", [["update", "my-dpo"], ["remove", "my-dpo"], ["new", "b"]])
def test_a_lock_that_is_a_link_or_a_fifo_is_refused_and_left_alone(root, kind, command):
    lock = root / ".ffgen" / "lock"
    if kind == "symlink":
        lock.symlink_to(f"../{DOCS}")
    elif kind == "hard link":
        os.link(root / REGISTRY, lock)
    else:
        os.mkfifo(lock)
    before = tree(root)
    extra = [*SPECS["grpo"], "--model-type", "toy", "--yes"] if command[0] == "new" else []
    result = ffgen(*command, "--checkout", root, *extra)
    assert result.exit_code == 1, result.output
    assert f"is a {kind}" in one_line(result) or "not a regular file" in result.stderr
    assert tree(root) == before


# --- 2: a journal is settled only by a writer, only on its machine, within the umask -------------


def planted_journal(root: Path, mode: int, host: str | None = None) -> dict:
    """A journal that claims AGENTS.md held injected text, with ``mode``."""
    from ffgen.write.journal import Entry, begin, digest, new_journal

    agents = root / "AGENTS.md"
    current = agents.read_bytes()
    entries = [Entry("AGENTS.md", b"injected\n", mode, digest(current)),
               Entry("never-written.txt", None, None, digest(b"x"))]  # so it rolls back
    begin(root, new_journal("evil", entries, []), 0o644)
    data = json.loads((root / JOURNAL_PATH).read_text())
    data["writer"]["start"] = "0"  # a process that is gone (this one started later)
    if host is not None:
        data["writer"]["host"] = host
    (root / JOURNAL_PATH).write_text(json.dumps(data))
    return data


@pytest.mark.parametrize("command", [
    ["verify"], ["check"], ["list"], ["update", "my-dpo", "--dry-run"],
    ["remove", "my-dpo", "--dry-run"], ["param", "add", "my-dpo", "zz:int=1", "--dry-run"],
    ["new", "b", "--dry-run", "--yes", "--model-type", "toy", *SPECS["grpo"]],
])
def test_read_only_commands_and_dry_runs_never_settle_a_journal(root, command):
    planted_journal(root, 0o4777)
    before = tree(root)
    result = ffgen(*command, "--checkout", root)
    assert result.exit_code != 0
    assert "never settles it" in one_line(result)
    assert tree(root) == before


def test_a_settled_journal_never_sets_mode_bits_beyond_the_umask(root):
    planted_journal(root, 0o7777)
    old = os.umask(0o022)
    try:
        result = ffgen("update", "my-dpo", "--checkout", root)
    finally:
        os.umask(old)
    assert "put 1 file(s) back" in result.stderr
    agents = root / "AGENTS.md"
    assert agents.read_bytes() == b"injected\n"
    assert agents.stat().st_mode & 0o7777 == 0o755


def test_a_journal_from_another_machine_is_refused_not_settled(root):
    planted_journal(root, 0o644, host="ci-runner-7 (0123456789abcdef)")
    before = tree(root)
    result = ffgen("update", "my-dpo", "--checkout", root)
    assert result.exit_code == 1
    assert "written on another machine" in one_line(result)
    assert tree(root) == before


def test_the_lock_and_journal_are_kept_out_of_git(root):
    ignored = (root / ".ffgen" / ".gitignore").read_text().split()
    assert {"/lock", "/journal.json"} <= set(ignored)
    for key in ("my-dpo", "my-grpo"):
        assert ffgen("remove", key, "--checkout", root).exit_code == 0
    assert not (root / ".ffgen").exists()  # the last record takes the ignore file with it


# --- 3: docs markers missing or doubled ----------------------------------------------------------


def drop_end_marker(root: Path) -> int:
    docs = root / DOCS
    text = docs.read_text().replace("<!-- ffgen:end my-dpo -->\n", "")
    docs.write_text(text + "\n## My notes\n\nkeep me\n")
    return text.split("\n").index("<!-- ffgen:begin my-dpo -->") + 1


def test_a_missing_end_marker_is_reported_by_list_and_check(root):
    line = drop_end_marker(root)
    listed = ffgen("list", "--checkout", root, "--format", "json")
    dpo = next(a for a in json.loads(listed.stdout)["algorithms"] if a["key"] == "my-dpo")
    assert dpo["state"] != "unchanged"
    checked = ffgen("check", "--checkout", root)
    assert checked.exit_code == 1
    assert f"{DOCS}:{line}:" in checked.output
    assert "no `<!-- ffgen:end my-dpo -->`" in checked.output


@pytest.mark.parametrize("command", [["update", "my-dpo"], ["remove", "my-dpo", "--force"],
                                     ["param", "add", "my-dpo", "zz:int=1"]])
def test_a_missing_end_marker_is_a_refusal_naming_the_line(root, command):
    line = drop_end_marker(root)
    before = tree(root)
    result = ffgen(*command, "--checkout", root)
    assert result.exit_code == 1, result.output
    assert f"{DOCS}:{line}: the docs section of my-dpo has no" in one_line(result)
    assert tree(root) == before


def test_a_doubled_begin_marker_never_deletes_text_between(root):
    docs = root / DOCS
    docs.write_text(docs.read_text() + "\nnotes\n<!-- ffgen:begin my-grpo -->\nmore notes\n")
    before = tree(root)
    result = ffgen("remove", "my-grpo", "--force", "--checkout", root)
    assert result.exit_code == 1
    assert "a second `<!-- ffgen:begin my-grpo -->`" in one_line(result)
    assert tree(root) == before


# --- 4: a category that would shadow a module ---------------------------------------------------


@pytest.mark.parametrize("category", ["registry", "abc", "execution"])
def test_a_category_naming_an_existing_module_is_refused(root, category):
    if not (root / f"src/flow_factory/trainers/{category}.py").exists():
        pytest.fail(f"the sandbox has no trainers/{category}.py")
    before = tree(root)
    result = new(root, "b", *SPECS["grpo"], "--category", category)
    assert result.exit_code == 1
    assert f"trainers/{category}.py is a module" in one_line(result)
    assert tree(root) == before


# --- 5: a package re-export of a module that does not exist -------------------------------------


def test_verify_finds_a_package_importing_a_renamed_module(root):
    trainers = root / "src/flow_factory/trainers"
    (trainers / "offline/my_dpo.py").rename(trainers / "offline/my_dpo_v2.py")
    registry = trainers / "registry.py"
    registry.write_text(registry.read_text().replace("offline.my_dpo.", "offline.my_dpo_v2."))
    result = ffgen("verify", "--checkout", root, "--format", "json")
    assert result.exit_code == 1
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "FF109"]
    assert [f["path"] for f in found] == ["src/flow_factory/trainers/offline/__init__.py"]


def test_verify_finds_an_hparams_import_of_a_module_that_is_not_there(root):
    init = root / "src/flow_factory/hparams/training_args/__init__.py"
    init.write_text(init.read_text() + "from .nonexistent import Foo\n")
    result = ffgen("verify", "--checkout", root, "--format", "json")
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "FF109"]
    assert len(found) == 1 and "nonexistent" in found[0]["message"]


# --- 6-9: inputs built to hang or crash ----------------------------------------------------------


def alias_bomb(levels: int = 9) -> str:
    """A YAML flow list whose last item expands to 10**levels strings."""
    items = ["&b0 [x, x, x, x, x, x, x, x, x, x]"]
    items += [f"&b{i} [" + ", ".join([f"*b{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "[" + ", ".join(items) + "]"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("field", ["params", "created"])
@pytest.mark.parametrize("command", [["list"], ["check"], ["update", "my-dpo"]])
def test_an_alias_bomb_in_a_record_is_refused_at_once(root, field, command):
    record = root / ".ffgen/answers/my-dpo.yml"
    text = record.read_text()
    if field == "params":
        text = text.replace("answers:\n", f"answers:\n  params: {alias_bomb()}\n", 1)
    else:
        text = text.replace("\ncreated:", f"\ncreated: {alias_bomb()}\nold_created:", 1)
    record.write_text(text)
    result = ffgen(*command, "--checkout", root)
    if command == ["list"]:  # the damaged record shows broken beside the others
        assert result.exit_code == 0 and "broken" in result.stdout
        return
    assert result.exit_code == 1
    text = result.output if command == ["check"] else one_line(result)
    assert "expands to more than" in text and len(text) < 400


def test_a_message_quotes_a_value_bounded():
    from ffgen.errors import quoted

    bomb = ["x"] * 10
    for _ in range(9):
        bomb = [bomb] * 10
    assert len(quoted(bomb)) <= 80
    assert "..." in quoted("y" * 10_000) and len(quoted("y" * 10_000)) <= 80


@pytest.mark.timeout(60)
def test_a_base_that_decompresses_to_gigabytes_is_refused(root):
    import base64
    import zlib

    packed = zlib.compress(b'{"a": "' + b"x" * (200 * 1024 * 1024) + b'"}', 9)
    (root / ".ffgen/base/my-dpo.b85").write_text(base64.b85encode(packed).decode())
    result = ffgen("check", "--checkout", root)
    assert result.exit_code == 1
    assert ".ffgen/base/my-dpo.b85 is damaged" in result.output
    assert "Traceback" not in result.output


@pytest.mark.timeout(90)
@pytest.mark.parametrize("command", [["param", "add", "my-dpo", "zz:int=1"], ["new", "b"]])
def test_a_huge_expression_is_refused_before_libcst_parses_it(root, command):
    module = root / "src/flow_factory/hparams/training_args/my_dpo.py"
    if command[0] == "new":
        module = root / "src/flow_factory/hparams/training_args/__init__.py"
    module.write_text(module.read_text() + "_X = " + " + ".join(["1"] * 20_000) + "\n")
    before = tree(root)
    extra = ["--yes", "--model-type", "toy", *SPECS["sft"]] if command[0] == "new" else []
    result = ffgen(*command, "--checkout", root, *extra)
    assert result.exit_code == 1
    assert "nested too deeply" in one_line(result)
    assert tree(root) == before


@pytest.mark.timeout(90)
@pytest.mark.parametrize("command", [["list"], ["check"], ["update", "my-dpo"],
                                     ["param", "add", "my-dpo", "zz:int=1"]])
def test_deeply_nested_yaml_in_an_example_is_no_traceback(root, command):
    example = next((root / "examples/my_dpo").rglob("*.yaml"))
    example.write_text(example.read_text() + "deep: " + "[" * 5000 + "]" * 5000 + "\n")
    result = CliRunner().invoke(app, [*command, "--checkout", str(root)])
    assert not isinstance(result.exception, RecursionError), result.exception
    assert result.exit_code in (0, 1)
    if result.exit_code == 1:
        assert "examples/my_dpo" in result.output


# --- 10, 12: output to a full device, Ctrl+C ------------------------------------------------------

FFGEN = Path(__import__("sys").executable).with_name("ffgen")  # the console script


@pytest.mark.parametrize("command", [["list"], ["verify"], ["--help"], ["--version"],
                                     ["new", "b", "--yes", "--model-type", "toy", *SPECS["sft"]]])
def test_output_to_a_full_device_is_one_line_and_writes_nothing(root, command):
    import subprocess

    where = [] if command[0].startswith("--") else ["--checkout", str(root)]
    before = tree(root)
    with open("/dev/full", "w") as full:
        done = subprocess.run([FFGEN, *command, *where], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == [lines[0]] and "No space left on device" in lines[0], done.stderr
    assert tree(root) == before


def _default_ctrl_c() -> None:
    """Ctrl+C as a terminal delivers it: a test run started in the background (``pytest &``,
    nohup) has SIGINT ignored, and a child inherits that, so the signal would do nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("command", [["check"], ["list"], ["verify"], ["verify", "--fix"],
                                     ["update", "my-dpo"]])
def test_ctrl_c_exits_130_with_one_line(root, command):
    import signal
    import subprocess
    import time

    argv = [FFGEN, *command, "--checkout", str(root)]
    # The signal goes at fractions of the command's own uninterrupted time on this machine (a
    # loaded CI machine can take longer to start Python than a fixed delay allows).
    started = time.monotonic()
    normal = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    whole = time.monotonic() - started
    outcomes = []
    for fraction in (0.5, 0.35, 0.65, 0.2, 0.8, 0.5):
        if 130 in outcomes:
            break
        proc = subprocess.Popen(argv, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=_default_ctrl_c)
        time.sleep(whole * fraction)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, err
        outcomes.append(proc.returncode)
        if proc.returncode == -signal.SIGINT:
            # Killed with no Python handler in place: before the interpreter's start-up installs
            # one, or after its finalization removed it. No Python code of ffgen's runs then,
            # and nothing but what an uninterrupted run says may have been said.
            assert err in ("", normal.stderr), err
        elif proc.returncode != 0:  # (0: it finished before the signal)
            assert proc.returncode == 130, err
            assert [line for line in err.splitlines() if line.strip()] == [
                "error: interrupted (Ctrl+C)"
            ], err
    assert 130 in outcomes, (whole, outcomes)


# --- messages -------------------------------------------------------------------------------------


def test_git_merge_markers_are_not_called_ffgen_s(root):
    trainer = root / "src/flow_factory/trainers/offline/my_dpo.py"
    trainer.write_text(trainer.read_text() + "<<<<<<< HEAD\nA = 1\n=======\nA = 2\n>>>>>>> b\n")
    result = ffgen("check", "--checkout", root)
    assert result.exit_code == 1
    assert "from git or another tool" in result.output
    assert "ffgen update --conflict inline" not in result.output


def test_a_use_count_names_the_uses_it_does_not_list(root):
    from ffgen.lifecycle.remove import _refuse_uses

    refs = [f"use {n}" for n in range(4)]
    target = type("T", (), {"key": "grpo"})()
    import ffgen.lifecycle.remove as remove_mod

    original = remove_mod.references
    remove_mod.references = lambda view, t: refs
    try:
        with pytest.raises(Exception, match=r"\(4 reference\(s\)\): use 0; use 1; use 2; and 1 "
                                            r"more"):
            _refuse_uses(None, target)
    finally:
        remove_mod.references = original


def test_a_param_given_twice_says_so(root):
    result = ffgen("param", "add", "my-dpo", "zz:int=1", "zz:int=2", "--checkout", root)
    assert result.exit_code == 2
    assert "zz is given twice" in one_line(result)


def test_extends_of_an_unknown_key_does_not_suggest_like(root):
    result = new(root, "b", *SPECS["grpo"], "--extends", "nosuch")
    assert result.exit_code == 2
    line = one_line(result)
    assert "'nosuch' is not an algorithm of this checkout" in line and "--like nosuch" not in line


def test_a_quote_in_a_str_param_is_refused_as_the_message_says(root):
    result = new(root, "b", *SPECS["sft"], "--param", "x:str=it's", "--dry-run")
    assert result.exit_code == 2
    assert "without quotes" in one_line(result)


def test_checkout_naming_a_file_says_it_is_a_file(root):
    result = ffgen("list", "--checkout", root / "AGENTS.md")
    assert result.exit_code == 2
    assert "is a file, not a folder" in one_line(result)


def test_a_python_tag_in_a_record_is_named_as_such(root):
    record = root / ".ffgen/answers/my-dpo.yml"
    record.write_text(record.read_text() + "evil: !!python/object:os.system {}\n")
    result = ffgen("update", "my-dpo", "--checkout", root)
    assert result.exit_code == 1
    line = one_line(result)
    assert "python/object" in line and "not valid YAML" not in line


def test_one_damaged_record_leaves_list_showing_the_others(root):
    record = root / ".ffgen/answers/my-dpo.yml"
    record.write_text(record.read_text() + "garbage: [\n")
    result = ffgen("list", "--checkout", root, "--format", "json")
    assert result.exit_code == 0
    states = {a["key"]: a["state"] for a in json.loads(result.stdout)["algorithms"]}
    assert states["my-grpo"] == "unchanged" and states["my-dpo"] == "broken"


def test_answers_as_a_file_is_refused_not_read_as_no_records(root):
    shutil.rmtree(root / ".ffgen/answers")
    (root / ".ffgen/answers").write_text("")
    result = ffgen("list", "--checkout", root)
    assert result.exit_code == 1
    assert ".ffgen/answers is a file" in one_line(result)


# --- 15: a remove killed while it took emptied folders away ---------------------------------------


def test_settling_a_remove_killed_among_its_folder_removals_leaves_no_empty_folder(tmp_path):
    from ffgen.write import journal

    (tmp_path / "keep.txt").write_text("k\n")
    entries = [journal.Entry("a/b/c/f.txt", b"x\n", 0o644, None)]
    journal.begin(tmp_path, journal.new_journal("gone", entries, []), 0o644)
    (tmp_path / "a/b").mkdir(parents=True)  # the kill came after c/ went, before b/ and a/ did
    note = journal.settle(tmp_path)
    assert note is not None and "finished it" in note
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".ffgen") == ["keep.txt"]


# --- 13, 14: a --like source removed, a generated module renamed --------------------------------


def test_removing_a_like_source_warns_and_check_accepts_the_copy(root):
    assert new(root, "cp1", "--like", "my-grpo").exit_code == 0
    removed = ffgen("remove", "my-grpo", "--checkout", root)
    assert removed.exit_code == 0
    assert "note: cp1 was copied from my-grpo (--like)" in removed.stderr
    checked = ffgen("check", "--checkout", root)
    assert checked.exit_code == 0, checked.output


def test_a_renamed_module_is_diagnosed_as_renamed_and_moving_it_back_works(root):
    offline = root / "src/flow_factory/trainers/offline"
    registry, init = root / REGISTRY, offline / "__init__.py"
    originals = {p: p.read_text() for p in (registry, init)}
    (offline / "my_dpo.py").rename(offline / "my_dpo_v2.py")
    registry.write_text(registry.read_text().replace("offline.my_dpo.", "offline.my_dpo_v2."))
    init.write_text(init.read_text().replace("from .my_dpo import", "from .my_dpo_v2 import"))
    checked = ffgen("check", "--checkout", root)
    assert checked.exit_code == 1
    assert "already maps to `flow_factory.trainers.offline.my_dpo_v2.MyDPO" in checked.output
    assert "renamed or moved by hand" in checked.output and "entries missing" not in checked.output
    (offline / "my_dpo_v2.py").rename(offline / "my_dpo.py")  # what the message says to do
    for path, text in originals.items():
        path.write_text(text)
    assert ffgen("check", "--checkout", root).exit_code == 0


def test_a_journal_nested_too_deeply_is_one_line(root):
    (root / JOURNAL_PATH).write_text("[" * 100_000)
    before = tree(root)
    result = ffgen("update", "my-dpo", "--checkout", root)
    assert result.exit_code == 1
    assert "is not a journal ffgen can read" in one_line(result)
    assert tree(root) == before


# --- found by the fresh probe: a FIFO where a file should be, a device as --answers ---------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("rel", [".ffgen/base/my-dpo.b85", "tests/trainers/test_my_dpo.py"])
@pytest.mark.parametrize("command", [["check"], ["remove", "my-dpo", "--force"]])
def test_a_fifo_in_a_file_s_place_is_refused_not_waited_on(root, rel, command):
    (root / rel).unlink()
    os.mkfifo(root / rel)
    before = tree(root)
    result = ffgen(*command, "--checkout", root)
    assert result.exit_code == 1
    assert f"{rel} is not a regular file" in result.output
    assert tree(root) == before


@pytest.mark.timeout(60)
def test_answers_from_a_device_is_refused_not_read_forever(root):
    result = new(root, "b", *SPECS["sft"], "--answers", "/dev/zero")
    assert result.exit_code == 2
    assert "not a record file" in one_line(result)


@pytest.mark.parametrize("roles", [",,", "generator,,critic", "generator,", ""])
def test_an_empty_role_name_is_refused_not_dropped(root, roles):
    before = tree(root)
    result = new(root, "my-sft", *SPECS["sft"], "--roles", roles)
    assert result.exit_code == 2
    assert "has an empty role name" in one_line(result)
    assert tree(root) == before


def test_check_fails_on_a_deleted_generated_file_and_its_fix_works(root):
    example = root / "examples/my_dpo"
    (path,) = [p for p in example.rglob("*.yaml")]
    path.unlink()
    result = ffgen("check", "--checkout", root)
    assert result.exit_code == 1
    line = next(x for x in result.output.splitlines() if "my-dpo" in x)
    assert f"deleted by hand: {path.relative_to(root).as_posix()}" in line
    data = json.loads(ffgen("check", "--checkout", root, "--format", "json").stdout)
    (row,) = [a for a in data["algorithms"] if a["key"] == "my-dpo"]
    assert row["deleted"] == [path.relative_to(root).as_posix()] and not row["ok"]
    fix = line.split("run `ffgen ", 1)[1].split("`", 1)[0].split()
    assert fix[-2:] == ["--checkout", str(root)]  # (the test runs elsewhere)
    assert ffgen(*fix).exit_code == 0
    assert path.is_file() and ffgen("check", "--checkout", root).exit_code == 0
