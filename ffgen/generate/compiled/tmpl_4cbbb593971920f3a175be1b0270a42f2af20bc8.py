from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/args_test.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_family = resolve('family')
    l_0_ownership = resolve('ownership')
    l_0_direction = resolve('direction')
    l_0_uses_snapshots = resolve('uses_snapshots')
    l_0_param_rejected = resolve('param_rejected')
    l_0_param_defaults = resolve('param_defaults')
    l_0_source_kind = resolve('source_kind')
    l_0_key = resolve('key')
    l_0_args_test_path = resolve('args_test_path')
    l_0_contract = resolve('contract')
    l_0_module = resolve('module')
    l_0_args_class = resolve('args_class')
    l_0_example_path = resolve('example_path')
    l_0_param_helps = resolve('param_helps')
    l_0_online_reward = l_0_rejected = l_0_offline_reference = l_0_defaults = l_0_line = missing
    try:
        t_1 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_2 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    pass
    l_0_online_reward = ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm'))
    context.vars['online_reward'] = l_0_online_reward
    context.exported_vars.add('online_reward')
    l_0_rejected = []
    context.vars['rejected'] = l_0_rejected
    context.exported_vars.add('rejected')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['beta', '0.0', 'ValueError'], ['beta', 'True', 'TypeError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    l_0_offline_reference = (((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')) and ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'snapshots'))
    context.vars['offline_reference'] = l_0_offline_reference
    context.exported_vars.add('offline_reference')
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction)):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['beta', '0.0', 'ValueError'], ['beta', 'True', 'TypeError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    elif (undefined(name='offline_reference') if l_0_offline_reference is missing else l_0_offline_reference):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['kl_beta', '-0.1', 'ValueError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    if (undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['advantage_aggregation', '"mean"', 'ValueError'], ['global_std', '"yes"', 'TypeError'], ['adv_clip_range', '(1.0, -1.0)', 'ValueError'], ['kl_beta', '-0.1', 'ValueError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    if (undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['clip_range', '(0.2, -0.2)', 'ValueError'], ['clip_range', '(-1.5, 0.2)', 'ValueError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['gradient_step_per_epoch', '2', 'ValueError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'dmd')):
        pass
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['num_train_timesteps', '0', 'ValueError'], ['timestep_range', '(0.5, 0.2)', 'ValueError'], ['time_shift', '0.0', 'ValueError'], ['time_sampling_strategy', '"discrete"', 'ValueError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    l_0_defaults = []
    context.vars['defaults'] = l_0_defaults
    context.exported_vars.add('defaults')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['beta', '2000.0']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction)):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['beta', '2000.0']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    elif (undefined(name='offline_reference') if l_0_offline_reference is missing else l_0_offline_reference):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['kl_beta', '0.01']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    if (undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['advantage_aggregation', '"sum"'], ['global_std', 'True'], ['adv_clip_range', '(-5.0, 5.0)'], ['kl_beta', ('0.01' if (undefined(name='uses_snapshots') if l_0_uses_snapshots is missing else l_0_uses_snapshots) else '0.0')]])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['clip_range', '(-0.2, 0.2)']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['clip_range', '(-0.0001, 0.0001)']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['gradient_step_per_epoch', '1']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'dmd')):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['num_train_timesteps', '2'], ['timestep_range', '(0.0, 0.99)'], ['time_shift', '1.0'], ['time_sampling_strategy', '"uniform"']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['teacher_param_device', '"cpu"'], ['objective_guidance_scale', 'None']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['teacher_path', '""', 'ValueError'], ['teacher_param_device', '"tpu"', 'ValueError'], ['objective_guidance_scale', '0.5', 'ValueError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + [['teacher_param_device', '"cuda"'], ['timestep_range', '(0.0, 0.99)'], ['loss_target', '"xt"'], ['self_normalize', 'False']])
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
        l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + [['teachers', '[]', 'ValueError'], ['teacher_param_device', '"tpu"', 'ValueError'], ['timestep_range', '(0.5, 0.2)', 'ValueError'], ['loss_target', '"eps"', 'ValueError'], ['self_normalize', '"yes"', 'TypeError']])
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
    l_0_rejected = ((undefined(name='rejected') if l_0_rejected is missing else l_0_rejected) + t_2(context.eval_ctx, (undefined(name='param_rejected') if l_0_param_rejected is missing else l_0_param_rejected)))
    context.vars['rejected'] = l_0_rejected
    context.exported_vars.add('rejected')
    l_0_defaults = ((undefined(name='defaults') if l_0_defaults is missing else l_0_defaults) + t_2(context.eval_ctx, (undefined(name='param_defaults') if l_0_param_defaults is missing else l_0_param_defaults)))
    context.vars['defaults'] = l_0_defaults
    context.exported_vars.add('defaults')
    if ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) == 'handwritten'):
        pass
        l_0_rejected = t_2(context.eval_ctx, (undefined(name='param_rejected') if l_0_param_rejected is missing else l_0_param_rejected))
        context.vars['rejected'] = l_0_rejected
        context.exported_vars.add('rejected')
        l_0_defaults = t_2(context.eval_ctx, (undefined(name='param_defaults') if l_0_param_defaults is missing else l_0_param_defaults))
        context.vars['defaults'] = l_0_defaults
        context.exported_vars.add('defaults')
    yield '"""Checks for the arguments class of the generated ``'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield "`` algorithm.\n\nParsing of the example's ``train:`` section, the fixed trainer identity, the execution contract\nas a class constant, and one rejected value per algorithm parameter.\n\nGenerated by ffgen; run it from the checkout root with\n``PYTHONPATH=src python -m pytest "
    yield str((undefined(name='args_test_path') if l_0_args_test_path is missing else l_0_args_test_path))
    yield '``.\n"""\n\nimport copy\nimport functools\nfrom dataclasses import fields\nfrom pathlib import Path\n\nimport pytest\nimport yaml\n\nfrom flow_factory.contracts.execution import '
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '\n'
    l_0_line = str_join(('from flow_factory.hparams.training_args.', (undefined(name='module') if l_0_module is missing else l_0_module), ' import ', (undefined(name='args_class') if l_0_args_class is missing else l_0_args_class), ' as Args', ))
    context.vars['line'] = l_0_line
    context.exported_vars.add('line')
    if (t_1((undefined(name='line') if l_0_line is missing else l_0_line)) <= 100):
        pass
        yield str((undefined(name='line') if l_0_line is missing else l_0_line))
        yield '\n'
    else:
        pass
        yield 'from flow_factory.hparams.training_args.'
        yield str((undefined(name='module') if l_0_module is missing else l_0_module))
        yield ' import (\n    '
        yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
        yield ' as Args,\n)\n'
    yield '\nKEY = "'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '"\n'
    if (undefined(name='defaults') if l_0_defaults is missing else l_0_defaults):
        pass
        yield "# What a config that leaves out the algorithm's own parameters gets.\nDEFAULTS = {\n"
        for (l_1_name, l_1_value) in (undefined(name='defaults') if l_0_defaults is missing else l_0_defaults):
            _loop_vars = {}
            pass
            yield '    "'
            yield str(l_1_name)
            yield '": '
            yield str(l_1_value)
            yield ',\n'
        l_1_name = l_1_value = missing
        yield '}\n'
    else:
        pass
        yield 'DEFAULTS = {}  # the algorithm adds no parameter of its own\n'
    yield 'ROOT = Path(__file__).resolve().parents[2]\nEXAMPLE = ROOT / "'
    yield str((undefined(name='example_path') if l_0_example_path is missing else l_0_example_path))
    yield '"\n\n\n@functools.cache\ndef _parsed(text: str) -> dict:\n    return yaml.safe_load(text)\n\n\ndef _train() -> dict:\n    """The example\'s ``train:`` section; a copy of its own each call (parsed once)."""\n    return copy.deepcopy(_parsed(EXAMPLE.read_text(encoding="utf-8"))["train"])\n\n\ndef test_example_train_section_parses():\n    """Rule: the generated example\'s ``train:`` section is valid for the arguments class."""\n    args = Args.from_dict(_train())\n    assert type(args) is Args and args.trainer_type == KEY\n\n\ndef test_contract_is_a_class_constant_not_a_field():\n    """Rule: the execution contract is selected by ``trainer_type``, never configured."""\n    assert Args.execution_contract is '
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '\n    assert "execution_contract" not in {field.name for field in fields(Args)}\n    with pytest.raises(ValueError, match="execution_contract"):\n        Args.from_dict({**_train(), "execution_contract": "dataset"})\n\n\ndef test_foreign_trainer_type_is_refused():\n    """Rule: the arguments class belongs to one registry key."""\n    with pytest.raises(ValueError, match="trainer_type"):\n        Args.from_dict({**_train(), "trainer_type": "not-" + KEY})\n\n\ndef test_left_out_values_default_to_the_algorithm_and_its_documented_parameters():\n    """Rule: a config that leaves out ``trainer_type`` and the algorithm\'s parameters selects\n    this algorithm, with the defaults its documentation states."""\n    train = {k: v for k, v in _train().items() if k not in ("trainer_type", *DEFAULTS)}\n    args = Args.from_dict(train)\n    assert args.trainer_type == KEY\n    assert {name: getattr(args, name) for name in DEFAULTS} == DEFAULTS\n'
    if (undefined(name='rejected') if l_0_rejected is missing else l_0_rejected):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("name", "value", "error"),\n    [\n'
        for (l_1_name, l_1_value, l_1_error) in (undefined(name='rejected') if l_0_rejected is missing else l_0_rejected):
            _loop_vars = {}
            pass
            yield '        ("'
            yield str(l_1_name)
            yield '", '
            yield str(l_1_value)
            yield ', '
            yield str(l_1_error)
            yield '),\n'
        l_1_name = l_1_value = l_1_error = missing
        yield '    ],\n)\ndef test_each_algorithm_parameter_rejects_an_invalid_value(name, value, error):\n    """Rule: every objective parameter is validated when the arguments are built."""\n    with pytest.raises(error, match=name):\n        Args.from_dict({**_train(), name: value})\n'
    if ((undefined(name='online_reward') if l_0_online_reward is missing else l_0_online_reward) and ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) != 'handwritten')):
        pass
        yield '\n\ndef test_clip_ranges_take_the_built_in_forms():\n    """Rule: ``clip_range`` and ``adv_clip_range`` read as the built-in\'s do: a ``[low, high]``\n    list (as YAML gives it), or one number ``v`` meaning ``(-|v|, |v|)``, as the built-in\'s own\n    examples write them."""\n    assert Args.from_dict({**_train(), "clip_range": [-1.0e-4, 2.0e-4]}).clip_range == (\n        -1.0e-4,\n        2.0e-4,\n    )\n    args = Args.from_dict({**_train(), "clip_range": 1.0e-4, "adv_clip_range": 5.0})\n    assert (args.clip_range, args.adv_clip_range) == ((-1.0e-4, 1.0e-4), (-5.0, 5.0))\n'
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd') and ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) != 'handwritten')):
        pass
        yield '\n\ndef test_a_diffusion_opd_teachers_entry_carries_over():\n    """Rule: ``train.teachers`` reads as DiffusionOPD\'s: ``path``, ``applicable_datasets``, an\n    optional ``name`` (``opd_teacher_<i>`` when left out) and ``guidance_scale``."""\n    entry = {"path": "teacher-lora", "applicable_datasets": ["ocr"], "guidance_scale": 4.5}\n    args = Args.from_dict({**_train(), "teachers": [entry], "timestep_range": [0.1, 0.9]})\n    (teacher,) = args.teachers\n    assert (teacher.path, teacher.name, teacher.applicable_datasets, teacher.guidance_scale) == (\n        "teacher-lora",\n        "opd_teacher_0",\n        ["ocr"],\n        4.5,\n    )\n    assert args.timestep_range == (0.1, 0.9)\n    with pytest.raises(ValueError, match="applicable_datasets"):\n        Args.from_dict({**_train(), "teachers": [{"path": "teacher-lora"}]})\n'
    if (undefined(name='param_helps') if l_0_param_helps is missing else l_0_param_helps):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("name", "text"),\n    [\n'
        for l_1_row in (undefined(name='param_helps') if l_0_param_helps is missing else l_0_param_helps):
            _loop_vars = {}
            pass
            yield str(l_1_row)
            yield '\n'
        l_1_row = missing
        yield '    ],\n)\ndef test_each_hyperparameter_carries_its_help_text(name, text):\n    """Rule: a hyperparameter\'s help is the text its ``--param`` spec gave it."""\n    assert {field.name: field.metadata.get("help") for field in fields(Args)}[name] == text\n'

blocks = {}
debug_info = '2=38&3=41&4=44&5=46&7=49&8=52&9=54&10=57&11=59&13=62&14=64&21=67&22=69&24=72&25=74&27=77&28=79&37=82&38=85&39=87&41=90&42=92&43=95&44=97&46=100&47=102&54=105&55=107&56=110&57=112&59=115&60=117&62=120&63=122&70=125&71=127&72=130&77=133&79=135&85=138&94=141&95=144&96=147&99=149&100=152&102=156&108=158&119=160&120=162&121=165&122=167&124=172&125=174&129=177&130=179&133=182&134=186&141=196&162=198&181=200&187=203&188=207&197=215&211=218&230=221&236=224&237=227'