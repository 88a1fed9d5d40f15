"""The pointer to the ffgen skill in the checkout's ``AGENTS.md``, added and taken out exactly.

Flow-Factory routes work to agents from ``AGENTS.md``: its skills section lists each skill and a
quick decision guide ("Add a new training algorithm" -> a skill). ``ffgen skill`` puts one marked
block at the end of that section (so it reads as part of the routing), or at the end of the file
when no section names skills; ``ffgen skill --remove`` takes out exactly the bytes it added. The
block is found by its markers, so running the command again never adds a second one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

AGENTS_PATH = "AGENTS.md"
BEGIN = "<!-- ffgen:begin skill -->"
END = "<!-- ffgen:end skill -->"
# A file ``ffgen skill`` creates holds this title above the block; taking the block out of such a
# file leaves the title alone, which ``remove`` recognises and deletes.
CREATED_TITLE = "# Agent guide\n"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True)
class Section:
    level: int  # 2 for "## Available Skills"
    end: int  # offset where the section ends (the next heading of its level or above, or EOF)


def block(skill_path: str, level: int) -> str:
    """The marked block; its heading sits one level below the section it joins."""
    heading = "#" * min(level + 1, 6)
    return (
        f"{BEGIN}\n"
        f"{heading} New training algorithms with ffgen\n\n"
        f'- **"Add a new training algorithm"** -> `/ffgen` first (`{skill_path}`): it classifies\n'
        "  the method, generates the arguments, trainer, registry entries, example config, docs\n"
        "  section and verification suite with `ffgen new`, and checks them with `ffgen verify`;\n"
        "  then write only the objective block it marks.\n"
        f"{END}\n"
    )


def has_block(text: str) -> bool:
    return BEGIN in text and END in text


def with_block(text: str | None, skill_path: str) -> str:
    """``AGENTS.md`` with the block in it (replacing one already there)."""
    if text is None:
        return f"{CREATED_TITLE}\n{block(skill_path, 1)}"
    if has_block(text):
        start, stop = _span(text)
        return text[:start] + block(skill_path, _block_level(text[start:stop])) + text[stop:]
    section = _skills_section(text)
    if section is None:
        return _join(text, block(skill_path, 1), len(text))
    return _join(text, block(skill_path, section.level), section.end)


def without_block(text: str) -> str | None:
    """``AGENTS.md`` with the block taken out, with the blank line ``with_block`` put beside it;
    None: the file ffgen created holds nothing else, so it goes."""
    if not has_block(text):
        return text
    start, stop = _span(text)
    if stop < len(text) and text[stop] == "\n":
        stop += 1  # joined before a heading: the blank line after it
    elif stop == len(text) and start > 0 and text[start - 1] == "\n":
        start -= 1  # appended: the blank line before it
    out = text[:start] + text[stop:]
    return None if out == CREATED_TITLE else out


def _span(text: str) -> tuple[int, int]:
    start = text.index(BEGIN)
    stop = text.index(END, start) + len(END)
    if text[stop : stop + 1] == "\n":
        stop += 1
    return start, stop


def _join(text: str, new: str, at: int) -> str:
    """Insert ``new`` at the line start ``at``: before a heading with a blank line after it, at
    the end with a blank line before it (a last line without its newline gets one)."""
    if at < len(text):
        return text[:at] + new + "\n" + text[at:]
    if not text:
        return new
    return text + ("\n" if text.endswith("\n") else "\n\n") + new


def _headings(text: str) -> list[tuple[int, int, str]]:
    """(offset, level, title) of every Markdown heading outside fenced code."""
    out, offset, fenced = [], 0, False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line.rstrip("\n"))
        if match:
            out.append((offset, len(match.group(1)), match.group(2)))
        offset += len(line)
    return out


def _skills_section(text: str) -> Section | None:
    """The first section whose title names skills (the real file: "## Available Skills")."""
    headings = _headings(text)
    for index, (_, level, title) in enumerate(headings):
        if "skill" not in title.lower():
            continue
        later = [h for h in headings[index + 1 :] if h[1] <= level]
        return Section(level, later[0][0] if later else len(text))
    return None


def _block_level(old: str) -> int:
    """The level of the section an existing block joined (its own heading is one below)."""
    levels = [level for _, level, _ in _headings(old)]
    return max(levels[0] - 1, 1) if levels else 1
