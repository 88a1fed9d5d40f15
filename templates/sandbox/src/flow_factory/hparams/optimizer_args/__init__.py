"""Optimizer arguments: one entry per ``optimizers:`` item (one per trainable role)."""

from ._base import MultiOptimizerArguments, OptimizerArguments
from ._registry import build_optimizer_args, get_optimizer_args_class, register_optimizer_args
from .adamw import AdamWOptimizerArguments
from .muon import MuonOptimizerArguments

__all__ = [
    "AdamWOptimizerArguments",
    "MultiOptimizerArguments",
    "MuonOptimizerArguments",
    "OptimizerArguments",
    "build_optimizer_args",
    "get_optimizer_args_class",
    "register_optimizer_args",
]
