from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/_flow_matching_batch.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_ownership = resolve('ownership')
    l_0_state = resolve('state')
    l_0_key = resolve('key')
    l_0_multi_role = missing
    pass
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    yield '    def optimize_batch(self, batch: OfflineBatch) -> None:\n        """Apply one gradient-accumulation microstep of supervised flow matching.\n\n        The cached input condition is prepared once, the target media are encoded on demand, and\n        the ``num_train_timesteps`` terms are averaged inside this single microstep. The\n        optimizer steps only when the explicit accumulation window closes (no partial flush).\n\n        Args:\n            batch: One demonstration ``OfflineBatch`` of the finite loader.\n        """\n        output = _require_demonstration_batch(batch)\n        adapter = self.adapter\n        device = self.accelerator.device\n        condition = move_condition_to_device(batch.condition, device)\n        adapter.train()\n        prepared = adapter.prepare_condition_state(condition)\n        encoded = adapter.encode_output_state(output.target_media, prepared)\n'
    if ((undefined(name='state') if l_0_state is missing else l_0_state) == 'structured'):
        pass
        yield '        clean_state = self._validate_structured_state(\n            encoded.clean_state,\n            "'
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ' target",\n        )\n'
    else:
        pass
        yield '        clean_state = encoded.clean_state\n'
    yield '        model_batch = bind_prepared_condition_output(prepared, encoded.forward_context)\n        timesteps = sample_offline_timesteps(\n            self.training_args,\n            batch_size=state_batch_size(\n                self,\n                clean_state,\n                "'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield ' target state",\n            ),\n            device=device,\n        )\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        yield '        self._role_microstep((model_batch, clean_state, timesteps))\n'
    else:
        pass
        yield '        with self.accumulate_gradients():\n            loss, metrics = self._objective_loss(model_batch, clean_state, timesteps)\n            self.accelerator.backward(loss)\n            self._finish_microstep(loss, metrics)\n'
    yield '\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self, model_batch: dict[str, Any], clean_state: LatentState, timesteps: torch.Tensor\n    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n        """Supervised flow matching: regress ``noise - x0`` at every drawn timestep.\n\n        Args:\n            model_batch: Prepared model-forward condition bound to the output forward context.\n            clean_state: Encoded clean targets.\n            timesteps: ``(num_train_timesteps, B)`` timesteps in [0, 1].\n\n        Returns:\n            The scalar loss (mean over timestep terms and batch) and extra metrics to log.\n        """\n        per_term = []\n        for primary_timesteps in timesteps:\n            times, noised = build_noised_output_state(\n                self.adapter, clean_state, primary_timesteps, batch=model_batch\n            )\n            with self.autocast():\n                velocity = forward_velocity_state(\n                    self,\n                    model_batch,\n                    noised.state,\n                    times,\n                    source="'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield ' policy",\n                    **self.adapter.offline_training_forward_overrides,\n                )\n            per_term.append(flow_matching_per_sample_loss(self.adapter, velocity, noised))\n        loss = torch.stack(per_term, dim=0).mean()\n        return loss, {"flow_matching_loss": loss.detach()}\n\n    # --- objective: end -------------------------------------------------------------------------\n'

blocks = {}
debug_info = '2=15&20=19&23=22&34=28&38=30&72=37'