"""A built-in's config carries over to a generated algorithm of its family.

The ``train:`` section a Flow-Factory user already has for the built-in GRPO or DiffusionOPD
(the keys and value forms of the framework's own examples and arguments classes at 091df9d,
copied here as data) parses with the generated arguments class once ``trainer_type`` names the
generated key, and means the same: GRPO's clip ranges written as one number, DiffusionOPD's
``teachers`` list.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.helpers import SPECS
from tests.lifecycle._lifecycle import new

# The built-in GRPO example's ``train:`` section (SD3.5, LoRA): scalar clip ranges.
GRPO_TRAIN = {
    "max_epochs": 200,
    "advantage_aggregation": "sum",
    "clip_range": 1.0e-4,
    "adv_clip_range": 5.0,
    "kl_beta": 0,
    "num_inference_steps": 10,
    "guidance_scale": 4.5,
    "per_device_batch_size": 8,
    "group_size": 16,
    "global_std": False,
    "unique_sample_num_per_epoch": 48,
    "gradient_step_per_epoch": 2,
    "gradient_accumulation_steps": "auto",
    "seed": 42,
}
# A DiffusionOPD ``train:`` section: the fields of its arguments class and of a teacher entry.
OPD_TRAIN = {
    "teachers": [{"path": "toy:seed=7", "applicable_datasets": ["toy_prompts"]}],
    "teacher_param_device": "cpu",
    "timestep_range": 0.99,
    "loss_target": "xt",
    "self_normalize": False,
    "num_inference_steps": 10,
}

SCRIPT = """
import json, sys
from flow_factory.hparams.training_args import get_training_args_class

key, train = sys.argv[1], json.loads(sys.argv[2])
args = get_training_args_class(key).from_dict({**train, "trainer_type": key})
fields = ("clip_range", "adv_clip_range", "timestep_range", "loss_target", "self_normalize")
seen = {name: getattr(args, name) for name in fields if hasattr(args, name)}
if hasattr(args, "teachers"):
    seen["teachers"] = [[t.path, t.name, t.applicable_datasets] for t in args.teachers]
    seen["steps"] = args.get_num_train_timesteps(None)
print(json.dumps(seen))
"""


def _parse(root, key: str, train: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": "src"}
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, key, json.dumps(train)],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_built_in_grpo_train_section_parses_with_the_same_clip_ranges(runner, sandbox):
    assert new(runner, sandbox, "my-grpo", *SPECS["grpo"]).exit_code == 0
    seen = _parse(sandbox, "my-grpo", GRPO_TRAIN)
    assert seen == {"clip_range": [-1.0e-4, 1.0e-4], "adv_clip_range": [-5.0, 5.0]}


def test_a_diffusion_opd_train_section_parses_with_its_teacher(runner, sandbox):
    assert new(runner, sandbox, "my-opd", *SPECS["opd"]).exit_code == 0
    seen = _parse(sandbox, "my-opd", OPD_TRAIN)
    assert seen == {
        "timestep_range": [0.0, 0.99],
        "loss_target": "xt",
        "self_normalize": False,
        "teachers": [["toy:seed=7", "opd_teacher_0", ["toy_prompts"]]],
        "steps": 9,  # int(10 * 0.99): steps 0..8, as DiffusionOPD distills them
    }
