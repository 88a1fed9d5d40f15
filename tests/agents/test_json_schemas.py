"""Every command's ``--format json`` output matches its schema in ``docs/json/``.

Each command runs for real (in-process, on a fresh sandbox) in its success case and in the
refusal / finding cases where it still prints JSON; stdout must be exactly one JSON object and
validate against the command's schema. The schemas forbid unlisted fields, so a field added to
(or dropped from) an output without its schema fails here. Refusals that print no JSON are checked
to print none: the schemas' descriptions say so.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import typer
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

import ffgen.quality.check_templates as ct
from ffgen.classify.model import Contract, Family
from ffgen.cli import app
from ffgen.generate import render
from ffgen.generate.plan import Status
from ffgen.skill import SKILL_PATH
from tests.agents._agents import REPO, SCHEMAS, schema, validated
from tests.helpers import SPECS, snapshot
from tests.lifecycle._lifecycle import rewrite_pristine

FAITHFUL = REPO / "tests" / "fixtures" / "faithful_checkout"
COMMANDS = (
    "new",
    "verify",
    "list",
    "remove",
    "update",
    "check",
    "check-templates",
    "sandbox",
    "skill",
)
TRAINER = "src/flow_factory/trainers/rl/my_algo.py"
TRAINER_REG = "src/flow_factory/trainers/registry.py"
TRAINER_ENTRY = '    "my-algo": "flow_factory.trainers.rl.my_algo.MyAlgoTrainer",\n'
DOC_LINE = "GRPO-style clipped likelihood ratio over stored SDE rollouts.\n"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def valid(command: str, result) -> dict:
    return validated(command, result.stdout)


def new(root: Path, *extra: str, spec: str = "grpo"):
    return invoke(
        "new",
        "my-algo",
        "--checkout",
        str(root),
        "--yes",
        "--model-type",
        "toy",
        *SPECS[spec],
        "--format",
        "json",
        *extra,
    )


@pytest.fixture
def generated(sandbox) -> Path:
    result = new(sandbox)
    assert result.exit_code == 0, result.output
    return sandbox


# -- the schemas themselves ------------------------------------------------------------------


def _commands_with_format() -> set[str]:
    group = typer.main.get_command(app)
    return {
        name
        for name, command in group.commands.items()
        if any("--format" in getattr(p, "opts", ()) for p in command.params)
    }


def test_every_command_has_format_and_a_valid_2020_12_schema():
    assert _commands_with_format() == set(COMMANDS)
    assert {p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json")} == set(
        COMMANDS
    )
    for command in COMMANDS:
        document = schema(command)
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(document)


def test_schema_enums_are_ffgen_s_own_values():
    """Enums spelled out in the schemas are the ones the code uses (status, family, stages)."""
    statuses = [s.value for s in Status]
    assert schema("new")["$defs"]["fileChange"]["properties"]["status"]["enum"] == statuses
    assert schema("update")["$defs"]["fileChange"]["properties"]["status"]["enum"] == statuses
    assert schema("remove")["$defs"]["fileChange"]["properties"]["status"]["enum"] == statuses
    assert schema("new")["$defs"]["family"]["enum"] == [f.value for f in Family]
    assert schema("new")["$defs"]["contract"]["enum"] == [c.value for c in Contract]
    templates = schema("check-templates")
    assert templates["$defs"]["stage"]["enum"] == list(ct.STAGES)
    assert templates["properties"]["stages"]["required"] == list(ct.STAGES)


# -- sandbox and skill -----------------------------------------------------------------------


def test_sandbox_json(tmp_path):
    data = valid("sandbox", invoke("sandbox", str(tmp_path / "demo"), "--format", "json"))
    assert Path(data["checkout"]).is_absolute()
    assert Path(data["checkout"]) == (tmp_path / "demo").resolve()
    assert (tmp_path / "demo" / "src" / "flow_factory").is_dir()


def test_sandbox_refusals_print_no_json_and_create_nothing(tmp_path):
    bad = invoke("sandbox", str(tmp_path / "demo"), "--format", "xml")
    assert bad.exit_code == 2 and bad.stdout == ""
    assert "--format 'xml'" in bad.stderr and not (tmp_path / "demo").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    taken = invoke("sandbox", str(tmp_path / "full"), "--format", "json")
    assert taken.exit_code == 1 and taken.stdout == "" and "not empty" in taken.stderr


def test_skill_json_create_identical_and_conflict(sandbox):
    args = ("skill", "--checkout", str(sandbox), "--format", "json")
    planned = valid("skill", invoke(*args, "--dry-run"))
    assert planned["dry_run"] is True and planned["files"][0]["status"] == "CREATE"
    assert not (sandbox / SKILL_PATH).exists()
    written = invoke(*args)
    assert written.exit_code == 0
    assert valid("skill", written)["files"][0]["status"] == "CREATE"
    assert valid("skill", invoke(*args))["files"][0]["status"] == "IDENTICAL"
    (sandbox / SKILL_PATH).write_text("my own notes\n")
    conflict = invoke(*args)
    assert conflict.exit_code == 1 and "--force" in conflict.stderr
    assert valid("skill", conflict)["files"][0]["status"] == "CONFLICT"
    assert (sandbox / SKILL_PATH).read_text() == "my own notes\n"


# -- new -------------------------------------------------------------------------------------


def test_new_json_dry_run_and_write(sandbox):
    before = snapshot(sandbox)
    planned = valid("new", new(sandbox, "--dry-run"))
    assert snapshot(sandbox) == before
    assert planned["algorithm"] == "my-algo"
    assert (planned["family"], planned["category"]) == ("grpo", "rl")
    assert {f["status"] for f in planned["files"]} == {"CREATE", "UPDATE"}
    written = new(sandbox)
    assert written.exit_code == 0
    assert valid("new", written)["files"] == planned["files"]
    assert {f["status"] for f in valid("new", new(sandbox))["files"]} == {"IDENTICAL"}


def test_new_json_on_a_conflict(sandbox):
    example = sandbox / "examples/my_algo/lora/toy/default.yaml"
    example.parent.mkdir(parents=True)
    example.write_text("mine: true\n")
    before = snapshot(sandbox)
    result = new(sandbox)
    assert result.exit_code == 1 and "--force" in result.stderr
    statuses = {f["path"]: f["status"] for f in valid("new", result)["files"]}
    assert statuses["examples/my_algo/lora/toy/default.yaml"] == "CONFLICT"
    assert snapshot(sandbox) == before


def test_new_refusal_prints_no_json(sandbox):
    result = invoke(
        "new",
        "my-algo",
        "--checkout",
        str(sandbox),
        "--yes",
        "--model-type",
        "toy",
        "--acquisition",
        "dataset",
        "--feedback",
        "runtime_reward",
        "--supervision",
        "demonstrations",
        "--format",
        "json",
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error:") and "no execution contract" in result.stderr


# -- verify ----------------------------------------------------------------------------------


def test_verify_json_clean_and_with_a_finding(generated):
    clean = invoke("verify", "--checkout", str(generated), "--format", "json")
    assert clean.exit_code == 0
    report = valid("verify", clean)
    assert report["summary"]["errors"] == 0 and "my-algo" in report["algorithms"]
    registry = generated / TRAINER_REG
    registry.write_text(registry.read_text().replace(TRAINER_ENTRY, ""))
    broken = invoke("verify", "--checkout", str(generated), "--format", "json")
    assert broken.exit_code == 1
    findings = valid("verify", broken)["findings"]
    assert any(f["algorithm"] == "my-algo" and f["severity"] == "error" for f in findings)
    fix = invoke("verify", "--checkout", str(generated), "--fix", "--dry-run", "--format", "json")
    assert fix.exit_code == 0
    repaired = valid("verify", fix)
    assert repaired["fixed"] and repaired["fixed"][0]["edited"] == TRAINER_REG
    assert TRAINER_ENTRY.strip() in repaired["files"][0]["diff"]


@pytest.mark.parametrize("rule", ["FF305", "FF101"])
def test_verify_explain_json(rule):
    result = invoke("verify", "--explain", rule, "--format", "json")
    assert result.exit_code == 0, result.output
    data = valid("verify", result)
    assert data["rule_id"] == rule and data["rationale"] and data["fix"]
    assert bool(data["sanctioned"]) is (rule == "FF305")


def test_verify_fix_json_with_a_finding_left(tmp_path):
    root = tmp_path / "faithful"
    shutil.copytree(FAITHFUL, root)
    report = valid("verify", invoke("verify", "--checkout", str(root), "--format", "json"))
    assert report["summary"]["warnings"] >= 1 and report["findings"]
    result = invoke("verify", "--checkout", str(root), "--fix", "--dry-run", "--format", "json")
    left = valid("verify", result)["left"]
    assert left and all(x["reason"] for x in left)


# -- list, check, remove, update -------------------------------------------------------------


def test_list_json_shows_an_edited_file(generated):
    trainer = generated / TRAINER
    trainer.write_text(trainer.read_text() + "# mine\n")
    data = valid("list", invoke("list", "--checkout", str(generated), "--format", "json"))
    mine = next(a for a in data["algorithms"] if a["key"] == "my-algo")
    assert mine["state"] == "edited"
    assert {"path": TRAINER, "state": "edited"} in mine["files"]
    assert any(not a["generated"] for a in data["algorithms"])  # the sandbox's own ones


def test_check_json_ok_and_failing(generated):
    ok = invoke("check", "--checkout", str(generated), "--format", "json")
    assert ok.exit_code == 0 and valid("check", ok)["ok"] is True
    registry = generated / TRAINER_REG
    registry.write_text(registry.read_text().replace(TRAINER_ENTRY, ""))
    failing = invoke("check", "--checkout", str(generated), "--format", "json")
    assert failing.exit_code == 1
    data = valid("check", failing)
    assert data["ok"] is False and data["algorithms"][0]["missing_entries"] == [TRAINER_REG]


def test_remove_json_dry_run_kept_and_write(generated):
    trainer = generated / TRAINER
    trainer.write_text(trainer.read_text() + "# mine\n")
    args = ("remove", "my-algo", "--checkout", str(generated), "--format", "json")
    planned = valid("remove", invoke(*args, "--dry-run", "--keep-edited"))
    statuses = {f["path"]: (f["status"], f["note"]) for f in planned["files"]}
    assert statuses[TRAINER][0] == "KEPT" and statuses[TRAINER][1]
    forced = invoke(*args, "--force")
    assert forced.exit_code == 0
    data = valid("remove", forced)
    assert data["dry_run"] is False and {f["status"] for f in data["files"]} <= {"DELETE", "UPDATE"}
    assert not trainer.exists()


def test_remove_refusal_prints_no_json(sandbox):
    result = invoke("remove", "no-such-algo", "--checkout", str(sandbox), "--format", "json")
    assert result.exit_code in (1, 2) and result.stdout == ""
    assert result.stderr.startswith("error:")


def _older_trainer(root: Path) -> str:
    """Make the record say an older template rendered the trainer (``update`` has work)."""
    current = (root / TRAINER).read_text()
    older = current.replace(DOC_LINE, "An older template's summary line.\n")
    assert older != current
    rewrite_pristine(root, "my-algo", TRAINER, older)
    return older


def test_update_json_plan(generated):
    (generated / TRAINER).write_text(_older_trainer(generated))
    result = invoke(
        "update", "my-algo", "--checkout", str(generated), "--dry-run", "--format", "json"
    )
    assert result.exit_code == 0
    data = valid("update", result)
    assert data["conflicts"] == [] and data["dry_run"] is True
    assert {f["path"]: f["status"] for f in data["files"]}[TRAINER] == "UPDATE"


def test_update_json_refused_and_inline_conflicts(generated):
    older = _older_trainer(generated)
    (generated / TRAINER).write_text(older.replace("An older template's", "My own"))
    before = snapshot(generated)
    refused = invoke("update", "my-algo", "--checkout", str(generated), "--format", "json")
    assert refused.exit_code == 1
    data = valid("update", refused)
    assert data["written"] is False and len(data["conflicts"]) == 1
    assert snapshot(generated) == before
    inline = invoke(
        "update",
        "my-algo",
        "--checkout",
        str(generated),
        "--dry-run",
        "--conflict",
        "inline",
        "--format",
        "json",
    )
    assert inline.exit_code == 1
    assert len(valid("update", inline)["conflicts"]) == 1


# -- check-templates (one point, so it takes a second) ---------------------------------------


@pytest.fixture
def one_point(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    points = ct.legal_points()
    sft = [next(c for c in points if c.family.value == "sft")]
    monkeypatch.setattr(ct, "legal_points", lambda: sft)
    monkeypatch.setattr(ct, "suite_subset", lambda chosen: set())  # no generated suite: fast


def test_check_templates_json_passing(one_point):
    result = invoke("check-templates", "--format", "json")
    assert result.exit_code == 0, result.stdout
    data = valid("check-templates", result)
    assert data["ok"] is True and data["legal_points"] == 1 and data["first_failure"] is None


def test_check_templates_json_failing(one_point, monkeypatch):
    real = render.render

    def broken(template, ctx):
        text = real(template, ctx)
        return text + "def (:\n" if template == render.TRAINER_TEMPLATE else text

    monkeypatch.setattr(render, "render", broken)
    result = invoke("check-templates", "--format", "json")
    assert result.exit_code == 1
    data = valid("check-templates", result)
    assert data["ok"] is False and data["first_failure"]["stage"] == "compile"
    assert data["points"][0]["failure"]["stage"] == "compile"
