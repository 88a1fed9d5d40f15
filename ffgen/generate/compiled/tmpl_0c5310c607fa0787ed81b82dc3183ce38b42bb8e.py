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
            'On-policy distillation (DiffusionOPD) from a frozen teacher snapshot.',
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
            "DiffusionOPD: the student matches a frozen teacher's transitions along its own rollouts.",
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
            '\n# Named temporal snapshot holding the frozen teacher (also its checkpoint child name).\nTEACHER_SNAPSHOT = "teacher"\n# What ``forward_state`` returns for each ``loss_target``: the transition mean, or the velocity.\n_TARGET_FIELDS = {"xt": "next_state_mean", "v": "velocity", "x0": "velocity"}\n_SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")\n',
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
            'from ...samples import BaseSample, LatentState, MultiModalStepOutput, ReplayStep\nfrom ...utils.trajectory_collector import compute_trajectory_indices\nfrom ..abc import BaseTrainer\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_6.append(
                'from ..common.state_validation import require_latent_state\n',
            )
        if (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper):
            pass
            t_6.append(
                'from ..distillation.opd.common import load_teachers\n',
            )
        return concat(t_6)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        pass
        t_7.append(
            '        if self._stochastic() and self.training_args.loss_target != "xt":\n            raise ValueError(\n                f"train.loss_target={self.training_args.loss_target!r} needs ODE dynamics; "\n                "SDE rollouts are distilled on their transition means (loss_target: xt)"\n            )\n',
        )
        return concat(t_7)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        l_1_state = resolve('state')
        l_1_key = resolve('key')
        l_1_ownership = resolve('ownership')
        pass
        t_8.append(
            '\n    def _initialize_snapshots(self) -> None:\n        """Realise the frozen teacher as a named snapshot and register it for checkpoints.\n\n        An exact (``state``) resume creates a placeholder of the right shape instead: the\n        checkpoint restores the teacher, so its external weights are never loaded then.\n        """\n        super()._initialize_snapshots()\n        args = self.training_args\n        if self.model_args.resume_path and self.model_args.resume_type == "state":\n            self.adapter.add_named_parameters(\n                TEACHER_SNAPSHOT,\n                target_components=self._teacher_components(),\n                device=self._teacher_device(),\n                overwrite=True,\n            )\n        else:\n',
        )
        if (undefined(name='use_helper') if l_0_use_helper is missing else l_0_use_helper):
            pass
            t_8.append(
                '            load_teachers(\n                self.adapter,\n                [args.teachers[0].path],\n                args.teacher_param_device,\n                [TEACHER_SNAPSHOT],\n            )\n',
            )
        else:
            pass
            t_8.append(
                '            self._load_teacher(args.teachers[0].path)\n',
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
            '\n    def sample(self) -> list[BaseSample]:\n        """Roll out the student, keeping the trajectory points of the distilled steps; no reward\n        buffer (the contract has no feedback).\n\n        Returns:\n            The generated samples with the states each distilled transition replays.\n        """\n        trajectory_indices = compute_trajectory_indices(\n            train_timestep_indices=self.training_args.distill_step_indices(),\n            num_inference_steps=self.training_args.num_inference_steps,\n        )\n        return self.generate_samples(compute_log_prob=False, trajectory_indices=trajectory_indices)\n\n    def optimize(self, samples: list[BaseSample]) -> None:\n        """Per batch: the teacher\'s targets at every distilled step (one switch into the\n        teacher), then one microstep per step matching the student\'s to them.\n\n        Args:\n            samples: The cycle\'s samples (the distilled steps\' trajectory points).\n        """\n        args = self.training_args\n        adapter = self.adapter\n        adapter.train()\n        step_indices = args.distill_step_indices()\n        for inner_epoch in range(int(args.num_inner_epochs)):\n            ordered = self._order_samples_for_optimize(samples, inner_epoch)\n            for batch in self._iter_prefetched_batches(ordered, int(args.per_device_batch_size)):\n                replays = [adapter.get_replay_step(batch, index) for index in step_indices]\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_8.extend((
                '                for replay in replays:\n                    self._validate_structured_state(\n                        replay.state,\n                        "',
                str((undefined(name='key') if l_1_key is missing else l_1_key)),
                ' replayed state",\n                    )\n',
            ))
        t_8.append(
            '                teacher_targets = self._teacher_targets(batch, replays)\n                for replay, teacher_target in zip(replays, teacher_targets, strict=True):\n',
        )
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_8.append(
                '                    self._role_microstep((batch, replay, teacher_target))\n',
            )
        else:
            pass
            t_8.append(
                '                    with self.accumulate_gradients():\n                        loss, metrics = self._objective_loss(batch, replay, teacher_target)\n                        self.accelerator.backward(loss)\n                        self._finish_microstep(loss, metrics)\n',
            )
        t_8.append(
            '\n    def _teacher_targets(\n        self, batch: dict[str, Any], replays: list[ReplayStep]\n    ) -> list[LatentState]:\n        """The frozen teacher\'s target at each replayed state, under one switch of weights.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            replays: The distilled transitions of the batch.\n\n        Returns:\n            One detached target per replayed transition.\n        """\n        teacher = self.training_args.teachers[0]\n        scale = teacher.guidance_scale\n        if scale is None:\n            scale = self.training_args.guidance_scale\n        with (\n            torch.no_grad(),\n            self.adapter.use_named_parameters(TEACHER_SNAPSHOT),\n            self.autocast(),\n        ):\n            return [\n                _detached(self._target(self._replay_forward(batch, replay, float(scale)), replay))\n                for replay in replays\n            ]\n\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self, batch: dict[str, Any], replay: ReplayStep, teacher_target: LatentState\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Match the student\'s target to the teacher\'s at one replayed transition.\n\n        The per-sample squared error over every component (reduced by the adapter), divided\n        under SDE dynamics by twice the transition variance (the Gaussian KL of two transitions\n        of equal variance), and with ``self_normalize`` by its detached mean absolute error.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            replay: One stored transition of the student\'s rollout.\n            teacher_target: The teacher\'s target at the same state.\n\n        Returns:\n            The scalar distillation loss and extra metrics to log.\n        """\n        args = self.training_args\n        stochastic = self._stochastic()\n        with self.autocast():\n            output = self._replay_forward(\n                batch, replay, float(args.guidance_scale), statistics=stochastic\n            )\n        student_target = self._target(output, replay)\n        errors, gaps = {}, {}\n        for name in self.adapter.trajectory_component_order:\n            gap = student_target.components[name].float() - teacher_target.components[name].float()\n            errors[name] = gap.square()\n            gaps[name] = gap.detach().abs()\n            if stochastic:\n                errors[name] = errors[name] / (2.0 * output.std_dev_t[name].float().square())\n        per_sample = self.adapter.reduce_latent_values(errors, state=replay.state)\n        if args.self_normalize:\n            scale = self.adapter.reduce_latent_values(gaps, state=replay.state)\n            per_sample = per_sample / (scale + 1e-8)\n        loss = per_sample.mean()\n        return loss, {"distill_loss": loss.detach()}\n\n    # --- objective: end -------------------------------------------------------------------------\n\n    def _replay_forward(\n        self, batch: dict[str, Any], replay: ReplayStep, guidance_scale: float, statistics=False\n    ) -> MultiModalStepOutput:\n        """The active weights\' step output at a replayed state, with what ``loss_target`` needs\n        (and the transition\'s ``std_dev_t`` / ``dt`` when ``statistics``)."""\n        fields = (_TARGET_FIELDS[self.training_args.loss_target],)\n        if statistics:\n            fields += ("std_dev_t", "dt")\n        return self.adapter.forward_state(\n            batch=batch,\n            state=replay.state,\n            times=replay.times,\n            next_state=replay.next_state,\n            compute_log_prob=False,\n            return_fields=fields,\n            guidance_scale=guidance_scale,\n        )\n\n    def _target(self, output: MultiModalStepOutput, replay: ReplayStep) -> LatentState:\n        """The ``loss_target`` projection of one step output: the transition mean (``xt``), the\n        velocity (``v``) or the clean latent it predicts (``x0``)."""\n        target = self.training_args.loss_target\n        if target == "xt":\n            return output.next_state_mean\n        if target == "v":\n            return output.velocity\n        return self.adapter.project_velocity_to_clean_state(\n            replay.state, replay.times, output.velocity\n        )\n\n    def _stochastic(self) -> bool:\n        """Whether the rollouts use SDE dynamics (their transitions then have a variance)."""\n        return self.config.scheduler_args.dynamics_type in _SDE_DYNAMICS\n',
        )
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
debug_info = '2=13&3=16&4=25&5=34&6=43&9=52&17=61&23=70&24=73&25=76&30=82&33=87&37=95&44=104&62=113&84=126&143=134&147=138&152=144&262=160'