"""The cycle boundaries of the sandbox's ``BaseTrainer.start``, in the real framework's order.

Flow-Factory's ``BaseTrainer`` (the target version) runs its periodic boundaries per acquisition
mode: generation trainers save, then evaluate, before each rollout (cycle index 0, 1, ...);
dataset trainers evaluate, then save, after each full data epoch (cycle index 1, 2, ...), so an
exact checkpoint holds the state after evaluation.
"""

from __future__ import annotations

from test_runtime import _awr_trainer_cls, _online_config, _runtime


def _record_boundaries(trainer, tmp_path) -> list[tuple[str, int]]:
    """Make every boundary due (frequency 1) and note each one as it runs, in order."""
    trainer.log_args.save_freq = 1
    trainer.log_args.save_dir = str(tmp_path)
    trainer.eval_args.eval_freq = 1
    seen: list[tuple[str, int]] = []

    def save_checkpoint(save_directory, epoch=None):
        seen.append(("save", epoch))
        return tmp_path

    def evaluate():
        seen.append(("eval", trainer.cycle_index))

    trainer.save_checkpoint = save_checkpoint
    trainer.evaluate = evaluate
    return seen


def test_dataset_trainer_evaluates_then_saves_after_each_epoch(
    sandbox_root, example_config, tmp_path
):
    from flow_factory.hparams import Arguments
    from flow_factory.trainers.loader import load_trainer

    raw = example_config("sft")
    raw["train"].update({"max_epochs": 2, "num_train_timesteps": 1})
    raw["data"]["datasets"][0]["train"]["max_dataset_size"] = 4
    trainer = load_trainer(Arguments.from_dict(raw))
    seen = _record_boundaries(trainer, tmp_path)
    trainer.start()
    assert seen == [("eval", 1), ("save", 1), ("eval", 2), ("save", 2)]


def test_generation_trainer_saves_then_evaluates_before_each_rollout(sandbox_root, tmp_path):
    config = _online_config(max_epochs=2)
    accelerator, adapter = _runtime(config)
    trainer = _awr_trainer_cls()(accelerator=accelerator, config=config, adapter=adapter)
    seen = _record_boundaries(trainer, tmp_path)
    trainer.start()
    assert seen == [("save", 0), ("eval", 0), ("save", 1), ("eval", 1)]
