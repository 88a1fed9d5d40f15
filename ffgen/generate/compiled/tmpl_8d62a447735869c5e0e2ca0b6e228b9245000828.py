from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/awm.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_class_attributes = l_0_module_constants = l_0_imports = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    pass
    def macro():
        t_1 = []
        pass
        t_1.append(
            'Advantage Weighted Matching (AWM) on final generated samples.',
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
            'Advantage Weighted Matching as the built-in ``awm``: a clipped matching-likelihood ratio.',
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
        pass
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
            'from ...samples import BaseSample, ComponentTimes, LatentState, NoisedState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import build_noised_output_state, flow_matching_per_sample_loss\nfrom ..common.state_validation import ',
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
        pass
        t_7.append(
            "        # What ``BaseTrainer._sample_timesteps`` reads (as Flow-Factory's NFT/AWM set them).\n        args = self.training_args\n        self.time_sampling_strategy = args.time_sampling_strategy\n        self.num_train_timesteps = args.num_train_timesteps\n        self.timestep_range = args.timestep_range\n        self.time_shift = args.time_shift\n",
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
            '\n    def sample(self) -> list[BaseSample]:\n        """Roll out final samples only (solver-agnostic: no log-probabilities); buffer rewards.\n\n        Returns:\n            The generated samples, each keeping only its final clean latent.\n        """\n        return self.generate_samples(\n            reward_buffer=self.reward_buffer,\n            compute_log_prob=False,\n            trajectory_indices=[-1],\n        )\n\n    def optimize(self, samples: list[BaseSample]) -> None:\n        """Per batch: noise the final samples once per drawn timestep and record the sampling\n        policy\'s matching log-likelihoods; then one microstep per timestep.\n\n        Args:\n            samples: The cycle\'s samples (final clean states only), with advantages.\n        """\n        args = self.training_args\n        adapter = self.adapter\n        for inner_epoch in range(int(args.num_inner_epochs)):\n            ordered = self._order_samples_for_optimize(samples, inner_epoch)\n            for batch in self._iter_prefetched_batches(ordered, int(args.per_device_batch_size)):\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_8.extend((
                '                clean_state = self._validate_structured_state(\n                    adapter.get_terminal_state(batch),\n                    "',
                str((undefined(name='key') if l_1_key is missing else l_1_key)),
                ' final samples",\n                )\n',
            ))
        else:
            pass
            t_8.append(
                '                clean_state = adapter.get_terminal_state(batch)\n',
            )
        t_8.append(
            '                steps = self._record_old_log_probs(batch, clean_state)\n                # Advantages come group-normalised from the advantage processor; clipped once per\n                # batch and shared by its timesteps.\n                low, high = args.adv_clip_range\n                advantages = torch.clamp(batch["advantage"].float(), low, high)\n                adapter.train()\n                for step in steps:\n',
        )
        if ((undefined(name='ownership') if l_1_ownership is missing else l_1_ownership) == 'multi_role'):
            pass
            t_8.append(
                '                    self._role_microstep((batch, step, advantages))\n',
            )
        else:
            pass
            t_8.append(
                '                    with self.accumulate_gradients():\n                        loss, metrics = self._objective_loss(batch, step, advantages)\n                        self.accelerator.backward(loss)\n                        self._finish_microstep(loss, metrics)\n',
            )
        t_8.extend((
            '\n    def _record_old_log_probs(\n        self, batch: dict[str, Any], clean_state: LatentState\n    ) -> list[tuple[ComponentTimes, NoisedState, torch.Tensor]]:\n        """Draw the batch\'s training timesteps and noise, and score them under the sampling\n        policy; the microsteps reuse the same noised states, so their ratios start at 1.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            clean_state: Final generated samples.\n\n        Returns:\n            One ``(times, noised, old_log_prob)`` per training timestep, in drawing order.\n        """\n        self.adapter.rollout()\n        steps = []\n        with torch.no_grad(), self.autocast():\n            timesteps = self._sample_timesteps(\n                state_batch_size(\n                    self,\n                    clean_state,\n                    "',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' final samples",\n                )\n            )\n            for primary_timesteps in timesteps:\n                times, noised = build_noised_output_state(\n                    self.adapter, clean_state, primary_timesteps, batch=batch\n                )\n                velocity = forward_velocity_state(\n                    self,\n                    batch,\n                    noised.state,\n                    times,\n                    source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' sampling policy",\n                )\n                steps.append((times, noised, self._matching_log_prob(velocity, noised).detach()))\n        return steps\n\n    def _matching_log_prob(self, velocity: LatentState, noised: NoisedState) -> torch.Tensor:\n        """The matching log-likelihood of a velocity: minus its per-sample flow-matching error.\n\n        Args:\n            velocity: Predicted velocity per component.\n            noised: The noised state with its target velocity.\n\n        Returns:\n            ``(B,)`` log-likelihoods in float32.\n        """\n        return -flow_matching_per_sample_loss(self.adapter, velocity, noised).float()\n\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self,\n        batch: dict[str, Any],\n        step: tuple[ComponentTimes, NoisedState, torch.Tensor],\n        advantages: torch.Tensor,\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Clipped surrogate ``max(-A r, -A clip(r, 1 + low, 1 + high))`` of the matching\n        likelihood ratio, plus an optional velocity KL to the reference.\n\n        ``r = exp(log p - log p_old)`` where ``log p`` is minus the flow-matching error at the\n        step\'s noised state; each sample is weighted by its own group-normalised advantage, so\n        the update lowers the error of better-than-average samples and raises the others\'.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            step: ``(times, noised, old_log_prob)`` from ``_record_old_log_probs``.\n            advantages: ``(B,)`` clipped advantages of the batch\'s samples.\n\n        Returns:\n            The scalar loss and extra metrics to log.\n        """\n        args = self.training_args\n        times, noised, old_log_prob = step\n        with self.autocast():\n            velocity = forward_velocity_state(\n                self,\n                batch,\n                noised.state,\n                times,\n                source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' policy",\n            )\n            log_prob = self._matching_log_prob(velocity, noised)\n        ratio = torch.exp(log_prob - old_log_prob.to(log_prob.device))\n        low, high = args.clip_range\n        advantages = advantages.to(ratio.device)\n        unclipped_loss = -advantages * ratio\n        clipped_loss = -advantages * torch.clamp(ratio, 1.0 + low, 1.0 + high)\n        policy_loss = torch.maximum(unclipped_loss, clipped_loss).mean()\n        metrics = {\n            "policy_loss": policy_loss.detach(),\n            "matching_loss": -log_prob.detach().mean(),\n            "ratio": ratio.detach().mean(),\n            "clip_frac_high": (ratio.detach() > 1.0 + high).float().mean(),\n            "clip_frac_low": (ratio.detach() < 1.0 + low).float().mean(),\n        }\n        loss = policy_loss\n        if args.kl_beta > 0.0:\n            with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():\n                reference_velocity = forward_velocity_state(\n                    self,\n                    batch,\n                    noised.state,\n                    times,\n                    source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' reference",\n                )\n            kl = self._velocity_kl(velocity, reference_velocity, noised).mean()\n            loss = loss + args.kl_beta * kl\n            metrics["kl_loss"] = kl.detach()\n        return loss, metrics\n\n    # --- objective: end -------------------------------------------------------------------------\n',
        ))
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
debug_info = '2=12&3=21&4=27&5=36&6=42&7=48&13=57&14=60&15=63&20=69&23=80&31=89&57=98&60=102&72=113&101=125&113=127&160=129&184=131&193=137'