"""The sandbox's hand-written built-in ``grpo``: the real arguments' defaults and forms, and a
KL in either space (``ffgen smoke --compare`` in tests/smoke proves the objective itself equal
to a generated GRPO's, which knows the velocity space only)."""

from __future__ import annotations

import pytest


def _grpo_args(**train):
    from flow_factory.hparams.training_args import GRPOTrainingArguments

    return GRPOTrainingArguments.from_dict({"trainer_type": "grpo", **train})


def test_defaults_are_the_real_built_ins(sandbox_root):
    args = _grpo_args()
    assert (args.advantage_aggregation, args.kl_type, args.kl_beta) == ("gdpo", "x-based", 0.0)
    assert args.clip_range == (-1e-4, 1e-4) and args.adv_clip_range == (-5.0, 5.0)
    assert args.global_std is True and not args.requires_ref_model


def test_a_real_configs_scalar_forms_are_accepted(sandbox_root):
    # as the real SD3.5 example writes them; a KL weight may come as a string from the CLI
    args = _grpo_args(clip_range=1.0e-4, adv_clip_range=5.0, kl_type="v-based", kl_beta="1e-3")
    assert args.clip_range == (-1e-4, 1e-4) and args.adv_clip_range == (-5.0, 5.0)
    assert args.kl_beta == 1e-3 and args.requires_ref_model
    assert _grpo_args(clip_range=[-0.1, 0.3]).clip_range == (-0.1, 0.3)


@pytest.mark.parametrize("train, named", [
    ({"kl_type": "kl"}, "kl_type"),
    ({"kl_beta": -0.1}, "kl_beta"),
    ({"kl_beta": True}, "kl_beta"),
    ({"clip_range": [-2.0, 0.1]}, "clip_range"),
    ({"clip_range": [0.2, 0.1]}, "clip_range"),
    ({"adv_clip_range": "wide"}, "adv_clip_range"),
    ({"advantage_aggregation": "mean"}, "advantage_aggregation"),
    ({"trainer_type": "grpo-guard"}, "trainer_type"),
])
def test_bad_values_are_refused_naming_the_field(sandbox_root, train, named):
    with pytest.raises((ValueError, TypeError), match=named):
        _grpo_args(**train)


@pytest.mark.parametrize("kl_type", ["v-based", "x-based"])
def test_the_kl_in_either_space_trains_and_is_logged_weighted(example_config, kl_type):
    from flow_factory.hparams import Arguments
    from flow_factory.sandbox_support import log_history
    from flow_factory.trainers.loader import load_trainer

    raw = example_config("grpo")
    raw["train"].update(max_epochs=2, unique_sample_num_per_epoch=2, group_size=2,
                        per_device_batch_size=4, gradient_step_per_epoch=1, kl_type=kl_type,
                        kl_beta=0.1)
    trainer = load_trainer(Arguments.from_dict(raw))
    trainer.start()
    steps = [r for r in log_history(trainer) if "train/loss" in r]
    assert len(steps) == 2, steps
    # the reference is the initial weights: no gap before the first step, one after it
    assert steps[0]["train/kl_div"] == 0.0 and steps[1]["train/kl_div"] > 0.0
    for row in steps:
        assert row["train/kl_loss"] == pytest.approx(0.1 * row["train/kl_div"])
        assert row["train/loss"] == pytest.approx(row["train/policy_loss"] + row["train/kl_loss"])
