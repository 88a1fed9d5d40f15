"""Edits that stay consistent: what ``check``, ``remove``, ``new`` and ``update`` do once the user
has edited an algorithm's files (or left conflict markers in them)."""

from __future__ import annotations

import pytest

from tests.helpers import snapshot
from tests.lifecycle._lifecycle import CASES, ffgen, json_out, new, record_file, rewrite_pristine

TRAINER = "src/flow_factory/trainers/rl/my_algo.py"
ARGS = "src/flow_factory/hparams/training_args/my_algo.py"
EXAMPLE = "examples/my_algo/lora/toy/default.yaml"
DOCS = "guidance/algorithms.md"
DOC_LINE = "GRPO-style clipped likelihood ratio over stored SDE rollouts.\n"
OLD_DOC = "An older template's summary line.\n"
MINE = "My own summary.\n"


def run(runner, command, root, *args):
    return ffgen(runner, command, *args, "--checkout", str(root))


def stderr_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


@pytest.fixture
def grpo(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    return sandbox


@pytest.fixture
def conflicted(grpo):
    """The record says an older template rendered the trainer's summary line, and the user
    changed that very line: ``update`` has one conflicting hunk."""
    current = (grpo / TRAINER).read_text()
    older = current.replace(DOC_LINE, OLD_DOC)
    rewrite_pristine(grpo, "my-algo", TRAINER, older)
    (grpo / TRAINER).write_text(older.replace(OLD_DOC, MINE))
    return grpo


# -- check: conflict markers and files that do not parse ------------------------------------


def test_check_fails_on_the_markers_update_wrote_and_passes_once_resolved(runner, conflicted):
    assert run(runner, "update", conflicted, "my-algo", "--conflict", "inline").exit_code == 1
    result = run(runner, "check", conflicted)
    assert result.exit_code == 1
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("FAIL my-algo:")
    assert f"{TRAINER}:" in lines[0] and "conflict markers" in lines[0]
    assert "delete the marker lines" in lines[0]
    data = json_out(run(runner, "check", conflicted, "--format", "json"))
    broken = data["algorithms"][0]["broken"]
    assert data["ok"] is False and [b["path"] for b in broken] == [TRAINER]
    text = (conflicted / TRAINER).read_text()
    assert text.splitlines()[broken[0]["line"] - 1].startswith("<<<<<<< ")
    listed = json_out(run(runner, "list", conflicted, "--format", "json"))
    assert next(a for a in listed["algorithms"] if a["key"] == "my-algo")["state"] == "broken"
    # Resolved the user's way: the check is green again.
    start, stop = text.index("<<<<<<< "), text.index(">>>>>>> theirs\n") + len(">>>>>>> theirs\n")
    (conflicted / TRAINER).write_text(text[:start] + MINE + text[stop:])
    assert run(runner, "check", conflicted).exit_code == 0


def test_check_names_a_generated_file_that_does_not_parse(runner, grpo):
    (grpo / EXAMPLE).write_text((grpo / EXAMPLE).read_text() + "train: [\n")
    (grpo / ARGS).write_text((grpo / ARGS).read_text().replace("class ", "clas ", 1))
    result = run(runner, "check", grpo)
    assert result.exit_code == 1
    assert f"{ARGS}:" in result.stdout and "does not parse" in result.stdout
    assert f"{EXAMPLE}:" in result.stdout and "does not load as YAML" in result.stdout
    github = run(runner, "check", grpo, "--format", "github")
    assert github.stdout.startswith(f"::error file={ARGS},line=")


def test_markers_in_the_docs_section_fail_check(runner, grpo):
    docs = grpo / DOCS
    text = docs.read_text()
    line = next(x for x in text.splitlines(keepends=True) if x.startswith("| Paradigm"))
    docs.write_text(text.replace(line, f"<<<<<<< ours\n{line}=======\n{line}>>>>>>> theirs\n"))
    result = run(runner, "check", grpo)
    assert result.exit_code == 1 and f"{DOCS}:" in result.stdout


def test_update_refuses_while_markers_remain_and_its_dry_run_agrees(runner, conflicted):
    assert run(runner, "update", conflicted, "my-algo", "--conflict", "inline").exit_code == 1
    before = snapshot(conflicted)
    for flags in ((), ("--dry-run",), ("--conflict", "inline"), ("--dry-run", "--conflict",
                                                                  "inline")):
        result = run(runner, "update", conflicted, "my-algo", *flags)
        assert result.exit_code == 1, flags
        assert "conflict markers" in result.stderr and TRAINER in result.stderr
    assert snapshot(conflicted) == before


# -- remove of an edited algorithm: refuse, keep, or delete; never half ---------------------


def _edit_trainer_and_docs(root):
    trainer = root / TRAINER
    trainer.write_text(trainer.read_text() + "# my note\n")
    docs = root / DOCS
    docs.write_text(docs.read_text().replace("GRPO-style clipped", "My GRPO-style clipped"))


def test_a_plain_remove_of_an_edited_algorithm_refuses_listing_the_files(runner, grpo):
    _edit_trainer_and_docs(grpo)
    before = snapshot(grpo)
    for flags in ((), ("--dry-run",), ("--format", "json")):
        result = run(runner, "remove", grpo, "my-algo", *flags)
        assert result.exit_code == 1 and result.stdout == ""
        [line] = stderr_lines(result)
        assert TRAINER in line and DOCS in line and ARGS not in line
        assert "--keep-edited" in line and "--force" in line
    assert snapshot(grpo) == before


def test_remove_keep_edited_leaves_no_record_no_wiring_and_the_edits(runner, grpo):
    _edit_trainer_and_docs(grpo)
    edited = (grpo / TRAINER).read_text()
    result = run(runner, "remove", grpo, "my-algo", "--keep-edited", "--format", "json")
    assert result.exit_code == 0, result.output
    files = {f["path"]: f for f in json_out(result)["files"]}
    assert files[TRAINER]["status"] == "KEPT" and "no longer tracks" in files[TRAINER]["note"]
    assert files[DOCS]["status"] == "UPDATE" and "kept" in files[DOCS]["note"]
    assert (grpo / TRAINER).read_text() == edited
    docs = (grpo / DOCS).read_text()
    assert "My GRPO-style clipped" in docs and "ffgen:begin my-algo" not in docs
    assert not record_file(grpo, "my-algo").exists() and not (grpo / ARGS).exists()
    for registry in ("src/flow_factory/trainers/registry.py",
                     "src/flow_factory/hparams/training_args/_registry.py"):
        assert '"my-algo"' not in (grpo / registry).read_text()
    # Nothing is left for check to advise about, and the key is free again.
    check = run(runner, "check", grpo)
    assert check.exit_code == 0 and "update" not in check.stdout
    listed = json_out(run(runner, "list", grpo, "--format", "json"))
    assert "my-algo" not in {a["key"] for a in listed["algorithms"]}


def test_remove_force_deletes_the_edits_too(runner, sandbox):
    before = snapshot(sandbox)
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    _edit_trainer_and_docs(sandbox)
    assert run(runner, "remove", sandbox, "my-algo", "--force").exit_code == 0
    assert snapshot(sandbox) == before


def test_force_and_keep_edited_together_are_a_usage_error(runner, grpo):
    result = run(runner, "remove", grpo, "my-algo", "--force", "--keep-edited")
    assert result.exit_code == 2 and "pass one" in result.stderr


def test_an_unedited_algorithm_needs_no_flag(runner, sandbox):
    before = snapshot(sandbox)
    assert new(runner, sandbox, "my-algo", *CASES["sft"]).exit_code == 0
    assert run(runner, "remove", sandbox, "my-algo").exit_code == 0
    assert snapshot(sandbox) == before


# -- new again on an edited algorithm --------------------------------------------------------


def test_new_again_on_an_edited_algorithm_points_to_update_not_force(runner, grpo):
    trainer = grpo / TRAINER
    trainer.write_text(trainer.read_text() + "# my note\n")
    before = snapshot(grpo)
    result = new(runner, grpo, "my-algo", *CASES["grpo"])
    assert result.exit_code == 1
    [line] = stderr_lines(result)
    assert "ffgen update my-algo" in line and TRAINER in line and "--force" not in line
    changed = new(runner, grpo, "my-algo", *CASES["awm"], "--format", "json")
    [line] = stderr_lines(changed)
    assert "ffgen update my-algo" in line and "--force" not in line
    assert "paradigm coupled -> decoupled" in line  # the flags that differ, named
    assert json_out(changed)["written"] is False
    assert snapshot(grpo) == before


def test_new_again_after_a_template_change_points_to_update(runner, grpo):
    """Nothing edited, only today's render differs: update (or --force) is safe."""
    current = (grpo / TRAINER).read_text()
    older = current.replace(DOC_LINE, OLD_DOC)
    rewrite_pristine(grpo, "my-algo", TRAINER, older)
    (grpo / TRAINER).write_text(older)
    result = new(runner, grpo, "my-algo", *CASES["grpo"])
    assert result.exit_code == 1 and "ffgen update my-algo" in result.stderr
    assert "as it wrote them" in result.stderr


# -- update: the hunks shown, structured JSON, KEPT, dry runs that agree ---------------------


def _summary_line(root) -> int:
    """The line of the trainer's summary (the conflicting hunk is that one line)."""
    return (root / TRAINER).read_text().splitlines(keepends=True).index(MINE) + 1


def test_update_text_shows_each_conflicting_hunk(runner, conflicted):
    result = run(runner, "update", conflicted, "my-algo")
    assert result.exit_code == 1
    out = result.stdout
    n = _summary_line(conflicted)
    assert f"CONFLICT {TRAINER}: ours {n} / theirs {n} / base {n}" in out
    hunk = out[out.index("<<<<<<< ours"):]
    assert hunk.index(MINE) < hunk.index("||||||| base") < hunk.index(OLD_DOC)
    assert hunk.index("=======") < hunk.index(DOC_LINE) < hunk.index(">>>>>>> theirs")
    inline = run(runner, "update", conflicted, "my-algo", "--conflict", "inline")
    assert "<<<<<<< ours" in inline.stdout and "resolve them" in inline.stdout


def test_update_json_lists_conflicts_as_files_with_hunks(runner, conflicted):
    data = json_out(run(runner, "update", conflicted, "my-algo", "--format", "json"))
    [conflict] = data["conflicts"]
    assert conflict["path"] == TRAINER
    [hunk] = conflict["hunks"]
    n = _summary_line(conflicted)
    assert hunk["ours"] == {"start": n, "count": 1, "text": MINE}
    assert hunk["base"] == {"start": n, "count": 1, "text": OLD_DOC}
    assert hunk["theirs"] == {"start": n, "count": 1, "text": DOC_LINE}
    assert hunk["marker_line"] == n


@pytest.mark.parametrize("conflict", ["refuse", "inline"])
@pytest.mark.parametrize("state", ["clean", "conflicted", "markers"])
def test_a_dry_run_of_update_exits_as_the_real_run(runner, grpo, state, conflict):
    current = (grpo / TRAINER).read_text()
    older = current.replace(DOC_LINE, OLD_DOC)
    rewrite_pristine(grpo, "my-algo", TRAINER, older)
    (grpo / TRAINER).write_text(older if state == "clean" else older.replace(OLD_DOC, MINE))
    if state == "markers":
        assert run(runner, "update", grpo, "my-algo", "--conflict", "inline").exit_code == 1
    flags = ("my-algo", "--conflict", conflict)
    dry = run(runner, "update", grpo, *flags, "--dry-run")
    real = run(runner, "update", grpo, *flags)
    assert dry.exit_code == real.exit_code, (dry.output, real.output)
    assert real.exit_code == (0 if state == "clean" else 1)


def test_update_labels_a_file_it_leaves_as_edited_kept(runner, grpo):
    trainer = grpo / TRAINER
    trainer.write_text(trainer.read_text() + "# my note\n")
    result = run(runner, "update", grpo, "my-algo", "--format", "json")
    assert result.exit_code == 0
    statuses = {f["path"]: (f["status"], f["note"]) for f in json_out(result)["files"]}
    assert statuses[TRAINER][0] == "KEPT" and "as you edited it" in statuses[TRAINER][1]
    assert statuses[ARGS] == ("IDENTICAL", "")
    text = run(runner, "update", grpo, "my-algo")
    assert f"KEPT      {TRAINER}" in text.stdout
