"""The done-when of issue 29: a KTO-like algorithm (a record with a label, a frozen reference,
``beta``) is generated with ONE ``ffgen new`` command and trained after editing only inside the
objective markers; its generated suite passes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from _checkout import copy_sandbox, new_algorithm, run_train

KTO_FLAGS = ["--acquisition", "dataset", "--supervision", "record:Judged(label:bool)",
             "--direction", "label"]
TRAINER = "src/flow_factory/trainers/offline/my_kto.py"
EXAMPLE = "examples/my_kto/lora/toy/default.yaml"
BEGIN, END = "# --- objective: edit here", "# --- objective: end"
# An edit a user makes inside the markers: log a statistic of the typed records' label.
OLD = '''            "implicit_accuracy": (sign * reward.detach() > 0).float().mean(),
'''
NEW = '''            "implicit_accuracy": (sign * reward.detach() > 0).float().mean(),
            "desirable_fraction": records.label.float().mean(),
'''


def _outside(text: str) -> tuple[str, str]:
    head, rest = text.split(BEGIN, 1)
    return head, rest.split(END, 1)[1]


def test_kto_from_one_command_trains_and_passes_its_suite(tmp_path, suite_server):
    root = copy_sandbox(tmp_path / "checkout")
    new_algorithm(root, "my-kto", KTO_FLAGS)
    trainer = root / TRAINER
    text = trainer.read_text(encoding="utf-8")
    assert "def requires_ref_model" in (root / "src/flow_factory/hparams/training_args/my_kto.py"
                                         ).read_text(encoding="utf-8")
    edited = text.replace(OLD, NEW)
    assert edited != text and _outside(edited) == _outside(text)  # only inside the markers
    trainer.write_text(edited, encoding="utf-8")

    trained = run_train(root, root / EXAMPLE, server=suite_server)
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-2000:]
    assert "cycle=3 loss=" in trained.stdout

    out = tmp_path / "suite"
    suite = suite_server.completed(
        "pytest", root, out,
        args=["-p", "no:cacheprovider", "-q", "-m", "not distributed",
              "tests/trainers/test_my_kto.py", "tests/hparams/test_my_kto_args.py"],
    )
    assert suite.returncode == 0, suite.stdout[-4000:] + suite.stderr[-2000:]
    assert " passed" in suite.stdout and "failed" not in suite.stdout


def test_the_whole_suite_runs_as_a_user_runs_it_without_hanging(tmp_path):
    """The suite's printed `test:` command, in a fresh interpreter on a machine with several
    cores (no OMP_NUM_THREADS=1 as the suite server sets): the two-rank checks fork after earlier
    checks have used torch's thread pool, and a forked worker that used it waited forever."""
    root = copy_sandbox(tmp_path / "checkout")
    new_algorithm(root, "my-kto", KTO_FLAGS)
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "2",
           "PYTHONDONTWRITEBYTECODE": "1"}
    # its own session, so that a hang is ended with the rank workers it forked
    with subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0",
         "tests/trainers/test_my_kto.py"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    ) as suite:
        try:
            stdout, stderr = suite.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            os.killpg(suite.pid, signal.SIGKILL)
            stdout, _ = suite.communicate()
            raise AssertionError(f"the generated suite hung after: {stdout[-1500:]}") from None
    assert suite.returncode == 0, stdout[-4000:] + stderr[-2000:]
    assert "failed" not in stdout and "skipped" not in stdout
