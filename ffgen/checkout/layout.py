"""Where things live in a recent-layout Flow-Factory checkout (paths relative to its root).

Every stage names files through these constants, so ``new``, ``verify`` and ``remove`` agree.
"""

from __future__ import annotations

PKG = "src/flow_factory"

CONTRACTS_EXECUTION = f"{PKG}/contracts/execution.py"
CONTRACTS_INIT = f"{PKG}/contracts/__init__.py"
HPARAMS_INIT = f"{PKG}/hparams/__init__.py"
TRAINING_ARGS_DIR = f"{PKG}/hparams/training_args"
ARGS_INIT = f"{TRAINING_ARGS_DIR}/__init__.py"
ARGS_BASE = f"{TRAINING_ARGS_DIR}/_base.py"
ARGS_OFFLINE = f"{TRAINING_ARGS_DIR}/_offline.py"
ARGS_REGISTRY = f"{TRAINING_ARGS_DIR}/_registry.py"
TRAINERS_DIR = f"{PKG}/trainers"
TRAINER_REGISTRY = f"{TRAINERS_DIR}/registry.py"
TRAINER_ABC = f"{TRAINERS_DIR}/abc.py"
MODEL_REGISTRY = f"{PKG}/models/registry.py"
OLD_TRAINING_ARGS_MODULE = f"{PKG}/hparams/training_args.py"
GUIDANCE_ALGORITHMS = "guidance/algorithms.md"
# The module-level dict literals the two registries keep their entries in.
ARGS_REGISTRY_NAME = "_TRAINING_ARGS_REGISTRY"
TRAINER_REGISTRY_NAME = "_TRAINER_REGISTRY"
EXAMPLES_DIR = "examples"

# A root is recognised by these files; the first two are what older layouts lack.
RECENT_LAYOUT_MARKERS = (
    CONTRACTS_EXECUTION,
    ARGS_REGISTRY,
    f"{PKG}/__init__.py",
    ARGS_INIT,
    ARGS_BASE,
    TRAINER_REGISTRY,
    TRAINER_ABC,
)

CATEGORIES = ("rl", "distillation", "offline")


def args_module_path(module: str) -> str:
    return f"{TRAINING_ARGS_DIR}/{module}.py"


def trainer_module_path(category: str, module: str) -> str:
    return f"{TRAINERS_DIR}/{category}/{module}.py"


def category_init_path(category: str) -> str:
    return f"{TRAINERS_DIR}/{category}/__init__.py"


def trainer_dotted_path(category: str, module: str, class_name: str) -> str:
    return f"flow_factory.trainers.{category}.{module}.{class_name}"


def trainer_category(dotted_module: str) -> str | None:
    """``flow_factory.trainers.rl.grpo`` -> ``rl`` (None for a module outside a category)."""
    parts = dotted_module.split(".")
    return parts[2] if len(parts) >= 4 and parts[:2] == ["flow_factory", "trainers"] else None


def example_path(module: str, finetune_type: str, model_type: str) -> str:
    return f"{EXAMPLES_DIR}/{module}/{finetune_type}/{model_dir(model_type)}/default.yaml"


def model_dir(model_type: str) -> str:
    """Example folder for a model type: ``sd3-5`` -> ``sd3_5``."""
    return model_type.replace("-", "_").replace(".", "_")


def test_path(module: str) -> str:
    return f"tests/trainers/test_{module}.py"


# The checks every generated algorithm's test file inherits (one module per checkout, beside the
# test files: pytest puts their folder on the path, so they import it by its name).
CHECKLIST_PATH = "tests/trainers/algorithm_checklist.py"


def args_test_path(module: str) -> str:
    return f"tests/hparams/test_{module}_args.py"


def dotted_to_path(dotted_module: str) -> str:
    """``flow_factory.trainers.rl.grpo`` -> ``src/flow_factory/trainers/rl/grpo.py``."""
    return "src/" + dotted_module.replace(".", "/") + ".py"


def dotted_of(path: str) -> str:
    """``src/flow_factory/trainers/rl/grpo.py`` -> ``flow_factory.trainers.rl.grpo``."""
    stem = path.removeprefix("src/").removesuffix(".py").removesuffix("/__init__")
    return stem.replace("/", ".")


def package_of(path: str) -> str:
    """The package a module's relative imports start from (a package's ``__init__``: itself)."""
    dotted = dotted_of(path)
    return dotted if path.endswith("/__init__.py") else dotted.rpartition(".")[0]
