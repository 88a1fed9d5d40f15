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

"""Execution, model-condition and pipeline-IO contracts (no torch imports)."""

from .execution import (
    OFFLINE_EXECUTION_CONTRACT,
    ONLINE_EXECUTION_CONTRACT,
    ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT,
    AcquisitionMode,
    ExecutionContract,
    FeedbackMode,
)
from .model_condition import (
    FORWARD_STATE_BOUNDARY_KEYS,
    FORWARD_STATE_OWNED_KEYS,
    NON_MODEL_CONDITION_KEYS,
    OFFLINE_PROVENANCE_KEYS,
    ROLLOUT_STORAGE_KEYS,
    TRAINER_METADATA_KEYS,
)
from .pipeline_io import (
    BatchCapability,
    GeometrySource,
    InputMediaBinding,
    InputMediaOrder,
    InputMediaRule,
    InputMediaSpec,
    MediaFormat,
    MediaType,
    NegativePromptPolicy,
    OutputMediaSequence,
    PipelineIOContract,
    RateRequirement,
    validate_pipeline_output_candidate,
)

__all__ = [
    "FORWARD_STATE_BOUNDARY_KEYS",
    "FORWARD_STATE_OWNED_KEYS",
    "NON_MODEL_CONDITION_KEYS",
    "OFFLINE_EXECUTION_CONTRACT",
    "OFFLINE_PROVENANCE_KEYS",
    "ONLINE_EXECUTION_CONTRACT",
    "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT",
    "ROLLOUT_STORAGE_KEYS",
    "TRAINER_METADATA_KEYS",
    "AcquisitionMode",
    "BatchCapability",
    "ExecutionContract",
    "FeedbackMode",
    "GeometrySource",
    "InputMediaBinding",
    "InputMediaOrder",
    "InputMediaRule",
    "InputMediaSpec",
    "MediaFormat",
    "MediaType",
    "NegativePromptPolicy",
    "OutputMediaSequence",
    "PipelineIOContract",
    "RateRequirement",
    "validate_pipeline_output_candidate",
]
