from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/record.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_class_attributes = l_0_imports = l_0_module_constants = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    pass
    def macro():
        t_1 = []
        l_1_record_type = resolve('record_type')
        pass
        t_1.extend((
            'Supervised flow matching on typed ``',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            '`` records.',
        ))
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
            'Supervised flow matching over typed records, one full finite loader per epoch.',
        )
        return concat(t_3)
    context.exported_vars.add('class_doc')
    context.vars['class_doc'] = l_0_class_doc = Macro(environment, macro, 'class_doc', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_4 = []
        pass
        return concat(t_4)
    context.exported_vars.add('class_attributes')
    context.vars['class_attributes'] = l_0_class_attributes = Macro(environment, macro, 'class_attributes', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        l_1_contract = resolve('contract')
        l_1_ownership = resolve('ownership')
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_5.extend((
            'import json\nfrom collections import defaultdict\nfrom collections.abc import Mapping\nfrom dataclasses import dataclass, field\nfrom types import MappingProxyType\nfrom typing import Any, ClassVar, Literal\n\nimport torch\nfrom torch.utils.data import DataLoader\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\nfrom ...data_utils.offline_dataset import DecodedMedia, DemonstrationOutputBatch, OfflineBatch\nfrom ...data_utils.offline_train_data import build_offline_train_dataloader\nfrom ...data_utils.schema import MediaAsset\n',
        ))
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_5.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_5.append(
            'from ...samples import LatentState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import (\n    build_noised_output_state,\n    flow_matching_per_sample_loss,\n    sample_offline_timesteps,\n)\nfrom ..common.offline_batch import bind_prepared_condition_output, move_condition_to_device\nfrom ..common.state_validation import ',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_5.append(
                'require_latent_state, ',
            )
        t_5.append(
            'state_batch_size\nfrom ..forward_process import forward_velocity_state\n',
        )
        return concat(t_5)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        l_1_record_type = resolve('record_type')
        l_1_key = resolve('key')
        pass
        t_6.extend((
            '\n\n@dataclass(frozen=True)\nclass ',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            ':\n    """One typed, model-neutral training record: one row of a demonstration batch.\n\n    Record type of the ``',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            '`` algorithm.\n\n    :meth:`from_batch` builds one record per row of an ``OfflineBatch`` from the fields the\n    offline loader carries for it (record id, source, normalised model input, metadata JSON and\n    the decoded target media). Nothing model-specific lives here: the adapter turns the batch\'s\n    cached condition and the target media into model inputs and latents. Add fields (and their\n    checks in ``__post_init__``) to give the objective more typed structure.\n\n    Attributes:\n        record_id: The loader\'s identifier of the record.\n        source: Name of the dataset source the record came from.\n        prompt: Conditioning prompt text.\n        target_media: The decoded target media, in record order (at least one).\n        negative_prompt: Optional negative prompt.\n        input_media: Optional conditioning media (normalised references, not decoded).\n        metadata: The record\'s free-form JSON metadata (read-only).\n    """\n\n    record_id: str\n    source: str\n    prompt: str\n    target_media: tuple[DecodedMedia, ...]\n    negative_prompt: str | None = None\n    input_media: tuple[MediaAsset, ...] = ()\n    metadata: Mapping[str, Any] = field(default_factory=dict)\n\n    def __post_init__(self) -> None:\n        """Validate the typed fields; freeze the media tuples and the metadata."""\n        name = type(self).__name__\n        for attribute in ("record_id", "source"):\n            value = getattr(self, attribute)\n            if not isinstance(value, str) or not value:\n                raise ValueError(f"{name}.{attribute} must be a non-empty str, received {value!r}")\n        if not isinstance(self.prompt, str):\n            raise TypeError(f"{name}.prompt must be a str, received {type(self.prompt).__name__}")\n        if self.negative_prompt is not None and not isinstance(self.negative_prompt, str):\n            raise TypeError(\n                f"{name}.negative_prompt must be a str or None, "\n                f"received {type(self.negative_prompt).__name__}"\n            )\n        target_media = tuple(self.target_media)\n        if not target_media:\n            raise ValueError(\n                f"{name} {self.record_id!r} needs at least one target media, received none"\n            )\n        for index, media in enumerate(target_media):\n            if not isinstance(media, DecodedMedia):\n                raise TypeError(\n                    f"{name}.target_media[{index}] must be a DecodedMedia, "\n                    f"received {type(media).__name__}"\n                )\n        if not isinstance(self.metadata, Mapping):\n            raise TypeError(\n                f"{name}.metadata must be a mapping, received {type(self.metadata).__name__}"\n            )\n        object.__setattr__(self, "target_media", target_media)\n        object.__setattr__(self, "input_media", tuple(self.input_media))\n        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))\n\n    @classmethod\n    def from_batch(cls, batch: OfflineBatch) -> tuple["',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            '", ...]:\n        """Build the typed records of one demonstration batch, one per row.\n\n        Args:\n            batch: One ``OfflineBatch`` of the finite demonstration loader.\n\n        Returns:\n            The records in batch order.\n        """\n        if not isinstance(batch, OfflineBatch):\n            raise TypeError(f"expected an OfflineBatch, received {type(batch).__name__}")\n        if batch.supervision_type != "demonstration" or not isinstance(\n            batch.output, DemonstrationOutputBatch\n        ):\n            raise TypeError(\n                "expected ',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            ' (demonstration) batches, received "\n                f"{batch.supervision_type!r} / {type(batch.output).__name__}"\n            )\n        columns = {\n            "record_ids": batch.record_ids,\n            "sources": batch.sources,\n            "model_inputs": batch.model_inputs,\n            "metadata_json": batch.metadata_json,\n            "target_media": batch.output.target_media,\n        }\n        sizes = {column: len(values) for column, values in columns.items()}\n        if len(set(sizes.values())) != 1:\n            raise ValueError(f"the batch columns disagree in length: {sizes}")\n        return tuple(\n            cls(\n                record_id=record_id,\n                source=source,\n                prompt=model_input.prompt,\n                target_media=tuple(target_media),\n                negative_prompt=model_input.negative_prompt,\n                input_media=tuple(model_input.media),\n                metadata=json.loads(metadata_json),\n            )\n            for record_id, source, model_input, metadata_json, target_media in zip(\n                *columns.values(), strict=True\n            )\n        )\n',
        ))
        return concat(t_6)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        pass
        return concat(t_7)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        l_1_record_type = resolve('record_type')
        pass
        t_8.extend((
            '\n    def _build_train_dataloader(self) -> tuple[DataLoader, dict[str, DataLoader]]:\n        """Build the finite demonstration loader (``DistributedSampler``, ``OfflineBatch``).\n\n        Every batch is read through the typed ``',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            '`` view in ``optimize_batch``\n        (``',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            '.from_batch``). Pass ``media_decoders=`` here for target media the\n        default decoders do not read.\n\n        Returns:\n            The training loader and an empty mapping of evaluation loaders.\n        """\n        loader = build_offline_train_dataloader(\n            config=self.config,\n            accelerator=self.accelerator,\n            preprocess_func=self.adapter.preprocess_func,\n            supervision_type="demonstration",\n            pipeline_io_contract=self.adapter.effective_pipeline_io_contract,\n        )\n        return loader, {}\n\n',
        ))
        template = environment.get_template('algorithm/families/_flow_matching_batch.jinja', 'algorithm/families/record.py.jinja')
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
        l_1_record_type = resolve('record_type')
        pass
        t_9.extend((
            '\n\ndef _require_demonstration_batch(batch: Any) -> DemonstrationOutputBatch:\n    """Validate ``batch`` through its typed records; return the target outputs they carry."""\n    records = ',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            '.from_batch(batch)\n    return DemonstrationOutputBatch(target_media=tuple(record.target_media for record in records))\n',
        ))
        return concat(t_9)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '2=12&3=24&4=30&5=39&6=45&17=54&21=57&22=60&32=66&35=77&39=84&42=86&102=88&117=90&145=96&146=102&151=108&152=110&167=113&169=122&174=128'