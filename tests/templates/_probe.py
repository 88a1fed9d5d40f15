"""Runtime checks on one generated algorithm, run *inside* a sandbox copy (own interpreter).

Usage: ``python _probe.py CONFIG TRAINER_MODULE TEST_PATH OUT_JSON`` with ``PYTHONPATH=<root>/src``.
Writes a JSON object of check name -> result; the pytest side asserts on it. Kept as a script so
each sandbox copy's ``flow_factory`` is imported in a clean process.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import tempfile
from pathlib import Path

import torch
import yaml


def _config(path: str, **train_overrides):
    from flow_factory.hparams import Arguments

    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    data["train"].update(train_overrides)
    return data, Arguments.from_dict(data)


def _build(trainer_cls, config):
    """What ``load_trainer`` does, for a given (possibly altered) trainer class."""
    from accelerate import Accelerator
    from accelerate.utils import set_seed
    from flow_factory.models.loader import load_model

    set_seed(int(config.training_args.seed))
    accelerator = Accelerator(
        cpu=True,
        mixed_precision=config.mixed_precision,
        gradient_accumulation_steps=int(config.training_args.gradient_accumulation_steps),
    )
    adapter = load_model(config, accelerator)
    return trainer_cls(accelerator=accelerator, config=config, adapter=adapter)


def _raises(fn, exc_type, needle: str) -> str:
    try:
        fn()
    except exc_type as exc:
        return "ok" if needle in str(exc) else f"wrong message: {exc}"
    except Exception as exc:  # noqa: BLE001
        return f"wrong exception {type(exc).__name__}: {exc}"
    return "did not raise"


def main(config_path: str, trainer_module: str, test_path: str, out_json: str) -> None:
    from flow_factory.contracts.execution import (
        OFFLINE_EXECUTION_CONTRACT,
        ONLINE_EXECUTION_CONTRACT,
        AcquisitionMode,
    )
    from flow_factory.sandbox_support import cycle_history, trainable_state_dict, trainer_class
    from flow_factory.trainers import loader
    from flow_factory.trainers.abc import BaseTrainer
    from flow_factory.trainers.loader import load_trainer

    results: dict[str, object] = {}
    data, config = _config(config_path, max_epochs=1)
    trainer_cls = trainer_class(config)
    module = importlib.import_module(trainer_module)
    dataset = trainer_cls.execution_contract.acquisition is AcquisitionMode.DATASET

    # Hook validation: the trainer with its required hook set back to the base's is rejected.
    hook = "optimize_batch" if dataset else "optimize"
    broken = type("WithoutHook", (trainer_cls,), {hook: getattr(BaseTrainer, hook)})
    results["hook_removed_rejected"] = _raises(lambda: _build(broken, config), TypeError, hook)

    # A mismatched args/trainer contract is rejected before any model work.
    other = ONLINE_EXECUTION_CONTRACT if dataset else OFFLINE_EXECUTION_CONTRACT
    mismatched = type("Mismatched", (trainer_cls,), {"execution_contract": other})
    model_built = []
    original_get_trainer, original_load_model = loader.get_trainer_class, loader.load_model

    def _tracking_load_model(config, accelerator):
        model_built.append(config.model_args.model_type)
        return original_load_model(config, accelerator)

    loader.get_trainer_class = lambda key: mismatched
    loader.load_model = _tracking_load_model
    try:
        results["contract_mismatch_rejected"] = _raises(
            lambda: load_trainer(config), ValueError, "execution contract mismatch"
        )
    finally:
        loader.get_trainer_class, loader.load_model = original_get_trainer, original_load_model
    results["model_work_before_rejection"] = model_built

    # Coupled trainers refuse ODE dynamics.
    if trainer_cls.paradigm == "coupled":
        from flow_factory.hparams import Arguments

        ode = {**data, "scheduler": {**data["scheduler"], "dynamics_type": "ODE"}}
        results["coupled_ode_rejected"] = _raises(
            lambda: load_trainer(Arguments.from_dict(ode)), ValueError, "dynamics"
        )

    # One clean cycle advances the acquisition counter exactly once.
    trainer = load_trainer(config)
    before = dataclasses.asdict(trainer.progress)
    trainer.start()
    after = dataclasses.asdict(trainer.progress)
    results["clean_cycle"] = {"before": before, "after": after, "history": cycle_history(trainer)}

    # A failing batch propagates and does not advance the counter.
    if dataset:
        trainer.training_args.max_epochs = 2
        calls = {"n": 0}
        original = module.forward_velocity_state

        def failing(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] > 2:
                raise RuntimeError("injected batch failure")
            return original(*args, **kwargs)

        module.forward_velocity_state = failing
        try:
            trainer.start()
            results["failed_batch"] = "did not raise"
        except RuntimeError as exc:
            results["failed_batch"] = {
                "message": str(exc),
                "data_epoch": trainer.progress.data_epoch,
                "incomplete": trainer._acquisition_cycle_incomplete,
            }
        finally:
            module.forward_velocity_state = original

    # Model-only save, then load into a fresh trainer, restores the trainable weights exactly.
    saved = trainable_state_dict(trainer.adapter)
    with tempfile.TemporaryDirectory() as tmp:
        path = trainer.save_checkpoint(tmp, epoch=trainer.cycle_index)
        fresh = load_trainer(config)
        differs_before = any(
            not torch.equal(saved[k], v) for k, v in trainable_state_dict(fresh.adapter).items()
        )
        fresh.load_checkpoint(str(path))
        restored = trainable_state_dict(fresh.adapter)
    results["save_load"] = {
        "differs_before": differs_before,
        "exact": sorted(saved) == sorted(restored)
        and all(torch.equal(saved[k], restored[k]) for k in saved),
    }

    # The checkout's generated test file passes under the checkout's pytest setup.
    import pytest

    root = Path(config_path).resolve().parents[4]
    results["generated_tests"] = int(
        pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", str(root), str(root / test_path)])
    )
    Path(out_json).write_text(json.dumps(results, default=str), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:5])
