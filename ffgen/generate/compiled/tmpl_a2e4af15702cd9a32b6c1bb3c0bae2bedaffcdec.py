from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/dmd.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_teacher_loader = resolve('teacher_loader')
    l_0_roles = resolve('roles')
    l_0_use_helper = l_0_generator = l_0_critic = l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_class_attributes = l_0_module_constants = l_0_imports = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    try:
        t_1 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    pass
    l_0_use_helper = ((undefined(name='teacher_loader') if l_0_teacher_loader is missing else l_0_teacher_loader) == 'helper')
    context.vars['use_helper'] = l_0_use_helper
    context.exported_vars.add('use_helper')
    l_0_generator = environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 0)
    context.vars['generator'] = l_0_generator
    context.exported_vars.add('generator')
    l_0_critic = environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 1)
    context.vars['critic'] = l_0_critic
    context.exported_vars.add('critic')
    def macro():
        t_2 = []
        pass
        t_2.extend((
            'Distribution-matching distillation with two live roles: ``',
            str((undefined(name='generator') if l_0_generator is missing else l_0_generator)),
            '`` is\ndistilled against the fake-score critic ``',
            str((undefined(name='critic') if l_0_critic is missing else l_0_critic)),
            '``, which learns from its samples.',
        ))
        return concat(t_2)
    context.exported_vars.add('summary')
    context.vars['summary'] = l_0_summary = Macro(environment, macro, 'summary', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_3 = []
        pass
        t_3.append(
            'yes',
        )
        return concat(t_3)
    context.exported_vars.add('defines_snapshots')
    context.vars['defines_snapshots'] = l_0_defines_snapshots = Macro(environment, macro, 'defines_snapshots', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_4 = []
        pass
        t_4.extend((
            'Distill ``',
            str((undefined(name='generator') if l_0_generator is missing else l_0_generator)),
            "`` against a fake-score critic trained on its samples.\n\n    Each training step rolls out the generator once, then runs the role plan\n    (``training_args.role_update_plan()``): every phase is one optimizer step of one role, taken\n    through the framework's ``RoleOptimizationCoordinator`` with every forward of that role under\n    ``adapter.use_component_variant(role)``. The critic (``",
            str((undefined(name='critic') if l_0_critic is missing else l_0_critic)),
            '``',
        ))
        if (t_1((undefined(name='roles') if l_0_roles is missing else l_0_roles)) > 2):
            pass
            t_4.append(
                ' and every later role',
            )
        t_4.append(
            ")\n    regresses the flow-matching target on the generator's samples; the generator moves its clean\n    predictions along ``critic - teacher``, the frozen teacher being a temporal snapshot.",
        )
        return concat(t_4)
    context.exported_vars.add('class_doc')
    context.vars['class_doc'] = l_0_class_doc = Macro(environment, macro, 'class_doc', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        pass
        t_5.append(
            "    # Only the teacher snapshot is the algorithm's own: the roles are checkpointed by the\n    # framework's multirole child.\n    runtime_child_names: ClassVar[tuple[str, ...]] = (TEACHER_SNAPSHOT,)\n",
        )
        return concat(t_5)
    context.exported_vars.add('class_attributes')
    context.vars['class_attributes'] = l_0_class_attributes = Macro(environment, macro, 'class_attributes', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        pass
        t_6.extend((
            '\n# The role distilled (the primary role: its optimizer steps are ``self.step``) and the critic\n# whose fake score it is distilled against; both are live component variants.\nGENERATOR_ROLE = "',
            str((undefined(name='generator') if l_0_generator is missing else l_0_generator)),
            '"\nCRITIC_ROLE = "',
            str((undefined(name='critic') if l_0_critic is missing else l_0_critic)),
            '"\n# Named temporal snapshot holding the frozen teacher (the real score; its checkpoint child).\nTEACHER_SNAPSHOT = "teacher"\n',
        ))
        return concat(t_6)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        l_1_contract = resolve('contract')
        l_1_ownership = resolve('ownership')
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_7.extend((
            'from collections import defaultdict\nfrom typing import Any, ClassVar, Literal\n\nimport torch\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\n',
        ))
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_7.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_7.append(
            'from ...samples import BaseSample, LatentState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import build_noised_output_state, flow_matching_per_sample_loss\nfrom ..common.state_validation import ',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_7.append(
                'require_latent_state, ',
            )
        t_7.append(
            'state_batch_size\n',
        )
        if (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper):
            pass
            t_7.append(
                'from ..distillation.opd.common import load_teachers\n',
            )
        t_7.append(
            'from ..forward_process import forward_velocity_state\n',
        )
        return concat(t_7)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        pass
        t_8.append(
            "        # What ``BaseTrainer._sample_timesteps`` reads (as Flow-Factory's NFT/AWM set them).\n        args = self.training_args\n        self.time_sampling_strategy = args.time_sampling_strategy\n        self.num_train_timesteps = args.num_train_timesteps\n        self.timestep_range = args.timestep_range\n        self.time_shift = args.time_shift\n",
        )
        return concat(t_8)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        l_1_state = resolve('state')
        l_1_key = resolve('key')
        pass
        t_9.append(
            '\n    def _initialize_snapshots(self) -> None:\n        """Realise the frozen teacher as a named snapshot and register it for checkpoints.\n\n        An exact (``state``) resume creates a placeholder of the right shape instead: the\n        checkpoint restores the teacher, so its external weights are never loaded then.\n        """\n        super()._initialize_snapshots()\n        args = self.training_args\n        if self.model_args.resume_path and self.model_args.resume_type == "state":\n            self.adapter.add_named_parameters(\n                TEACHER_SNAPSHOT,\n                target_components=self._teacher_components(),\n                device=self._teacher_device(),\n                overwrite=True,\n            )\n        else:\n',
        )
        if (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper):
            pass
            t_9.append(
                '            load_teachers(\n                self.adapter, [args.teacher_path], args.teacher_param_device, [TEACHER_SNAPSHOT]\n            )\n',
            )
        else:
            pass
            t_9.append(
                '            self._load_teacher(args.teacher_path)\n',
            )
        t_9.append(
            '        self._register_named_parameter_runtime_child(TEACHER_SNAPSHOT)\n\n    def _teacher_components(self) -> list[str] | None:\n        """Components with LoRA targets (a LoRA teacher); None means every trainable weight."""\n        targets = [name for name, modules in self.adapter.target_module_map.items() if modules]\n        return targets or None\n\n    def _teacher_device(self) -> torch.device:\n        """Where the teacher snapshot lives (``train.teacher_param_device``)."""\n        if self.training_args.teacher_param_device == "cuda":\n            return self.accelerator.device\n        return torch.device("cpu")\n',
        )
        if (not (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper)):
            pass
            t_9.append(
                '\n    def _load_teacher(self, path: str) -> None:\n        """Load the teacher into the live generator slot, snapshot it, restore the generator\n        (the snapshot copies the current weights, so the teacher must be live first).\n\n        Args:\n            path: Teacher checkpoint: LoRA weights for a LoRA run, full weights otherwise.\n        """\n        adapter = self.adapter\n        with adapter.use_component_variant(GENERATOR_ROLE):\n            live = list(adapter.get_trainable_parameters())\n            generator = [param.detach().clone() for param in live]\n            try:\n                resolved = adapter._resolve_checkpoint_path(path)\n                if self.model_args.finetune_type == "lora":\n                    adapter._load_lora(resolved)\n                else:\n                    adapter._load_full_model(resolved)\n                adapter.add_named_parameters(\n                    TEACHER_SNAPSHOT,\n                    target_components=self._teacher_components(),\n                    device=self._teacher_device(),\n                    overwrite=True,\n                )\n            finally:\n                # The generator\'s own weights come back whatever happened meanwhile.\n                with torch.no_grad():\n                    for param, saved in zip(live, generator, strict=True):\n                        param.data.copy_(saved.to(param.device))\n',
            )
        t_9.append(
            '\n    def sample(self) -> list[BaseSample]:\n        """Roll out the generator\'s final samples; no reward buffer (the contract has none).\n\n        Returns:\n            The generated samples, each keeping only its final clean latent.\n        """\n        with self.adapter.use_component_variant(GENERATOR_ROLE):\n            return self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])\n\n    def optimize(self, samples: list[BaseSample]) -> None:\n        """Run the role plan on this step\'s samples: each phase is one step of one role.\n\n        Args:\n            samples: The generator\'s samples of this step (final clean states only).\n        """\n        self.adapter.train()\n        units = self._role_work_items(samples)\n        for phase in self._role_update_plan().phases:\n            for _ in range(phase.repeats):\n                self._train_role(phase.role_name, units)\n\n    def _role_work_items(\n        self, samples: list[BaseSample]\n    ) -> list[tuple[Any, LatentState, torch.Tensor]]:\n        """One microbatch per (batch, timestep row): a phase\'s accumulation window.\n\n        Args:\n            samples: The generator\'s samples of this step.\n\n        Returns:\n            ``(batch, clean_state, primary_timesteps)`` triples, shared by every phase.\n        """\n        units = []\n        args = self.training_args\n        for batch in self._iter_prefetched_batches(samples, int(args.per_device_batch_size)):\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_9.extend((
                '            clean_state = self._validate_structured_state(\n                self.adapter.get_terminal_state(batch),\n                "',
                str((undefined(name='key') if l_1_key is missing else l_1_key)),
                ' generator samples",\n            )\n',
            ))
        else:
            pass
            t_9.append(
                '            clean_state = self.adapter.get_terminal_state(batch)\n',
            )
        t_9.extend((
            '            timesteps = self._sample_timesteps(\n                state_batch_size(\n                    self,\n                    clean_state,\n                    "',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' generator samples",\n                )\n            )\n            units.extend((batch, clean_state, row) for row in timesteps)\n        return units\n\n    def _train_role(\n        self, role_name: str, units: list[tuple[Any, LatentState, torch.Tensor]]\n    ) -> None:\n        """One phase of ``role_name``: its microbatches under its component variant and exactly\n        one optimizer step of its own parameter groups (the coordinator checks both).\n\n        Args:\n            role_name: The role this phase updates.\n            units: The step\'s work items (see ``_role_work_items``).\n        """\n        coordinator = self.role_optimization\n        metrics: defaultdict[str, list[torch.Tensor]] = defaultdict(list)\n        with coordinator.phase(role_name), self.adapter.use_component_variant(role_name):\n            for batch, clean_state, primary_timesteps in units:\n                with coordinator.microbatch():\n                    loss, extra = self._role_loss(role_name, batch, clean_state, primary_timesteps)\n                    # Score queries inside the loss switch variants; backward under this role.\n                    with self.adapter.use_component_variant(role_name):\n                        coordinator.backward(loss)\n                    self._finish_role_microbatch()\n                metrics[f"{role_name}_loss"].append(loss.detach())\n                for name, value in extra.items():\n                    metrics[name].append(value.detach())\n        self._log_role_step(role_name, metrics)\n\n    def _role_loss(\n        self, role_name: str, batch: Any, clean_state: LatentState, primary_timesteps: torch.Tensor\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """The generator\'s distillation loss, or a critic\'s flow-matching loss."""\n        if role_name == GENERATOR_ROLE:\n            return self._generator_loss(batch, clean_state, primary_timesteps)\n        return self._critic_loss(batch, clean_state, primary_timesteps)\n\n    # --- objective: edit here -------------------------------------------------------------------\n    def _generator_loss(\n        self, batch: Any, clean_state: LatentState, primary_timesteps: torch.Tensor\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Move the generator\'s clean prediction along ``critic - teacher`` (the DMD gradient).\n\n        The generator predicts the clean sample from a re-noised state of its own sample; the\n        prediction is re-noised once more and scored by the frozen teacher (the real score) and\n        the critic (the fake score). The loss ``0.5 * |x0 - stopgrad(x0 - (fake - real))|^2``\n        has the gradient ``fake - real`` with respect to the prediction: it falls as the critic,\n        which models the generator\'s samples, agrees with the teacher.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            clean_state: The generator\'s final samples.\n            primary_timesteps: ``(B,)`` timesteps the samples are re-noised to.\n\n        Returns:\n            The scalar generator loss and extra metrics to log.\n        """\n        adapter = self.adapter\n        times, noised = build_noised_output_state(\n            adapter, clean_state, primary_timesteps, batch=batch\n        )\n        with self.autocast():\n            velocity = forward_velocity_state(\n                self,\n                batch,\n                noised.state,\n                times,\n                source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' generator",\n            )\n        predicted = adapter.project_velocity_to_clean_state(noised.state, times, velocity)\n        score_times, scored = build_noised_output_state(\n            adapter, _detached(predicted), primary_timesteps, batch=batch\n        )\n        real = self._scored_clean_state(batch, scored.state, score_times, teacher=True)\n        fake = self._scored_clean_state(batch, scored.state, score_times, teacher=False)\n        target = LatentState(\n            {\n                name: (x - (fake.components[name] - real.components[name])).detach()\n                for name, x in predicted.components.items()\n            }\n        )\n        loss = 0.5 * _squared_error(adapter, predicted, target).mean()\n        return loss, {}\n\n    def _critic_loss(\n        self, batch: Any, clean_state: LatentState, primary_timesteps: torch.Tensor\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Flow matching on the generator\'s samples: the critic learns their (fake) score.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            clean_state: The generator\'s final samples (no gradient reaches the generator).\n            primary_timesteps: ``(B,)`` timesteps the samples are re-noised to.\n\n        Returns:\n            The scalar flow-matching loss and extra metrics to log.\n        """\n        times, noised = build_noised_output_state(\n            self.adapter, _detached(clean_state), primary_timesteps, batch=batch\n        )\n        with self.autocast():\n            velocity = forward_velocity_state(\n                self,\n                batch,\n                noised.state,\n                times,\n                source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' critic",\n            )\n        loss = flow_matching_per_sample_loss(self.adapter, velocity, noised).mean()\n        return loss, {}\n\n    # --- objective: end -------------------------------------------------------------------------\n\n    def _scored_clean_state(\n        self, batch: Any, state: LatentState, times: Any, *, teacher: bool\n    ) -> LatentState:\n        """Clean sample the teacher (real score) or the critic (fake score) sees in ``state``."""\n        adapter = self.adapter\n        if teacher:\n            weights, source = adapter.use_named_parameters(TEACHER_SNAPSHOT), "teacher"\n            overrides = self._teacher_forward_overrides()\n        else:\n            weights, source, overrides = adapter.use_component_variant(CRITIC_ROLE), "critic", {}\n        with torch.no_grad(), weights, self.autocast():\n            velocity = forward_velocity_state(\n                self,\n                batch,\n                state,\n                times,\n                source=f"',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' {source}",\n                **overrides,\n            )\n        return adapter.project_velocity_to_clean_state(state, times, velocity)\n\n    def _teacher_forward_overrides(self) -> dict[str, float]:\n        """The teacher\'s CFG scale when ``objective_guidance_scale`` is set."""\n        scale = self.training_args.objective_guidance_scale\n        return {} if scale is None else {"guidance_scale": float(scale)}\n\n    def _log_role_step(self, role_name: str, metrics: dict[str, list[torch.Tensor]]) -> None:\n        """Log one role\'s step: its mean loss and clipped gradient norm (the primary role\'s\n        loss is also ``train/loss``)."""\n        means = {\n            f"train/{name}": torch.stack(values).float().mean() for name, values in metrics.items()\n        }\n        # Not every version\'s OptimizationRole records its last clipped norm: log it only\n        # where the coordinator has it.\n        grad_norm = getattr(self.role_optimization.roles[role_name], "last_grad_norm", None)\n        if grad_norm is not None:\n            means[f"train/{role_name}_grad_norm"] = torch.tensor(float(grad_norm))\n        if role_name == GENERATOR_ROLE:\n            means["train/loss"] = means[f"train/{role_name}_loss"]\n        self.log_data(means, step=self.step)\n',
        ))
        return concat(t_9)
    context.exported_vars.add('hooks')
    context.vars['hooks'] = l_0_hooks = Macro(environment, macro, 'hooks', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_10 = []
        pass
        t_10.append(
            '\n\ndef _detached(state: LatentState) -> LatentState:\n    """The same components, cut from the graph."""\n    return LatentState({name: value.detach() for name, value in state.components.items()})\n\n\ndef _squared_error(adapter: Any, state: LatentState, target: LatentState) -> torch.Tensor:\n    """Per-sample squared error ``(B,)``, reduced over every component as flow matching does\n    (the adapter\'s reductions take a plain mapping of component name to tensor)."""\n    values = {name: (x - target.components[name]) ** 2 for name, x in state.components.items()}\n    return adapter.reduce_flow_matching_objective_values(values, state=state)\n',
        )
        return concat(t_10)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '2=20&3=23&4=26&5=29&6=36&7=42&8=51&13=58&16=72&21=81&25=86&26=88&30=94&36=103&37=106&38=109&43=115&44=123&49=134&57=143&75=151&94=164&161=172&164=176&173=186&242=188&281=190&304=192&329=198'