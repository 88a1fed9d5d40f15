from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/families/_renoise_optimize.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_ownership = resolve('ownership')
    l_0_family = resolve('family')
    l_0_state = resolve('state')
    l_0_key = resolve('key')
    l_0_multi_role = missing
    pass
    l_0_multi_role = ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role')
    context.vars['multi_role'] = l_0_multi_role
    context.exported_vars.add('multi_role')
    yield '    def optimize(self, samples: list[BaseSample]) -> None:\n        """Re-noise the final samples at drawn timesteps; one microstep per timestep row.\n\n        Args:\n            samples: The cycle\'s samples (final clean states only)'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
        pass
        yield ', with advantages'
    yield '.\n        """\n        args = self.training_args\n        adapter = self.adapter\n        adapter.train()\n        for inner_epoch in range(int(args.num_inner_epochs)):\n            ordered = self._order_samples_for_optimize(samples, inner_epoch)\n            for batch in self._iter_prefetched_batches(ordered, int(args.per_device_batch_size)):\n'
    if ((undefined(name='state') if l_0_state is missing else l_0_state) == 'structured'):
        pass
        yield '                clean_state = self._validate_structured_state(\n                    adapter.get_terminal_state(batch),\n                    "'
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ' final samples",\n                )\n'
    else:
        pass
        yield '                clean_state = adapter.get_terminal_state(batch)\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
        pass
        yield '                advantages = batch["advantage"].float()\n'
    yield '                timesteps = self._sample_timesteps(\n                    state_batch_size(\n                        self,\n                        clean_state,\n                        "'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield ' final samples",\n                    )\n                )\n                for primary_timesteps in timesteps:\n'
    if (undefined(name='multi_role') if l_0_multi_role is missing else l_0_multi_role):
        pass
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
            pass
            yield '                    self._role_microstep((batch, clean_state, primary_timesteps, advantages))\n'
        else:
            pass
            yield '                    self._role_microstep((batch, clean_state, primary_timesteps))\n'
    else:
        pass
        yield '                    with self.accumulate_gradients():\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
            pass
            yield '                        loss, metrics = self._objective_loss(\n                            batch, clean_state, primary_timesteps, advantages\n                        )\n'
        else:
            pass
            yield '                        loss, metrics = self._objective_loss(batch, clean_state, primary_timesteps)\n'
        yield '                        self.accelerator.backward(loss)\n                        self._finish_microstep(loss, metrics)\n'

blocks = {}
debug_info = '2=16&7=20&15=24&18=27&23=32&30=36&34=38&35=40&42=49'