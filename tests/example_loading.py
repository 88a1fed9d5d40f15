"""Compare a generated example with the example it starts from, as the loader reads them.

A generated example must carry every setting of its base example's ``model:`` block that the run
needs: not the same text, the same *loaded* value (an absent key is the loader's default, so a
dropped ``target_modules: default`` loads as ``all`` and LoRA injection fails on a real model).

``real_model_args`` applies the real ``ModelArguments`` to a ``model:`` block without running it:
the field defaults and the normalisations of its ``__post_init__``, written down here as facts of
Flow-Factory 091df9d (``hparams/model_args.py``; no real code). ``missing_model_settings`` takes
two loaded blocks, so the same rule checks the sandbox, whose ``ModelArguments.from_dict`` loads
them there.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path

API = Path(__file__).resolve().parent / "fixtures" / "flow_factory_api.json"

# Real ``ModelArguments`` field defaults (the surprising one: a block without a path loads
# FLUX.1-dev, whatever its model type).
REAL_MODEL_DEFAULTS: dict[str, object] = {
    "model_name_or_path": "black-forest-labs/FLUX.1-dev",
    "finetune_type": "full",
    "trainable_parameters_dtype": "bfloat16",
    "component_load_dtypes": None,
    "frozen_parameters_dtype": None,
    "target_components": "transformer",
    "target_modules": "all",
    "model_type": "flux1",
    "lora_rank": 8,
    "lora_alpha": None,
    "resume_path": None,
    "resume_type": None,
}
# Real ``Arguments.mixed_precision`` default.
REAL_MIXED_PRECISION = "bf16"
# The real dtype names and the dtype each loads as.
DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
          "float16": "float16", "bfloat16": "bfloat16", "float32": "float32"}
# ``target_modules`` strings the real loader keeps as they are (any other becomes a one-item list).
TARGET_MODULE_WORDS = ("all", "default")

# What the algorithm, not its base, decides; a resume names one run's checkpoint.
DECIDED = frozenset({"finetune_type", "resume_path", "resume_type"})
LORA_PREFIX = "lora_"
# Top-level and ``data:`` keys the generated example sets for itself.
DATA_DECIDED = frozenset({"datasets", "dataset_dir", "enable_preprocess", "sampler_type"})


@functools.cache
def _api_modules() -> dict:
    return json.loads(API.read_text(encoding="utf-8"))["modules"]


def real_fields(module: str, cls: str) -> set[str]:
    """Field names of a real argument class, from our fixture of the real interface."""
    return set(_api_modules()[module]["classes"][cls]["class_attributes"])


def _dtype(value: object) -> object:
    return DTYPES.get(value, value) if isinstance(value, str) else value


def _dtype_policy(value: object, *, default_null: bool) -> object:
    if not isinstance(value, Mapping):
        return _dtype(value)
    policy = {selector: _dtype(dtype) for selector, dtype in value.items()}
    if default_null:
        policy.setdefault("default", None)
    return policy


def real_model_args(block: Mapping[str, object]) -> dict[str, object]:
    """The values the real ``ModelArguments`` holds for a ``model:`` block (unknown keys are
    kept as they are, as its ``extra_kwargs``)."""
    values = {**REAL_MODEL_DEFAULTS, **block}
    if values["lora_alpha"] is None:
        values["lora_alpha"] = 2 * values["lora_rank"]
    if isinstance(values["target_components"], str):
        values["target_components"] = [values["target_components"]]
    modules = values["target_modules"]
    if isinstance(modules, str) and modules not in TARGET_MODULE_WORDS:
        values["target_modules"] = [modules]
    values["trainable_parameters_dtype"] = _dtype(values["trainable_parameters_dtype"])
    values["component_load_dtypes"] = _dtype_policy(values["component_load_dtypes"],
                                                    default_null=False)
    values["frozen_parameters_dtype"] = _dtype_policy(values["frozen_parameters_dtype"],
                                                      default_null=True)
    return values


def needed_model_keys(base_block: Mapping[str, object], base: Mapping[str, object],
                      finetune_type: str) -> set[str]:
    """The loaded settings of the base a ``finetune_type`` example must share: all of them but
    what the algorithm decides; ``lora_*`` only between two LoRA finetunes; the path only where
    the base names one (else the loader's default is no choice of the base)."""
    keys = set(base) - DECIDED
    if not (finetune_type == "lora" and base["finetune_type"] == "lora"):
        keys = {key for key in keys if not key.startswith(LORA_PREFIX)}
    if "model_name_or_path" not in base_block:
        keys.discard("model_name_or_path")
    return keys


def missing_model_settings(base_block: Mapping[str, object], base: Mapping[str, object],
                           generated: Mapping[str, object]) -> dict[str, tuple[object, object]]:
    """Needed base settings the generated example loads differently: key -> (base, generated)."""
    keys = needed_model_keys(base_block, base, str(generated["finetune_type"]))
    return {key: (base[key], generated.get(key, "<absent>"))
            for key in sorted(keys)
            if generated.get(key, "<absent>") != base[key] and not _repaired(key, base, generated)}


def _repaired(key: str, base: Mapping[str, object], generated: Mapping[str, object]) -> bool:
    """The one setting a generated example may load differently: a base that leaves LoRA on the
    loader's default ``all`` (which fails injection on real models) while the generated example
    names the model's own ``default``."""
    return key == "target_modules" and base[key] == "all" and generated.get(key) == "default"


def missing_section_settings(base: Mapping[str, object], generated: Mapping[str, object],
                             keys: set[str]) -> dict[str, tuple[object, object]]:
    """``keys`` of a base section the generated one lacks or sets differently."""
    return {key: (base[key], generated.get(key, "<absent>")) for key in sorted(keys)
            if key in base and generated.get(key, "<absent>") != base[key]}


__all__ = [
    "DATA_DECIDED",
    "REAL_MIXED_PRECISION",
    "REAL_MODEL_DEFAULTS",
    "missing_model_settings",
    "missing_section_settings",
    "needed_model_keys",
    "real_fields",
    "real_model_args",
]
