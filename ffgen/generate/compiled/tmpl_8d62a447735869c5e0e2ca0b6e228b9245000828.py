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
            'Advantage-weighted flow matching on final generated samples.',
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
            'Advantage-weighted flow matching (NFT/AWM style) on re-noised final samples.',
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
            'from ...samples import BaseSample, LatentState\nfrom ..abc import BaseTrainer\nfrom ..common.flow_matching import build_noised_output_state, flow_matching_per_sample_loss\nfrom ..common.state_validation import ',
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
        l_1_key = resolve('key')
        pass
        t_8.append(
            '\n    def sample(self) -> list[BaseSample]:\n        """Roll out final samples only (solver-agnostic: no log-probabilities); buffer rewards.\n\n        Returns:\n            The generated samples, each keeping only its final clean latent.\n        """\n        return self.generate_samples(\n            reward_buffer=self.reward_buffer,\n            compute_log_prob=False,\n            trajectory_indices=[-1],\n        )\n\n',
        )
        template = environment.get_template('algorithm/families/_renoise_optimize.jinja', 'algorithm/families/awm.py.jinja')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'class_attributes': l_0_class_attributes, 'class_doc': l_0_class_doc, 'defines_snapshots': l_0_defines_snapshots, 'hooks': l_0_hooks, 'imports': l_0_imports, 'init_body': l_0_init_body, 'module_constants': l_0_module_constants, 'module_helpers': l_0_module_helpers, 'summary': l_0_summary}))
        try:
            for event in gen:
                t_8.append(event)
        finally: gen.close()
        t_8.extend((
            '\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self,\n        batch: dict[str, Any],\n        clean_state: LatentState,\n        primary_timesteps: torch.Tensor,\n        advantages: torch.Tensor,\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Advantage-weighted flow matching plus an optional velocity KL to the reference.\n\n        Every final sample is re-noised and regressed with weight ``softmax(A / temperature)``\n        (normalised to mean 1 over the batch), so high-advantage samples dominate the update;\n        advantages are group-normalised and clipped by the advantage processor.\n\n        Args:\n            batch: Stacked sample batch on the training device.\n            clean_state: Final generated samples.\n            primary_timesteps: ``(B,)`` re-noising timesteps.\n            advantages: ``(B,)`` advantages of the batch\'s samples.\n\n        Returns:\n            The scalar loss and extra metrics to log.\n        """\n        args = self.training_args\n        times, noised = build_noised_output_state(\n            self.adapter, clean_state, primary_timesteps, batch=batch\n        )\n        with self.autocast():\n            velocity = forward_velocity_state(\n                self,\n                batch,\n                noised.state,\n                times,\n                source="',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' policy",\n            )\n        per_sample = flow_matching_per_sample_loss(self.adapter, velocity, noised)\n        # Exponential advantage weights normalised to mean 1 over the batch: every sample is\n        # pulled in, better samples harder, so the loss stays bounded below.\n        temperature = float(args.advantage_temperature)\n        weights = torch.softmax(advantages.to(per_sample.device) / temperature, dim=0)\n        weights = weights * weights.numel()\n        weighted_loss = (weights.detach() * per_sample).mean()\n        metrics = {\n            "weighted_flow_matching_loss": weighted_loss.detach(),\n            "flow_matching_loss": per_sample.detach().mean(),\n            "max_weight": weights.detach().max(),\n        }\n        loss = weighted_loss\n        if args.kl_beta > 0.0:\n            with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():\n                reference_velocity = forward_velocity_state(\n                    self,\n                    batch,\n                    noised.state,\n                    times,\n                    source="',
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
debug_info = '2=12&3=21&4=27&5=36&6=42&7=48&13=57&14=60&15=63&20=69&23=80&31=89&45=96&80=104&102=106&111=112'