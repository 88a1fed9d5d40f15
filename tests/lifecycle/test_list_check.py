"""`ffgen list` and `ffgen check`: where each algorithm stands, and a CI gate on it."""

import pytest

from tests.lifecycle._lifecycle import CASES, ffgen, json_out, new, rewrite_pristine

TRAINER = "src/flow_factory/trainers/rl/my_algo.py"


def states(runner, root) -> dict[str, dict]:
    result = ffgen(runner, "list", "--checkout", str(root), "--format", "json")
    assert result.exit_code == 0, result.output
    return {a["key"]: a for a in json_out(result)["algorithms"]}


def test_list_shows_hand_written_and_generated_algorithms(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    found = states(runner, sandbox)
    assert found["sft"]["generated"] is False and found["sft"]["state"] == "-"
    assert found["sft"]["contract"] == "OFFLINE_EXECUTION_CONTRACT"
    mine = found["my-algo"]
    assert mine["generated"] is True and mine["state"] == "unchanged"
    assert (mine["contract"], mine["paradigm"], mine["category"]) == (
        "ONLINE_EXECUTION_CONTRACT", "coupled", "rl"
    )
    assert {f["state"] for f in mine["files"]} == {"unchanged"}


def test_list_tells_edited_from_behind(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    trainer = sandbox / TRAINER
    trainer.write_text(trainer.read_text() + "# mine\n")
    mine = states(runner, sandbox)["my-algo"]
    assert mine["state"] == "edited"
    assert {f["path"]: f["state"] for f in mine["files"]}[TRAINER] == "edited"
    rewrite_pristine(sandbox, "my-algo", TRAINER, "older render\n")
    mine = states(runner, sandbox)["my-algo"]
    assert mine["state"] == "behind" and mine["behind"] == [TRAINER]


def test_list_agrees_with_remove_on_the_docs_section_and_with_check_on_lost_entries(
    runner, sandbox
):
    """The docs section is one of the algorithm's files (remove refuses while it is edited, so
    list says edited), and a registry entry gone by hand is what check fails on (unwired)."""
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    assert states(runner, sandbox)["my-algo"]["docs"] == {
        "path": "guidance/algorithms.md", "state": "unchanged"}
    guide = sandbox / "guidance/algorithms.md"
    pristine = guide.read_text()
    guide.write_text(pristine.replace("**Run.**", "**Run (my notes).**", 1))
    mine = states(runner, sandbox)["my-algo"]
    assert mine["state"] == "edited" and mine["docs"]["state"] == "edited"
    assert remove_refuses_naming(runner, sandbox, "guidance/algorithms.md")
    guide.write_text(pristine)
    registry = sandbox / "src/flow_factory/trainers/registry.py"
    registry.write_text("".join(line for line in registry.read_text().splitlines(True)
                                if '"my-algo"' not in line))
    mine = states(runner, sandbox)["my-algo"]
    assert mine["state"] == "unwired" and mine["missing_entries"] == [
        "src/flow_factory/trainers/registry.py"]
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 1


def remove_refuses_naming(runner, root, path: str) -> bool:
    result = ffgen(runner, "remove", "my-algo", "--checkout", str(root), "--dry-run")
    return result.exit_code == 1 and path in result.output


def test_list_text_is_a_table(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["sft"]).exit_code == 0
    result = ffgen(runner, "list", "--checkout", str(sandbox))
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["key", "contract"]
    row = next(line for line in lines if line.startswith("my-algo"))
    assert "generated" in row and "unchanged" in row


def test_check_passes_on_a_fresh_generation(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["awm"]).exit_code == 0
    result = ffgen(runner, "check", "--checkout", str(sandbox), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json_out(result)["ok"] is True


def test_check_stays_green_after_an_unrelated_new(runner, sandbox):
    """Rule: an algorithm's pristine render does not depend on algorithms added after it (a
    later generated example never becomes an earlier algorithm's base on replay)."""
    assert new(runner, sandbox, "algo-b", *CASES["grpo"]).exit_code == 0
    assert new(runner, sandbox, "algo-a", *CASES["grpo"]).exit_code == 0
    result = ffgen(runner, "check", "--checkout", str(sandbox), "--format", "json")
    assert result.exit_code == 0, result.output
    found = states(runner, sandbox)
    assert found["algo-b"]["state"] == found["algo-a"]["state"] == "unchanged"


def test_check_fails_when_an_algorithm_is_behind_the_templates(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    rewrite_pristine(sandbox, "my-algo", TRAINER, "older render\n")
    result = ffgen(runner, "check", "--checkout", str(sandbox))
    assert result.exit_code == 1
    assert "my-algo" in result.output and "ffgen update my-algo" in result.output
    github = ffgen(runner, "check", "--checkout", str(sandbox), "--format", "github")
    assert github.exit_code == 1
    assert github.stdout.startswith("::error file=.ffgen/answers/my-algo.yml")


def test_check_with_nothing_generated_passes(runner, sandbox):
    result = ffgen(runner, "check", "--checkout", str(sandbox))
    assert result.exit_code == 0 and "no generated algorithms" in result.output


def test_bad_formats_are_usage_errors(runner, sandbox):
    for command in ("list", "check"):
        result = ffgen(runner, command, "--checkout", str(sandbox), "--format", "xml")
        assert result.exit_code == 2 and "--format 'xml' is not valid" in result.output


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_family_goes_through_the_whole_lifecycle(runner, sandbox, case):
    """new -> list (unchanged) -> check (ok) -> update (nothing to do) -> remove, per family."""
    assert new(runner, sandbox, "my-algo", *CASES[case]).exit_code == 0
    assert states(runner, sandbox)["my-algo"]["state"] == "unchanged"
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0
    result = ffgen(runner, "update", "my-algo", "--checkout", str(sandbox), "--format", "json")
    assert result.exit_code == 0, result.output
    assert {f["status"] for f in json_out(result)["files"]} == {"IDENTICAL"}
    removed = ffgen(runner, "remove", "my-algo", "--checkout", str(sandbox))
    assert removed.exit_code == 0, removed.output
    assert "my-algo" not in states(runner, sandbox)
