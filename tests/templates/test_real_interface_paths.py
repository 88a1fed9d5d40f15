"""Generated trainers take the real Flow-Factory paths, checked by running them in the sandbox.

- Coupled (GRPO family): rollouts keep exactly the trajectory points the scheduler's train
  steps need (``compute_trajectory_indices``), ``optimize`` replays exactly those steps through
  ``get_replay_step(batch, step_index)``, and ``num_train_timesteps`` / auto accumulation count
  ``num_sde_steps``.
- Distillation (OPD family): the teacher is loaded into the live trainable slot, snapshotted
  with ``add_named_parameters`` and the student restored: through the checkout's
  ``load_teachers`` when it has one (LoRA), else through a generated loader (a checkout without
  the helper, and full finetunes). An exact resume creates a placeholder and never loads the
  external teacher; the checkpoint restores it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _checkout import FAMILY_FLAGS, copy_sandbox, new_algorithm

PROBE = Path(__file__).with_name("_interface_probe.py")
HELPER = "src/flow_factory/trainers/distillation/opd/common.py"


def _generate(root: Path, name: str, case: str, finetune: str = "lora") -> Path:
    new_algorithm(root, name, FAMILY_FLAGS[case], finetune)
    module = name.replace("-", "_")
    return root / "examples" / module / finetune / "toy" / "default.yaml"


def _probe(root: Path, check: str, config: Path) -> dict:
    out = root / f"{check}.json"
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, str(PROBE), check, str(config), str(out)],
        cwd=root, env=env, capture_output=True, text=True, timeout=180, check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_coupled_replays_only_the_scheduler_train_steps(tmp_path):
    root = copy_sandbox(tmp_path / "grpo")
    config = _generate(root, "step-grpo", "grpo")
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["scheduler"].update(num_sde_steps=2, sde_steps=[1, 3, 4])
    config.write_text(yaml.safe_dump(data), encoding="utf-8")

    found = _probe(root, "replay", config)

    assert found["train_steps"] == [1, 3]
    # Position 0 (initial noise) plus each replayed step's two endpoints; nothing else.
    assert found["kept_positions"] == [0, 1, 2, 3, 4]
    assert found["replayed"] == [1, 3]
    assert found["num_train_timesteps"] == 2
    # auto GAS = batches per epoch / gradient_step_per_epoch (1), times num_sde_steps (2).
    assert found["gradient_accumulation_steps"] == 2
    assert found["optimizer_steps"] >= 1


def _opd_source(root: Path, name: str) -> str:
    return (root / f"src/flow_factory/trainers/distillation/{name.replace('-', '_')}.py").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("finetune", "remove_helper", "uses_helper"),
    [("lora", False, True), ("lora", True, False), ("full", False, False)],
    ids=["lora-helper", "lora-no-helper", "full-generated-loader"],
)
def test_teacher_loads_the_real_way_and_resume_never_loads_it(
    tmp_path, finetune, remove_helper, uses_helper
):
    root = copy_sandbox(tmp_path / "opd")
    if remove_helper:
        (root / HELPER).unlink()
    config = _generate(root, "teach-opd", "opd", finetune)
    source = _opd_source(root, "teach-opd")
    assert ("load_teachers(" in source) is uses_helper
    assert ("def _load_teacher(" in source) is not uses_helper
    assert not re.search(r"add_named_parameters\([^)]*source=", source)

    found = _probe(root, "teacher", config)

    assert found == {
        "student_differs_from_teacher": True,
        "teacher_is_the_checkpoint": True,
        "student_is_initial": True,
        "resume_loaded_external_weights": [],
        "resume_restored_teacher": True,
    }
