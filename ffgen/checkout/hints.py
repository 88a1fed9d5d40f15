"""What the checkout offers that shapes rendering (read statically; no checkout code runs).

Four hints: its code style (:mod:`ffgen.checkout.style`: the licence header and the spelling of
generics its modules use), how it trains from a config (``ff-train``, or the sandbox's runnable
``flow_factory.train`` module), whether the checkout ships the OPD teacher-loading helper (then
generated distillation trainers call it instead of carrying their own loader), and the settings
of the example configs it already has per model type (then a generated example starts from that
model, dataset and reward, so it runs as written instead of carrying a placeholder path).

A generated example carries every setting of its base example that the model needs: the whole
``model:`` block but for what the algorithm decides (see ``_model_settings``), the run's mixed
precision, the scheduler's model-specific extras, and the preprocessing settings of the dataset it
takes. Dropping one is not harmless: the real ``target_modules`` default (``all``) fails LoRA
injection where the model's examples say ``default``.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import replace

from ffgen.checkout.style import DEFAULT_STYLE, CodeStyle, read_style
from ffgen.checkout.view import CheckoutView

TEACHER_HELPER_MODULE = "src/flow_factory/trainers/distillation/opd/common.py"
TEACHER_HELPER = "load_teachers"


@dataclasses.dataclass(frozen=True, slots=True)
class ExampleSettings:
    """The settings of one example config that a generated example can start from."""
    path: str
    model_type: str
    trainer_type: str
    model_name_or_path: str | None
    resolution: object | None
    dataset: dict | None  # the first data.datasets entry
    reward: dict | None  # the first rewards entry (a list item or the single mapping)
    kind: str = "generation"  # what it trains on: "generation", or the offline family's name
    model: dict | None = None  # the whole ``model:`` mapping
    mixed_precision: object | None = None  # the top-level ``mixed_precision`` (None: unset)
    scheduler: dict | None = None  # the ``scheduler:`` mapping
    data: dict | None = None  # the ``data:`` mapping
    generated: bool = False  # the example of an algorithm ffgen generated (it has a record)


# Flow-Factory trains through its ``ff-train`` script (installed by ``pip install -e .``); a
# checkout with a runnable ``flow_factory.train`` module (the sandbox, used uninstalled) trains
# without installing, so that is the command its generated docs and examples name.
INSTALLED_TRAIN = "ff-train"
TRAIN_MODULE = "src/flow_factory/train.py"
MODULE_TRAIN = "PYTHONPATH=src python -m flow_factory.train"


@dataclasses.dataclass(frozen=True, slots=True)
class CheckoutHints:
    """What the checkout offers that shapes rendering (see the module docstring)."""
    teacher_loader: bool
    examples: tuple[ExampleSettings, ...]
    style: CodeStyle = DEFAULT_STYLE  # the header and generics its own modules use
    train_command: str = INSTALLED_TRAIN  # how its docs say to train from a config
    # The training-arguments module defining ``TeacherConfig`` (Flow-Factory: ``opd``), if any.
    teacher_config_module: str | None = None


def read_hints(view: CheckoutView) -> CheckoutHints:
    return CheckoutHints(
        teacher_loader=_has_teacher_loader(view),
        examples=_examples(view),
        style=read_style(view),
        train_command=_train_command(view),
        teacher_config_module=_teacher_config_module(view),
    )


TRAINING_ARGS_DIR = "src/flow_factory/hparams/training_args"


def _teacher_config_module(view: CheckoutView) -> str | None:
    """The module of ``hparams/training_args`` whose top level defines ``TeacherConfig``."""
    for rel in sorted(view.files(f"{TRAINING_ARGS_DIR}/*.py")):
        text = view.read(rel)
        if text is None or "class TeacherConfig" not in text:
            continue
        try:
            tree = view.python_tree(rel, text)
        except SyntaxError:
            continue
        if any(isinstance(n, ast.ClassDef) and n.name == "TeacherConfig" for n in tree.body):
            return rel.rsplit("/", 1)[1].removesuffix(".py")
    return None


def _train_command(view: CheckoutView) -> str:
    text = view.read(TRAIN_MODULE) or ""
    return MODULE_TRAIN if '__name__ == "__main__"' in text else INSTALLED_TRAIN


def _has_teacher_loader(view: CheckoutView) -> bool:
    text = view.read(TEACHER_HELPER_MODULE)
    if text is None:
        return False
    try:
        tree = view.python_tree(TEACHER_HELPER_MODULE, text)
    except SyntaxError:
        return False
    return any(
        isinstance(node, ast.FunctionDef) and node.name == TEACHER_HELPER for node in tree.body
    )


def _examples(view: CheckoutView) -> tuple[ExampleSettings, ...]:
    from ffgen.verify.examples import load_examples

    found = []
    # Unreadable configs load as data None: verify reports them; they offer no settings here.
    for example in load_examples(view):
        settings = _settings(example.path, example.data)
        if settings is not None:
            answers = answers_on_record(view, settings.trainer_type)
            # A record too damaged to read still marks the example as generated: read as
            # hand-written, it became a base for other algorithms' examples, and one broken
            # record made `check` call an untouched algorithm behind its templates.
            generated = bool(answers) or _has_record(view, settings.trainer_type)
            found.append(replace(settings, kind=_kind(settings.trainer_type, answers),
                                 generated=generated))
    return tuple(found)


_BUILT_IN_KINDS = {trainer_type: family for family, trainer_type in
                   (("sft", "sft"), ("offline_dpo", "offline-dpo"))}
_SUPERVISION_KINDS = {"demonstrations": "sft", "preference_pairs": "offline_dpo"}


def _kind(trainer_type: str, answers: dict) -> str:
    """A built-in offline key names its kind; a generated algorithm's record (``answers``) says
    what it is (so a generated record-dataset example never passes for prompts); anything else
    generates."""
    if trainer_type in _BUILT_IN_KINDS:
        return _BUILT_IN_KINDS[trainer_type]
    if answers.get("acquisition") != "dataset":
        return "generation"
    supervision = str(answers.get("supervision", ""))
    return "record" if supervision.startswith("record:") else _SUPERVISION_KINDS.get(
        supervision, "record")


def _has_record(view: CheckoutView, key: str) -> bool:
    from ffgen.store.records import answers_path

    return "/" not in key and view.exists(answers_path(key))


def answers_on_record(view: CheckoutView, key: str) -> dict:
    """The answers of ffgen's record of ``key`` ({} when there is none; only the head of the
    record is parsed)."""
    import yaml

    from ffgen.store.records import answers_path

    text = view.read(answers_path(key)) if "/" not in key else None
    if not text:
        return {}
    head = text.split("\nfiles:", 1)[0]
    try:
        data = yaml.safe_load(head)
    except yaml.YAMLError:
        return {}
    answers = data.get("answers") if isinstance(data, dict) else None
    return answers if isinstance(answers, dict) else {}


def _settings(path: str, data: object) -> ExampleSettings | None:
    if not isinstance(data, dict):
        return None
    model, train = _section(data, "model"), _section(data, "train")
    if not isinstance(model.get("model_type"), str):
        return None
    datasets = _section(data, "data").get("datasets")
    dataset = datasets[0] if isinstance(datasets, list) and datasets else None
    rewards = data.get("rewards")
    reward = rewards[0] if isinstance(rewards, list) and rewards else rewards
    return ExampleSettings(
        path=path,
        model_type=model["model_type"],
        trainer_type=str(train.get("trainer_type", "grpo")),
        model_name_or_path=_text(model.get("model_name_or_path")),
        resolution=train.get("resolution"),
        dataset=dataset if isinstance(dataset, dict) else None,
        reward=reward if isinstance(reward, dict) else None,
        model=model,
        mixed_precision=data.get("mixed_precision"),
        scheduler=_section(data, "scheduler"),
        data=_section(data, "data"),
    )


def _section(data: dict, name: str) -> dict:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclasses.dataclass(frozen=True, slots=True)
class ExampleBase:
    """What a generated example takes from the checkout's own examples (YAML text blocks)."""

    source: str  # the example the model settings come from ("" when none)
    model_name_or_path: str  # YAML scalar, or "" for the template's default
    resolution: str  # YAML scalar, or ""
    dataset: str  # YAML list item indented for ``data.datasets``, or ""
    reward: str  # YAML list item indented for ``rewards``, or ""
    # (YAML key, YAML flow value) pairs carried into the generated example's sections
    model: tuple[tuple[str, str], ...] = ()
    data: tuple[tuple[str, str], ...] = ()
    scheduler: tuple[tuple[str, str], ...] = ()
    mixed_precision: str = ""  # the precision's name ("bf16"), or "" for the template's default
    lora: bool = False  # the LoRA settings come from the base (both LoRA): no template defaults


NO_BASE = ExampleBase("", "", "", "", "")

# ``model:`` keys a generated example never takes from its base: the model type is what chose
# the base, the path has its own field, the finetune type is the algorithm's answer, and a resume
# names one run's checkpoint (the real TDM-R1 example resumes from its converted initializer).
MODEL_OWN_KEYS = frozenset(
    {"model_type", "model_name_or_path", "finetune_type", "resume_path", "resume_type"}
)
# ``lora_*`` settings only mean something to a LoRA finetune: carried between two of them only.
LORA_PREFIX = "lora_"
# The real ``ModelArguments.finetune_type`` default: a block without one is a full finetune.
REAL_DEFAULT_FINETUNE = "full"
# ``scheduler:`` keys the template sets for the algorithm (its dynamics, SDE steps and seed);
# the rest (e.g. a model's ``flow_shift``) belongs to the model and is carried.
SCHEDULER_OWN_KEYS = frozenset(
    {"dynamics_type", "noise_level", "num_sde_steps", "sde_steps", "seed"}
)
# ``data:`` keys the template decides: the datasets (own field), the legacy single
# ``dataset_dir`` (refused beside ``datasets``), and what the contract fixes for the acquisition.
DATA_OWN_KEYS = frozenset({"datasets", "dataset_dir", "enable_preprocess", "sampler_type"})


def example_base(
    hints: CheckoutHints | None,
    model_type: str,
    family: str,
    has_reward: bool,
    own_folder: str,
    finetune_type: str = "lora",
) -> ExampleBase:
    """Settings for a new example of ``model_type``, from the closest example of that model type:
    its model settings, precision and resolution, and its dataset (with its preprocessing
    settings) and reward where they fit this algorithm.

    Examples under ``own_folder`` (the algorithm's own, on a re-run) never count, so a re-run
    renders what the first run did; nor does any example of an algorithm ffgen generated: those
    derive from a base of their own, and counting them would make an algorithm's pristine render
    (what ``check`` and ``update`` compare against) depend on algorithms added after it.
    """
    if hints is None:
        return NO_BASE
    same_model = [
        e
        for e in hints.examples
        if e.model_type == model_type and not e.generated and not e.path.startswith(own_folder)
    ]
    if not same_model:
        return NO_BASE
    # A record family starts from SFT data: another record type's dataset would not parse.
    wanted = {"sft": "sft", "record": "sft", "offline_dpo": "offline_dpo"}.get(family, "generation")
    best = _closest(same_model, wanted, has_reward, finetune_type)
    return _base_from(best, best.kind == wanted, has_reward, finetune_type)


def _closest(
    examples: list[ExampleSettings], wanted: str, has_reward: bool, finetune_type: str
) -> ExampleSettings:
    # One example gives everything, so the settings belong together: the closest one is of
    # the same acquisition kind, has rewards exactly when this algorithm does, finetunes the
    # same way (its LoRA settings then carry), has a model path.
    return min(
        examples,
        key=lambda e: (e.kind != wanted, (e.reward is not None) != has_reward,
                       _finetune(e) != finetune_type, e.model_name_or_path is None, e.path),
    )


def _base_from(
    best: ExampleSettings, kind_matches: bool, has_reward: bool, finetune_type: str
) -> ExampleBase:
    dataset = best.dataset if kind_matches else None
    model, lora = _model_settings(best.model or {}, finetune_type)
    return ExampleBase(
        source=best.path,
        model_name_or_path=_scalar(best.model_name_or_path),
        resolution=_scalar(best.resolution),
        dataset=_list_item(dataset, indent=4),
        reward=_list_item(best.reward if kind_matches and has_reward else None, indent=2),
        model=model,
        # Preprocessing settings describe the base's dataset: they come with it or not at all.
        data=_pairs(best.data or {}, DATA_OWN_KEYS) if dataset else (),
        scheduler=_pairs(best.scheduler or {}, SCHEDULER_OWN_KEYS),
        mixed_precision=_text(best.mixed_precision) or "",
        lora=lora,
    )


def _finetune(example: ExampleSettings) -> object:
    return (example.model or {}).get("finetune_type", REAL_DEFAULT_FINETUNE)


def _model_settings(model: dict, finetune_type: str) -> tuple[tuple[tuple[str, str], ...], bool]:
    """The base's ``model:`` settings a new ``finetune_type`` example carries, and whether its
    LoRA settings are among them (both finetunes are LoRA; absent ones then keep the loader's
    defaults, exactly as in the base)."""
    base_finetune = model.get("finetune_type", REAL_DEFAULT_FINETUNE)
    lora = finetune_type == "lora" and base_finetune == "lora"
    own = set(MODEL_OWN_KEYS)
    if base_finetune != finetune_type:
        own |= {key for key in model if str(key).startswith(LORA_PREFIX)}
    return _pairs(model, own), lora


def _pairs(section: dict, own: frozenset[str] | set[str]) -> tuple[tuple[str, str], ...]:
    """``(key, value)`` as YAML text for every key of ``section`` not in ``own``, in its order."""
    return tuple((_flow(key), _flow(value)) for key, value in section.items()
                 if key not in own)


def _scalar(value: object) -> str:
    """``value`` as one line of YAML; "" for None (unset)."""
    if value is None:
        return ""
    return _flow(value)


def _flow(value: object) -> str:
    """``value`` (None too: ``null``) as one line of YAML flow text."""
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=1000)
    # A bare scalar is dumped as a document ("x\n...\n"); keep only the value.
    return text.strip().removesuffix("...").strip()


def _list_item(entry: dict | None, *, indent: int) -> str:
    import yaml

    if not entry:
        return ""
    text = yaml.safe_dump([entry], sort_keys=False, default_flow_style=False, width=100)
    pad = " " * indent
    return "\n".join(pad + line for line in text.rstrip("\n").splitlines())
