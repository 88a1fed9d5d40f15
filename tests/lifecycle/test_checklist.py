"""The checklist module: one per checkout, owned by every generated algorithm that uses it.

The first ``new`` writes it; each record lists it (``list``/``check`` show it); a later ``new``
leaves it as it is, and where it differs from today's render says so (KEPT, with the reason and
``ffgen update``); ``update`` brings it to today's templates with the three-way merge and keeps
a user's edit; ``remove`` deletes it with the last algorithm that uses it, never before.
"""

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView
from ffgen.store.records import parse_record
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import CASES, ffgen, json_out, new, record_file, rewrite_pristine

CHECKLIST = layout.CHECKLIST_PATH
USER_LINE = "# my own note on the checklist\n"


def _two(runner, root):
    """An SFT and a GRPO algorithm, generated in that order."""
    assert new(runner, root, "algo-a", *CASES["sft"]).exit_code == 0
    assert new(runner, root, "algo-b", *CASES["grpo"]).exit_code == 0


def _pristine(root, key) -> str:
    record = parse_record(record_file(root, key).read_text(), key, CheckoutView(root).read)
    return record.file(CHECKLIST).pristine


def _states(runner, root) -> dict[str, dict]:
    result = ffgen(runner, "list", "--checkout", str(root), "--format", "json")
    assert result.exit_code == 0, result.output
    return {a["key"]: {f["path"]: f["state"] for f in a["files"]}
            for a in json_out(result)["algorithms"] if a["generated"]}


def test_the_first_new_writes_it_and_every_record_lists_it(runner, sandbox):
    assert not (sandbox / CHECKLIST).exists()
    assert new(runner, sandbox, "algo-a", *CASES["sft"]).exit_code == 0
    written = (sandbox / CHECKLIST).read_text()
    assert "class AlgorithmChecks" in written and "class FakeAdapter" in written
    assert new(runner, sandbox, "algo-b", *CASES["grpo"]).exit_code == 0
    assert (sandbox / CHECKLIST).read_text() == written  # one module for both
    assert _pristine(sandbox, "algo-a") == _pristine(sandbox, "algo-b") == written
    assert _states(runner, sandbox) == {
        key: files | {CHECKLIST: "unchanged"} for key, files in _states(runner, sandbox).items()
    }
    assert {CHECKLIST} <= set(_states(runner, sandbox)["algo-b"])


def test_a_later_new_keeps_a_user_edit_and_records_what_ffgen_wrote(runner, sandbox):
    assert new(runner, sandbox, "algo-a", *CASES["sft"]).exit_code == 0
    checklist = sandbox / CHECKLIST
    written = checklist.read_text()
    checklist.write_text(written + USER_LINE)
    result = new(runner, sandbox, "algo-b", *CASES["grpo"])
    assert result.exit_code == 0, result.output
    assert checklist.read_text() == written + USER_LINE
    assert _pristine(sandbox, "algo-b") == written  # the merge base is ffgen's text
    assert _states(runner, sandbox)["algo-b"][CHECKLIST] == "edited"


def _kept_note(result) -> str:
    """The note ``new --format json`` gives the checklist, which it must report KEPT."""
    assert result.exit_code == 0, result.output
    change = {f["path"]: f for f in json_out(result)["files"]}[CHECKLIST]
    assert change["status"] == "KEPT" and change["diff"] == "", change
    return change["note"]


def test_a_later_new_says_it_keeps_an_older_templates_checklist(runner, sandbox):
    """The first algorithm's record says an older template wrote the checklist, and the file is
    that text, untouched: the next ``new`` keeps it, says why and names ``ffgen update``, in
    JSON and in its plan lines; ``update`` then brings it to today's template."""
    assert new(runner, sandbox, "algo-a", *CASES["sft"]).exit_code == 0
    checklist = sandbox / CHECKLIST
    today = checklist.read_text()
    older = today.replace("CYCLES = 2\n", "CYCLES = 3\n")
    rewrite_pristine(sandbox, "algo-a", CHECKLIST, older)
    checklist.write_text(older)
    result = new(runner, sandbox, "algo-b", *CASES["grpo"], "--dry-run", "--format", "json")
    note = _kept_note(result)
    assert "older template" in note and "ffgen update algo-b" in note
    result = new(runner, sandbox, "algo-b", *CASES["grpo"])
    assert result.exit_code == 0, result.output
    line = next(li for li in result.output.splitlines() if CHECKLIST in li)
    assert "KEPT" in line and "ffgen update" in result.output
    assert checklist.read_text() == older and _pristine(sandbox, "algo-b") == older
    assert ffgen(runner, "update", "algo-b", "--checkout", str(sandbox)).exit_code == 0
    assert checklist.read_text() == today


def test_a_later_new_says_it_keeps_a_users_edit(runner, sandbox):
    """An edited checklist stays as the user left it; the note says it was edited, and whether
    today's template would bring anything new."""
    assert new(runner, sandbox, "algo-a", *CASES["sft"]).exit_code == 0
    checklist = sandbox / CHECKLIST
    written = checklist.read_text()
    checklist.write_text(written + USER_LINE)
    note = _kept_note(new(runner, sandbox, "algo-b", *CASES["grpo"], "--format", "json"))
    assert note.startswith("edited since ffgen wrote it") and "renders the same" in note
    assert checklist.read_text() == written + USER_LINE

    older = written.replace("CYCLES = 2\n", "CYCLES = 3\n")
    for key in ("algo-a", "algo-b"):
        rewrite_pristine(sandbox, key, CHECKLIST, older)
    note = _kept_note(new(runner, sandbox, "algo-c", *CASES["sft"], "--format", "json"))
    assert note.startswith("edited, and today's differs") and "ffgen update algo-c" in note
    assert checklist.read_text() == written + USER_LINE


def test_remove_deletes_it_with_the_last_algorithm_only(runner, sandbox):
    before = snapshot(sandbox)
    _two(runner, sandbox)
    assert ffgen(runner, "remove", "algo-a", "--checkout", str(sandbox)).exit_code == 0
    assert (sandbox / CHECKLIST).exists()  # algo-b still uses it
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0
    assert ffgen(runner, "remove", "algo-b", "--checkout", str(sandbox)).exit_code == 0
    assert not (sandbox / CHECKLIST).exists()
    assert snapshot(sandbox) == before


def test_remove_of_the_last_keeps_an_edited_checklist(runner, sandbox):
    _two(runner, sandbox)
    checklist = sandbox / CHECKLIST
    checklist.write_text(checklist.read_text() + USER_LINE)
    assert ffgen(runner, "remove", "algo-a", "--checkout", str(sandbox)).exit_code == 0
    result = ffgen(runner, "remove", "algo-b", "--checkout", str(sandbox), "--keep-edited",
                   "--format", "json")
    assert result.exit_code == 0, result.output
    kept = {f["path"]: f for f in json_out(result)["files"]}[CHECKLIST]
    assert kept["status"] == "KEPT" and checklist.read_text().endswith(USER_LINE)


def test_update_brings_it_forward_once_keeps_the_user_edit_and_no_other_file(runner, sandbox):
    """Both records say an older template wrote the checklist; the user edited it since. The
    first update merges today's template into it (the edit stays), the second has nothing left
    to do there, and neither touches the other algorithm's own files."""
    _two(runner, sandbox)
    checklist = sandbox / CHECKLIST
    today = checklist.read_text()
    older = today.replace("CYCLES = 2\n", "CYCLES = 3\n")
    assert older != today
    for key in ("algo-a", "algo-b"):
        rewrite_pristine(sandbox, key, CHECKLIST, older)
    checklist.write_text(older + USER_LINE)
    assert _states(runner, sandbox)["algo-a"][CHECKLIST] == "edited"
    own_b = {p: (sandbox / p).read_text() for p in _states(runner, sandbox)["algo-b"]
             if p != CHECKLIST}

    result = ffgen(runner, "update", "algo-a", "--checkout", str(sandbox))
    assert result.exit_code == 0, result.output
    assert checklist.read_text() == today + USER_LINE
    assert _pristine(sandbox, "algo-a") == today
    after_first = snapshot(sandbox)

    result = ffgen(runner, "update", "algo-b", "--checkout", str(sandbox))
    assert result.exit_code == 0, result.output
    assert checklist.read_text() == today + USER_LINE
    assert _pristine(sandbox, "algo-b") == today
    changed = {p for p, text in snapshot(sandbox).items() if after_first.get(p) != text}
    assert changed == {".ffgen/answers/algo-b.yml"}  # only the record's merge base moved
    assert {p: (sandbox / p).read_text() for p in own_b} == own_b
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0
