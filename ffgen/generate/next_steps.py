"""What to do after ``ffgen new``, in three lines: where to edit, how to test, how to smoke-train.

Read from the plan itself (the trainer as it was written, its objective markers and the methods
between them), so the lines name what the files hold, a ``--like`` copy included.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ffgen.checkout import layout
from ffgen.classify.names import parse_name
from ffgen.generate.plan import Plan

BEGIN = "# --- objective: edit here"
END = "# --- objective: end"
_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class NextSteps:
    """The three lines ``new`` prints after writing (and its JSON's ``next``)."""

    edit: str
    test: str
    smoke: str

    def lines(self) -> tuple[str, str, str]:
        return (f"edit:  {self.edit}", f"test:  {self.test}", f"smoke: {self.smoke}")

    def as_dict(self) -> dict[str, str]:
        return {"edit": self.edit, "test": self.test, "smoke": self.smoke}


def next_steps(root: Path, plan: Plan, category: str) -> NextSteps:
    module = parse_name(plan.key).module
    trainer = layout.trainer_module_path(category, module)
    text = next((c.new for c in plan.changes if c.path == trainer), "")
    where = _shown(root)
    tests = f"{layout.test_path(module)} {layout.args_test_path(module)}"
    return NextSteps(
        # openable from here, as the other two lines are runnable from here
        edit=f"{trainer if where == '.' else f'{where}/{trainer}'}: {_edit_where(text, plan)}",
        test=f"cd {where} && PYTHONPATH=src python -m pytest {tests}",
        smoke=f"ffgen smoke {plan.key} --checkout {where}",
    )


def _edit_where(text: str, plan: Plan) -> str:
    """Between the objective markers (naming the methods there), else the copied objective."""
    start = text.find(BEGIN)
    stop = text.find(END, start)
    if start >= 0 and stop >= 0:
        methods = ", ".join(f"{m}()" for m in _DEF.findall(text[start:stop]))
        inside = f" ({methods})" if methods else ""
        return f"between the `{BEGIN} ---` and `{END} ---` markers{inside}"
    src = plan.source
    if src is not None and src.hook:
        return f"{src.hook}(), copied from {src.key}'s {src.trainer_class}"
    return "the objective of the copied trainer"


def _shown(root: Path) -> str:
    """The checkout as a user would type it: relative to here when it lies below."""
    try:
        rel = os.path.relpath(root)
    except (OSError, ValueError):  # no current folder (deleted), or another drive
        rel = str(root)
    return shlex.quote(rel if not rel.startswith("..") else str(root))
