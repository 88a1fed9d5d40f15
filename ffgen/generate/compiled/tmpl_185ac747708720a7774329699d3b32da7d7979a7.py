from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/grpo.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_ownership = resolve('ownership')
    l_0_multi_role = l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_class_attributes = l_0_imports = l_0_module_constants = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    pass
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    def macro():
        t_1 = []
        pass
        t_1.append(
            'GRPO-style clipped likelihood ratio over stored SDE rollouts.',
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
            'GRPO-style clipped likelihood-ratio objective over replayed SDE transitions.',
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
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_5.extend((
            'from collections import defaultdict\nfrom typing import Any, ClassVar, Literal\n\nimport torch\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\n',
        ))
        if ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role'):
            pass
            t_5.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_5.append(
            'from ...samples import BaseSample, LatentState, MultiModalStepOutput, ReplayStep\nfrom ...utils.trajectory_collector import compute_trajectory_indices\nfrom ..abc import BaseTrainer\nfrom ..common.forward_kwargs import replay_forward_kwargs\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_5.append(
                'from ..common.state_validation import require_latent_state\n',
            )
        return concat(t_5)
    context.exported_vars.add('imports')
    context.vars['imports'] = l_0_imports = Macro(environment, macro, 'imports', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        pass
        t_6.append(
            '\n# Keys ``forward_state`` receives explicitly; they never come from the training arguments.\n_EXPLICIT_FORWARD_KEYS = (\n    "batch",\n    "state",\n    "times",\n    "next_state",\n    "compute_log_prob",\n    "return_fields",\n    "noise_level",\n)\n',
        )
        return concat(t_6)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        pass
        t_7.append(
            '        # One optimisation microstep per replayed SDE step (auto accumulation counts them).\n        self.num_train_timesteps = self.adapter.scheduler.num_sde_steps\n',
        )
        return concat(t_7)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        l_1_state = resolve('state')
        l_1_key = resolve('key')
        pass
        t_8.append(
            '\n    def sample(self) -> list[BaseSample]:\n        """Roll out SDE trajectories with per-step log-probabilities; rewards are buffered.\n\n        Only the trajectory points the train steps replay are kept.\n\n        Returns:\n            The generated samples with those points and their ``log_probs``.\n        """\n        trajectory_indices = compute_trajectory_indices(\n            train_timestep_indices=self.adapter.get_train_step_indices(),\n            num_inference_steps=self.training_args.num_inference_steps,\n        )\n        return self.generate_samples(\n            reward_buffer=self.reward_buffer,\n            compute_log_prob=True,\n            trajectory_indices=trajectory_indices,\n        )\n\n    def optimize(self, samples: list[BaseSample]) -> None:\n        """Replay every train step of each rollout; one gradient-accumulation microstep per step.\n\n        Advantages come from the shared advantage processor (``batch["advantage"]``).\n\n        Args:\n            samples: The cycle\'s samples, with advantages stored by ``prepare_feedback``.\n        """\n        args = self.training_args\n        adapter = self.adapter\n        adapter.train()\n        train_step_indices = adapter.get_train_step_indices()\n        for inner_epoch in range(int(args.num_inner_epochs)):\n            ordered = self._order_samples_for_optimize(samples, inner_epoch)\n            for batch in self._iter_prefetched_batches(ordered, int(args.per_device_batch_size)):\n                advantages = batch["advantage"].float()\n                for timestep_index in train_step_indices:\n                    step = adapter.get_replay_step(batch, int(timestep_index))\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_8.extend((
                '                    self._validate_structured_state(\n                        step.state,\n                        "',
                str((undefined(name='key') if l_1_key is missing else l_1_key)),
                ' replay state",\n                    )\n',
            ))
        if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
            pass
            t_8.append(
                '                    self._role_microstep((batch, step, advantages))\n',
            )
        else:
            pass
            t_8.append(
                '                    with self.accumulate_gradients():\n                        loss, metrics = self._objective_loss(batch, step, advantages)\n                        self.accelerator.backward(loss)\n                        self._finish_microstep(loss, metrics)\n',
            )
        t_8.append(
            '\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self, batch: dict[str, Any], step: ReplayStep, advantages: torch.Tensor\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Clipped surrogate ``max(-A r, -A clip(r, 1 + low, 1 + high))`` plus optional KL.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            step: One stored transition with its rollout log-probability.\n            advantages: ``(B,)`` advantages of the batch\'s samples.\n\n        Returns:\n            The scalar loss and extra metrics to log.\n        """\n        args = self.training_args\n        with self.autocast():\n            output = self._replay_forward(batch, step)\n        log_prob = output.log_prob.float()\n        ratio = torch.exp(log_prob - step.log_prob.float().to(log_prob.device))\n        low, high = args.clip_range\n        clipped_ratio = torch.clamp(ratio, 1.0 + low, 1.0 + high)\n        advantages = advantages.to(ratio.device)\n        policy_loss = torch.maximum(-advantages * ratio, -advantages * clipped_ratio).mean()\n        metrics = {\n            "policy_loss": policy_loss.detach(),\n            "ratio": ratio.detach().mean(),\n            "clip_fraction": ((ratio.detach() < 1.0 + low) | (ratio.detach() > 1.0 + high))\n            .float()\n            .mean(),\n        }\n        loss = policy_loss\n        if args.kl_beta > 0.0:\n            with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():\n                reference = self._replay_forward(batch, step)\n            kl = self._replay_velocity_kl(output.velocity, reference.velocity, step).mean()\n            loss = loss + args.kl_beta * kl\n            metrics["kl_loss"] = kl.detach()\n        return loss, metrics\n\n    # --- objective: end -------------------------------------------------------------------------\n\n    def _replay_velocity_kl(\n        self, velocity: LatentState, reference: LatentState, step: ReplayStep\n    ) -> torch.Tensor:\n        """Per-sample squared velocity gap ``(B,)`` to the reference over every trajectory\n        component, reduced by the adapter at the replayed state (the Gaussian KL up to scale)."""\n        # every component the adapter declares, so a state missing one fails here, loudly\n        gaps: dict[str, torch.Tensor] = {}\n        for name in self.adapter.trajectory_component_order:\n            gaps[name] = (velocity.components[name] - reference.components[name]).square()\n        return self.adapter.reduce_latent_values(gaps, state=step.state)\n\n    def _replay_forward(self, batch: dict[str, Any], step: ReplayStep) -> MultiModalStepOutput:\n        """Log-density of the stored transition and velocity under the active weights.\n\n        The SDE noise level is the scheduler\'s, the one the rollout used.\n        """\n        kwargs = replay_forward_kwargs(self, batch)\n        for key in _EXPLICIT_FORWARD_KEYS:\n            kwargs.pop(key, None)\n        return self.adapter.forward_state(\n            batch=batch,\n            state=step.state,\n            times=step.times,\n            next_state=step.next_state,\n            compute_log_prob=True,\n            return_fields=("log_prob", "velocity"),\n            **kwargs,\n        )\n',
        )
        return concat(t_8)
    context.exported_vars.add('hooks')
    context.vars['hooks'] = l_0_hooks = Macro(environment, macro, 'hooks', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        pass
        return concat(t_9)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '2=13&3=16&4=25&5=31&6=40&7=46&13=54&14=57&15=60&21=66&25=74&38=83&42=92&80=100&83=104&86=107&165=123'