"""`ffgen update`: today's templates merged three ways into files the user has edited.

An older template is simulated by rewriting the record's pristine render (the merge base): the
user's file is that older render plus the user's own edit, today's render is the new side.
"""

import pytest

from ffgen.checkout.view import CheckoutView
from ffgen.store.records import parse_record
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import CASES, ffgen, json_out, new, record_file, rewrite_pristine

TRAINER = "src/flow_factory/trainers/rl/my_algo.py"
DOC_LINE = "GRPO-style clipped likelihood ratio over stored SDE rollouts.\n"
OLD_DOC = "An older template's summary line.\n"
SURROGATE = "torch.maximum(-advantages * ratio, -advantages * clipped_ratio).mean()\n"
USER_LINE = f"        policy_loss = {SURROGATE}"
USER_EDIT = f"        policy_loss = 0.5 * {SURROGATE}"


@pytest.fixture
def generated(runner, sandbox):
    """A GRPO algorithm whose record says an older template rendered its trainer."""
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    current = (sandbox / TRAINER).read_text()
    assert DOC_LINE in current and USER_LINE in current
    older = current.replace(DOC_LINE, OLD_DOC)
    rewrite_pristine(sandbox, "my-algo", TRAINER, older)
    return sandbox, current, older


def update(runner, root, *flags):
    return ffgen(runner, "update", "my-algo", "--checkout", str(root), *flags)


def test_a_user_edit_in_the_objective_survives_an_unrelated_template_change(runner, generated):
    root, current, older = generated
    (root / TRAINER).write_text(older.replace(USER_LINE, USER_EDIT))
    result = update(runner, root)
    assert result.exit_code == 0, result.output
    assert (root / TRAINER).read_text() == current.replace(USER_LINE, USER_EDIT)
    text = record_file(root, "my-algo").read_text()
    record = parse_record(text, "record", CheckoutView(root).read)
    assert record.file(TRAINER).pristine == current  # the next merge starts from today's render
    assert ffgen(runner, "check", "--checkout", str(root)).exit_code == 0


def test_an_unedited_file_simply_takes_the_new_render(runner, generated):
    root, current, older = generated
    (root / TRAINER).write_text(older)
    assert update(runner, root).exit_code == 0
    assert (root / TRAINER).read_text() == current


def test_a_conflict_is_refused_with_its_hunks_and_nothing_is_written(runner, generated):
    root, current, older = generated
    (root / TRAINER).write_text(older.replace(OLD_DOC, "My own summary.\n"))
    before = snapshot(root)
    result = update(runner, root)
    assert result.exit_code == 1
    assert "1 conflict(s)" in result.output and TRAINER in result.output
    assert "--conflict inline" in result.output
    assert snapshot(root) == before


def test_conflict_inline_writes_markers_and_exits_1(runner, generated):
    root, current, older = generated
    (root / TRAINER).write_text(older.replace(OLD_DOC, "My own summary.\n"))
    result = update(runner, root, "--conflict", "inline")
    assert result.exit_code == 1
    text = (root / TRAINER).read_text()
    assert "<<<<<<< ours\nMy own summary.\n" in text
    assert f"=======\n{DOC_LINE}>>>>>>> theirs\n" in text


def test_dry_run_reports_conflicts_and_writes_nothing(runner, generated):
    root, current, older = generated
    (root / TRAINER).write_text(older.replace(OLD_DOC, "My own summary.\n"))
    before = snapshot(root)
    result = update(runner, root, "--dry-run", "--conflict", "inline", "--format", "json")
    assert result.exit_code == 1
    data = json_out(result)
    assert data["dry_run"] is True and len(data["conflicts"]) == 1
    assert snapshot(root) == before


def test_update_repairs_a_lost_registry_entry(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["sft"]).exit_code == 0
    registry = sandbox / "src/flow_factory/trainers/registry.py"
    text = registry.read_text()
    line = next(x for x in text.splitlines(keepends=True) if '"my-algo"' in x)
    registry.write_text(text.replace(line, ""))
    check = ffgen(runner, "check", "--checkout", str(sandbox))
    assert check.exit_code == 1 and "registry entries missing" in check.output
    assert update(runner, sandbox).exit_code == 0
    assert registry.read_text() == text
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0


def test_update_refuses_an_algorithm_ffgen_did_not_generate(runner, sandbox):
    result = ffgen(runner, "update", "sft", "--checkout", str(sandbox))
    assert result.exit_code == 1 and "no ffgen record" in result.output


def test_a_bad_conflict_mode_is_a_usage_error(runner, generated):
    root, _, _ = generated
    result = update(runner, root, "--conflict", "theirs")
    assert result.exit_code == 2 and "inline or refuse" in result.output


def test_conflict_inline_in_code_is_written_although_it_does_not_compile(runner, sandbox):
    """Markers in Python code are the point of --conflict inline: apply must not refuse them."""
    assert new(runner, sandbox, "my-algo", *CASES["grpo"]).exit_code == 0
    current = (sandbox / TRAINER).read_text()
    rewrite_pristine(sandbox, "my-algo", TRAINER, current.replace(USER_LINE, "        pass\n"))
    (sandbox / TRAINER).write_text(current.replace(USER_LINE, USER_EDIT))
    # base "pass", ours USER_EDIT, theirs USER_LINE: both sides changed the same line.
    result = update(runner, sandbox, "--conflict", "inline")
    assert result.exit_code == 1, result.output
    text = (sandbox / TRAINER).read_text()
    assert f"<<<<<<< ours\n{USER_EDIT}||||||| base\n        pass\n=======\n{USER_LINE}" in text


IMPORTS_BEGIN = "# --- objective imports: edit here "
IMPORTS_END = "# --- objective imports: end "


def test_imports_the_objective_brings_survive_an_update_next_to_the_generated_ones(
    runner, generated
):
    """Flow-Factory allows no inline imports, so an objective that needs a module gets it in the
    trainer's own import region; update keeps it there like the objective edit itself."""
    root, current, older = generated
    begin = next(line for line in current.splitlines(keepends=True)
                 if line.startswith(IMPORTS_BEGIN))
    assert IMPORTS_END in current.split(begin, 1)[1].split("\n__all__", 1)[0]
    edited = older.replace(begin, begin + "import math\n", 1).replace(
        USER_LINE, f"        policy_loss = math.sqrt(0.25) * {SURROGATE}")
    (root / TRAINER).write_text(edited)
    assert update(runner, root).exit_code == 0
    text = (root / TRAINER).read_text()
    assert text == current.replace(begin, begin + "import math\n", 1).replace(
        USER_LINE, f"        policy_loss = math.sqrt(0.25) * {SURROGATE}")
    compile(text, TRAINER, "exec")
    assert ffgen(runner, "check", "--checkout", str(root)).exit_code == 0


def test_a_recorded_param_the_templates_now_declare_is_refused_naming_the_way_out(
    runner, sandbox
):
    """An older ffgen let `--param kl_type` through; today's GRPO template declares kl_type
    itself. Re-rendering would write the field twice (Python keeps the last, silently): update
    refuses and says how to hand the field over to the template."""
    assert new(runner, sandbox, "my-grpo", *CASES["grpo"], "--param",
               "margin:float=0.1:>=0").exit_code == 0
    answers = sandbox / ".ffgen/answers/my-grpo.yml"
    answers.write_text(answers.read_text().replace(
        "params: margin:float=0.1:>=0", "params: kl_type:str=v-based:v-based|x-based"))
    before = snapshot(sandbox)
    result = ffgen(runner, "update", "my-grpo", "--checkout", str(sandbox))
    assert result.exit_code == 1
    assert ("my-grpo's param kl_type clashes with today's templates (MyGRPOTrainingArguments "
            "already has a field 'kl_type'") in result.output
    assert "run `ffgen param remove my-grpo kl_type`" in result.output
    assert snapshot(sandbox) == before
