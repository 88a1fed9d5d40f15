"""``--role-cadence role=N``: typed validation, the dmd family, the answers and the interview."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ffgen.classify.interview import complete_non_interactive, from_flags, interview
from ffgen.classify.model import Family, Ownership
from ffgen.classify.rules import classify, parse_role_cadence, role_cadences
from ffgen.cli import app
from ffgen.errors import UsageError
from ffgen.sandbox import create_sandbox
from tests.helpers import snapshot

DMD_FLAGS = dict(acquisition="generation", feedback="none", ownership="multi_role",
                 roles="generator,fake", model_type="toy")


def _classify(**flags):
    answers, _ = complete_non_interactive(from_flags(flags), ("toy",))
    return classify(answers)


def test_parse_role_cadence_reads_pairs_in_order():
    assert parse_role_cadence("fake=5, critic=2") == (("fake", 5), ("critic", 2))


@pytest.mark.parametrize("text", ["fake", "fake=", "=3", "fake=-1", "fake=2.5", "fake=x"])
def test_parse_role_cadence_refuses_bad_syntax(text):
    with pytest.raises(UsageError, match="role=N with a positive integer"):
        parse_role_cadence(text)


def test_multi_role_distillation_classifies_as_dmd_with_its_cadence():
    c = _classify(**DMD_FLAGS, role_cadence="fake=5")
    assert c.family is Family.DMD and c.answers.ownership is Ownership.MULTI_ROLE
    assert role_cadences(c.answers) == (("generator", 1), ("fake", 5))
    assert role_cadences(_classify(**DMD_FLAGS).answers) == (("generator", 1), ("fake", 1))


@pytest.mark.parametrize(
    ("cadence", "message"),
    [
        ("critic=2", "'critic' is not a declared role"),
        ("fake=0", "positive integer"),
        ("generator=2", "'generator' is the primary role"),
        ("fake=2,fake=3", "names 'fake' twice"),
    ],
)
def test_role_cadence_is_validated_as_typed(cadence, message):
    with pytest.raises(UsageError, match=message):
        _classify(**DMD_FLAGS, role_cadence=cadence)


def test_role_cadence_needs_multi_role_distillation():
    with pytest.raises(UsageError, match="only applies to --ownership multi_role"):
        _classify(acquisition="generation", feedback="none", role_cadence="fake=2",
                  model_type="toy")
    with pytest.raises(UsageError, match="only the primary role trains"):
        _classify(acquisition="dataset", supervision="demonstrations", ownership="multi_role",
                  roles="policy,value", role_cadence="value=2", model_type="toy")


def test_the_cli_refuses_a_bad_cadence_in_one_line_and_writes_nothing(tmp_path):
    root = create_sandbox(tmp_path / "ff")
    before = snapshot(root)
    result = CliRunner().invoke(app, [
        "new", "my-dmd", "--checkout", str(root), "--yes", "--acquisition", "generation",
        "--feedback", "none", "--ownership", "multi_role", "--roles", "generator,fake",
        "--role-cadence", "critic=3", "--model-type", "toy",
    ])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "'critic' is not a declared role" in errors[0]
    assert "name one of --roles" in errors[0]  # the fix
    assert snapshot(root) == before


def test_interview_asks_roles_then_cadences_and_revalidates():
    replies = iter(["generator,fake", "critic=2", "fake=4"])
    said: list[str] = []
    # distillation would force ownership=snapshots: multi_role is chosen by flag
    start = from_flags(dict(acquisition="generation", feedback="none", ownership="multi_role",
                            model_type="toy", finetune_type="lora"))
    asked: list[str] = []

    def ask(question, default):
        asked.append(question.prop)
        return next(replies) if question.prop in ("roles", "role_cadence") else str(default)

    answers = interview(start, ("toy",), ask, said.append)
    assert answers.roles == ("generator", "fake") and answers.role_cadence == (("fake", 4),)
    assert asked.count("role_cadence") == 2  # the undeclared role was explained and asked again
    assert any("'critic' is not a declared role" in line for line in said)
    assert asked.index("roles") < asked.index("role_cadence")
