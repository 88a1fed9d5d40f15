"""A generated two-role algorithm trains for real in the sandbox (issue: multi-role algorithms).

``ffgen new my-dmd --ownership multi_role --roles generator,fake_score --role-cadence
fake_score=3`` into a fresh sandbox copy, then ``_multirole_probe.py`` (its own interpreter, the
copy's ``flow_factory``) trains it on CPU: per-phase weight comparisons, both losses over a short
run, the refusal of a role missing from ``optimizers:``, and save / exact resume against an
uninterrupted run. The generated verification suite is run too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _checkout import RUFF, copy_sandbox, new_algorithm

PROBE = Path(__file__).with_name("_multirole_probe.py")
ROLES = ("generator", "fake_score")
FLAGS = ["--acquisition", "generation", "--feedback", "none", "--ownership", "multi_role",
         "--roles", ",".join(ROLES), "--role-cadence", "fake_score=3"]
CYCLES = 40
PER_ROLE_TESTS = (
    "test_each_role_changes_only_on_its_cadence",
    "test_optimize_runs_the_role_plan",
    "test_critic_loss_is_flow_matching_on_the_generator_samples",
    "test_generator_loss_vanishes_when_the_critic_matches_the_teacher",
    "test_generator_moves_away_from_the_critic_toward_the_teacher",
    "test_role_plan_names_every_role_on_its_cadence",
    "test_every_role_has_a_default_optimizer_and_an_example_entry",
    "test_a_role_missing_from_a_configured_list_is_refused_naming_it",
    "test_roles_need_no_algorithm_runtime_child",
)


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    root = copy_sandbox(tmp_path_factory.mktemp("multirole") / "checkout")
    new_algorithm(root, "my-dmd", FLAGS)
    return root


@pytest.fixture(scope="module")
def probe(checkout) -> dict:
    out = checkout.parent / "probe.json"
    example = checkout / "examples" / "my_dmd" / "lora" / "toy" / "default.yaml"
    proc = subprocess.run(
        [sys.executable, str(PROBE), str(checkout), str(example), str(out)],
        env={**_env(checkout), "PROBE_CYCLES": str(CYCLES)}, capture_output=True, text=True,
        timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(out.read_text())


def test_each_role_changes_only_on_its_cadence(probe):
    """Per training step: one generator phase, then three critic phases; each phase changes
    that role's weights and no other role's (tensors compared before and after)."""
    cadence = probe["cadence"]
    assert cadence["plan"] == [["generator", 1], ["fake_score", 3]]
    one_step = [["generator", ["generator"]]] + [["fake_score", ["fake_score"]]] * 3
    assert cadence["phases"] == one_step * 2  # two training steps
    assert cadence["role_steps"] == {"generator": 2, "fake_score": 6}
    assert cadence["step"] == 2  # train.step counts the primary role's steps only


@pytest.mark.parametrize("role", ROLES)
def test_both_losses_fall_over_a_short_run(probe, role):
    """The generator's distillation loss and the critic's flow-matching loss fall over 40
    steps: the mean of the last quarter of each role's steps is clearly below the first's."""
    losses = probe["losses"][role]
    assert len(losses) == CYCLES * (1 if role == "generator" else 3)
    quarter = len(losses) // 4
    first, last = sum(losses[:quarter]) / quarter, sum(losses[-quarter:]) / quarter
    assert last < 0.92 * first, (role, first, last)


def test_a_role_left_out_of_the_optimizers_is_refused_before_model_work(probe):
    refusal = probe["refusal"]
    assert refusal["message"] is not None
    assert f"no entry for role '{refusal['critic']}'" in refusal["message"]
    assert "drop the optimizers list" in refusal["message"]  # the fix
    assert refusal["adapters_built"] == 0  # refused while parsing the config


def test_exact_resume_restores_every_role_and_continues_identically(probe):
    resume = probe["resume"]
    assert resume["restored"] == {
        "weights": True, "steps": True, "optimizer": True, "step": True,
        "optimizer_entries": True,
    }
    assert resume["moved"]  # training went on after the save
    assert resume["same_final_weights"] and resume["same_losses"]
    assert resume["final_steps"] == [4, 4]


def test_rendered_files_pass_ruff_and_record_the_cadence(checkout):
    generated = [checkout / "src/flow_factory/trainers/distillation/my_dmd.py",
                 checkout / "src/flow_factory/hparams/training_args/my_dmd.py",
                 checkout / "tests/trainers/test_my_dmd.py",
                 checkout / "tests/trainers/algorithm_checklist.py",
                 checkout / "tests/hparams/test_my_dmd_args.py"]
    proc = subprocess.run([*RUFF, *map(str, generated)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    record = yaml.safe_load((checkout / ".ffgen/answers/my-dmd.yml").read_text())
    answers = record.get("answers", record)
    assert answers["role_cadence"] == "fake_score=3"
    assert answers["roles"] in ("generator,fake_score", ["generator", "fake_score"])


def _run_suite(checkout: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/trainers/test_my_dmd.py", "tests/hparams/test_my_dmd_args.py", *extra],
        cwd=checkout, env=_env(checkout), capture_output=True, text=True, timeout=300,
        check=False,
    )


def test_generated_suite_has_per_role_checks_that_pass(checkout):
    proc = _run_suite(checkout, "-k", " or ".join(PER_ROLE_TESTS), "-rA")
    assert proc.returncode == 0, proc.stdout[-4000:]
    for name in PER_ROLE_TESTS:
        assert f"PASSED tests/trainers/test_my_dmd.py::TestMyDMD::{name}" in proc.stdout, name


def test_generated_suite_passes(checkout):
    proc = _run_suite(checkout)
    assert proc.returncode == 0, proc.stdout[-4000:]
