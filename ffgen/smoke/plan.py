"""What ``ffgen smoke KEY`` runs: the algorithm's example, its data kind, and the overrides.

Read-only and torch-free: the checkout is read through the same view and verify index as the
other commands; the result is a :class:`SmokePlan` whose ``config`` the command writes under the
checkout's ``.ffgen/cache/`` and hands to the driver.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from pathlib import Path
from typing import Any

from ffgen.checkout.view import CheckoutView
from ffgen.errors import UsageError

CACHE_DIR = ".ffgen/cache"  # everything smoke writes lives here (its own .gitignore: *)
TEACHER_SEED_OFFSET = 1  # a teacher is the tiny model of the next seed: it differs
SMOKE_REWARD = "smoke_reward.SmokeReward"  # shipped beside the driver, on its sys.path
DATA_COUNT = 4  # records or prompts per dataset: a few optimizer steps per cycle
GROUP_SIZE = 2  # samples per prompt for generation: the least a group advantage needs
UNIQUE_PROMPTS = 2
RESOLUTION = 16
# What the offline loader fills in a record type; its other fields come from record metadata.
LOADER_FIELDS = frozenset({"record_id", "source", "prompt", "negative_prompt", "input_media",
                           "target_media", "chosen_media", "rejected_media", "metadata"})


@dataclasses.dataclass(frozen=True, slots=True)
class Override:
    key: str  # dotted path into the config
    old: Any  # None when the key was absent
    new: Any


@dataclasses.dataclass(frozen=True, slots=True)
class SmokePlan:
    key: str
    example: str  # checkout-relative path of the example config
    model_type: str
    acquisition: str  # dataset | generation
    feedback: str  # none | runtime_reward
    data_kind: str  # demonstrations | preference_pairs | prompts | record
    record_fields: tuple[tuple[str, str], ...]  # (name, annotation) of a record type's fields
    run_dir: str  # checkout-relative folder of this run (config, data)
    model_dir: str | None  # None: the adapter builds its tiny model itself (sandbox toy)
    teacher_dir: str | None
    config: dict
    overrides: tuple[Override, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    cycles: int = 2
    seed: int | None = None
    device: str = "cpu"


def resolve(view: CheckoutView, key: str, settings: Settings, supported: tuple[str, ...]
            ) -> SmokePlan:
    """The plan for ``key``, or a one-line :class:`UsageError` naming what is missing."""
    from ffgen.verify.facts import build_facts
    from ffgen.verify.index import CheckoutIndex

    facts = build_facts(CheckoutIndex(view))
    algorithm = facts.algorithm(key)
    if algorithm is None or algorithm.args_cls is None:
        known = ", ".join(a.key for a in facts.algorithms) or "none"
        raise UsageError(f"unknown algorithm {key!r}; this checkout's keys: {known}")
    acquisition = facts.acquisition(algorithm.args_cls) or "generation"
    feedback = facts.feedback(algorithm.args_cls) or "none"
    example = _example(facts, key)
    data = example.data
    model_type = str((data.get("model") or {}).get("model_type", ""))
    self_built = self_built_types(view)
    if model_type not in supported and model_type not in self_built:
        raise UsageError(
            f"{example.path}: model type {model_type!r} has no tiny model for smoke; supported: "
            f"{', '.join(supported)}{''.join(f', {t} (sandbox)' for t in self_built)}"
        )
    kind, fields = _data_kind(view, facts, key, acquisition)
    run_dir = f"{CACHE_DIR}/smoke/{key}"
    seed = settings.seed if settings.seed is not None else 0
    if model_type in self_built:
        model_dir = teacher_dir = None
        model_path = self_built[model_type].format(seed=seed)
    else:
        model_dir = f"{CACHE_DIR}/models/{model_type}-seed{seed}"
        model_path = str(view.root / model_dir)  # absolute: the driver may run elsewhere
        teacher_dir = (f"{CACHE_DIR}/models/{model_type}-seed{seed + TEACHER_SEED_OFFSET}"
                       if _needs_teacher(data) else None)
    ctx = _Ctx(view.root, run_dir, model_path, teacher_dir, acquisition, feedback, settings)
    config, overrides = plan_overrides(data, ctx)
    return SmokePlan(key, example.path, model_type, acquisition, feedback, kind, fields,
                     run_dir, model_dir, teacher_dir, config, tuple(overrides))


def _example(facts, key: str):
    examples = [e for e in facts.examples if isinstance(e.data, dict) and e.trainer_type == key]
    if not examples:
        raise UsageError(
            f"algorithm {key!r} has no example config under examples/ (train.trainer_type: "
            f"{key}); smoke starts from it"
        )
    # the default config when there are several (examples/<module>/<ft>/<type>/default.yaml)
    examples.sort(key=lambda e: (Path(e.path).stem != "default", e.path))
    return examples[0]


def _data_kind(view: CheckoutView, facts, key: str, acquisition: str
               ) -> tuple[str, tuple[tuple[str, str], ...]]:
    if acquisition != "dataset":
        return "prompts", ()
    from ffgen.store.read import read_record

    record = read_record(view, key)
    supervision = record.answers.get("supervision") if record is not None else None
    trainer = facts.algorithm(key).trainer_cls
    if supervision is None:
        supervision = _supervision_from_source(view, trainer)
    if supervision.startswith("record:"):
        return "record", _record_fields(view, trainer, _record_type(supervision))
    return supervision, ()


def _record_type(supervision: str) -> str:
    """The record class a recorded ``record:`` answer names: ``Judged`` of both
    ``record:Judged`` and ``record:Judged(label:bool)``."""
    from ffgen.classify.model import Supervision

    try:
        return Supervision.parse(supervision).record_type or ""
    except UsageError:  # a record edited by hand: whatever precedes the field list
        return supervision.split(":", 1)[1].split("(", 1)[0].strip()


def _supervision_from_source(view: CheckoutView, trainer) -> str:
    """A hand-written offline trainer names its loader's supervision type as a string."""
    text = view.read(trainer.path) if trainer is not None else None
    if text and any(isinstance(n, ast.Constant) and n.value == "preference"
                    for n in ast.walk(ast.parse(text))):
        return "preference_pairs"
    return "demonstrations"


def _record_fields(view: CheckoutView, trainer, type_name: str) -> tuple[tuple[str, str], ...]:
    """The record type's own annotated fields (beyond what the loader fills), for metadata."""
    text = view.read(trainer.path) if trainer is not None else None
    if not text:
        return ()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.name == type_name:
            return tuple(
                (s.target.id, ast.unparse(s.annotation)) for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                and s.target.id not in LOADER_FIELDS
            )
    return ()


def self_built_types(view: CheckoutView) -> dict[str, str]:
    """The sandbox's toy type builds itself; a real checkout has no such type."""
    from ffgen.smoke.tiny_models import SELF_BUILT

    return SELF_BUILT if view.exists("src/flow_factory/sandbox_support.py") else {}


def _needs_teacher(data: dict) -> bool:
    train = data.get("train") or {}
    return "teacher_path" in train or isinstance(train.get("teachers"), list)


@dataclasses.dataclass(frozen=True, slots=True)
class _Ctx:
    root: Path
    run_dir: str
    model_path: str
    teacher_dir: str | None
    acquisition: str
    feedback: str
    settings: Settings


def plan_overrides(example: dict, ctx: _Ctx) -> tuple[dict, list[Override]]:
    """The example with what a tiny run must change; every changed key listed once."""
    config = copy.deepcopy(example)
    changes: list[Override] = []

    def put(dotted: str, value: Any, only_if_present: bool = False) -> None:
        *parents, leaf = dotted.split(".")
        node = config
        for part in parents:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        if only_if_present and leaf not in node:
            return
        old = node.get(leaf)
        if old != value:
            node[leaf] = value
            changes.append(Override(dotted, old, value))

    absolute = lambda rel: str(ctx.root / rel)  # noqa: E731 - the driver may run elsewhere
    put("num_processes", 1, only_if_present=True)
    if ctx.settings.device == "cpu":
        put("mixed_precision", "no")
    put("model.model_name_or_path", ctx.model_path)
    put("data.datasets", _datasets(config, absolute(f"{ctx.run_dir}/data")))
    _runtime(ctx, put, absolute)
    train = config.get("train") or {}
    put("train.max_epochs", ctx.settings.cycles)
    put("train.resolution", RESOLUTION, only_if_present=True)
    if ctx.acquisition == "generation":
        _generation_sizes(train, put)
    else:
        put("train.gradient_accumulation_steps", 1, only_if_present=True)
    _teacher(train, ctx, put, absolute)
    if ctx.feedback == "runtime_reward":
        put("rewards", [{"name": "smoke", "reward_model": SMOKE_REWARD, "weight": 1.0,
                         "batch_size": GROUP_SIZE * UNIQUE_PROMPTS}])
    if ctx.settings.seed is not None:
        put("train.seed", ctx.settings.seed)
        put("scheduler.seed", ctx.settings.seed, only_if_present=True)
    # no evaluation, no checkpoint (a default frequency would evaluate with the example's reward
    # models or write outside the run folder)
    put("eval.eval_freq", 0)
    put("log.save_freq", 0)
    put("log.save_dir", absolute(f"{ctx.run_dir}/out"), only_if_present=True)
    return config, changes


def _datasets(config: dict, folder: str) -> list[dict]:
    """One dataset of smoke's data; the example's first dataset name stays (a teacher's
    applicable_datasets may name it)."""
    datasets = (config.get("data") or {}).get("datasets")
    first = datasets[0] if isinstance(datasets, list) and datasets else {}
    name = first.get("name", "smoke") if isinstance(first, dict) else "smoke"
    return [{"name": name, "dataset_dir": folder, "train": {"weight": 1}, "eval": {}}]


def _runtime(ctx: _Ctx, put, absolute) -> None:
    """Where a real run would write or reach out, and the dtypes a CPU needs."""
    # the preprocessing cache keys on the model's path, not its content: one per run folder,
    # rebuilt each run (a real checkout's default lies outside the checkout)
    put("data.cache_dir", absolute(f"{ctx.run_dir}/cache"))
    put("data.force_reprocess", True)
    put("data.dataloader_num_workers", 0, only_if_present=True)
    put("log.logging_backend", "none", only_if_present=True)  # no tracker login or network
    if ctx.settings.device == "cpu":  # bf16 master weights round tiny updates away on CPU
        for key in ("trainable_parameters_dtype", "frozen_parameters_dtype",
                    "component_load_dtypes"):
            put(f"model.{key}", "fp32")


def _generation_sizes(train: dict, put) -> None:
    samples = GROUP_SIZE * UNIQUE_PROMPTS
    put("train.unique_sample_num_per_epoch", UNIQUE_PROMPTS, only_if_present=True)
    put("train.group_size", GROUP_SIZE, only_if_present=True)
    batch = train.get("per_device_batch_size")
    if isinstance(batch, int) and (batch > samples or samples % batch):
        put("train.per_device_batch_size", samples)
        batch = samples
    batches = samples // batch if isinstance(batch, int) and batch > 0 else 1
    steps = train.get("gradient_step_per_epoch")
    if isinstance(steps, int) and (steps > batches or batches % steps):
        put("train.gradient_step_per_epoch", 1)


def _teacher(train: dict, ctx: _Ctx, put, absolute) -> None:
    if ctx.teacher_dir is None:
        return
    if "teacher_path" in train:
        put("train.teacher_path", absolute(ctx.teacher_dir))
    teachers = train.get("teachers")
    if isinstance(teachers, list):
        fixed = [dict(t, path=absolute(ctx.teacher_dir)) if isinstance(t, dict) else t
                 for t in teachers]
        put("train.teachers", fixed)
    if ctx.settings.device == "cpu":  # the real default is cuda
        put("train.teacher_param_device", "cpu")
