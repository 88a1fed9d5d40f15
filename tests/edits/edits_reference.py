"""The four edit-point files (plus category ``__init__``s) in the exact shapes of the interface
reference, section 3: all 14 built-in algorithms, banners, orderings and quoting as documented."""

from __future__ import annotations

ARGS_REGISTRY = '''"""Training-arguments registry: ``trainer_type`` key -> arguments class."""

from __future__ import annotations

import importlib
from typing import Dict, Type

from ._base import TrainingArguments
from .awm import AWMTrainingArguments
from .crd import CRDTrainingArguments
from .dgpo import DGPOTrainingArguments
from .dmd2 import DMD2TrainingArguments
from .dpo import DPOTrainingArguments
from .dppo import DPPOTrainingArguments
from .grpo import GRPOTrainingArguments
from .nft import NFTTrainingArguments
from .offline_dpo import OfflineDPOTrainingArguments
from .opd import DiffusionOPDTrainingArguments
from .sft import SFTTrainingArguments
from .tdm import TDMTrainingArguments
from .tdm_r1 import TDMR1TrainingArguments

# ============================================================================
# Training-arguments registry (new keys are appended last)
# ============================================================================
_TRAINING_ARGS_REGISTRY: Dict[str, Type[TrainingArguments]] = {
    "grpo": GRPOTrainingArguments,
    "grpo-guard": GRPOTrainingArguments,
    "dppo": DPPOTrainingArguments,
    "nft": NFTTrainingArguments,
    "awm": AWMTrainingArguments,
    "dgpo": DGPOTrainingArguments,
    "dpo": DPOTrainingArguments,
    "crd": CRDTrainingArguments,
    "dmd2": DMD2TrainingArguments,
    "tdm": TDMTrainingArguments,
    "tdm-r1": TDMR1TrainingArguments,
    "diffusion-opd": DiffusionOPDTrainingArguments,
    "sft": SFTTrainingArguments,
    "offline-dpo": OfflineDPOTrainingArguments,
}


def get_training_args_class(identifier: str) -> Type[TrainingArguments]:
    """Resolve a registry key or a dotted path to a ``TrainingArguments`` subclass."""
    key = identifier.lower()
    if key in _TRAINING_ARGS_REGISTRY:
        return _TRAINING_ARGS_REGISTRY[key]
    try:
        module_name, class_name = identifier.rsplit(".", 1)
        cls = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(cls, type) and issubclass(cls, TrainingArguments)):
            raise TypeError(f"{identifier} is not a TrainingArguments subclass")
        return cls
    except (ImportError, AttributeError, ValueError, TypeError) as e:
        raise ImportError(
            f"Unknown training arguments {identifier!r}; "
            f"registered: {sorted(_TRAINING_ARGS_REGISTRY)}"
        ) from e


def list_registered_training_args() -> Dict[str, Type[TrainingArguments]]:
    """Return a copy of the registry."""
    return dict(_TRAINING_ARGS_REGISTRY)
'''

ARGS_INIT = '''"""Training arguments: base classes, registry, one arguments class per algorithm."""

from ..gradient_checkpointing import (
    GradientCheckpointingPolicy,
    GradientCheckpointingSpec,
)
from ._base import EvaluationArguments, TrainingArguments
from ._registry import get_training_args_class, list_registered_training_args
from .awm import AWMTrainingArguments
from .crd import CRDTrainingArguments
from .dgpo import DGPOTrainingArguments
from .dmd2 import DMD2TrainingArguments
from .dpo import DPOTrainingArguments
from .dppo import DPPOTrainingArguments
from .grpo import GRPOTrainingArguments
from .nft import NFTTrainingArguments
from .offline_dpo import OfflineDPOTrainingArguments
from .opd import DiffusionOPDTrainingArguments, TeacherConfig
from .sft import SFTTrainingArguments
from .tdm import TDMTrainingArguments
from .tdm_r1 import TDMR1TrainingArguments

__all__ = [
    "EvaluationArguments",
    "TrainingArguments",
    "GradientCheckpointingPolicy",
    "GradientCheckpointingSpec",
    "GRPOTrainingArguments",
    "DPPOTrainingArguments",
    "NFTTrainingArguments",
    "AWMTrainingArguments",
    "DPOTrainingArguments",
    "DGPOTrainingArguments",
    "DMD2TrainingArguments",
    "TDMTrainingArguments",
    "TDMR1TrainingArguments",
    "CRDTrainingArguments",
    "DiffusionOPDTrainingArguments",
    "SFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "TeacherConfig",
    "get_training_args_class",
    "list_registered_training_args",
]
'''

# The names of the `from .training_args import (...)` block, in the documented isort order.
HPARAMS_BLOCK = [
    "AWMTrainingArguments",
    "CRDTrainingArguments",
    "DGPOTrainingArguments",
    "DiffusionOPDTrainingArguments",
    "DMD2TrainingArguments",
    "DPOTrainingArguments",
    "DPPOTrainingArguments",
    "GRPOTrainingArguments",
    "NFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "SFTTrainingArguments",
    "TDMR1TrainingArguments",
    "TDMTrainingArguments",
    "TeacherConfig",
    "TrainingArguments",
    "get_training_args_class",
]

HPARAMS_INIT = '''"""Hyper-parameter dataclasses for every configuration group."""

from .acceleration_args import AccelerationArguments
from .args import Arguments
from .data_args import DataArguments
from .dataset_args import DatasetArguments
from .gradient_checkpointing import GradientCheckpointingPolicy, GradientCheckpointingSpec
from .log_args import LogArguments
from .model_args import ModelArguments
from .optimizer_args import (
    AdamWOptimizerArguments,
    MultiOptimizerArguments,
    MuonOptimizerArguments,
    OptimizerArguments,
)
from .reward_args import RewardArguments
from .scheduler_args import SchedulerArguments
from .training_args import (
    AWMTrainingArguments,
    CRDTrainingArguments,
    DGPOTrainingArguments,
    DiffusionOPDTrainingArguments,
    DMD2TrainingArguments,
    DPOTrainingArguments,
    DPPOTrainingArguments,
    GRPOTrainingArguments,
    NFTTrainingArguments,
    OfflineDPOTrainingArguments,
    SFTTrainingArguments,
    TDMR1TrainingArguments,
    TDMTrainingArguments,
    TeacherConfig,
    TrainingArguments,
    get_training_args_class,
)

__all__ = [
    "Arguments",
    "DataArguments",
    "ModelArguments",
    "SchedulerArguments",
    "TrainingArguments",
    "GradientCheckpointingPolicy",
    "GradientCheckpointingSpec",
    "GRPOTrainingArguments",
    "DPPOTrainingArguments",
    "NFTTrainingArguments",
    "AWMTrainingArguments",
    "DGPOTrainingArguments",
    "DMD2TrainingArguments",
    "TDMTrainingArguments",
    "TDMR1TrainingArguments",
    "DPOTrainingArguments",
    "CRDTrainingArguments",
    "DiffusionOPDTrainingArguments",
    "SFTTrainingArguments",
    "OfflineDPOTrainingArguments",
    "TeacherConfig",
    "get_training_args_class",
    "RewardArguments",
    "AdamWOptimizerArguments",
    "MultiOptimizerArguments",
    "MuonOptimizerArguments",
    "OptimizerArguments",
    "AccelerationArguments",
    "DatasetArguments",
    "LogArguments",
]
'''

TRAINER_REGISTRY = '''"""Trainer registry: ``trainer_type`` key -> lazy dotted trainer path."""

from __future__ import annotations

import importlib
from typing import Dict, Type

# ============================================================================
# Trainer registry (lazy: values are dotted paths, imported on first use)
# ============================================================================
_TRAINER_REGISTRY: Dict[str, str] = {
    "grpo": "flow_factory.trainers.rl.grpo.GRPOTrainer",
    "grpo-guard": "flow_factory.trainers.rl.grpo.GRPOGuardTrainer",
    "dppo": "flow_factory.trainers.rl.dppo.DPPOTrainer",
    "nft": "flow_factory.trainers.rl.nft.DiffusionNFTTrainer",
    "awm": "flow_factory.trainers.rl.awm.AWMTrainer",
    "dgpo": "flow_factory.trainers.rl.dgpo.DGPOTrainer",
    "dpo": "flow_factory.trainers.rl.dpo.DPOTrainer",
    "crd": "flow_factory.trainers.rl.crd.CRDTrainer",
    "diffusion-opd": "flow_factory.trainers.distillation.opd.trainer.DiffusionOPDTrainer",
    "dmd2": "flow_factory.trainers.distillation.dmd2.DMD2Trainer",
    "tdm": "flow_factory.trainers.distillation.tdm.TDMTrainer",
    "tdm-r1": "flow_factory.trainers.distillation.tdm_r1.TDMR1Trainer",
    "sft": "flow_factory.trainers.offline.sft.SFTTrainer",
    "offline-dpo": "flow_factory.trainers.offline.offline_dpo.OfflineDPOTrainer",
}


def register_trainer(name: str):
    """Class decorator: register ``cls`` under ``name`` by its dotted path."""

    def decorator(cls):
        _TRAINER_REGISTRY[name] = f"{cls.__module__}.{cls.__name__}"
        return cls

    return decorator


def get_trainer_class(identifier: str) -> Type:
    """Resolve a registry key or a dotted path to a trainer class (imported lazily)."""
    dotted = _TRAINER_REGISTRY.get(identifier.lower(), identifier)
    try:
        module_name, class_name = dotted.rsplit(".", 1)
        return getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as e:
        raise ImportError(
            f"Unknown trainer {identifier!r}; registered: {sorted(_TRAINER_REGISTRY)}"
        ) from e


def list_registered_trainers() -> Dict[str, str]:
    """Return a copy of the registry (key -> dotted path)."""
    return dict(_TRAINER_REGISTRY)
'''

OFFLINE_INIT = '''"""Offline trainers: learn from a fixed dataset, no runtime reward."""

from .offline_dpo import OfflineDPOTrainer
from .sft import SFTTrainer

__all__ = ["OfflineDPOTrainer", "SFTTrainer"]
'''

RL_INIT = '''"""Online reinforcement-learning trainers (GRPO, DPPO, NFT, AWM, DGPO, DPO, CRD)."""
'''

ARGS_REGISTRY_PATH = "src/flow_factory/hparams/training_args/_registry.py"
ARGS_INIT_PATH = "src/flow_factory/hparams/training_args/__init__.py"
HPARAMS_INIT_PATH = "src/flow_factory/hparams/__init__.py"
TRAINER_REGISTRY_PATH = "src/flow_factory/trainers/registry.py"
OFFLINE_INIT_PATH = "src/flow_factory/trainers/offline/__init__.py"
RL_INIT_PATH = "src/flow_factory/trainers/rl/__init__.py"

# (key, args module, args class, trainer dotted path) of every built-in algorithm.
_T = "flow_factory.trainers."
BUILTINS = [
    ("grpo", "grpo", "GRPOTrainingArguments", _T + "rl.grpo.GRPOTrainer"),
    ("grpo-guard", "grpo", "GRPOTrainingArguments", _T + "rl.grpo.GRPOGuardTrainer"),
    ("dppo", "dppo", "DPPOTrainingArguments", _T + "rl.dppo.DPPOTrainer"),
    ("nft", "nft", "NFTTrainingArguments", _T + "rl.nft.DiffusionNFTTrainer"),
    ("awm", "awm", "AWMTrainingArguments", _T + "rl.awm.AWMTrainer"),
    ("dgpo", "dgpo", "DGPOTrainingArguments", _T + "rl.dgpo.DGPOTrainer"),
    ("dpo", "dpo", "DPOTrainingArguments", _T + "rl.dpo.DPOTrainer"),
    ("crd", "crd", "CRDTrainingArguments", _T + "rl.crd.CRDTrainer"),
    ("dmd2", "dmd2", "DMD2TrainingArguments", _T + "distillation.dmd2.DMD2Trainer"),
    ("tdm", "tdm", "TDMTrainingArguments", _T + "distillation.tdm.TDMTrainer"),
    ("tdm-r1", "tdm_r1", "TDMR1TrainingArguments", _T + "distillation.tdm_r1.TDMR1Trainer"),
    (
        "diffusion-opd",
        "opd",
        "DiffusionOPDTrainingArguments",
        _T + "distillation.opd.trainer.DiffusionOPDTrainer",
    ),
    ("sft", "sft", "SFTTrainingArguments", _T + "offline.sft.SFTTrainer"),
    (
        "offline-dpo",
        "offline_dpo",
        "OfflineDPOTrainingArguments",
        _T + "offline.offline_dpo.OfflineDPOTrainer",
    ),
]


def splice(text: str, old: str, new: str) -> str:
    """``text`` with the one occurrence of ``old`` replaced: expected outputs are written as the
    hand-made lines that must appear where ``old`` stood."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)
