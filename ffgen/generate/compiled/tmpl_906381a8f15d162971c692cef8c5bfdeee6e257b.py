from ffgen.generate.template_runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'skill/SKILL.md.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_exit_ok = resolve('exit_ok')
    l_0_exit_refused = resolve('exit_refused')
    l_0_exit_usage = resolve('exit_usage')
    l_0_properties = resolve('properties')
    l_0_finetune = resolve('finetune')
    l_0_contracts = resolve('contracts')
    l_0_families = resolve('families')
    l_0_trainer_path = resolve('trainer_path')
    l_0_objective_begin = resolve('objective_begin')
    l_0_objective_end = resolve('objective_end')
    l_0_args_path = resolve('args_path')
    l_0_test_paths = resolve('test_paths')
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    pass
    yield '---\nname: ffgen\ndescription: "Add a training algorithm to this Flow-Factory checkout with ffgen: classify it with flags, generate every file it needs, edit only its objective, then verify. Use instead of hand-writing trainers, registry entries, re-exports, example configs and tests."\n---\n\n# New Algorithm with ffgen\n\nffgen writes everything an algorithm needs (arguments class, trainer, the registry and re-export\nentries, an example config, a verification suite, a docs section) and checks the result against\nthis checkout. You decide the classification and write the objective; ffgen does the rest.\n\nGround rules:\n\n- Run every command from the checkout root. The commands in `bash` blocks are the steps, in\n  order; `<name>`, `<flags>`, `<key>`, `<module>` and `<category>` are filled in as each step says.\n- Always pass `--format json`: stdout is then exactly one JSON object (schemas:\n  `docs/json/<command>.schema.json` in ffgen\'s repository). Problems are one line on stderr\n  starting `error:`, naming the problem and the fix.\n- Exit codes: '
    yield str((undefined(name='exit_ok') if l_0_exit_ok is missing else l_0_exit_ok))
    yield ' done, '
    yield str((undefined(name='exit_refused') if l_0_exit_refused is missing else l_0_exit_refused))
    yield ' refused or conflict, '
    yield str((undefined(name='exit_usage') if l_0_exit_usage is missing else l_0_exit_usage))
    yield ' bad flag or usage;\n  on '
    yield str((undefined(name='exit_refused') if l_0_exit_refused is missing else l_0_exit_refused))
    yield ' and '
    yield str((undefined(name='exit_usage') if l_0_exit_usage is missing else l_0_exit_usage))
    yield ' nothing was written. Do what the error line says; never\n  work around ffgen by editing its files by hand.\n- `--yes` never asks questions: forced answers are filled in (with the reason) and the sound\n  defaults below are taken; a flag that contradicts the others is refused with the reason.\n\n## 1. Classify the Algorithm\n\nDecide the seven properties and pass each as a flag:\n\n| property | flag | values | `--yes` default | meaning |\n|---|---|---|---|---|\n'
    l_1_loop = missing
    for l_1_p, l_1_loop in LoopContext((undefined(name='properties') if l_0_properties is missing else l_0_properties), undefined):
        _loop_vars = {}
        pass
        yield '| '
        yield str(environment.getattr(l_1_p, 'name'))
        yield ' | `'
        yield str(environment.getattr(l_1_p, 'flag'))
        yield '` | '
        l_2_loop = missing
        for l_2_v, l_2_loop in LoopContext(environment.getattr(l_1_p, 'values'), undefined):
            _loop_vars = {}
            pass
            yield '`'
            yield str(l_2_v)
            yield '`'
            yield str((', ' if (not environment.getattr(l_2_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 32 in 'skill/SKILL.md.jinja' evaluated to false and no else section was defined.")))
        l_2_loop = l_2_v = missing
        yield ' | '
        yield str((str_join(('`', environment.getattr(l_1_p, 'default'), '`', )) if environment.getattr(l_1_p, 'default') else 'no default'))
        yield ' | '
        yield str(environment.getattr(l_1_p, 'explanation'))
        yield ' |\n'
    l_1_loop = l_1_p = missing
    yield "\nThe example config also takes `--model-type TYPE`, one of this checkout's model types: to see\nthem, run step 2 without it (the `error:` line lists them; a wrong one is refused with the same\nlist; a checkout with one model type needs no flag).\nIt also takes `"
    yield str(environment.getattr((undefined(name='finetune') if l_0_finetune is missing else l_0_finetune), 'flag'))
    yield ' '
    yield str(t_1(context.eval_ctx, environment.getattr((undefined(name='finetune') if l_0_finetune is missing else l_0_finetune), 'values'), '|'))
    yield '` (default `'
    yield str(environment.getattr((undefined(name='finetune') if l_0_finetune is missing else l_0_finetune), 'default'))
    yield "`). `--ownership multi_role` needs `--roles a,b` (the first role is primary;\n`--role-cadence role=N` sets the others' optimizer steps). A record declares typed fields,\n`record:Judged(label:bool, weight:float)` (read from each row's metadata; the objective receives\nthem as `records.label`, ...), and `--direction label` names the bool field saying whether a row\nis desirable (it forces `--ownership snapshots`; the default objective becomes KTO-like).\n`--category DIR` and `--class-name STEM` override the trainer folder and the class stem.\n\nAcquisition and feedback select the execution contract:\n\n| acquisition | feedback | contract | category |\n|---|---|---|---|\n"
    for l_1_c in (undefined(name='contracts') if l_0_contracts is missing else l_0_contracts):
        _loop_vars = {}
        pass
        yield '| `'
        yield str(environment.getattr(l_1_c, 'acquisition'))
        yield '` | `'
        yield str(environment.getattr(l_1_c, 'feedback'))
        yield '` | '
        yield str((str_join(('`', environment.getattr(l_1_c, 'contract'), '`', )) if environment.getattr(l_1_c, 'contract') else str_join(('refused: ', environment.getattr(l_1_c, 'refusal'), ))))
        yield ' | '
        yield str((str_join(('`', environment.getattr(l_1_c, 'category'), '/`', )) if environment.getattr(l_1_c, 'category') else ''))
        yield ' |\n'
    l_1_c = missing
    yield '\nThe answers select the family, which fixes the default objective the trainer starts from:\n\n| family |'
    for l_1_p in (undefined(name='properties') if l_0_properties is missing else l_0_properties):
        _loop_vars = {}
        pass
        yield ' '
        yield str(environment.getattr(l_1_p, 'name'))
        yield ' |'
    l_1_p = missing
    yield '\n|---|'
    for l_1_p in (undefined(name='properties') if l_0_properties is missing else l_0_properties):
        _loop_vars = {}
        pass
        yield '---|'
    l_1_p = missing
    yield '\n'
    l_1_loop = missing
    for l_1_f, l_1_loop in LoopContext((undefined(name='families') if l_0_families is missing else l_0_families), undefined):
        _loop_vars = {}
        pass
        yield '| `'
        yield str(environment.getattr(l_1_f, 'family'))
        yield '` |'
        l_2_loop = missing
        for l_2_cell, l_2_loop in LoopContext(environment.getattr(l_1_f, 'values'), undefined):
            _loop_vars = {}
            pass
            yield ' '
            l_3_loop = missing
            for l_3_v, l_3_loop in LoopContext(l_2_cell, undefined):
                _loop_vars = {}
                pass
                yield '`'
                yield str(l_3_v)
                yield '`'
                yield str((', ' if (not environment.getattr(l_3_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 60 in 'skill/SKILL.md.jinja' evaluated to false and no else section was defined.")))
            l_3_loop = l_3_v = missing
            yield ' |'
        l_2_loop = l_2_cell = missing
        yield '\n'
    l_1_loop = l_1_f = missing
    yield "\n`<flags>` below is every property as `--property value`, plus `--model-type`, e.g.\n`--acquisition generation --feedback runtime_reward --paradigm coupled --dynamics sde\n--supervision prompts --state legacy --ownership single --model-type <TYPE>`.\n`<name>` is the algorithm's registry key: lowercase words joined by hyphens (`my-algo`).\n\nStarting from an algorithm the checkout already has (built-in, hand-written or generated)?\n`ffgen new <name> --like <KEY> --yes` reads `<KEY>`'s classification from its code and copies\nits trainer and arguments under the new names (symbol-aware: nothing that merely contains the\nold name changes); `--extends <KEY>` subclasses it instead and is offered only for the parents\nFlow-Factory sanctions strict extensions of (GRPO, TDM). Flags then only narrow what the source\nleaves open; one that contradicts its code is refused.\n\n## 2. Plan (writes nothing)\n\n```bash\nffgen new <name> <flags> --yes --dry-run --format json\n```\n\nRead the JSON: `algorithm` is the registry key (`<key>` below), `contract`, `family` and\n`category` must be what you meant (if not, change the flags, not the files), and `files` lists\nevery file with its `status` and `diff`. The trainer is the entry\n`"
    yield str((undefined(name='trainer_path') if l_0_trainer_path is missing else l_0_trainer_path))
    yield '`: it gives `<category>` and `<module>`.\nA `CONFLICT` status (exit '
    yield str((undefined(name='exit_refused') if l_0_exit_refused is missing else l_0_exit_refused))
    yield ') means a file of that name already exists: choose\nanother `<name>`; never `--force` over files ffgen did not write. For an algorithm ffgen\ngenerated before, the `error:` line says to run `ffgen update <key>` instead (step 6), which keeps\nyour edits.\n\n## 3. Generate\n\n```bash\nffgen new <name> <flags> --yes --format json\n```\n\nSame JSON as the plan; the files are now written, all or nothing. `.ffgen/answers/<key>.yml`\nrecords the answers and `.ffgen/base/` the pristine renders `ffgen update` merges from: commit\nboth with the rest.\n\n## 4. Edit Only the Objective\n\nOpen `'
    yield str((undefined(name='trainer_path') if l_0_trainer_path is missing else l_0_trainer_path))
    yield '` and change only the lines between\n`'
    yield str((undefined(name='objective_begin') if l_0_objective_begin is missing else l_0_objective_begin))
    yield '` and `'
    yield str((undefined(name='objective_end') if l_0_objective_end is missing else l_0_objective_end))
    yield "`. Keep the method's name, its arguments\nand its `(loss, metrics)` return. A module the objective needs is imported between the\n`# --- objective imports` markers below the generated imports (Flow-Factory allows no inline\nimports); `ffgen update` keeps those lines like the objective. Everything outside the markers (the hooks, the registries and\nre-exports, `"
    yield str((undefined(name='args_path') if l_0_args_path is missing else l_0_args_path))
    yield "`, the example config) is ffgen's and\n`ffgen update` keeps it in step with the templates; an edit inside the markers survives that.\nA hyperparameter the objective needs is not added by hand: `ffgen new ... --param\nNAME:TYPE=DEFAULT[:CONSTRAINT[:HELP]]` or, later, `ffgen param add KEY NAME:TYPE=DEFAULT[:CONSTRAINT[:HELP]]`\n(TYPE float, int, bool or str; CONSTRAINT `>=X`, `>X`, `<=X`, `<X`, `in (A, B]` or `a|b`; HELP\nwhat the field means; quote it for the shell, e.g. `'margin:float=0.1:>=0:Reward margin'`)\nwrites the field with its help and checks, the example entry, the docs row and its tests;\n`ffgen param remove KEY NAME` takes it out once the objective no longer reads it. The\nobjective reads it as `self.training_args.NAME`.\nThe generated invariant tests state the default objective's rules; when your objective changes one\nof those rules on purpose, update that test to the new rule, never delete it.\n\n## 5. Verify\n\n```bash\nffgen verify --format json\nPYTHONPATH=src python -m pytest "
    yield str(environment.getitem((undefined(name='test_paths') if l_0_test_paths is missing else l_0_test_paths), 0))
    yield ' '
    yield str(environment.getitem((undefined(name='test_paths') if l_0_test_paths is missing else l_0_test_paths), 1))
    yield " -q\n```\n\n`summary.errors` must be 0. Each entry of `findings` has `rule_id`, `path`, `line`, `message` and\n`fix`; `ffgen verify --explain RULE` gives the rationale, and\n`ffgen verify --fix --dry-run --format json` shows the repairs ffgen can make itself (missing\nimports, re-exports, registry entries). The suite must pass: registries, contracts, hooks, two\ncycles through `start()`, failed batches, the objective's invariants, a two-process step.\n\n## 6. Keep It in Step (when they apply)\n\n```bash\nffgen list --format json\nffgen check --format json\nffgen update <key> --dry-run --format json\n```\n\n- `list`: every algorithm; for yours, `state` and each file's `state` (`edited` after step 4).\n- `check`: `ok` is false (exit "
    yield str((undefined(name='exit_refused') if l_0_exit_refused is missing else l_0_exit_refused))
    yield ") when an algorithm is behind the templates or\n  lost a registry entry; then run `ffgen update <key> --format json`.\n- `update`: re-renders with today's templates and merges your edits three ways (a file it leaves\n  as you edited it is `KEPT`). Conflicts are listed in `conflicts`, per file with each hunk's\n  `ours`, `base` and `theirs` lines (exit "
    yield str((undefined(name='exit_refused') if l_0_exit_refused is missing else l_0_exit_refused))
    yield ', nothing written): resolve them by hand,\n  or re-run with `--conflict inline` to get git-style markers, which `check` fails on until you\n  resolve them.\n- `remove`: `ffgen remove <key> --dry-run --format json` shows what goes; without `--dry-run` it\n  takes the algorithm out. While files you edited remain it refuses, listing them: add\n  `--keep-edited` to keep them as your own files, or `--force` to delete them too.\n\nNo checkout to practise on? `ffgen sandbox DIR --format json` creates a small runnable one.\n\n## Common Failures\n\n- Editing registries, re-exports or the example config by hand instead of re-running ffgen.\n- Editing the trainer outside the objective markers, or renaming the objective method.\n- Guessing a flag value: use the tables above; a refusal names the conflicting answers.\n- Reading the text output instead of the JSON, or ignoring a non-zero exit code.\n'

blocks = {}
debug_info = '19=30&20=36&31=41&32=45&38=65&49=71&50=75&55=85&57=93&59=100&60=104&85=125&86=127&103=129&104=131&108=135&124=137&142=141&146=143'