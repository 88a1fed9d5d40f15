from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/record.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_class_attributes = l_0_imports = l_0_module_constants = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    try:
        t_1 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    pass
    def macro():
        t_2 = []
        l_1_direction = resolve('direction')
        l_1_record_type = resolve('record_type')
        pass
        if (undefined(name='direction') if l_1_direction is missing else l_1_direction):
            pass
            t_2.extend((
                'KTO-like objective on typed ``',
                str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
                '`` records against a frozen reference:\na desirable record (``',
                str((undefined(name='direction') if l_1_direction is missing else l_1_direction)),
                '``) is pulled toward its target, an undesirable one pushed away.',
            ))
        else:
            pass
            t_2.extend((
                'Flow matching on the targets of typed ``',
                str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
                '`` records.',
            ))
        return concat(t_2)
    context.exported_vars.add('summary')
    context.vars['summary'] = l_0_summary = Macro(environment, macro, 'summary', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_3 = []
        pass
        return concat(t_3)
    context.exported_vars.add('defines_snapshots')
    context.vars['defines_snapshots'] = l_0_defines_snapshots = Macro(environment, macro, 'defines_snapshots', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_4 = []
        l_1_direction = resolve('direction')
        pass
        if (undefined(name='direction') if l_1_direction is missing else l_1_direction):
            pass
            t_4.append(
                'KTO-like objective on typed records against a frozen reference; a full loader per epoch.',
            )
        else:
            pass
            t_4.append(
                'Flow matching over typed records, one full finite loader per epoch.',
            )
        return concat(t_4)
    context.exported_vars.add('class_doc')
    context.vars['class_doc'] = l_0_class_doc = Macro(environment, macro, 'class_doc', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        pass
        return concat(t_5)
    context.exported_vars.add('class_attributes')
    context.vars['class_attributes'] = l_0_class_attributes = Macro(environment, macro, 'class_attributes', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        l_1_contract = resolve('contract')
        l_1_ownership = resolve('ownership')
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_6.extend((
            'import json\nfrom collections import defaultdict\nfrom collections.abc import Mapping\nfrom dataclasses import dataclass, field\nfrom types import MappingProxyType\nfrom typing import Any, ClassVar, Literal\n\nimport torch\nfrom torch.utils.data import DataLoader\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\nfrom ...data_utils.offline_dataset import DecodedMedia, DemonstrationOutputBatch, OfflineBatch\nfrom ...data_utils.offline_train_data import build_offline_train_dataloader\nfrom ...data_utils.schema import MediaAsset\n',
        ))
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_6.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_6.append(
            'from ...samples import LatentState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import (\n    build_noised_output_state,\n    flow_matching_per_sample_loss,\n    sample_offline_timesteps,\n)\nfrom ..common.offline_batch import bind_prepared_condition_output, move_condition_to_device\nfrom ..common.state_validation import ',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_6.append(
                'require_latent_state, ',
            )
        t_6.append(
            'state_batch_size\nfrom ..forward_process import forward_velocity_state\n',
        )
        return concat(t_6)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        l_1_record_fields = resolve('record_fields')
        l_1_record_type = resolve('record_type')
        l_1_key = resolve('key')
        l_1_dtypes = l_1_signature = missing
        pass
        l_1_dtypes = {'bool': 'torch.bool', 'int': 'torch.long', 'float': 'torch.float32'}
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_7.append(
                "\n# The record's declared fields and their types, each read from a row's metadata under its name.\n",
            )
            if (t_1((undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields)) == 1):
                pass
                t_7.extend((
                    '_RECORD_FIELDS = (("',
                    str(environment.getitem(environment.getitem((undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields), 0), 0)),
                    '", ',
                    str(environment.getitem(environment.getitem((undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields), 0), 1)),
                    '),)\n',
                ))
            else:
                pass
                t_7.append(
                    '_RECORD_FIELDS = (\n',
                )
                for (l_2_name, l_2_kind) in (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
                    _loop_vars = {}
                    pass
                    t_7.extend((
                        '    ("',
                        str(l_2_name),
                        '", ',
                        str(l_2_kind),
                        '),\n',
                    ))
                l_2_name = l_2_kind = missing
                t_7.append(
                    ')\n',
                )
            t_7.append(
                '# The tensor type of each declared field type (a str field stays a tuple of texts).\n_FIELD_DTYPES = {bool: torch.bool, int: torch.long, float: torch.float32}\n',
            )
        t_7.extend((
            '\n\n@dataclass(frozen=True)\nclass ',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            ':\n    """One typed, model-neutral training record: one row of a demonstration batch.\n\n    Record type of the ``',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            "`` algorithm.\n\n    :meth:`from_batch` builds one record per row of an ``OfflineBatch`` from the fields the\n    offline loader carries for it (record id, source, normalised model input, metadata JSON and\n    the decoded target media). Nothing model-specific lives here: the adapter turns the batch's\n    cached condition and the target media into model inputs and latents.",
        ))
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_7.append(
                " The declared fields\n    are read from the record's metadata under their own names.",
            )
        else:
            pass
            t_7.extend((
                " Declare typed fields\n    with ``--supervision 'record:",
                str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
                "(label:bool)'`` to give the objective more\n    structure.",
            ))
        t_7.append(
            "\n\n    Attributes:\n        record_id: The loader's identifier of the record.\n        source: Name of the dataset source the record came from.\n        prompt: Conditioning prompt text.\n        target_media: The decoded target media, in record order (at least one).\n",
        )
        for (l_2_name, l_2_kind) in (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            l_2_direction = resolve('direction')
            _loop_vars = {}
            pass
            t_7.extend((
                '        ',
                str(l_2_name),
                ": The record's ``",
                str(l_2_name),
                '`` (',
                str(l_2_kind),
            ))
            if (l_2_name == (undefined(name='direction') if l_2_direction is missing else l_2_direction)):
                pass
                t_7.append(
                    '; the direction: True for a desirable record',
                )
            t_7.append(
                ').\n',
            )
        l_2_name = l_2_kind = l_2_direction = missing
        t_7.append(
            '        negative_prompt: Optional negative prompt.\n        input_media: Optional conditioning media (normalised references, not decoded).\n        metadata: The record\'s free-form JSON metadata (read-only).\n    """\n\n    record_id: str\n    source: str\n    prompt: str\n    target_media: tuple[DecodedMedia, ...]\n',
        )
        for (l_2_name, l_2_kind) in (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            _loop_vars = {}
            pass
            t_7.extend((
                '    ',
                str(l_2_name),
                ': ',
                str(l_2_kind),
                '\n',
            ))
        l_2_name = l_2_kind = missing
        t_7.append(
            '    negative_prompt: str | None = None\n    input_media: tuple[MediaAsset, ...] = ()\n    metadata: Mapping[str, Any] = field(default_factory=dict)\n\n    def __post_init__(self) -> None:\n        """Validate the typed fields; freeze the media tuples and the metadata."""\n        name = type(self).__name__\n        for attribute in ("record_id", "source"):\n            value = getattr(self, attribute)\n            if not isinstance(value, str) or not value:\n                raise ValueError(f"{name}.{attribute} must be a non-empty str, received {value!r}")\n        if not isinstance(self.prompt, str):\n            raise TypeError(f"{name}.prompt must be a str, received {type(self.prompt).__name__}")\n        if self.negative_prompt is not None and not isinstance(self.negative_prompt, str):\n            raise TypeError(\n                f"{name}.negative_prompt must be a str or None, "\n                f"received {type(self.negative_prompt).__name__}"\n            )\n        target_media = tuple(self.target_media)\n        if not target_media:\n            raise ValueError(\n                f"{name} {self.record_id!r} needs at least one target media, received none"\n            )\n        for index, media in enumerate(target_media):\n            if not isinstance(media, DecodedMedia):\n                raise TypeError(\n                    f"{name}.target_media[{index}] must be a DecodedMedia, "\n                    f"received {type(media).__name__}"\n                )\n',
        )
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_7.append(
                '        for attribute, kind in _RECORD_FIELDS:\n            value = _typed_field(getattr(self, attribute), kind, f"{name}.{attribute}")\n            object.__setattr__(self, attribute, value)\n',
            )
        t_7.extend((
            '        if not isinstance(self.metadata, Mapping):\n            raise TypeError(\n                f"{name}.metadata must be a mapping, received {type(self.metadata).__name__}"\n            )\n        object.__setattr__(self, "target_media", target_media)\n        object.__setattr__(self, "input_media", tuple(self.input_media))\n        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))\n\n    @classmethod\n    def from_batch(cls, batch: OfflineBatch) -> tuple["',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            '", ...]:\n        """Build the typed records of one demonstration batch, one per row.\n\n        Args:\n            batch: One ``OfflineBatch`` of the finite demonstration loader.\n\n        Returns:\n            The records in batch order.\n        """\n        if not isinstance(batch, OfflineBatch):\n            raise TypeError(f"expected an OfflineBatch, received {type(batch).__name__}")\n        if batch.supervision_type != "demonstration" or not isinstance(\n            batch.output, DemonstrationOutputBatch\n        ):\n            raise TypeError(\n                "expected ',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            ' (demonstration) batches, received "\n                f"{batch.supervision_type!r} / {type(batch.output).__name__}"\n            )\n        columns = {\n            "record_ids": batch.record_ids,\n            "sources": batch.sources,\n            "model_inputs": batch.model_inputs,\n            "metadata_json": batch.metadata_json,\n            "target_media": batch.output.target_media,\n        }\n        sizes = {column: len(values) for column, values in columns.items()}\n        if len(set(sizes.values())) != 1:\n            raise ValueError(f"the batch columns disagree in length: {sizes}")\n        records = []\n        for record_id, source, model_input, metadata_json, target_media in zip(\n            *columns.values(), strict=True\n        ):\n            metadata = json.loads(metadata_json)\n            records.append(\n                cls(\n                    record_id=record_id,\n                    source=source,\n                    prompt=model_input.prompt,\n                    target_media=tuple(target_media),\n',
        ))
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_7.append(
                '                    **_declared_fields(_RECORD_FIELDS, metadata, record_id),\n',
            )
        t_7.extend((
            '                    negative_prompt=model_input.negative_prompt,\n                    input_media=tuple(model_input.media),\n                    metadata=metadata,\n                )\n            )\n        return tuple(records)\n\n\n@dataclass(frozen=True)\nclass ',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            'Batch:\n    """The typed records of one batch, each declared field as one value per row.\n\n    What the objective receives: ',
        ))
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_7.extend((
                '``records.',
                str(environment.getitem(environment.getitem((undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields), 0), 0)),
                "`` is the\n    batch's ``",
                str(environment.getitem(environment.getitem((undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields), 0), 0)),
                '``, ',
            ))
        t_7.append(
            "``records.records`` the records themselves.\n\n    Attributes:\n        records: The batch's records, in batch order.\n",
        )
        for (l_2_name, l_2_kind) in (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            l_2_direction = resolve('direction')
            _loop_vars = {}
            pass
            if (l_2_kind == 'str'):
                pass
                t_7.extend((
                    '        ',
                    str(l_2_name),
                    ": The records' ``",
                    str(l_2_name),
                    '``, one text per row.\n',
                ))
            else:
                pass
                t_7.extend((
                    '        ',
                    str(l_2_name),
                    ': ``(B,)`` ',
                    str(environment.getitem((undefined(name='dtypes') if l_1_dtypes is missing else l_1_dtypes), l_2_kind)),
                    " tensor of the records' ``",
                    str(l_2_name),
                    '``',
                ))
                if (l_2_name == (undefined(name='direction') if l_2_direction is missing else l_2_direction)):
                    pass
                    t_7.append(
                        ' (True: desirable)',
                    )
                t_7.append(
                    '.\n',
                )
        l_2_name = l_2_kind = l_2_direction = missing
        t_7.extend((
            '    """\n\n    records: tuple[',
            str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
            ', ...]\n',
        ))
        for (l_2_name, l_2_kind) in (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            _loop_vars = {}
            pass
            t_7.extend((
                '    ',
                str(l_2_name),
                ': ',
                str(('tuple[str, ...]' if (l_2_kind == 'str') else 'torch.Tensor')),
                '\n',
            ))
        l_2_name = l_2_kind = missing
        t_7.append(
            '\n    @classmethod\n',
        )
        l_1_signature = str_join(('    def from_records(cls, records: tuple[', (undefined(name='record_type') if l_1_record_type is missing else l_1_record_type), ', ...], device: torch.device) -> "', (undefined(name='record_type') if l_1_record_type is missing else l_1_record_type), 'Batch":', ))
        if (t_1((undefined(name='signature') if l_1_signature is missing else l_1_signature)) <= 100):
            pass
            t_7.extend((
                str((undefined(name='signature') if l_1_signature is missing else l_1_signature)),
                '\n',
            ))
        else:
            pass
            t_7.extend((
                '    def from_records(\n        cls, records: tuple[',
                str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
                ', ...], device: torch.device\n    ) -> "',
                str((undefined(name='record_type') if l_1_record_type is missing else l_1_record_type)),
                'Batch":\n',
            ))
        t_7.append(
            '        """Stack the records\' declared fields into batch values on ``device``.\n\n        Args:\n            records: The typed records of one batch.\n            device: Where the field tensors live (the training device).\n\n        Returns:\n            The batch view the objective reads.\n        """\n',
        )
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_7.append(
                '        values: dict[str, Any] = {}\n        for attribute, kind in _RECORD_FIELDS:\n            column = [getattr(record, attribute) for record in records]\n            if kind is str:\n                values[attribute] = tuple(column)\n            else:\n                values[attribute] = torch.tensor(column, dtype=_FIELD_DTYPES[kind], device=device)\n        return cls(records=records, **values)\n',
            )
        else:
            pass
            t_7.append(
                '        del device  # no declared fields: nothing to stack\n        return cls(records=records)\n',
            )
        return concat(t_7)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        pass
        return concat(t_8)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        l_1_record_type = resolve('record_type')
        pass
        t_9.extend((
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
                t_9.append(event)
        finally: gen.close()
        return concat(t_9)
    context.exported_vars.add('hooks')
    context.vars['hooks'] = l_0_hooks = Macro(environment, macro, 'hooks', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_10 = []
        l_1_record_fields = resolve('record_fields')
        pass
        if (undefined(name='record_fields') if l_1_record_fields is missing else l_1_record_fields):
            pass
            t_10.append(
                '\n\ndef _declared_fields(\n    fields: tuple[tuple[str, type], ...], metadata: Any, record_id: str\n) -> dict[str, Any]:\n    """The declared fields of one record, from its metadata JSON; refused when one is missing."""\n    names = [name for name, _ in fields]\n    missing = [n for n in names if not isinstance(metadata, Mapping) or n not in metadata]\n    if missing:\n        raise ValueError(\n            f"record {record_id!r} has no {\', \'.join(missing)} in its metadata; every row needs "\n            f"the declared fields {\', \'.join(names)}"\n        )\n    return {name: metadata[name] for name in names}\n\n\ndef _typed_field(value: Any, kind: type, what: str) -> Any:\n    """``value`` as the declared ``kind`` (an int is a float too; a bool is no number)."""\n    if kind is float and isinstance(value, int) and not isinstance(value, bool):\n        value = float(value)\n    if isinstance(value, bool) is not (kind is bool) or not isinstance(value, kind):\n        raise TypeError(f"{what} must be a {kind.__name__}, received {type(value).__name__}")\n    return value\n',
            )
        return concat(t_10)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '4=18&5=29&6=42&7=48&8=65&9=71&20=80&24=83&25=86&35=92&38=103&39=110&40=111&43=116&44=120&47=130&48=135&58=149&61=151&66=154&68=163&77=169&78=175&89=193&90=198&121=207&135=214&150=216&174=219&186=226&189=229&190=235&194=241&195=245&196=249&198=258&203=276&204=279&205=284&209=293&210=294&211=297&214=304&215=306&226=312&240=325&241=331&246=337&247=339&262=342&264=351&265=355'