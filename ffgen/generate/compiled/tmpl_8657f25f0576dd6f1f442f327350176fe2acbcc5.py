from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/_test_objective.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_family = resolve('family')
    l_0_direction = resolve('direction')
    l_0_ownership = resolve('ownership')
    l_0_structured = resolve('structured')
    l_0_record_type = resolve('record_type')
    l_0_record_fields = resolve('record_fields')
    l_0_kto = l_0_fm_reference = l_0_typed = missing
    pass
    l_0_kto = (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction))
    context.vars['kto'] = l_0_kto
    context.exported_vars.add('kto')
    l_0_fm_reference = ((((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')) and ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'snapshots')) and (not (undefined(name='kto') if l_0_kto is missing else l_0_kto)))
    context.vars['fm_reference'] = l_0_fm_reference
    context.exported_vars.add('fm_reference')
    l_0_typed = (', self.records(True)' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') else '')
    context.vars['typed'] = l_0_typed
    context.exported_vars.add('typed')
    if (((undefined(name='structured') if l_0_structured is missing else l_0_structured) and ((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record', 'awm', 'opd', 'offline_dpo'))) and (not (undefined(name='kto') if l_0_kto is missing else l_0_kto))):
        pass
        yield '\n    def test_objective_reduces_every_component_of_a_two_component_state(self, trainer):\n        """Rule: the objective reduces the errors of every component of a structured state\n        (here the latent\'s error and the audio\'s differ; the fake model averages the two)."""\n        state = two_components([0.0, 0.0], [1.0, 1.0, 1.0])\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record', 'awm')):
            pass
            yield '\n        def loss_at(weight):\n            trainer.adapter.weight.data.fill_(weight)\n'
            if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
                pass
                yield '            # the matching error the ratio is built from, at t = 0.5\n            _, noised, old_log_prob = trainer._record_old_log_probs({}, state)[0]\n            return -float(old_log_prob)\n'
            else:
                pass
                yield '            timesteps = torch.full((2, 1), 0.5)\n            loss, _ = trainer._objective_loss({}, state, timesteps'
                yield str((undefined(name='typed') if l_0_typed is missing else l_0_typed))
                yield ')\n            return float(loss.detach())\n'
            yield '\n        # x0 = 0: x_t = 0.5, target 1; x0 = 1: x_t = 1, target 0\n        assert loss_at(2.0) == pytest.approx((0.0 + 4.0) / 2)  # latent exact, audio (2 - 0) ** 2\n        assert loss_at(0.0) == pytest.approx((1.0 + 0.0) / 2)  # latent (0 - 1) ** 2, audio exact\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
            pass
            yield '        trainer.adapter.weight.data.fill_(1.0)  # the student steps to x / 2, the teacher stays\n        replay = replay_step(state, torch.zeros(1))\n        (target,) = trainer._teacher_targets({}, [replay])\n        loss, _ = trainer._objective_loss({}, replay, target)\n        assert float(loss.detach()) == pytest.approx((0.0 + 0.5**2) / 2)  # latent 0, audio 1\n'
        else:
            pass
            yield '        trainer.adapter.weight.data.fill_(2.0)  # exact on both components of the chosen arm\n        chosen = two_components([0.0, 0.0], [0.0, 0.0, 0.0])\n        loss = self.loss(trainer, chosen, state)\n        # rejected = chosen but for "audio": policy gaps chosen 0, rejected (0 + 4) / 2;\n        # reference (weight 0) chosen (1 + 1) / 2, rejected (1 + 0) / 2\n        delta = (0.0 - 1.0) - (2.0 - 0.5)\n        assert float(loss.detach()) == pytest.approx(math.log1p(math.exp(0.5 * self.BETA * delta)))\n'
    elif ((undefined(name='structured') if l_0_structured is missing else l_0_structured) and ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo')):
        pass
        yield '\n    def test_kl_term_reduces_every_component_of_a_two_component_state(self, trainer):\n        """Rule: the KL penalty is the velocity gap to the reference over every component."""\n        trainer.adapter.frozen["reference"] = torch.tensor(0.5)  # the policy\'s weight is 0\n        step = replay_step(two_components([0.0, 1.0], [1.0, 0.0, 1.0]), torch.zeros(1))\n        plain, _ = trainer._objective_loss({}, step, torch.ones(1))\n        trainer.training_args.kl_beta = 0.5\n        loss, metrics = trainer._objective_loss({}, step, torch.ones(1))\n        kl = (0.25 / 2 + 0.5 / 3) / 2  # (0.5 x) ** 2 averaged per component, then over the two\n        assert float(metrics["kl_loss"]) == pytest.approx(kl)\n        assert float(loss.detach() - plain.detach()) == pytest.approx(0.5 * kl)\n'
    if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record'):
        pass
        yield '\n    def records(self, *desirable):\n        """The typed batch view of ``len(desirable)`` rows'
        if (undefined(name='direction') if l_0_direction is missing else l_0_direction):
            pass
            yield ' (``'
            yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
            yield '`` per row)'
        yield '."""\n        return '
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield 'Batch(\n            records=(),\n'
        for (l_1_name, l_1_kind) in (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
            _loop_vars = {}
            pass
            if (l_1_name == (undefined(name='direction') if l_0_direction is missing else l_0_direction)):
                pass
                yield '            '
                yield str(l_1_name)
                yield '=torch.tensor(desirable),\n'
            elif (l_1_kind == 'bool'):
                pass
                yield '            '
                yield str(l_1_name)
                yield '=torch.ones(len(desirable), dtype=torch.bool),\n'
            elif (l_1_kind == 'int'):
                pass
                yield '            '
                yield str(l_1_name)
                yield '=torch.ones(len(desirable), dtype=torch.long),\n'
            elif (l_1_kind == 'float'):
                pass
                yield '            '
                yield str(l_1_name)
                yield '=torch.full((len(desirable),), 0.5),\n'
            else:
                pass
                yield '            '
                yield str(l_1_name)
                yield '=("text",) * len(desirable),\n'
        l_1_name = l_1_kind = missing
        yield '        )\n\n    def test_declared_fields_reach_the_objective_as_batch_values(self):\n        """Rule: every declared field is read from the row\'s metadata and reaches the objective\n        as one value per row of the batch view."""\n        rows = [dict(self.RECORD_FIELDS, index=index) for index in range(2)]\n        records = tuple(self.record(index, metadata) for index, metadata in enumerate(rows))\n        view = '
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield 'Batch.from_records(records, torch.device("cpu"))\n        assert view.records == records\n'
        for (l_1_name, l_1_kind) in (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
            _loop_vars = {}
            pass
            if (l_1_kind == 'str'):
                pass
                yield '        assert view.'
                yield str(l_1_name)
                yield ' == (self.RECORD_FIELDS["'
                yield str(l_1_name)
                yield '"],) * 2\n'
            else:
                pass
                yield '        assert view.'
                yield str(l_1_name)
                yield '.tolist() == [self.RECORD_FIELDS["'
                yield str(l_1_name)
                yield '"]] * 2\n'
        l_1_name = l_1_kind = missing
        if (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
            pass
            yield '\n    def test_a_row_without_a_declared_field_is_refused_naming_it(self):\n        """Rule: a row whose metadata lacks a declared field is refused, naming the field."""\n        with pytest.raises(ValueError, match="'
            yield str(environment.getitem(environment.getitem((undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields), 0), 0))
            yield '"):\n            self.record(0, {"index": 0})\n'
    if (undefined(name='kto') if l_0_kto is missing else l_0_kto):
        pass
        yield '\n    def loss(self, trainer, state, *desirable):\n        """The objective on ``state`` (one row per label) at t = 0.5, two timestep terms."""\n        timesteps = torch.full((2, len(desirable)), 0.5)\n        return trainer._objective_loss({}, state, timesteps, self.records(*desirable))\n\n    def rank_loss(self, trainer, rank):\n        # the undesirable row\'s error has no slope at weight 0: the rows never cancel\n        return self.loss(trainer, self.state([float(rank), 0.0], [1.0, 1.0]), True, False)[0]\n\n    def test_policy_equal_to_reference_gives_log_two(self, trainer):\n        """Rule: against an identical frozen reference every implicit reward is zero, so the\n        KTO-like loss is ``log 2`` whatever the labels."""\n        loss, metrics = self.loss(trainer, self.state([0.0, 0.0], [1.0, 1.0]), True, False)\n        assert float(loss.detach()) == pytest.approx(math.log(2.0))\n        assert float(metrics["implicit_accuracy"]) == 0.0\n\n    def test_a_policy_that_fits_a_desirable_record_better_lowers_its_loss(self, trainer):\n        """Rule: the loss is ``-log sigmoid(beta * sign * (reference error - policy error))``:\n        below ``log 2`` for a desirable record the policy fits better than the reference, above\n        it for an undesirable one (sign, labels and ``beta``)."""\n        trainer.adapter.weight.data.fill_(2.0)  # exact on x0 = 0; the reference (0) errs by 1\n        state = self.state([0.0, 0.0])\n        desirable, _ = self.loss(trainer, state, True)\n        undesirable, _ = self.loss(trainer, state, False)\n        assert float(desirable.detach()) == pytest.approx(math.log1p(math.exp(-self.BETA)))\n        assert float(undesirable.detach()) == pytest.approx(math.log1p(math.exp(self.BETA)))\n\n    def test_the_update_lowers_a_desirable_error_and_raises_an_undesirable_one(self, trainer):\n        """Rule: descending the loss moves the policy toward a desirable record\'s target and\n        away from an undesirable one\'s (here raising the weight lowers the error)."""\n        state = self.state([0.0, 0.0])\n        desirable, _ = self.loss(trainer, state, True)\n        assert grad_of(desirable, trainer) < 0\n        undesirable, _ = self.loss(trainer, state, False)\n        assert grad_of(undesirable, trainer) > 0\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')):
        pass
        yield '\n    def loss(self, trainer, state):\n        return trainer._objective_loss({}, state, torch.full((2, 1), 0.5)'
        yield str((undefined(name='typed') if l_0_typed is missing else l_0_typed))
        yield ')[0]\n\n    def rank_loss(self, trainer, rank):\n        return self.loss(trainer, self.state([float(rank), 0.0]))\n\n    def test_'
        yield str((undefined(name='family') if l_0_family is missing else l_0_family))
        yield '_loss_is_zero_when_the_model_predicts_the_velocity_target(self, trainer):\n        """Rule: '
        yield str(('supervised flow matching' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'sft') else "flow matching on the records' targets"))
        yield ' regresses ``noise - x0``; an exact prediction\n        costs 0."""\n        trainer.adapter.weight.data.fill_(2.0)  # x0 = 0, n = 1, t = 0.5: 2 * x_t == n - x0\n        loss = self.loss(trainer, self.state([0.0, 0.0]))\n        assert float(loss.detach()) == pytest.approx(0.0, abs=1e-7)\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_'
        yield str((undefined(name='family') if l_0_family is missing else l_0_family))
        yield '_loss_is_positive_and_descends_toward_the_target(self, trainer):\n        """Rule: the objective is a squared error, minimised (not maximised) by the update."""\n        loss = self.loss(trainer, self.state([0.0, 0.0]))\n        assert float(loss.detach()) == pytest.approx(1.0)\n        assert grad_of(loss, trainer) < 0  # increasing the weight moves toward the target\n'
        if (undefined(name='fm_reference') if l_0_fm_reference is missing else l_0_fm_reference):
            pass
            yield '\n    def test_kl_term_adds_kl_beta_times_the_velocity_gap_to_the_reference(self, trainer):\n        """Rule: the penalty is the squared velocity gap to the frozen reference at the noised\n        state, added to the loss scaled by ``kl_beta``."""\n        trainer.adapter.frozen["reference"] = torch.tensor(0.5)  # the policy\'s weight is 0\n        state, timesteps = self.state([0.0, 0.0], [1.0, 1.0]), torch.full((2, 2), 0.5)\n        typed = ('
            yield str(('self.records(True, True),' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') else cond_expr_undefined("the inline if-expression on line 164 in 'algorithm/_test_objective.jinja' evaluated to false and no else section was defined.")))
            yield ')\n        plain, _ = trainer._objective_loss({}, state, timesteps, *typed)\n        trainer.training_args.kl_beta = 0.5\n        loss, metrics = trainer._objective_loss({}, state, timesteps, *typed)\n        kl = (0.25**2 + 0.5**2) / 2  # (0.5 x_t) ** 2 for x_t = 0.5 and 1, averaged over the batch\n        assert float(metrics["kl_loss"]) == pytest.approx(kl)\n        assert float(loss.detach() - plain.detach()) == pytest.approx(0.5 * kl)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
        pass
        yield '\n    def loss(self, trainer, chosen, rejected):\n        return trainer._objective_loss(({}, chosen), ({}, rejected), torch.full((2, 1), 0.5))[0]\n\n    def rank_loss(self, trainer, rank):\n        return self.loss(trainer, self.state([0.0, 0.0]), self.state([1.0 + rank, 1.0]))\n\n    def test_identical_arms_give_log_two_and_zero_gradient(self, trainer):\n        """Rule: Diffusion-DPO compares arms; identical chosen and rejected carry no preference."""\n        trainer.adapter.weight.data.fill_(1.5)\n        loss = self.loss(trainer, self.state([0.0, 0.0]), self.state([0.0, 0.0]))\n        assert float(loss.detach()) == pytest.approx(math.log(2.0))\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_policy_better_on_chosen_than_reference_lowers_the_loss(self, trainer):\n        """Rule: the loss is ``-log sigmoid(-beta / 2 * ((policy - reference) on chosen -\n        (policy - reference) on rejected))``: below log 2 when the policy beats the reference on\n        the chosen arm and trails it on the rejected arm (sign, arm order and ``beta``)."""\n        trainer.adapter.weight.data.fill_(2.0)  # exact on chosen (x0 = 0), worse on rejected\n        loss = self.loss(trainer, self.state([0.0, 0.0]), self.state([1.0, 1.0]))\n        # policy errors: chosen 0, rejected (2 - 0) ** 2; reference (weight 0): chosen 1, rejected 0\n        delta = (0.0 - 1.0) - (4.0 - 0.0)\n        assert float(loss.detach()) == pytest.approx(math.log1p(math.exp(0.5 * self.BETA * delta)))\n        assert float(loss.detach()) < math.log(2.0)\n\n    def test_reference_equal_to_policy_gives_log_two(self, trainer):\n        """Rule: against an identical frozen reference the implicit reward is zero."""\n        loss = self.loss(trainer, self.state([0.0, 0.0]), self.state([1.0, 1.0]))\n        assert float(loss.detach()) == pytest.approx(math.log(2.0))\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
        pass
        yield '\n    def step(self, old_log_prob):\n        """The batch ``[[0, 0], [1, 1]]`` replayed with rollout log-prob ``old_log_prob``."""\n        return replay_step(self.state([0.0, 0.0], [1.0, 1.0]), torch.full((2,), old_log_prob))\n\n    def rank_loss(self, trainer, rank):\n        return trainer._objective_loss({}, self.step(0.0), torch.tensor([1.0 + rank, -1.0]))[0]\n\n    def test_zero_advantages_give_zero_policy_gradient(self, trainer):\n        """Rule: without an advantage signal the policy does not move."""\n        loss, _ = trainer._objective_loss({}, self.step(0.0), torch.zeros(2))\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_ratio_clipping_is_inactive_inside_the_clip_range(self, trainer):\n        """Rule: inside the clip range the surrogate is ``-A r``, so its gradient is ``-A r``."""\n        loss, metrics = trainer._objective_loss({}, self.step(0.0), torch.ones(2))\n        assert float(metrics["ratio"]) == pytest.approx(1.0)\n        assert grad_of(loss, trainer) == pytest.approx(-1.0)\n\n    def test_ratio_clipping_is_active_outside_the_clip_range(self, trainer):\n        """Rule: a ratio above ``1 + clip_range[1]`` with a positive advantage gets no\n        gradient."""\n        loss, metrics = trainer._objective_loss({}, self.step(-1.0), torch.ones(2))\n        assert float(metrics["ratio"]) > 1.0 + trainer.training_args.clip_range[1]\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_kl_term_adds_kl_beta_times_the_velocity_gap_to_the_reference(self, trainer):\n        """Rule: the KL penalty is the velocity gap to the frozen reference, added to the loss\n        scaled by ``kl_beta``."""\n        trainer.adapter.frozen["reference"] = torch.tensor(0.5)  # the policy\'s weight is 0\n        plain, _ = trainer._objective_loss({}, self.step(0.0), torch.ones(2))\n        trainer.training_args.kl_beta = 0.5\n        loss, metrics = trainer._objective_loss({}, self.step(0.0), torch.ones(2))\n        kl = (0.0 + 0.25) / 2  # (0 - 0.5 x) ** 2 for x = 0 and x = 1, averaged over the batch\n        assert float(metrics["kl_loss"]) == pytest.approx(kl)\n        assert float(loss.detach() - plain.detach()) == pytest.approx(0.5 * kl)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
        pass
        yield '\n    def steps(self, trainer, *rows):\n        """The batch ``rows`` re-noised at t = 0.5, scored by the current (sampling) policy."""\n        return trainer._record_old_log_probs({}, self.state(*rows))\n\n    def loss(self, trainer, advantages, *, old_shift=0.0, rows=([0.0, 0.0], [1.0, 1.0])):\n        """The first microstep\'s loss; ``old_shift`` moves the rollout log-likelihood."""\n        times, noised, old_log_prob = self.steps(trainer, *rows)[0]\n        step = (times, noised, old_log_prob + old_shift)\n        return trainer._objective_loss({}, step, torch.tensor(advantages))\n\n    def rank_loss(self, trainer, rank):\n        return self.loss(trainer, [float(rank), -1.0])[0]\n\n    def test_on_policy_ratio_is_one_and_the_loss_is_minus_the_mean_advantage(self, trainer):\n        """Rule: the microsteps reuse the noised states the sampling policy scored, so the first\n        ratio is exactly 1 and the surrogate ``-A r`` averages to ``-mean(A)``."""\n        loss, metrics = self.loss(trainer, [1.0, -0.5])\n        assert float(metrics["ratio"]) == pytest.approx(1.0)\n        assert float(loss.detach()) == pytest.approx(-0.25)\n\n    def test_one_sample_batches_follow_their_advantage_sign(self, trainer):\n        """Rule: each sample is weighted by its own group-normalised advantage, not by a\n        normalisation over its micro-batch: in a batch of one, a positive advantage lowers the\n        sample\'s matching error and a negative one raises it."""\n        # weight 0, x0 = 0, x_t = 0.5, target 1: d error / d weight = -1\n        better, _ = self.loss(trainer, [1.0], rows=([0.0, 0.0],))\n        worse, _ = self.loss(trainer, [-1.0], rows=([0.0, 0.0],))\n        assert grad_of(better, trainer) == pytest.approx(-1.0)\n        assert grad_of(worse, trainer) == pytest.approx(1.0)\n\n    def test_zero_advantages_give_zero_policy_gradient(self, trainer):\n        """Rule: without an advantage signal the policy does not move."""\n        loss, _ = self.loss(trainer, [0.0, 0.0])\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_ratio_clipping_is_active_outside_the_clip_range(self, trainer):\n        """Rule: a ratio above ``1 + clip_range[1]`` with a positive advantage gets no\n        gradient."""\n        loss, metrics = self.loss(trainer, [1.0, 1.0], old_shift=-1.0)\n        assert float(metrics["ratio"]) > 1.0 + trainer.training_args.clip_range[1]\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_kl_term_adds_kl_beta_times_the_velocity_gap_to_the_reference(self, trainer):\n        """Rule: the KL penalty is the velocity gap to the frozen reference at the re-noised\n        state, added to the loss scaled by ``kl_beta``."""\n        trainer.adapter.frozen["reference"] = torch.tensor(0.5)  # the policy\'s weight is 0\n        plain, _ = self.loss(trainer, [1.0, -1.0])\n        trainer.training_args.kl_beta = 0.5\n        loss, metrics = self.loss(trainer, [1.0, -1.0])\n        kl = (0.25**2 + 0.5**2) / 2  # (0.5 x_t) ** 2 for x_t = 0.5 and 1, averaged over the batch\n        assert float(metrics["kl_loss"]) == pytest.approx(kl)\n        assert float(loss.detach() - plain.detach()) == pytest.approx(0.5 * kl)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
        pass
        yield '\n    def loss(self, trainer):\n        """The distillation loss of the batch ``[[0, 0], [1, 1]]`` at its stored transition from\n        t = 0.5 to 0, against the teacher\'s target there."""\n        replay = replay_step(self.state([0.0, 0.0], [1.0, 1.0]), torch.zeros(2))\n        (target,) = trainer._teacher_targets({}, [replay])\n        return trainer._objective_loss({}, replay, target)\n\n    def rank_loss(self, trainer, rank):\n        trainer.adapter.frozen["teacher"] = torch.tensor(1.0)\n        return self.loss(trainer)[0] * (1.0 + rank)\n\n    def test_student_equal_to_teacher_gives_zero_distillation_loss(self, trainer):\n        """Rule: the student matches the frozen teacher\'s transition, not the data."""\n        loss, _ = self.loss(trainer)\n        assert float(loss.detach()) == pytest.approx(0.0, abs=1e-7)\n        assert grad_of(loss, trainer) == pytest.approx(0.0, abs=1e-7)\n\n    def test_student_moves_toward_the_teacher_transition(self, trainer):\n        """Rule: the loss is the squared gap of the one-step transition means (``xt``): at weight\n        1 the student steps x to x / 2, the teacher (weight 0) keeps x; its gradient points to\n        the teacher."""\n        trainer.adapter.weight.data.fill_(1.0)\n        loss, metrics = self.loss(trainer)\n        assert float(loss.detach()) == pytest.approx((0.0 + 0.25) / 2)\n        assert float(metrics["distill_loss"]) == pytest.approx(float(loss.detach()))\n        assert grad_of(loss, trainer) > 0  # the teacher\'s weight is 0: descend\n\n    def test_the_teacher_is_switched_in_once_for_every_step_of_a_batch(self, trainer):\n        """Rule: the teacher\'s targets of a batch\'s distilled steps come from one switch of\n        weights, as the built-in\'s one swap per teacher."""\n        switches = []\n        use = trainer.adapter.use_named_parameters\n        trainer.adapter.use_named_parameters = lambda name: switches.append(name) or use(name)\n        replay = replay_step(self.state([0.0, 0.0], [1.0, 1.0]), torch.zeros(2))\n        targets = trainer._teacher_targets({}, [replay, replay, replay])\n        assert len(targets) == 3 and len(switches) == 1\n\n    def test_self_normalize_divides_by_the_detached_mean_absolute_gap(self, trainer):\n        """Rule: with ``self_normalize`` each sample\'s squared gap is divided by its detached\n        mean absolute gap (+ 1e-8), as DiffusionOPD\'s."""\n        trainer.adapter.weight.data.fill_(1.0)\n        trainer.training_args.self_normalize = True\n        loss, _ = self.loss(trainer)\n        assert float(loss.detach()) == pytest.approx((0.0 + 0.25 / (0.5 + 1e-8)) / 2)\n'
    elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
        pass
        yield '\n    def rank_loss(self, trainer, rank):\n        trainer.adapter.frozen["teacher"] = torch.tensor(1.0)\n        return self.generator_loss(trainer)[0] * (1.0 + rank)\n\n    def test_critic_loss_is_flow_matching_on_the_generator_samples(self, trainer):\n        """Rule: the critic regresses the flow-matching target ``noise - x0`` of the generator\'s\n        samples: zero when it predicts it, positive otherwise."""\n        _, critic_role = self.roles_of()\n        clean = self.state([0.0, 0.0], [0.0, 0.0])\n        critic = trainer.adapter.role_weights[critic_role]\n\n        def loss_at(weight):\n            critic.data.fill_(weight)\n            with trainer.adapter.use_component_variant(critic_role):\n                loss, _ = trainer._critic_loss({}, clean, torch.full((2,), 0.5))\n            return loss\n\n        assert float(loss_at(2.0).detach()) == pytest.approx(0.0, abs=1e-7)\n        loss = loss_at(0.0)\n        assert float(loss.detach()) > 0\n        loss.backward()\n        assert critic.grad is not None and trainer.adapter.weight.grad is None\n\n    def test_generator_loss_vanishes_when_the_critic_matches_the_teacher(self, trainer):\n        """Rule: the generator\'s gradient is ``fake - real``: nothing to learn when the critic\'s\n        score equals the teacher\'s."""\n        _, critic_role = self.roles_of()\n        trainer.adapter.frozen["teacher"] = torch.tensor(0.7)\n        trainer.adapter.role_weights[critic_role].data.fill_(0.7)\n        loss, _ = self.generator_loss(trainer)\n        assert float(loss.detach()) == pytest.approx(0.0, abs=1e-7)\n\n    def test_generator_moves_away_from_the_critic_toward_the_teacher(self, trainer):\n        """Rule: with the teacher\'s clean prediction above the critic\'s, the generator\'s gradient\n        moves its own prediction up; the critic and teacher receive no gradient."""\n        _, critic_role = self.roles_of()\n        trainer.adapter.frozen["teacher"] = torch.tensor(0.0)  # x0_real = x_t\n        trainer.adapter.role_weights[critic_role].data.fill_(1.0)  # x0_fake = x_t - t x_t\n        loss, _ = self.generator_loss(trainer)\n        assert float(loss.detach()) > 0\n        loss.backward()\n        # x0 = x_t - t w x_t decreases with w: raising the prediction lowers the weight\n        assert float(trainer.adapter.weight.grad) > 0\n        assert trainer.adapter.role_weights[critic_role].grad is None\n'

blocks = {}
debug_info = '2=18&3=21&4=24&5=27&11=30&15=33&21=39&28=42&43=48&56=51&59=54&60=60&62=62&63=65&64=68&65=70&66=73&67=75&68=78&69=80&70=83&72=88&82=92&84=94&85=97&86=100&88=107&91=112&95=115&99=117&136=120&139=123&144=125&145=127&152=129&157=131&164=134&172=136&202=139&239=142&293=145&339=148'