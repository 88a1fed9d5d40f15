"""Runtime checks of the real-interface paths of generated trainers, run inside a sandbox copy.

Usage: ``python _interface_probe.py CHECK CONFIG OUT_JSON`` with ``PYTHONPATH=<root>/src``;
CHECK is ``replay`` (coupled: which steps are replayed and which points are kept) or ``teacher``
(distillation: how the teacher snapshot is realised, also on an exact resume). Writes a JSON
object the pytest side asserts on.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import torch


def _trainer(config_path: str, **model_overrides):
    import yaml
    from flow_factory.hparams import Arguments
    from flow_factory.trainers.loader import load_trainer

    data = yaml.safe_load(Path(config_path).read_text(encoding="utf-8"))
    data["model"].update(model_overrides)
    return load_trainer(Arguments.from_dict(data))


def replay(config_path: str) -> dict:
    trainer = _trainer(config_path)
    adapter = trainer.adapter
    replayed = []
    original = adapter.get_replay_step

    def recording(batch, step_index):
        replayed.append(int(step_index))
        return original(batch, step_index)

    adapter.get_replay_step = recording
    with trainer.sampling_context():
        samples = trainer.sample()
    trainer.prepare_feedback(samples)
    kept = samples[0].latent_index_map.ge(0).nonzero().flatten().tolist()
    trainer.optimize(samples)
    return {
        "train_steps": adapter.get_train_step_indices().tolist(),
        "kept_positions": kept,
        "replayed": sorted(set(replayed)),
        "replays_per_batch": len(replayed) // max(1, len(samples) // 16),
        "num_train_timesteps": int(trainer.num_train_timesteps),
        "gradient_accumulation_steps": int(trainer.training_args.gradient_accumulation_steps),
        "optimizer_steps": int(trainer.step),
    }


def _flat(tensors) -> torch.Tensor:
    return torch.cat([t.detach().flatten().float() for t in tensors])


def teacher(config_path: str) -> dict:
    trainer = _trainer(config_path)
    adapter = trainer.adapter
    live = _flat(adapter.get_trainable_parameters())
    with adapter.use_named_parameters("teacher"):
        teacher_weights = _flat(adapter.get_trainable_parameters())
    from flow_factory.sandbox_support import read_weights

    args = trainer.training_args
    # DiffusionOPD's schema (a list of teachers) or a single path (the DMD family's)
    path = args.teachers[0].path if hasattr(args, "teachers") else args.teacher_path
    expected = read_weights(adapter, path)
    names = [k for k, p in adapter.transformer.named_parameters() if p.requires_grad]
    expected_weights = _flat(expected[n] for n in names)
    with tempfile.TemporaryDirectory() as folder:
        saved = trainer.save_checkpoint(folder, epoch=0)
        # An exact resume must not load the external teacher: break that path, then resume.
        adapter_cls = type(adapter)
        loads = []
        adapter_cls._load_lora = lambda self, path: loads.append(path)
        adapter_cls._load_full_model = lambda self, path, strict=True: loads.append(path)
        resumed = _trainer(config_path, resume_path=str(saved), resume_type="state")
        with resumed.adapter.use_named_parameters("teacher"):
            resumed_teacher = _flat(resumed.adapter.get_trainable_parameters())
    return {
        "student_differs_from_teacher": not torch.equal(live, teacher_weights),
        "teacher_is_the_checkpoint": torch.equal(teacher_weights, expected_weights),
        "student_is_initial": torch.equal(live, _flat(_initial_student(config_path))),
        "resume_loaded_external_weights": loads,
        "resume_restored_teacher": torch.equal(resumed_teacher, teacher_weights),
    }


def _initial_student(config_path: str):
    import yaml
    from flow_factory.hparams import Arguments
    from flow_factory.models.loader import load_model

    data = yaml.safe_load(Path(config_path).read_text(encoding="utf-8"))
    config = Arguments.from_dict(data)
    adapter = load_model(config, None)
    return adapter.get_trainable_parameters()


if __name__ == "__main__":
    check, config, out = sys.argv[1:4]
    result = {"replay": replay, "teacher": teacher}[check](config)
    Path(out).write_text(json.dumps(result), encoding="utf-8")
