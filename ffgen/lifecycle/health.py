"""Whether the files ffgen owns for an algorithm can be read as what they claim to be.

``check`` fails on them and ``update`` refuses to merge into them: a file still holding the
conflict markers of ``update --conflict inline``, Python that does not parse, YAML that does
not load. Each problem names the file, the line and what to do.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ffgen.checkout.view import CheckoutView
from ffgen.generate.plan import docs_markers
from ffgen.lifecycle.merge3 import OURS_MARK, THEIRS_MARK
from ffgen.store.records import Record

MARKERS_FIX = (
    "conflict markers from `ffgen update --conflict inline` are still there: keep the lines "
    "you want, delete the marker lines"
)


@dataclass(frozen=True)
class Broken:
    path: str
    line: int
    problem: str  # what is wrong and what to do, without the path

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.problem}"

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "problem": self.problem}


def marker_line(text: str) -> int | None:
    """The first line (1-based) that opens or closes a conflict; a bare ``=======`` alone is
    also a Markdown heading underline, so it does not count."""
    marks = (OURS_MARK + " ", THEIRS_MARK + " ")
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(marks):
            return number
    return None


def file_problem(path: str, text: str) -> Broken | None:
    """Conflict markers first (they are also why Python stops parsing), then the syntax."""
    line = marker_line(text)
    if line is not None:
        return Broken(path, line, MARKERS_FIX)
    if path.endswith(".py"):
        return _python_problem(path, text)
    if path.endswith((".yml", ".yaml")):
        return _yaml_problem(path, text)
    return None


def _python_problem(path: str, text: str) -> Broken | None:
    try:
        ast.parse(text, filename=path)
    except SyntaxError as exc:
        return Broken(path, exc.lineno or 1, f"does not parse ({exc.msg}): fix the syntax")
    except (RecursionError, MemoryError, ValueError):
        return Broken(path, 1, "cannot be parsed (nested too deeply or null bytes): fix it")
    return None


def _yaml_problem(path: str, text: str) -> Broken | None:
    import yaml

    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        reason = getattr(exc, "problem", None) or "invalid YAML"
        return Broken(path, line, f"does not load as YAML ({reason}): fix it")
    return None


def broken_files(view: CheckoutView, record: Record) -> tuple[Broken, ...]:
    """Every file ``record`` lists, the shared files it edited, and its docs section."""
    out = []
    paths = [*(f.path for f in record.files), *(e.path for e in record.registry)]
    for path in dict.fromkeys(paths):
        text = view.read(path)
        problem = file_problem(path, text) if text is not None else None
        if problem is not None:
            out.append(problem)
    docs = _docs_problem(view, record)
    if docs is not None:
        out.append(docs)
    return tuple(out)


def _docs_problem(view: CheckoutView, record: Record) -> Broken | None:
    """Markers inside the algorithm's own section (the rest of the document is not ffgen's)."""
    if record.docs is None:
        return None
    text = view.read(record.docs.path)
    begin, end = docs_markers(record.key)
    if text is None or begin not in text or end not in text:
        return None
    start = text.index(begin)
    section = text[start : text.index(end, start)]
    line = marker_line(section)
    if line is None:
        return None
    return Broken(record.docs.path, text[:start].count("\n") + line, MARKERS_FIX)
