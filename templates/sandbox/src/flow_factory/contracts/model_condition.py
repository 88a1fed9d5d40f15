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

"""Reserved condition keys that never reach the model forward (one owner per field)."""

from __future__ import annotations

#: Arguments of ``BaseAdapter.forward_state`` itself.
FORWARD_STATE_BOUNDARY_KEYS = frozenset(
    {"batch", "state", "times", "next_state", "return_fields", "forward_kwargs"}
)
#: Keyword arguments ``forward_state`` derives from the state and times.
FORWARD_STATE_OWNED_KEYS = frozenset(
    {"t", "t_next", "latents", "next_latents", "compute_log_prob", "return_kwargs", "noise_level"}
)
#: Stored rollout trajectory fields.
ROLLOUT_STORAGE_KEYS = frozenset(
    {"trajectory", "timesteps", "all_latents", "latent_index_map", "log_probs",
     "log_prob_index_map"}
)
#: Fields the trainer adds to a batch.
TRAINER_METADATA_KEYS = frozenset({"advantage"})
#: Offline-dataset bookkeeping carried beside the cached conditions.
OFFLINE_PROVENANCE_KEYS = frozenset(
    {"__offline_condition_id__", "condition", "condition_id", "condition_ids", "record_id",
     "record_ids", "source", "sources", "source_id", "source_ids", "model_input", "model_inputs",
     "supervision_type", "output", "target_media", "chosen_media", "rejected_media", "metadata",
     "metadata_json"}
)
#: Union: keys a model condition or forward context may never bind.
NON_MODEL_CONDITION_KEYS = (
    FORWARD_STATE_BOUNDARY_KEYS
    | FORWARD_STATE_OWNED_KEYS
    | ROLLOUT_STORAGE_KEYS
    | TRAINER_METADATA_KEYS
    | OFFLINE_PROVENANCE_KEYS
)

__all__ = [
    "FORWARD_STATE_BOUNDARY_KEYS",
    "FORWARD_STATE_OWNED_KEYS",
    "NON_MODEL_CONDITION_KEYS",
    "OFFLINE_PROVENANCE_KEYS",
    "ROLLOUT_STORAGE_KEYS",
    "TRAINER_METADATA_KEYS",
]
