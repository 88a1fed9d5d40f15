"""In-process runtime tests on one shared sandbox copy (tiny configs, a second or two each)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pytest
import torch


def _sft_config(example_config, **train_overrides):
    from flow_factory.hparams import Arguments

    raw = example_config("sft")
    raw["train"].update({"max_epochs": 1, "num_train_timesteps": 1, **train_overrides})
    return Arguments.from_dict(raw)


def _runtime(config):
    from accelerate import Accelerator
    from flow_factory.models.toy import ToyAdapter

    accelerator = Accelerator(
        cpu=True, gradient_accumulation_steps=int(config.training_args.gradient_accumulation_steps)
    )
    return accelerator, ToyAdapter(config=config, accelerator=accelerator)


# ---------------------------------------------------------------- a generation args class
def _online_args_cls():
    from flow_factory.hparams.training_args import TrainingArguments

    @dataclass
    class AWRTrainingArguments(TrainingArguments):
        trainer_type: str = "awr-test"
        advantage_aggregation: str = "sum"
        global_std: bool = True
        adv_clip_range: Any = (-5.0, 5.0)
        kl_beta: float = 0.0
        noise_level: float = 0.7
        num_train_timesteps: int = 2
        timestep_range: Any = 0.99
        time_shift: float = 1.0
        time_sampling_strategy: str = "uniform"

    return AWRTrainingArguments


def _online_config(dynamics="ODE", max_epochs=2):
    from flow_factory.hparams import (
        AdamWOptimizerArguments,
        Arguments,
        DataArguments,
        ModelArguments,
        MultiOptimizerArguments,
        RewardArguments,
        SchedulerArguments,
    )
    from flow_factory.hparams.training_args import EvaluationArguments

    args = _online_args_cls()(
        max_epochs=max_epochs, per_device_batch_size=4, group_size=4,
        unique_sample_num_per_epoch=4, num_inference_steps=4, ema_decay=0.0,
        gradient_step_per_epoch=2,
    )
    config = Arguments(
        model_args=ModelArguments(lora_rank=8, lora_alpha=32),
        data_args=DataArguments(datasets=[{"name": "prompts", "dataset_dir": "dataset/toy_prompts",
                                           "train": {"weight": 1}}]),
        training_args=args,
        scheduler_args=SchedulerArguments(dynamics_type=dynamics),
        eval_args=EvaluationArguments(eval_freq=0),
        reward_args=[RewardArguments(name="target", reward_model="toy_target")],
        optimizer_args=MultiOptimizerArguments(
            optimizer_configs=[AdamWOptimizerArguments(learning_rate=3e-3, weight_decay=0.0)]
        ),
    )
    config._validate_contract()
    return config


def _awr_trainer_cls(paradigm="decoupled"):
    """Advantage-weighted flow matching: regress onto samples with positive advantage."""
    from flow_factory.samples import LatentState
    from flow_factory.trainers.abc import BaseTrainer
    from flow_factory.trainers.common.flow_matching import flow_matching_per_sample_loss
    from flow_factory.trainers.forward_process import forward_velocity_state

    class AWRTrainer(BaseTrainer):
        # what _sample_timesteps reads (the algorithm sets them, as Flow-Factory's AWM does)
        time_sampling_strategy, num_train_timesteps = "uniform", 1
        timestep_range, time_shift = (0.0, 1.0), 1.0

        def sample(self):
            return self.generate_samples(reward_buffer=self.reward_buffer, trajectory_indices=[-1])

        def optimize(self, samples):
            self.adapter.train()
            ordered = self._order_samples_for_optimize(samples, 0)
            for batch in self._iter_prefetched_batches(ordered, 4):
                clean = LatentState({"latent": batch["image"]})
                weight = batch["advantage"].clamp_min(0.0)
                with self.accumulate_gradients():
                    terms = []
                    for row in self._sample_timesteps(len(batch["image"])):
                        times = self.adapter.build_training_component_times(row)
                        noised = self.adapter.add_forward_process_noise(clean, times)
                        with self.autocast():
                            v = forward_velocity_state(self, batch, noised.state, times,
                                                       source="AWR policy")
                        terms.append(flow_matching_per_sample_loss(self.adapter, v, noised))
                    loss = (torch.stack(terms).mean(0) * weight).mean()
                    self.accelerator.backward(loss)
                    self._loss_info["loss"].append(loss.detach())
                    if self.accelerator.sync_gradients:
                        self._loss_info = self._apply_optimizer_step(self._loss_info)

    AWRTrainer.paradigm = paradigm
    return AWRTrainer


# ---------------------------------------------------------------- tests
def test_dataset_epochs_advance_once_per_full_traversal(sandbox_root, example_config):
    from flow_factory.trainers.loader import load_trainer

    trainer = load_trainer(_sft_config(example_config, max_epochs=2))
    epochs_seen = []
    original = trainer.dataloader.sampler.set_epoch
    trainer.dataloader.sampler.set_epoch = lambda e: (epochs_seen.append(e), original(e))[1]
    trainer.start()
    batches = len(trainer.dataloader)
    assert trainer.progress.data_epoch == 2 and epochs_seen == [0, 1]
    assert trainer.step == 2 * batches // trainer.training_args.gradient_accumulation_steps
    from flow_factory.sandbox_support import cycle_history

    assert [h["cycle"] for h in cycle_history(trainer)] == [0, 1]


def test_failed_batch_propagates_and_keeps_data_epoch(sandbox_root, example_config):
    from flow_factory.trainers.loader import load_trainer

    trainer = load_trainer(_sft_config(example_config))
    calls = {"n": 0}
    real = trainer.optimize_batch

    def flaky(batch):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("boom in batch 3")
        real(batch)

    trainer.optimize_batch = flaky
    with pytest.raises(RuntimeError, match="boom"):
        trainer.start()
    from flow_factory.sandbox_support import cycle_history

    assert trainer.progress.data_epoch == 0 and cycle_history(trainer) == []


def test_dataset_trainer_without_optimize_batch_is_rejected(sandbox_root, example_config):
    from flow_factory.contracts import OFFLINE_EXECUTION_CONTRACT
    from flow_factory.trainers.abc import BaseTrainer

    class NoHook(BaseTrainer):
        execution_contract = OFFLINE_EXECUTION_CONTRACT

    config = _sft_config(example_config)
    accelerator, adapter = _runtime(config)
    with pytest.raises(TypeError, match="optimize_batch"):
        NoHook(accelerator=accelerator, config=config, adapter=adapter)


def test_generation_trainer_without_optimize_is_rejected(sandbox_root):
    from flow_factory.trainers.abc import BaseTrainer

    class NoOptimize(BaseTrainer):
        def sample(self):
            return []

    config = _online_config()
    accelerator, adapter = _runtime(config)
    with pytest.raises(TypeError, match="optimize"):
        NoOptimize(accelerator=accelerator, config=config, adapter=adapter)


def test_contract_mismatch_rejected_before_model_work(sandbox_root, example_config, monkeypatch):
    import accelerate
    from flow_factory.trainers import loader, registry

    awr = _awr_trainer_cls()
    monkeypatch.setitem(registry._TRAINER_REGISTRY, "sft", f"{__name__}.{awr.__qualname__}")
    monkeypatch.setattr(loader, "get_trainer_class", lambda key: awr)

    def no_model_work(*args, **kwargs):
        raise AssertionError("model/accelerator work before the contract check")

    monkeypatch.setattr(accelerate, "Accelerator", no_model_work)
    with pytest.raises(ValueError, match="execution contract mismatch"):
        loader.load_trainer(_sft_config(example_config))


def test_coupled_trainer_rejects_ode(sandbox_root):
    config = _online_config(dynamics="ODE")
    accelerator, adapter = _runtime(config)
    with pytest.raises(ValueError, match="coupled"):
        _awr_trainer_cls("coupled")(accelerator=accelerator, config=config, adapter=adapter)


def test_generation_trainer_runs_two_cycles_with_rewards(sandbox_root, capsys):
    config = _online_config(max_epochs=2)
    accelerator, adapter = _runtime(config)
    trainer = _awr_trainer_cls()(accelerator=accelerator, config=config, adapter=adapter)
    trainer.start()
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("cycle=")]
    assert len(lines) == 2 and all(" reward=" in ln for ln in lines), lines
    assert trainer.progress.rollout_iteration == 2 and trainer.step > 0
    from flow_factory.sandbox_support import cycle_history

    rows = cycle_history(trainer)
    assert len(rows) == 2
    for row in rows:
        assert math.isfinite(row["loss"]) and math.isfinite(row["reward"])


def test_model_only_save_then_load_restores_trainable_weights(sandbox_root, example_config,
                                                              tmp_path):
    from flow_factory.sandbox_support import trainable_state_dict
    from flow_factory.trainers.loader import load_trainer

    trainer = load_trainer(_sft_config(example_config))
    trainer.start()
    saved = trainable_state_dict(trainer.adapter)
    path = trainer.save_checkpoint(str(tmp_path), epoch=trainer.epoch)
    with torch.no_grad():
        for p in trainer.adapter.get_trainable_parameters():
            p.add_(1.0)
    trainer.load_checkpoint(str(path))
    restored = trainable_state_dict(trainer.adapter)
    assert saved.keys() == restored.keys()
    assert all(torch.equal(saved[k], restored[k]) for k in saved)


def test_execution_contract_is_not_configurable(sandbox_root, example_config):
    from flow_factory.hparams import Arguments

    raw = example_config("sft")
    raw["train"]["execution_contract"] = "offline"
    with pytest.raises(ValueError, match="execution_contract"):
        Arguments.from_dict(raw)
    raw = example_config("sft")
    raw["rewards"] = [{"name": "t", "reward_model": "toy_target"}]
    with pytest.raises(ValueError, match="does not accept training rewards"):
        Arguments.from_dict(raw)


def test_sample_timesteps_needs_the_trainer_attributes(sandbox_root):
    from flow_factory.trainers.abc import BaseTrainer

    trainer = object.__new__(BaseTrainer)
    with pytest.raises(AttributeError, match="time_sampling_strategy"):
        trainer._sample_timesteps(2)


def test_lora_without_target_modules_fails_like_the_real_default(sandbox_root, example_config):
    """Rule: as in the real framework, a LoRA config that leaves ``target_modules`` out gets the
    loader's default ``all``, which the model has no module for: building it fails, naming the
    key; ``default`` (what every example says) and a list of the model's layers work."""
    from flow_factory.hparams import Arguments

    raw = example_config("sft")
    assert raw["model"].pop("target_modules") == "default"
    config = Arguments.from_dict(raw)
    assert config.model_args.target_modules == "all"
    with pytest.raises(ValueError, match=r"Target modules all not found.*target_modules"):
        _runtime(config)
    raw["model"]["target_modules"] = ["fc1", "out"]
    _, adapter = _runtime(Arguments.from_dict(raw))
    trainable = {name for name, p in adapter.transformer.named_parameters() if p.requires_grad}
    assert {name.split(".")[0] for name in trainable} == {"fc1", "out"}


def test_discrete_time_sampling_draws_the_rollout_s_steps_as_the_built_ins_do(sandbox_root):
    """Rule: the discrete strategies draw one row of the rollout's own steps within the band,
    one per stratum; ``discrete_with_init`` always holds the band's first step,
    ``discrete_wo_init`` never does."""
    import torch
    from flow_factory.trainers.abc import _discrete_picks

    grid = torch.linspace(1.0, 0.0, 11)[:-1]  # ten steps, noisiest first
    for seed in range(20):
        draw = torch.Generator().manual_seed(seed)
        plain = _discrete_picks(grid, (0.0, 0.95), 3, "discrete", draw)
        first = _discrete_picks(grid, (0.0, 0.95), 3, "discrete_with_init", draw)
        without = _discrete_picks(grid, (0.0, 0.95), 3, "discrete_wo_init", draw)
        for picks in (plain, first, without):
            assert picks.shape == (3,) and bool((grid[picks] <= 0.95).all())
            assert picks.tolist() == sorted(picks.tolist())  # one per stratum, in order
        assert first[0] == 1 and 1 not in without.tolist()  # step 0 (1.0) is outside the band
    with pytest.raises(ValueError, match="holds none"):
        _discrete_picks(grid, (0.95, 0.99), 2, "discrete", None)
