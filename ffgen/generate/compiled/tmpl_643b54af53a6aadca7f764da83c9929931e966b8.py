from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/_flow_matching_batch.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_ownership = resolve('ownership')
    l_0_family = resolve('family')
    l_0_direction = resolve('direction')
    l_0_record_type = resolve('record_type')
    l_0_state = resolve('state')
    l_0_key = resolve('key')
    l_0_multi_role = l_0_record = l_0_reference = l_0_what = l_0_objective_args = missing
    pass
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    l_0_record = ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record')
    context.vars['record'] = l_0_record
    context.exported_vars.add('record')
    l_0_reference = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'snapshots')
    context.vars['reference'] = l_0_reference
    context.exported_vars.add('reference')
    l_0_what = (('the KTO-like objective' if (undefined(name='direction') if l_0_direction is missing else l_0_direction) else 'flow matching') if (undefined(name='record') if l_0_record is missing else l_0_record) else 'supervised flow matching')
    context.vars['what'] = l_0_what
    context.exported_vars.add('what')
    l_0_objective_args = str_join(('model_batch, clean_state, timesteps', (', records' if (undefined(name='record') if l_0_record is missing else l_0_record) else ''), ))
    context.vars['objective_args'] = l_0_objective_args
    context.exported_vars.add('objective_args')
    yield '    def optimize_batch(self, batch: OfflineBatch) -> None:\n        """Apply one gradient-accumulation microstep of '
    yield str((undefined(name='what') if l_0_what is missing else l_0_what))
    yield '.\n\n        The cached input condition is prepared once, the target media are encoded on demand, and\n        the ``num_train_timesteps`` terms are averaged inside this single microstep. The\n        optimizer steps only when the explicit accumulation window closes (no partial flush).\n\n        Args:\n            batch: One demonstration ``OfflineBatch`` of the finite loader.\n        """\n'
    if (undefined(name='record') if l_0_record is missing else l_0_record):
        pass
        yield '        typed = '
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield '.from_batch(batch)\n        output = DemonstrationOutputBatch(target_media=tuple(r.target_media for r in typed))\n'
    else:
        pass
        yield '        output = _require_demonstration_batch(batch)\n'
    yield '        adapter = self.adapter\n        device = self.accelerator.device\n'
    if (undefined(name='record') if l_0_record is missing else l_0_record):
        pass
        yield '        records = '
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield 'Batch.from_records(typed, device)\n'
    yield '        condition = move_condition_to_device(batch.condition, device)\n        adapter.train()\n        prepared = adapter.prepare_condition_state(condition)\n        encoded = adapter.encode_output_state(output.target_media, prepared)\n'
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
        yield '        self._role_microstep(('
        yield str((undefined(name='objective_args') if l_0_objective_args is missing else l_0_objective_args))
        yield '))\n'
    else:
        pass
        yield '        with self.accumulate_gradients():\n            loss, metrics = self._objective_loss('
        yield str((undefined(name='objective_args') if l_0_objective_args is missing else l_0_objective_args))
        yield ')\n            self.accelerator.backward(loss)\n            self._finish_microstep(loss, metrics)\n'
    yield '\n    # --- objective: edit here -------------------------------------------------------------------\n    def _objective_loss(\n        self,\n        model_batch: dict[str, Any],\n        clean_state: LatentState,\n        timesteps: torch.Tensor,\n'
    if (undefined(name='record') if l_0_record is missing else l_0_record):
        pass
        yield '        records: '
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield 'Batch,\n'
    yield '    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:\n'
    if (undefined(name='direction') if l_0_direction is missing else l_0_direction):
        pass
        yield '        """KTO-like: score each record\'s flow-matching error against the frozen reference.\n\n        The implicit reward of a record is ``reference error - policy error`` (positive when the\n        policy fits its target better than the reference does); the loss is\n        ``-log sigmoid(beta * sign * reward)`` with ``sign`` +1 for a desirable record\n        (``records.'
        yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
        yield "``) and -1 for an undesirable one, so descending it lowers a\n        desirable record's error and raises an undesirable one's. At policy == reference every\n        reward is 0 and the loss is ``log 2``.\n"
    elif (undefined(name='record') if l_0_record is missing else l_0_record):
        pass
        yield '        """Flow matching on the records\' targets: regress ``noise - x0`` at every drawn timestep.\n'
    else:
        pass
        yield '        """Supervised flow matching: regress ``noise - x0`` at every drawn timestep.\n'
    if ((undefined(name='reference') if l_0_reference is missing else l_0_reference) and (not (undefined(name='direction') if l_0_direction is missing else l_0_direction))):
        pass
        yield '\n        With ``kl_beta > 0`` the squared velocity gap to the frozen reference snapshot (its\n        forward under ``torch.no_grad()`` and ``use_ref_parameters()``) is added, scaled by it.\n'
    yield '\n        Args:\n            model_batch: Prepared model-forward condition bound to the output forward context.\n            clean_state: Encoded clean targets.\n            timesteps: ``(num_train_timesteps, B)`` timesteps in [0, 1].\n'
    if (undefined(name='record') if l_0_record is missing else l_0_record):
        pass
        yield "            records: The batch's typed records, each declared field one value per row.\n"
    yield '\n        Returns:\n            The scalar loss (mean over timestep terms and batch) and extra metrics to log.\n        """\n'
    if (undefined(name='reference') if l_0_reference is missing else l_0_reference):
        pass
        yield '        args = self.training_args\n'
    yield '        per_term = []\n'
    if (undefined(name='reference') if l_0_reference is missing else l_0_reference):
        pass
        yield '        reference_terms = []\n'
    yield '        for primary_timesteps in timesteps:\n            times, noised = build_noised_output_state(\n                self.adapter, clean_state, primary_timesteps, batch=model_batch\n            )\n            with self.autocast():\n                velocity = forward_velocity_state(\n                    self,\n                    model_batch,\n                    noised.state,\n                    times,\n                    source="'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield ' policy",\n                    **self.adapter.offline_training_forward_overrides,\n                )\n            per_term.append(flow_matching_per_sample_loss(self.adapter, velocity, noised))\n'
    if (undefined(name='reference') if l_0_reference is missing else l_0_reference):
        pass
        if (not (undefined(name='direction') if l_0_direction is missing else l_0_direction)):
            pass
            yield '            if args.kl_beta <= 0.0:\n                continue\n'
        yield '            # The frozen reference: no gradient reaches it, and it never moves.\n            with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():\n                reference_velocity = forward_velocity_state(\n                    self,\n                    model_batch,\n                    noised.state,\n                    times,\n                    source="'
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ' reference",\n                    **self.adapter.offline_training_forward_overrides,\n                )\n'
        if (undefined(name='direction') if l_0_direction is missing else l_0_direction):
            pass
            yield '            reference_terms.append(\n                flow_matching_per_sample_loss(self.adapter, reference_velocity, noised)\n            )\n'
        else:
            pass
            yield '            reference_terms.append(self._velocity_kl(velocity, reference_velocity, noised))\n'
    if (undefined(name='direction') if l_0_direction is missing else l_0_direction):
        pass
        yield '        policy_error = torch.stack(per_term, dim=0).mean(dim=0)\n        reference_error = torch.stack(reference_terms, dim=0).mean(dim=0)\n        reward = reference_error - policy_error\n        # +1 for a desirable record, -1 for an undesirable one\n        sign = records.'
        yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
        yield '.to(reward.device, reward.dtype) * 2.0 - 1.0\n        loss = -torch.nn.functional.logsigmoid(float(args.beta) * sign * reward).mean()\n        metrics = {\n            "policy_error": policy_error.detach().mean(),\n            "reference_error": reference_error.detach().mean(),\n            "implicit_accuracy": (sign * reward.detach() > 0).float().mean(),\n        }\n        return loss, metrics\n'
    else:
        pass
        yield '        loss = torch.stack(per_term, dim=0).mean()\n'
        if (undefined(name='reference') if l_0_reference is missing else l_0_reference):
            pass
            yield '        metrics = {"flow_matching_loss": loss.detach()}\n        if reference_terms:\n            kl = torch.stack(reference_terms, dim=0).mean()\n            loss = loss + args.kl_beta * kl\n            metrics["kl_loss"] = kl.detach()\n        return loss, metrics\n'
        else:
            pass
            yield '        return loss, {"flow_matching_loss": loss.detach()}\n'
    yield '\n    # --- objective: end -------------------------------------------------------------------------\n'

blocks = {}
debug_info = '5=18&6=21&7=24&8=27&9=30&11=34&20=36&21=39&28=45&29=48&35=51&38=54&49=60&53=62&54=65&57=70&68=73&69=76&72=79&78=82&81=84&86=90&96=94&103=98&107=102&120=106&124=108&125=110&136=114&139=116&147=122&152=125&162=130'