"""``ffgen verify --fix``: each mechanical defect of the corpus is repaired, the rest is left.

Before/after per fixable rule: seed the defect (the same mutation as ``test_defects.py``), run
``--fix``, and the checkout verifies as the faithful one does; only the file the fix belongs to
changed; a second ``--fix`` is a no-op. ``--dry-run`` shows the diff and writes nothing.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ffgen.cli import app
from ffgen.verify.fix import FIXABLE
from tests.helpers import snapshot
from tests.verify.conftest import ARGS, PKG, TRAINERS, beyond_baseline
from tests.verify.test_defects import CASES

ARGS_REG = f"{ARGS}/_registry.py"
TRAINER_REG = f"{TRAINERS}/registry.py"
ARGS_INIT = f"{ARGS}/__init__.py"
HPARAMS_INIT = f"{PKG}/hparams/__init__.py"

# The corpus cases --fix repairs, and the one file each repair edits.
FIXED_CASES = {
    "key-only-in-args": TRAINER_REG,
    "key-only-in-trainers": ARGS_REG,
    "args-not-imported": ARGS_REG,
    "missing-reexport-all": ARGS_INIT,
    "missing-reexport-import": ARGS_INIT,
    "missing-hparams-import": HPARAMS_INIT,
    "missing-hparams-all": HPARAMS_INIT,
}
BY_ID = {case.id: case for case in CASES}
# Every other case of the corpus needs a human decision: --fix must leave the tree as it is.
LEFT_CASES = [case for case in CASES if case.id not in FIXED_CASES]


def _seed(checkout, case) -> None:
    for path, old, new in case.edits:
        checkout.edit(path, old, new)


def _fix(root, *extra: str):
    return CliRunner().invoke(app, ["verify", "--checkout", str(root), "--fix", *extra])


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def test_every_fixable_rule_has_a_before_after_case():
    assert {BY_ID[case_id].rule for case_id in FIXED_CASES} == set(FIXABLE)


@pytest.mark.parametrize("case_id", sorted(FIXED_CASES))
def test_fix_repairs_the_defect_and_a_second_run_is_a_no_op(checkout, case_id):
    case = BY_ID[case_id]
    _seed(checkout, case)
    assert case.rule in checkout.verify().rule_ids()
    before = snapshot(checkout.root)

    result = _fix(checkout.root)
    assert result.exit_code == 0, result.output
    assert f"fixed {case.rule}" in result.output
    assert beyond_baseline(checkout.verify()) == []
    after = snapshot(checkout.root)
    assert _changed(before, after) == {FIXED_CASES[case_id]}

    again = _fix(checkout.root)
    assert again.exit_code == 0, again.output
    assert "0 fixed" in again.output and "0 file(s) changed" in again.output
    assert snapshot(checkout.root) == after


@pytest.mark.parametrize("case", LEFT_CASES, ids=[c.id for c in LEFT_CASES])
def test_findings_that_need_a_human_are_left_untouched(checkout, case):
    _seed(checkout, case)
    before = snapshot(checkout.root)
    result = _fix(checkout.root, "--format", "json")
    payload = json.loads(result.stdout)
    assert snapshot(checkout.root) == before
    assert payload["fixed"] == [] and payload["files"] == []
    left = [x for x in payload["left"] if x["rule_id"] == case.rule]
    assert left and all(x["reason"] and "\n" not in x["reason"] for x in left)
    assert result.exit_code == (1 if payload["summary"]["errors"] else 0)


def test_dry_run_shows_the_diff_and_writes_nothing(checkout):
    _seed(checkout, BY_ID["missing-reexport-all"])
    before = snapshot(checkout.root)
    result = _fix(checkout.root, "--dry-run")
    assert result.exit_code == 0, result.output  # what verify would say after the fix
    assert f"+++ b/{ARGS_INIT}" in result.output
    assert '+    "NFTTrainingArguments",' in result.output
    assert "1 file(s) would change" in result.output
    assert snapshot(checkout.root) == before


def test_json_lists_what_was_fixed_with_the_diff(checkout):
    _seed(checkout, BY_ID["args-not-imported"])
    result = _fix(checkout.root, "--dry-run", "--format", "json")
    payload = json.loads(result.stdout)
    assert payload["dry_run"] is True
    (fixed,) = payload["fixed"]
    assert (fixed["rule_id"], fixed["algorithm"], fixed["edited"]) == ("FF104", "dgpo", ARGS_REG)
    (changed,) = payload["files"]
    assert changed["path"] == ARGS_REG and changed["status"] == "UPDATE"
    assert "+from .dgpo import DGPOTrainingArguments" in changed["diff"]
    assert payload["summary"]["errors"] == 0 and payload["summary"]["fixed"] == 1
    assert [x["rule_id"] for x in payload["left"]] == ["FF302"]  # the faithful baseline warning


def test_one_run_repairs_a_chain_of_fixes(checkout):
    """An algorithm registered only by its args entry, nothing imported or re-exported: the import
    makes the class resolve, which makes the re-exports and the trainer entry fixable."""
    checkout.edit(ARGS_REG, "from .awm import AWMTrainingArguments\n", "")
    checkout.edit(TRAINER_REG, '    "awm": "flow_factory.trainers.rl.awm.AWMTrainer",\n', "")
    checkout.edit(ARGS_INIT, "from .awm import AWMTrainingArguments\n", "")
    checkout.edit(ARGS_INIT, '    "AWMTrainingArguments",\n', "")
    checkout.edit(HPARAMS_INIT, "    AWMTrainingArguments,\n", "")
    checkout.edit(HPARAMS_INIT, '    "AWMTrainingArguments",\n', "")
    result = _fix(checkout.root, "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert sorted(x["rule_id"] for x in payload["fixed"]) == ["FF101", "FF104", "FF105", "FF106"]
    assert beyond_baseline(checkout.verify()) == []
    assert checkout.verify(algorithm="awm").findings == ()


def test_alias_key_is_left_for_a_human(checkout):
    """grpo-guard shares GRPOTrainingArguments with grpo: the class name does not say which
    trainer the alias selects."""
    checkout.edit(
        TRAINER_REG, '    "grpo-guard": "flow_factory.trainers.rl.grpo.GRPOGuardTrainer",\n', ""
    )
    before = snapshot(checkout.root)
    result = _fix(checkout.root, "--format", "json")
    assert result.exit_code == 1
    (left,) = [x for x in json.loads(result.stdout)["left"] if x["rule_id"] == "FF101"]
    assert "shared by keys grpo, grpo-guard" in left["reason"]
    assert snapshot(checkout.root) == before


def test_a_fix_that_would_add_an_error_is_not_made(checkout):
    """Registering the conventional trainer would expose its missing sample() (FF303)."""
    checkout.edit(TRAINER_REG, '    "awm": "flow_factory.trainers.rl.awm.AWMTrainer",\n', "")
    checkout.edit(f"{TRAINERS}/rl/awm.py", "    def sample(self)", "    def _sample(self)")
    before = snapshot(checkout.root)
    result = _fix(checkout.root, "--format", "json")
    assert result.exit_code == 1
    (left,) = [x for x in json.loads(result.stdout)["left"] if x["rule_id"] == "FF101"]
    assert "would introduce FF303" in left["reason"]
    assert snapshot(checkout.root) == before


def test_two_candidate_classes_are_left_for_a_human(checkout):
    checkout.edit(ARGS_REG, "from .dgpo import DGPOTrainingArguments\n", "")
    checkout.write(f"{ARGS}/dgpo_copy.py", "class DGPOTrainingArguments:\n    pass\n")
    result = _fix(checkout.root, "--format", "json")
    assert result.exit_code == 1
    (left,) = [x for x in json.loads(result.stdout)["left"] if x["rule_id"] == "FF104"]
    assert "defined in 2 modules" in left["reason"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--dry-run"], "--dry-run only applies to --fix"),
        (["--fix", "--format", "github"], "--fix prints text or json"),
        (["--fix", "--explain", "FF105"], "--explain and --fix do not combine"),
    ],
)
def test_bad_flag_combinations_are_usage_errors(checkout, args, needle):
    before = snapshot(checkout.root)
    result = CliRunner().invoke(app, ["verify", "--checkout", str(checkout.root), *args])
    assert result.exit_code == 2
    assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert snapshot(checkout.root) == before


def test_fix_into_a_folder_it_cannot_write_is_one_line_and_changes_nothing(
    checkout, monkeypatch
):
    """A read-only registry folder (simulated: the tests run as root, where chmod does not stop
    a write) refuses the fix in one ``error:`` line, exit 2 (verify cannot run), the tree as it
    was."""
    from ffgen.write import apply as apply_mod

    def refuse(path, data, mode):
        raise PermissionError(13, "Permission denied", str(path))

    _seed(checkout, BY_ID["args-not-imported"])
    before = snapshot(checkout.root)
    monkeypatch.setattr(apply_mod, "write_file", refuse)
    result = _fix(checkout.root)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Permission denied" in lines[0]
    assert "Traceback" not in result.output
    assert snapshot(checkout.root) == before
