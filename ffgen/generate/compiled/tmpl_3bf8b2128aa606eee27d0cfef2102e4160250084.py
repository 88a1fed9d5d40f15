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
    yield ' |\n| Supervision | '
    if ((undefined(name='supervision') if l_0_supervision is missing else l_0_supervision) == 'record'):
        pass
        yield 'typed record `'
        yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
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
            yield "Supervised flow matching. For each batch the input conditions are prepared once\n(`adapter.prepare_condition_state`), the target media are encoded on demand\n(`adapter.encode_output_state`), and `num_train_timesteps` timesteps are drawn per example\n(`sample_offline_timesteps`). Each timestep term noises the clean target\n(`x_t = (1 - t) x0 + t noise`), predicts the velocity with the adapter's offline forward overrides,\nand regresses the target `noise - x0` (`flow_matching_per_sample_loss`); the terms are averaged\ninside one gradient-accumulation microstep.\n"
            if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'record'):
                pass
                yield "The loader is the framework's own demonstration loader (`build_offline_train_dataloader`: strict\nV2 JSONL, cached input conditions, target media decoded on demand, `DistributedSampler`,\n`OfflineBatch`). `optimize_batch` reads every batch through the frozen, model-neutral\n`"
                yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
                yield '` dataclass (`'
                yield str((undefined(name='record_type') if l_0_record_type is missing else l_0_record_type))
                yield '.from_batch`: record id, source, prompt, negative\nprompt, input media, decoded target media, metadata), which validates each row before any model\nwork; extend the record to give the objective more typed structure.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'offline_dpo'):
            pass
            yield 'Diffusion-DPO. The chosen and rejected targets share one prepared condition, the timesteps and the\nnoise. Policy losses are computed in autocast; reference losses under\n`torch.no_grad()`, `adapter.use_ref_parameters()` (the frozen temporal reference snapshot). The loss\nis `-log sigmoid(-beta / 2 * ((l_w - l_w^ref) - (l_l - l_l^ref)))` (`dpo_objective`), averaged over\nthe `num_train_timesteps` terms.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
            pass
            yield 'GRPO-style clipped likelihood ratio. Rollouts are sampled with SDE dynamics and\n`compute_log_prob=True`; rewards become group-normalised advantages through the shared advantage\nprocessor (`batch["advantage"]`). Every replayed step recomputes the policy log-density of the taken\ntransition, forms `ratio = exp(log p - log p_old)` and minimises\n`max(-A ratio, -A clip(ratio, 1 - clip_range, 1 + clip_range))`, plus `kl_beta` times the velocity\nKL to the frozen reference snapshot when `kl_beta > 0`.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
            pass
            yield 'Advantage-weighted flow matching (NFT/AWM style, solver-agnostic). Rollouts keep only the final\nsamples (`trajectory_indices=[-1]`, no log-probabilities). Each final sample is re-noised at\n`num_train_timesteps` timesteps; the per-sample flow-matching loss is weighted by\n`softmax(A / advantage_temperature)` over the batch (normalised to mean 1), where `A` is the\ngroup-normalised advantage (`batch["advantage"]`), so high-reward samples dominate the update and\nthe loss stays bounded, plus `kl_beta` times the velocity KL to the frozen reference\nsnapshot when `kl_beta > 0`.\n'
        elif ((undefined(name='family') if l_0_family is missing else l_0_family) == 'opd'):
            pass
            yield 'On-policy distillation. The student generates its own samples (no reward buffer, no feedback\nstage); each final sample is re-noised at `num_train_timesteps` timesteps and, on those\nstudent-generated states, the student\'s velocity regresses the velocity of a frozen teacher held in the named temporal snapshot `teacher` (loaded from `teacher_path`, queried under\n`adapter.use_named_parameters("teacher")` and `torch.no_grad()`).\n'
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
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 107 in 'algorithm/docs.md.jinja' evaluated to false and no else section was defined.")))
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
                yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 113 in 'algorithm/docs.md.jinja' evaluated to false and no else section was defined.")))
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
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('grpo', 'awm')):
            pass
            yield '| `advantage_aggregation` | `sum` | How several rewards combine (`sum` or `gdpo`). |\n| `global_std` | `true` | Normalise advantages by the global std. |\n| `adv_clip_range` | `[-5.0, 5.0]` | Advantage clipping interval. |\n| `kl_beta` | `'
            yield str(('0.01' if (undefined(name='uses_snapshots') if l_0_uses_snapshots is missing else l_0_uses_snapshots) else '0.0'))
            yield '` | Weight of the KL to the frozen reference (0 disables the reference). |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'grpo'):
            pass
            yield '| `clip_range` | `0.2` | Likelihood-ratio clip half-width, in (0, 1). |\n| `noise_level` | `0.7` | SDE noise level of rollouts and replay. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'awm'):
            pass
            yield '| `advantage_temperature` | `1.0` | Temperature of the exponential advantage weights (> 0). |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd'):
            pass
            yield '| `gradient_step_per_epoch` | `1` | Must be 1: each role phase is one optimizer step over the rollout. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('awm', 'opd', 'dmd')):
            pass
            yield '| `num_train_timesteps` | `2` | Re-noising timesteps per sample and batch. |\n| `timestep_range` | `[0.0, 0.99]` | Interval of the re-noising timesteps. |\n| `time_shift` | `1.0` | Timestep shift (> 0). |\n| `time_sampling_strategy` | `uniform` | `uniform` or `logit_normal`. |\n'
        if ((undefined(name='family') if l_0_family is missing else l_0_family) in ('opd', 'dmd')):
            pass
            yield '| `teacher_path` | `'
            yield str((('toy:teacher' if ((undefined(name='family') if l_0_family is missing else l_0_family) == 'dmd') else 'toy:seed=7') if ((undefined(name='model_type') if l_0_model_type is missing else l_0_model_type) == 'toy') else '(required)'))
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
debug_info = '2=51&3=55&7=59&8=65&9=67&11=73&13=84&14=86&16=102&17=104&19=108&20=111&21=117&22=119&23=121&24=123&25=125&26=128&27=134&31=137&32=140&33=146&36=150&37=152&40=154&41=157&42=161&45=166&53=169&57=172&61=176&67=179&74=182&82=185&87=188&89=191&90=193&97=195&98=198&101=203&105=205&107=209&109=218&112=220&113=224&122=239&127=242&128=246&129=248&132=251&136=254&142=261&143=264&145=268&149=271&150=274&158=280&164=283&167=286&171=289&173=291&177=294&180=297&183=300&189=303&190=306&191=308&194=310&195=313&202=317&203=321'