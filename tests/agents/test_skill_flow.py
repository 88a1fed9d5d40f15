"""The whole agent flow, driven by the skill itself.

A fresh sandbox gets the skill (``ffgen skill``); then every command line of the skill's ``bash``
blocks runs, in order, as a subprocess from the checkout root, the way an agent would run them.
The placeholders are filled the way the skill says: ``<name>`` and ``<flags>`` are the agent's
choice, ``<key>``, ``<category>`` and ``<module>`` come from the JSON ``ffgen new`` prints. When
the flow reaches the section that names the objective markers, the objective block of the
generated trainer is edited (its KL penalty scaled), and only that block. Every ffgen command's
JSON must validate against its schema and exit 0; verify must report no errors, the generated
suite must pass under pytest, and the lifecycle commands must see the edit and keep it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from ffgen.checkout import layout
from ffgen.skill import OBJECTIVE_BEGIN, OBJECTIVE_END, SKILL_PATH
from tests.agents._agents import REPO, sections, validated
from tests.helpers import snapshot

NAME = "my-grpo"
FLAGS = (
    "--acquisition generation --feedback runtime_reward --paradigm coupled --dynamics sde "
    "--supervision prompts --state legacy --ownership single --model-type toy"
)
# The edit an agent makes inside the objective block: bound the advantages (a change that keeps
# every rule the generated invariant tests state, so the suite stays green without test edits).
ADVANTAGES = "advantages = advantages.to(ratio.device)\n"
CLAMPED = "advantages = advantages.to(ratio.device).clamp(-5.0, 5.0)\n"
# A wrong objective, for the last check: the policy term with its sign flipped.
POLICY_LOSS = "        loss = policy_loss\n"
WRONG_SIGN = "        loss = -policy_loss\n"
SUITE_TIMEOUT_S = 900
# The steps the skill must give, in this order (other lines may come between them).
STEPS = (
    r"^ffgen new <name> .*--dry-run.* --format json",
    r"^ffgen new <name> (?!.*--dry-run).*--format json",
    r"^ffgen verify --format json",
    r"python -m pytest .*tests/trainers/test_<module>\.py.* tests/hparams/test_<module>_args\.py",
    r"^ffgen list --format json",
    r"^ffgen check --format json",
    r"^ffgen update <key> .*--format json",
)


def _env(assignments: dict[str, str], root: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    for key, value in assignments.items():
        # PYTHONPATH=src in the skill: the checkout's own package, <root>/src
        env[key] = str(root / value) if key == "PYTHONPATH" else value
    return env


def run_line(line: str, root: Path) -> subprocess.CompletedProcess:
    """One command line of the skill: leading VAR=value assignments, then ffgen or python."""
    words = shlex.split(line)
    assignments = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        key, _, value = words.pop(0).partition("=")
        assignments[key] = value
    program = {"ffgen": [sys.executable, "-m", "ffgen"], "python": [sys.executable]}
    assert words and words[0] in program, f"the skill runs something unexpected: {line}"
    return subprocess.run(
        [*program[words[0]], *words[1:]],
        cwd=root,
        env=_env(assignments, root),
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT_S,
        check=False,
    )


def fill(line: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        line = line.replace(placeholder, value)
    left = re.findall(r"<[a-z_]+>", line)
    assert not left, f"{line}: the skill never said how to fill {left}"
    return line


def trainer_names(plan: dict) -> dict[str, str]:
    """``<category>`` and ``<module>`` from the trainer entry of ``new``'s JSON, as the skill
    says to read them."""
    pattern = re.escape(layout.trainer_module_path("<category>", "<module>"))
    pattern = pattern.replace(re.escape("<category>"), "(?P<category>[a-z0-9_]+)")
    pattern = pattern.replace(re.escape("<module>"), "(?P<module>[a-z0-9_]+)")
    (match,) = [m for f in plan["files"] if (m := re.fullmatch(pattern, f["path"]))]
    return {
        "<category>": match["category"],
        "<module>": match["module"],
        "<key>": plan["algorithm"],
    }


def edit_objective(path: Path) -> None:
    """Clamp the advantages, inside the objective block only; everything else stays as written."""
    text = path.read_text(encoding="utf-8")
    assert text.count(OBJECTIVE_BEGIN) == 1 and text.count(OBJECTIVE_END) == 1
    begin = text.index(OBJECTIVE_BEGIN)
    end = text.index(OBJECTIVE_END)
    block = text[begin:end]
    assert block.count(ADVANTAGES) == 1, "the GRPO objective no longer moves its advantages"
    path.write_text(
        text[:begin] + block.replace(ADVANTAGES, CLAMPED) + text[end:], encoding="utf-8"
    )


def test_the_skill_drives_new_edit_verify_and_the_suite(tmp_path):
    root = tmp_path / "checkout"
    made = run_line(f"ffgen sandbox {root} --format json", tmp_path)
    assert made.returncode == 0, made.stderr
    assert validated("sandbox", made.stdout)["checkout"] == str(root.resolve())
    wrote = run_line("ffgen skill --format json", root)
    assert wrote.returncode == 0, wrote.stderr
    assert validated("skill", wrote.stdout)["files"][0]["status"] == "CREATE"

    skill = (root / SKILL_PATH).read_text(encoding="utf-8")
    steps = sections(skill)
    lines = [line for s in steps for line in s.commands]
    # The steps the skill must give, in this order (other lines may come between them).
    wanted = iter(STEPS)
    need = next(wanted)
    for line in lines:
        if need is not None and re.search(need, line):
            need = next(wanted, None)
    assert need is None, f"the skill's commands lack {need!r} in order: {lines}"

    values = {"<name>": NAME, "<flags>": FLAGS}
    outputs: dict[str, list[dict]] = {}
    edited = False
    for section in steps:
        if OBJECTIVE_BEGIN in section.body and OBJECTIVE_END in section.body:
            trainer = root / layout.trainer_module_path(values["<category>"], values["<module>"])
            before = snapshot(root)
            edit_objective(trainer)
            changed = {p for p, data in snapshot(root).items() if before.get(p) != data}
            assert changed == {trainer.relative_to(root).as_posix()}
            edited = True
        for template in section.commands:
            line = fill(template, values)
            before = snapshot(root) if "--dry-run" in line else None
            done = run_line(line, root)
            assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            if before is not None:
                assert snapshot(root) == before, f"{line} wrote files"
            if line.startswith("ffgen "):
                command = shlex.split(line)[1]
                data = validated(command, done.stdout)
                outputs.setdefault(command, []).append(data)
                if command == "new":
                    values.update(trainer_names(data))
            else:
                # every test passed: the summary names nothing failed, skipped or erroring
                summary = done.stdout.strip().splitlines()[-1]
                assert re.fullmatch(r"\d+ passed(, \d+ warnings?)? in [0-9.]+s", summary), (
                    done.stdout[-3000:]
                )
                outputs.setdefault("pytest", []).append({"summary": summary})
    assert edited, "no section of the skill names the objective markers"

    planned, written = outputs["new"]
    assert (planned["family"], planned["contract"]) == ("grpo", "ONLINE_EXECUTION_CONTRACT")
    assert [f["path"] for f in planned["files"]] == [f["path"] for f in written["files"]]
    assert all((root / f["path"]).is_file() for f in written["files"])
    module = values["<module>"]
    suite = {layout.test_path(module), layout.args_test_path(module)}
    assert suite <= {f["path"] for f in written["files"]}
    assert outputs["pytest"], "the skill never ran the generated suite"

    (report,) = outputs["verify"]
    assert report["summary"]["errors"] == 0 and NAME in report["algorithms"]
    (listing,) = outputs["list"]
    mine = next(a for a in listing["algorithms"] if a["key"] == NAME)
    trainer_path = layout.trainer_module_path(values["<category>"], module)
    assert mine["state"] == "edited"
    assert {f["path"]: f["state"] for f in mine["files"]}[trainer_path] == "edited"
    (checked,) = outputs["check"]
    assert checked["ok"] is True
    (updated,) = outputs["update"]
    assert updated["conflicts"] == []
    status = {f["path"]: f["status"] for f in updated["files"]}
    assert status[trainer_path] == "KEPT"  # today's templates: the edit is kept as it is
    assert CLAMPED in (root / trainer_path).read_text(encoding="utf-8")

    # The suite the skill runs guards the block an agent edits: a sign error there fails it.
    (suite_line,) = [fill(line, values) for line in lines if "python -m pytest" in line]
    trainer = root / trainer_path
    good = trainer.read_text(encoding="utf-8")
    assert good.count(POLICY_LOSS) == 1
    trainer.write_text(good.replace(POLICY_LOSS, WRONG_SIGN), encoding="utf-8")
    broken = run_line(suite_line, root)
    assert broken.returncode == 1 and " failed" in broken.stdout, broken.stdout[-3000:]
