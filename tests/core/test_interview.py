import pytest

from ffgen.classify import interview
from ffgen.classify.model import (
    Acquisition,
    Answers,
    Feedback,
    Ownership,
    Paradigm,
    SupervisionKind,
)
from ffgen.errors import UsageError


def test_flags_parse_into_typed_answers():
    a = interview.from_flags(
        dict(acquisition="dataset", supervision="record:EditRecord", roles=None, model_type="toy")
    )
    assert a.acquisition is Acquisition.DATASET
    assert (
        a.supervision.kind is SupervisionKind.RECORD and a.supervision.record_type == "EditRecord"
    )


def test_bad_flag_value_names_the_flag_and_choices():
    with pytest.raises(UsageError, match=r"--paradigm 'coupld' is not valid; choose coupled"):
        interview.from_flags(dict(paradigm="coupld"))


def test_non_interactive_fills_forced_and_defaults():
    a, notes = interview.complete_non_interactive(
        Answers(
            acquisition=Acquisition.DATASET,
            supervision=interview.QUESTIONS["supervision"].parse("demonstrations"),
        ),
        ("toy",),
    )
    assert a.feedback is Feedback.NONE and a.paradigm is Paradigm.DECOUPLED
    assert a.ownership is Ownership.SINGLE and a.model_type == "toy"
    assert notes


def test_non_interactive_names_the_missing_flag():
    with pytest.raises(UsageError, match="missing --acquisition"):
        interview.complete_non_interactive(Answers(), ("toy",))
    with pytest.raises(UsageError, match="missing --paradigm"):
        interview.complete_non_interactive(
            Answers(acquisition=Acquisition.GENERATION, feedback=Feedback.RUNTIME_REWARD), ("toy",)
        )
    with pytest.raises(UsageError, match="missing --model-type"):
        interview.complete_non_interactive(
            Answers(acquisition=Acquisition.GENERATION, feedback=Feedback.NONE), ("a", "b")
        )


def test_interview_asks_only_open_questions_and_revalidates():
    asked, said = [], []
    replies = iter(["generation", "bogus", "runtime_reward", "coupled", "legacy", "single", "lora"])

    def ask(question, default):
        asked.append(question.prop)
        return next(replies)

    a = interview.interview(Answers(), ("toy",), ask, said.append)
    # feedback asked twice (first reply invalid); dynamics and supervision forced, not asked
    # feedback is asked twice (the first reply is invalid); dynamics and supervision are forced
    assert asked == [
        "acquisition",
        "feedback",
        "feedback",
        "paradigm",
        "state",
        "ownership",
        "finetune_type",
    ]  # model_type too: the checkout has one, so there is nothing to ask
    # the reply was typed at a prompt: the question is named, not a flag the user never typed
    assert any("feedback: 'bogus' is not valid; choose" in s for s in said), said
    assert not any("--feedback" in s for s in said)
    assert any("skipping model_type = toy" in s for s in said)
    assert any("dynamics = sde" in s for s in said)
    assert a.paradigm is Paradigm.COUPLED


def test_roles_are_asked_for_multi_role_and_validated_as_typed():
    said = []
    replies = iter(["multi_role", "solo", "gen,Gen", "gen,critic", "toy"])

    def ask(question, default):
        return next(replies)

    start = Answers(acquisition=Acquisition.GENERATION, feedback=Feedback.RUNTIME_REWARD,
                    paradigm=Paradigm.DECOUPLED, dynamics=interview.QUESTIONS["dynamics"]
                    .parse("any"), state=interview.QUESTIONS["state"].parse("legacy"),
                    finetune_type=interview.QUESTIONS["finetune_type"].parse("lora"))
    a = interview.interview(start, ("toy",), ask, said.append)
    assert a.ownership is Ownership.MULTI_ROLE and a.roles == ("gen", "critic")
    assert sum("roles: " in s and "--roles" not in s for s in said) == 2  # each explained
