"""The checklist's objective checks see the maths (issue 29), for an objective the user wrote.

A KTO-like algorithm (a record with a ``label`` direction, a frozen reference, ``beta``), made by
one ``ffgen new`` command, passes its generated suite; each typical mistake made inside the
objective's edit markers (a flipped sign, the reference scored with gradients, a target or a
condition cached across batches, a running mean the checkpoint does not hold) fails it first in
the check of the rule it breaks. The family defaults' mutants run in
``test_generated_suites.py`` (``OBJECTIVE_MUTANTS`` of ``_suite_mutants.py``). Statically: every
assertion of the checklist says in words what failed, and the per-algorithm test file documents
the checklist's hooks.
"""

from __future__ import annotations

import ast

from _checkout import copy_sandbox, new_algorithm
from _render import legal_contexts
from _suite_mutants import DIRECTION, FROZEN, RESUME_CHECK, STALE

from ffgen.generate import render

KTO_FLAGS = ["--acquisition", "dataset", "--supervision", "record:Judged(label:bool)",
             "--direction", "label"]
TRAINER = "src/flow_factory/trainers/offline/my_kto.py"
TESTS = ["tests/hparams/test_my_kto_args.py", "tests/trainers/test_my_kto.py"]
BEGIN, END = "# --- objective: edit here", "# --- objective: end"
REFERENCE = "with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():"
SIGN = "sign = records.label.to(reward.device, reward.dtype) * 2.0 - 1.0"
FIRST = "per_term = []"  # the first line of the objective's loop state

# Mistakes inside the objective's markers: (old, new) edits of the trainer, and the check that
# must fail first.
KTO_MUTANTS: dict[str, tuple[list[tuple[str, str]], str]] = {
    "implicit reward's sign flipped": (
        [(SIGN, "sign = 1.0 - records.label.to(reward.device, reward.dtype) * 2.0")], DIRECTION),
    "reference forward with gradients": (
        [(REFERENCE, REFERENCE.replace("torch.no_grad(), ", ""))], FROZEN),
    "target cached on self": (
        [(FIRST, 'clean_state = self.__dict__.setdefault("_target", clean_state)\n        '
          + FIRST)], STALE),
    "stale condition": (
        [(FIRST, 'model_batch = self.__dict__.setdefault("_condition", model_batch)\n        '
          + FIRST)], STALE),
    # KTO's reference point: a running mean of the implicit reward, subtracted from it.
    "running mean on self, not checkpointed": (
        [(SIGN, 'self._z = 0.9 * getattr(self, "_z", 0.0) + 0.1 * float(reward.mean())\n'
          "        reward = reward - self._z\n        " + SIGN)], RESUME_CHECK),
}


def _inside_markers(text: str, old: str) -> bool:
    start, end = text.index(BEGIN), text.index(END)
    return start < text.index(old) < end


def test_a_kto_suite_passes_and_fails_first_in_the_check_of_each_mistake(tmp_path, suite_server):
    root = copy_sandbox(tmp_path / "checkout")
    new_algorithm(root, "my-kto", KTO_FLAGS)
    text = (root / TRAINER).read_text(encoding="utf-8")
    for name, (edits, _) in KTO_MUTANTS.items():
        assert all(text.count(old) == 1 and _inside_markers(text, old) for old, _ in edits), name
    job = {"name": "kto", "tests": TESTS, "mutants": {
        name: [[TRAINER, old, new] for old, new in edits]
        for name, (edits, _) in KTO_MUTANTS.items()}}
    outcomes = dict(suite_server.run_jobs(root, [job], tmp_path)["kto"])
    log = f"the runs' output: {tmp_path / 'results.logs'}"
    clean = outcomes.pop("")
    assert (clean["exit"], clean["failed"]) == (0, []), log
    missed = {name: outcome for name, outcome in outcomes.items()
              if not isinstance(outcome, dict) or outcome["exit"] != 1
              or outcome["failed"][:1] != [KTO_MUTANTS[name][1]]}
    assert not missed, (missed, log)


def _checklist() -> ast.Module:
    """The checklist module as rendered (one text for every classification)."""
    (text,) = {render.render(render.CHECKLIST_TEMPLATE, ctx) for ctx in legal_contexts(("toy",))}
    return ast.parse(text)


def test_every_checklist_assertion_says_in_words_what_failed():
    """A bare ``assert a != b`` in the checklist (no test module: pytest does not rewrite its
    assertions) fails with an empty ``AssertionError``; each carries a message."""
    bare = [f"line {node.lineno}: {ast.unparse(node.test)[:80]}"
            for node in ast.walk(_checklist()) if isinstance(node, ast.Assert) and node.msg is None]
    assert not bare, "\n".join(bare)


HOOKS = ("batch(", "metadata(", "OVERRIDES", "REQUIRES_REF_MODEL", "RUNTIME_CHILDREN",
         "REFERENCE_VALUE", "DIRECTION", "COMPONENTS", "MODULE_FAKES", "update_on(")


def test_the_algorithm_test_file_documents_the_checklist_hooks():
    for ctx in legal_contexts(("toy",)):
        doc = ast.get_docstring(ast.parse(render.render(render.TEST_TEMPLATE, ctx)))
        missing = [hook for hook in HOOKS if hook not in doc]
        assert not missing, (ctx.family, ctx.ownership, ctx.state, missing)
