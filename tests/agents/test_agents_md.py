"""``ffgen skill`` points the checkout's ``AGENTS.md`` at the skill: once, where new-algorithm
work is routed, and ``ffgen skill --remove`` takes exactly that out again."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ffgen import __version__, agents_md
from ffgen.cli import app
from ffgen.skill import SKILL_PATH
from tests.helpers import snapshot

# The shape of Flow-Factory's own AGENTS.md (headings as in the real file; the text is ours).
REAL_SHAPE = """# Development Guide

Intro.

## Available Skills

| Skill | Purpose |
|-------|---------|
| `/ff-new-algorithm` | Algorithm integration |

### Quick Decision Guide

- **"Add a new training algorithm"** -> `/ff-new-algorithm`

## Commit & PR Conventions

- Concise messages.
"""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_skill_adds_one_pointer_and_remove_restores_the_sandbox(sandbox):
    before = snapshot(sandbox)
    assert invoke("skill", "--checkout", str(sandbox)).exit_code == 0
    guide = (sandbox / "AGENTS.md").read_text()
    assert guide.count(agents_md.BEGIN) == 1 and f"`{SKILL_PATH}`" in guide
    again = invoke("skill", "--checkout", str(sandbox))
    assert again.exit_code == 0 and again.stdout.count("IDENTICAL") == 2
    assert (sandbox / "AGENTS.md").read_text() == guide  # never a second block
    removed = invoke("skill", "--remove", "--checkout", str(sandbox))
    assert removed.exit_code == 0, removed.output
    assert "DELETE" in removed.stdout and "UPDATE" in removed.stdout
    assert snapshot(sandbox) == before  # byte for byte, the skill folder gone too
    assert not (sandbox / ".agents/skills/ffgen").exists()
    nothing = invoke("skill", "--remove", "--checkout", str(sandbox))
    assert nothing.exit_code == 0 and snapshot(sandbox) == before


def test_the_pointer_joins_the_skills_section_of_the_real_layout(sandbox):
    (sandbox / "AGENTS.md").write_text(REAL_SHAPE)
    assert invoke("skill", "--checkout", str(sandbox)).exit_code == 0
    guide = (sandbox / "AGENTS.md").read_text()
    # inside "## Available Skills", after its decision guide, before the next section
    skills, block, commits = (guide.index(s) for s in (
        "## Available Skills", agents_md.BEGIN, "## Commit & PR Conventions"))
    assert skills < guide.index("### Quick Decision Guide") < block < commits
    assert "\n### New training algorithms with ffgen\n" in guide
    assert invoke("skill", "--checkout", str(sandbox)).stdout.count("IDENTICAL") == 2
    assert invoke("skill", "--remove", "--checkout", str(sandbox)).exit_code == 0
    assert (sandbox / "AGENTS.md").read_text() == REAL_SHAPE


@pytest.mark.parametrize(
    "text",
    [None, "", "\n", "# Only a title\n", "# T\n\n", "# T\n\n## Skills\n\n- a\n\n## Next\n"],
)
def test_with_and_without_the_block_are_inverse(text):
    added = agents_md.with_block(text, SKILL_PATH)
    assert added.count(agents_md.BEGIN) == 1
    assert agents_md.with_block(added, SKILL_PATH) == added
    assert agents_md.without_block(added) == (None if text is None else text)


def test_a_missing_agents_md_is_created_and_removed_again(sandbox):
    (sandbox / "AGENTS.md").unlink()
    before = snapshot(sandbox)
    assert invoke("skill", "--checkout", str(sandbox)).exit_code == 0
    assert agents_md.BEGIN in (sandbox / "AGENTS.md").read_text()
    assert invoke("skill", "--remove", "--checkout", str(sandbox)).exit_code == 0
    assert snapshot(sandbox) == before


def test_an_edited_block_or_skill_needs_force(sandbox):
    assert invoke("skill", "--checkout", str(sandbox)).exit_code == 0
    path = sandbox / "AGENTS.md"
    path.write_text(path.read_text().replace("first", "always"))
    refused = invoke("skill", "--checkout", str(sandbox))
    assert refused.exit_code == 1 and "AGENTS.md" in refused.stderr
    assert invoke("skill", "--force", "--checkout", str(sandbox)).exit_code == 0
    (sandbox / SKILL_PATH).write_text("my notes\n")
    kept = invoke("skill", "--remove", "--checkout", str(sandbox))
    assert kept.exit_code == 1 and "--remove --force" in kept.stderr
    assert (sandbox / SKILL_PATH).read_text() == "my notes\n"
    assert invoke("skill", "--remove", "--force", "--checkout", str(sandbox)).exit_code == 0
    assert not (sandbox / SKILL_PATH).exists()


def test_version_prints_the_package_version():
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout == f"ffgen {__version__}\n"
