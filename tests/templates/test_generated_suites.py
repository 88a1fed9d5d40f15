"""The verification suite ``ffgen new`` writes runs in a fresh sandbox, passes, and can fail.

For one algorithm per family (plus multi-role ownership) the generated trainer and arguments test
files are run with pytest in a subprocess, first against the files as generated (every test
passes, in well under 10 s of CPU), then against deliberately broken variants of the trainer or
the arguments module (each must make the suite fail, first in the test of the rule it breaks).
Each family's ``--state structured`` twin is generated into the same sandbox and run in the same
interpreter (``_suite_runner.py``), so torch is imported once per family. Statically, over every
legal classification: the suites' fake adapter takes what the real ``BaseAdapter`` hooks take (the
API fixture), and the suites patch no framework helper but the random timestep draw.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _checkout import FAMILY_FLAGS, RUFF, Generated, copy_sandbox, new_algorithm
from _render import REPO, family_context, legal_contexts

from ffgen.generate import render

RUNNER = Path(__file__).with_name("_suite_runner.py")
CASES = ("sft", "offline_dpo", "record", "grpo", "awm", "opd", "opd_multi_role")
# Cases whose ``--state structured`` twin is generated and run beside them.
STRUCTURED = ("sft", "offline_dpo", "record", "grpo", "awm", "opd")
# CPU time of a clean run of one generated suite (torch already imported; its two worker
# processes included): ~2 s on the 2-core development machine. CPU time, not wall time, so that
# other work on the machine does not count against the suite.
CLEAN_RUN_CPU_SECONDS = 10.0

# A mutant: text edits ``(file, old, new)`` of the generated trainer (``T``) or arguments module
# (``A``), and the generated test that must catch it (the rule it breaks). ``{key}`` in an edit
# is the algorithm's registry key.
T, A = "trainer", "args"
Mutant = tuple[list[tuple[str, str, str]], str]


def _contract_swap(real: str, wrong: str) -> Mutant:
    """Bind the trainer's contract name to another constant (imports still resolve)."""
    edit = (T, f"from ...contracts import {real}, ExecutionContract",
            f"from ...contracts import {wrong} as {real}, ExecutionContract")
    return [edit], "test_contracts_match_and_are_the_expected_constant"


def _rejects(param_id: str) -> str:
    return f"test_each_algorithm_parameter_rejects_an_invalid_value[{param_id}]"


def _skip_validation(call: str) -> tuple[str, str, str]:
    """Replace a call of the structured-state validation by one that returns the state as is."""
    return T, call, call.replace("self._validate_structured_state(", "(lambda s, _: s)(")


def _skip_validation_of(state: str, *, indent: int) -> tuple[str, str, str]:
    """``_skip_validation`` of the call whose first argument, ``state``, is on its own line."""
    return _skip_validation(f"self._validate_structured_state(\n{' ' * indent}{state}")


def _audio_blanked(state: str) -> str:
    """A state expression whose "audio" component is zeroed: still every component the adapter
    declares (the framework refuses less), but the objective no longer sees the audio data."""
    return (f'LatentState({{"latent": {state}.components["latent"], '
            f'"audio": torch.zeros_like({state}.components["audio"])}})')


OFFLINE_SWAP = _contract_swap("OFFLINE_EXECUTION_CONTRACT", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT")
ONLINE_SWAP = _contract_swap("ONLINE_EXECUTION_CONTRACT", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT")
NO_FEEDBACK_SWAP = _contract_swap("ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT",
                                  "ONLINE_EXECUTION_CONTRACT")
EARLY_FLUSH: Mutant = ([(T, "if self.accelerator.sync_gradients:", "if True:")],
                       "test_two_data_epochs_run_through_start_on_the_accumulation_cadence")
EARLY_FLUSH_ONLINE: Mutant = (EARLY_FLUSH[0], "test_two_generation_cycles_run_through_start")
TRAINER_TYPE_UNCHECKED: Mutant = ([(A, 'if self.trainer_type != "{key}":', "if False:")],
                                  "test_foreign_trainer_type_is_refused")
DEFAULTS_TEST = "test_left_out_values_default_to_the_algorithm_and_its_documented_parameters"
# Mutants of the arguments class: the key a config without ``trainer_type`` selects, and one
# flipped default per family (a removed validation is each family's "... not validated").
WRONG_TRAINER_TYPE: Mutant = ([(A, 'default="{key}",', 'default="sft",')], DEFAULTS_TEST)


def _default_flipped(old: str, new: str) -> Mutant:
    return [(A, f"default={old},", f"default={new},")], DEFAULTS_TEST


WEIGHTS_NOT_RESTORED: Mutant = (
    [(T, "    # --- objective: edit here",
      "    def load_checkpoint(self, path, resume_type=None):\n        pass\n\n"
      "    # --- objective: edit here")],
    "test_model_only_checkpoint_restores_the_trained_weights_exactly",
)
STATE_CHECK = "test_structured_state_holds_exactly_the_adapter_components"
MISSING_COMPONENTS_ACCEPTED: Mutant = (
    [(T, "        if received != expected:\n", "        if unexpected:\n")], STATE_CHECK,
)
UNEXPECTED_COMPONENTS_ACCEPTED: Mutant = (
    [(T, "        if received != expected:\n", "        if missing:\n")], STATE_CHECK,
)
KL_NEVER_ADDED: Mutant = (
    [(T, "loss = loss + args.kl_beta * kl", "loss = loss")],
    "test_kl_term_adds_kl_beta_times_the_velocity_gap_to_the_reference",
)
HOOK_SKIPS_VALIDATION = "test_the_hook_refuses_an_undeclared_component_before_the_objective"
OBJECTIVE_DROPS_A_COMPONENT = "test_objective_reduces_every_component_of_a_two_component_state"

SFT_MUTANTS: dict[str, Mutant] = {
    "wrong contract constant": OFFLINE_SWAP,
    "accumulation window flushed early": EARLY_FLUSH,
    "objective sign flipped": (
        [(T, "loss = torch.stack(per_term, dim=0).mean()",
          "loss = -torch.stack(per_term, dim=0).mean()")],
        "test_sft_loss_is_positive_and_descends_toward_the_target",
    ),
    "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
    "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
    "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
    "component errors summed, not averaged by the adapter": (
        [(T, "per_term.append(flow_matching_per_sample_loss(self.adapter, velocity, noised))",
          "per_term.append(flow_matching_per_sample_loss(self.adapter, velocity, noised)"
          " * len(self.adapter.trajectory_component_order))")],
        "test_the_objective_is_the_same_for_an_adapter_of_other_components",
    ),
}
OPD_MUTANTS: dict[str, Mutant] = {
    "wrong contract constant": NO_FEEDBACK_SWAP,
    "accumulation window flushed early": EARLY_FLUSH_ONLINE,
    "regresses the data target instead of the teacher": (
        [(T, "target_velocity=_detached(teacher_velocity)",
          "target_velocity=noised.target_velocity")],
        "test_student_equal_to_teacher_gives_zero_distillation_loss",
    ),
    "reward stage used by a no-feedback trainer": (
        [(T, "return self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])",
          "samples = self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])\n"
          "        self.prepare_feedback(samples)\n        return samples")],
        "test_two_generation_cycles_run_through_start",
    ),
    "teacher reloaded on an exact resume": (
        [(T, 'if self.model_args.resume_path and self.model_args.resume_type == "state":',
          "if False:")],
        "test_exact_resume_creates_a_teacher_placeholder_instead_of_loading_it",
    ),
    "teacher snapshot not declared as a runtime child": (
        [(T, "runtime_child_names: ClassVar[tuple[str, ...]] = (TEACHER_SNAPSHOT,)",
          "runtime_child_names: ClassVar[tuple[str, ...]] = ()")],
        "test_owned_snapshots_are_declared_runtime_children",
    ),
    "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
    "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
    "teacher_param_device not validated": (
        [(A, 'if self.teacher_param_device not in ("cpu", "cuda"):', "if False:")],
        _rejects("teacher_param_device-tpu-ValueError"),
    ),
    "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
    "teacher_param_device defaults to cuda": _default_flipped('"cpu"', '"cuda"'),
}

MUTANTS: dict[str, dict[str, Mutant]] = {
    "sft": SFT_MUTANTS,
    "record": SFT_MUTANTS,
    "offline_dpo": {
        "wrong contract constant": OFFLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH,
        "chosen and rejected arms swapped": (
            [(T, 'terms[f"policy_{arm}"].append(',
              "terms[f\"policy_{'rejected' if arm == 'chosen' else 'chosen'}\"].append(")],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "reference not frozen (scored with the policy)": (
            [(T, "with torch.no_grad(), adapter.use_ref_parameters(), self.autocast():",
              "with torch.no_grad(), self.autocast():")],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "beta ignored": (
            [(T, "beta=self.training_args.beta,", "beta=1.0,")],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
        "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
        "beta accepts zero": (
            [(A, "if not math.isfinite(self.beta) or self.beta <= 0.0:",
              "if not math.isfinite(self.beta):")],
            _rejects("beta-0.0-ValueError"),
        ),
        "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
        "beta defaults to 1": _default_flipped("2000.0", "1.0"),
    },
    "grpo": {
        "wrong contract constant": ONLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH_ONLINE,
        "objective sign flipped": (
            [(T, "torch.maximum(-advantages * ratio, -advantages * clipped_ratio)",
              "torch.maximum(advantages * ratio, advantages * clipped_ratio)")],
            "test_ratio_clipping_is_inactive_inside_the_clip_range",
        ),
        "ratio never clipped": (
            [(T, "clipped_ratio = torch.clamp(ratio, 1.0 - args.clip_range, 1.0 + args.clip_range)",
              "clipped_ratio = ratio")],
            "test_ratio_clipping_is_active_outside_the_clip_range",
        ),
        "KL measured against the replayed state, not the reference": (
            [(T, "self._replay_velocity_kl(output.velocity, reference.velocity, step)",
              "self._replay_velocity_kl(output.velocity, step.state, step)")],
            KL_NEVER_ADDED[1],
        ),
        "KL term never added to the loss": KL_NEVER_ADDED,
        "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
        "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
        "clip_range range not validated": (
            [(A, "if not 0.0 < self.clip_range < 1.0:", "if False:")],
            _rejects("clip_range-1.5-ValueError"),
        ),
        "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
        "global_std defaults to False": _default_flipped("True", "False"),
    },
    "awm": {
        "wrong contract constant": ONLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH_ONLINE,
        "objective sign flipped": (
            [(T, "weighted_loss = (weights.detach() * per_sample).mean()",
              "weighted_loss = -(weights.detach() * per_sample).mean()")],
            "test_equal_advantages_give_the_plain_flow_matching_loss",
        ),
        "weights not normalised to mean 1": (
            [(T, "weights = weights * weights.numel()", "weights = weights")],
            "test_equal_advantages_give_the_plain_flow_matching_loss",
        ),
        "advantage sign flipped": (
            [(T, "torch.softmax(advantages.to(per_sample.device) / temperature, dim=0)",
              "torch.softmax(-advantages.to(per_sample.device) / temperature, dim=0)")],
            "test_the_better_sample_weighs_more_and_drives_the_update",
        ),
        "KL measured against the flow-matching target, not the reference": (
            [(T, "self._velocity_kl(velocity, reference_velocity, noised)",
              "self._velocity_kl(velocity, noised.target_velocity, noised)")],
            KL_NEVER_ADDED[1],
        ),
        "KL term never added to the loss": KL_NEVER_ADDED,
        "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
        "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
        "advantage_temperature accepts zero": (
            [(A, "if self.advantage_temperature == 0.0:", "if False:")],
            _rejects("advantage_temperature-0.0-ValueError"),
        ),
        "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
        "global_std defaults to False": _default_flipped("True", "False"),
    },
    "opd": OPD_MUTANTS,
    # OPD's answers with multi-role ownership get their own trainer; these mutants are the ones
    # its shape does not change (the per-role objective has its own tests).
    "opd_multi_role": {name: OPD_MUTANTS[name] for name in (
        "wrong contract constant", "reward stage used by a no-feedback trainer",
        "teacher snapshot not declared as a runtime child", "trainer_type check dropped",
        "teacher_param_device not validated",
        "load_checkpoint overridden without restoring the weights",
        "trainer_type defaults to another key", "teacher_param_device defaults to cuda",
    )},
}

# Mutants of the ``--state structured`` twins: the state validation and the objective's
# reduction over every component.
_SFT_STRUCTURED: dict[str, Mutant] = {
    "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
    "hook skips the state validation": (
        [_skip_validation("clean_state = self._validate_structured_state(")],
        HOOK_SKIPS_VALIDATION,
    ),
    "objective ignores the audio component's data": (
        [(T, "self.adapter, clean_state, primary_timesteps, batch=model_batch",
          f"self.adapter, {_audio_blanked('clean_state')}, primary_timesteps, batch=model_batch")],
        OBJECTIVE_DROPS_A_COMPONENT,
    ),
}
_RENOISE_STRUCTURED: dict[str, Mutant] = {
    "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
    "hook skips the state validation": _SFT_STRUCTURED["hook skips the state validation"],
    "objective ignores the audio component's data": (
        [(T, "self.adapter, clean_state, primary_timesteps, batch=batch",
          f"self.adapter, {_audio_blanked('clean_state')}, primary_timesteps, batch=batch")],
        OBJECTIVE_DROPS_A_COMPONENT,
    ),
}
STRUCTURED_MUTANTS: dict[str, dict[str, Mutant]] = {
    "sft": _SFT_STRUCTURED,
    "record": _SFT_STRUCTURED,
    "offline_dpo": {
        "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
        "hook skips the state validation": (
            [_skip_validation_of("chosen.clean_state", indent=12),
             _skip_validation_of("rejected.clean_state", indent=12)],
            HOOK_SKIPS_VALIDATION,
        ),
        "objective ignores the audio component's data": (
            [(T, "adapter, chosen[1], primary_timesteps, batch=chosen[0]",
              f"adapter, {_audio_blanked('chosen[1]')}, primary_timesteps, batch=chosen[0]"),
             (T, "rejected[1],\n", f"{_audio_blanked('rejected[1]')},\n")],
            OBJECTIVE_DROPS_A_COMPONENT,
        ),
    },
    "grpo": {
        "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
        "hook skips the state validation": (
            [_skip_validation_of("step.state", indent=24)],
            HOOK_SKIPS_VALIDATION,
        ),
        "objective sign flipped": MUTANTS["grpo"]["objective sign flipped"],
    },
    "awm": _RENOISE_STRUCTURED,
    "opd": _RENOISE_STRUCTURED,
}


def _job(generated: Generated, name: str, mutants: dict[str, Mutant]) -> dict[str, object]:
    """One ``_suite_runner`` job: both generated test files and the mutants, paths resolved."""
    ctx = generated.ctx
    files = {T: ctx.trainer_path, A: ctx.args_path}
    return {
        "name": name,
        # The arguments tests first: they are fast, and mutants of the arguments module then fail
        # without running the trainer tests.
        "tests": [ctx.args_test_path, ctx.test_path],
        "mutants": {
            mutant: [[files[target], old.replace("{key}", ctx.key), new]
                     for target, old, new in edits]
            for mutant, (edits, _) in mutants.items()
        },
    }


def _generate(tmp: Path, case: str) -> dict[str, tuple[Generated, dict[str, Mutant]]]:
    """The case's algorithm, and its structured twin where it has one, in one fresh sandbox."""
    root = copy_sandbox(tmp / case)
    name = f"gen-{case.replace('_', '-')}"
    new_algorithm(root, name, FAMILY_FLAGS[case])
    jobs = {case: (Generated(root, family_context(case, name)), MUTANTS[case])}
    if case in STRUCTURED:
        twin = f"{name}-structured"
        new_algorithm(root, twin, [*FAMILY_FLAGS[case], "--state", "structured"])
        ctx = family_context(case, twin, state="structured")
        jobs[f"{case}_structured"] = (Generated(root, ctx), STRUCTURED_MUTANTS[case])
    return jobs


def test_every_legal_classification_renders_a_clean_arguments_test(tmp_path):
    for index, ctx in enumerate(legal_contexts()):
        source = render.render(render.ARGS_TEST_TEMPLATE, ctx)
        path = tmp_path / f"c{index:03d}_{ctx.family}_args_test.py"
        compile(source, path.name, "exec")
        path.write_text(source, encoding="utf-8")
    result = subprocess.run([*RUFF, str(tmp_path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-4000:]


def _own_fields(args_source: str) -> set[str]:
    """Dataclass fields the generated arguments class declares itself (no ``ClassVar``)."""
    (cls,) = [node for node in ast.parse(args_source).body if isinstance(node, ast.ClassDef)]
    return {
        node.target.id
        for node in cls.body
        if isinstance(node, ast.AnnAssign) and "ClassVar" not in ast.unparse(node.annotation)
    }


def _rejected_parameters(args_test_source: str) -> set[str]:
    """The parameter names of the arguments test's one-rejected-value-each table."""
    for node in ast.walk(ast.parse(args_test_source)):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.mark.parametrize":
            return {row.elts[0].value for row in node.args[1].elts}
    return set()


def test_the_arguments_suite_rejects_a_value_of_every_algorithm_parameter():
    """Each field the arguments template adds (besides ``trainer_type``) has a rejected value."""
    for ctx in legal_contexts(model_types=("toy",)):
        fields = _own_fields(render.render(render.ARGS_TEMPLATE, ctx)) - {"trainer_type"}
        rejected = _rejected_parameters(render.render(render.ARGS_TEST_TEMPLATE, ctx))
        assert rejected == fields, (ctx.family, ctx.ownership, ctx.state)


API = REPO / "tests" / "fixtures" / "flow_factory_api.json"
# The framework helpers a generated suite may replace: the offline timestep draw (random; the
# fake returns the real type). Every other helper runs as the checkout has it.
PATCHABLE_HELPERS = {"sample_offline_timesteps"}


def _signature(func: ast.FunctionDef) -> str:
    """``func``'s parameters in the API fixture's spelling: ``(self, a, *, b=, **kwargs)``."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    parts = [a.arg + ("=" if d is not None else "")
             for a, d in zip(positional, defaults, strict=True)]
    if args.vararg:
        parts.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        parts.append("*")
    parts += [a.arg + ("=" if d is not None else "")
              for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg:
        parts.append(f"**{args.kwarg.arg}")
    return f"({', '.join(parts)})"


def _suites() -> dict[str, ast.Module]:
    """The generated trainer suite of every legal classification, parsed, by a short label."""
    return {f"{ctx.family}/{ctx.ownership}/{ctx.state}": ast.parse(
        render.render(render.TEST_TEMPLATE, ctx)) for ctx in legal_contexts()}


def _checklists() -> dict[str, ast.Module]:
    """The checklist module as every legal classification renders it (one text, as a rule)."""
    texts = {render.render(render.CHECKLIST_TEMPLATE, ctx): ctx for ctx in legal_contexts()}
    return {f"{ctx.family}/{ctx.ownership}/{ctx.state}": ast.parse(text)
            for text, ctx in texts.items()}


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    (found,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return found


def test_every_algorithm_file_is_one_test_class_of_its_facts():
    """A generated trainer suite is one ``Test*`` class deriving from the checklist's bases: no
    fake, fixture or helper of its own at module level, so every check is the checklist's."""
    for label, tree in _suites().items():
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
        assert [c.name[:4] for c in classes] == ["Test"], label
        assert not [n for n in tree.body if isinstance(n, ast.FunctionDef)], label
        bases = {ast.unparse(b) for b in classes[0].bases}
        (imported,) = [n for n in tree.body if isinstance(n, ast.ImportFrom)
                       and n.module == "algorithm_checklist"]
        assert bases <= {a.name for a in imported.names}, label


def test_the_fake_adapter_takes_what_the_real_hooks_take():
    """Every hook of the checklist's fake adapter is a real ``BaseAdapter`` member with the
    real parameters (the framework calls it as it calls the real one); its class attributes are
    real ones too. Private helpers of the fake are its own."""
    real = json.loads(API.read_text(encoding="utf-8"))["modules"]["flow_factory.models.abc"]
    adapter = real["classes"]["BaseAdapter"]
    for label, tree in _checklists().items():
        for node in _class(tree, "FakeAdapter").body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                recorded = adapter["methods"].get(node.name, "")
                assert recorded.endswith(_signature(node)), (label, node.name, recorded)
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                assert set(names) <= set(adapter["class_attributes"]), (label, names)


def _module_fakes(tree: ast.Module) -> list[ast.Dict]:
    """Every ``MODULE_FAKES = {...}`` (what a check patches in the trainer module), anywhere."""
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign | ast.AnnAssign)
            and "MODULE_FAKES" in ast.unparse(n.targets[0] if isinstance(n, ast.Assign)
                                              else n.target)]


def test_the_suites_patch_no_framework_helper_but_the_timestep_draw():
    """The suites replace the model and the accelerator, not the framework's helpers: the
    checklist's ``MODULE_FAKES`` name only the timestep draw, and an algorithm's file patches
    nothing. Stand-in namespaces serve only the role checks (the role coordinator)."""
    for label, tree in _checklists().items():
        fakes = _module_fakes(tree)
        assert fakes and all(isinstance(f, ast.Dict) for f in fakes), label
        assert {key.value for f in fakes for key in f.keys} <= PATCHABLE_HELPERS, label
        for node in tree.body:
            uses = "SimpleNamespace(" in ast.unparse(node)
            assert not uses or getattr(node, "name", "") in ROLE_FAKES, (label, node)
    for label, tree in _suites().items():
        assert not _module_fakes(tree), label
        assert "SimpleNamespace" not in ast.unparse(tree), label


# The checklist's role checks: the coordinator's role counters and a stand-in optimizer config.
ROLE_FAKES = {"_RoleCoordinator", "RoleChecks"}


def test_every_job_has_at_least_three_mutants():
    assert set(MUTANTS) == set(CASES) and set(STRUCTURED_MUTANTS) == set(STRUCTURED)
    assert all(len(mutants) >= 3 for mutants in [*MUTANTS.values(), *STRUCTURED_MUTANTS.values()])


def _run_jobs(root: Path, jobs: list[dict[str, object]], tmp: Path) -> tuple[dict, str]:
    """Run the jobs in one ``_suite_runner`` subprocess: (results by job, the end of its log)."""
    spec, out = tmp / "jobs.json", tmp / "results.json"
    spec.write_text(json.dumps(jobs), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(root), str(spec), str(out)],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8")), result.stdout[-6000:]


@pytest.mark.parametrize("case", CASES)
def test_generated_suite_passes_and_fails_on_every_mutant(case, tmp_path):
    generated = _generate(tmp_path, case)
    root = next(iter(generated.values()))[0].root
    jobs = [_job(g, name, mutants) for name, (g, mutants) in generated.items()]
    results, log = _run_jobs(root, jobs, tmp_path)
    for name, (_, mutants) in generated.items():
        outcomes = dict(results[name])
        clean = outcomes.pop("")
        assert (clean["exit"], clean["failed"]) == (0, []), (name, log)
        assert clean["cpu_seconds"] < CLEAN_RUN_CPU_SECONDS, (name, clean)
        # Each mutant fails the suite (exit 1: tests failed), first in the test of the rule it
        # breaks.
        missed = {mutant: outcome for mutant, outcome in outcomes.items()
                  if not isinstance(outcome, dict) or outcome["exit"] != 1
                  or outcome["failed"][:1] != [mutants[mutant][1]]}
        assert not missed, (name, missed, log)
