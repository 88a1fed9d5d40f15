"""The edits of the five shared files that register an algorithm (registries and re-exports),
each with its inverse: pure, code in -> result out."""

from __future__ import annotations

from .args_init import add_args_init_export, remove_args_init_export
from .args_registry import add_args_registry_entry, remove_args_registry_entry
from .base import EditResult
from .category_init import add_category_reexport, remove_category_reexport
from .hparams_init import add_hparams_reexport, remove_hparams_reexport
from .trainer_registry import add_trainer_registry_entry, remove_trainer_registry_entry

__all__ = [
    "EditResult",
    "add_args_init_export",
    "add_args_registry_entry",
    "add_category_reexport",
    "add_hparams_reexport",
    "add_trainer_registry_entry",
    "remove_args_init_export",
    "remove_args_registry_entry",
    "remove_category_reexport",
    "remove_hparams_reexport",
    "remove_trainer_registry_entry",
]
