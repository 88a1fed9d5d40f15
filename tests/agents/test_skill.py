"""``ffgen skill``: the skill file it writes, and that what the skill tells an agent is true.

The skill's tables are checked against ffgen's behaviour, not against the code that renders them:
every value it lists is accepted by the flag parser, every family row classifies (through
``ffgen new --dry-run``) into that family under the contract the contract table names, and every
generated trainer carries the objective markers the skill names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from typer.testing import CliRunner

from ffgen.classify.interview import from_flags
from ffgen.cli import app
from ffgen.skill import OBJECTIVE_BEGIN, OBJECTIVE_END, SKILL_PATH, render_skill
from tests.agents._agents import REPO, sections, table, validated, values
from tests.helpers import snapshot

SKILL = render_skill()
CLASSIFY = next(s for s in sections(SKILL) if "Classify" in s.heading)
PROPERTIES = table(CLASSIFY.body, "property")
FAMILIES = table(CLASSIFY.body, "family")
CONTRACTS = table(CLASSIFY.body, "acquisition")


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_skill_writes_the_file_through_a_plan(sandbox):
    before = snapshot(sandbox)
    dry = invoke("skill", "--checkout", str(sandbox), "--dry-run")
    assert dry.exit_code == 0 and "CREATE" in dry.stdout and SKILL_PATH in dry.stdout
    assert snapshot(sandbox) == before
    done = invoke("skill", "--checkout", str(sandbox))
    assert done.exit_code == 0, done.output
    assert (sandbox / SKILL_PATH).read_text(encoding="utf-8") == SKILL
    assert set(snapshot(sandbox)) - set(before) == {SKILL_PATH}
    again = invoke("skill", "--checkout", str(sandbox))
    assert again.exit_code == 0 and "IDENTICAL" in again.stdout


def test_an_edited_skill_is_a_conflict_until_force(sandbox):
    assert invoke("skill", "--checkout", str(sandbox)).exit_code == 0
    (sandbox / SKILL_PATH).write_text("mine\n", encoding="utf-8")
    refused = invoke("skill", "--checkout", str(sandbox))
    assert refused.exit_code == 1
    assert refused.stderr.count("\n") == 1 and "--force" in refused.stderr
    assert (sandbox / SKILL_PATH).read_text(encoding="utf-8") == "mine\n"
    forced = invoke("skill", "--checkout", str(sandbox), "--force")
    assert forced.exit_code == 0 and "UPDATE" in forced.stdout
    assert (sandbox / SKILL_PATH).read_text(encoding="utf-8") == SKILL


def test_bad_input_is_one_line_and_writes_nothing(sandbox, tmp_path):
    before = snapshot(sandbox)
    bad_format = invoke("skill", "--checkout", str(sandbox), "--format", "yaml")
    assert bad_format.exit_code == 2 and "choose text or json" in bad_format.stderr
    no_checkout = invoke("skill", "--checkout", str(tmp_path / "nowhere"))
    assert no_checkout.exit_code == 2 and "no such directory" in no_checkout.stderr
    assert snapshot(sandbox) == before


def test_skill_has_the_agent_skill_front_matter():
    head, _, _ = SKILL.partition("\n---\n")
    assert SKILL.startswith("---\n")
    assert "\nname: ffgen\n" in head + "\n" and "\ndescription: " in head


def test_the_property_table_names_the_seven_flags_and_values_the_parser_takes():
    assert [row["property"] for row in PROPERTIES] == [
        "acquisition", "feedback", "paradigm", "dynamics", "supervision", "state", "ownership",
    ]  # fmt: skip
    for row in PROPERTIES:
        assert values(row["flag"]) == [f"--{row['property']}"]
        for value in values(row["values"]):
            text = value.replace("<TypeName>", "CaptionRecord")
            assert from_flags({row["property"]: text}) is not None  # a bad value raises


def _flags(row: dict[str, str]) -> list[str]:
    """The first listed value of each property of a family row, as ``new`` flags."""
    flags = []
    for prop in (r["property"] for r in PROPERTIES):
        value = values(row[prop])[0].replace("<TypeName>", "CaptionRecord")
        flags += [f"--{prop}", value]
        if value == "multi_role":
            flags += ["--roles", "generator,critic"]
    return flags


@pytest.mark.parametrize("row", FAMILIES, ids=[values(r["family"])[0] for r in FAMILIES])
def test_each_family_row_classifies_into_its_family_and_contract(sandbox, row):
    result = invoke(
        "new", "my-algo", "--checkout", str(sandbox), "--yes", "--model-type", "toy",
        *_flags(row), "--dry-run", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["family"] == values(row["family"])[0]
    acquisition, feedback = values(row["acquisition"])[0], values(row["feedback"])[0]
    contract = next(
        c for c in CONTRACTS if values(c["acquisition"]) + values(c["feedback"]) == [
            acquisition, feedback
        ]
    )  # fmt: skip
    assert values(contract["contract"]) == [plan["contract"]]
    assert values(contract["category"]) == [f"{plan['category']}/"]
    trainer = next(f for f in plan["files"] if f["path"].startswith("src/flow_factory/trainers/"))
    for marker in (OBJECTIVE_BEGIN, OBJECTIVE_END):
        assert trainer["diff"].count(f"+    {marker}") == 1, marker


def test_the_refused_contract_row_is_refused(sandbox):
    (refused,) = [c for c in CONTRACTS if not values(c["contract"])]
    assert refused["contract"].startswith("refused: ")
    result = invoke(
        "new", "my-algo", "--checkout", str(sandbox), "--yes", "--model-type", "toy",
        "--acquisition", values(refused["acquisition"])[0],
        "--feedback", values(refused["feedback"])[0], "--supervision", "demonstrations",
    )  # fmt: skip
    assert result.exit_code == 1 and "no execution contract" in result.stderr


def _on_a_terminal(*args: str, cwd) -> str:
    """What ``python -m ffgen ARGS`` prints when its stdout is a (narrow) terminal."""
    import fcntl
    import pty
    import struct
    import termios

    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    # Drained while it runs: a terminal holds only a few KB, and a writer whose output
    # outgrows that would wait for a reader forever.
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc = subprocess.run(
        [sys.executable, "-m", "ffgen", *args], cwd=cwd, env=env, stdout=child,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120, check=False,
    )  # fmt: skip
    os.close(child)
    reader.join(timeout=30)
    out = b"".join(chunks)
    os.close(main)
    assert proc.returncode == 0, proc.stderr
    return out.decode("utf-8").replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_json_stays_plain_json_on_a_terminal(tmp_path):
    """Agents often run commands in a pseudo-terminal: no colour codes, no wrapped lines."""
    made = validated("sandbox", _on_a_terminal("sandbox", "demo", "--format", "json", cwd=tmp_path))
    root = made["checkout"]
    wrote = validated("skill", _on_a_terminal("skill", "--format", "json", cwd=root))
    assert wrote["files"][0]["path"] == SKILL_PATH
