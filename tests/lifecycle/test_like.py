"""``ffgen new NAME --like KEY`` and ``--extends KEY``: start from an algorithm of the checkout.

In the sandbox: a copy of a hand-written algorithm and of a generated one, the classification
read from the code (and refused flags that contradict it), the lifecycle (idempotent re-run,
``remove`` the exact inverse, dry run, JSON), provenance (``check`` notices a changed source,
``update --from-source`` merges it), ``--extends`` (sanctioned parents only; FF305 accepts the
documented extension and still refuses an undocumented one). On the faithful fixture: ``--like``
from every built-in plans, conforms and verifies.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ffgen.checkout.view import CheckoutView, Overlay
from ffgen.generate.new import NewRequest, prepare_new
from ffgen.output import output_console
from ffgen.store.read import read_record
from ffgen.verify.engine import run_verify
from tests.helpers import SPECS, snapshot
from tests.lifecycle._lifecycle import ffgen, json_out, new, record_file

FAITHFUL = Path(__file__).resolve().parents[1] / "fixtures" / "faithful_checkout"
TRAINERS = "src/flow_factory/trainers"
ARGS = "src/flow_factory/hparams/training_args"
# Built-ins of the faithful fixture without an example config of their own: the copy takes the
# template's example, so the model type is given.
WITHOUT_EXAMPLE = ("dppo", "awm", "dgpo", "dpo", "crd")
BUILT_INS = (
    "grpo", "grpo-guard", "dppo", "nft", "awm", "dgpo", "dpo", "crd", "diffusion-opd", "dmd2",
    "tdm", "tdm-r1", "sft", "offline-dpo",
)  # fmt: skip


def like(runner, root, name, *flags):
    return ffgen(runner, "new", name, "--checkout", str(root), "--yes", *flags)


def code_of(module: str) -> str:
    """A module's text after its docstring (which names the source it was copied from)."""
    return module.split('"""', 2)[2]


def verify_errors(root: Path) -> list:
    return [f for f in run_verify(CheckoutView(root)).findings if f.severity == "error"]


# -- --like from a hand-written algorithm ---------------------------------------------------


def test_like_copies_the_hand_written_sft_with_its_classification_and_provenance(runner, sandbox):
    result = like(runner, sandbox, "my-sft", "--like", "sft")
    assert result.exit_code == 0, result.output
    shown = result.stdout.splitlines()[0]
    assert shown.startswith("--like sft: SFTTrainer + SFTTrainingArguments; dataset + none")
    assert "supervision demonstrations" in shown and "(from its code)" in shown
    trainer = (sandbox / f"{TRAINERS}/offline/my_sft.py").read_text()
    args = (sandbox / f"{ARGS}/my_sft.py").read_text()
    assert "class MySFTTrainer(BaseTrainer):" in trainer
    assert not re.search(r"\bSFTTrainer\b", code_of(trainer))
    assert 'trainer_type: Literal["my-sft"] = field(default="my-sft"' in args
    assert "if self.trainer_type != \"my-sft\":" in args and "must be 'my-sft'" in args
    example = yaml.safe_load((sandbox / "examples/my_sft/lora/toy/default.yaml").read_text())
    source = yaml.safe_load((sandbox / "examples/sft/lora/toy/default.yaml").read_text())
    assert example["train"] == {**source["train"], "trainer_type": "my-sft"}
    assert {k: v for k, v in example.items() if k != "train"} == {
        k: v for k, v in source.items() if k != "train"
    }
    record = read_record(CheckoutView(sandbox), "my-sft")
    assert record.source.key == "sft" and record.source.mode == "like"
    assert record.source.kind == "handwritten"
    assert record.source.text(f"{TRAINERS}/offline/sft.py") == (
        sandbox / f"{TRAINERS}/offline/sft.py"
    ).read_text()
    assert verify_errors(sandbox) == []


def test_rerun_is_idempotent_and_remove_is_the_exact_inverse(runner, sandbox):
    before = snapshot(sandbox)
    assert like(runner, sandbox, "my-dpo", "--like", "offline-dpo").exit_code == 0
    written = snapshot(sandbox)
    again = like(runner, sandbox, "my-dpo", "--like", "offline-dpo", "--format", "json")
    assert again.exit_code == 0, again.output
    assert {f["status"] for f in json_out(again)["files"]} == {"IDENTICAL"}
    assert snapshot(sandbox) == written
    removed = ffgen(runner, "remove", "my-dpo", "--checkout", str(sandbox))
    assert removed.exit_code == 0, removed.output
    assert snapshot(sandbox) == before


def test_dry_run_shows_the_plan_and_diffs_and_json_names_the_source(runner, sandbox):
    before = snapshot(sandbox)
    shown = like(runner, sandbox, "my-sft", "--like", "sft", "--dry-run")
    assert shown.exit_code == 0, shown.output
    assert "CREATE    src/flow_factory/trainers/offline/my_sft.py" in shown.stdout
    assert "+class MySFTTrainer(BaseTrainer):" in shown.stdout
    data = json_out(like(runner, sandbox, "my-sft", "--like", "sft", "--dry-run", "--format",
                         "json"))
    assert data["source"] == {"key": "sft", "mode": "like", "kind": "handwritten",
                              "trainer_class": "SFTTrainer",
                              "args_class": "SFTTrainingArguments"}
    assert data["answers"]["paradigm"] == {"value": "decoupled", "source": "forced"}
    assert data["written"] is False and snapshot(sandbox) == before


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--paradigm", "coupled"],
         "--paradigm coupled conflicts with --like sft: SFTTrainer declares paradigm 'decoupled'"),
        (["--acquisition", "generation"],
         "--acquisition generation conflicts with --like sft: SFTTrainer declares "
         "OFFLINE_EXECUTION_CONTRACT"),
        (["--supervision", "preference_pairs"],
         "--supervision preference_pairs conflicts with --like sft: SFTTrainer's loader reads "
         "'demonstration' batches"),
        (["--ownership", "snapshots"], "--ownership snapshots conflicts with --like sft"),
    ],
)
def test_a_flag_that_contradicts_the_code_is_refused_naming_the_conflict(
    runner, sandbox, flags, message
):
    before = snapshot(sandbox)
    result = like(runner, sandbox, "my-sft", "--like", "sft", *flags)
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert snapshot(sandbox) == before


def test_flags_that_agree_with_the_code_are_accepted(runner, sandbox):
    result = like(runner, sandbox, "my-sft", "--like", "sft", "--acquisition", "dataset",
                  "--paradigm", "decoupled", "--dry-run")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("flag", ["--like", "--extends"])
def test_a_bad_key_gets_one_clear_line(runner, sandbox, flag):
    result = like(runner, sandbox, "my-algo", flag, "nope")
    assert result.exit_code == 2
    line = "error: " + flag + " 'nope' is not an algorithm of this checkout; known: "
    assert result.stderr.startswith(line) and result.stderr.count("\n") == 1


def test_like_and_extends_together_are_refused(runner, sandbox):
    result = like(runner, sandbox, "my-algo", "--like", "sft", "--extends", "sft")
    assert result.exit_code == 2 and "exclude each other" in result.stderr


def test_answers_replay_of_a_copy_starts_from_the_same_source(runner, sandbox, tmp_path):
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    saved = tmp_path / "my-sft.yml"
    shutil.copy(record_file(sandbox, "my-sft"), saved)
    written = snapshot(sandbox)
    again = ffgen(runner, "new", "my-sft", "--checkout", str(sandbox), "--answers", str(saved))
    assert again.exit_code == 0, again.output
    assert snapshot(sandbox) == written


# -- --like from a generated algorithm --------------------------------------------------------


def test_like_a_generated_algorithm_uses_its_recorded_answers(runner, sandbox):
    # (the sandbox's own grpo is hand-written: the generated source takes another key)
    assert new(runner, sandbox, "gen-grpo", *SPECS["grpo"], "--ownership", "snapshots"
               ).exit_code == 0
    result = like(runner, sandbox, "my-grpo", "--like", "gen-grpo", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json_out(result)
    assert data["family"] == "grpo" and data["source"]["kind"] == "generated"
    assert data["answers"]["ownership"]["value"] == "snapshots"
    trainer = (sandbox / f"{TRAINERS}/rl/my_grpo.py").read_text()
    assert "class MyGRPOTrainer(BaseTrainer):" in trainer
    assert "def _objective_loss(" in trainer  # the source's objective, copied
    conflict = like(runner, sandbox, "other", "--like", "gen-grpo", "--ownership", "single")
    assert conflict.exit_code == 2
    assert "gen-grpo was generated with --ownership snapshots" in conflict.stderr
    assert verify_errors(sandbox) == []


def test_a_copy_of_a_copy_keeps_the_hand_written_objective_and_a_new_category(runner, sandbox):
    """A copy of a copy of ``sft`` still has SFT's own objective (its suite drives the hook),
    and a copy in another category folder has its imports re-based there."""
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    result = like(runner, sandbox, "other-sft", "--like", "my-sft", "--category", "mine",
                  "--format", "json")
    assert result.exit_code == 0, result.output
    assert json_out(result)["source"]["kind"] == "handwritten"
    trainer = (sandbox / f"{TRAINERS}/mine/other_sft.py").read_text()
    assert "class OtherSFTTrainer(BaseTrainer):" in trainer
    assert "from ..abc import BaseTrainer" in trainer and "from ...contracts import" in trainer
    assert "def rank_loss(" in (sandbox / "tests/trainers/test_other_sft.py").read_text()
    assert verify_errors(sandbox) == []


def test_a_changed_source_is_reported_and_merged_from_source(runner, sandbox):
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    ok = ffgen(runner, "check", "--checkout", str(sandbox), "--format", "json")
    entry = next(a for a in json_out(ok)["algorithms"] if a["key"] == "my-sft")
    assert entry["source_changed"] == []
    source, copy = sandbox / f"{TRAINERS}/offline/sft.py", sandbox / f"{TRAINERS}/offline/my_sft.py"
    mean = "loss = torch.stack(per_timestep, dim=0).mean()"
    source.write_text(source.read_text().replace(mean, mean + "  # the source's change"))
    copy.write_text(copy.read_text().replace("        device = self.accelerator.device\n",
                                             "        device = self.accelerator.device  # mine\n"))
    checked = ffgen(runner, "check", "--checkout", str(sandbox))
    assert checked.exit_code == 1
    assert (f"its source changed since the copy ({TRAINERS}/offline/sft.py): run `ffgen update "
            "my-sft --from-source`") in checked.stdout
    plain = ffgen(runner, "update", "my-sft", "--checkout", str(sandbox))
    assert plain.exit_code == 0 and "the source's change" not in copy.read_text()
    merged = ffgen(runner, "update", "my-sft", "--checkout", str(sandbox), "--from-source")
    assert merged.exit_code == 0, merged.output
    text = copy.read_text()
    assert "# the source's change" in text and "# mine" in text
    entry = next(a for a in json_out(ffgen(runner, "check", "--checkout", str(sandbox),
                                           "--format", "json"))["algorithms"]
                 if a["key"] == "my-sft")
    assert entry["source_changed"] == []


def test_from_source_is_refused_for_an_algorithm_without_a_copied_source(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *SPECS["sft"]).exit_code == 0
    result = ffgen(runner, "update", "my-algo", "--checkout", str(sandbox), "--from-source")
    assert result.exit_code == 1 and "was not copied from a source" in result.stderr


# -- --extends ----------------------------------------------------------------------------------


def test_extends_is_refused_for_an_unsanctioned_parent_with_the_reason(runner, sandbox):
    result = like(runner, sandbox, "my-sft", "--extends", "sft")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --extends sft: Flow-Factory sanctions strict extensions of grpo and tdm only "
        "(every other trainer inherits BaseTrainer directly and shares code through helpers); "
        "use --like sft to start from a copy instead"
    )


def test_extends_a_sanctioned_parent_overrides_only_the_objective(runner, sandbox):
    # the sandbox's hand-written grpo, as GRPO-Guard extends the real one; its objective hook
    # is optimize (it has no _objective_loss)
    result = like(runner, sandbox, "my-guard", "--extends", "grpo")
    assert result.exit_code == 0, result.output
    trainer = (sandbox / f"{TRAINERS}/rl/my_guard.py").read_text()
    assert "class MyGuardTrainer(GRPOTrainer):" in trainer
    assert "a strict extension of ``GRPOTrainer`` (``grpo``)" in trainer
    assert "Why not ``BaseTrainer`` plus shared helpers" in trainer
    assert trainer.count("    def ") == 1 and "    def optimize(self, samples" in trainer
    args = (sandbox / f"{ARGS}/my_guard.py").read_text()
    assert "class MyGuardTrainingArguments(GRPOTrainingArguments):" in args
    docs = (sandbox / "guidance/algorithms.md").read_text()
    assert "**A strict extension of `grpo`.**" in docs
    assert verify_errors(sandbox) == []
    # The same class without its justification is an undocumented extension: FF305.
    path = sandbox / f"{TRAINERS}/rl/my_guard.py"
    start = trainer.index('    """MyGuard:')
    end = trainer.index('    """\n', start + 8) + 8
    path.write_text(trainer[:start] + '    """GRPO with another objective."""\n' + trainer[end:])
    [finding] = verify_errors(sandbox)
    assert finding.rule_id == "FF305" and finding.algorithm == "my-guard"
    assert "without documenting the strict extension" in finding.message


def test_ff305_still_refuses_inheriting_an_unsanctioned_trainer(runner, sandbox):
    """A documented extension of a parent that is not sanctioned stays an error."""
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    path = sandbox / f"{TRAINERS}/offline/my_sft.py"
    text = path.read_text().replace("from ..abc import BaseTrainer\n",
                                    "from ..abc import BaseTrainer\nfrom .sft import SFTTrainer\n")
    text = text.replace("class MySFTTrainer(BaseTrainer):\n    \"\"\"",
                        "class MySFTTrainer(SFTTrainer):\n    \"\"\"A strict extension of sft. ")
    path.write_text(text)
    [finding] = verify_errors(sandbox)
    assert finding.rule_id == "FF305"
    assert "only strict extensions of grpo and tdm are sanctioned" in finding.message


def test_the_checkout_s_own_declaration_of_sanctioned_extensions_is_read(runner, sandbox):
    skill = sandbox / ".agents/skills/ff-new-algorithm/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("New trainers default to direct `BaseTrainer` inheritance; the existing\n"
                     "sanctioned strict extensions are SFT-Plus from SFT.\n")
    result = like(runner, sandbox, "my-sft", "--extends", "sft", "--dry-run")
    assert result.exit_code == 0, result.output
    refused = like(runner, sandbox, "my-sft", "--extends", "offline-dpo")
    assert "sanctions strict extensions of sft only" in refused.stderr


# -- a source that inherits trainer_type ---------------------------------------------------

# The sandbox's SFT reshaped like most real built-ins (GRPO, NFT, DMD2, ...): no trainer_type of
# its own and no check of it; it inherits TrainingArguments' field (default "grpo").
SFT_FIELD = (
    '    trainer_type: Literal["sft"] = field(default="sft", '
    'metadata={"help": "Registry key."})\n\n'
)
SFT_CHECK = (
    '        if self.trainer_type != "sft":\n'
    "            raise ValueError(f\"train.trainer_type must be 'sft', "
    'got {self.trainer_type!r}")\n'
)


def _inherit_trainer_type(root: Path) -> None:
    path = root / f"{ARGS}/sft.py"
    text = path.read_text()
    assert SFT_FIELD in text and SFT_CHECK in text
    path.write_text(text.replace(SFT_FIELD, "").replace(SFT_CHECK, ""))


def _args_suite(root: Path, module: str) -> subprocess.CompletedProcess:
    """The copy's generated arguments suite, run as its file says (``PYTHONPATH=src pytest``)."""
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", f"tests/hparams/test_{module}_args.py"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )


def test_a_copy_of_a_source_inheriting_trainer_type_selects_and_checks_its_own_key(
    runner, sandbox
):
    """The copy declares ``Literal["my-sft"]`` and refuses a foreign key, so its generated suite
    passes (today's copy inherited "grpo" and refused nothing); verify, a re-run, ``check`` and
    ``remove`` stay exact."""
    _inherit_trainer_type(sandbox)
    before = snapshot(sandbox)
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    args = (sandbox / f"{ARGS}/my_sft.py").read_text()
    assert 'trainer_type: Literal["my-sft"] = field(\n        default="my-sft",' in args
    post_init = args.split("def __post_init__(self) -> None:\n", 1)[1]
    assert post_init.startswith(
        '        super().__post_init__()\n        if self.trainer_type != "my-sft":\n'
    )
    assert verify_errors(sandbox) == []
    suite = _args_suite(sandbox, "my_sft")
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-2000:]
    written = snapshot(sandbox)
    again = like(runner, sandbox, "my-sft", "--like", "sft", "--format", "json")
    assert {f["status"] for f in json_out(again)["files"]} == {"IDENTICAL"}
    checked = ffgen(runner, "check", "--checkout", str(sandbox))
    assert checked.exit_code == 0, checked.output
    assert snapshot(sandbox) == written
    assert ffgen(runner, "remove", "my-sft", "--checkout", str(sandbox)).exit_code == 0
    assert snapshot(sandbox) == before


def test_update_from_source_of_such_a_copy_keeps_its_own_trainer_type(runner, sandbox):
    _inherit_trainer_type(sandbox)
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    path = sandbox / f"{ARGS}/sft.py"
    path.write_text(path.read_text().replace(
        "        super().__post_init__()\n",
        "        super().__post_init__()\n        self.seed = int(self.seed)\n",
    ))
    merged = ffgen(runner, "update", "my-sft", "--from-source", "--checkout", str(sandbox))
    assert merged.exit_code == 0, merged.output
    args = (sandbox / f"{ARGS}/my_sft.py").read_text()
    assert args.count("trainer_type: Literal[") == 1 and "self.seed = int(self.seed)" in args
    assert args.count('if self.trainer_type != "my-sft":') == 1
    assert verify_errors(sandbox) == []


# -- the faithful fixture -------------------------------------------------------------------


@pytest.fixture(scope="module")
def faithful(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("faithful") / "checkout"
    shutil.copytree(FAITHFUL, root)
    return root


def _plan(root: Path, name: str, flags: dict[str, str | None], **source: str):
    request = NewRequest(name=name, class_name=None, checkout=root, flags=flags,
                         interactive=False, dry_run=True, force=False, fmt="json", **source)
    _, plan, _ = prepare_new(request, output_console())
    return plan


@pytest.mark.parametrize("key", BUILT_INS)
def test_like_every_faithful_built_in_plans_conforms_and_verifies(faithful, key):
    """Plan only (no run): the plan passes conformance and ``verify`` inside ``prepare_new``;
    here the checkout as it would be has no finding at all for the copy."""
    flags = {"model_type": "sd3-5"} if key in WITHOUT_EXAMPLE else {}
    plan = _plan(faithful, f"copy-{key}", flags, like=key)
    after = Overlay(base=CheckoutView(faithful), changes={c.path: c.new for c in plan.changes})
    copied = run_verify(after, algorithm=f"copy-{key}").findings
    source = run_verify(CheckoutView(faithful), algorithm=key).findings
    assert [f.message for f in copied if f.severity == "error"] == []
    # a warning only where the source has the same one (DiffusionOPD's manual step count)
    assert {f.rule_id for f in copied} <= {f.rule_id for f in source}
    trainer = next(c.new for c in plan.changes if c.path.startswith(TRAINERS) and "copy_" in c.path)
    assert f"ffgen new copy-{key} --like {key}" in trainer
    # selected and checked by its own key, whether the source declares trainer_type or inherits it
    args = _copied_args(plan, f"copy_{key.replace('-', '_')}")
    assert args.count(f'trainer_type: Literal["copy-{key}"] = field(') == 1
    assert args.count(f'if self.trainer_type != "copy-{key}":') == 1


def test_like_grpo_on_the_faithful_fixture_renames_nothing_it_should_not(faithful, tmp_path):
    """The overlap case on the real layout: ``rl/grpo.py`` holds GRPO and GRPO-Guard; with a
    helper ``grpo_advantages`` that GRPO uses, ``--like grpo`` copies GRPO and the helper under
    their names, leaves GRPO-Guard (and its key ``grpo-guard``) out, and touches no other file
    beyond the registry entries of the new key."""
    root = tmp_path / "checkout"
    shutil.copytree(faithful, root)
    module = root / f"{TRAINERS}/rl/grpo.py"
    text = module.read_text().replace(
        "        for _batch in samples:",
        "        samples = grpo_advantages(samples)\n        for _batch in samples:",
    )
    module.write_text(text + "\n\ndef grpo_advantages(samples):\n    return list(samples)\n")
    plan = _plan(root, "my-grpo", {}, like="grpo")
    copy = next(c.new for c in plan.changes if c.path == f"{TRAINERS}/rl/my_grpo.py")
    assert "class MyGRPOTrainer(CoupledReplayRuntimeMixin, BaseTrainer):" in copy
    assert "def grpo_advantages(samples):" in copy and "= grpo_advantages(samples)" in copy
    assert "Guard" not in copy and not re.search(r"\bGRPOTrainer\b", code_of(copy))
    registry = next(c.new for c in plan.changes if c.path == f"{TRAINERS}/registry.py")
    assert '"grpo-guard": "flow_factory.trainers.rl.grpo.GRPOGuardTrainer",' in registry
    changed = {c.path for c in plan.changes if c.status.value in ("CREATE", "UPDATE")}
    assert f"{TRAINERS}/rl/grpo.py" not in changed


def _copied_args(plan, module: str) -> str:
    return next(c.new for c in plan.changes if c.path == f"{ARGS}/{module}.py")


def test_like_faithful_grpo_gives_the_copy_its_own_trainer_type_and_check(faithful):
    """Real GRPO inherits ``trainer_type`` from TrainingArguments: the copy declares its key as
    SFT does (first field) and refuses another right after ``super().__post_init__()``; the
    comment saying GRPO does not redeclare it is not carried over (no longer true)."""
    args = _copied_args(_plan(faithful, "my-x", {}, like="grpo"), "my_x")
    body = args.split("class MyXTrainingArguments(TrainingArguments):\n", 1)[1]
    assert body.startswith('    trainer_type: Literal["my-x"] = field(\n        default="my-x", ')
    assert "not redeclared" not in args
    assert "from dataclasses import dataclass, field\nfrom typing import Any, Literal\n" in args
    assert (
        "        super().__post_init__()\n"
        '        if self.trainer_type != "my-x":\n'
        "            raise ValueError(\n"
        "                \"MyXTrainingArguments requires train.trainer_type='my-x', \"\n"
        '                f"got {self.trainer_type!r}"\n'
        "            )\n"
        "        self.kl_beta = float(self.kl_beta)\n"
    ) in args


def test_like_faithful_sft_keeps_its_own_trainer_type_and_check_as_they_are(faithful):
    """SFT declares and checks its key: the copy has them once, renamed, nothing added."""
    args = _copied_args(_plan(faithful, "my-sft", {}, like="sft"), "my_sft")
    source = (faithful / f"{ARGS}/sft.py").read_text()
    renamed = source.replace("SFTTrainingArguments", "MySFTTrainingArguments")
    renamed = renamed.replace('"sft"', '"my-sft"').replace("'sft'", "'my-sft'")
    assert code_of(args).split("@dataclass", 1)[1] == renamed.split("@dataclass", 1)[1]
    assert args.count("trainer_type: Literal[") == 1 and args.count("!= \"my-sft\"") == 1


@pytest.mark.parametrize("parent", ["grpo", "tdm"])
def test_extends_every_sanctioned_faithful_parent_plans_and_verifies(faithful, parent):
    plan = _plan(faithful, f"ext-{parent}", {"model_type": "sd3-5"}, extends=parent)
    after = Overlay(base=CheckoutView(faithful), changes={c.path: c.new for c in plan.changes})
    assert [f.message for f in run_verify(after, algorithm=f"ext-{parent}").findings] == []


# -- issue 29, item 9: sanctioned extensions and another model type ---------------------------

SOURCE_MODULES = {"grpo-guard": "rl/grpo.py", "dppo": "rl/dppo.py",
                  "tdm-r1": "distillation/tdm_r1.py"}


@pytest.mark.parametrize(("key", "parent", "module"), [
    ("grpo-guard", "GRPOTrainer", "rl/copy_grpo_guard.py"),
    ("dppo", "GRPOTrainer", "rl/copy_dppo.py"),
    ("tdm-r1", "TDMTrainer", "distillation/copy_tdm_r1.py"),
])
def test_a_copy_of_a_sanctioned_extension_documents_the_extension(faithful, key, parent, module):
    """The fixture documents these extensions as the real checkout does (its skill names them,
    its guide has their sections, their docstrings say nothing of it): the copy, which no list
    names, says in its class docstring that it is a strict extension of the parent and why,
    in front of the source's own text, so FF305 passes (the plan verifies)."""
    flags = {"model_type": "sd3-5"} if key in WITHOUT_EXAMPLE else {}
    plan = _plan(faithful, f"copy-{key}", flags, like=key)
    trainer = next(c.new for c in plan.changes if c.path == f"{TRAINERS}/{module}")
    first = trainer.split(f"({parent}):\n", 1)[1].split("\n", 1)[0]
    assert first.startswith('    """Copy')
    assert first.endswith(f"Trainer: a strict extension of ``{parent}``, as ``{key}`` is.")
    assert "Why not ``BaseTrainer`` plus shared helpers" in trainer
    source = (faithful / TRAINERS / SOURCE_MODULES[key]).read_text()
    own = source.split(f"({parent}):\n", 1)[1].split('"""')[1]
    assert own in trainer  # the source's own docstring text follows
    assert "strict extension" not in source  # as in the real checkout: sanctioned by name
    docs = next(c.new for c in plan.changes if c.path == "guidance/algorithms.md")
    assert f"Like `{key}`, `Copy" in docs and f"is a strict extension of `{parent}`" in docs


def test_a_copy_of_a_plain_trainer_gets_no_extension_paragraph(faithful):
    plan = _plan(faithful, "copy-grpo", {}, like="grpo")
    trainer = next(c.new for c in plan.changes if c.path == f"{TRAINERS}/rl/copy_grpo.py")
    assert "strict extension" not in trainer
    docs = next(c.new for c in plan.changes if c.path == "guidance/algorithms.md")
    assert "strict extension" not in docs.split("## `copy-grpo`", 1)[1]


def test_like_with_a_model_type_the_source_has_no_example_for_starts_from_the_checkout_s(
        faithful, tmp_path):
    """``--like nft --model-type flux2``: nft's examples are for sd3-5 and wan21; the copy's
    example starts from the checkout's flux2 example, and one line says so."""
    root = tmp_path / "checkout"
    shutil.copytree(faithful, root)
    result = subprocess.run(
        [sys.executable, "-m", "ffgen", "new", "my-nft", "--like", "nft", "--model-type", "flux2",
         "--checkout", str(root), "--yes"], capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert result.returncode == 0, result.stdout + result.stderr
    notes = [line for line in result.stdout.splitlines() if "has no example config" in line]
    assert notes == [
        "--like nft has no example config for model type 'flux2' with finetune type 'lora' "
        "(it has examples/nft/lora/sd3_5/default.yaml, examples/nft/lora/wan21/t2v.yaml); the "
        "copy's example starts from the checkout's flux2 example "
        "examples/grpo/lora/flux2/hpsv3_2x8.yaml"
    ]
    example = yaml.safe_load((root / "examples/my_nft/lora/flux2/default.yaml").read_text())
    assert example["model"]["model_type"] == "flux2"
    assert example["train"]["trainer_type"] == "my-nft"
    assert verify_errors(root) == []


def test_a_from_source_conflict_names_the_source_as_theirs(runner, sandbox):
    """The other side of a --from-source merge is the source's code, not only the templates:
    the shown hunk and the refusal say so."""
    assert like(runner, sandbox, "my-sft", "--like", "sft").exit_code == 0
    source, copy = sandbox / f"{TRAINERS}/offline/sft.py", sandbox / f"{TRAINERS}/offline/my_sft.py"
    mean = "loss = torch.stack(per_timestep, dim=0).mean()"
    source.write_text(source.read_text().replace(mean, mean + "  # the source's change"))
    copy.write_text(copy.read_text().replace(mean, mean + "  # mine"))
    result = ffgen(runner, "update", "my-sft", "--checkout", str(sandbox), "--from-source")
    assert result.exit_code == 1
    assert ">>>>>>> theirs (sft's current code and today's templates)" in result.stdout
    assert "between your edits and sft's current code and today's templates" in result.stderr
