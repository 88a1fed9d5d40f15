"""What ``new`` prints (issue 29, item 7): ffgen's records as one line each, never their base85
content, and after a successful run three lines saying where to edit, how to test and how to
smoke-train; JSON carries the same as fields."""

from __future__ import annotations

import json
from pathlib import Path

from tests.lifecycle._lifecycle import ffgen, new

KEY, MODULE = "my-kto", "my_kto"
DPO = ("--acquisition", "dataset", "--supervision", "preference_pairs")
TRAINER = f"src/flow_factory/trainers/offline/{MODULE}.py"
TESTS = f"tests/trainers/test_{MODULE}.py tests/hparams/test_{MODULE}_args.py"


def _records(root: Path) -> dict[str, str]:
    folder = root / ".ffgen"
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in folder.rglob("*") if p.is_file() and p.name != "lock"}


def test_dry_run_shows_each_record_as_one_line_with_its_size_and_no_content(runner, sandbox,
                                                                             tmp_path):
    dry = new(runner, sandbox, KEY, *DPO, "--dry-run")
    assert dry.exit_code == 0, dry.output
    other = tmp_path / "other"
    from ffgen.sandbox import create_sandbox

    create_sandbox(other)
    assert new(runner, other, KEY, *DPO).exit_code == 0
    records = _records(other)  # what the dry run would have written
    assert any(p.startswith(".ffgen/base/") for p in records)
    lines = dry.output.splitlines()
    for path, text in records.items():
        mentions = [line for line in lines if path in line]
        size = len(text.encode("utf-8"))
        shown = f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"
        assert mentions == [f"  CREATE    {path} (ffgen record, {shown})"], mentions
        if path.endswith(".b85"):  # the base85 of a compressed render: none of it is shown
            body = [line for line in text.splitlines() if len(line) > 20]
            assert body and not any(line in dry.output for line in body), path
    assert f"+++ b/{TRAINER}" in dry.output  # the code's diffs are still shown
    assert "edit:" not in dry.output  # nothing was written: no next steps


def test_json_gives_records_a_size_instead_of_a_diff(runner, sandbox):
    dry = new(runner, sandbox, KEY, *DPO, "--dry-run", "--format", "json")
    files = json.loads(dry.stdout)["files"]
    records = [f for f in files if f["path"].startswith(".ffgen/")]
    assert records and all(f["diff"] == "" and f["size"] > 0 for f in records)
    assert all("size" not in f for f in files if not f["path"].startswith(".ffgen/"))
    assert "next" not in json.loads(dry.stdout)


def test_a_successful_new_ends_with_where_to_edit_how_to_test_and_how_to_smoke_train(
        runner, sandbox, monkeypatch):
    monkeypatch.chdir(sandbox.parent)
    result = new(runner, sandbox, KEY, *DPO)
    assert result.exit_code == 0, result.output
    where = "checkout"  # as typed from here
    assert result.output.splitlines()[-3:] == [
        f"edit:  {where}/{TRAINER}: between the `# --- objective: edit here ---` and "
        "`# --- objective: end ---` markers (_objective_loss(), _arm_velocity())",
        f"test:  cd {where} && PYTHONPATH=src python -m pytest {TESTS}",
        f"smoke: ffgen smoke {KEY} --checkout {where}",
    ]
    trainer = (sandbox / TRAINER).read_text(encoding="utf-8")
    assert "    def _objective_loss(" in trainer and "    def _arm_velocity(" in trainer


def test_json_of_a_successful_new_carries_the_three_lines(runner, sandbox):
    result = new(runner, sandbox, KEY, *DPO, "--format", "json")
    steps = json.loads(result.stdout)["next"]
    assert set(steps) == {"edit", "test", "smoke"}
    assert steps["edit"].startswith(f"{sandbox}/{TRAINER}: between the `# --- objective: edit")
    assert steps["test"].endswith(f"PYTHONPATH=src python -m pytest {TESTS}")
    assert steps["smoke"].startswith(f"ffgen smoke {KEY} --checkout ")


def test_a_like_copy_of_hand_written_code_names_its_objective_hook(runner, sandbox):
    result = ffgen(runner, "new", "my-sft", "--like", "sft", "--checkout", str(sandbox), "--yes")
    assert result.exit_code == 0, result.output
    edit = result.output.splitlines()[-3]
    assert edit.startswith(f"edit:  {sandbox}/src/flow_factory/trainers/offline/my_sft.py: ")
    assert "copied from sft's SFTTrainer" in edit or "objective: edit here" in edit
