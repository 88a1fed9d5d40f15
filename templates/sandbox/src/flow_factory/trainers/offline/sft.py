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

"""Supervised flow matching on demonstrations (dataset acquisition, no feedback)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import torch

from ...contracts import OFFLINE_EXECUTION_CONTRACT
from ...data_utils.offline_dataset import DemonstrationOutputBatch, OfflineBatch
from ...data_utils.offline_train_data import build_offline_train_dataloader
from ..abc import BaseTrainer
from ..common.flow_matching import (
    build_noised_output_state,
    flow_matching_per_sample_loss,
    sample_offline_timesteps,
)
from ..common.offline_batch import bind_prepared_condition_output, move_condition_to_device
from ..forward_process import forward_velocity_state


class SFTTrainer(BaseTrainer):
    """Flow-matching loss on target media; one backward per microbatch, explicit GAS."""

    paradigm: ClassVar[Literal["decoupled"]] = "decoupled"
    execution_contract = OFFLINE_EXECUTION_CONTRACT

    def _build_train_dataloader(self) -> tuple[Any, dict[str, Any]]:
        loader = build_offline_train_dataloader(
            config=self.config,
            accelerator=self.accelerator,
            preprocess_func=self.adapter.preprocess_func,
            supervision_type="demonstration",
            pipeline_io_contract=self.adapter.effective_pipeline_io_contract,
        )
        return loader, {}

    def optimize_batch(self, batch: OfflineBatch) -> None:
        """Average the per-timestep flow-matching losses, backward once, step on sync."""
        if type(batch) is not OfflineBatch:
            raise TypeError(f"SFT expects an OfflineBatch, got {type(batch).__name__}")
        if batch.supervision_type != "demonstration" or type(batch.output) is not (
            DemonstrationOutputBatch
        ):
            raise TypeError(
                "SFT expects demonstration supervision, got "
                f"{batch.supervision_type!r} / {type(batch.output).__name__}"
            )
        device = self.accelerator.device
        condition = move_condition_to_device(batch.condition, device)
        self.adapter.train()
        prepared = self.adapter.prepare_condition_state(condition)
        encoded = self.adapter.encode_output_state(batch.output.target_media, prepared)
        model_batch = bind_prepared_condition_output(prepared, encoded.forward_context)
        timesteps = sample_offline_timesteps(
            self.training_args, batch_size=len(batch), device=device
        )
        with self.accumulate_gradients():
            per_timestep = []
            for row in timesteps:
                times, noised = build_noised_output_state(
                    self.adapter, encoded.clean_state, row, batch=model_batch
                )
                with self.autocast():
                    velocity = forward_velocity_state(
                        self,
                        model_batch,
                        noised.state,
                        times,
                        source="SFT policy",
                        **self.adapter.offline_training_forward_overrides,
                    )
                per_timestep.append(flow_matching_per_sample_loss(self.adapter, velocity, noised))
            loss = torch.stack(per_timestep, dim=0).mean()
            self.accelerator.backward(loss)
            self._loss_info["loss"].append(loss.detach())
            self._loss_info["flow_matching_loss"].append(loss.detach())
            if self.accelerator.sync_gradients:
                self._loss_info = self._apply_optimizer_step(self._loss_info)


__all__ = ["SFTTrainer"]
