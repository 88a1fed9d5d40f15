"""Records declare typed fields (``record:Judged(label:bool)``) and a direction (``--direction``):
parsing, the rules that relate them to the other answers, and the interview's question."""

from __future__ import annotations

import pytest

from ffgen.classify.interview import complete_non_interactive, from_flags, interview
from ffgen.classify.model import Ownership, Supervision
from ffgen.classify.rules import classify
from ffgen.errors import FfgenError, RefusedError, UsageError

KTO = {
    "acquisition": "dataset", "supervision": "record:Judged(label:bool, weight:float)",
    "direction": "label",
}


def test_record_fields_parse_and_round_trip():
    parsed = Supervision.parse("record:Judged(label:bool, weight:float, tag:str, n:int)")
    assert parsed.record_type == "Judged"
    assert parsed.fields == (("label", "bool"), ("weight", "float"), ("tag", "str"), ("n", "int"))
    assert Supervision.parse(str(parsed)) == parsed
    assert Supervision.parse("record:Plain").fields == ()
    assert str(Supervision.parse("record:Plain")) == "record:Plain"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("record:Judged(label:tensor)", "has type 'tensor'"),
        ("record:Judged(label)", "is not name:type"),
        ("record:Judged(label:bool, label:int)", "declared twice"),
        ("record:Judged(prompt:str)", "already an attribute"),
        ("record:Judged(Label:bool)", "lowercase Python identifier"),
        ("record:Offline(label:bool)", "OfflineBatch"),  # its batch view would shadow an import
        ("record:judged(label:bool)", "CamelCase"),
    ],
)
def test_bad_record_fields_are_refused_in_one_line(text, says):
    with pytest.raises(UsageError, match=r".*") as caught:
        Supervision.parse(text)
    assert says in caught.value.message and "\n" not in caught.value.message


def _complete(**flags: str):
    answers, _ = complete_non_interactive(from_flags(flags), ("toy",))
    return classify(answers)


def test_a_direction_forces_a_frozen_reference():
    c = _complete(**KTO)
    assert c.family.value == "record" and c.answers.ownership is Ownership.SNAPSHOTS
    assert c.answers.direction == "label"


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        ({**KTO, "direction": "weight"}, "no bool field of that name"),
        ({**KTO, "direction": "missing"}, "no bool field of that name"),
        ({**KTO, "ownership": "single"}, "needs --ownership snapshots"),
        ({"acquisition": "dataset", "supervision": "demonstrations", "direction": "label"},
         "applies only to --supervision record"),
    ],
)
def test_a_direction_that_cannot_work_is_refused(flags, says):
    with pytest.raises((UsageError, RefusedError)) as caught:
        _complete(**flags)
    assert says in caught.value.message


def test_no_direction_is_the_default_and_none_means_none():
    plain = _complete(acquisition="dataset", supervision="record:Judged(label:bool)")
    assert plain.answers.direction is None and plain.answers.ownership is Ownership.SINGLE
    said_none = _complete(acquisition="dataset", supervision="record:Judged(label:bool)",
                          direction="none")
    assert said_none.answers.ownership is Ownership.SINGLE


def test_the_interview_asks_for_the_direction_of_a_record_with_bool_fields():
    asked: list[str] = []

    def ask(question, default):
        asked.append(question.prop)
        return "label" if question.prop == "direction" else ""  # Enter: the default

    answers = interview(
        from_flags({"acquisition": "dataset", "supervision": "record:Judged(label:bool)"}),
        ("toy",), ask, lambda text: None,
    )
    assert "direction" in asked and answers.direction == "label"
    # the direction forced the reference: ownership was not asked
    assert "ownership" not in asked and answers.ownership is Ownership.SNAPSHOTS
    assert classify(answers).family.value == "record"


def test_the_interview_does_not_ask_when_no_field_can_carry_a_direction():
    asked: list[str] = []

    def ask(question, default):
        asked.append(question.prop)
        return ""

    interview(from_flags({"acquisition": "dataset", "supervision": "record:Judged(n:int)"}),
              ("toy",), ask, lambda text: None)
    assert "direction" not in asked


def test_a_direction_survives_the_record_replay():
    from ffgen.store.records import ANSWER_KEYS, flag_text

    assert "direction" in ANSWER_KEYS
    c = _complete(**KTO)
    flags = {"supervision": flag_text(c.answers.supervision), "direction": "label",
             "acquisition": "dataset"}
    assert _complete(**flags).answers == c.answers
    with pytest.raises(FfgenError):
        _complete(**{**flags, "supervision": "record:Judged(weight:float)"})


def test_like_refuses_a_direction_its_source_does_not_have(tmp_path):
    """Rule: ``--like`` keeps its source's direction; a ``--direction`` that differs is refused in
    one line rather than ignored."""
    from typer.testing import CliRunner

    from ffgen.cli import app
    from ffgen.sandbox import create_sandbox

    root = create_sandbox(tmp_path / "checkout")
    result = CliRunner().invoke(app, ["new", "my-copy", "--checkout", str(root), "--like", "sft",
                                      "--direction", "label", "--yes"])
    assert result.exit_code != 0
    assert "--direction label conflicts with --like sft" in result.output
    assert "no direction" in result.output
