"""Model adapters (only the CPU ``toy`` model ships in the sandbox)."""

from .abc import DEFAULT_BASE_VARIANT, BaseAdapter
from .condition_state import PreparedConditionState
from .output_state import EncodedOutputState, GeometrySignature, MediaGeometrySignature
from .registry import get_model_class, list_registered_models, load_model

__all__ = [
    "DEFAULT_BASE_VARIANT",
    "BaseAdapter",
    "EncodedOutputState",
    "GeometrySignature",
    "MediaGeometrySignature",
    "PreparedConditionState",
    "get_model_class",
    "list_registered_models",
    "load_model",
]
