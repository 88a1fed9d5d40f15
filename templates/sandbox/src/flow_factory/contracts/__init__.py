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
    CONDITION_METADATA_KEYS,
    NON_MODEL_CONDITION_KEYS,
    RUNTIME_SAMPLE_KEYS,
)
from .pipeline_io import MEDIA_TYPES, MediaType, PipelineIOContract

__all__ = [
    "AcquisitionMode",
    "FeedbackMode",
    "ExecutionContract",
    "ONLINE_EXECUTION_CONTRACT",
    "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT",
    "OFFLINE_EXECUTION_CONTRACT",
    "CONDITION_METADATA_KEYS",
    "RUNTIME_SAMPLE_KEYS",
    "NON_MODEL_CONDITION_KEYS",
    "MEDIA_TYPES",
    "MediaType",
    "PipelineIOContract",
]
