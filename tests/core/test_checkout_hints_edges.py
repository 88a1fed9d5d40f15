"""Edges of the checkout hints a one-line change would break unnoticed (found by a mutation pass:
``benchmarks/mutation_pass.py ffgen/checkout/hints.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ffgen.checkout.hints import (
    NO_BASE,
    TEACHER_HELPER,
    TEACHER_HELPER_MODULE,
    CheckoutHints,
    ExampleSettings,
    example_base,
    read_hints,
)
from ffgen.checkout.view import CheckoutView
from tests.lifecycle._lifecycle import CASES, new

REWARD = {"name": "target", "reward_model": "toy_target"}


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


@pytest.mark.parametrize("defines, found", [(TEACHER_HELPER, True), ("other_helper", False)])
def test_the_teacher_loader_hint_needs_that_very_function(tmp_path, defines, found):
    _write(tmp_path, TEACHER_HELPER_MODULE, f"def {defines}(config):\n    return []\n")
    assert read_hints(CheckoutView(tmp_path)).teacher_loader is found


def test_generated_examples_are_of_the_kind_their_record_says(runner, sandbox):
    assert new(runner, sandbox, "my-grpo", *CASES["grpo"]).exit_code == 0
    assert new(runner, sandbox, "my-sft", *CASES["sft"]).exit_code == 0
    kinds = {e.trainer_type: (e.kind, e.generated) for e in read_hints(CheckoutView(sandbox))
             .examples}
    assert kinds["my-grpo"] == ("generation", True)
    assert kinds["my-sft"] == ("sft", True)
    assert kinds["sft"] == ("sft", False)  # a built-in key names its kind, no record needed


@pytest.mark.parametrize("datasets", ["[]", "{name: prompts}"])
def test_an_example_without_a_dataset_list_offers_no_dataset(tmp_path, datasets):
    _write(tmp_path, "examples/grpo/lora/toy/default.yaml",
           f"model: {{model_type: toy}}\ntrain: {{trainer_type: grpo}}\n"
           f"data: {{datasets: {datasets}}}\n")
    (found,) = read_hints(CheckoutView(tmp_path)).examples
    assert found.dataset is None and found.model_type == "toy"


def _example(path: str, **fields) -> ExampleSettings:
    base = dict(model_type="toy", trainer_type="grpo", model_name_or_path="toy:seed=0",
                resolution=None, dataset=None, reward=None, model={"model_type": "toy"})
    return ExampleSettings(path=path, **{**base, **fields})


def _base(*examples: ExampleSettings, model_type="toy", has_reward=True, finetune="lora"):
    hints = CheckoutHints(teacher_loader=False, examples=examples)
    return example_base(hints, model_type, "grpo", has_reward, "examples/mine/", finetune)


def test_no_example_of_the_model_type_gives_no_base():
    assert _base(_example("examples/a.yaml"), model_type="sd3-5") == NO_BASE


def test_an_algorithm_without_rewards_takes_no_reward_from_its_base():
    only = _example("examples/a.yaml", reward=REWARD)
    assert _base(only, has_reward=True).reward != ""
    assert _base(only, has_reward=False).reward == ""


def test_the_base_finetunes_the_way_the_new_example_does():
    full = _example("examples/a.yaml", model={"model_type": "toy", "finetune_type": "full"})
    lora = _example("examples/b.yaml", model={"model_type": "toy", "finetune_type": "lora"})
    assert _base(full, lora, finetune="lora").source == "examples/b.yaml"
    assert _base(full, lora, finetune="full").source == "examples/a.yaml"
    # A model block without finetune_type is the real default, a full finetune.
    unset = _example("examples/c.yaml", model={"model_type": "toy"})
    assert _base(lora, unset, finetune="full").source == "examples/c.yaml"
