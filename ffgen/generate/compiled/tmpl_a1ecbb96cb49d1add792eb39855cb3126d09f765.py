from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/test.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_acquisition = resolve('acquisition')
    l_0_ownership = resolve('ownership')
    l_0_state = resolve('state')
    l_0_family = resolve('family')
    l_0_uses_snapshots = resolve('uses_snapshots')
    l_0_direction = resolve('direction')
    l_0_record_fields = resolve('record_fields')
    l_0_source_kind = resolve('source_kind')
    l_0_trainer_class = resolve('trainer_class')
    l_0_category = resolve('category')
    l_0_module = resolve('module')
    l_0_record_type = resolve('record_type')
    l_0_key = resolve('key')
    l_0_test_path = resolve('test_path')
    l_0_contract = resolve('contract')
    l_0_args_class = resolve('args_class')
    l_0_trainer_dotted = resolve('trainer_dotted')
    l_0_example_path = resolve('example_path')
    l_0_paradigm = resolve('paradigm')
    l_0_has_reward = resolve('has_reward')
    l_0_samples = resolve('samples')
    l_0_roles = resolve('roles')
    l_0_role_cadence = resolve('role_cadence')
    l_0_dataset = l_0_multi_role = l_0_structured = l_0_reference = l_0_kto = l_0_overrides = l_0_class_dicts = l_0_handwritten = l_0_teacher = l_0_test_class = l_0_bases = l_0_helpers = l_0_checklist_names = l_0_trainer_module = l_0_trainer_names = l_0_import_line = l_0_children = l_0_children_line = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_4 = environment.filters['sort']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'sort' found.")
    pass
    l_0_dataset = ((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition) == 'dataset')
    context.vars['dataset'] = l_0_dataset
    context.exported_vars.add('dataset')
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    l_0_structured = ((undefined(name='state') if l_0_state is missing else l_0_state) == 'structured')
    context.vars['structured'] = l_0_structured
    context.exported_vars.add('structured')
    l_0_reference = (((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo') or (((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm', 'sft', 'record')) and (undefined(name='uses_snapshots') if l_0_uses_snapshots is missing else l_0_uses_snapshots)))
    context.vars['reference'] = l_0_reference
    context.exported_vars.add('reference')
    l_0_kto = (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction))
    context.vars['kto'] = l_0_kto
    context.exported_vars.add('kto')
    l_0_overrides = []
    context.vars['overrides'] = l_0_overrides
    context.exported_vars.add('overrides')
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo') or (undefined(name='kto') if l_0_kto is missing else l_0_kto)):
        pass
        l_0_overrides = [['beta', 'BETA']]
        context.vars['overrides'] = l_0_overrides
        context.exported_vars.add('overrides')
    elif (((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')) and (undefined(name='uses_snapshots') if l_0_uses_snapshots is missing else l_0_uses_snapshots)):
        pass
        l_0_overrides = [['kl_beta', '0.0']]
        context.vars['overrides'] = l_0_overrides
        context.exported_vars.add('overrides')
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
        pass
        l_0_overrides = [['clip_range', '(-0.2, 0.2)'], ['kl_beta', '0.0']]
        context.vars['overrides'] = l_0_overrides
        context.exported_vars.add('overrides')
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
        pass
        l_0_overrides = [['clip_range', '(-0.2, 0.2)'], ['kl_beta', '0.0']]
        context.vars['overrides'] = l_0_overrides
        context.exported_vars.add('overrides')
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        l_0_overrides = [['timestep_range', '(0.0, 1.0)']]
        context.vars['overrides'] = l_0_overrides
        context.exported_vars.add('overrides')
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        l_0_overrides = [['objective_guidance_scale', 'None']]
        context.vars['overrides'] = l_0_overrides
        context.exported_vars.add('overrides')
    l_0_class_dicts = (((undefined(name='overrides') if l_0_overrides is missing else l_0_overrides) or ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')) or ((((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields)) and ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) != 'handwritten')))
    context.vars['class_dicts'] = l_0_class_dicts
    context.exported_vars.add('class_dicts')
    l_0_handwritten = ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) == 'handwritten')
    context.vars['handwritten'] = l_0_handwritten
    context.exported_vars.add('handwritten')
    l_0_teacher = (((undefined(name='family') if l_0_family is missing else l_0_family) in ('opd', 'dmd')) and (not (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten)))
    context.vars['teacher'] = l_0_teacher
    context.exported_vars.add('teacher')
    l_0_test_class = (str_join(('Test', (undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class)[:-7], )) if context.call(environment.getattr((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class), 'endswith'), 'Trainer') else str_join(('Test', (undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class), )))
    context.vars['test_class'] = l_0_test_class
    context.exported_vars.add('test_class')
    l_0_bases = (((((['StructuredChecks'] if (undefined(name='structured') if l_0_structured is missing else l_0_structured) else ['ModelNeutralChecks']) + (['RecordChecks'] if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') else [])) + (['TeacherChecks'] if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd') else [])) + ((['GeneratorCriticChecks'] if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd') else ['RoleChecks']) if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role) else [])) + (['DatasetChecks'] if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset) else ['GenerationChecks']))
    context.vars['bases'] = l_0_bases
    context.exported_vars.add('bases')
    l_0_helpers = (((['grad_of'] if ((undefined(name='family') if l_0_family is missing else l_0_family) != 'dmd') else []) + (['replay_step'] if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'opd')) else [])) + (['two_components'] if ((undefined(name='structured') if l_0_structured is missing else l_0_structured) and ((undefined(name='family') if l_0_family is missing else l_0_family) != 'dmd')) else []))
    context.vars['helpers'] = l_0_helpers
    context.exported_vars.add('helpers')
    if (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten):
        pass
        l_0_bases = (['ModelNeutralChecks'] + (['DatasetChecks'] if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset) else ['GenerationChecks']))
        context.vars['bases'] = l_0_bases
        context.exported_vars.add('bases')
        l_0_helpers = ([] if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset) else ['state_of'])
        context.vars['helpers'] = l_0_helpers
        context.exported_vars.add('helpers')
    l_0_checklist_names = (t_4(environment, (undefined(name='bases') if l_0_bases is missing else l_0_bases)) + t_4(environment, (undefined(name='helpers') if l_0_helpers is missing else l_0_helpers)))
    context.vars['checklist_names'] = l_0_checklist_names
    context.exported_vars.add('checklist_names')
    l_0_trainer_module = str_join(('flow_factory.trainers.', (undefined(name='category') if l_0_category is missing else l_0_category), '.', (undefined(name='module') if l_0_module is missing else l_0_module), ))
    context.vars['trainer_module'] = l_0_trainer_module
    context.exported_vars.add('trainer_module')
    l_0_trainer_names = ((['TEACHER_SNAPSHOT'] if (undefined(name='teacher') if l_0_teacher is missing else l_0_teacher) else []) + t_4(environment, ([(undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class)] + ([(undefined(name='record_type') if l_0_record_type is missing else l_0_record_type), str_join(((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type), 'Batch', ))] if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') else [])), case_sensitive=False))
    context.vars['trainer_names'] = l_0_trainer_names
    context.exported_vars.add('trainer_names')
    def macro(l_1_module_path, l_1_names):
        t_5 = []
        l_1_line = missing
        if l_1_module_path is missing:
            l_1_module_path = undefined("parameter 'module_path' was not provided", name='module_path')
        if l_1_names is missing:
            l_1_names = undefined("parameter 'names' was not provided", name='names')
        pass
        l_1_line = str_join(('from ', l_1_module_path, ' import ', t_1(context.eval_ctx, l_1_names, ', '), ))
        if (t_2((undefined(name='line') if l_1_line is missing else l_1_line)) <= 100):
            pass
            t_5.extend((
                str((undefined(name='line') if l_1_line is missing else l_1_line)),
                '\n',
            ))
        else:
            pass
            t_5.extend((
                'from ',
                str(l_1_module_path),
                ' import (\n',
            ))
            for l_2_name in l_1_names:
                _loop_vars = {}
                pass
                t_5.extend((
                    '    ',
                    str(l_2_name),
                    ',\n',
                ))
            l_2_name = missing
            t_5.append(
                ')\n',
            )
        return concat(t_5)
    context.exported_vars.add('import_line')
    context.vars['import_line'] = l_0_import_line = Macro(environment, macro, 'import_line', ('module_path', 'names'), False, False, False, context.eval_ctx.autoescape)
    yield '"""Checks for the generated ``'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '`` algorithm.\n\nIts facts and its objective\'s invariants. Every check all algorithms share (registries, hooks,\nacquisition cycles through the real ``BaseTrainer.start()``, checkpoints, one data-parallel and\none sharded step) comes from the checklist module ``algorithm_checklist.py`` beside this file,\nwith the fakes of the model and the accelerator; the arguments class has its own test file.\nThe checklist also checks the objective\'s maths, whatever you write inside its markers: one\nupdate moves the model the way the supervision says, in the example\'s own batch geometry; the\nfrozen reference and teacher get no gradient; no target, condition or label carries over from\none batch to the next; state kept on ``self`` comes back on an exact resume. Each failure says\nwhat was expected and what moved.\n\nThe class below declares its facts on the checklist\'s hooks; change them when the algorithm\nchanges (all are class attributes or methods of the ``*Checks`` bases):\n\n- ``KEY``, ``Trainer``, ``Args``, ``TRAINER_PATH``, ``EXAMPLE``, ``CONTRACT``, ``PARADIGM``,\n  ``HAS_REWARD``: what the registries, the contract and the example must say.\n- ``COMPONENTS``: the fake model\'s trajectory components (``StructuredChecks``: two).\n- ``OVERRIDES``: training arguments set on the example\'s for every check (e.g. ``beta``).\n- ``REQUIRES_REF_MODEL``: whether the arguments ask for a frozen reference;\n  ``RUNTIME_CHILDREN``: the runtime children an exact checkpoint saves (EMA, the reference,\n  teachers, the roles\' counters), in order.\n- ``REFERENCE_VALUE``: the objective\'s documented value at policy == reference (DPO, KTO:\n  log 2), or None.\n- ``SUPERVISION`` (dataset: "demonstration" or "preference") and ``DIRECTION`` (a record\'s bool\n  field saying desirable or not): what the direction check reads.\n- ``batch(index, rows=1)`` and ``metadata(index)``: the fake offline batches (targets,\n  conditions and metadata differ from batch to batch); ``update_on(trainer, index)``: one\n  update of the trainer\'s own hook on data ``index``; ``rank_loss(trainer, rank)``: the loss the\n  checkpoint and distributed checks step on.\n- ``MODULE_FAKES``: helpers of the trainer module the checks replace (the random timestep draw).\n- ``EXAMPLE_SETS``: training arguments the example must set; ``ROLES``/``CADENCE``: multi-role.\n\nGenerated by ffgen; run it from the checkout root with\n``PYTHONPATH=src python -m pytest '
    yield str((undefined(name='test_path') if l_0_test_path is missing else l_0_test_path))
    yield '``.\n"""\n\n'
    if (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten):
        pass
        yield 'import dataclasses\n'
    elif (((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo') or (undefined(name='kto') if l_0_kto is missing else l_0_kto)):
        pass
        yield 'import math\n'
    if (undefined(name='class_dicts') if l_0_class_dicts is missing else l_0_class_dicts):
        pass
        yield 'from typing import ClassVar\n'
    if ((((undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten) or ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo')) or (undefined(name='kto') if l_0_kto is missing else l_0_kto)) or (undefined(name='class_dicts') if l_0_class_dicts is missing else l_0_class_dicts)):
        pass
        yield '\n'
    if (not (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten)):
        pass
        yield 'import pytest\n'
    yield 'import torch\n'
    yield str(context.call((undefined(name='import_line') if l_0_import_line is missing else l_0_import_line), 'algorithm_checklist', (undefined(name='checklist_names') if l_0_checklist_names is missing else l_0_checklist_names)))
    yield '\nfrom flow_factory.contracts.execution import '
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '\n'
    yield str(context.call((undefined(name='import_line') if l_0_import_line is missing else l_0_import_line), str_join(('flow_factory.hparams.training_args.', (undefined(name='module') if l_0_module is missing else l_0_module), )), [(undefined(name='args_class') if l_0_args_class is missing else l_0_args_class)]))
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield 'from flow_factory.trainers.abc import MULTIROLE_RUNTIME_CHILD_NAME\n'
    yield str(context.call((undefined(name='import_line') if l_0_import_line is missing else l_0_import_line), (undefined(name='trainer_module') if l_0_trainer_module is missing else l_0_trainer_module), (undefined(name='trainer_names') if l_0_trainer_names is missing else l_0_trainer_names)))
    yield '\n\nclass '
    yield str((undefined(name='test_class') if l_0_test_class is missing else l_0_test_class))
    yield '('
    yield str(t_1(context.eval_ctx, (undefined(name='bases') if l_0_bases is missing else l_0_bases), ', '))
    yield '):\n    """The facts of ``'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '``; the bases hold the checks."""\n\n    KEY = "'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '"\n    Trainer = '
    yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
    yield '\n    Args = '
    yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
    yield '\n'
    if (t_2((undefined(name='trainer_dotted') if l_0_trainer_dotted is missing else l_0_trainer_dotted)) <= 79):
        pass
        yield '    TRAINER_PATH = "'
        yield str((undefined(name='trainer_dotted') if l_0_trainer_dotted is missing else l_0_trainer_dotted))
        yield '"\n'
    elif (t_2((undefined(name='trainer_dotted') if l_0_trainer_dotted is missing else l_0_trainer_dotted)) <= 90):
        pass
        yield '    TRAINER_PATH = (\n        "'
        yield str((undefined(name='trainer_dotted') if l_0_trainer_dotted is missing else l_0_trainer_dotted))
        yield '"\n    )\n'
    else:
        pass
        yield '    TRAINER_PATH = (\n        "'
        yield str((undefined(name='trainer_module') if l_0_trainer_module is missing else l_0_trainer_module))
        yield '."\n        "'
        yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
        yield '"\n    )\n'
    yield '    EXAMPLE = "'
    yield str((undefined(name='example_path') if l_0_example_path is missing else l_0_example_path))
    yield '"\n    CONTRACT = '
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '\n    PARADIGM = "'
    yield str((undefined(name='paradigm') if l_0_paradigm is missing else l_0_paradigm))
    yield '"\n'
    if (undefined(name='has_reward') if l_0_has_reward is missing else l_0_has_reward):
        pass
        yield '    HAS_REWARD = True\n'
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (not (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten))):
        pass
        yield '    RECORD = '
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield '\n'
        if (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
            pass
            yield "    # A value of each declared field, for the fake rows' metadata\n"
            l_0_samples = {'bool': 'True', 'int': '1', 'float': '0.5', 'str': '"text"'}
            context.vars['samples'] = l_0_samples
            context.exported_vars.add('samples')
            yield '    RECORD_FIELDS: ClassVar[dict] = {\n'
            for (l_1_name, l_1_kind) in (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
                _loop_vars = {}
                pass
                yield '        "'
                yield str(l_1_name)
                yield '": '
                yield str(environment.getitem((undefined(name='samples') if l_0_samples is missing else l_0_samples), l_1_kind))
                yield ',\n'
            l_1_name = l_1_kind = missing
            yield '    }\n'
        if (undefined(name='direction') if l_0_direction is missing else l_0_direction):
            pass
            yield '    DIRECTION = "'
            yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
            yield '"\n'
    if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset):
        pass
        yield '    SUPERVISION = "'
        yield str(('preference' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo') else 'demonstration'))
        yield '"\n'
    if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo') or (undefined(name='kto') if l_0_kto is missing else l_0_kto)):
        pass
        yield '    BETA = 0.5  # not 1: a trainer that ignores ``beta`` computes a different loss\n'
        if (not (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten)):
            pass
            yield '    REFERENCE_VALUE = math.log(2.0)  # the loss at policy == reference (zero implicit reward)\n'
    if ((undefined(name='overrides') if l_0_overrides is missing else l_0_overrides) and (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten)):
        pass
        yield "    # The family's test settings, for the fields the copied arguments class has.\n    OVERRIDES: ClassVar[dict] = {\n        name: value\n        for name, value in {"
        l_1_loop = missing
        for (l_1_name, l_1_value), l_1_loop in LoopContext((undefined(name='overrides') if l_0_overrides is missing else l_0_overrides), undefined):
            _loop_vars = {}
            pass
            yield '"'
            yield str(l_1_name)
            yield '": '
            yield str(l_1_value)
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 171 in 'algorithm/test.py.jinja' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_name = l_1_value = missing
        yield '}.items()\n        if name in {field.name for field in dataclasses.fields('
        yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
        yield ')}\n    }\n'
    elif (undefined(name='overrides') if l_0_overrides is missing else l_0_overrides):
        pass
        yield '    OVERRIDES: ClassVar[dict] = {'
        l_1_loop = missing
        for (l_1_name, l_1_value), l_1_loop in LoopContext((undefined(name='overrides') if l_0_overrides is missing else l_0_overrides), undefined):
            _loop_vars = {}
            pass
            yield '"'
            yield str(l_1_name)
            yield '": '
            yield str(l_1_value)
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 175 in 'algorithm/test.py.jinja' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_name = l_1_value = missing
        yield '}\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        yield '    EXAMPLE_SETS = ("requires_ref_model",)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield '    EXAMPLE_SETS = ("teachers",)\n'
    if (undefined(name='reference') if l_0_reference is missing else l_0_reference):
        pass
        yield '    REQUIRES_REF_MODEL = True\n'
    l_0_children = (((['"adapter_ema"'] + (['"adapter_reference"'] if (undefined(name='reference') if l_0_reference is missing else l_0_reference) else [])) + (['MULTIROLE_RUNTIME_CHILD_NAME'] if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role) else [])) + (['TEACHER_SNAPSHOT'] if (undefined(name='teacher') if l_0_teacher is missing else l_0_teacher) else []))
    context.vars['children'] = l_0_children
    context.exported_vars.add('children')
    l_0_children_line = str_join(('    RUNTIME_CHILDREN = (', t_1(context.eval_ctx, (undefined(name='children') if l_0_children is missing else l_0_children), ', '), (',' if (t_2((undefined(name='children') if l_0_children is missing else l_0_children)) == 1) else ''), ')', ))
    context.vars['children_line'] = l_0_children_line
    context.exported_vars.add('children_line')
    if (t_2((undefined(name='children_line') if l_0_children_line is missing else l_0_children_line)) <= 100):
        pass
        yield str((undefined(name='children_line') if l_0_children_line is missing else l_0_children_line))
        yield '\n'
    else:
        pass
        yield '    RUNTIME_CHILDREN = (\n        '
        yield str(t_1(context.eval_ctx, (undefined(name='children') if l_0_children is missing else l_0_children), ', '))
        yield ',\n    )\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield '    ROLES = ('
        yield str(t_1(context.eval_ctx, t_3(context, (undefined(name='roles') if l_0_roles is missing else l_0_roles), 'tojson'), ', '))
        yield ')\n    CADENCE: ClassVar[dict] = {'
        l_1_loop = missing
        for (l_1_role, l_1_repeats), l_1_loop in LoopContext((undefined(name='role_cadence') if l_0_role_cadence is missing else l_0_role_cadence), undefined):
            _loop_vars = {}
            pass
            yield '"'
            yield str(l_1_role)
            yield '": '
            yield str(l_1_repeats)
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 196 in 'algorithm/test.py.jinja' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_role = l_1_repeats = missing
        yield '}\n'
    if (undefined(name='handwritten') if l_0_handwritten is missing else l_0_handwritten):
        pass
        template = environment.get_template('algorithm/_test_hook_loss.jinja', 'algorithm/test.py.jinja')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'bases': l_0_bases, 'checklist_names': l_0_checklist_names, 'children': l_0_children, 'children_line': l_0_children_line, 'class_dicts': l_0_class_dicts, 'dataset': l_0_dataset, 'handwritten': l_0_handwritten, 'helpers': l_0_helpers, 'import_line': l_0_import_line, 'kto': l_0_kto, 'multi_role': l_0_multi_role, 'overrides': l_0_overrides, 'reference': l_0_reference, 'samples': l_0_samples, 'structured': l_0_structured, 'teacher': l_0_teacher, 'test_class': l_0_test_class, 'trainer_module': l_0_trainer_module, 'trainer_names': l_0_trainer_names}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
    else:
        pass
        template = environment.get_template('algorithm/_test_objective.jinja', 'algorithm/test.py.jinja')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'bases': l_0_bases, 'checklist_names': l_0_checklist_names, 'children': l_0_children, 'children_line': l_0_children_line, 'class_dicts': l_0_class_dicts, 'dataset': l_0_dataset, 'handwritten': l_0_handwritten, 'helpers': l_0_helpers, 'import_line': l_0_import_line, 'kto': l_0_kto, 'multi_role': l_0_multi_role, 'overrides': l_0_overrides, 'reference': l_0_reference, 'samples': l_0_samples, 'structured': l_0_structured, 'teacher': l_0_teacher, 'test_class': l_0_test_class, 'trainer_module': l_0_trainer_module, 'trainer_names': l_0_trainer_names}))
        try:
            for event in gen:
                yield event
        finally: gen.close()

blocks = {}
debug_info = '3=59&4=62&5=65&6=68&7=71&8=74&9=77&10=79&11=82&12=84&13=87&14=89&15=92&16=94&17=97&19=99&20=102&21=104&24=107&25=110&26=113&27=116&28=119&33=122&38=125&39=127&40=130&42=133&43=136&44=139&45=142&46=150&47=151&48=154&50=161&51=164&52=169&57=180&91=182&94=184&96=187&99=190&102=193&105=196&109=200&111=202&112=204&113=205&116=208&118=210&119=214&121=216&122=218&123=220&125=222&126=225&127=227&129=230&133=235&134=237&137=240&138=242&139=244&140=246&143=249&144=252&145=254&147=257&149=261&150=265&154=271&155=274&158=276&159=279&161=281&163=284&167=287&171=291&172=301&174=303&175=307&177=317&179=320&182=323&185=326&186=329&187=332&188=334&191=339&194=341&195=344&196=347&198=357&199=359&201=367'