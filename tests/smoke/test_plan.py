"""The overrides smoke plans for real Flow-Factory examples (the faithful fixture's copies of
091df9d's configs): only what a tiny CPU run needs, everything it writes inside the checkout."""

from __future__ import annotations

from pathlib import Path

import yaml

from ffgen.smoke.plan import Settings, _Ctx, plan_overrides

EXAMPLES = Path(__file__).parents[1] / "fixtures/faithful_checkout/examples"
ROOT = Path("/checkout")


def _plan(rel: str, acquisition: str, feedback: str, teacher: bool = False, **settings):
    example = yaml.safe_load((EXAMPLES / rel).read_text())
    ctx = _Ctx(ROOT, ".ffgen/cache/smoke/k", "/checkout/.ffgen/cache/models/sd3-5-seed0",
               ".ffgen/cache/models/sd3-5-seed1" if teacher else None, acquisition, feedback,
               Settings(**settings))
    config, overrides = plan_overrides(example, ctx)
    return example, config, {o.key: (o.old, o.new) for o in overrides}


def test_the_real_grpo_example_gets_a_tiny_cpu_run_and_keeps_its_algorithm_settings():
    example, config, changed = _plan("grpo/lora/sd3_5/hpsv3_2x8_medium.yaml", "generation",
                                     "runtime_reward")
    assert changed["num_processes"] == (16, 1)
    assert changed["mixed_precision"][1] == "no"
    assert changed["log.logging_backend"] == ("wandb", "none")
    assert changed["train.resolution"] == (512, 16)
    assert changed["train.group_size"] == (16, 2)
    assert changed["train.unique_sample_num_per_epoch"] == (48, 2)
    assert changed["train.per_device_batch_size"] == (8, 4)
    assert changed["model.trainable_parameters_dtype"] == ("bf16", "fp32")
    assert changed["data.dataloader_num_workers"] == (8, 0)
    assert changed["data.cache_dir"][1] == "/checkout/.ffgen/cache/smoke/k/cache"
    assert config["data"]["datasets"][0]["name"] == "aesthetics"  # the example's name stays
    assert config["rewards"] == [{"name": "smoke", "reward_model": "smoke_reward.SmokeReward",
                                  "weight": 1.0, "batch_size": 4}]
    # the algorithm's own settings are not overrides
    for key in ("clip_range", "adv_clip_range", "kl_beta", "num_inference_steps"):
        assert config["train"].get(key) == example["train"].get(key)
        assert f"train.{key}" not in changed
    # every path smoke writes lies in the checkout
    paths = [v[1] for v in changed.values() if isinstance(v[1], str) and v[1].startswith("/")]
    assert paths and all(p.startswith("/checkout/") for p in paths)


def test_a_teacher_list_points_at_the_tiny_teacher_and_a_cpu():
    _, config, changed = _plan("opd/lora/sd3_5/default.yaml", "generation", "none",
                               teacher=True)
    teachers = config["train"]["teachers"]
    assert teachers and all(t["path"] == "/checkout/.ffgen/cache/models/sd3-5-seed1"
                            for t in teachers)
    assert "train.teachers" in changed


def test_cuda_keeps_the_examples_precision_and_a_seed_is_everywhere():
    _, config, changed = _plan("sft/lora/sd3_5/default.yaml", "dataset", "none",
                               device="cuda", seed=5)
    assert "mixed_precision" not in changed and not any("dtype" in k for k in changed)
    assert config["train"]["seed"] == 5 and config["scheduler"]["seed"] == 5


def test_a_record_with_fields_declared_inline_gets_them_in_its_smoke_data(tmp_path):
    """``record:Judged(label:bool)`` is recorded with its field list: the plan names the class
    ``Judged`` and its declared fields, which the driver writes into each row's metadata."""
    from typer.testing import CliRunner

    from ffgen.checkout.view import CheckoutView
    from ffgen.cli import app
    from ffgen.sandbox import create_sandbox
    from ffgen.smoke.plan import resolve

    root = create_sandbox(tmp_path / "checkout")
    result = CliRunner().invoke(app, [
        "new", "my-kto", "--checkout", str(root), "--yes", "--model-type", "toy",
        "--supervision", "record:Judged(label:bool, note:str)", "--direction", "label"])
    assert result.exit_code == 0, result.output
    plan = resolve(CheckoutView(root), "my-kto", Settings(), ("sd3-5",))
    assert (plan.data_kind, plan.record_fields) == ("record", (("label", "bool"), ("note", "str")))
