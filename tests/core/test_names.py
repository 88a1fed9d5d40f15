import pytest

from ffgen.classify.names import parse_name
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
        ("MyAlgo", "my-algo", True),
        ("FlowGRPO", "flow-grpo", True),
        ("GRPOPlus", "grpo-plus", True),
        ("My_Algo", "my-algo", False),
        ("TDMR1", "tdmr1", True),
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
