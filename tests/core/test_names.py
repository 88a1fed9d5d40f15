import pytest

from ffgen.classify.names import KNOWN_ACRONYMS, acronyms_in, parse_name
from ffgen.errors import UsageError


def test_three_spellings():
    n = parse_name("my-algo")
    assert (n.key, n.module, n.stem) == ("my-algo", "my_algo", "MyAlgo")
    assert (n.args_class, n.trainer_class) == ("MyAlgoTrainingArguments", "MyAlgoTrainer")


def test_underscores_become_hyphens_and_class_name_overrides_the_stem():
    n = parse_name("grpo_x", class_name="GRPOX")
    assert (n.key, n.module, n.stem) == ("grpo-x", "grpo_x", "GRPOX")


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("9lives", "digit"),
        ("class", "keyword"),
        ("match", "keyword"),
        ("algö", "non-ASCII"),
        ("a/b", "path"),
        ("..", "path"),
        ("../x", "path"),
        ("MyAlgo", "uppercase"),
        ("my--algo", "not a valid key"),
        ("my algo", "not a valid key"),
    ],
)
def test_bad_names_are_rejected_with_a_reason(name, match):
    with pytest.raises(UsageError, match=match):
        parse_name(name)


@pytest.mark.parametrize("stem", ["lower", "My-Algo", "MyAlgoTrainer", "None", "Ünï"])
def test_bad_class_names(stem):
    with pytest.raises(UsageError):
        parse_name("my-algo", class_name=stem)


@pytest.mark.parametrize(
    ("name", "key", "keeps_stem"),
    [
        ("MY-ALGO", "my-algo", False),
        # the key derives these stems itself (acronyms stay capitals): no --class-name needed
        ("MyAlgo", "my-algo", False),
        ("FlowGRPO", "flow-grpo", False),
        ("GRPOPlus", "grpo-plus", False),
        ("My_Algo", "my-algo", False),
        ("TDMR1", "tdmr1", True),  # tdmr1 derives Tdmr1: keeping TDMR1 needs the flag
    ],
)
def test_uppercase_names_suggest_the_key_they_mean(name, key, keeps_stem):
    with pytest.raises(UsageError) as refused:
        parse_name(name)
    message = str(refused.value)
    assert f"use {key}" in message
    assert ("--class-name" in message) is keeps_stem
    assert parse_name(key).key == key  # the suggestion itself is accepted


def test_no_suggestion_when_no_valid_key_comes_out():
    with pytest.raises(UsageError) as refused:
        parse_name("9-ALGO")
    assert "use lowercase words joined by hyphens" in str(refused.value)


@pytest.mark.parametrize(
    ("key", "stem"),
    [
        ("margin-dpo", "MarginDPO"),
        ("my-grpo", "MyGRPO"),
        ("grpo-guard", "GRPOGuard"),
        ("dmd2-fast", "DMD2Fast"),  # an acronym with its version number
        ("sft", "SFT"),
        ("my-algo", "MyAlgo"),
        ("dpox", "Dpox"),  # only whole parts are acronyms
        ("io-thing", "IoThing"),  # not an algorithm acronym, and no class of the checkout's
    ],
)
def test_derived_stems_keep_known_acronyms(key, stem):
    assert parse_name(key).stem == stem


def test_class_name_overrides_the_acronym_rule():
    assert parse_name("margin-dpo", class_name="MarginDpo").stem == "MarginDpo"


def test_acronyms_come_from_the_checkouts_class_names():
    found = acronyms_in(["OfflineDPOTrainer", "GRPOGuardTrainer", "DMD2Trainer", "XYZTrainer",
                         "OfflineFlowMatchingTrainingArguments", "DiffusionOPDTrainingArguments"])
    assert found == {"DPO", "GRPO", "DMD", "XYZ", "OPD"}
    assert parse_name("my-xyz").stem == "MyXyz"
    assert parse_name("my-xyz", acronyms=KNOWN_ACRONYMS | found).stem == "MyXYZ"
