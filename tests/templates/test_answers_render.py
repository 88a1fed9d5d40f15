"""No silent answers (issue 29): every classifier answer changes the generated code as its
documentation says, or is refused; ``--ownership snapshots`` gives every family a frozen
reference; a record with a direction gets its typed fields, the KTO-like objective and invariants
of its own; and every family's generated code is ``ruff check`` clean."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from _checkout import FAMILY_FLAGS, copy_sandbox, new_algorithm
from _checkout import RUFF as PROJECT_RUFF
from _render import make_context, render_all

from ffgen.classify.model import (
    Acquisition,
    Dynamics,
    Feedback,
    FinetuneType,
    Ownership,
    Paradigm,
    State,
    Supervision,
    SupervisionKind,
)
from ffgen.classify.names import parse_name
from ffgen.classify.rules import classify, legal_classifications
from ffgen.errors import FfgenError
from ffgen.generate.context import build_context

NAMES = parse_name("my-algo")
KTO = dict(acquisition="dataset", feedback="none", paradigm="decoupled",
           supervision="record:Judged(label:bool, weight:float)", ownership="snapshots",
           direction="label")
AXES = {
    "acquisition": Acquisition, "feedback": Feedback, "paradigm": Paradigm,
    "dynamics": Dynamics, "state": State, "ownership": Ownership, "finetune_type": FinetuneType,
    "supervision": (*(Supervision(k) for k in SupervisionKind if k is not SupervisionKind.RECORD),
                    Supervision.parse("record:Judged(label:bool)")),
}


def _code(answers) -> dict[str, str] | None:
    """The generated code (not the docs) for ``answers``; None when they are refused."""
    try:
        c = classify(answers)
    except FfgenError:
        return None
    files = render_all(build_context(NAMES, c))
    del files["docs"]
    return files


def test_every_answer_changes_the_generated_code_or_is_refused():
    """Rule: for every legal point and every other value of each answer, the generated code
    differs, or the changed answers are refused (nothing is taken and then ignored)."""
    silent = []
    for c in legal_classifications(("toy",)):
        base = _code(c.answers)
        for axis, values in AXES.items():
            for value in values:
                if value == getattr(c.answers, axis):
                    continue
                changed = c.answers.with_(**{axis: value})
                if value is Ownership.MULTI_ROLE:
                    changed = changed.with_(roles=("generator", "critic"))
                elif c.answers.ownership is Ownership.MULTI_ROLE:
                    changed = changed.with_(roles=(), role_cadence=())
                other = _code(changed)
                if other is not None and other == base:
                    was = getattr(c.answers, axis)
                    silent.append(f"{c.family.value}: {axis} {was} -> {value}")
    assert not silent, "answers that change no generated code: " + "; ".join(silent)


def test_dynamics_ode_and_sde_are_enforced_by_the_trainer():
    ode = render_all(make_context("my-algo", **{**KTO, "dynamics": "ode"}))["trainer"]
    sde = render_all(make_context("my-algo", **{**KTO, "dynamics": "sde"}))["trainer"]
    anything = render_all(make_context("my-algo", **KTO))["trainer"]
    assert 'needed = ("ODE",)' in ode and "if dynamics not in needed:" in ode
    assert 'needed = ("Flow-SDE", "Dance-SDE", "CPS")' in sde
    assert "_validate_paradigm_dynamics" not in anything


def test_snapshots_give_every_family_a_frozen_reference():
    """Rule: with ``--ownership snapshots`` the trainer queries a frozen snapshot under
    ``torch.no_grad()`` (the reference under ``use_ref_parameters()``, or a distillation
    teacher), and the arguments declare that the run needs it."""
    for c in legal_classifications(("toy",)):
        if c.answers.ownership is not Ownership.SNAPSHOTS:
            continue
        files = render_all(build_context(NAMES, c))
        trainer, args = files["trainer"], files["args"]
        where = f"{c.family.value} ({c.answers.supervision})"
        if c.family.value == "opd":
            assert "use_named_parameters" in trainer, where
            continue
        assert re.search(r"with torch\.no_grad\(\), (self\.)?adapter\.use_ref_parameters\(\)",
                         trainer), where
        # requires_ref_model: declared True, or the base's kl_beta > 0 with a positive default
        assert "def requires_ref_model" in args or re.search(
            r"kl_beta: float = field\(\s*default=0\.01", args), where


def test_single_ownership_of_a_dataset_family_keeps_no_reference():
    single = render_all(make_context("my-algo", **{**KTO, "ownership": "single",
                                                   "direction": None}))
    assert "use_ref_parameters" not in single["trainer"]
    assert "kl_beta" not in single["args"]


def test_a_record_with_a_direction_is_kto_like_and_has_its_own_invariants():
    files = render_all(make_context("my-kto", **KTO))
    trainer, args, test = files["trainer"], files["args"], files["test"]
    # the typed records reach the objective inside the markers
    objective = trainer.split("# --- objective: edit here")[1].split("# --- objective: end")[0]
    assert "records: JudgedBatch" in objective and "records.label" in objective
    assert "logsigmoid(float(args.beta) * sign * reward)" in objective
    assert "class JudgedBatch:" in trainer and '("label", bool)' in trainer
    assert "def requires_ref_model" in args and "beta: float = field(" in args
    # the record family's own invariants, not SFT's
    assert "test_sft_" not in test and "test_policy_equal_to_reference_gives_log_two" in test
    assert 'DIRECTION = "label"' in test
    for name, text in files.items():
        assert "Supervised flow matching" not in text, name


def test_the_docs_run_block_names_the_fields_its_training_data_needs():
    """The Run block's training line reads ``data.datasets``: for a record with declared
    fields it says which metadata each row needs (a demonstrations algorithm needs none)."""
    docs = render_all(make_context("my-kto", **KTO))["docs"]
    run = docs.split("**Run.**")[1]
    assert "rows' metadata must carry label, weight\n" in run
    plain = render_all(make_context("my-sft", acquisition="dataset", feedback="none",
                                    paradigm="decoupled", supervision="demonstrations",
                                    ownership="single"))["docs"]
    assert "metadata must carry" not in plain


def test_a_record_without_a_direction_has_record_invariants_not_sfts():
    files = render_all(make_context("my-rec", **{**KTO, "ownership": "single",
                                                 "direction": None}))
    assert "test_sft_" not in files["test"] and "test_record_loss_is_zero" in files["test"]
    for name, text in files.items():
        assert "Supervised flow matching" not in text, name


# -- ruff -----------------------------------------------------------------------------------------

RUFF = [sys.executable, "-m", "ruff", "check", "--output-format", "concise"]
CASES = {
    **{case: flags for case, flags in FAMILY_FLAGS.items()},
    "kto_one_field": ["--acquisition", "dataset", "--supervision", "record:Judged(label:bool)",
                      "--direction", "label", "--ownership", "snapshots"],
    "kto_fields": ["--acquisition", "dataset", "--supervision",
                   "record:Judged(label:bool, weight:float, tag:str, n:int)", "--direction",
                   "label"],
    "sft_snapshots": ["--acquisition", "dataset", "--supervision", "demonstrations",
                      "--ownership", "snapshots", "--dynamics", "ode"],
    "record_structured": ["--acquisition", "dataset", "--supervision", "record:CaptionRecord",
                          "--state", "structured", "--dynamics", "sde"],
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """One sandbox with an algorithm of every family (and the KTO-like record) generated into it,
    and the Python files ``new`` created."""
    root = copy_sandbox(tmp_path_factory.mktemp("ruff") / "checkout")
    before = {p for p in root.rglob("*.py")}
    for case, flags in CASES.items():
        new_algorithm(root, f"gen-{case.replace('_', '-')}", flags)
    created = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if p not in before)
    assert any("algorithm_checklist" in p for p in created) and len(created) > 3 * len(CASES)
    return root, created


def _ruff(root, *args) -> str:
    run = subprocess.run([*RUFF, *args], cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stderr
    return "" if run.returncode == 0 else run.stdout + run.stderr


def test_generated_code_passes_the_checkouts_own_ruff_configuration(generated):
    """Rule: the files ``new`` creates pass ``ruff check`` as the checkout configures it (its
    ``pyproject.toml``: line length 100, the installed ruff's default rules)."""
    root, created = generated
    assert _ruff(root, *created) == ""


def test_generated_code_passes_ruffs_default_rules(generated):
    """Rule: ... and ruff's default rule set of the version the test extra installs (RUF022 on
    ``__all__``, RUF012 on mutable class attributes, B, ...), at the code's line length."""
    root, created = generated
    assert _ruff(root, "--isolated", "--line-length", "100", *created) == ""


def test_generated_code_passes_the_rules_ffgen_holds_it_to(generated):
    """Rule: ... and ffgen's own stricter set (E, F, W, I, B, UP: line length 100 included)."""
    root, created = generated
    run = subprocess.run([*PROJECT_RUFF, *created], cwd=root, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout[-3000:]


def test_generated_code_is_ruff_formatted(generated):
    """Rule: ... and reads as ``ruff format`` at line length 100 writes it (typed records with one
    or several fields included)."""
    root, created = generated
    run = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "--isolated",
                          "--line-length", "100", *created], cwd=root, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-1000:]
