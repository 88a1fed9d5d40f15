"""``ffgen smoke`` end to end in the sandbox: every family trains on the tiny real SD3 model.

One sandbox per test session (made once, under a lock, and shared by the xdist workers) holds a
freshly generated algorithm of each family with ``--model-type sd3-5``; the tiny pipeline is
built once into its ``.ffgen/cache/models/`` and reused by every run. Each run is the real
command in a subprocess; its ``--json`` report is what the tests read.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ffgen.cli import app
from ffgen.sandbox import create_sandbox
from ffgen.smoke.report import judge
from tests.helpers import tree

# family -> `ffgen new` flags (those the template tests use for each family)
FAMILIES = {
    "sft": ["--acquisition", "dataset", "--supervision", "demonstrations", "--ownership", "single"],
    "record": ["--acquisition", "dataset", "--supervision", "record:CaptionRecord",
               "--ownership", "single"],
    "offline_dpo": ["--acquisition", "dataset", "--supervision", "preference_pairs"],
    "grpo": ["--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm",
             "coupled", "--dynamics", "sde", "--ownership", "snapshots"],
    "awm": ["--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm",
            "decoupled", "--ownership", "snapshots"],
    "opd": ["--acquisition", "generation", "--feedback", "none"],
    "dmd": ["--acquisition", "generation", "--feedback", "none", "--ownership", "multi_role",
            "--roles", "generator,fake_score", "--role-cadence", "fake_score=3"],
}
REWARDED = {"grpo", "awm"}
# two algorithms with one objective (the SFT family's): --compare must call every figure equal
TWINS = ("twin-a", "twin-b")


def key_of(family: str) -> str:
    return f"smoke-{family.replace('_', '-')}"


def _new(root: Path, key: str, flags: list[str], model_type: str = "sd3-5") -> None:
    args = ["new", key, "--checkout", str(root), "--yes", "--model-type", model_type,
            "--finetune-type", "lora", *flags]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="session")
def smoke_checkout(tmp_path_factory) -> Path:
    """The shared sandbox: made by the first worker to get the lock, reused by the others."""
    shared = tmp_path_factory.getbasetemp().parent
    root = shared / "smoke-sandbox"
    with open(shared / "smoke-sandbox.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / ".ready").exists():
            create_sandbox(root)
            for family, flags in FAMILIES.items():
                _new(root, key_of(family), flags)
            for key in TWINS:
                _new(root, key, FAMILIES["sft"])
            (root / ".ready").write_text("")
    return root


def smoke(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ""}
    return subprocess.run([sys.executable, "-m", "ffgen", "smoke", *args, "--checkout", str(root)],
                          capture_output=True, text=True, env=env, timeout=600)


def report(result: subprocess.CompletedProcess) -> dict:
    assert result.stdout.strip(), result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_fresh_algorithm_of_each_family_trains_on_the_tiny_sd3_model(smoke_checkout, family):
    result = smoke(smoke_checkout, key_of(family), "--json")
    (run,) = report(result)["runs"]
    assert result.returncode == 0, (run["verdict"], result.stderr)
    assert run["verdict"] == "trained" and run["model_type"] == "sd3-5"
    assert run["steps"], "no optimizer step"
    for step in run["steps"]:
        assert math.isfinite(step["loss"]) and math.isfinite(step["grad_norm"])
        assert (step["reward"] is not None) == (family in REWARDED)
    weights = run["weights"]
    assert weights["trainable"] and weights["trainable_moved"] == weights["trainable"]
    assert weights["frozen"] and weights["frozen_moved"] == []  # LoRA bases stay put
    assert not any("teacher" in s or "reference" in s for s in weights["snapshots_moved"])
    overridden = {o["key"] for o in run["overrides"]}
    assert {"model.model_name_or_path", "data.datasets", "mixed_precision"} <= overridden


def test_compare_of_two_algorithms_with_one_objective_is_equal_step_by_step(smoke_checkout):
    result = smoke(smoke_checkout, TWINS[0], "--compare", TWINS[1], "--seed", "3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "compare twin-a with twin-b" in out and "median step time ratio twin-a/twin-b" in out
    table = out[out.index("compare twin-a"):].splitlines()[2:]
    judged = [line for line in table if line.rstrip().endswith(("equal", "tolerance", "different"))]
    assert judged and all(line.rstrip().endswith("equal") for line in judged), out


def test_compare_json_a_generated_sft_equals_the_built_in_step_by_step(tmp_path):
    root = _toy_checkout(tmp_path)
    result = smoke(root, "toy-sft", "--compare", "sft", "--json")
    data = report(result)
    assert result.returncode == 0, result.stderr
    assert [r["key"] for r in data["runs"]] == ["toy-sft", "sft"]
    assert all(r["verdict"] == "trained" for r in data["runs"])
    assert data["compare"]["verdict"] == "equal" and data["compare"]["time_ratio"] > 0
    assert data["compare"]["settings_differ"] == []
    rows = data["compare"]["rows"]
    assert {r["figure"] for r in rows} == {"loss", "grad_norm"}
    assert {r["judgement"] for r in rows} == {"equal"}


# What GRPO logs besides the headline figures, under the built-in's names: equal too.
GRPO_FIGURES = ("train/policy_loss", "train/ratio", "train/clip_frac_low", "train/clip_frac_high",
                "train/clip_frac_total", "train/kl_div", "train/kl_loss")


def test_compare_json_a_generated_grpo_equals_the_hand_written_built_in(tmp_path):
    root = create_sandbox(tmp_path / "checkout")
    _new(root, "toy-grpo", FAMILIES["grpo"], model_type="toy")
    # Both examples get a second inner epoch: it replays rollouts of a policy that has moved
    # since, so ratios leave 1 and about half of them are clipped (smoke's sizes alone step
    # once per cycle, where every ratio is 1). The KL (kl_beta 0.01, in x space) acts from the
    # 2nd step. One spells the clip range as a scalar, the other as its pair: one setting.
    for example, clip in (("examples/grpo/lora/toy/default.yaml", 0.1),
                          ("examples/toy_grpo/lora/toy/default.yaml", [-0.1, 0.1])):
        config = yaml.safe_load((root / example).read_text())
        config["train"].update(num_inner_epochs=2, clip_range=clip, kl_type="x-based")
        (root / example).write_text(yaml.safe_dump(config, sort_keys=False))
    result = smoke(root, "toy-grpo", "--compare", "grpo", "--json")
    data = report(result)
    assert result.returncode == 0, (data["compare"], result.stderr)
    assert data["compare"]["settings_differ"] == []
    generated, built_in = data["runs"]
    assert (generated["key"], built_in["key"]) == ("toy-grpo", "grpo")
    assert generated["verdict"] == built_in["verdict"] == "trained"
    assert data["compare"]["verdict"] == "equal" and data["compare"]["time_ratio"] > 0
    rows = data["compare"]["rows"]
    assert {r["figure"] for r in rows} == {"loss", "reward", "grad_norm"}
    # two cycles of two inner epochs; a reward is logged once per cycle
    assert len(built_in["steps"]) == 4
    assert [r["figure"] for r in rows].count("reward") == 2 and len(rows) == 2 * 4 + 2
    assert all(r["judgement"] in ("equal", "within tolerance") for r in rows), rows
    for a, b in zip(generated["steps"], built_in["steps"], strict=True):
        for name in GRPO_FIGURES:
            assert judge(a["figures"][name], b["figures"][name]) != "different", (name, a, b)
    figures = [s["figures"] for s in built_in["steps"]]
    assert any(0 < f["train/clip_frac_total"] < 1 for f in figures), figures
    assert any(f["train/kl_div"] > 0 for f in figures), figures


def test_smoke_writes_nothing_outside_the_checkout(tmp_path):
    """The libraries' own caches and temporary files (torch's inductor folder among them) land
    in the checkout's cache, not in $TMPDIR, $HOME or the XDG cache."""
    root = _toy_checkout(tmp_path)
    outside = {name: tmp_path / "outside" / name.lower() for name in ("TMPDIR", "HOME",
                                                                       "XDG_CACHE_HOME")}
    for folder in outside.values():
        folder.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": "", **{k: str(v) for k, v in outside.items()}}
    result = subprocess.run([sys.executable, "-m", "ffgen", "smoke", "toy-sft", "--checkout",
                             str(root)], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert {name: sorted(p.name for p in folder.rglob("*")) for name, folder in outside.items()
            } == {name: [] for name in outside}


def _toy_checkout(tmp_path: Path) -> Path:
    root = create_sandbox(tmp_path / "checkout")
    _new(root, "toy-sft", FAMILIES["sft"], model_type="toy")
    return root


def _one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_an_unknown_key_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    root = _toy_checkout(tmp_path)
    before = tree(root)
    result = smoke(root, "no-such-algo")
    assert result.returncode == 2
    line = _one_error_line(result)
    assert "unknown algorithm 'no-such-algo'" in line and "toy-sft" in line
    assert tree(root) == before


def test_an_unsupported_model_type_is_refused_listing_the_supported_ones(tmp_path):
    root = _toy_checkout(tmp_path)
    example = root / "examples/toy_sft/lora/toy/default.yaml"
    example.write_text(example.read_text().replace("model_type: toy", "model_type: wan2_t2v"))
    before = tree(root)
    result = smoke(root, "toy-sft")
    assert result.returncode == 2
    line = _one_error_line(result)
    assert "'wan2_t2v'" in line and "sd3-5, flux1" in line
    assert tree(root) == before


def test_nothing_trained_is_a_failure_naming_why(tmp_path):
    root = _toy_checkout(tmp_path)
    # a trainer that logs its loss but never back-propagates it: every step, nothing moves
    trainer = root / "src/flow_factory/trainers/offline/toy_sft.py"
    backward = "self.accelerator.backward(loss)"
    assert backward in trainer.read_text()
    trainer.write_text(trainer.read_text().replace(backward, "loss.detach()"))
    result = smoke(root, "toy-sft")
    assert result.returncode == 1
    assert "toy-sft: nothing trained: no trainable weight moved" in _one_error_line(result)


def test_a_trainer_that_raises_fails_the_run_with_its_error(tmp_path):
    root = _toy_checkout(tmp_path)
    trainer = root / "src/flow_factory/trainers/offline/toy_sft.py"
    text = trainer.read_text()
    hook = "    def optimize_batch(self, batch: OfflineBatch) -> None:\n"
    assert hook in text
    trainer.write_text(text.replace(hook, hook + "        raise RuntimeError('boom')\n", 1))
    result = smoke(root, "toy-sft")
    assert result.returncode == 1
    assert "toy-sft: training failed: RuntimeError: boom" in _one_error_line(result)
    assert "RuntimeError: boom" in (root / ".ffgen/cache/smoke/toy-sft/driver.log").read_text()


def test_compare_across_model_types_is_refused_before_anything_runs(tmp_path):
    root = _toy_checkout(tmp_path)
    _new(root, "sd3-sft", FAMILIES["sft"])
    before = tree(root)
    result = smoke(root, "toy-sft", "--compare", "sd3-sft")
    assert result.returncode == 2
    assert "--compare needs one model type: toy-sft trains toy, sd3-sft sd3-5" in (
        _one_error_line(result))
    assert tree(root) == before
