"""Every ``--like`` / ``--extends`` copy trains on CPU and its generated suite passes.

One sandbox holds the whole matrix: a copy of each hand-written sandbox algorithm (``sft``,
``offline-dpo``), a copy of one generated algorithm per family ffgen generates, and a strict
extension of a generated ``grpo``. Every copy's suite runs in one ``_suite_runner`` process
(torch imported once), clean and, for the copy of a hand-written trainer, against two mutants
that the suite must catch (so a copy's suite is not one that cannot fail); each copy then
trains through ``python -m flow_factory.train`` on its example.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _checkout import FAMILY_FLAGS, copy_sandbox, new_algorithm, parse_cycles, run_train
from typer.testing import CliRunner

from ffgen.checkout import layout
from ffgen.cli import app

RUNNER = Path(__file__).with_name("_suite_runner.py")
HAND_WRITTEN = {"like-sft": "sft", "like-offline-dpo": "offline-dpo"}
GENERATED = {f"like-{case.replace('_', '-')}": f"src-{case.replace('_', '-')}"
             for case in FAMILY_FLAGS}
EXTENDED = {"ext-grpo": "grpo"}
CASES = (*HAND_WRITTEN, *GENERATED, *EXTENDED)


def _module(key: str) -> str:
    return key.replace("-", "_")


def _copy(root: Path, name: str, flag: str, key: str) -> None:
    args = ["new", name, "--checkout", str(root), "--yes", flag, key]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


def _mutants(root: Path) -> dict[str, list[list[str]]]:
    """Two defects of the hand-written SFT copy its suite must catch."""
    trainer = "src/flow_factory/trainers/offline/like_sft.py"
    args = "src/flow_factory/hparams/training_args/like_sft.py"
    return {
        "accumulation window flushed early": [
            [trainer, "if self.accelerator.sync_gradients:", "if True:"]],
        "trainer_type check dropped": [[args, 'if self.trainer_type != "like-sft":', "if False:"]],
    }


MUTANT_CATCHER = {
    "accumulation window flushed early":
        "test_two_data_epochs_run_through_start_on_the_accumulation_cadence",
    "trainer_type check dropped": "test_foreign_trainer_type_is_refused",
}


def _run_suites(root: Path, tmp: Path) -> dict:
    jobs = [
        {"name": key,
         "tests": [layout.test_path(_module(key)), layout.args_test_path(_module(key))],
         "mutants": _mutants(root) if key == "like-sft" else {}}
        for key in CASES
    ]
    spec, out = tmp / "jobs.json", tmp / "results.json"
    spec.write_text(json.dumps(jobs), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(root), str(spec), str(out)],
        cwd=root, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def matrix(tmp_path_factory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("like")
    root = copy_sandbox(tmp / "checkout")
    for case, flags in FAMILY_FLAGS.items():
        new_algorithm(root, f"src-{case.replace('_', '-')}", flags)
    new_algorithm(root, "grpo", FAMILY_FLAGS["grpo"])
    for name, key in {**HAND_WRITTEN, **GENERATED}.items():
        _copy(root, name, "--like", key)
    for name, key in EXTENDED.items():
        _copy(root, name, "--extends", key)
    return root, _run_suites(root, tmp)


@pytest.mark.parametrize("case", CASES)
def test_every_copy_passes_its_suite_and_trains(matrix, case):
    root, results = matrix
    clean = results[case][""]
    assert clean["exit"] == 0, clean
    for mutant, outcome in results[case].items():
        if mutant:
            assert outcome["exit"] == 1 and MUTANT_CATCHER[mutant] in " ".join(outcome["failed"])
    example = root / layout.example_path(_module(case), "lora", "toy")
    run = run_train(root, example)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert len(parse_cycles(run.stdout)) >= 2, run.stdout[-2000:]
