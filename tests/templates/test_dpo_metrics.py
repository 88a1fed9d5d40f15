"""A generated offline DPO logs what the checkout's own offline DPO logs, under the same names.

A researcher compares a new DPO variant with its sibling in one dashboard: the shared quantities
must carry the sibling's names and mean the same thing. The strongest check of "the same thing":
trained from the same config (only ``trainer_type`` differs), the generated trainer's log equals
the sandbox offline DPO's, step by step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import SPECS
from tests.lifecycle._lifecycle import new

# What Flow-Factory's offline DPO trainer logs per optimizer step (facts read from the real
# trainers/offline/offline_dpo.py at 091df9d): the loss, the policy's and the frozen reference's
# flow-matching error per arm (w = chosen, l = rejected), and the implicit-reward metrics.
REAL_OFFLINE_DPO_METRICS = {
    "loss",
    "theta_w_err",
    "theta_l_err",
    "ref_w_err",
    "ref_l_err",
    "implicit_accuracy",
    "implicit_reward_chosen",
    "implicit_reward_rejected",
}

# Train one config twice, once per trainer type, and print both logs as JSON.
SCRIPT = """
import json, sys, tempfile
import yaml
from flow_factory.sandbox_support import log_history
from flow_factory.train import train

def run(trainer_type):
    data = yaml.safe_load(open("examples/offline_dpo/lora/toy/default.yaml"))
    data["train"]["trainer_type"] = trainer_type
    data["train"]["max_epochs"] = 1
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump(data, f)
    return log_history(train(f.name))

print(json.dumps({"sibling": run("offline-dpo"), "generated": run(sys.argv[1])}))
"""


def _logs(root: Path, key: str) -> dict[str, list[dict]]:
    env = {**os.environ, "PYTHONPATH": "src"}
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, key],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_generated_dpo_logs_the_siblings_metrics_step_for_step(runner, sandbox):
    assert new(runner, sandbox, "margin-dpo", *SPECS["offline_dpo"]).exit_code == 0
    logs = _logs(sandbox, "margin-dpo")
    names = {key.removeprefix("train/") for key in logs["generated"][0] if key != "step"}
    assert REAL_OFFLINE_DPO_METRICS <= names
    # The sandbox's offline DPO mirrors the real names too, so the dashboards line up there.
    sibling = {key.removeprefix("train/") for key in logs["sibling"][0] if key != "step"}
    assert REAL_OFFLINE_DPO_METRICS <= sibling
    assert len(logs["generated"]) == len(logs["sibling"]) > 1
    assert logs["generated"] == logs["sibling"]


# Train one config once per trainer type, counting how often each switches into the reference
# weights (a wrapper around the adapter's ``use_ref_parameters``), and print the counts as JSON.
SWITCH_SCRIPT = """
import json, sys, tempfile
import yaml
from flow_factory.models.abc import BaseAdapter
from flow_factory.train import train

switches = []
original = BaseAdapter.use_ref_parameters

def counting(self):
    switches.append(1)
    return original(self)

BaseAdapter.use_ref_parameters = counting

def count(trainer_type):
    data = yaml.safe_load(open("examples/offline_dpo/lora/toy/default.yaml"))
    data["train"]["trainer_type"] = trainer_type
    data["train"]["max_epochs"] = 1
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump(data, f)
    switches.clear()
    train(f.name)
    return len(switches), data["train"]["num_train_timesteps"]

print(json.dumps({"sibling": count("offline-dpo"), "generated": count(sys.argv[1])}))
"""


def test_generated_dpo_switches_into_the_reference_once_per_timestep_row(runner, sandbox):
    """Both arms' reference forwards share one switch of weights, as the checkout's offline DPO
    does (Flow-Factory's, and the sandbox's copy of it): per arm would double the switches,
    which on CPU cost as much as a small model's forward."""
    assert new(runner, sandbox, "margin-dpo", *SPECS["offline_dpo"]).exit_code == 0
    env = {**os.environ, "PYTHONPATH": "src"}
    run = subprocess.run(
        [sys.executable, "-c", SWITCH_SCRIPT, "margin-dpo"],
        cwd=sandbox, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    (sibling, rows), (generated, _) = counts["sibling"], counts["generated"]
    assert sibling > 0 and sibling % rows == 0  # one switch per timestep row of each batch
    assert generated == sibling
