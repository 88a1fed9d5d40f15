"""Checkpoint loading is at least as strict as the real framework's.

The real ``BaseTrainer`` restores exact training state (``resume_type="state"``) only while it is
built, from ``model.resume_path`` with ``model.resume_type: state``; its ``load_checkpoint``
refuses an exact load afterwards (RuntimeError) and hands any other type to the adapter, whose
``load_checkpoint`` knows ``lora``, ``full``, ``state`` and None (auto-detect) and raises
ValueError for anything else. A weight-only resume configured in ``model:`` is the adapter's job
during construction, not a call of the trainer's ``load_checkpoint``.
"""

from __future__ import annotations

import pytest
import torch


def _config(example_config, **model_overrides):
    from flow_factory.hparams import Arguments

    raw = example_config("sft")
    raw["train"].update({"max_epochs": 1, "num_train_timesteps": 1})
    raw["model"].update(model_overrides)
    return Arguments.from_dict(raw)


def _weights(trainer) -> dict[str, torch.Tensor]:
    from flow_factory.sandbox_support import trainable_state_dict

    return trainable_state_dict(trainer.adapter)


def _same(left: dict[str, torch.Tensor], right: dict[str, torch.Tensor]) -> bool:
    return left.keys() == right.keys() and all(torch.equal(left[k], right[k]) for k in left)


@pytest.fixture()
def trained(sandbox_root, example_config, tmp_path):
    """An SFT run of one epoch, its exact-state checkpoint folder and its weights then."""
    from flow_factory.trainers.loader import load_trainer

    trainer = load_trainer(_config(example_config))
    trainer.start()
    path = trainer.save_checkpoint(str(tmp_path), epoch=trainer.epoch)
    assert (path / "trainer_state.pt").is_file()
    return trainer, path, _weights(trainer)


def _refuse_trainer_load(monkeypatch):
    """Make any call of ``BaseTrainer.load_checkpoint`` fail the test."""
    from flow_factory.trainers.abc import BaseTrainer

    def refuse(self, path, resume_type=None):
        raise AssertionError(f"BaseTrainer.load_checkpoint called ({resume_type!r})")

    monkeypatch.setattr(BaseTrainer, "load_checkpoint", refuse)


def test_a_built_trainer_refuses_an_exact_state_load_and_changes_nothing(trained):
    trainer, path, saved = trained
    with torch.no_grad():
        for p in trainer.adapter.get_trainable_parameters():
            p.add_(1.0)
    moved, progress = _weights(trainer), trainer.progress
    optimizer_state = trainer.optimizer.state_dict()
    with pytest.raises(RuntimeError, match="model.resume_path"):
        trainer.load_checkpoint(str(path), resume_type="state")
    assert _same(_weights(trainer), moved) and not _same(moved, saved)
    assert trainer.progress == progress
    assert trainer.optimizer.state_dict()["state"].keys() == optimizer_state["state"].keys()


def test_the_constructor_resumes_exactly_without_the_trainer_s_load_checkpoint(
    trained, example_config, monkeypatch
):
    from flow_factory.trainers.loader import load_trainer

    trainer, path, saved = trained
    _refuse_trainer_load(monkeypatch)
    resumed = load_trainer(_config(example_config, resume_path=str(path), resume_type="state"))
    assert _same(_weights(resumed), saved)
    assert resumed.progress == trainer.progress and resumed.step > 0


def test_a_configured_weight_only_resume_loads_weights_in_the_constructor(
    trained, example_config, monkeypatch
):
    from flow_factory.trainers.loader import load_trainer

    _, path, saved = trained
    _refuse_trainer_load(monkeypatch)
    for resume_type in (None, "lora"):
        resumed = load_trainer(
            _config(example_config, resume_path=str(path), resume_type=resume_type)
        )
        assert _same(_weights(resumed), saved), resume_type
        assert resumed.step == 0, "a weight-only resume restores no progress"


@pytest.mark.parametrize("resume_type", [None, "lora", "full"])
def test_a_built_trainer_loads_weights_for_each_weight_type(trained, resume_type):
    trainer, path, saved = trained
    with torch.no_grad():
        for p in trainer.adapter.get_trainable_parameters():
            p.add_(1.0)
    trainer.load_checkpoint(str(path), resume_type=resume_type)
    assert _same(_weights(trainer), saved)


def test_a_resume_type_the_real_framework_lacks_is_refused(trained):
    trainer, path, _ = trained
    with pytest.raises(ValueError, match="'lora', 'full', 'state' or None"):
        trainer.load_checkpoint(str(path), resume_type="model")
    with pytest.raises(ValueError, match="'lora', 'full', 'state' or None"):
        trainer.adapter.load_checkpoint(str(path), resume_type="weights")


def test_the_adapter_refuses_an_exact_state_load(trained):
    trainer, path, _ = trained
    with pytest.raises(RuntimeError, match="model.resume_type: state"):
        trainer.adapter.load_checkpoint(str(path), resume_type="state")


def test_model_arguments_take_the_real_resume_types_only(sandbox_root):
    from flow_factory.hparams import ModelArguments

    for resume_type in (None, "lora", "full", "state"):
        assert ModelArguments(resume_type=resume_type).resume_type == resume_type
    with pytest.raises(ValueError, match="model.resume_type"):
        ModelArguments(resume_type="model")


class _AcceleratorWithout:
    """The run's real accelerator, less one member (what a hand-written stand-in may lack)."""

    def __init__(self, accelerator, missing):
        self._accelerator, self._missing = accelerator, missing

    def __getattr__(self, name):
        if name == self._missing:
            raise AttributeError(f"stand-in accelerator has no attribute {name!r}")
        return getattr(self._accelerator, name)


@pytest.mark.parametrize("member", ["project_configuration", "process_index", "is_main_process"])
def test_an_exact_checkpoint_reads_the_accelerators_members_as_the_real_one_does(
    trained, tmp_path, member
):
    """The real exact-state save elects its writer from ``project_configuration``
    (``save_on_each_node``) and ``is_main_process`` and records ``process_index``: an accelerator
    without them fails there, in the sandbox as in the framework."""
    trainer, _, _ = trained
    trainer.accelerator = _AcceleratorWithout(trainer.accelerator, member)
    with pytest.raises(AttributeError, match=member):
        trainer.save_checkpoint(str(tmp_path / "again"), epoch=trainer.epoch)


def test_an_exact_resume_on_another_process_or_device_is_refused(
    trained, sandbox_root, example_config, monkeypatch
):
    """The saved state names the process and device that wrote it; a resume elsewhere is
    refused before anything is restored, as the real runtime manifest is."""
    _, path, _ = trained
    state = torch.load(path / "trainer_state.pt", weights_only=False)
    assert (state["process_index"], state["device_type"]) == (0, "cpu")
    state["process_index"] = 1
    torch.save(state, path / "trainer_state.pt")
    from flow_factory.trainers.loader import load_trainer

    with pytest.raises(ValueError, match="process/device"):
        load_trainer(_config(example_config, resume_path=str(path), resume_type="state"))

