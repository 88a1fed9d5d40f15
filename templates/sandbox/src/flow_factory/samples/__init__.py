"""Sample containers and trajectory state types."""

from .samples import BaseSample, StackedSampleBatch
from .trajectory import ComponentTimes, LatentState, MultiModalStepOutput, NoisedState, ReplayStep

__all__ = [
    "BaseSample",
    "ComponentTimes",
    "LatentState",
    "MultiModalStepOutput",
    "NoisedState",
    "ReplayStep",
    "StackedSampleBatch",
]
