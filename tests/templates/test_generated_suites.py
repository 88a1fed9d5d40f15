"""The verification suite ``ffgen new`` writes runs in a fresh sandbox, passes, and can fail.

For one algorithm per family (plus multi-role ownership) the generated trainer and arguments test
files are run with pytest in a subprocess, first against the files as generated (every test
passes, in well under 10 s of CPU), then against deliberately broken variants of the trainer or
the arguments module (each must make the suite fail, first in the test of the rule it breaks).
Each family's ``--state structured`` twin is generated into the same sandbox; every run is a
child of the session's ``suite_server`` (``_suite_runner.py``), so torch is imported once per
test session. The checks that start
worker processes carry the ``distributed`` marker, which ``-m`` selects under ``--strict-markers``
with or without the checkout's registration of it. Statically, over every
legal classification: the suites' fake adapter takes what the real ``BaseAdapter`` hooks take (the
API fixture), and the suites patch no framework helper but the random timestep draw.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from _checkout import FAMILY_FLAGS, RUFF, Generated, copy_sandbox, new_algorithm
from _render import REPO, family_context, legal_contexts
from _suite_mutants import MUTANTS, STRUCTURED_MUTANTS, A, E, Mutant, T

from ffgen.generate import render

CASES = ("sft", "offline_dpo", "record", "grpo", "awm", "opd", "sft_multi_role",
         "opd_multi_role", "dmd")
# Cases whose ``--state structured`` twin is generated and run beside them.
STRUCTURED = ("sft", "offline_dpo", "record", "grpo", "awm", "opd")
# CPU time of a clean run of one generated suite (torch already imported; its two worker
# processes included): ~2 s on the 2-core development machine. CPU time, not wall time, so that
# other work on the machine does not count against the suite.
CLEAN_RUN_CPU_SECONDS = 10.0

def _job(generated: Generated, name: str, mutants: dict[str, Mutant]) -> dict[str, object]:
    """One ``_suite_runner`` job: both generated test files and the mutants, paths resolved."""
    ctx = generated.ctx
    files = {T: ctx.trainer_path, A: ctx.args_path, E: ctx.example_path}
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
    # the arguments class (an OPD module may define the checkout's missing ``TeacherConfig`` too)
    (cls,) = [node for node in ast.parse(args_source).body
              if isinstance(node, ast.ClassDef) and node.name.endswith("TrainingArguments")]
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


# The checklist's checks that start worker processes: ``-m "not distributed"`` skips these only.
DISTRIBUTED_CHECKS = {"test_two_processes_end_with_identical_weights",
                      "test_a_sharded_step_matches_the_single_process_step"}
STRICT = ["--strict-markers", "-W", "error::pytest.PytestUnknownMarkWarning"]


def _pytest(server, root: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m pytest ARGS`` in ``root`` (``PYTHONPATH=<root>/src``), a child of the
    server."""
    out = root.parent / f"pytest-{len(list(root.parent.glob('pytest-*')))}"
    return server.completed("pytest", root, out, args=["-p", "no:cacheprovider", *args])


def _selected(server, root: Path, test_path: str, expression: str) -> set[str]:
    """The checks of ``test_path`` that ``-m expression`` selects, collected under strict
    markers (an unregistered marker fails, and so does its warning)."""
    result = _pytest(server, root, "--collect-only", "-q", *STRICT, "-m", expression, test_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    return {line.rsplit("::", 1)[1] for line in result.stdout.splitlines() if "::" in line}


def test_the_distributed_marker_selects_exactly_the_worker_checks(tmp_path, suite_server):
    """In the sandbox its pytest configuration registers ``distributed``; in a checkout whose
    configuration does not (a real Flow-Factory checkout has none), the checklist registers it
    as it is imported. Either way ``-m`` works under ``--strict-markers``, with no warning."""
    root = copy_sandbox(tmp_path / "sandbox")
    new_algorithm(root, "gen-sft", FAMILY_FLAGS["sft"])
    test_path = family_context("sft", "gen-sft").test_path
    markers = _pytest(suite_server, root, "--markers", *STRICT)
    assert "@pytest.mark.distributed:" in markers.stdout, markers.stdout[-2000:]
    assert _selected(suite_server, root, test_path, "distributed") == DISTRIBUTED_CHECKS

    bare = tmp_path / "bare"
    shutil.copytree(root, bare)
    pyproject = bare / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text[: text.index("[tool.pytest.ini_options]")], encoding="utf-8")
    assert "distributed" not in _pytest(suite_server, bare, "--markers").stdout
    kept = _selected(suite_server, bare, test_path, "not distributed")
    assert kept and not kept & DISTRIBUTED_CHECKS
    assert "test_model_only_checkpoint_restores_the_trained_weights_exactly" in kept


@pytest.mark.parametrize("case", CASES)
def test_generated_suite_passes_and_fails_on_every_mutant(case, tmp_path, suite_server):
    generated = _generate(tmp_path, case)
    root = next(iter(generated.values()))[0].root
    jobs = [_job(g, name, mutants) for name, (g, mutants) in generated.items()]
    results = suite_server.run_jobs(root, jobs, tmp_path)
    log = f"the runs' output: {tmp_path / 'results.logs'}"
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
