"""The three-way line merge ``ffgen update`` uses: examples, properties, and a trainer scenario."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ffgen.lifecycle.merge3 import has_markers, merge3

ROOT = Path(__file__).resolve().parents[2]

BASE = "one\ntwo\nthree\nfour\nfive\n"


def test_edits_on_both_sides_separated_by_a_line_both_survive():
    merged = merge3(BASE, "one\nTWO\nthree\nfour\nfive\n", "one\ntwo\nthree\nFOUR\nfive\n")
    assert merged.clean
    assert merged.text == "one\nTWO\nthree\nFOUR\nfive\n"


def test_the_same_edit_on_both_sides_is_taken_once():
    same = "one\ntwo\n3\nfour\nfive\n"
    merged = merge3(BASE, same, same.replace("five", "5"))
    assert merged.clean
    assert merged.text == "one\ntwo\n3\nfour\n5\n"


def test_insertions_and_deletions_merge():
    ours = "zero\none\ntwo\nthree\nfour\nfive\n"  # inserted at the top
    theirs = "one\ntwo\nthree\nfive\n"  # deleted "four"
    merged = merge3(BASE, ours, theirs)
    assert merged.clean
    assert merged.text == "zero\none\ntwo\nthree\nfive\n"


def test_different_edits_of_one_line_conflict_with_diff3_markers():
    merged = merge3(BASE, "one\ntwo\nmine\nfour\nfive\n", "one\ntwo\nnew\nfour\nfive\n")
    assert not merged.clean
    assert merged.text == (
        "one\ntwo\n"
        "<<<<<<< ours\nmine\n||||||| base\nthree\n=======\nnew\n>>>>>>> theirs\n"
        "four\nfive\n"
    )
    (hunk,) = merged.conflicts
    assert (hunk.base_start, hunk.ours_start, hunk.theirs_start) == (3, 3, 3)
    assert hunk.marker_line == 3
    assert merged.text.splitlines()[hunk.marker_line - 1] == "<<<<<<< ours"
    assert (hunk.base, hunk.ours, hunk.theirs) == (("three\n",), ("mine\n",), ("new\n",))
    assert hunk.describe() == "ours 3 / theirs 3 / base 3"


def test_edit_against_delete_conflicts():
    merged = merge3(BASE, "one\ntwo\nthree!\nfour\nfive\n", "one\ntwo\nfour\nfive\n")
    (hunk,) = merged.conflicts
    assert hunk.theirs == ()
    assert hunk.describe() == "ours 3 / theirs (none, before 3) / base 3"


def test_adjacent_line_edits_conflict_like_git():
    merged = merge3(BASE, "one\nTWO\nthree\nfour\nfive\n", "one\ntwo\nTHREE\nfour\nfive\n")
    (hunk,) = merged.conflicts
    assert (hunk.ours, hunk.theirs) == (("TWO\n", "three\n"), ("two\n", "THREE\n"))


def test_different_insertions_at_one_point_conflict():
    merged = merge3("a\nb\n", "a\nmine\nb\n", "a\ntheirs\nb\n")
    (hunk,) = merged.conflicts
    assert hunk.base == ()
    assert (hunk.ours, hunk.theirs) == (("mine\n",), ("theirs\n",))


def test_marker_line_numbers_count_earlier_conflicts():
    base = "a\nb\nc\nd\ne\n"
    merged = merge3(base, "a\nB1\nc\nD1\ne\n", "a\nB2\nc\nD2\ne\n")
    lines = merged.text.splitlines()
    assert [h.marker_line for h in merged.conflicts] == [2, 10]
    assert all(lines[h.marker_line - 1] == "<<<<<<< ours" for h in merged.conflicts)


def test_labels_and_a_missing_final_newline():
    merged = merge3("x\n", "mine", "theirs", labels=("yours", "recorded", "templates 2.0"))
    assert merged.text == (
        "<<<<<<< yours\nmine\n||||||| recorded\nx\n=======\ntheirs\n>>>>>>> templates 2.0\n"
    )


def test_crlf_lines_are_kept_byte_for_byte():
    base = "a\r\nb\r\nc\r\n"
    merged = merge3(base, "A\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n")
    assert merged.text == "A\r\nb\r\nC\r\n"


def test_has_markers():
    assert has_markers(merge3("a\n", "b\n", "c\n").text)
    assert not has_markers("Title\n=======\n")  # a Markdown underline is no conflict
    assert not has_markers(merge3("a\n", "b\n", "a\n").text)


# --- properties -------------------------------------------------------------------------------

# Lines from a small alphabet so that repeats (the hard case for a diff) are common.
text = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d", "  x = 1\n"]), max_size=12).map(
    "".join
)


@settings(max_examples=300, deadline=None)
@given(base=text, theirs=text)
def test_unchanged_ours_takes_theirs(base, theirs):
    merged = merge3(base, base, theirs)
    assert merged.clean and merged.text == theirs


@settings(max_examples=300, deadline=None)
@given(base=text, ours=text)
def test_unchanged_theirs_keeps_ours(base, ours):
    merged = merge3(base, ours, base)
    assert merged.clean and merged.text == ours


@settings(max_examples=300, deadline=None)
@given(base=text, both=text)
def test_the_same_result_on_both_sides_is_that_result(base, both):
    merged = merge3(base, both, both)
    assert merged.clean and merged.text == both


def _edit(lines: list[str], at: dict[int, str]) -> str:
    return "".join(at.get(i, line) for i, line in enumerate(lines))


@st.composite
def separated_edits(draw):
    """Distinct base lines, and two edit sets with at least one untouched line between them."""
    size = draw(st.integers(min_value=3, max_value=30))
    lines = [f"line {i}\n" for i in range(size)]
    positions = sorted(draw(st.sets(st.integers(0, size - 1), min_size=2, max_size=size)))
    owner = {p: draw(st.sampled_from(["ours", "theirs"])) for p in positions}
    for prev, nxt in zip(positions, positions[1:], strict=False):
        if nxt == prev + 1 and owner[prev] != owner[nxt]:
            owner[nxt] = owner[prev]  # edits of different sides never touch
    ours = {p: f"ours {p}\n" for p in positions if owner[p] == "ours"}
    theirs = {p: f"theirs {p}\n" for p in positions if owner[p] == "theirs"}
    return lines, ours, theirs


@settings(max_examples=300, deadline=None)
@given(separated_edits())
def test_non_overlapping_edits_both_survive(case):
    lines, ours, theirs = case
    merged = merge3("".join(lines), _edit(lines, ours), _edit(lines, theirs))
    assert merged.clean
    assert merged.text == _edit(lines, {**ours, **theirs})


@settings(max_examples=300, deadline=None)
@given(
    size=st.integers(min_value=1, max_value=20),
    data=st.data(),
)
def test_different_edits_of_the_same_line_conflict(size, data):
    lines = [f"line {i}\n" for i in range(size)]
    at = data.draw(st.integers(0, size - 1))
    merged = merge3("".join(lines), _edit(lines, {at: "ours\n"}), _edit(lines, {at: "theirs\n"}))
    (hunk,) = merged.conflicts
    assert (hunk.base, hunk.ours, hunk.theirs) == ((lines[at],), ("ours\n",), ("theirs\n",))
    assert hunk.base_start == at + 1
    # Everything outside the hunk is the base, unchanged.
    rendered = merged.text.splitlines(keepends=True)
    start = hunk.marker_line - 1
    assert rendered[:start] == lines[:at]
    assert rendered[start + 7 :] == lines[at + 1 :]


# --- the update scenario ----------------------------------------------------------------------

TRAINER = '''"""GRPO-style trainer generated by ffgen."""

import torch


class MyTrainer:
    # --- objective: edit here ---
    def _objective_loss(self, batch):
        ratio = torch.exp(batch["log_prob"] - batch["old_log_prob"])
        loss = -(ratio * batch["advantages"]).mean()
        return loss
    # --- objective: end ---
'''


def test_user_edit_in_a_function_body_survives_an_unrelated_template_change():
    ours = TRAINER.replace(
        "        return loss\n",
        "        loss = loss + 0.01 * ratio.var()  # mine\n        return loss\n",
    )
    theirs = TRAINER.replace("import torch\n", "import torch\nfrom typing import Any\n")
    merged = merge3(TRAINER, ours, theirs)
    assert merged.clean
    assert merged.text == ours.replace("import torch\n", "import torch\nfrom typing import Any\n")
    compile(merged.text, "trainer.py", "exec")


def generated_trainers() -> list[Path]:
    found = sorted(ROOT.glob("generated_examples/*/src/flow_factory/trainers/*/*.py"))
    return [p for p in found if "# --- objective: edit here" in p.read_text()]


def test_user_objective_edit_survives_on_every_generated_trainer():
    trainers = generated_trainers()
    assert len(trainers) >= 6  # one per family in generated_examples/
    for path in trainers:
        base = path.read_text()
        lines = base.splitlines(keepends=True)
        end = next(i for i, line in enumerate(lines) if "# --- objective: end" in line)
        ret = max(i for i in range(end) if lines[i].startswith("        return "))
        ours = "".join([*lines[:ret], "        # mine: a user comment in the body\n", *lines[ret:]])
        # The template change: the module docstring's first line is reworded (below the
        # licence header the checkout's modules carry).
        doc = next(i for i, line in enumerate(lines) if line.startswith('"""'))
        assert lines[doc].count('"""') == 1  # a multi-line docstring
        reworded = '"""A trainer, reworded by a newer template.\n'
        theirs = "".join([*lines[:doc], reworded, *lines[doc + 1:]])
        merged = merge3(base, ours, theirs)
        assert merged.clean, path
        mine = ours.splitlines(keepends=True)
        assert merged.text == "".join([*mine[:doc], reworded, *mine[doc + 1:]])
        compile(merged.text, str(path), "exec")
