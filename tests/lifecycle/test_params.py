"""Hyperparameters after ``new``: ``new --param`` and ``ffgen param add|remove``.

The margin-DPO walk-through of issue 21 in the sandbox (the suite passes, the example and docs
carry the field, ``update``/``remove`` stay exact, ``check`` is green), ``param add`` giving what
``--param`` gives, user edits surviving, and every refusal writing nothing.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ffgen.sandbox import create_sandbox
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import ffgen, json_out, new, record_file, rewrite_pristine

KEY, MODULE = "margin-dpo", "margin_dpo"
DPO = ("--acquisition", "dataset", "--supervision", "preference_pairs")
MARGIN = "margin:float=0.1:>=0"
ARGS = f"src/flow_factory/hparams/training_args/{MODULE}.py"
TRAINER = f"src/flow_factory/trainers/offline/{MODULE}.py"
EXAMPLE = f"examples/{MODULE}/lora/toy/default.yaml"
DOCS = "guidance/algorithms.md"
SUITE = (f"tests/trainers/test_{MODULE}.py", f"tests/hparams/test_{MODULE}_args.py")
FIELD = '    margin: float = field(\n        default=0.1,\n'
CHECK = "        if not 0.0 <= self.margin < math.inf:\n"
ROW = "| `margin` | `0.1` | Objective hyperparameter: a finite float >= 0. |\n"


def param(runner, root: Path, verb: str, *args: str):
    return ffgen(runner, "param", verb, KEY, *args, "--checkout", str(root))


def run_suite(root: Path) -> subprocess.CompletedProcess:
    """The generated suite as its files say to run it: ``PYTHONPATH=src pytest ...``."""
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", *SUITE],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def written(result) -> list[str]:
    """The files a JSON plan writes (not IDENTICAL, not KEPT as the user edited them)."""
    writes = ("CREATE", "UPDATE", "DELETE")
    return [f["path"] for f in json_out(result)["files"] if f["status"] in writes]


# -- the walk-through --------------------------------------------------------------------------


def test_margin_dpo_walk_through(runner, sandbox):
    """Rule (issue 21, done when): ``new --param`` renders the field with its help, its checks,
    the example entry, the docs row and the invalid-value tests; the suite passes with the
    objective reading the field; ``check`` is green; ``update`` writes nothing; ``remove`` gives
    the sandbox back as it was."""
    before = snapshot(sandbox)
    result = new(runner, sandbox, KEY, *DPO, "--param", MARGIN)
    assert result.exit_code == 0, result.output
    args = read(sandbox, ARGS)
    assert FIELD + '        metadata={"help": "Objective hyperparameter: a finite float >= 0."},\n'\
        in args
    assert CHECK in args
    assert "\n  margin: 0.1\n" in read(sandbox, EXAMPLE)
    assert ROW in read(sandbox, DOCS)
    args_test = read(sandbox, SUITE[1])
    assert '("margin", -1.0, ValueError),' in args_test
    assert '("margin", "not-a-number", TypeError),' in args_test
    assert '    "margin": 0.1,\n' in args_test
    assert "margin:float=0.1:>=0" in read(sandbox, f".ffgen/answers/{KEY}.yml")
    _objective_reads_margin(sandbox)
    suite = run_suite(sandbox)
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-2000:]
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0
    assert ffgen(runner, "verify", "--checkout", str(sandbox)).exit_code == 0
    update = ffgen(runner, "update", KEY, "--checkout", str(sandbox), "--format", "json")
    assert update.exit_code == 0 and written(update) == []
    removed = ffgen(runner, "remove", KEY, "--checkout", str(sandbox), "--force")
    assert removed.exit_code == 0, removed.output
    assert snapshot(sandbox) == before


def _objective_reads_margin(root: Path) -> None:
    """The researcher's edit inside the objective block: the loss reads ``margin``."""
    text = read(root, TRAINER)
    start = text.index("    def _objective_loss(")
    at = text.index("        adapter = self.adapter\n", start)
    line = "        assert self.training_args.margin >= 0.0  # margin-DPO reads its margin\n"
    (root / TRAINER).write_text(text[:at] + line + text[at:], encoding="utf-8")


# -- param add / remove against new --param ------------------------------------------------------


def test_param_add_gives_what_new_param_gives_and_remove_undoes_it(runner, tmp_path):
    """Rule: ``param add`` after ``new`` leaves the tree byte for byte as ``new --param`` leaves
    it (record included); ``param remove`` as a plain ``new`` does."""
    with_flag, later, plain = (create_sandbox(tmp_path / n) for n in ("flag", "later", "plain"))
    assert new(runner, with_flag, KEY, *DPO, "--param", MARGIN, "--param", "mode:str=a:a|b")\
        .exit_code == 0
    assert new(runner, plain, KEY, *DPO).exit_code == 0
    assert new(runner, later, KEY, *DPO).exit_code == 0
    result = param(runner, later, "add", MARGIN, "mode:str=a:a|b")
    assert result.exit_code == 0, result.output
    assert snapshot(later) == snapshot(with_flag)
    assert ffgen(runner, "check", "--checkout", str(later)).exit_code == 0
    update = ffgen(runner, "update", KEY, "--checkout", str(later), "--format", "json")
    assert update.exit_code == 0 and written(update) == []
    result = param(runner, later, "remove", "mode", "margin")
    assert result.exit_code == 0, result.output
    assert snapshot(later) == snapshot(plain)


def test_param_add_keeps_the_users_edits_next_to_where_the_param_goes(runner, sandbox):
    """Rule: the param lands after the user's own last field, check, ``train:`` key and docs row
    (where a plain three-way merge would conflict); ``update`` then has nothing to do and
    ``param remove`` gives the user's files back exactly."""
    assert new(runner, sandbox, KEY, *DPO).exit_code == 0
    _user_edits(sandbox)
    edited = {rel: read(sandbox, rel) for rel in (ARGS, EXAMPLE, DOCS)}
    result = param(runner, sandbox, "add", MARGIN)
    assert result.exit_code == 0, result.output
    args, example, docs = (read(sandbox, rel) for rel in (ARGS, EXAMPLE, DOCS))
    assert args.index("    mine: int = 3\n") < args.index(FIELD)
    assert args.index('raise ValueError("mine")') < args.index(CHECK)
    assert "  seed: 7\n  margin: 0.1\nscheduler:" in example
    assert "| `mine` | `3` | Mine. |\n" + ROW in docs
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0
    update = ffgen(runner, "update", KEY, "--checkout", str(sandbox), "--format", "json")
    assert update.exit_code == 0 and written(update) == []
    assert param(runner, sandbox, "remove", "margin").exit_code == 0
    assert {rel: read(sandbox, rel) for rel in (ARGS, EXAMPLE, DOCS)} == edited


def _user_edits(root: Path) -> None:
    args = read(root, ARGS)
    post_init = "\n    def __post_init__(self) -> None:"
    args = args.replace(post_init, "    mine: int = 3\n" + post_init, 1)
    end = next(n for n in ast.walk(ast.parse(args))
               if isinstance(n, ast.FunctionDef) and n.name == "__post_init__").end_lineno
    lines = args.splitlines(keepends=True)  # the user's own check, last in __post_init__
    lines.insert(end, '        if self.mine < 0:\n            raise ValueError("mine")\n')
    args = "".join(lines)
    assert "mine: int = 3" in args and 'raise ValueError("mine")' in args
    (root / ARGS).write_text(args, encoding="utf-8")
    (root / EXAMPLE).write_text(read(root, EXAMPLE).replace("  seed: 42\nscheduler:",
                                                            "  seed: 7\nscheduler:"))
    docs = read(root, DOCS)
    last_row = "| `beta` | `2000.0` | DPO inverse temperature (finite, > 0). |\n"
    assert last_row in docs
    (root / DOCS).write_text(docs.replace(last_row, last_row + "| `mine` | `3` | Mine. |\n"))


def test_param_add_brings_a_pending_template_change_like_update(runner, sandbox):
    """Rule: ``param add`` is ``update`` with the params changed: a template change ``update``
    has not merged yet arrives too, next to the user's edit."""
    assert new(runner, sandbox, KEY, *DPO).exit_code == 0
    current = read(sandbox, ARGS)
    docstring = "Generated by ffgen; the objective fields below are validated in"
    assert docstring in current
    rewrite_pristine(sandbox, KEY, ARGS, current.replace(docstring, "An older template said"))
    (sandbox / ARGS).write_text(current.replace(docstring, "An older template said")
                                .replace("    def __post_init__", "    mine: int = 3\n\n"
                                         "    def __post_init__"))
    assert param(runner, sandbox, "add", MARGIN).exit_code == 0
    args = read(sandbox, ARGS)
    assert docstring in args and "    mine: int = 3\n" in args and FIELD in args


def test_a_field_added_by_hand_just_works(runner, sandbox):
    """Rule: the generated suite builds its arguments from the real class, so a field the user
    adds by hand (with its example entry) breaks none of the generated tests."""
    assert new(runner, sandbox, KEY, *DPO).exit_code == 0
    post_init = "\n    def __post_init__(self) -> None:"
    hand = '    margin: float = field(default=0.1, metadata={"help": "By hand."})\n'
    (sandbox / ARGS).write_text(read(sandbox, ARGS).replace(post_init, hand + post_init, 1))
    (sandbox / EXAMPLE).write_text(read(sandbox, EXAMPLE).replace("  seed: 42\nscheduler:",
                                                                  "  seed: 42\n  margin: 0.2\n"
                                                                  "scheduler:"))
    _objective_reads_margin(sandbox)
    suite = run_suite(sandbox)
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-2000:]


# -- the output -----------------------------------------------------------------------------------


def test_dry_run_shows_the_diff_and_writes_nothing(runner, sandbox):
    assert new(runner, sandbox, KEY, *DPO).exit_code == 0
    before = snapshot(sandbox)
    result = param(runner, sandbox, "add", MARGIN, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "+    margin: float = field(" in result.output
    assert snapshot(sandbox) == before
    result = param(runner, sandbox, "add", MARGIN, "--dry-run", "--format", "json")
    data = json_out(result)
    assert data["command"] == "param add" and data["dry_run"] and not data["written"]
    assert data["params"] == [MARGIN]
    outside_the_record = {p for p in written(result) if not p.startswith(".ffgen/")}
    assert outside_the_record == {ARGS, EXAMPLE, DOCS, SUITE[1]}
    assert f".ffgen/answers/{KEY}.yml" in written(result)
    assert snapshot(sandbox) == before


def test_adding_the_same_param_again_changes_nothing(runner, sandbox):
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    before = snapshot(sandbox)
    result = param(runner, sandbox, "add", MARGIN, "--format", "json")
    assert result.exit_code == 0 and written(result) == []
    assert snapshot(sandbox) == before


# -- refusals: one line, nothing written ---------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        (("add", "margin:float=abc"), "SPEC 'margin:float=abc': the default 'abc' is not a float",
         2),
        (("add", "margin:float=0.5:>=0"), f"{KEY} already has the param {MARGIN}", 2),
        (("remove", "nope"), f"{KEY} has no param 'nope' (its params: margin)", 2),
        (("add", "seed:int=1"), "TrainingArguments already defines 'seed'", 2),
        (("add", "beta:float=1"), "already has a field 'beta' of its own", 2),
    ],
)
def test_a_refused_param_change_is_one_line_and_writes_nothing(runner, sandbox, args, message,
                                                              code):
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    before = snapshot(sandbox)
    result = param(runner, sandbox, *args)
    assert result.exit_code == code
    assert message in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
    assert snapshot(sandbox) == before


def test_an_algorithm_ffgen_did_not_generate_is_refused(runner, sandbox):
    before = snapshot(sandbox)
    result = ffgen(runner, "param", "add", "offline-dpo", MARGIN, "--checkout", str(sandbox))
    assert result.exit_code == 1 and "has no ffgen record" in result.output
    assert snapshot(sandbox) == before


def test_an_arguments_module_without_its_class_is_refused_naming_it(runner, sandbox):
    assert new(runner, sandbox, KEY, *DPO).exit_code == 0
    cls = re.search(r"^class (\w+TrainingArguments)\(", read(sandbox, ARGS), re.M).group(1)
    (sandbox / ARGS).write_text(read(sandbox, ARGS).replace(f"class {cls}(", "class Renamed("))
    before = snapshot(sandbox)
    result = param(runner, sandbox, "add", MARGIN)
    assert result.exit_code == 1
    assert f"{ARGS}: no class {cls} found" in result.output
    assert snapshot(sandbox) == before


def test_new_with_a_bad_param_writes_nothing(runner, sandbox):
    before = snapshot(sandbox)
    result = new(runner, sandbox, KEY, *DPO, "--param", "margin:float=0.1:~0")
    assert result.exit_code == 2
    assert "--param 'margin:float=0.1:~0': constraint '~0' is not one of" in result.output
    assert snapshot(sandbox) == before
    result = new(runner, sandbox, KEY, *DPO, "--param", "ema_decay:float=0.5")
    assert result.exit_code == 2
    assert "TrainingArguments already defines 'ema_decay'" in result.output
    assert snapshot(sandbox) == before


def test_the_record_replays_the_params(runner, tmp_path):
    """Rule: the params are answers: ``new --answers RECORD`` in another checkout renders the
    same files."""
    first, second = create_sandbox(tmp_path / "a"), create_sandbox(tmp_path / "b")
    assert new(runner, first, KEY, *DPO, "--param", MARGIN, "--param", "n:int=2:1|2|4")\
        .exit_code == 0
    result = ffgen(runner, "new", KEY, "--checkout", str(second), "--answers",
                   str(record_file(first, KEY)))
    assert result.exit_code == 0, result.output
    assert snapshot(second) == snapshot(first)


def test_a_record_with_a_bad_param_is_refused_naming_it(runner, sandbox):
    """Rule: the params answer passes the flag's rules on every read of the record."""
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    where = record_file(sandbox, KEY)
    where.write_text(where.read_text().replace(f"params: {MARGIN}", "params: margin:float=x"))
    result = ffgen(runner, "check", "--checkout", str(sandbox))
    assert result.exit_code == 1
    assert f".ffgen/answers/{KEY}.yml:1: --param 'margin:float=x': the default 'x'" in result.output


def test_a_param_the_trainer_still_reads_is_not_removed(runner, sandbox):
    """Rule: ``param remove`` never leaves the objective reading a field that is gone."""
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    _objective_reads_margin(sandbox)
    before = snapshot(sandbox)
    result = param(runner, sandbox, "remove", "margin")
    assert result.exit_code == 1
    assert f"{TRAINER}:" in result.output and "still reads training_args.margin" in result.output
    assert snapshot(sandbox) == before


def test_removing_a_param_renamed_by_hand_says_the_class_was_left_as_it_is(runner, sandbox):
    """The user renamed the field: the record, tests and docs drop the param, and the command
    says the class no longer declared it instead of reporting the file IDENTICAL silently."""
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    renamed = read(sandbox, ARGS).replace("margin", "gap")
    (sandbox / ARGS).write_text(renamed)
    result = param(runner, sandbox, "remove", "margin")
    assert result.exit_code == 0, result.output
    assert "note: margin is no longer a field of the arguments class" in result.output
    assert read(sandbox, ARGS) == renamed and ROW not in read(sandbox, DOCS)
    data = param(runner, sandbox, "add", "other:int=1", "--dry-run", "--format", "json")
    assert json.loads(data.stdout)["not_declared"] == []
