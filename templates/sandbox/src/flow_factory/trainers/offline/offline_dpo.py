# Copyright 2026 The ffgen authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

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
            # One DPO loss per timestep row, then their mean; every metric is the row's batch
            # mean, averaged over the rows (the real trainer's names: w = chosen, l = rejected).
            losses: list[torch.Tensor] = []
            rows: defaultdict[str, list[torch.Tensor]] = defaultdict(list)
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
                # Both arms' policy forwards, then both reference forwards inside one switch
                # of weights (the real trainer's order: one reference scope per row).
                with self.autocast():
                    policy = [
                        forward_velocity_state(
                            self, arm_batch, noised.state, times,
                            source=f"offline DPO policy ({arm})", **overrides,
                        )
                        for arm, arm_batch, times, noised in arms
                    ]
                with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():
                    reference = [
                        forward_velocity_state(
                            self, arm_batch, noised.state, times,
                            source=f"offline DPO reference ({arm})", **overrides,
                        )
                        for arm, arm_batch, times, noised in arms
                    ]
                errors: dict[str, torch.Tensor] = {}
                for letter, (_, _, _, noised), velocity, ref_velocity in zip(
                    "wl", arms, policy, reference, strict=True
                ):
                    errors[f"theta_{letter}_err"] = flow_matching_per_sample_loss(
                        self.adapter, velocity, noised
                    )
                    errors[f"ref_{letter}_err"] = flow_matching_per_sample_loss(
                        self.adapter, ref_velocity, noised
                    )
                loss, metrics = dpo_objective(
                    errors["theta_w_err"],
                    errors["theta_l_err"],
                    errors["ref_w_err"],
                    errors["ref_l_err"],
                    beta=self.training_args.beta,
                )
                losses.append(loss)
                for key, value in (*errors.items(), *metrics.items()):
                    rows[key].append(value.detach().mean())
            loss = torch.stack(losses).mean()
            self.accelerator.backward(loss)
            self._loss_info["loss"].append(loss.detach())
            for key, values in rows.items():
                self._loss_info[key].append(torch.stack(values).mean())
            if self.accelerator.sync_gradients:
                self._loss_info = self._apply_optimizer_step(self._loss_info)


__all__ = ["OfflineDPOTrainer"]
