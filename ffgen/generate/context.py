"""The values templates see: one frozen object built from names + classification + facts."""

from __future__ import annotations

import dataclasses

from ffgen.checkout import layout
from ffgen.checkout.hints import CheckoutHints, ExampleBase, example_base
from ffgen.checkout.style import DEFAULT_STYLE
from ffgen.classify.model import Classification, Dynamics, Feedback, Ownership, Paradigm
from ffgen.classify.names import AlgorithmNames
from ffgen.classify.rules import has_direction, role_cadences
from ffgen.generate.param_code import ParamView, help_rows, param_rows, param_views


@dataclasses.dataclass(frozen=True, slots=True)
class RenderContext:
    """Everything the templates see for one algorithm."""
    # names
    key: str  # "my-algo"
    module: str  # "my_algo"
    stem: str  # "MyAlgo"
    args_class: str  # "MyAlgoTrainingArguments"
    trainer_class: str  # "MyAlgoTrainer"
    # classification (plain strings so templates compare with literals)
    acquisition: str  # "generation" | "dataset"
    feedback: str  # "runtime_reward" | "none"
    paradigm: str  # "coupled" | "decoupled" | "distillation"
    dynamics: str  # "sde" | "ode" | "any"
    supervision: str  # "prompts" | "demonstrations" | "preference_pairs" | "record"
    record_type: str  # CamelCase record type name for supervision "record", else ""
    # the record's declared fields, (name, "bool" | "int" | "float" | "str"), in order
    record_fields: tuple[tuple[str, str], ...]
    direction: str  # the record's bool field saying whether a row is desirable, else ""
    state: str  # "legacy" | "structured"
    ownership: str  # "single" | "multi_role" | "snapshots"
    roles: tuple[str, ...]  # trainable roles for multi_role, else ()
    # (role, optimizer steps per training step) for every role, in role order (multi_role)
    role_cadence: tuple[tuple[str, int], ...]
    contract: str  # "ONLINE_EXECUTION_CONTRACT" | ... (the constant's name)
    family: str  # ffgen.classify.model.Family value: sft|offline_dpo|record|grpo|awm|opd
    category: str  # "rl" | "distillation" | "offline" (or the --category override)
    has_reward: bool  # feedback == runtime_reward
    uses_snapshots: bool  # ownership == snapshots
    # example config
    model_type: str  # "sd3-5", "toy", ...
    model_dir: str  # "sd3_5"
    finetune_type: str  # "lora" | "full"
    dynamics_type: str  # scheduler.dynamics_type for the example YAML: "Flow-SDE" | "ODE"
    # settings taken from the checkout's own example of this model type ("" when it has none)
    base_example: str  # path of that example
    base_model_path: str  # YAML scalar for model.model_name_or_path
    base_resolution: str  # YAML scalar for train.resolution
    base_dataset: str  # YAML list item (indented) for data.datasets
    base_reward: str  # YAML list item (indented) for rewards
    # (YAML key, YAML value) pairs of the base's model, data and scheduler settings to carry
    base_model: tuple[tuple[str, str], ...]
    base_data: tuple[tuple[str, str], ...]
    base_scheduler: tuple[tuple[str, str], ...]
    base_mixed_precision: str  # the top-level mixed_precision's name ("bf16"), or ""
    base_lora: bool  # the base's LoRA settings are carried: the template adds no LoRA defaults
    # hyperparameters (``--param``): what each puts into the files (ffgen.generate.param_code)
    params: tuple[ParamView, ...]
    params_use_math: bool  # a param's checks use ``math.inf``
    param_rejected: tuple[tuple[str, str, str], ...]  # (name, Python literal, error) to refuse
    param_defaults: tuple[tuple[str, str], ...]  # (name, Python literal of the default)
    param_helps: tuple[str, ...]  # the arguments test's (name, help) rows, laid out
    # checkout capabilities
    teacher_loader: str  # "helper": the checkout's load_teachers; "inline": generated loader
    # the training-arguments module defining TeacherConfig ("" where the checkout has none)
    teacher_config_module: str
    # paths (relative to the checkout root)
    args_path: str
    trainer_path: str
    trainer_dotted: str  # flow_factory.trainers.<category>.<module>.<TrainerClass>
    example_path: str
    test_path: str
    args_test_path: str
    # ``--like`` / ``--extends`` (ffgen.generate.like): the source algorithm, "" otherwise
    source_key: str = ""
    source_mode: str = ""  # "like" | "extends"
    source_kind: str = ""  # "generated" | "handwritten": whether ffgen generated the source
    source_trainer: str = ""  # the source's trainer class
    source_hook: str = ""  # the objective hook an ``--extends`` child overrides
    source_parent: str = ""  # a ``--like`` source's parent trainer (a strict extension's)
    # the checkout's code style (ffgen.checkout.style): every rendered module follows it
    license_header: str = ""  # the comment block the checkout's modules open with
    generics: str = "builtin"  # "typing" (Dict, Optional) or "builtin" (dict, X | None)
    # how the checkout trains from a config: its installed ``ff-train`` script, or (the sandbox,
    # not installed) its runnable ``flow_factory.train`` module
    train_command: str = "ff-train"

    def as_dict(self) -> dict[str, object]:
        # Shallow: the values are immutable, and the templates only read them (``asdict`` would
        # deep-copy every one, once per rendered file).
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def example_dynamics_type(c: Classification) -> str:
    """SDE only where the objective needs it or the user asked; else the deterministic ODE."""
    if c.answers.paradigm is Paradigm.COUPLED or c.answers.dynamics is Dynamics.SDE:
        return "Flow-SDE"
    return "ODE"


def build_context(
    names: AlgorithmNames, c: Classification, hints: CheckoutHints | None = None
) -> RenderContext:
    """The render context; ``hints`` (what the checkout offers) default to none."""
    a = c.answers
    has_reward = a.feedback is Feedback.RUNTIME_REWARD
    own_folder = f"{layout.EXAMPLES_DIR}/{names.module}/"
    base = example_base(
        hints, a.model_type, c.family.value, has_reward, own_folder, a.finetune_type.value
    )
    # The checkout's helper loads LoRA teachers only; full finetunes get the generated loader.
    helper = hints is not None and hints.teacher_loader and a.finetune_type.value == "lora"
    return RenderContext(
        key=names.key,
        module=names.module,
        stem=names.stem,
        args_class=names.args_class,
        trainer_class=names.trainer_class,
        **_answer_fields(c),
        has_reward=has_reward,
        **_base_fields(base),
        **_param_fields(c),
        teacher_loader="helper" if helper else "inline",
        teacher_config_module=(hints.teacher_config_module or "") if hints is not None else "",
        **_path_fields(names, c),
        **_style_fields(hints),
    )


def _style_fields(hints: CheckoutHints | None) -> dict[str, object]:
    style = hints.style if hints is not None else DEFAULT_STYLE
    train = hints.train_command if hints is not None else "ff-train"
    return dict(license_header=style.header, generics=style.generics, train_command=train)


def _answer_fields(c: Classification) -> dict[str, object]:
    a = c.answers
    return dict(
        acquisition=a.acquisition.value,
        feedback=a.feedback.value,
        paradigm=a.paradigm.value,
        dynamics=a.dynamics.value,
        supervision=a.supervision.kind.value,
        record_type=a.supervision.record_type or "",
        record_fields=tuple(a.supervision.fields),
        direction=a.direction if has_direction(a) else "",
        state=a.state.value,
        ownership=a.ownership.value,
        roles=tuple(a.roles),
        role_cadence=role_cadences(a),
        contract=c.contract.value,
        family=c.family.value,
        category=c.category,
        uses_snapshots=a.ownership is Ownership.SNAPSHOTS,
        model_type=a.model_type,
        model_dir=layout.model_dir(a.model_type),
        finetune_type=a.finetune_type.value,
        dynamics_type=example_dynamics_type(c),
    )


def _param_fields(c: Classification) -> dict[str, object]:
    views = param_views(c.answers.params)
    rejected, defaults = param_rows(c.answers.params)
    return dict(
        params=views,
        params_use_math=any(v.uses_math for v in views),
        param_rejected=rejected,
        param_defaults=defaults,
        param_helps=help_rows(c.answers.params),
    )


def _base_fields(base: ExampleBase) -> dict[str, object]:
    return dict(
        base_example=base.source,
        base_model_path=base.model_name_or_path,
        base_resolution=base.resolution,
        base_dataset=base.dataset,
        base_reward=base.reward,
        base_model=base.model,
        base_data=base.data,
        base_scheduler=base.scheduler,
        base_mixed_precision=base.mixed_precision,
        base_lora=base.lora,
    )


def _path_fields(names: AlgorithmNames, c: Classification) -> dict[str, object]:
    finetune, model_type = c.answers.finetune_type.value, c.answers.model_type
    return dict(
        args_path=layout.args_module_path(names.module),
        trainer_path=layout.trainer_module_path(c.category, names.module),
        trainer_dotted=layout.trainer_dotted_path(c.category, names.module, names.trainer_class),
        example_path=layout.example_path(names.module, finetune, model_type),
        test_path=layout.test_path(names.module),
        args_test_path=layout.args_test_path(names.module),
    )
