"""The verification suite ``ffgen new`` writes runs in a fresh sandbox, passes, and can fail.

For one algorithm per family (plus multi-role ownership and structured state) the generated
trainer and arguments test files are run with pytest in a subprocess, first against the trainer as
generated (every test passes, well under 10 s), then against deliberately broken variants of the
trainer (each must make the suite fail, first in the test of the rule it breaks). All runs of one
algorithm share one interpreter (``_suite_runner.py``), so torch is imported once per algorithm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _checkout import FAMILY_FLAGS, RUFF, Generated, copy_sandbox, generate, new_algorithm
from _render import family_context, legal_contexts

from ffgen import layout, render

# Cases beyond one per family: ``<family>_structured`` adds ``--state structured``.
STRUCTURED = ("sft_structured", "grpo_structured")

RUNNER = Path(__file__).with_name("_suite_runner.py")
CASES = ("sft", "offline_dpo", "record", "grpo", "awm", "opd", "opd_multi_role",
         "sft_structured", "grpo_structured")
# Clean run of the generated suite (torch already imported), 2-core development machine: ~1 s.
CLEAN_RUN_SECONDS = 10.0

# A mutant: a name, the text edits of the generated trainer, and the generated test that must
# catch it (the rule it breaks). Contract and accumulation mutants apply to every family.
EARLY_FLUSH = ([["if self.accelerator.sync_gradients:", "if True:"]],
               "test_two_data_epochs_run_through_start_on_the_accumulation_cadence")
EARLY_FLUSH_ONLINE = (EARLY_FLUSH[0], "test_two_generation_cycles_run_through_start")


def _contract_swap(real: str, wrong: str) -> tuple[list[list[str]], str]:
    """Bind the trainer's contract name to another constant (imports still resolve)."""
    edit = [f"from ...contracts import {real}, ExecutionContract",
            f"from ...contracts import {wrong} as {real}, ExecutionContract"]
    return [edit], "test_contracts_match_and_are_the_expected_constant"


OFFLINE_SWAP = _contract_swap("OFFLINE_EXECUTION_CONTRACT", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT")
ONLINE_SWAP = _contract_swap("ONLINE_EXECUTION_CONTRACT", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT")
NO_FEEDBACK_SWAP = _contract_swap("ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT",
                                  "ONLINE_EXECUTION_CONTRACT")
SFT_MUTANTS = {
    "wrong contract constant": OFFLINE_SWAP,
    "accumulation window flushed early": EARLY_FLUSH,
    "objective sign flipped": (
        [["loss = torch.stack(per_term, dim=0).mean()",
          "loss = -torch.stack(per_term, dim=0).mean()"]],
        "test_sft_loss_is_positive_and_descends_toward_the_target",
    ),
}
OPD_MUTANTS = {
    "wrong contract constant": NO_FEEDBACK_SWAP,
    "accumulation window flushed early": EARLY_FLUSH_ONLINE,
    "regresses the data target instead of the teacher": (
        [["target_velocity=teacher_velocity.detach()", "target_velocity=noised.target_velocity"]],
        "test_student_equal_to_teacher_gives_zero_distillation_loss",
    ),
    "reward stage used by a no-feedback trainer": (
        [["return self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])",
          "samples = self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])\n"
          "        self.prepare_feedback(samples)\n        return samples"]],
        "test_two_generation_cycles_run_through_start",
    ),
    "teacher reloaded on an exact resume": (
        [['if self.model_args.resume_path and self.model_args.resume_type == "state":',
          "if False:"]],
        "test_exact_resume_creates_a_teacher_placeholder_instead_of_loading_it",
    ),
}

MUTANTS: dict[str, dict[str, tuple[list[list[str]], str]]] = {
    "sft": SFT_MUTANTS,
    "record": SFT_MUTANTS,
    "offline_dpo": {
        "wrong contract constant": OFFLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH,
        "chosen and rejected arms swapped": (
            [['terms[f"policy_{arm}"].append(',
              "terms[f\"policy_{'rejected' if arm == 'chosen' else 'chosen'}\"].append("]],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "reference not frozen (scored with the policy)": (
            [["with torch.no_grad(), adapter.use_ref_parameters(), self.autocast():",
              "with torch.no_grad(), self.autocast():"]],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
    },
    "grpo": {
        "wrong contract constant": ONLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH_ONLINE,
        "objective sign flipped": (
            [["torch.maximum(-advantages * ratio, -advantages * clipped_ratio)",
              "torch.maximum(advantages * ratio, advantages * clipped_ratio)"]],
            "test_ratio_clipping_is_inactive_inside_the_clip_range",
        ),
        "ratio never clipped": (
            [["clipped_ratio = torch.clamp(ratio, 1.0 - args.clip_range, 1.0 + args.clip_range)",
              "clipped_ratio = ratio"]],
            "test_ratio_clipping_is_active_outside_the_clip_range",
        ),
    },
    "awm": {
        "wrong contract constant": ONLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH_ONLINE,
        "objective sign flipped": (
            [["weighted_loss = (weights.detach() * per_sample).mean()",
              "weighted_loss = -(weights.detach() * per_sample).mean()"]],
            "test_equal_advantages_give_the_plain_flow_matching_loss",
        ),
        "weights not normalised to mean 1": (
            [["weights = weights * weights.numel()", "weights = weights"]],
            "test_equal_advantages_give_the_plain_flow_matching_loss",
        ),
    },
    "opd": OPD_MUTANTS,
    "opd_multi_role": OPD_MUTANTS,
}
MUTANTS["sft_structured"] = MUTANTS["sft"]
MUTANTS["grpo_structured"] = MUTANTS["grpo"]


def _generate(tmp: Path, case: str) -> Generated:
    if case not in STRUCTURED:
        return generate(tmp, case)
    family = case.removesuffix("_structured")
    name = f"gen-{family}-structured"
    root = copy_sandbox(tmp / case)
    new_algorithm(root, name, [*FAMILY_FLAGS[family], "--state", "structured"])
    return Generated(root, family_context(family, name, state="structured"))




def test_every_legal_classification_renders_a_clean_arguments_test(tmp_path):
    for index, ctx in enumerate(legal_contexts()):
        source = render.render(render.ARGS_TEST_TEMPLATE, ctx)
        path = tmp_path / f"c{index:03d}_{ctx.family}_args_test.py"
        compile(source, path.name, "exec")
        path.write_text(source, encoding="utf-8")
    result = subprocess.run([*RUFF, str(tmp_path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-4000:]


def test_every_case_has_at_least_three_mutants():
    assert set(MUTANTS) == set(CASES)
    assert all(len(mutants) >= 3 for mutants in MUTANTS.values())


@pytest.mark.parametrize("case", CASES)
def test_generated_suite_passes_and_fails_on_every_mutant(case, tmp_path):
    generated = _generate(tmp_path, case)
    ctx = generated.ctx
    mutants = tmp_path / "mutants.json"
    edits = {name: mutant_edits for name, (mutant_edits, _) in MUTANTS[case].items()}
    mutants.write_text(json.dumps(edits), encoding="utf-8")
    out = tmp_path / "results.json"
    env = {**os.environ, "PYTHONPATH": str(generated.root / "src"), "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(generated.root),
         f"{ctx.test_path},{layout.args_test_path(ctx.module)}", ctx.trainer_path,
         str(mutants), str(out)],
        cwd=generated.root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    results = json.loads(out.read_text(encoding="utf-8"))
    clean = results.pop("")
    assert (clean["exit"], clean["failed"]) == (0, []), result.stdout[-4000:]
    assert clean["seconds"] < CLEAN_RUN_SECONDS, clean
    # Each mutant fails the suite (exit 1: tests failed), first in the test of the rule it breaks.
    missed = {name: outcome for name, outcome in results.items()
              if not isinstance(outcome, dict) or outcome["exit"] != 1
              or outcome["failed"][:1] != [MUTANTS[case][name][1]]}
    assert not missed, (missed, result.stdout[-4000:])
