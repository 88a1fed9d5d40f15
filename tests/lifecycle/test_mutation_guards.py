"""Lifecycle rules a one-line change to `update`, `list` or `check` would break unnoticed.

An older template is simulated by rewriting the record: a file it lists that today's templates no
longer render, or a docs section today's template renders differently.
"""

from __future__ import annotations

from dataclasses import replace

from ffgen.store.records import RecordedFile
from tests.helpers import tree
from tests.lifecycle._lifecycle import CASES, ffgen, json_out, new, read_record_at, write_record

KEY = "my-algo"
# A file an older template rendered and today's does not.
LEGACY = "tests/trainers/test_my_algo_legacy.py"
LEGACY_TEXT = "LEGACY = 1\n"
ARGS_INIT = "src/flow_factory/hparams/training_args/__init__.py"
BASE_TRAINER = "src/flow_factory/trainers/abc.py"
DOCS = "guidance/algorithms.md"


def _rewrite_record(root, **changes) -> None:
    write_record(root, replace(_record(root), **changes))


def _record(root):
    return read_record_at(root, KEY)


def _generated_with_legacy_file(runner, root, on_disk: str) -> None:
    """A GRPO algorithm whose record also lists LEGACY, rendered as LEGACY_TEXT."""
    assert new(runner, root, KEY, *CASES["grpo"]).exit_code == 0
    files = (*_record(root).files, RecordedFile(LEGACY, LEGACY_TEXT))
    _rewrite_record(root, files=files)
    (root / LEGACY).write_text(on_disk)


def _state(runner, root) -> dict:
    result = ffgen(runner, "list", "--checkout", str(root), "--format", "json")
    assert result.exit_code == 0, result.output
    return next(a for a in json_out(result)["algorithms"] if a["key"] == KEY)


def _update(runner, root):
    return ffgen(runner, "update", KEY, "--checkout", str(root))


# --- update -------------------------------------------------------------------------------------


def test_update_keeps_an_edited_file_the_templates_no_longer_render(runner, sandbox):
    edited = LEGACY_TEXT + "MINE = 2  # the user's\n"
    _generated_with_legacy_file(runner, sandbox, edited)
    result = _update(runner, sandbox)
    assert result.exit_code == 0, result.output
    assert (sandbox / LEGACY).read_text() == edited  # never deleted: it holds the user's work
    assert _record(sandbox).file(LEGACY) is None  # and no longer ffgen's to track


def test_update_drops_an_unedited_file_the_templates_no_longer_render(runner, sandbox):
    _generated_with_legacy_file(runner, sandbox, LEGACY_TEXT)
    result = _update(runner, sandbox)
    assert result.exit_code == 0, result.output
    assert not (sandbox / LEGACY).exists()
    assert _record(sandbox).file(LEGACY) is None
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0


def test_update_refuses_a_render_that_fails_conformance(runner, sandbox):
    """The new render is held to the checkout as `new` holds it: a member it calls that the
    checkout lost refuses the update, and nothing is written."""
    assert new(runner, sandbox, KEY, *CASES["grpo"]).exit_code == 0
    base = sandbox / BASE_TRAINER
    text = base.read_text()
    assert "def _apply_optimizer_step(" in text
    base.write_text(text.replace("def _apply_optimizer_step(", "def _apply_optimizer_step_v2("))
    before = tree(sandbox)
    result = _update(runner, sandbox)
    assert result.exit_code == 1, result.output
    assert "BaseTrainer._apply_optimizer_step" in result.output
    assert "is not defined" in result.output
    assert tree(sandbox) == before


# --- list / check -------------------------------------------------------------------------------


def test_a_recorded_file_the_templates_no_longer_render_is_behind(runner, sandbox):
    _generated_with_legacy_file(runner, sandbox, LEGACY_TEXT)
    state = _state(runner, sandbox)
    assert state["state"] == "behind" and state["behind"] == [LEGACY]
    result = ffgen(runner, "check", "--checkout", str(sandbox))
    assert result.exit_code == 1 and KEY in result.output


def test_drift_of_the_docs_section_is_behind(runner, sandbox):
    assert new(runner, sandbox, KEY, *CASES["grpo"]).exit_code == 0
    docs = _record(sandbox).docs
    assert docs is not None and docs.path == DOCS
    _rewrite_record(sandbox, docs=replace(docs, section="An older template's section."))
    state = _state(runner, sandbox)
    assert state["state"] == "behind" and state["behind"] == [DOCS]
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 1


def test_a_registry_entry_whose_edit_fails_counts_as_missing(runner, sandbox):
    """The re-export is gone and the file has no `__all__` left to put it back in: the edit
    would fail, which is as missing as an entry the edit would add."""
    assert new(runner, sandbox, KEY, *CASES["grpo"]).exit_code == 0
    init = sandbox / ARGS_INIT
    text = init.read_text()
    line = "from .my_algo import MyAlgoTrainingArguments\n"
    assert line in text and "__all__" in text
    init.write_text(text.replace(line, "")[: text.replace(line, "").index("__all__")])
    assert _state(runner, sandbox)["missing_entries"] == [ARGS_INIT]
    result = ffgen(runner, "check", "--checkout", str(sandbox))
    assert result.exit_code == 1 and "registry entries missing" in result.output
