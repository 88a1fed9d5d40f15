"""Every ``--like`` / ``--extends`` copy trains on CPU and its generated suite passes.

One sandbox holds the whole matrix: a copy of each hand-written sandbox algorithm (``grpo``,
``sft``, ``offline-dpo``), a copy of one generated algorithm per family ffgen generates, and a
strict extension of the hand-written ``grpo`` (the sanctioned parent, as GRPO-Guard's is).
Every copy's suite runs in a child of the session's ``suite_server`` (torch imported once),
clean and, for the copy of the hand-written SFT, against two mutants that the suite must catch
(so a copy's suite is not one that cannot fail); each copy then trains through
``python -m flow_factory.train`` on its example (run as ``-m`` runs it, in a child of the
server).
"""

from __future__ import annotations

from pathlib import Path

from _checkout import FAMILY_FLAGS, copy_sandbox, new_algorithm, parse_cycles, run_train
from typer.testing import CliRunner

from ffgen.checkout import layout
from ffgen.cli import app

HAND_WRITTEN = {"like-grpo": "grpo", "like-sft": "sft", "like-offline-dpo": "offline-dpo"}
# "like-gen-*": the copies of generated algorithms, apart from the hand-written ones' "like-*"
GENERATED = {f"like-gen-{case.replace('_', '-')}": f"src-{case.replace('_', '-')}"
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


def _jobs(root: Path) -> list[dict]:
    return [
        {"name": key,
         "tests": [layout.test_path(_module(key)), layout.args_test_path(_module(key))],
         "mutants": _mutants(root) if key == "like-sft" else {}}
        for key in CASES
    ]


def _matrix(tmp: Path, suite_server) -> tuple[Path, dict]:
    root = copy_sandbox(tmp / "checkout")
    for case, flags in FAMILY_FLAGS.items():
        new_algorithm(root, f"src-{case.replace('_', '-')}", flags)
    for name, key in {**HAND_WRITTEN, **GENERATED}.items():
        _copy(root, name, "--like", key)
    for name, key in EXTENDED.items():
        _copy(root, name, "--extends", key)
    return root, suite_server.run_jobs(root, _jobs(root), tmp)


def _problems(root: Path, case: str, outcomes: dict, suite_server) -> list[str]:
    """What is wrong with one copy: its suite, a mutant it misses, its training run."""
    if outcomes[""]["exit"] != 0:
        return [f"suite failed: {outcomes['']}"]
    missed = [mutant for mutant, outcome in outcomes.items() if mutant and not (
        outcome["exit"] == 1 and MUTANT_CATCHER[mutant] in " ".join(outcome["failed"]))]
    example = root / layout.example_path(_module(case), "lora", "toy")
    run = run_train(root, example, server=suite_server)
    if run.returncode != 0:
        return [*missed, f"training failed: {run.stdout[-1000:]}{run.stderr[-2000:]}"]
    if len(parse_cycles(run.stdout)) < 2:
        return [*missed, f"fewer than two cycles: {run.stdout[-1000:]}"]
    return missed


def test_every_copy_passes_its_suite_and_trains(tmp_path, suite_server):
    """One test for the whole matrix, so that one xdist worker builds it (a module fixture
    shared by one test per case was built again in each worker that ran some of them)."""
    root, results = _matrix(tmp_path, suite_server)
    problems = {case: _problems(root, case, results[case], suite_server) for case in CASES}
    assert not {case: found for case, found in problems.items() if found}
