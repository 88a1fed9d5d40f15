"""Generated modules follow the checkout's own style: the licence header its modules carry, its
spelling of generics (Flow-Factory: ``typing``'s ``Dict`` / ``Optional``), and class stems that
keep acronyms in capitals."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ffgen.checkout.style import BUILTIN, TYPING, leading_header, read_style
from ffgen.checkout.view import CheckoutView
from ffgen.generate import render
from ffgen.generate.restyle import typing_generics
from ffgen.quality.gates import RUFF_CHECK, RUFF_FORMAT
from tests.helpers import SPECS
from tests.lifecycle._lifecycle import ffgen, new, read_record_at
from tests.templates._render import FAMILY_ANSWERS, family_context

FAITHFUL = Path(__file__).resolve().parents[1] / "fixtures" / "faithful_checkout"
HEADER = "# Copyright 2026 The ffgen authors\n"  # the first line of the sandbox's licence header
PY_TEMPLATES = (render.ARGS_TEMPLATE, render.TRAINER_TEMPLATE, render.TEST_TEMPLATE,
                render.ARGS_TEST_TEMPLATE)
TRAINER = "src/flow_factory/trainers/offline/margin_dpo.py"


def _builtin_generics(text: str) -> list[str]:
    """Annotations of ``text`` that spell a generic the builtin way (``dict[...]``, ``X | Y``)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        annotations = []
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AnnAssign)):
            annotations.append(node.returns if isinstance(node, ast.FunctionDef) else
                               node.annotation)
        for ann in filter(None, annotations):
            for sub in ast.walk(ann):
                builtin = isinstance(sub, ast.BinOp) or (
                    isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name)
                    and sub.value.id in ("dict", "list", "tuple", "set", "type", "defaultdict"))
                if builtin:
                    found.append(ast.unparse(ann))
    return found


def test_the_style_is_read_from_the_checkouts_own_modules(sandbox):
    sandbox_style = read_style(CheckoutView(sandbox))
    assert sandbox_style.header.startswith(HEADER) and sandbox_style.generics == BUILTIN
    faithful = read_style(CheckoutView(FAITHFUL))
    assert faithful.header == sandbox_style.header and faithful.generics == TYPING
    for folder in ("trainers", "hparams"):
        for path in (sandbox / "src/flow_factory" / folder).rglob("*.py"):
            path.write_text(path.read_text().removeprefix(sandbox_style.header).lstrip("\n"))
    assert read_style(CheckoutView(sandbox)).header == ""  # modules without headers: none


def test_generated_modules_carry_the_header_and_keep_acronyms(runner, sandbox):
    assert new(runner, sandbox, "margin-dpo", *SPECS["offline_dpo"]).exit_code == 0
    header = leading_header((sandbox / "src/flow_factory/trainers/abc.py").read_text())
    for f in read_record_at(sandbox, "margin-dpo").files:
        if f.path.endswith(".py"):
            assert (sandbox / f.path).read_text().startswith(header + "\n"), f.path
    trainer = (sandbox / TRAINER).read_text()
    assert "class MarginDPOTrainer(BaseTrainer):" in trainer
    assert "class MarginDPOTrainingArguments(" in (
        sandbox / "src/flow_factory/hparams/training_args/margin_dpo.py").read_text()


def test_a_new_category_package_carries_the_header_and_goes_again(runner, sandbox):
    assert new(runner, sandbox, "my-opd", "--category", "mine", *SPECS["opd"]).exit_code == 0
    init = (sandbox / "src/flow_factory/trainers/mine/__init__.py").read_text()
    assert init.startswith(HEADER)
    assert ffgen(runner, "remove", "my-opd", "--checkout", str(sandbox)).exit_code == 0
    assert not (sandbox / "src/flow_factory/trainers/mine").exists()


def test_a_rerun_keeps_the_stem_its_record_holds(runner, sandbox):
    """An algorithm an older ffgen named MarginDpo stays MarginDpo: re-runs and updates are
    exact; only a fresh NAME takes today's acronym rule."""
    flags = ("--class-name", "MarginDpo", *SPECS["offline_dpo"])
    assert new(runner, sandbox, "margin-dpo", *flags).exit_code == 0
    again = new(runner, sandbox, "margin-dpo", *SPECS["offline_dpo"])
    assert again.exit_code == 0 and "CONFLICT" not in again.output
    assert "class MarginDpoTrainer(" in (sandbox / TRAINER).read_text()
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], capture_output=True, text=True,
                          check=False)


def test_typing_style_renders_clean_code_for_every_family(tmp_path):
    for family in FAMILY_ANSWERS:
        ctx = replace(family_context(family), generics=TYPING, license_header=HEADER)
        for template in PY_TEMPLATES:
            text = render.render(template, ctx)
            assert text.startswith(HEADER + "\n") and not _builtin_generics(text), template
            (tmp_path / f"{family}_{Path(template).stem.split('.')[0]}.py").write_text(text)
    checklist = render.render(render.CHECKLIST_TEMPLATE, ctx)
    assert not _builtin_generics(checklist)
    (tmp_path / "checklist.py").write_text(checklist)
    # The checkout's rules, not pyupgrade's: UP would ask for the builtin spelling back.
    check = [a if a != "E,F,W,I,B,UP" else "E,F,W,I,B" for a in RUFF_CHECK]
    linted = _ruff(*check, str(tmp_path))
    assert linted.returncode == 0, linted.stdout[-3000:]
    formatted = _ruff(*RUFF_FORMAT, str(tmp_path))
    assert formatted.returncode == 0, formatted.stdout[-3000:]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x: dict[str, list[int]] = {}\n",
         "from typing import Dict, List\n\nx: Dict[str, List[int]] = {}\n"),
        ("def f(a: int | None) -> tuple[int, ...]:\n    return isinstance(a, int | str), a\n",
         "from typing import Optional, Tuple\n\n\ndef f(a: Optional[int]) -> Tuple[int, ...]:\n"
         "    return isinstance(a, int | str), a\n"),
        ('"""D."""\n\nfrom typing import Any\n\nimport torch\n\n\ndef f(a: str | int) -> Any:\n'
         "    return a\n",
         '"""D."""\n\nfrom typing import Any, Union\n\nimport torch\n\n\n'
         "def f(a: Union[str, int]) -> Any:\n    return a\n"),
    ],
)
def test_typing_generics_rewrites_annotations_only(source, expected):
    assert typing_generics(source) == expected


def _to_typing_style(root: Path) -> None:
    """Make a sandbox spell its trainer and hparams modules' generics the ``typing`` way."""
    for folder in ("trainers", "hparams"):
        for path in (root / "src/flow_factory" / folder).rglob("*.py"):
            path.write_text(typing_generics(path.read_text()))


def test_a_typing_style_checkout_gets_typing_code_that_passes_its_suite(runner, sandbox):
    _to_typing_style(sandbox)
    assert read_style(CheckoutView(sandbox)).generics == TYPING
    assert new(runner, sandbox, "margin-dpo", *SPECS["offline_dpo"]).exit_code == 0
    trainer = (sandbox / TRAINER).read_text()
    assert not _builtin_generics(trainer) and "Tuple[Dict[str, Any], LatentState]" in trainer
    env = {**os.environ, "PYTHONPATH": "src"}
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/trainers/test_margin_dpo.py", "tests/hparams/test_margin_dpo_args.py"],
        cwd=sandbox, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert suite.returncode == 0, suite.stdout[-3000:]
    shutil.rmtree(sandbox / "src/flow_factory/trainers/offline/__pycache__", ignore_errors=True)


def _inline_imports(text: str) -> list[str]:
    """Imports inside a function or method (Flow-Factory allows them only for optional or
    backend-gated dependencies and documented import cycles)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [ast.unparse(n) for n in ast.walk(node)
                      if isinstance(n, (ast.Import, ast.ImportFrom))]
    return found


@pytest.mark.parametrize("family", sorted(FAMILY_ANSWERS))
def test_generated_trainers_import_at_the_top_only(family):
    ctx = family_context(family)
    assert _inline_imports(render.render(render.TRAINER_TEMPLATE, ctx)) == []
    multi = family_context("sft", ownership="multi_role", roles=("a", "b"))
    assert _inline_imports(render.render(render.TRAINER_TEMPLATE, multi)) == []


VOTES = {
    TYPING: "def f(x: List[int]) -> None: ...\n",
    BUILTIN: "def f(x: list[int]) -> None: ...\n",
    None: "X = 1\n",
}


@pytest.mark.parametrize("seed", range(40))
def test_the_generics_vote_stops_early_with_the_full_count_s_answer(tmp_path, seed):
    """The vote stops once the modules left cannot change it: whatever the order and mix of
    modules, the answer is the full count's (ties go to builtin)."""
    import random

    rng = random.Random(seed)
    votes = [rng.choice([TYPING, BUILTIN, None]) for _ in range(rng.randint(0, 12))]
    folders = ["trainers/rl", "trainers/common", "hparams/training_args", "hparams"]
    for i, vote in enumerate(votes):
        path = tmp_path / "src/flow_factory" / rng.choice(folders) / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(VOTES[vote], encoding="utf-8")
    full = TYPING if votes.count(TYPING) > votes.count(BUILTIN) else BUILTIN
    assert read_style(CheckoutView(tmp_path)).generics == full
