from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/_test_hook_loss.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_acquisition = resolve('acquisition')
    pass
    yield '\n    def rank_loss(self, trainer, rank):\n        """The loss the hook hands to ``accelerator.backward`` (kept, not run backward), on data\n        that differs between ranks: the copied objective is the source\'s, reached through its\n        hook."""\n        losses = []\n        # The hook\'s own bookkeeping (events, metrics, the fake optimizer step) is put back:\n        # only the loss is wanted here.\n        kept = (trainer.accelerator.backward, trainer._apply_optimizer_step, trainer._loss_info,\n                list(trainer.events), list(trainer.windows))\n        trainer.accelerator.backward = losses.append\n        trainer._apply_optimizer_step = lambda loss_info: loss_info\n        try:\n            self.run_hook(trainer, rank)\n        finally:\n            trainer.accelerator.backward, trainer._apply_optimizer_step = kept[:2]\n            trainer._loss_info = kept[2]\n            trainer.events[:], trainer.windows[:] = kept[3], kept[4]\n        assert losses, "the hook computed no loss"\n        return torch.stack(losses).sum()\n\n    def run_hook(self, trainer, rank):\n        """The hook on one batch whose data depends on ``rank``."""\n'
    if ((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition) == 'dataset'):
        pass
        yield '        batch = self.batch(rank)\n        for field in dataclasses.fields(batch.output):\n            _shift(getattr(batch.output, field.name), float(rank + 1))\n        trainer.optimize_batch(batch)\n'
    else:
        pass
        yield '        batch = {\n            "latents": state_of(self.COMPONENTS, [float(rank), 0.0], [1.0, float(rank)]).components,\n            "advantage": torch.tensor([1.0, -1.0]),\n            "old_log_prob": torch.zeros(2),\n        }\n        trainer._iter_prefetched_batches = lambda samples, per_device_batch_size: iter([batch])\n        trainer.optimize(["s0", "s1"])\n'
    yield '\n    def test_the_hook_loss_moves_the_weights(self, trainer):\n        """Rule: the copied objective trains: its loss has a gradient on the trainable weight."""\n        loss = self.rank_loss(trainer, 0)\n        assert torch.isfinite(loss.detach())\n        trainer.adapter.weight.grad = None\n        loss.backward()\n        assert trainer.adapter.weight.grad is not None\n'
    if ((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition) == 'dataset'):
        pass
        yield '\n\ndef _shift(value, by):\n    """Shift every media payload in ``value`` (media tuples, nested) by ``by``, in place."""\n    if isinstance(value, tuple | list):\n        for item in value:\n            _shift(item, by)\n    elif isinstance(getattr(value, "payload", None), torch.Tensor):\n        value.payload.add_(by)\n'

blocks = {}
debug_info = '26=13&48=20'