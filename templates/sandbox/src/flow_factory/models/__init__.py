"""Model adapters (only the CPU ``toy`` model ships in the sandbox)."""

from .abc import BaseAdapter
from .condition_state import PreparedConditionState
from .loader import load_model
from .model_bundle import ModelBundle
from .output_state import EncodedOutputState, GeometrySignature, MediaGeometrySignature
from .registry import get_model_adapter_class, list_registered_models

__all__ = [
    "BaseAdapter",
    "EncodedOutputState",
    "GeometrySignature",
    "MediaGeometrySignature",
    "PreparedConditionState",
    "ModelBundle",
    "get_model_adapter_class",
    "list_registered_models",
    "load_model",
]
