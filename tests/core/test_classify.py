import pytest

from ffgen.classify.model import (
    Acquisition,
    Answers,
    Contract,
    Dynamics,
    Family,
    Feedback,
    FinetuneType,
    Ownership,
    Paradigm,
    State,
    Supervision,
    SupervisionKind,
)
from ffgen.classify.rules import classify, fill_forced
from ffgen.errors import RefusedError, UsageError


def complete(**kw):
    base = dict(
        dynamics=Dynamics.ANY,
        state=State.LEGACY,
        ownership=Ownership.SINGLE,
        model_type="toy",
        finetune_type=FinetuneType.LORA,
    )
    base.update(kw)
    a, _ = fill_forced(Answers(**base))
    return a


@pytest.mark.parametrize(
    ("kw", "contract", "family", "category"),
    [
        (
            dict(
                acquisition=Acquisition.GENERATION,
                feedback=Feedback.RUNTIME_REWARD,
                paradigm=Paradigm.COUPLED,
                dynamics=Dynamics.SDE,
            ),
            Contract.ONLINE,
            Family.GRPO,
            "rl",
        ),
        (
            dict(
                acquisition=Acquisition.GENERATION,
                feedback=Feedback.RUNTIME_REWARD,
                paradigm=Paradigm.DECOUPLED,
            ),
            Contract.ONLINE,
            Family.AWM,
            "rl",
        ),
        (
            dict(
                acquisition=Acquisition.GENERATION,
                feedback=Feedback.NONE,
                ownership=Ownership.SNAPSHOTS,
            ),
            Contract.ONLINE_NO_FEEDBACK,
            Family.OPD,
            "distillation",
        ),
        (
            dict(
                acquisition=Acquisition.DATASET,
                supervision=Supervision(SupervisionKind.DEMONSTRATIONS),
            ),
            Contract.OFFLINE,
            Family.SFT,
            "offline",
        ),
        (
            dict(
                acquisition=Acquisition.DATASET,
                ownership=Ownership.SNAPSHOTS,
                supervision=Supervision(SupervisionKind.PREFERENCE_PAIRS),
            ),
            Contract.OFFLINE,
            Family.OFFLINE_DPO,
            "offline",
        ),
        (
            dict(
                acquisition=Acquisition.DATASET,
                supervision=Supervision(SupervisionKind.RECORD, "EditRecord"),
            ),
            Contract.OFFLINE,
            Family.RECORD,
            "offline",
        ),
    ],
)
def test_contract_family_and_category(kw, contract, family, category):
    c = classify(complete(**kw))
    assert (c.contract, c.family, c.category) == (contract, family, category)


def test_dataset_with_runtime_reward_is_refused_with_the_reason():
    a = complete(
        acquisition=Acquisition.DATASET,
        feedback=Feedback.RUNTIME_REWARD,
        supervision=Supervision(SupervisionKind.DEMONSTRATIONS),
    )
    with pytest.raises(RefusedError, match="no execution contract covers"):
        classify(a)


def test_forced_answers_follow_from_earlier_ones():
    a, notes = fill_forced(Answers(acquisition=Acquisition.DATASET))
    assert a.feedback is Feedback.NONE and a.paradigm is Paradigm.DECOUPLED
    assert any("feedback = none" in n for n in notes)
    a, _ = fill_forced(Answers(paradigm=Paradigm.COUPLED))
    assert (a.acquisition, a.feedback, a.dynamics) == (
        Acquisition.GENERATION,
        Feedback.RUNTIME_REWARD,
        Dynamics.SDE,
    )


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (
            dict(
                acquisition=Acquisition.GENERATION,
                feedback=Feedback.RUNTIME_REWARD,
                paradigm=Paradigm.COUPLED,
                dynamics=Dynamics.ODE,
            ),
            "needs dynamics=sde",
        ),
        (
            dict(
                acquisition=Acquisition.DATASET,
                paradigm=Paradigm.COUPLED,
                supervision=Supervision(SupervisionKind.DEMONSTRATIONS),
            ),
            "coupled needs",
        ),
        (
            dict(
                acquisition=Acquisition.GENERATION,
                feedback=Feedback.NONE,
                paradigm=Paradigm.DECOUPLED,
            ),
            "no training signal",
        ),
        (
            dict(acquisition=Acquisition.DATASET, supervision=Supervision(SupervisionKind.PROMPTS)),
            "dataset supervision",
        ),
        (
            dict(
                acquisition=Acquisition.GENERATION,
                feedback=Feedback.RUNTIME_REWARD,
                paradigm=Paradigm.DISTILLATION,
            ),
            "distillation needs",
        ),
        (
            dict(
                acquisition=Acquisition.DATASET,
                ownership=Ownership.SINGLE,
                supervision=Supervision(SupervisionKind.PREFERENCE_PAIRS),
            ),
            "ownership=single",
        ),
    ],
)
def test_cross_answer_rules_refuse(kw, match):
    with pytest.raises(RefusedError, match=match):
        classify(complete(**kw))


def test_multi_role_needs_two_distinct_roles():
    base = dict(
        acquisition=Acquisition.GENERATION,
        feedback=Feedback.RUNTIME_REWARD,
        paradigm=Paradigm.DECOUPLED,
        ownership=Ownership.MULTI_ROLE,
    )
    with pytest.raises(UsageError, match="two distinct role"):
        classify(complete(**base, roles=("gen", "gen")))
    with pytest.raises(UsageError, match="two distinct role"):
        classify(complete(**base, roles=("gen",)))
    assert classify(complete(**base, roles=("gen", "fake"))).answers.roles == ("gen", "fake")


def test_roles_without_multi_role_is_a_usage_error():
    with pytest.raises(UsageError, match="--roles only applies"):
        classify(
            complete(
                acquisition=Acquisition.DATASET,
                roles=("a", "b"),
                supervision=Supervision(SupervisionKind.DEMONSTRATIONS),
            )
        )


@pytest.mark.parametrize("text", ["record:lower", "record:", "images", "record"])
def test_bad_supervision_is_a_usage_error(text):
    with pytest.raises(UsageError):
        Supervision.parse(text)


def test_missing_answer_names_the_flag():
    with pytest.raises(UsageError, match="--acquisition"):
        classify(Answers())


def test_record_types_may_not_take_a_name_the_generated_trainer_module_binds(runner, sandbox):
    """GENERATED_MODULE_NAMES must hold every CamelCase name the record family's trainer module
    imports: render it and compare, so a template that imports a new name fails here."""
    import ast as ast_mod
    import json as json_mod

    from ffgen.classify.model import GENERATED_MODULE_NAMES, RECORD_TYPE_RE
    from ffgen.cli import app
    from tests.helpers import SPECS

    args = ["new", "cap-sft", "--checkout", str(sandbox), "--yes", "--model-type", "toy",
            *SPECS["record"], "--dry-run", "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (trainer,) = [f for f in json_mod.loads(result.stdout)["files"]
                  if f["path"].startswith("src/flow_factory/trainers/") and f["status"] == "CREATE"]
    source = "".join(line[1:] + "\n" for line in trainer["diff"].splitlines()[3:])
    imports = [n for n in ast_mod.parse(source).body
               if isinstance(n, ast_mod.Import | ast_mod.ImportFrom)]
    imported = {(a.asname or a.name).split(".")[0] for node in imports for a in node.names}
    camel = {name for name in imported if RECORD_TYPE_RE.match(name)}
    assert camel and camel <= GENERATED_MODULE_NAMES, sorted(camel - GENERATED_MODULE_NAMES)
