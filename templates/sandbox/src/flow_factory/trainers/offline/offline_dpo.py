"""Offline Diffusion-DPO on preference pairs (dataset acquisition, no feedback)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, ClassVar, Literal

import torch

from ...contracts import OFFLINE_EXECUTION_CONTRACT
from ...data_utils.offline_dataset import OfflineBatch, PreferenceOutputBatch
from ...data_utils.offline_train_data import build_offline_train_dataloader
from ..abc import BaseTrainer
from ..common.dpo_objective import dpo_objective
from ..common.flow_matching import (
    build_noised_output_state,
    flow_matching_per_sample_loss,
    sample_offline_timesteps,
    validate_preference_component_times,
    validate_preference_output_states,
)
from ..common.offline_batch import bind_prepared_condition_output, move_condition_to_device
from ..forward_process import forward_velocity_state


class OfflineDPOTrainer(BaseTrainer):
    """Arms share the prepared condition, timesteps and noise; the reference is the frozen
    initial weights (``adapter.use_ref_parameters()``)."""

    paradigm: ClassVar[Literal["decoupled"]] = "decoupled"
    execution_contract = OFFLINE_EXECUTION_CONTRACT

    def _build_train_dataloader(self) -> tuple[Any, dict[str, Any]]:
        loader = build_offline_train_dataloader(
            config=self.config,
            accelerator=self.accelerator,
            preprocess_func=self.adapter.preprocess_func,
            supervision_type="preference",
            pipeline_io_contract=self.adapter.effective_pipeline_io_contract,
        )
        return loader, {}

    def optimize_batch(self, batch: OfflineBatch) -> None:
        """Four per-sample flow-matching losses -> ``dpo_objective``; one backward."""
        if type(batch) is not OfflineBatch:
            raise TypeError(f"offline DPO expects an OfflineBatch, got {type(batch).__name__}")
        if batch.supervision_type != "preference" or type(batch.output) is not (
            PreferenceOutputBatch
        ):
            raise TypeError(
                "offline DPO expects preference supervision, got "
                f"{batch.supervision_type!r} / {type(batch.output).__name__}"
            )
        device = self.accelerator.device
        condition = move_condition_to_device(batch.condition, device)
        self.adapter.train()
        prepared = self.adapter.prepare_condition_state(condition)
        chosen = self.adapter.encode_output_state(batch.output.chosen_media, prepared)
        rejected = self.adapter.encode_output_state(batch.output.rejected_media, prepared)
        validate_preference_output_states(chosen, rejected)
        chosen_batch = bind_prepared_condition_output(prepared, chosen.forward_context)
        rejected_batch = bind_prepared_condition_output(prepared, rejected.forward_context)
        timesteps = sample_offline_timesteps(
            self.training_args, batch_size=len(batch), device=device
        )
        overrides = self.adapter.offline_training_forward_overrides
        with self.accumulate_gradients():
            terms: defaultdict[str, list[torch.Tensor]] = defaultdict(list)
            for row in timesteps:
                c_times, c_noised = build_noised_output_state(
                    self.adapter, chosen.clean_state, row, batch=chosen_batch
                )
                r_times, r_noised = build_noised_output_state(
                    self.adapter, rejected.clean_state, row, batch=rejected_batch,
                    noise=c_noised.noise,
                )
                validate_preference_component_times(c_times, r_times)
                arms = (("chosen", chosen_batch, c_times, c_noised),
                        ("rejected", rejected_batch, r_times, r_noised))
                for arm, arm_batch, times, noised in arms:
                    with self.autocast():
                        velocity = forward_velocity_state(
                            self, arm_batch, noised.state, times,
                            source=f"offline DPO policy ({arm})", **overrides,
                        )
                    terms[f"policy_{arm}"].append(
                        flow_matching_per_sample_loss(self.adapter, velocity, noised)
                    )
                    with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():
                        ref_velocity = forward_velocity_state(
                            self, arm_batch, noised.state, times,
                            source=f"offline DPO reference ({arm})", **overrides,
                        )
                    terms[f"reference_{arm}"].append(
                        flow_matching_per_sample_loss(self.adapter, ref_velocity, noised)
                    )
            mean = {k: torch.stack(v, dim=0).mean(dim=0) for k, v in terms.items()}
            loss, metrics = dpo_objective(
                mean["policy_chosen"],
                mean["policy_rejected"],
                mean["reference_chosen"],
                mean["reference_rejected"],
                beta=self.training_args.beta,
            )
            self.accelerator.backward(loss)
            self._loss_info["loss"].append(loss.detach())
            for key in ("policy_chosen", "policy_rejected"):
                self._loss_info[f"{key}_loss"].append(mean[key].detach().mean())
            for key, value in metrics.items():
                self._loss_info[key].append(value)
            if self.accelerator.sync_gradients:
                self._loss_info = self._apply_optimizer_step(self._loss_info)


__all__ = ["OfflineDPOTrainer"]
