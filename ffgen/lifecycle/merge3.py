"""Three-way line merge (diff3), pure: ``merge3(base, ours, theirs) -> Merge``.

``ffgen update`` merges per file: base is the pristine render recorded by ``new``, ours is the
user's file, theirs is the render with the current templates.

How it works: both sides are diffed against the base (``difflib.SequenceMatcher``, no junk
heuristic). Base lines that *both* sides kept unchanged are sync points; between two sync points
lies one region where at least one side changed something. A region changed on one side only
takes that side; changed identically on both takes either; changed differently on both is a
conflict. So edits merge cleanly when at least one unchanged line separates them; edits that
touch the same or adjacent lines conflict (as in ``git merge``).

Conflicts are written git's ``diff3`` way, base section included so that the reader sees what
the line used to be::

    <<<<<<< ours
    the user's lines
    ||||||| base
    the recorded render's lines
    =======
    the new render's lines
    >>>>>>> theirs

A side whose last line has no newline gets one inside a conflict, so markers always start a line.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

OURS_MARK, BASE_MARK, SEP_MARK, THEIRS_MARK = "<<<<<<<", "|||||||", "=======", ">>>>>>>"


@dataclass(frozen=True)
class Conflict:
    """One conflicting hunk. ``*_start`` are 1-based line numbers in each input (for an empty
    side: the line before which it would be); ``marker_line`` is where ``<<<<<<<`` is in
    :attr:`Merge.text`."""

    base_start: int
    ours_start: int
    theirs_start: int
    marker_line: int
    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    def describe(self) -> str:
        """``ours 12-14 / theirs 12 / base 12-13``: one line for a refusal message."""
        return (
            f"ours {_span(self.ours_start, self.ours)} / theirs "
            f"{_span(self.theirs_start, self.theirs)} / base {_span(self.base_start, self.base)}"
        )


@dataclass(frozen=True)
class Merge:
    """The merge result. ``text`` is the merged file, with conflicts written as markers."""

    text: str
    conflicts: tuple[Conflict, ...]

    @property
    def clean(self) -> bool:
        return not self.conflicts


def merge3(
    base: str,
    ours: str,
    theirs: str,
    *,
    labels: tuple[str, str, str] = ("ours", "base", "theirs"),
) -> Merge:
    """Merge ``ours`` and ``theirs``, both edited from ``base``. ``labels``: ours, base, theirs
    names after the markers."""
    b, o, t = (_lines(s) for s in (base, ours, theirs))
    out: list[str] = []
    conflicts: list[Conflict] = []
    zb = zo = zt = 0  # where the current region starts in base, ours, theirs
    for sb, eb, so, st in _sync_regions(b, o, t):
        region = (b[zb:sb], o[zo:so], t[zt:st])
        if any(region):
            chosen = _resolve(*region)
            if chosen is None:
                conflicts.append(_conflict(region, (zb, zo, zt), len(out) + 1))
                out.extend(_markers(*region, labels))
            else:
                out.extend(chosen)
        out.extend(b[sb:eb])
        length = eb - sb
        zb, zo, zt = eb, so + length, st + length
    return Merge("".join(out), tuple(conflicts))


def _sync_regions(b: list[str], o: list[str], t: list[str]):
    """``(base_start, base_end, ours_start, theirs_start)`` of every run of base
    lines kept by both sides, in order, ending with an empty run at the ends of all three."""
    ours_blocks = SequenceMatcher(None, b, o, autojunk=False).get_matching_blocks()
    theirs_blocks = SequenceMatcher(None, b, t, autojunk=False).get_matching_blocks()
    i = j = 0
    while i < len(ours_blocks) - 1 and j < len(theirs_blocks) - 1:  # last block is a sentinel
        ob, oo, olen = ours_blocks[i]
        tb, tt, tlen = theirs_blocks[j]
        start, end = max(ob, tb), min(ob + olen, tb + tlen)
        if start < end:
            yield start, end, oo + start - ob, tt + start - tb
        if ob + olen < tb + tlen:
            i += 1
        else:
            j += 1
    yield len(b), len(b), len(o), len(t)


def _lines(text: str) -> list[str]:
    """Lines split at ``\\n`` only, each keeping it, so that ``"".join`` gives ``text`` back."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _resolve(base: list[str], ours: list[str], theirs: list[str]) -> list[str] | None:
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return None


def _conflict(region, starts: tuple[int, int, int], marker_line: int) -> Conflict:
    base, ours, theirs = region
    zb, zo, zt = starts
    return Conflict(zb + 1, zo + 1, zt + 1, marker_line, tuple(base), tuple(ours), tuple(theirs))


def _markers(base, ours, theirs, labels: tuple[str, str, str]) -> list[str]:
    ours_label, base_label, theirs_label = labels
    return [
        f"{OURS_MARK} {ours_label}\n",
        *_ended(ours),
        f"{BASE_MARK} {base_label}\n",
        *_ended(base),
        f"{SEP_MARK}\n",
        *_ended(theirs),
        f"{THEIRS_MARK} {theirs_label}\n",
    ]


def _ended(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n"]
    return list(lines)


def _span(start: int, lines: tuple[str, ...]) -> str:
    if not lines:
        return f"(none, before {start})"
    return str(start) if len(lines) == 1 else f"{start}-{start + len(lines) - 1}"


def has_markers(text: str) -> bool:
    """Whether ``text`` still holds a conflict (a line starting ``<<<<<<< `` or ``>>>>>>> ``;
    a bare ``=======`` is also a Markdown heading underline, so it does not count)."""
    marks = (OURS_MARK + " ", THEIRS_MARK + " ")
    return any(line.startswith(marks) for line in text.split("\n"))
