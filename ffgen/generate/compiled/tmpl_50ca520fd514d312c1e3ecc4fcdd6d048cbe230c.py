from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/offline_dpo.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_ownership = resolve('ownership')
    l_0_multi_role = l_0_summary = l_0_defines_snapshots = l_0_class_doc = l_0_module_constants = l_0_class_attributes = l_0_imports = l_0_init_body = l_0_hooks = l_0_module_helpers = missing
    pass
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    def macro():
        t_1 = []
        pass
        t_1.append(
            'Diffusion-DPO on preference pairs against a frozen reference.',
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
            'Diffusion-DPO over one complete finite preference loader per data epoch.',
        )
        return concat(t_3)
    context.exported_vars.add('class_doc')
    context.vars['class_doc'] = l_0_class_doc = Macro(environment, macro, 'class_doc', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_4 = []
        pass
        return concat(t_4)
    context.exported_vars.add('module_constants')
    context.vars['module_constants'] = l_0_module_constants = Macro(environment, macro, 'module_constants', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        pass
        return concat(t_5)
    context.exported_vars.add('class_attributes')
    context.vars['class_attributes'] = l_0_class_attributes = Macro(environment, macro, 'class_attributes', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        l_1_contract = resolve('contract')
        l_1_defaults_import = resolve('defaults_import')
        l_1_state = resolve('state')
        pass
        t_6.extend((
            'from collections import defaultdict\nfrom typing import Any, ClassVar, Literal\n\nimport torch\nfrom torch.utils.data import DataLoader\n\nfrom ...contracts import ',
            str((undefined(name='contract') if l_1_contract is missing else l_1_contract)),
            ', ExecutionContract\nfrom ...data_utils.offline_dataset import OfflineBatch, PreferenceOutputBatch\nfrom ...data_utils.offline_train_data import build_offline_train_dataloader\n',
        ))
        if ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role'):
            pass
            t_6.extend((
                str(context.call((undefined(name='defaults_import') if l_1_defaults_import is missing else l_1_defaults_import))),
                '\n',
            ))
        t_6.append(
            'from ...samples import LatentState\nfrom ..abc import BaseTrainer\nfrom ..common.dpo_objective import dpo_objective\nfrom ..common.flow_matching import (\n    build_noised_output_state,\n    flow_matching_per_sample_loss,\n    sample_offline_timesteps,\n    validate_preference_component_times,\n    validate_preference_output_states,\n)\nfrom ..common.offline_batch import bind_prepared_condition_output, move_condition_to_device\nfrom ..common.state_validation import ',
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
        return concat(t_7)
    context.exported_vars.add('init_body')
    context.vars['init_body'] = l_0_init_body = Macro(environment, macro, 'init_body', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_8 = []
        l_1_state = resolve('state')
        l_1_key = resolve('key')
        pass
        t_8.append(
            '\n    def _build_train_dataloader(self) -> tuple[DataLoader, dict[str, DataLoader]]:\n        """Build the finite preference loader (``DistributedSampler``, ``OfflineBatch``).\n\n        Returns:\n            The training loader and an empty mapping of evaluation loaders.\n        """\n        loader = build_offline_train_dataloader(\n            config=self.config,\n            accelerator=self.accelerator,\n            preprocess_func=self.adapter.preprocess_func,\n            supervision_type="preference",\n            pipeline_io_contract=self.adapter.effective_pipeline_io_contract,\n        )\n        return loader, {}\n\n    def optimize_batch(self, batch: OfflineBatch) -> None:\n        """Apply one gradient-accumulation microstep of Diffusion-DPO.\n\n        Both arms share the prepared condition, the timesteps, the noise and the reference scope;\n        the optimizer steps only when the explicit accumulation window closes.\n\n        Args:\n            batch: One preference ``OfflineBatch`` of the finite loader.\n        """\n        output = _require_preference_batch(batch)\n        adapter = self.adapter\n        device = self.accelerator.device\n        condition = move_condition_to_device(batch.condition, device)\n        adapter.train()\n        prepared = adapter.prepare_condition_state(condition)\n        chosen = adapter.encode_output_state(output.chosen_media, prepared)\n        rejected = adapter.encode_output_state(output.rejected_media, prepared)\n        validate_preference_output_states(chosen, rejected)\n',
        )
        if ((undefined(name='state') if l_1_state is missing else l_1_state) == 'structured'):
            pass
            t_8.extend((
                '        self._validate_structured_state(\n            chosen.clean_state,\n            "',
                str((undefined(name='key') if l_1_key is missing else l_1_key)),
                ' chosen target",\n        )\n        self._validate_structured_state(\n            rejected.clean_state,\n            "',
                str((undefined(name='key') if l_1_key is missing else l_1_key)),
                ' rejected target",\n        )\n',
            ))
        t_8.extend((
            '        chosen_batch = bind_prepared_condition_output(prepared, chosen.forward_context)\n        rejected_batch = bind_prepared_condition_output(prepared, rejected.forward_context)\n        timesteps = sample_offline_timesteps(\n            self.training_args,\n            batch_size=state_batch_size(\n                self,\n                chosen.clean_state,\n                "',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' chosen state",\n            ),\n            device=device,\n        )\n',
        ))
        if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
            pass
            t_8.append(
                '        self._role_microstep(\n            ((chosen_batch, chosen.clean_state), (rejected_batch, rejected.clean_state), timesteps)\n        )\n',
            )
        else:
            pass
            t_8.append(
                '        with self.accumulate_gradients():\n            loss, metrics = self._objective_loss(\n                (chosen_batch, chosen.clean_state),\n                (rejected_batch, rejected.clean_state),\n                timesteps,\n            )\n            self.accelerator.backward(loss)\n            self._finish_microstep(loss, metrics)\n',
            )
        t_8.extend((
            '\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self,\n        chosen: tuple[dict[str, Any], LatentState],\n        rejected: tuple[dict[str, Any], LatentState],\n        timesteps: torch.Tensor,\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Diffusion-DPO per timestep row, averaged over the rows.\n\n        The metrics carry the names the checkout\'s offline DPO logs: ``theta_w_err`` /\n        ``theta_l_err`` (policy flow-matching error on the chosen / rejected arm), ``ref_w_err`` /\n        ``ref_l_err`` (the frozen reference\'s), ``implicit_reward_chosen`` /\n        ``implicit_reward_rejected`` and ``implicit_accuracy``; each is the row\'s batch mean,\n        averaged over the rows like the loss.\n\n        Args:\n            chosen: Model batch and clean state of the preferred targets.\n            rejected: Model batch and clean state of the rejected targets.\n            timesteps: ``(num_train_timesteps, B)`` timesteps shared by both arms.\n\n        Returns:\n            The scalar DPO loss and its metrics.\n        """\n        adapter = self.adapter\n        losses: list[torch.Tensor] = []\n        rows: defaultdict[str, list[torch.Tensor]] = defaultdict(list)\n        for primary_timesteps in timesteps:\n            chosen_times, chosen_noised = build_noised_output_state(\n                adapter, chosen[1], primary_timesteps, batch=chosen[0]\n            )\n            rejected_times, rejected_noised = build_noised_output_state(\n                adapter,\n                rejected[1],\n                primary_timesteps,\n                batch=rejected[0],\n                noise=chosen_noised.noise,\n            )\n            validate_preference_component_times(chosen_times, rejected_times)\n            arms = (\n                ("chosen", chosen[0], chosen_times, chosen_noised),\n                ("rejected", rejected[0], rejected_times, rejected_noised),\n            )\n            # Both arms\' policy forwards, then both reference forwards inside one switch of\n            # weights: switching into the reference costs as much as a forward on small models.\n            with self.autocast():\n                policy = [\n                    self._arm_velocity(\n                        model_batch,\n                        times,\n                        noised,\n                        f"',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' policy ({arm})",\n                    )\n                    for arm, model_batch, times, noised in arms\n                ]\n            with torch.no_grad(), adapter.use_ref_parameters(), self.autocast():\n                reference = [\n                    self._arm_velocity(\n                        model_batch,\n                        times,\n                        noised,\n                        f"',
            str((undefined(name='key') if l_1_key is missing else l_1_key)),
            ' reference ({arm})",\n                    )\n                    for arm, model_batch, times, noised in arms\n                ]\n            # w: the preferred ("winning") arm, l: the rejected one, as the metric names say.\n            errors: dict[str, torch.Tensor] = {}\n            for letter, (_, _, _, noised), velocity, reference_velocity in zip(\n                "wl", arms, policy, reference, strict=True\n            ):\n                errors[f"theta_{letter}_err"] = flow_matching_per_sample_loss(\n                    adapter, velocity, noised\n                )\n                errors[f"ref_{letter}_err"] = flow_matching_per_sample_loss(\n                    adapter, reference_velocity, noised\n                )\n            loss, metrics = dpo_objective(\n                errors["theta_w_err"],\n                errors["theta_l_err"],\n                errors["ref_w_err"],\n                errors["ref_l_err"],\n                beta=self.training_args.beta,\n            )\n            losses.append(loss)\n            for name, value in (*errors.items(), *metrics.items()):\n                rows[name].append(value.detach().mean())\n        averaged = {name: torch.stack(values).mean() for name, values in rows.items()}\n        return torch.stack(losses).mean(), averaged\n\n    def _arm_velocity(\n        self, model_batch: dict[str, Any], times: Any, noised: Any, source: str\n    ) -> LatentState:\n        """Velocity of one arm at its noised state, under the caller\'s weights scope."""\n        return forward_velocity_state(\n            self,\n            model_batch,\n            noised.state,\n            times,\n            source=source,\n            **self.adapter.offline_training_forward_overrides,\n        )\n\n    # --- objective: end -------------------------------------------------------------------------\n',
        ))
        return concat(t_8)
    context.exported_vars.add('hooks')
    context.vars['hooks'] = l_0_hooks = Macro(environment, macro, 'hooks', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        pass
        t_9.append(
            '\n\ndef _require_preference_batch(batch: Any) -> PreferenceOutputBatch:\n    """Return the preference outputs of ``batch`` or raise naming what was received."""\n    if not isinstance(batch, OfflineBatch):\n        raise TypeError(f"expected an OfflineBatch, received {type(batch).__name__}")\n    if batch.supervision_type != "preference" or not isinstance(\n        batch.output, PreferenceOutputBatch\n    ):\n        raise TypeError(\n            "expected preference supervision, received "\n            f"{batch.supervision_type!r} / {type(batch.output).__name__}"\n        )\n    return batch.output\n',
        )
        return concat(t_9)
    context.exported_vars.add('module_helpers')
    context.vars['module_helpers'] = l_0_module_helpers = Macro(environment, macro, 'module_helpers', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '2=13&3=16&4=25&5=31&6=40&7=46&8=52&15=60&18=63&19=66&32=72&35=83&36=89&71=97&74=101&78=103&88=108&92=111&157=123&167=125&210=131'