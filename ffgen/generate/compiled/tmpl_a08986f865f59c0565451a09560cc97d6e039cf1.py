from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/args.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_acquisition = resolve('acquisition')
    l_0_family = resolve('family')
    l_0_ownership = resolve('ownership')
    l_0_direction = resolve('direction')
    l_0_key = resolve('key')
    l_0_record_type = resolve('record_type')
    l_0_roles = resolve('roles')
    l_0_params_use_math = resolve('params_use_math')
    l_0_contract = resolve('contract')
    l_0_teacher_config_module = resolve('teacher_config_module')
    l_0_module = resolve('module')
    l_0_args_class = resolve('args_class')
    l_0_feedback = resolve('feedback')
    l_0_uses_snapshots = resolve('uses_snapshots')
    l_0_model_type = resolve('model_type')
    l_0_params = resolve('params')
    l_0_role_cadence = resolve('role_cadence')
    l_0_dataset = l_0_online_reward = l_0_multi_role = l_0_offline_reference = l_0_kto = missing
    try:
        t_1 = environment.filters['capitalize']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'capitalize' found.")
    try:
        t_2 = environment.filters['tojson']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'tojson' found.")
    try:
        t_3 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    l_0_dataset = ((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition) == 'dataset')
    context.vars['dataset'] = l_0_dataset
    context.exported_vars.add('dataset')
    l_0_online_reward = ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm'))
    context.vars['online_reward'] = l_0_online_reward
    context.exported_vars.add('online_reward')
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    l_0_offline_reference = (((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')) and ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'snapshots'))
    context.vars['offline_reference'] = l_0_offline_reference
    context.exported_vars.add('offline_reference')
    l_0_kto = (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction))
    context.vars['kto'] = l_0_kto
    context.exported_vars.add('kto')
    yield '"""Training arguments for the ``'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '`` algorithm.\n\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'sft'):
        pass
        yield "Supervised flow matching on demonstrations: the policy's velocity regresses the flow-matching\ntarget ``noise - x0`` of each dataset target, averaged over ``num_train_timesteps`` noise levels.\n"
    elif (undefined(name='kto') if l_0_kto is missing else l_0_kto):
        pass
        yield 'KTO-like objective on typed records read from V2 JSONL, each a ``'
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield "``:\neach record's flow-matching error is scored against a frozen reference snapshot, scaled by\n``beta``; ``"
        yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
        yield '`` says whether a record is desirable (pulled toward its target) or\nnot (pushed away from it).\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record'):
        pass
        yield 'Flow matching on typed records read from V2 JSONL, each a ``'
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield "``:\nthe policy's velocity regresses the flow-matching target of each record's target media.\n"
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        yield 'Diffusion-DPO on preference pairs against a frozen reference snapshot, scaled by ``beta``.\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
        pass
        yield 'GRPO-style clipped likelihood-ratio objective over stored SDE rollout log-probabilities, with\ngroup-normalised advantages and an optional velocity KL to a frozen reference.\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
        pass
        yield "Advantage Weighted Matching (the built-in ``awm``'s objective) on final generated samples: a\nsolver-agnostic clipped likelihood ratio whose log-likelihood is minus the flow-matching error,\neach sample weighted by its own group-normalised advantage.\n"
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield "On-policy distillation as Flow-Factory's DiffusionOPD: along the student's own rollouts, the\nstudent's one-step transitions (``loss_target``) match a frozen teacher's at the same states.\n"
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield 'Distribution-matching distillation with two live roles: ``'
        yield str(environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 0))
        yield '`` is distilled against\nthe fake-score critic ``'
        yield str(environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 1))
        yield "``, which is trained by flow matching on the generator's\nsamples; a frozen teacher snapshot is the real score. Each role steps on its cadence\n(``role_update_plan``).\n"
    yield '\nGenerated by ffgen; the objective fields below are validated in ``__post_init__``.\n"""\n\n'
    if ((((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm', 'opd', 'dmd', 'offline_dpo')) or (undefined(name='offline_reference') if l_0_offline_reference is missing else l_0_offline_reference)) or (undefined(name='params_use_math') if l_0_params_use_math is missing else l_0_params_use_math)):
        pass
        yield 'import math\n'
    yield 'from dataclasses import dataclass, field\nfrom typing import '
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield 'TYPE_CHECKING, '
    if (not (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset)):
        pass
        yield 'Any, '
    yield 'ClassVar, Literal\n\nfrom ...contracts.execution import '
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield ', ExecutionContract\n'
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd') and (not (undefined(name='teacher_config_module') if l_0_teacher_config_module is missing else l_0_teacher_config_module))):
        pass
        yield 'from ..abc import ArgABC\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield 'from ..optimizer_args import AdamWOptimizerArguments\n'
    if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset):
        pass
        yield 'from ._offline import OfflineFlowMatchingTrainingArguments\n'
    else:
        pass
        yield 'from ._base import TrainingArguments\n'
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd') and (undefined(name='teacher_config_module') if l_0_teacher_config_module is missing else l_0_teacher_config_module)):
        pass
        yield 'from .'
        yield str((undefined(name='teacher_config_module') if l_0_teacher_config_module is missing else l_0_teacher_config_module))
        yield ' import TeacherConfig\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield '\nif TYPE_CHECKING:\n    from ...trainers.role_optimization import RoleUpdatePlan\n'
    yield '\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield '__all__ = [\n    "'
        yield str(t_3((undefined(name='module') if l_0_module is missing else l_0_module)))
        yield '_DEFAULT_OPTIMIZERS",\n    "'
        yield str(t_3((undefined(name='module') if l_0_module is missing else l_0_module)))
        yield '_TRAINABLE_ROLES",\n    "'
        yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
        yield '",\n]\n\n# The live trainable roles, in materialisation order: the first owns the canonical base routes.\n'
        yield str(t_3((undefined(name='module') if l_0_module is missing else l_0_module)))
        yield '_TRAINABLE_ROLES: tuple[str, ...] = (\n'
        for l_1_role in (undefined(name='roles') if l_0_roles is missing else l_0_roles):
            _loop_vars = {}
            pass
            yield '    '
            yield str(t_2(context.eval_ctx, l_1_role))
            yield ',\n'
        l_1_role = missing
        yield ")\n# Optimizer of each role when the config's ``optimizers:`` list names none of the roles.\n"
        yield str(t_3((undefined(name='module') if l_0_module is missing else l_0_module)))
        yield '_DEFAULT_OPTIMIZERS: tuple[AdamWOptimizerArguments, ...] = (\n'
        for l_1_role in (undefined(name='roles') if l_0_roles is missing else l_0_roles):
            _loop_vars = {}
            pass
            yield '    AdamWOptimizerArguments(name="'
            yield str(l_1_role)
            yield '", learning_rate=1.0e-5),\n'
        l_1_role = missing
        yield ')\n'
    else:
        pass
        yield '__all__ = ["'
        yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
        yield '"]\n'
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd') and (not (undefined(name='teacher_config_module') if l_0_teacher_config_module is missing else l_0_teacher_config_module))):
        pass
        yield '\n\n@dataclass\nclass TeacherConfig(ArgABC):\n    """One ``train.teachers`` entry, as Flow-Factory\'s DiffusionOPD reads it (this checkout\n    has no ``TeacherConfig`` of its own)."""\n\n    path: str = ""\n    name: str | None = None\n    applicable_datasets: list[str] = field(default_factory=list)\n    guidance_scale: float | None = None\n'
    yield '\n\n@dataclass\nclass '
    yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
    yield '('
    if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset):
        pass
        yield 'OfflineFlowMatchingTrainingArguments'
    else:
        pass
        yield 'TrainingArguments'
    yield '):\n    """Configure ``'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '`` training.\n\n    '
    yield str(t_1((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition)))
    yield ' acquisition, '
    yield str((undefined(name='feedback') if l_0_feedback is missing else l_0_feedback))
    yield ' feedback. The execution contract is\n    a class constant selected by ``trainer_type``; it is never a field and cannot be configured.\n    """\n\n    execution_contract: ClassVar[ExecutionContract] = '
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '\n    trainer_type: Literal["'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '"] = field(\n        default="'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '",\n        metadata={"help": "Registry key selecting this algorithm (fixed)."},\n    )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        yield '    beta: float = field(\n        default=2000.0,\n        metadata={\n            "help": "Diffusion-DPO inverse temperature scaling the policy-minus-reference "\n            "flow-matching loss gap; finite and > 0."\n        },\n    )\n'
    if (undefined(name='kto') if l_0_kto is missing else l_0_kto):
        pass
        yield '    beta: float = field(\n        default=2000.0,\n        metadata={\n            "help": "Inverse temperature of the KTO-like score: scales each record\'s "\n            "reference-minus-policy flow-matching error gap; finite and > 0."\n        },\n    )\n'
    elif (undefined(name='offline_reference') if l_0_offline_reference is missing else l_0_offline_reference):
        pass
        yield '    kl_beta: float = field(\n        default=0.01,\n        metadata={\n            "help": "Weight of the velocity gap to the frozen reference snapshot; 0 disables the "\n            "reference (>= 0)."\n        },\n    )\n'
    if (undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward):
        pass
        yield '    advantage_aggregation: Literal["sum", "gdpo"] = field(\n        default="sum",\n        metadata={"help": "How several rewards are combined into one advantage: \'sum\' or \'gdpo\'."},\n    )\n    global_std: bool = field(\n        default=True,\n        metadata={"help": "Normalise advantages by the global reward std instead of per group."},\n    )\n    adv_clip_range: tuple[float, float] = field(\n        default=(-5.0, 5.0),\n        metadata={\n            "help": "Closed (low, high) interval advantages are clipped to, low < high; one "\n            "number v means (-|v|, |v|)."\n        },\n    )\n    kl_beta: float = field(\n        default='
        yield str(('0.01' if (undefined(name='uses_snapshots') if l_0_uses_snapshots is missing else l_0_uses_snapshots) else '0.0'))
        yield ',\n        metadata={\n            "help": "Weight of the velocity KL to the frozen reference snapshot; 0 disables the "\n            "reference (>= 0)."\n        },\n    )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm')):
        pass
        yield '    clip_range: tuple[float, float] = field(\n        default='
        yield str(('(-0.2, 0.2)' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo') else '(-1.0e-4, 1.0e-4)'))
        yield ',\n        metadata={\n            "help": "Likelihood-ratio clip offsets (low, high): the ratio is clipped to "\n            "[1 + low, 1 + high]; a single number v means (-|v|, |v|). -1 <= low < high."\n        },\n    )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield '    gradient_step_per_epoch: int = field(\n        default=1,\n        metadata={"help": "One optimizer step per role phase and rollout (must be 1)."},\n    )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'dmd')):
        pass
        yield '    num_train_timesteps: int = field(\n        default=2,\n        metadata={"help": "Re-noising timesteps drawn per final sample and batch (>= 1)."},\n    )\n    timestep_range: tuple[float, float] = field(\n        default=(0.0, 0.99),\n        metadata={"help": "Interval [low, high) of the re-noising timesteps, within [0, 1]."},\n    )\n    time_shift: float = field(\n        default=1.0,\n        metadata={"help": "Timestep shift applied to the drawn timesteps (> 0; 1 disables)."},\n    )\n    time_sampling_strategy: Literal["uniform", "logit_normal"] = field(\n        default="uniform",\n        metadata={"help": "Distribution of the re-noising timesteps: \'uniform\' or \'logit_normal\'."},\n    )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield '    teachers: list[TeacherConfig] = field(\n        default_factory=list,\n        metadata={\n            "help": "The teacher to distill, as DiffusionOPD lists them: one entry with its "\n            "weights (path), snapshot name, applicable_datasets and optional guidance_scale."\n        },\n    )\n    teacher_param_device: Literal["cpu", "cuda"] = field(\n        default="cuda",\n        metadata={"help": "Device of the teacher snapshot: \'cuda\' (fast swaps) or \'cpu\'."},\n    )\n    timestep_range: float | tuple[float, float] = field(\n        default=0.99,\n        metadata={\n            "help": "Band of the rollout\'s denoising steps to distill, as fractions of "\n            "num_inference_steps: f means [0, f]; a pair [low, high]; within [0, 1]."\n        },\n    )\n    loss_target: Literal["xt", "v", "x0"] = field(\n        default="xt",\n        metadata={\n            "help": "Space the student matches the teacher in: \'xt\' the one-step transition "\n            "mean, \'v\' the velocity, \'x0\' the predicted clean latent (\'v\', \'x0\': ODE only)."\n        },\n    )\n    self_normalize: bool = field(\n        default=False,\n        metadata={\n            "help": "Divide each sample\'s error by its detached mean absolute error (+ 1e-8)."\n        },\n    )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield '    teacher_path: str = field(\n        default="'
        yield str(('toy:teacher' if ((undefined(name='model_type') if l_0_model_type is missing else l_0_model_type) == 'toy') else ''))
        yield '",\n        metadata={\n            "help": "Weights of the frozen teacher, loaded into a named temporal snapshot; "\n            "non-empty."\n        },\n    )\n    teacher_param_device: Literal["cpu", "cuda"] = field(\n        default="cpu",\n        metadata={"help": "Device of the teacher snapshot: \'cpu\' (low memory) or \'cuda\'."},\n    )\n    objective_guidance_scale: float | None = field(\n        default=None,\n        metadata={\n            "help": "CFG scale of the teacher\'s target velocity; None reuses guidance_scale. "\n            "Finite and >= 1 when set."\n        },\n    )\n'
    for l_1_p in (undefined(name='params') if l_0_params is missing else l_0_params):
        _loop_vars = {}
        pass
        yield str(environment.getattr(l_1_p, 'field'))
        yield '\n'
    l_1_p = missing
    yield '\n    def __post_init__(self) -> None:\n        """Validate the fixed trainer identity and the objective parameters."""\n        super().__post_init__()\n        if self.trainer_type != "'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '":\n            raise ValueError(\n                f"{type(self).__name__} requires train.trainer_type="\n                f"\''
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '\', received {self.trainer_type!r}"\n            )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        yield '        if isinstance(self.beta, bool) or not isinstance(self.beta, (int, float)):\n            raise TypeError(f"train.beta must be a finite float > 0, received {self.beta!r}")\n        self.beta = float(self.beta)\n        if not math.isfinite(self.beta) or self.beta <= 0.0:\n            raise ValueError(f"train.beta must be a finite float > 0, received {self.beta!r}")\n'
    if (undefined(name='kto') if l_0_kto is missing else l_0_kto):
        pass
        yield '        self.beta = _finite_float(self.beta, "train.beta", minimum=0.0)\n        if self.beta == 0.0:\n            raise ValueError("train.beta must be > 0, received 0.0")\n'
    elif (undefined(name='offline_reference') if l_0_offline_reference is missing else l_0_offline_reference):
        pass
        yield '        self.kl_beta = _finite_float(self.kl_beta, "train.kl_beta", minimum=0.0)\n'
    if (undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward):
        pass
        yield '        if self.advantage_aggregation not in ("sum", "gdpo"):\n            raise ValueError(\n                "train.advantage_aggregation must be \'sum\' or \'gdpo\', "\n                f"received {self.advantage_aggregation!r}"\n            )\n        if not isinstance(self.global_std, bool):\n            raise TypeError(f"train.global_std must be a bool, received {self.global_std!r}")\n        low, high = _range_pair(self.adv_clip_range, "train.adv_clip_range")\n        if not low < high:\n            raise ValueError(\n                f"train.adv_clip_range must satisfy low < high, received {self.adv_clip_range!r}"\n            )\n        self.adv_clip_range = (low, high)\n        self.kl_beta = _finite_float(self.kl_beta, "train.kl_beta", minimum=0.0)\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm')):
        pass
        yield '        # The built-in\'s form: a (low, high) pair of offsets, or one number for a symmetric one.\n        low, high = _range_pair(self.clip_range, "train.clip_range")\n        if not -1.0 <= low < high:\n            raise ValueError(\n                f"train.clip_range must satisfy -1 <= low < high, received {self.clip_range!r}"\n            )\n        self.clip_range = (low, high)\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield '        if self.gradient_step_per_epoch != 1:\n            raise ValueError(\n                "train.gradient_step_per_epoch must be 1 for '
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ': "\n                "each role phase takes one optimizer step over the step\'s rollout, "\n                f"received {self.gradient_step_per_epoch!r}"\n            )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'dmd')):
        pass
        yield '        if (\n            isinstance(self.num_train_timesteps, bool)\n            or not isinstance(self.num_train_timesteps, int)\n            or self.num_train_timesteps < 1\n        ):\n            raise ValueError(\n                "train.num_train_timesteps must be an int >= 1, "\n                f"received {self.num_train_timesteps!r}"\n            )\n        if isinstance(self.timestep_range, (int, float)) and not isinstance(\n            self.timestep_range, bool\n        ):\n            self.timestep_range = (0.0, float(self.timestep_range))\n        low, high = _float_pair(self.timestep_range, "train.timestep_range")\n        if not 0.0 <= low < high <= 1.0:\n            raise ValueError(\n                "train.timestep_range must satisfy 0 <= low < high <= 1, "\n                f"received {self.timestep_range!r}"\n            )\n        self.timestep_range = (low, high)\n        self.time_shift = _finite_float(self.time_shift, "train.time_shift", minimum=0.0)\n        if self.time_shift == 0.0:\n            raise ValueError("train.time_shift must be > 0, received 0.0")\n        if self.time_sampling_strategy not in ("uniform", "logit_normal"):\n            raise ValueError(\n                "train.time_sampling_strategy must be \'uniform\' or \'logit_normal\', "\n                f"received {self.time_sampling_strategy!r}"\n            )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield '        if self.loss_target not in ("xt", "v", "x0"):\n            raise ValueError(\n                f"train.loss_target must be \'xt\', \'v\' or \'x0\', received {self.loss_target!r}"\n            )\n        if not isinstance(self.self_normalize, bool):\n            raise TypeError(\n                f"train.self_normalize must be a bool, received {self.self_normalize!r}"\n            )\n        if isinstance(self.timestep_range, (int, float)) and not isinstance(\n            self.timestep_range, bool\n        ):\n            self.timestep_range = (0.0, float(self.timestep_range))\n        low, high = _float_pair(self.timestep_range, "train.timestep_range")\n        if not 0.0 <= low < high <= 1.0:\n            raise ValueError(\n                "train.timestep_range must satisfy 0 <= low < high <= 1, "\n                f"received {self.timestep_range!r}"\n            )\n        self.timestep_range = (low, high)\n        if self.teacher_param_device not in ("cpu", "cuda"):\n            raise ValueError(\n                "train.teacher_param_device must be \'cpu\' or \'cuda\', "\n                f"received {self.teacher_param_device!r}"\n            )\n        self.teachers = [_teacher(entry, index) for index, entry in enumerate(self.teachers)]\n        if len(self.teachers) != 1:\n            raise ValueError(\n                "train.teachers must list exactly one teacher for '
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ' (one snapshot; "\n                "DiffusionOPD\'s routing of several by dataset is not generated), received "\n                f"{len(self.teachers)}"\n            )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield '        if not isinstance(self.teacher_path, str) or not self.teacher_path.strip():\n            raise ValueError(\n                "train.teacher_path must name the teacher weights (a non-empty string), "\n                f"received {self.teacher_path!r}"\n            )\n        if self.teacher_param_device not in ("cpu", "cuda"):\n            raise ValueError(\n                "train.teacher_param_device must be \'cpu\' or \'cuda\', "\n                f"received {self.teacher_param_device!r}"\n            )\n        if self.objective_guidance_scale is not None:\n            self.objective_guidance_scale = _finite_float(\n                self.objective_guidance_scale, "train.objective_guidance_scale", minimum=1.0\n            )\n'
    for l_1_p in (undefined(name='params') if l_0_params is missing else l_0_params):
        _loop_vars = {}
        pass
        yield str(environment.getattr(l_1_p, 'checks'))
        yield '\n'
    l_1_p = missing
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        yield '\n    @property\n    def requires_ref_model(self) -> bool:\n        """Diffusion-DPO always compares against the frozen reference snapshot."""\n        return True\n'
    elif (undefined(name='kto') if l_0_kto is missing else l_0_kto):
        pass
        yield '\n    @property\n    def requires_ref_model(self) -> bool:\n        """The KTO-like objective always scores records against the frozen reference."""\n        return True\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
        pass
        yield '\n    def get_num_train_timesteps(self, args: Any) -> int:\n        """Return the optimisation microsteps per batch: one per replayed SDE step.\n\n        Args:\n            args: The parent ``Arguments``; its scheduler group sets the SDE steps.\n        """\n        return int(args.scheduler_args.num_sde_steps)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'dmd')):
        pass
        yield '\n    def get_num_train_timesteps(self, args: Any) -> int:\n        """Return the optimisation microsteps per batch: one per re-noising timestep.\n\n        Args:\n            args: The parent ``Arguments`` (unused: this algorithm owns the count).\n        """\n        del args\n        return int(self.num_train_timesteps)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield '\n    def distill_step_indices(self) -> list[int]:\n        """The rollout\'s denoising steps distilled: ``[int(N low), max(that + 1, int(N high)))``\n        for ``timestep_range`` ``(low, high)`` and ``N = num_inference_steps``."""\n        low, high = self.timestep_range\n        steps = int(self.num_inference_steps)\n        first = int(steps * low)\n        return list(range(first, max(first + 1, int(steps * high))))\n\n    def get_num_train_timesteps(self, args: Any) -> int:\n        """Return the optimisation microsteps per batch: one per distilled step.\n\n        Args:\n            args: The parent ``Arguments`` (unused: this algorithm owns the count).\n        """\n        del args\n        return len(self.distill_step_indices())\n\n    def get_preprocess_guidance_scale(self) -> float:\n        """Return the strongest CFG any forward uses, so negative conditions get encoded."""\n        scales = [float(self.guidance_scale)]\n        scales += [float(t.guidance_scale) for t in self.teachers if t.guidance_scale is not None]\n        return max(scales)\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield '\n    def get_preprocess_guidance_scale(self) -> float:\n        """Return the strongest CFG any stage uses, so negative conditions get encoded."""\n        teacher_scale = self.objective_guidance_scale\n        if teacher_scale is None:\n            return float(self.guidance_scale)\n        return max(float(self.guidance_scale), float(teacher_scale))\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield '\n    @property\n    def required_trainable_roles(self) -> tuple[str, ...]:\n        """Return the live trainable roles; the first owns the canonical base weights."""\n        return '
        yield str(t_3((undefined(name='module') if l_0_module is missing else l_0_module)))
        yield '_TRAINABLE_ROLES\n\n    def role_update_plan(self) -> "RoleUpdatePlan":\n        """Return one phase per role, in role order, repeated on the role\'s cadence.\n\n        Each phase is one optimizer step of its role; the plan is also checkpoint metadata, so\n        a resume with other cadences is refused.\n        """\n        # Imported here: trainers.role_optimization imports the training arguments.\n        from ...trainers.role_optimization import RolePhase, RoleUpdatePlan\n\n        return RoleUpdatePlan(\n            phases=(\n'
        for (l_1_role, l_1_repeats) in (undefined(name='role_cadence') if l_0_role_cadence is missing else l_0_role_cadence):
            _loop_vars = {}
            pass
            yield '                RolePhase("'
            yield str(l_1_role)
            yield '"'
            if (l_1_repeats != 1):
                pass
                yield ', repeats='
                yield str(l_1_repeats)
            yield '),\n'
        l_1_role = l_1_repeats = missing
        yield '            )\n        )\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield '\n\ndef _teacher(entry: object, index: int) -> TeacherConfig:\n    """One ``train.teachers`` entry as a checked ``TeacherConfig`` (named when unnamed)."""\n    if isinstance(entry, dict):\n        entry = TeacherConfig.from_dict(entry)\n    if not isinstance(entry, TeacherConfig):\n        raise TypeError(\n            f"train.teachers[{index}] must be a mapping or TeacherConfig, "\n            f"received {type(entry).__name__}"\n        )\n    if not isinstance(entry.path, str) or not entry.path.strip():\n        raise ValueError(\n            f"train.teachers[{index}] must name its weights (path), received {entry.path!r}"\n        )\n    if not entry.applicable_datasets:\n        raise ValueError(\n            f"train.teachers[{index}] must list the data.datasets names it is distilled on "\n            "(applicable_datasets)"\n        )\n    if entry.name is None:\n        entry.name = f"opd_teacher_{index}"\n    if entry.guidance_scale is not None:\n        entry.guidance_scale = _finite_float(\n            entry.guidance_scale, f"train.teachers[{index}].guidance_scale", minimum=0.0\n        )\n    return entry\n'
    if (((undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward) or ((undefined(name='family') if l_0_family is missing else l_0_family) in ('opd', 'dmd'))) or (undefined(name='offline_reference') if l_0_offline_reference is missing else l_0_offline_reference)):
        pass
        yield '\n\ndef _finite_float(value: object, name: str, *, minimum: float) -> float:\n    """Return ``value`` as a finite float ``>= minimum`` or raise naming the field."""\n    if isinstance(value, bool) or not isinstance(value, (int, float)):\n        raise TypeError(f"{name} must be a finite float >= {minimum}, received {value!r}")\n    result = float(value)\n    if not math.isfinite(result) or result < minimum:\n        raise ValueError(f"{name} must be a finite float >= {minimum}, received {value!r}")\n    return result\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm', 'opd', 'dmd')):
        pass
        yield '\n\ndef _float_pair(value: object, name: str) -> tuple[float, float]:\n    """Return ``value`` as a pair of finite floats or raise naming the field."""\n    if not isinstance(value, (tuple, list)) or len(value) != 2:\n        raise ValueError(f"{name} must be a (low, high) pair of floats, received {value!r}")\n    low, high = (_finite_float(item, name, minimum=-math.inf) for item in value)\n    return low, high\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm')):
        pass
        yield '\n\ndef _range_pair(value: object, name: str) -> tuple[float, float]:\n    """A clip range as the built-ins read it: a (low, high) pair, or one number v meaning\n    (-|v|, |v|)."""\n    if isinstance(value, (int, float)) and not isinstance(value, bool):\n        half_width = abs(_finite_float(value, name, minimum=-math.inf))\n        return -half_width, half_width\n    return _float_pair(value, name)\n'

blocks = {}
debug_info = '2=47&3=50&4=53&7=56&8=59&9=63&11=65&14=68&15=71&17=73&19=75&20=78&22=80&24=83&27=86&31=89&34=92&35=95&36=97&44=100&48=104&50=111&51=113&54=116&57=119&62=125&63=128&65=130&71=134&73=137&74=139&75=141&79=143&80=145&81=149&85=153&86=155&87=159&91=166&93=168&109=172&110=181&112=183&116=187&117=189&118=191&121=193&130=196&138=199&147=202&164=205&171=207&173=210&180=212&186=215&204=218&237=221&239=224&258=226&259=229&265=233&268=235&270=237&277=240&281=243&284=246&300=249&309=252&312=255&317=257&347=260&375=263&380=265&396=268&397=271&399=274&405=277&412=280&421=283&431=286&456=289&465=292&470=295&483=297&484=301&489=310&518=313&530=316&540=319'