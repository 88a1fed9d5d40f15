"""Hyperparameter answers ffgen must not take and then ignore (issue 29, items 3 and 6).

``param remove`` refuses while anything still reads the field (through an alias as the
generated trainers write them, or from a test the user edited), naming every read as
file:line, and with ``--force`` says what is left reading it; a ``--param`` help text reaches
the field, the docs row and the arguments test, from ``new`` and from ``param add`` alike.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ffgen.sandbox import create_sandbox
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import ffgen, json_out, new

KEY, MODULE = "margin-dpo", "margin_dpo"
DPO = ("--acquisition", "dataset", "--supervision", "preference_pairs")
MARGIN = "margin:float=0.1:>=0"
HELP = "Margin added to the chosen arm's reward gap: in nats | per pair"
ARGS = f"src/flow_factory/hparams/training_args/{MODULE}.py"
TRAINER = f"src/flow_factory/trainers/offline/{MODULE}.py"
TEST = f"tests/trainers/test_{MODULE}.py"
ARGS_TEST = f"tests/hparams/test_{MODULE}_args.py"
DOCS = "guidance/algorithms.md"


def param(runner, root: Path, verb: str, *args: str):
    return ffgen(runner, "param", verb, KEY, *args, "--checkout", str(root))


def _insert(root: Path, rel: str, anchor: str, line: str) -> int:
    """Put ``line`` before ``anchor`` in ``rel``; the 1-based line number it lands on."""
    text = (root / rel).read_text(encoding="utf-8")
    at = text.index(anchor)
    (root / rel).write_text(text[:at] + line + text[at:], encoding="utf-8")
    return text[:at].count("\n") + 1


def _alias_read(root: Path) -> int:
    """The objective reads the margin the way the generated trainers read their arguments."""
    text = (root / TRAINER).read_text(encoding="utf-8")
    start = text.index("    def _objective_loss(")
    anchor = text[text.index("        adapter = self.adapter\n", start):]
    line = ("        args = self.training_args\n"
            "        assert args.margin >= 0.0  # margin-DPO reads its margin\n")
    return _insert(root, TRAINER, anchor, line) + 1


def test_param_remove_refuses_while_an_alias_or_a_test_still_reads_it(runner, sandbox):
    """Rule: every read is named as file:line (the trainer's through ``args = self.training_args``
    and the per-algorithm test's), and nothing is written."""
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    trainer_line = _alias_read(sandbox)
    read = "\n\n\ndef _margin(trainer):\n    return trainer.training_args.margin\n"
    test_line = _insert(sandbox, TEST, "\n\nclass ", read) + 4
    before = snapshot(sandbox)
    result = param(runner, sandbox, "remove", "margin")
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert f"{TRAINER}:{trainer_line} still reads training_args.margin" in output
    assert f"{TEST}:{test_line} still reads training_args.margin" in output
    assert "--force" in output
    assert snapshot(sandbox) == before


def test_param_remove_force_removes_and_names_what_is_left_reading_it(runner, sandbox):
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    line = _alias_read(sandbox)
    dry = param(runner, sandbox, "remove", "margin", "--force", "--dry-run", "--format", "json")
    assert dry.exit_code == 0, dry.output
    assert json_out(dry)["still_read"] == [f"{TRAINER}:{line}"]
    result = param(runner, sandbox, "remove", "margin", "--force")
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert f"left reading a removed param: {TRAINER}:{line} still reads training_args.margin" \
        in output
    assert "margin: float" not in (sandbox / ARGS).read_text(encoding="utf-8")
    assert "args.margin" in (sandbox / TRAINER).read_text(encoding="utf-8")


def test_param_remove_of_a_field_nothing_reads_needs_no_force(runner, sandbox):
    """The arguments test reads the field too, but the removal re-renders it without."""
    assert new(runner, sandbox, KEY, *DPO, "--param", MARGIN).exit_code == 0
    result = param(runner, sandbox, "remove", "margin", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json_out(result)["still_read"] == []


def _run_args_test(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", ARGS_TEST], cwd=root, env=env, capture_output=True, text=True,
        timeout=600)


def test_a_help_text_reaches_field_docs_and_args_test_from_new_and_param_add(runner, tmp_path):
    """Rule: ``--param`` and ``param add`` with a help text give the same tree: the field's help,
    the docs row (its '|' escaped) and an arguments test that checks the help; that test
    passes."""
    flag, later = create_sandbox(tmp_path / "flag"), create_sandbox(tmp_path / "later")
    spec = f"{MARGIN}:{HELP}"
    assert new(runner, flag, KEY, *DPO, "--param", spec).exit_code == 0
    assert new(runner, later, KEY, *DPO).exit_code == 0
    added = param(runner, later, "add", spec)
    assert added.exit_code == 0, added.output
    assert snapshot(later) == snapshot(flag)
    args = (flag / ARGS).read_text(encoding="utf-8")
    assert f'metadata={{"help": "{HELP}"}}' in args and "Objective hyperparameter" not in args
    escaped = HELP.replace("|", "\\|")
    assert f"| `margin` | `0.1` | {escaped} |" in (flag / DOCS).read_text(encoding="utf-8")
    args_test = (flag / ARGS_TEST).read_text(encoding="utf-8")
    assert f'("margin", "{HELP}"),' in args_test
    done = _run_args_test(flag)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_each_hyperparameter_carries_its_help_text" in args_test


# -- item 4: --param with --like, and param add on a --like copy ---------------------------------

COPY, COPY_MODULE = "my-sft", "my_sft"
COPY_ARGS = f"src/flow_factory/hparams/training_args/{COPY_MODULE}.py"
COPY_ARGS_TEST = f"tests/hparams/test_{COPY_MODULE}_args.py"
WEIGHT = "weight:float=0.5:in (0, 1]:Share of the desirable class"


def like_sft(runner, root: Path, *flags: str):
    return ffgen(runner, "new", COPY, "--like", "sft", "--checkout", str(root), "--yes", *flags)


def test_like_with_param_and_param_add_on_a_like_copy_give_the_same_tree(runner, tmp_path):
    """Rule: ``new --like sft --param P`` and ``new --like sft`` then ``param add P`` both work
    and leave the same tree (the copied class gets the field and its checks, the example its
    value, the docs section a parameter table, the arguments test its rows, and that test
    passes); ``param remove`` gives back the plain copy; check and verify stay green."""
    flag, later, plain = (create_sandbox(tmp_path / n) for n in ("flag", "later", "plain"))
    result = like_sft(runner, flag, "--param", WEIGHT)
    assert result.exit_code == 0, result.output
    assert like_sft(runner, later).exit_code == 0
    assert like_sft(runner, plain).exit_code == 0
    added = ffgen(runner, "param", "add", COPY, WEIGHT, "--checkout", str(later))
    assert added.exit_code == 0, added.output
    assert snapshot(later) == snapshot(flag)
    args = (flag / COPY_ARGS).read_text(encoding="utf-8")
    assert "    weight: float = field(\n" in args and "if not 0.0 < self.weight <= 1.0:" in args
    assert "\n  weight: 0.5\n" in (flag / f"examples/{COPY_MODULE}/lora/toy/default.yaml")\
        .read_text(encoding="utf-8")
    docs = (flag / DOCS).read_text(encoding="utf-8")
    assert ("declares them.\n\n| Field | Default | Meaning |\n|---|---|---|\n"
            "| `weight` | `0.5` | Share of the desirable class |\n\n**Run.**") in docs
    args_test = (flag / COPY_ARGS_TEST).read_text(encoding="utf-8")
    assert '("weight", 0.0, ValueError),' in args_test and '"weight": 0.5,' in args_test
    env = {**os.environ, "PYTHONPATH": str(flag / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", COPY_ARGS_TEST], cwd=flag, env=env, capture_output=True,
        text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    for root in (flag, later):
        assert ffgen(runner, "check", "--checkout", str(root)).exit_code == 0
    removed = ffgen(runner, "param", "remove", COPY, "weight", "--checkout", str(later))
    assert removed.exit_code == 0, removed.output
    assert snapshot(later) == snapshot(plain)


def test_like_param_naming_a_field_of_the_copied_class_is_one_line(runner, sandbox):
    before = snapshot(sandbox)
    result = like_sft(runner, sandbox, "--param", "weighting_scheme:str=x")
    assert result.exit_code != 0
    assert "already" in result.output and "weighting_scheme" in result.output
    assert snapshot(sandbox) == before

