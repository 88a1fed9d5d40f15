"""Generated examples start from the checkout's closest example of the same kind."""

import yaml

from ffgen.cli import app
from tests.helpers import SPECS


def _new(runner, root, name, family):
    args = ["new", name, "--checkout", str(root), "--yes", "--model-type", "toy", *SPECS[family]]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output


def _dataset(root, module):
    data = yaml.safe_load(next((root / "examples" / module).rglob("default.yaml")).read_text())
    return data["data"]["datasets"][0]["dataset_dir"]


def test_a_generated_record_example_is_never_taken_for_a_prompt_dataset(runner, sandbox):
    """A generated dataset algorithm's example names its own trainer_type; only its record says
    it trains on records, so a later generation algorithm must not start from its dataset."""
    _new(runner, sandbox, "my-records", "record")
    _new(runner, sandbox, "my-grpo", "grpo")
    _new(runner, sandbox, "my-sft", "sft")
    assert _dataset(sandbox, "my_grpo") == "dataset/toy_prompts"
    assert _dataset(sandbox, "my_sft") == _dataset(sandbox, "sft")
    assert _dataset(sandbox, "my_records") != _dataset(sandbox, "my_grpo")
