"""Shared by the agent tests: the JSON schemas in docs/json/, and reading the rendered skill the
way an agent would (its sections, the command lines of its ``bash`` blocks, its tables)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "json"


def schema(command: str) -> dict:
    return json.loads((SCHEMAS / f"{command}.schema.json").read_text(encoding="utf-8"))


def validated(command: str, stdout: str) -> dict:
    """The one JSON object ``stdout`` holds, validated against the command's schema."""
    data = json.loads(stdout)  # raises on anything but exactly one JSON document
    errors = sorted(Draft202012Validator(schema(command)).iter_errors(data), key=str)
    assert not errors, f"{command}: {errors[0].message} at {list(errors[0].absolute_path)}"
    return data


@dataclass(frozen=True)
class Section:
    heading: str  # the "## ..." line without the hashes
    body: str
    commands: tuple[str, ...]  # the lines of its ```bash blocks, in order


_FENCE = re.compile(r"^```bash\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def sections(skill: str) -> list[Section]:
    """The skill's ``##`` sections in order, each with the command lines of its bash blocks."""
    parts = re.split(r"^## (.+)$", skill, flags=re.MULTILINE)
    out = []
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        lines = [
            line.strip()
            for block in _FENCE.findall(body)
            for line in block.splitlines()
            if line.strip() and not line.strip().startswith("#")
        ]
        out.append(Section(heading.strip(), body, tuple(lines)))
    return out


def table(body: str, first_header: str) -> list[dict[str, str]]:
    """The Markdown table whose first column is ``first_header``, as rows of header -> cell."""
    lines = body.splitlines()
    start = next(
        i
        for i, line in enumerate(lines[:-1])
        if line.startswith(f"| {first_header} |") and lines[i + 1].startswith("|---")
    )
    header = _cells(lines[start])
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, _cells(line), strict=True)))
    return rows


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def values(cell: str) -> list[str]:
    """The code-quoted values of a table cell: "`a`, `b`" -> ["a", "b"]."""
    return re.findall(r"`([^`]+)`", cell)
