"""Probe of a generated multi-role algorithm, run inside its sandbox checkout (own interpreter).

``python _multirole_probe.py CHECKOUT EXAMPLE OUT.json``: trains the algorithm for real on CPU and
writes what ``test_multirole.py`` asserts: which role each phase changed, both roles' losses over
a short run, the refusal of a role missing from ``optimizers:``, and an exact save/resume.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import torch
import yaml

ROOT, EXAMPLE, OUT = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
os.chdir(ROOT)
sys.path.insert(0, str(ROOT / "src"))

from flow_factory import train as train_module  # noqa: E402
from flow_factory.hparams import Arguments  # noqa: E402
from flow_factory.models.toy import ToyAdapter  # noqa: E402
from flow_factory.trainers.loader import load_trainer  # noqa: E402

BASE = yaml.safe_load(EXAMPLE.read_text())


def config(**train) -> dict:
    data = copy.deepcopy(BASE)
    data["train"].update(train)
    return data


def trainer_for(data: dict):
    return load_trainer(Arguments.from_dict(data))


def role_weights(trainer) -> dict[str, torch.Tensor]:
    roles = trainer.training_args.required_trainable_roles
    return {r: torch.cat([p.detach().flatten() for p in trainer.adapter.variant_parameters(r)])
            for r in roles}


def cadence_probe() -> dict:
    """Each phase's role, and which roles' weights it changed (tensors compared)."""
    trainer = trainer_for(config(max_epochs=2))
    phases: list[tuple[str, list[str]]] = []
    original = trainer._train_role

    def recording(role_name, units):
        before = role_weights(trainer)
        original(role_name, units)
        after = role_weights(trainer)
        changed = [r for r in before if not torch.equal(before[r], after[r])]
        phases.append((role_name, changed))

    trainer._train_role = recording
    trainer.start()
    steps = {r: role.step for r, role in trainer.role_optimization.roles.items()}
    plan = [(p.role_name, p.repeats) for p in trainer.training_args.role_update_plan().phases]
    return {"phases": phases, "role_steps": steps, "step": trainer.step, "plan": plan}


def losses_probe(cycles: int) -> dict:
    trainer = trainer_for(config(max_epochs=cycles))
    trainer.start()
    roles = trainer.training_args.required_trainable_roles
    from flow_factory.sandbox_support import log_history

    return {r: [row[f"train/{r}_loss"] for row in log_history(trainer)
                if f"train/{r}_loss" in row] for r in roles}


def refusal_probe() -> dict:
    """A config whose optimizers list leaves the critic out, through the real entry point."""
    data = copy.deepcopy(BASE)
    critic = data["optimizers"][1]["name"]
    data["optimizers"] = data["optimizers"][:1]
    path = ROOT / "missing_role.yaml"
    path.write_text(yaml.safe_dump(data))
    built = []
    original = ToyAdapter.__init__

    def counting(self, *args, **kwargs):
        built.append(1)
        original(self, *args, **kwargs)

    ToyAdapter.__init__ = counting
    try:
        train_module.train(str(path))
        message = None
    except ValueError as exc:
        message = str(exc)
    finally:
        ToyAdapter.__init__ = original
    return {"critic": critic, "message": message, "adapters_built": len(built)}


def optimizer_tensors(trainer) -> list[torch.Tensor]:
    state = trainer.optimizer.state_dict()["state"]
    return [t.clone() for key in sorted(state) for t in state[key].values()]


def resume_probe(tmp: Path) -> dict:
    """Save at cycle 2 of 4, resume exactly, compare with the uninterrupted run."""
    saved: dict = {}
    straight = trainer_for(config(max_epochs=4) | {})
    straight.log_args.save_freq, straight.log_args.save_dir = 2, str(tmp)
    original = straight.save_checkpoint

    def capture(directory, epoch=None):
        path = original(directory, epoch=epoch)
        if epoch == 2:
            saved.update(path=str(path), weights=role_weights(straight),
                         steps={r: x.step for r, x in straight.role_optimization.roles.items()},
                         optimizer=optimizer_tensors(straight), step=straight.step)
        return path

    straight.save_checkpoint = capture
    straight.start()
    data = config(max_epochs=4)
    data["model"]["resume_path"], data["model"]["resume_type"] = saved["path"], "state"
    resumed = trainer_for(data)
    restored = {
        "weights": all(torch.equal(role_weights(resumed)[r], w)
                       for r, w in saved["weights"].items()),
        "steps": {r: x.step for r, x in resumed.role_optimization.roles.items()} == saved["steps"],
        "optimizer": all(torch.equal(a, b) for a, b in
                         zip(optimizer_tensors(resumed), saved["optimizer"], strict=True)),
        "step": resumed.step == saved["step"],
        "optimizer_entries": len(optimizer_tensors(resumed)) == len(saved["optimizer"]) > 0,
    }
    resumed.log_args.save_freq = 0
    resumed.start()
    end_straight, end_resumed = role_weights(straight), role_weights(resumed)

    def tail(trainer):
        from flow_factory.sandbox_support import log_history

        return [row for row in log_history(trainer) if row["step"] > saved["step"]]

    return {
        "restored": restored,
        "same_final_weights": all(torch.equal(end_straight[r], end_resumed[r])
                                  for r in end_straight),
        "same_losses": tail(straight) == tail(resumed),
        "final_steps": [straight.step, resumed.step],
        "moved": any(not torch.equal(end_straight[r], saved["weights"][r]) for r in end_straight),
    }


if __name__ == "__main__":
    result = {
        "cadence": cadence_probe(),
        "losses": losses_probe(int(os.environ.get("PROBE_CYCLES", "30"))),
        "refusal": refusal_probe(),
        "resume": resume_probe(OUT.parent / "ckpt"),
    }
    OUT.write_text(json.dumps(result))
