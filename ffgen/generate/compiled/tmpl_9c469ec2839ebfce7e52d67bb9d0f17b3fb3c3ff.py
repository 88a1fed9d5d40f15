from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/sft.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_imports = l_0_module_constants = l_0_class_attributes = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    pass
    def macro():
        t_1 = []
        pass
        t_1.append(
            'Supervised flow matching on demonstrations.',
        )
        return concat(t_1)
    context.exported_vars.add('summary')
    context.vars['summary'] = l_0_summary = Macro(environment, macro, 'summary', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_2 = []
        pass
        return concat(t_2)
    context.exported_vars.add('defines_snapshots')
    context.vars['defines_snapshots'] = l_0_defines_snapshots = Macro(environment, macro, 'defines_snapshots', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_3 = []
        pass
        t_3.append(
            'Supervised flow matching over one complete finite demonstration loader per data epoch.',
        )
        return concat(t_3)
    context.exported_vars.add('class_doc')
    context.vars['class_doc'] = l_0_class_doc = Macro(environment, macro, 'class_doc', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_4 = []
        l_1_contract = resolve('contract')
        l_1_ownership = resolve('ownership')
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_4.extend((
            'from collections import defaultdict\nfrom typing import Any, ClassVar, Literal\n\nimport torch\nfrom torch.utils.data import DataLoader\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\nfrom ...data_utils.offline_dataset import DemonstrationOutputBatch, OfflineBatch\nfrom ...data_utils.offline_train_data import build_offline_train_dataloader\n',
        ))
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_4.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_4.append(
            'from ...samples import LatentState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import (\n    build_noised_output_state,\n    flow_matching_per_sample_loss,\n    sample_offline_timesteps,\n)\nfrom ..common.offline_batch import bind_prepared_condition_output, move_condition_to_device\nfrom ..common.state_validation import ',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_4.append(
                'require_latent_state, ',
            )
        t_4.append(
            'state_batch_size\nfrom ..forward_process import forward_velocity_state\n',
        )
        return concat(t_4)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        pass
        return concat(t_5)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        pass
        return concat(t_6)
    context.exported_vars.add('class_attributes')
    context.vars['class_attributes'] = l_0_class_attributes = Macro(environment, macro, 'class_attributes', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        pass
        return concat(t_7)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        pass
        t_8.append(
            '\n    def _build_train_dataloader(self) -> tuple[DataLoader, dict[str, DataLoader]]:\n        """Build the finite demonstration loader (``DistributedSampler``, ``OfflineBatch``).\n\n        Returns:\n            The training loader and an empty mapping of evaluation loaders.\n        """\n        loader = build_offline_train_dataloader(\n            config=self.config,\n            accelerator=self.accelerator,\n            preprocess_func=self.adapter.preprocess_func,\n            supervision_type="demonstration",\n            pipeline_io_contract=self.adapter.effective_pipeline_io_contract,\n        )\n        return loader, {}\n\n',
        )
        template = environment.get_template('algorithm/families/_flow_matching_batch.jinja', 'algorithm/families/sft.py.jinja')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'class_attributes': l_0_class_attributes, 'class_doc': l_0_class_doc, 'defines_snapshots': l_0_defines_snapshots, 'hooks': l_0_hooks, 'imports': l_0_imports, 'init_body': l_0_init_body, 'module_constants': l_0_module_constants, 'module_helpers': l_0_module_helpers, 'summary': l_0_summary}))
        try:
            for event in gen:
                t_8.append(event)
        finally: gen.close()
        return concat(t_8)
    context.exported_vars.add('hooks')
    context.vars['hooks'] = l_0_hooks = Macro(environment, macro, 'hooks', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        pass
        t_9.append(
            '\n\ndef _require_demonstration_batch(batch: Any) -> DemonstrationOutputBatch:\n    """Return the demonstration outputs of ``batch`` or raise naming what was received."""\n    if not isinstance(batch, OfflineBatch):\n        raise TypeError(f"expected an OfflineBatch, received {type(batch).__name__}")\n    if batch.supervision_type != "demonstration" or not isinstance(\n        batch.output, DemonstrationOutputBatch\n    ):\n        raise TypeError(\n            "expected demonstration supervision, received "\n            f"{batch.supervision_type!r} / {type(batch.output).__name__}"\n        )\n    return batch.output\n',
        )
        return concat(t_9)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '2=12&3=21&4=27&5=36&12=45&15=48&16=51&26=57&29=68&30=74&31=80&32=86&49=92&51=101'