from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'algorithm/docs.md.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_acquisition = resolve('acquisition')
    l_0_key = resolve('key')
    l_0_trainer_class = resolve('trainer_class')
    l_0_feedback = resolve('feedback')
    l_0_contract = resolve('contract')
    l_0_paradigm = resolve('paradigm')
    l_0_dynamics = resolve('dynamics')
    l_0_supervision = resolve('supervision')
    l_0_record_type = resolve('record_type')
    l_0_record_fields = resolve('record_fields')
    l_0_direction = resolve('direction')
    l_0_state = resolve('state')
    l_0_ownership = resolve('ownership')
    l_0_roles = resolve('roles')
    l_0_trainer_dotted = resolve('trainer_dotted')
    l_0_args_class = resolve('args_class')
    l_0_args_path = resolve('args_path')
    l_0_source_mode = resolve('source_mode')
    l_0_source_key = resolve('source_key')
    l_0_source_trainer = resolve('source_trainer')
    l_0_source_parent = resolve('source_parent')
    l_0_source_hook = resolve('source_hook')
    l_0_source_kind = resolve('source_kind')
    l_0_trainer_path = resolve('trainer_path')
    l_0_family = resolve('family')
    l_0_role_cadence = resolve('role_cadence')
    l_0_module = resolve('module')
    l_0_has_reward = resolve('has_reward')
    l_0_params = resolve('params')
    l_0_uses_snapshots = resolve('uses_snapshots')
    l_0_model_type = resolve('model_type')
    l_0_train_command = resolve('train_command')
    l_0_example_path = resolve('example_path')
    l_0_test_path = resolve('test_path')
    l_0_args_test_path = resolve('args_test_path')
    l_0_dataset = missing
    try:
        t_1 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    l_0_dataset = ((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition) == 'dataset')
    context.vars['dataset'] = l_0_dataset
    context.exported_vars.add('dataset')
    yield '## `'
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '` ('
    yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
    yield ')\n\n| Property | Value |\n|---|---|\n| Acquisition / feedback | `'
    yield str((undefined(name='acquisition') if l_0_acquisition is missing else l_0_acquisition))
    yield '` / `'
    yield str((undefined(name='feedback') if l_0_feedback is missing else l_0_feedback))
    yield '` (`'
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '`) |\n| Paradigm | `'
    yield str((undefined(name='paradigm') if l_0_paradigm is missing else l_0_paradigm))
    yield '` |\n| Dynamics | `'
    yield str((undefined(name='dynamics') if l_0_dynamics is missing else l_0_dynamics))
    yield '`'
    if ((undefined(name='paradigm') if l_0_paradigm is missing else l_0_paradigm) == 'coupled'):
        pass
        yield ' (SDE required: `Flow-SDE`, `Dance-SDE` or `CPS`)'
    elif ((undefined(name='dynamics') if l_0_dynamics is missing else l_0_dynamics) == 'ode'):
        pass
        yield ' (the trainer refuses a `scheduler.dynamics_type` other than `ODE`)'
    elif ((undefined(name='dynamics') if l_0_dynamics is missing else l_0_dynamics) == 'sde'):
        pass
        yield ' (the trainer refuses a `scheduler.dynamics_type` other than `Flow-SDE`, `Dance-SDE` or `CPS`)'
    yield ' |\n| Supervision | '
    if ((undefined(name='supervision') if l_0_supervision is missing else l_0_supervision) == 'record'):
        pass
        yield 'typed record `'
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
        yield '`'
        l_1_loop = missing
        for (l_1_name, l_1_kind), l_1_loop in LoopContext((undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields), undefined):
            _loop_vars = {}
            pass
            yield str((' (' if environment.getattr(l_1_loop, 'first') else cond_expr_undefined("the inline if-expression on line 11 in 'algorithm/docs.md.jinja' evaluated to false and no else section was defined.")))
            yield '`'
            yield str(l_1_name)
            yield ': '
            yield str(l_1_kind)
            yield '`'
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else ')'))
        l_1_loop = l_1_name = l_1_kind = missing
        if (undefined(name='direction') if l_0_direction is missing else l_0_direction):
            pass
            yield '; direction `'
            yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
            yield '`'
    else:
        pass
        yield '`'
        yield str((undefined(name='supervision') if l_0_supervision is missing else l_0_supervision))
        yield '`'
    yield ' |\n| State | `'
    yield str((undefined(name='state') if l_0_state is missing else l_0_state))
    yield '` |\n| Ownership | `'
    yield str((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership))
    yield '`'
    if (undefined(name='roles') if l_0_roles is missing else l_0_roles):
        pass
        yield ' (roles: '
        l_1_loop = missing
        for l_1_role, l_1_loop in LoopContext((undefined(name='roles') if l_0_roles is missing else l_0_roles), undefined):
            _loop_vars = {}
            pass
            yield '`'
            yield str(l_1_role)
            yield '`'
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 14 in 'algorithm/docs.md.jinja' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_role = missing
        yield ')'
    yield ' |\n| Trainer | `'
    yield str((undefined(name='trainer_dotted') if l_0_trainer_dotted is missing else l_0_trainer_dotted))
    yield '` |\n| Arguments | `'
    yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
    yield '` in `'
    yield str((undefined(name='args_path') if l_0_args_path is missing else l_0_args_path))
    yield '` |\n\n'
    if ((undefined(name='source_mode') if l_0_source_mode is missing else l_0_source_mode) == 'like'):
        pass
        yield '**Started from `'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '`.** `ffgen new '
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ' --like '
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '` copied\n`'
        yield str((undefined(name='source_trainer') if l_0_source_trainer is missing else l_0_source_trainer))
        yield '` and its arguments class, with the module-level helpers they use, renaming\nonly what is bound to `'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '` (its classes, its registry key, the imports of its modules).\nThe record keeps the source as it was copied: `ffgen check` says when `'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '` changes,\nand `ffgen update '
        yield str((undefined(name='key') if l_0_key is missing else l_0_key))
        yield ' --from-source` merges its changes into this copy, keeping your edits.\n'
        if (undefined(name='source_parent') if l_0_source_parent is missing else l_0_source_parent):
            pass
            yield 'Like `'
            yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
            yield '`, `'
            yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
            yield '` is a strict extension of `'
            yield str((undefined(name='source_parent') if l_0_source_parent is missing else l_0_source_parent))
            yield "`: it\nkeeps the source's design (everything it does not override is `"
            yield str((undefined(name='source_parent') if l_0_source_parent is missing else l_0_source_parent))
            yield "`'s), and its\nclass docstring says so and why.\n"
        yield '\n'
    elif ((undefined(name='source_mode') if l_0_source_mode is missing else l_0_source_mode) == 'extends'):
        pass
        yield '**A strict extension of `'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '`.** `'
        yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
        yield '` subclasses `'
        yield str((undefined(name='source_trainer') if l_0_source_trainer is missing else l_0_source_trainer))
        yield '`\nand overrides only its objective hook `'
        yield str((undefined(name='source_hook') if l_0_source_hook is missing else l_0_source_hook))
        yield '`; `'
        yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
        yield '` subclasses its\narguments and differs only in the registry key. Why not `BaseTrainer` plus shared helpers: all\nbut the objective (sampling, feedback, replay, checkpoints, the contract and the paradigm) is\n`'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield "`'s, and re-deriving it would duplicate the parent's pipeline for a one-method\nchange; Flow-Factory sanctions strict extensions of `"
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '` for this case.\n\n'
    if ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) == 'handwritten'):
        pass
        yield '**Objective.** `'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield "`'s own, as `"
        yield str((undefined(name='source_trainer') if l_0_source_trainer is missing else l_0_source_trainer))
        yield '` computes it: the trainer is a\ncopy of it (see above). Edit the copy in `'
        yield str((undefined(name='trainer_path') if l_0_trainer_path is missing else l_0_trainer_path))
        yield '`.\n'
    else:
        pass
        yield '**Objective.**\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')):
            pass
            if (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction)):
                pass
                yield "KTO-like, against the frozen reference snapshot. For each batch the input conditions are\nprepared once, the target media are encoded on demand and `num_train_timesteps` timesteps are\ndrawn per record; each term noises the target and computes the flow-matching error of the policy\nand, under `torch.no_grad()` and `adapter.use_ref_parameters()`, of the reference. A record's\nimplicit reward is `reference error - policy error` (averaged over the terms); the loss is\n`-log sigmoid(beta * sign * reward)`, `sign` +1 where `"
                yield str((undefined(name='direction') if l_0_direction is missing else l_0_direction))
                yield '` is true (desirable: its\nerror falls) and -1 where it is false (its error rises). At policy = reference it is `log 2`.\n'
            else:
                pass
                yield str(('Supervised flow matching' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'sft') else "Flow matching on the records' targets"))
                yield ". For each batch the input conditions are prepared once\n(`adapter.prepare_condition_state`), the target media are encoded on demand\n(`adapter.encode_output_state`), and `num_train_timesteps` timesteps are drawn per example\n(`sample_offline_timesteps`). Each timestep term noises the clean target\n(`x_t = (1 - t) x0 + t noise`), predicts the velocity with the adapter's offline forward overrides,\nand regresses the target `noise - x0` (`flow_matching_per_sample_loss`); the terms are averaged\ninside one gradient-accumulation microstep.\n"
                if ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'snapshots'):
                    pass
                    yield 'With `kl_beta > 0` the squared velocity gap to the frozen reference snapshot (its forward under\n`torch.no_grad()` and `adapter.use_ref_parameters()`) is added, scaled by `kl_beta`.\n'
            if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record'):
                pass
                yield "The loader is the framework's own demonstration loader (`build_offline_train_dataloader`: strict\nV2 JSONL, cached input conditions, target media decoded on demand, `DistributedSampler`,\n`OfflineBatch`). `optimize_batch` reads every batch through the frozen, model-neutral\n`"
                yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
                yield '` dataclass (`'
                yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
                yield '.from_batch`: record id, source, prompt, negative\nprompt, input media, decoded target media, metadata'
                for (l_1_name, l_1_kind) in (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
                    _loop_vars = {}
                    pass
                    yield ', `'
                    yield str(l_1_name)
                    yield '`'
                l_1_name = l_1_kind = missing
                yield '), which validates each row before any model\nwork; the objective receives them as `'
                yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
                yield 'Batch` (`records`), each declared field one\nvalue per row'
                if (undefined(name='record_fields') if l_0_record_fields is missing else l_0_record_fields):
                    pass
                    yield " (read from the row's metadata under its name)"
                yield '.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
            pass
            yield 'Diffusion-DPO. The chosen and rejected targets share one prepared condition, the timesteps and the\nnoise. Policy losses are computed in autocast; reference losses under\n`torch.no_grad()`, `adapter.use_ref_parameters()` (the frozen temporal reference snapshot). The loss\nis `-log sigmoid(-beta / 2 * ((l_w - l_w^ref) - (l_l - l_l^ref)))` (`dpo_objective`), averaged over\nthe `num_train_timesteps` terms.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
            pass
            yield 'GRPO-style clipped likelihood ratio. Rollouts are sampled with SDE dynamics and\n`compute_log_prob=True`; rewards become group-normalised advantages through the shared advantage\nprocessor (`batch["advantage"]`). Every replayed step recomputes the policy log-density of the taken\ntransition, forms `ratio = exp(log p - log p_old)` and minimises\n`max(-A ratio, -A clip(ratio, 1 + low, 1 + high))` with `clip_range: [low, high]`, plus `kl_beta` times the velocity\nKL to the frozen reference snapshot when `kl_beta > 0`.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
            pass
            yield 'Advantage Weighted Matching, the objective of the built-in `awm` (solver-agnostic). Rollouts keep\nonly the final samples (`trajectory_indices=[-1]`, no log-probabilities). Per batch, each final\nsample is re-noised once at each of `num_train_timesteps` timesteps and the sampling policy\'s\nmatching log-likelihood `log p_old = -(flow-matching error)` is recorded; each timestep is then one\nmicrostep minimising `max(-A ratio, -A clip(ratio, 1 + low, 1 + high))` with\n`ratio = exp(log p - log p_old)` at the same noised state, where `A` is the sample\'s own\ngroup-normalised advantage (`batch["advantage"]`, clipped to `adv_clip_range`), plus `kl_beta`\ntimes the velocity KL to the frozen reference snapshot when `kl_beta > 0`. Every sample counts\nwith its own advantage, whatever the micro-batch size.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
            pass
            yield 'On-policy distillation, the objective of the built-in `diffusion-opd` (DiffusionOPD). The student\nrolls out (no reward buffer, no feedback stage), keeping the trajectory points of the distilled\ndenoising steps (`timestep_range`, a band of `num_inference_steps`). Per batch, the frozen teacher\n(the named temporal snapshot `teacher`, loaded from `teachers[0].path`, queried under\n`adapter.use_named_parameters("teacher")` and `torch.no_grad()`, once per batch) gives its target\nat every stored state; then each distilled step is one microstep in which the student\'s target at\nthe same state matches the teacher\'s: the one-step transition mean (`loss_target: xt`), the\nvelocity (`v`) or the predicted clean latent (`x0`), by squared error over every component, divided\nby twice the transition variance under SDE dynamics and, with `self_normalize`, by its detached\nmean absolute error.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
            pass
            yield 'Distribution-matching distillation with two live roles. Each training step rolls out the\ngenerator `'
            yield str(environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 0))
            yield '` once (final samples, no feedback stage) and re-noises the samples at\n`num_train_timesteps` timesteps. The critic `'
            yield str(environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 1))
            yield "` regresses the flow-matching target\non those samples, so it learns the generator's (fake) score; the generator predicts clean\nsamples from the re-noised states, and each prediction, re-noised again, is scored by the frozen\nteacher (the real score: the named temporal snapshot `teacher`, loaded from `teacher_path`) and\nby the critic; the generator loss `0.5 |x0 - stopgrad(x0 - (x0_fake - x0_real))|^2` moves the\nprediction along `x0_real - x0_fake`.\n"
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
            pass
            yield 'The objectives live in `'
            yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
            yield '._generator_loss` and `_critic_loss` between the\n`# --- objective: edit here ---` markers; edit them there.\n'
        else:
            pass
            yield 'The objective lives in `'
            yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
            yield '._objective_loss` between the\n`# --- objective: edit here ---` markers; edit it there.\n'
    if ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'multi_role'):
        pass
        yield '\n**Roles.** `required_trainable_roles` is `('
        l_1_loop = missing
        for l_1_role, l_1_loop in LoopContext((undefined(name='roles') if l_0_roles is missing else l_0_roles), undefined):
            _loop_vars = {}
            pass
            yield '"'
            yield str(l_1_role)
            yield '"'
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 130 in 'algorithm/docs.md.jinja' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_role = missing
        yield ')`:\neach role is a live component variant with its own parameters and optimizer groups, the first\n(`'
        yield str(environment.getitem((undefined(name='roles') if l_0_roles is missing else l_0_roles), 0))
        yield "`) owns the canonical base routes and its optimizer steps are `train.step`. The\nframework's `multirole` checkpoint child holds every role's counters; the algorithm declares no\nchild for the roles.\n"
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
            pass
            yield '`role_update_plan()` runs, per training step, '
            l_1_loop = missing
            for (l_1_role, l_1_repeats), l_1_loop in LoopContext((undefined(name='role_cadence') if l_0_role_cadence is missing else l_0_role_cadence), undefined):
                _loop_vars = {}
                pass
                yield '`'
                yield str(l_1_role)
                yield '` '
                yield str(l_1_repeats)
                yield 'x'
                yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 136 in 'algorithm/docs.md.jinja' evaluated to false and no else section was defined.")))
            l_1_loop = l_1_role = l_1_repeats = missing
            yield "(one optimizer step per phase, through the framework's `RoleOptimizationCoordinator`, every\nforward of a role under `adapter.use_component_variant(role)`); `ffgen new --role-cadence\nROLE=N` sets a critic's cadence.\n"
        else:
            pass
            yield "`role_update_plan()` has one phase per role. This family's objective trains the primary role;\nthe other roles are declared and checkpointed for an objective of your own.\n"
        yield 'The example config has one top-level `optimizers:` entry per role (`optimizer: adamw` or\n`muon`, `max_grad_norm`); without the list every role takes `'
        yield str(t_1((undefined(name='module') if l_0_module is missing else l_0_module)))
        yield '_DEFAULT_OPTIMIZERS`, and a\nlist that leaves a role out is refused naming it. Muon needs `torch.optim.Muon` and DDP or FSDP2;\nseveral roles run on DeepSpeed only with ZeRO-1/2 and on FSDP2 only with `use_orig_params: true`.\n'
    yield '\n**Selection.** `train.trainer_type: '
    yield str((undefined(name='key') if l_0_key is missing else l_0_key))
    yield '` selects both `'
    yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
    yield '` and\n`'
    yield str((undefined(name='trainer_class') if l_0_trainer_class is missing else l_0_trainer_class))
    yield '`; the execution contract follows from the key and cannot be configured.\n'
    if ((undefined(name='paradigm') if l_0_paradigm is missing else l_0_paradigm) == 'coupled'):
        pass
        yield 'Coupled objectives refuse `scheduler.dynamics_type: ODE`.\n'
    if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset):
        pass
        yield 'Dataset acquisition needs an enabled `data.datasets` train source with unit weight,\n`enable_preprocess: true`, `sampler_type: auto`, `max_epochs` and an explicit integer\n`gradient_accumulation_steps` (the per-rank batch count must divide by it).\n'
    elif (undefined(name='has_reward') if l_0_has_reward is missing else l_0_has_reward):
        pass
        yield 'Runtime rewards come from the top-level `rewards:` list.\n'
    else:
        pass
        yield 'The contract has no feedback: `rewards:` must be absent (evaluation rewards are independent).\n'
    yield '\n'
    if ((undefined(name='source_kind') if l_0_source_kind is missing else l_0_source_kind) == 'handwritten'):
        pass
        yield '**Parameters** (`train:`): those of `'
        yield str((undefined(name='source_key') if l_0_source_key is missing else l_0_source_key))
        yield '`, as `'
        yield str((undefined(name='args_class') if l_0_args_class is missing else l_0_args_class))
        yield '` (a copy of its\narguments class) declares them.\n'
        if (undefined(name='params') if l_0_params is missing else l_0_params):
            pass
            yield '\n| Field | Default | Meaning |\n|---|---|---|\n'
            for l_1_p in (undefined(name='params') if l_0_params is missing else l_0_params):
                _loop_vars = {}
                pass
                yield str(environment.getattr(l_1_p, 'doc_row'))
                yield '\n'
            l_1_p = missing
    else:
        pass
        yield '**Parameters** (`train:`).\n\n| Field | Default | Meaning |\n|---|---|---|\n'
        if (undefined(name='dataset') if l_0_dataset is missing else l_0_dataset):
            pass
            yield '| `num_train_timesteps` | `1` | Timestep terms per example, averaged inside one microstep. |\n| `weighting_scheme` | `logit_normal` | Timestep distribution (`logit_normal` or `uniform`). |\n| `timestep_range` | `0.99` | Timestep interval `(0, x)` or `[low, high]`. |\n| `gradient_accumulation_steps` | `1` | Explicit microsteps per optimizer step. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
            pass
            yield '| `beta` | `2000.0` | DPO inverse temperature (finite, > 0). |\n'
        elif (((undefined(name='family') if l_0_family is missing else l_0_family) == 'record') and (undefined(name='direction') if l_0_direction is missing else l_0_direction)):
            pass
            yield '| `beta` | `2000.0` | Inverse temperature of the KTO-like score (finite, > 0). |\n'
        elif (((undefined(name='family') if l_0_family is missing else l_0_family) in ('sft', 'record')) and ((undefined(name='ownership') if l_0_ownership is missing else l_0_ownership) == 'snapshots')):
            pass
            yield '| `kl_beta` | `0.01` | Weight of the velocity gap to the frozen reference (0 disables the reference). |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm')):
            pass
            yield '| `advantage_aggregation` | `sum` | How several rewards combine (`sum` or `gdpo`). |\n| `global_std` | `true` | Normalise advantages by the global std. |\n| `adv_clip_range` | `[-5.0, 5.0]` | Advantage clipping interval; one number `v` means `[-v, v]`. |\n| `kl_beta` | `'
            yield str(('0.01' if (undefined(name='uses_snapshots') if l_0_uses_snapshots is missing else l_0_uses_snapshots) else '0.0'))
            yield '` | Weight of the KL to the frozen reference (0 disables the reference). |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
            pass
            yield '| `clip_range` | `[-0.2, 0.2]` | Likelihood-ratio clip offsets `[low, high]` (ratio clipped to `[1 + low, 1 + high]`); one number `v` means `[-v, v]`. |\n| `noise_level` | `0.7` | SDE noise level of rollouts and replay. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
            pass
            yield "| `clip_range` | `[-1.0e-4, 1.0e-4]` | Likelihood-ratio clip offsets `[low, high]`, as the built-in `awm`'s. |\n"
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
            pass
            yield '| `gradient_step_per_epoch` | `1` | Must be 1: each role phase is one optimizer step over the rollout. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'dmd')):
            pass
            yield '| `num_train_timesteps` | `2` | Re-noising timesteps per sample and batch. |\n| `timestep_range` | `[0.0, 0.99]` | Interval of the re-noising timesteps. |\n| `time_shift` | `1.0` | Timestep shift (> 0). |\n| `time_sampling_strategy` | `uniform` | `uniform` or `logit_normal`. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
            pass
            yield "| `teachers` | (required) | One DiffusionOPD teacher entry: `path`, `applicable_datasets`, optional `name`, `guidance_scale` (`null`: the student's). |\n| `teacher_param_device` | `cuda` | Where the teacher snapshot lives (`cpu` or `cuda`). |\n| `timestep_range` | `0.99` | Band of the rollout's denoising steps distilled (`f`: `[0, f]`; or `[low, high]`). |\n| `loss_target` | `xt` | `xt` transition mean, `v` velocity, `x0` clean latent (`v`, `x0`: ODE only). |\n| `self_normalize` | `false` | Divide each sample's error by its detached mean absolute error. |\n"
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
            pass
            yield '| `teacher_path` | `'
            yield str(('toy:teacher' if ((undefined(name='model_type') if l_0_model_type is missing else l_0_model_type) == 'toy') else '(required)'))
            yield '` | Teacher weights for the named snapshot. |\n| `teacher_param_device` | `'
            yield str(('cpu' if ((undefined(name='model_type') if l_0_model_type is missing else l_0_model_type) == 'toy') else 'cuda'))
            yield '` | Where the teacher snapshot lives (`cpu` or `cuda`). |\n| `objective_guidance_scale` | `null` | Teacher CFG scale; `null` reuses `guidance_scale`. |\n'
        for l_1_p in (undefined(name='params') if l_0_params is missing else l_0_params):
            _loop_vars = {}
            pass
            yield str(environment.getattr(l_1_p, 'doc_row'))
            yield '\n'
        l_1_p = missing
    yield '\n**Run.**\n\n```bash\n'
    yield str((undefined(name='train_command') if l_0_train_command is missing else l_0_train_command))
    yield ' '
    yield str((undefined(name='example_path') if l_0_example_path is missing else l_0_example_path))
    yield '\nPYTHONPATH=src python -m pytest '
    yield str((undefined(name='test_path') if l_0_test_path is missing else l_0_test_path))
    yield ' '
    yield str((undefined(name='args_test_path') if l_0_args_test_path is missing else l_0_args_test_path))
    yield '\n```\n'

blocks = {}
debug_info = '2=53&3=57&7=61&8=67&9=69&11=81&13=109&14=111&16=127&17=129&19=133&20=136&21=142&22=144&23=146&24=148&25=150&26=153&27=159&31=162&32=165&33=171&36=175&37=177&40=179&41=182&42=186&45=191&46=193&52=196&55=200&62=202&67=205&71=208&72=212&73=220&74=222&76=226&82=229&89=232&99=235&110=238&112=241&113=243&120=245&121=248&124=253&128=255&130=259&132=268&135=270&136=274&145=289&150=292&151=296&152=298&155=301&159=304&165=311&166=314&168=318&172=321&173=324&181=330&187=333&189=336&191=339&194=342&198=345&200=347&204=350&207=353&210=356&216=359&223=362&224=365&225=367&228=369&229=372&236=376&237=380'