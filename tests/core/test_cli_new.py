"""`ffgen new` end to end through the CLI, into a fresh sandbox checkout."""

import ast
import json
import subprocess
import sys

import pytest
import yaml

from ffgen.cli import app
from tests.helpers import SPECS, snapshot


def new(runner, sandbox, name, *flags):
    args = ["new", name, "--checkout", str(sandbox), "--yes", "--model-type", "toy", *flags]
    return runner.invoke(app, args)


@pytest.mark.parametrize(
    ("family", "contract", "category"),
    [
        ("grpo", "ONLINE_EXECUTION_CONTRACT", "rl"),
        ("opd", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT", "distillation"),
        ("sft", "OFFLINE_EXECUTION_CONTRACT", "offline"),
    ],
)
def test_each_contract_end_to_end(runner, sandbox, family, contract, category):
    result = new(runner, sandbox, "my-algo", *SPECS[family])
    assert result.exit_code == 0, result.output
    args = sandbox / "src/flow_factory/hparams/training_args/my_algo.py"
    trainer = sandbox / f"src/flow_factory/trainers/{category}/my_algo.py"
    for path in (args, trainer):
        tree = ast.parse(path.read_text())
        assigned = {
            t.target.id: ast.unparse(t.value)
            for c in tree.body
            if isinstance(c, ast.ClassDef)
            for t in c.body
            if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)
        }
        assert assigned["execution_contract"] == contract
    reg = (sandbox / "src/flow_factory/trainers/registry.py").read_text()
    assert f'"my-algo": "flow_factory.trainers.{category}.my_algo.MyAlgoTrainer",' in reg
    areg = (sandbox / "src/flow_factory/hparams/training_args/_registry.py").read_text()
    assert '"my-algo": MyAlgoTrainingArguments,' in areg
    assert "from .my_algo import MyAlgoTrainingArguments" in areg
    for init in ("hparams/__init__.py", "hparams/training_args/__init__.py"):
        text = (sandbox / "src/flow_factory" / init).read_text()
        assert '"MyAlgoTrainingArguments"' in text
    example = yaml.safe_load((sandbox / "examples/my_algo/lora/toy/default.yaml").read_text())
    assert example["train"]["trainer_type"] == "my-algo"
    assert "execution_contract" not in example["train"]
    docs = (sandbox / "guidance/algorithms.md").read_text()
    assert "<!-- ffgen:begin my-algo -->" in docs and "<!-- ffgen:end my-algo -->" in docs
    assert (sandbox / "tests/trainers/test_my_algo.py").is_file()
    assert (sandbox / ".ffgen/answers/my-algo.yml").is_file()


def test_generated_checkout_test_file_passes(runner, sandbox):
    assert new(runner, sandbox, "my-sft", *SPECS["sft"]).exit_code == 0
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/trainers/test_my_sft.py",
        ],
        cwd=sandbox,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_refused_composition_writes_nothing(runner, sandbox):
    before = snapshot(sandbox)
    result = new(
        runner,
        sandbox,
        "bad",
        "--acquisition",
        "dataset",
        "--feedback",
        "runtime_reward",
        "--supervision",
        "demonstrations",
    )
    assert result.exit_code == 1
    assert "no execution contract covers" in result.output
    assert "new execution-contract/driver design" in result.output
    assert "Traceback" not in result.output
    assert snapshot(sandbox) == before


def test_dry_run_writes_nothing_and_shows_plan_and_diffs(runner, sandbox):
    before = snapshot(sandbox)
    result = new(runner, sandbox, "my-algo", "--dry-run", *SPECS["grpo"])
    assert result.exit_code == 0, result.output
    assert snapshot(sandbox) == before
    assert "CREATE" in result.output and "UPDATE" in result.output
    assert "+++ b/src/flow_factory/trainers/registry.py" in result.output
    assert "forced: dynamics = sde (coupled objectives need SDE" in result.output


def test_json_plan(runner, sandbox):
    result = new(runner, sandbox, "my-algo", "--dry-run", "--format", "json", *SPECS["sft"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    statuses = {f["path"]: f["status"] for f in data["files"]}
    assert statuses["src/flow_factory/trainers/offline/my_algo.py"] == "CREATE"
    assert statuses["src/flow_factory/trainers/offline/__init__.py"] == "UPDATE"
    assert data["contract"] == "OFFLINE_EXECUTION_CONTRACT"


def test_rerun_is_all_identical_and_changes_nothing(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *SPECS["awm"]).exit_code == 0
    before = snapshot(sandbox)
    result = new(runner, sandbox, "my-algo", "--format", "json", *SPECS["awm"])
    assert result.exit_code == 0, result.output
    first_json = result.output[: result.output.rindex("}") + 1]
    assert {f["status"] for f in json.loads(first_json)["files"]} == {"IDENTICAL"}
    assert snapshot(sandbox) == before


def test_conflict_is_refused_without_force(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *SPECS["sft"]).exit_code == 0
    trainer = sandbox / "src/flow_factory/trainers/offline/my_algo.py"
    trainer.write_text(trainer.read_text() + "\n# local edit\n")
    before = snapshot(sandbox)
    result = new(runner, sandbox, "my-algo", *SPECS["sft"])
    assert result.exit_code == 1
    # An edit ffgen generated: the way on is update (which keeps it), never --force.
    assert "CONFLICT" in result.output and "ffgen update my-algo" in result.stderr
    assert "--force" not in result.stderr
    assert snapshot(sandbox) == before
    result = new(runner, sandbox, "my-algo", "--force", *SPECS["sft"])
    assert result.exit_code == 0, result.output
    assert "# local edit" not in trainer.read_text()


def test_injected_failure_during_apply_leaves_every_file_unchanged(runner, sandbox, monkeypatch):
    from ffgen.write import apply as apply_mod

    before = snapshot(sandbox)
    real, calls = apply_mod.write_file, {"n": 0}

    def flaky(path, data, mode):
        calls["n"] += 1
        if calls["n"] == 6:
            raise OSError("injected failure")
        real(path, data, mode)

    monkeypatch.setattr(apply_mod, "write_file", flaky)
    result = new(runner, sandbox, "my-algo", *SPECS["grpo"])
    assert result.exit_code == 1
    assert "injected failure); every file was put back as it was" in result.output
    assert "Traceback" not in result.output
    assert calls["n"] >= 6
    assert snapshot(sandbox) == before


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("sft", "already a registered algorithm key"),
        ("9x", "starts with a digit"),
        ("../evil", "looks like a path"),
        ("lambda", "Python keyword"),
    ],
)
def test_bad_or_colliding_names(runner, sandbox, name, message):
    before = snapshot(sandbox)
    result = new(runner, sandbox, name, *SPECS["sft"])
    assert result.exit_code in (1, 2)
    assert message in result.output
    assert snapshot(sandbox) == before


def test_class_collision(runner, sandbox):
    result = new(runner, sandbox, "my-sft", "--class-name", "SFT", *SPECS["sft"])
    assert result.exit_code == 1
    assert "class SFTTrainingArguments already exists" in result.output


def test_missing_flag_without_terminal(runner, sandbox):
    result = runner.invoke(
        app,
        [
            "new",
            "x-algo",
            "--checkout",
            str(sandbox),
            "--model-type",
            "toy",
            "--acquisition",
            "generation",
            "--feedback",
            "runtime_reward",
        ],
    )
    assert result.exit_code == 2
    assert "missing --paradigm" in result.output


def test_unknown_model_type(runner, sandbox):
    result = runner.invoke(
        app,
        [
            "new",
            "x-algo",
            "--checkout",
            str(sandbox),
            "--yes",
            "--model-type",
            "nope",
            *SPECS["sft"],
        ],
    )
    assert result.exit_code == 2
    assert "not a model type of this checkout" in result.output


def test_old_layout_refusal(runner, tmp_path):
    old = tmp_path / "old"
    (old / "src/flow_factory/hparams").mkdir(parents=True)
    (old / "src/flow_factory/hparams/training_args.py").write_text("_TRAINING_ARGS_REGISTRY = {}\n")
    result = runner.invoke(app, ["new", "x", "--checkout", str(old), "--yes", *SPECS["sft"]])
    assert result.exit_code == 1
    assert "older Flow-Factory layout" in result.output


def test_missing_template_symbol_is_refused(runner, sandbox):
    helpers = sandbox / "src/flow_factory/trainers/common/flow_matching.py"
    helpers.write_text(
        helpers.read_text().replace("def flow_matching_per_sample_loss", "def _gone")
    )
    before = snapshot(sandbox)
    result = new(runner, sandbox, "my-sft", *SPECS["sft"])
    assert result.exit_code == 1
    assert "flow_matching_per_sample_loss" in result.output
    assert "different version" in result.output
    assert snapshot(sandbox) == before


def test_plan_that_verify_would_flag_is_refused(runner, sandbox, monkeypatch):
    from ffgen.generate import render

    real = render.render

    def with_start_override(template, ctx):
        text = real(template, ctx)
        if template == render.TRAINER_TEMPLATE:
            text += "\n    def start(self) -> None:\n        pass\n"
        return text

    monkeypatch.setattr(render, "render", with_start_override)
    before = snapshot(sandbox)
    # the grpo trainer module ends inside its class, so the override lands in the class
    result = new(runner, sandbox, "my-algo", *SPECS["grpo"])
    assert result.exit_code == 1
    assert "would fail `ffgen verify`: FF301" in result.output
    assert snapshot(sandbox) == before


def test_category_override(runner, sandbox):
    result = new(runner, sandbox, "my-algo", "--category", "custom", *SPECS["opd"])
    assert result.exit_code == 0, result.output
    init = sandbox / "src/flow_factory/trainers/custom/__init__.py"
    # the checkout's licence header, then a docstring like rl/'s
    assert init.read_text().startswith("# Copyright") and init.read_text().endswith('"""\n')
    reg = (sandbox / "src/flow_factory/trainers/registry.py").read_text()
    assert '"my-algo": "flow_factory.trainers.custom.my_algo.MyAlgoTrainer",' in reg
    assert (sandbox / "src/flow_factory/trainers/custom/my_algo.py").is_file()


def test_debug_shows_the_traceback(runner, sandbox):
    result = runner.invoke(app, ["new", "9x", "--checkout", str(sandbox), "--debug"])
    assert result.exit_code != 0
    assert result.exception is not None and "starts with a digit" in str(result.exception)
