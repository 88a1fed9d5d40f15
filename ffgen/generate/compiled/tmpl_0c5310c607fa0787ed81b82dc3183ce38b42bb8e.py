from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/opd.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_teacher_loader = resolve('teacher_loader')
    l_0_use_helper = l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_class_attributes = l_0_module_constants = l_0_imports = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    pass
    l_0_use_helper = ((undefined(name='teacher_loader') if l_0_teacher_loader is missing else l_0_teacher_loader) == 'helper')
    context.vars['use_helper'] = l_0_use_helper
    context.exported_vars.add('use_helper')
    def macro():
        t_1 = []
        pass
        t_1.append(
            'On-policy distillation from a frozen teacher snapshot.',
        )
        return concat(t_1)
    context.exported_vars.add('summary')
    context.vars['summary'] = l_0_summary = Macro(environment, macro, 'summary', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_2 = []
        pass
        t_2.append(
            'yes',
        )
        return concat(t_2)
    context.exported_vars.add('defines_snapshots')
    context.vars['defines_snapshots'] = l_0_defines_snapshots = Macro(environment, macro, 'defines_snapshots', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_3 = []
        pass
        t_3.append(
            'On-policy distillation: the student regresses a frozen teacher on its own samples.',
        )
        return concat(t_3)
    context.exported_vars.add('class_doc')
    context.vars['class_doc'] = l_0_class_doc = Macro(environment, macro, 'class_doc', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_4 = []
        pass
        t_4.append(
            '    runtime_child_names: ClassVar[tuple[str, ...]] = (TEACHER_SNAPSHOT,)\n',
        )
        return concat(t_4)
    context.exported_vars.add('class_attributes')
    context.vars['class_attributes'] = l_0_class_attributes = Macro(environment, macro, 'class_attributes', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        pass
        t_5.append(
            '\n# Named temporal snapshot holding the frozen teacher (also its checkpoint child name).\nTEACHER_SNAPSHOT = "teacher"\n',
        )
        return concat(t_5)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        l_1_contract = resolve('contract')
        l_1_ownership = resolve('ownership')
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_6.extend((
            'from collections import defaultdict\nfrom typing import Any, ClassVar, Literal\n\nimport torch\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\n',
        ))
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_6.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_6.append(
            'from ...samples import BaseSample, LatentState, NoisedState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import build_noised_output_state, flow_matching_per_sample_loss\nfrom ..common.state_validation import ',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_6.append(
                'require_latent_state, ',
            )
        t_6.append(
            'state_batch_size\n',
        )
        if (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper):
            pass
            t_6.append(
                'from ..distillation.opd.common import load_teachers\n',
            )
        t_6.append(
            'from ..forward_process import forward_velocity_state\n',
        )
        return concat(t_6)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        pass
        t_7.append(
            "        # What ``BaseTrainer._sample_timesteps`` reads (as Flow-Factory's NFT/AWM set them).\n        args = self.training_args\n        self.time_sampling_strategy = args.time_sampling_strategy\n        self.num_train_timesteps = args.num_train_timesteps\n        self.timestep_range = args.timestep_range\n        self.time_shift = args.time_shift\n",
        )
        return concat(t_7)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        l_1_key = resolve('key')
        pass
        t_8.append(
            '\n    def _initialize_snapshots(self) -> None:\n        """Realise the frozen teacher as a named snapshot and register it for checkpoints.\n\n        An exact (``state``) resume creates a placeholder of the right shape instead: the\n        checkpoint restores the teacher, so its external weights are never loaded then.\n        """\n        super()._initialize_snapshots()\n        args = self.training_args\n        if self.model_args.resume_path and self.model_args.resume_type == "state":\n            self.adapter.add_named_parameters(\n                TEACHER_SNAPSHOT,\n                target_components=self._teacher_components(),\n                device=self._teacher_device(),\n                overwrite=True,\n            )\n        else:\n',
        )
        if (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper):
            pass
            t_8.append(
                '            load_teachers(\n                self.adapter, [args.teacher_path], args.teacher_param_device, [TEACHER_SNAPSHOT]\n            )\n',
            )
        else:
            pass
            t_8.append(
                '            self._load_teacher(args.teacher_path)\n',
            )
        t_8.append(
            '        self._register_named_parameter_runtime_child(TEACHER_SNAPSHOT)\n\n    def _teacher_components(self) -> list[str] | None:\n        """Components with LoRA targets (a LoRA teacher); None means every trainable weight."""\n        targets = [name for name, modules in self.adapter.target_module_map.items() if modules]\n        return targets or None\n\n    def _teacher_device(self) -> torch.device:\n        """Where the teacher snapshot lives (``train.teacher_param_device``)."""\n        if self.training_args.teacher_param_device == "cuda":\n            return self.accelerator.device\n        return torch.device("cpu")\n',
        )
        if (not (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper)):
            pass
            t_8.append(
                '\n    def _load_teacher(self, path: str) -> None:\n        """Load the teacher weights into the live trainable slot, snapshot them, restore the\n        student (the snapshot copies the current weights, so the teacher must be live first).\n\n        Args:\n            path: Teacher checkpoint: LoRA weights for a LoRA run, full weights otherwise.\n        """\n        adapter = self.adapter\n        live = list(adapter.get_trainable_parameters())\n        student = [param.detach().clone() for param in live]\n        try:\n            resolved = adapter._resolve_checkpoint_path(path)\n            if self.model_args.finetune_type == "lora":\n                adapter._load_lora(resolved)\n            else:\n                adapter._load_full_model(resolved)\n            adapter.add_named_parameters(\n                TEACHER_SNAPSHOT,\n                target_components=self._teacher_components(),\n                device=self._teacher_device(),\n                overwrite=True,\n            )\n        finally:\n            # The student\'s own weights come back whatever happened while the teacher was live.\n            with torch.no_grad():\n                for param, saved in zip(live, student, strict=True):\n                    param.data.copy_(saved.to(param.device))\n',
            )
        t_8.append(
            '\n    def sample(self) -> list[BaseSample]:\n        """Roll out the student\'s final samples; no reward buffer (the contract has no feedback).\n\n        Returns:\n            The generated samples, each keeping only its final clean latent.\n        """\n        return self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])\n\n',
        )
        template = environment.get_template('algorithm/families/_renoise_optimize.jinja', 'algorithm/families/opd.py.jinja')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'class_attributes': l_0_class_attributes, 'class_doc': l_0_class_doc, 'defines_snapshots': l_0_defines_snapshots, 'hooks': l_0_hooks, 'imports': l_0_imports, 'init_body': l_0_init_body, 'module_constants': l_0_module_constants, 'module_helpers': l_0_module_helpers, 'summary': l_0_summary, 'use_helper': l_0_use_helper}))
        try:
            for event in gen:
                t_8.append(event)
        finally: gen.close()
        t_8.extend((
            '\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self, batch: dict[str, Any], clean_state: LatentState, primary_timesteps: torch.Tensor\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Regress the student\'s velocity onto the frozen teacher\'s on student-generated states.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            clean_state: The student\'s final samples.\n            primary_timesteps: ``(B,)`` timesteps the samples are re-noised to.\n\n        Returns:\n            The scalar student-teacher velocity gap and extra metrics to log.\n        """\n        times, noised = build_noised_output_state(\n            self.adapter, clean_state, primary_timesteps, batch=batch\n        )\n        with (\n            torch.no_grad(),\n            self.adapter.use_named_parameters(TEACHER_SNAPSHOT),\n            self.autocast(),\n        ):\n            teacher_velocity = forward_velocity_state(\n                self,\n                batch,\n                noised.state,\n                times,\n                source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' teacher",\n                **self._teacher_forward_overrides(),\n            )\n        with self.autocast():\n            student_velocity = forward_velocity_state(\n                self,\n                batch,\n                noised.state,\n                times,\n                source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' student",\n            )\n        teacher_target = NoisedState(\n            state=noised.state, target_velocity=_detached(teacher_velocity), noise=noised.noise\n        )\n        gap = flow_matching_per_sample_loss(self.adapter, student_velocity, teacher_target)\n        loss = gap.mean()\n        return loss, {"teacher_gap": loss.detach()}\n\n    # --- objective: end -------------------------------------------------------------------------\n\n    def _teacher_forward_overrides(self) -> dict[str, float]:\n        """The teacher\'s CFG scale when ``objective_guidance_scale`` is set."""\n        scale = self.training_args.objective_guidance_scale\n        return {} if scale is None else {"guidance_scale": float(scale)}\n',
        ))
        return concat(t_8)
    context.exported_vars.add('hooks')
    context.vars['hooks'] = l_0_hooks = Macro(environment, macro, 'hooks', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        pass
        t_9.append(
            '\n\ndef _detached(state: LatentState) -> LatentState:\n    """The same components, cut from the graph (a ``LatentState`` has no ``detach``)."""\n    return LatentState({name: value.detach() for name, value in state.components.items()})\n',
        )
        return concat(t_9)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '2=13&3=16&4=25&5=34&6=43&9=52&14=61&20=70&21=73&22=76&27=82&28=90&33=101&41=110&59=117&78=130&117=138&146=146&155=148&171=154'