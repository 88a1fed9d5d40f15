"""`ffgen new NAME --answers FILE`: a recorded algorithm replays byte for byte, without prompts."""

import shutil

import pytest

from ffgen.sandbox import create_sandbox
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import CASES, ffgen, record_file


def replay(runner, root, name, record, *flags):
    return ffgen(runner, "new", name, "--checkout", str(root), "--answers", str(record), *flags)


@pytest.mark.parametrize("case", ["grpo", "offline_dpo", "record", "dmd_cadence",
                                  "grpo_structured_newcat"])
def test_replaying_a_record_into_a_fresh_checkout_reproduces_it_byte_for_byte(
    runner, tmp_path, case
):
    first = create_sandbox(tmp_path / "first")
    second = shutil.copytree(first, tmp_path / "second")
    flags = ["--yes", "--model-type", "toy", *CASES[case], "--class-name", "MyAlgoX"]
    assert ffgen(runner, "new", "my-algo", "--checkout", str(first), *flags).exit_code == 0
    saved = tmp_path / "saved.yml"
    shutil.copy(record_file(first, "my-algo"), saved)
    result = replay(runner, second, "my-algo", saved)
    assert result.exit_code == 0, result.output
    assert snapshot(second) == snapshot(first)


def test_a_flag_overrides_one_recorded_answer(runner, tmp_path):
    first = create_sandbox(tmp_path / "first")
    second = shutil.copytree(first, tmp_path / "second")
    flags = ["--yes", "--model-type", "toy", *CASES["grpo"]]
    assert ffgen(runner, "new", "my-algo", "--checkout", str(first), *flags).exit_code == 0
    result = replay(runner, second, "my-algo", record_file(first, "my-algo"),
                    "--finetune-type", "full")
    assert result.exit_code == 0, result.output
    assert (second / "examples/my_algo/full/toy/default.yaml").exists()
    assert not (second / "examples/my_algo/lora").exists()


def test_another_name_derives_its_own_class_stem(runner, tmp_path):
    """The recorded --class-name belongs to the recorded NAME, not to a new one."""
    root = create_sandbox(tmp_path / "root")
    flags = ["--yes", "--model-type", "toy", *CASES["sft"], "--class-name", "SFTX"]
    assert ffgen(runner, "new", "my-algo", "--checkout", str(root), *flags).exit_code == 0
    result = replay(runner, root, "other-algo", record_file(root, "my-algo"))
    assert result.exit_code == 0, result.output
    text = (root / "src/flow_factory/hparams/training_args/other_algo.py").read_text()
    assert "class OtherAlgoTrainingArguments" in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("format: 2\nkey: [unclosed\n", "not valid YAML"),
        ("- just\n- a list\n", "must be a mapping"),
    ],
)
def test_a_bad_answers_file_is_one_clear_line(runner, sandbox, tmp_path, content, message):
    path = tmp_path / "answers.yml"
    if content is not None:
        path.write_text(content)
    before = snapshot(sandbox)
    result = replay(runner, sandbox, "my-algo", path)
    assert result.exit_code in (1, 2)
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert snapshot(sandbox) == before
