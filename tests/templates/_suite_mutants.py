"""The mutants ``test_generated_suites.py`` runs each generated suite against.

Each is a set of text edits of the generated trainer or arguments module, and the generated test
that must fail first (the rule the edit breaks). ``MUTANTS`` per family case, and
``STRUCTURED_MUTANTS`` for the ``--state structured`` twins.
"""

from __future__ import annotations

# A mutant: text edits ``(file, old, new)`` of the generated trainer (``T``), arguments module
# (``A``) or example config (``E``), and the generated test that must catch it (the rule it
# breaks). ``{key}`` in an edit is the algorithm's registry key.
T, A, E = "trainer", "args", "example"  # E: the algorithm's example config
Mutant = tuple[list[tuple[str, str, str]], str]


def _contract_swap(real: str, wrong: str) -> Mutant:
    """Bind the trainer's contract name to another constant (imports still resolve)."""
    edit = (T, f"from ...contracts import {real}, ExecutionContract",
            f"from ...contracts import {wrong} as {real}, ExecutionContract")
    return [edit], "test_contracts_match_and_are_the_expected_constant"


def _rejects(param_id: str) -> str:
    return f"test_each_algorithm_parameter_rejects_an_invalid_value[{param_id}]"


def _skip_validation(call: str) -> tuple[str, str, str]:
    """Replace a call of the structured-state validation by one that returns the state as is."""
    return T, call, call.replace("self._validate_structured_state(", "(lambda s, _: s)(")


def _skip_validation_of(state: str, *, indent: int) -> tuple[str, str, str]:
    """``_skip_validation`` of the call whose first argument, ``state``, is on its own line."""
    return _skip_validation(f"self._validate_structured_state(\n{' ' * indent}{state}")


def _audio_blanked(state: str) -> str:
    """A state expression whose "audio" component is zeroed: still every component the adapter
    declares (the framework refuses less), but the objective no longer sees the audio data."""
    return (f'LatentState({{"latent": {state}.components["latent"], '
            f'"audio": torch.zeros_like({state}.components["audio"])}})')


OFFLINE_SWAP = _contract_swap("OFFLINE_EXECUTION_CONTRACT", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT")
ONLINE_SWAP = _contract_swap("ONLINE_EXECUTION_CONTRACT", "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT")
NO_FEEDBACK_SWAP = _contract_swap("ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT",
                                  "ONLINE_EXECUTION_CONTRACT")
EARLY_FLUSH: Mutant = ([(T, "if self.accelerator.sync_gradients:", "if True:")],
                       "test_two_data_epochs_run_through_start_on_the_accumulation_cadence")
EARLY_FLUSH_ONLINE: Mutant = (EARLY_FLUSH[0], "test_two_generation_cycles_run_through_start")
TRAINER_TYPE_UNCHECKED: Mutant = ([(A, 'if self.trainer_type != "{key}":', "if False:")],
                                  "test_foreign_trainer_type_is_refused")
DEFAULTS_TEST = "test_left_out_values_default_to_the_algorithm_and_its_documented_parameters"
# Mutants of the arguments class: the key a config without ``trainer_type`` selects, and one
# flipped default per family (a removed validation is each family's "... not validated").
WRONG_TRAINER_TYPE: Mutant = ([(A, 'default="{key}",', 'default="sft",')], DEFAULTS_TEST)


def _default_flipped(old: str, new: str) -> Mutant:
    return [(A, f"default={old},", f"default={new},")], DEFAULTS_TEST


WEIGHTS_NOT_RESTORED: Mutant = (
    [(T, "    # --- objective: edit here",
      "    def load_checkpoint(self, path, resume_type=None):\n        pass\n\n"
      "    # --- objective: edit here")],
    "test_model_only_checkpoint_restores_the_trained_weights_exactly",
)
RESUME_CHECK = "test_an_exact_resume_takes_the_uninterrupted_run_s_next_step"


def _after_exact_resume(*lines: str) -> list[tuple[str, str, str]]:
    """An override of the constructor's resume step (``_finalize_adapter_runtime``, where the
    real and the sandbox trainer restore exact state) that resumes as the base does, then runs
    ``lines`` after an exact resume."""
    body = "".join(f"            {line}\n" for line in lines)
    return [(T, "    # --- objective: edit here",
             "    def _finalize_adapter_runtime(self):\n"
             "        super()._finalize_adapter_runtime()\n"
             "        args = self.model_args\n"
             "        if args.resume_path and args.resume_type == \"state\":\n"
             f"{body}\n    # --- objective: edit here")]


OPTIMIZER_NOT_RESTORED: Mutant = (_after_exact_resume("self.optimizer.state.clear()"),
                                  RESUME_CHECK)
TEACHER_NOT_RESTORED: Mutant = (
    _after_exact_resume("self.adapter.add_named_parameters(TEACHER_SNAPSHOT, overwrite=True)"),
    RESUME_CHECK,
)
ROLE_COUNTERS_NOT_RESTORED: Mutant = (
    _after_exact_resume("for role in self.role_optimization.roles.values():",
                        "    role.step = 0"),
    RESUME_CHECK,
)
STATE_CHECK = "test_structured_state_holds_exactly_the_adapter_components"
MISSING_COMPONENTS_ACCEPTED: Mutant = (
    [(T, "        if received != expected:\n", "        if unexpected:\n")], STATE_CHECK,
)
UNEXPECTED_COMPONENTS_ACCEPTED: Mutant = (
    [(T, "        if received != expected:\n", "        if missing:\n")], STATE_CHECK,
)
KL_NEVER_ADDED: Mutant = (
    [(T, "loss = loss + args.kl_beta * kl", "loss = loss")],
    "test_kl_term_adds_kl_beta_times_the_velocity_gap_to_the_reference",
)
HOOK_SKIPS_VALIDATION = "test_the_hook_refuses_an_undeclared_component_before_the_objective"
OBJECTIVE_DROPS_A_COMPONENT = "test_objective_reduces_every_component_of_a_two_component_state"

SFT_MUTANTS: dict[str, Mutant] = {
    "wrong contract constant": OFFLINE_SWAP,
    "accumulation window flushed early": EARLY_FLUSH,
    "objective sign flipped": (
        [(T, "loss = torch.stack(per_term, dim=0).mean()",
          "loss = -torch.stack(per_term, dim=0).mean()")],
        "test_sft_loss_is_positive_and_descends_toward_the_target",
    ),
    "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
    "optimizer state lost on an exact resume": OPTIMIZER_NOT_RESTORED,
    "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
    "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
    "component errors summed, not averaged by the adapter": (
        [(T, "per_term.append(flow_matching_per_sample_loss(self.adapter, velocity, noised))",
          "per_term.append(flow_matching_per_sample_loss(self.adapter, velocity, noised)"
          " * len(self.adapter.trajectory_component_order))")],
        "test_the_objective_is_the_same_for_an_adapter_of_other_components",
    ),
}
OPD_MUTANTS: dict[str, Mutant] = {
    "wrong contract constant": NO_FEEDBACK_SWAP,
    "accumulation window flushed early": EARLY_FLUSH_ONLINE,
    "matches the rollout's next state instead of the teacher": (
        [(T, "gap = student_target.components[name].float() - teacher_target.components[name]",
          "gap = student_target.components[name].float() - replay.next_state.components[name]")],
        # the student, at the fixture's weight 0, then gets no gradient: a model-only
        # checkpoint of a trained step is the first check to see nothing trained
        "test_model_only_checkpoint_restores_the_trained_weights_exactly",
    ),
    "self_normalize ignored": (
        [(T, "if args.self_normalize:", "if False:")],
        "test_self_normalize_divides_by_the_detached_mean_absolute_gap",
    ),
    "reward stage used by a no-feedback trainer": (
        [(T, "return self.generate_samples(compute_log_prob=False, "
          "trajectory_indices=trajectory_indices)",
          "samples = self.generate_samples(\n"
          "            compute_log_prob=False, trajectory_indices=trajectory_indices\n"
          "        )\n        self.prepare_feedback(samples)\n        return samples")],
        "test_two_generation_cycles_run_through_start",
    ),
    "loss_target not validated": (
        [(A, 'if self.loss_target not in ("xt", "v", "x0"):', "if False:")],
        _rejects("loss_target-eps-ValueError"),
    ),
    "teacher reloaded on an exact resume": (
        [(T, 'if self.model_args.resume_path and self.model_args.resume_type == "state":',
          "if False:")],
        "test_exact_resume_creates_a_teacher_placeholder_instead_of_loading_it",
    ),
    "teacher snapshot not declared as a runtime child": (
        [(T, "runtime_child_names: ClassVar[tuple[str, ...]] = (TEACHER_SNAPSHOT,)",
          "runtime_child_names: ClassVar[tuple[str, ...]] = ()")],
        "test_owned_snapshots_are_declared_runtime_children",
    ),
    "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
    "optimizer state lost on an exact resume": OPTIMIZER_NOT_RESTORED,
    "teacher snapshot reset after an exact resume": TEACHER_NOT_RESTORED,
    "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
    "teacher_param_device not validated": (
        [(A, 'if self.teacher_param_device not in ("cpu", "cuda"):', "if False:")],
        _rejects("teacher_param_device-tpu-ValueError"),
    ),
    "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
    "teacher_param_device defaults to cpu": _default_flipped('"cuda"', '"cpu"'),
}

MUTANTS: dict[str, dict[str, Mutant]] = {
    "sft": SFT_MUTANTS,
    "record": SFT_MUTANTS,
    "offline_dpo": {
        "wrong contract constant": OFFLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH,
        "chosen and rejected arms swapped": (
            [(T, 'errors[f"theta_{letter}_err"] = flow_matching_per_sample_loss(',
              "errors[f\"theta_{'l' if letter == 'w' else 'w'}_err\"] = "
              "flow_matching_per_sample_loss(")],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "reference not frozen (scored with the policy)": (
            [(T, "with torch.no_grad(), adapter.use_ref_parameters(), self.autocast():",
              "with torch.no_grad(), self.autocast():")],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "beta ignored": (
            [(T, "beta=self.training_args.beta,", "beta=1.0,")],
            "test_policy_better_on_chosen_than_reference_lowers_the_loss",
        ),
        "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
        "optimizer state lost on an exact resume": OPTIMIZER_NOT_RESTORED,
        "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
        "beta accepts zero": (
            [(A, "if not math.isfinite(self.beta) or self.beta <= 0.0:",
              "if not math.isfinite(self.beta):")],
            _rejects("beta-0.0-ValueError"),
        ),
        "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
        "beta defaults to 1": _default_flipped("2000.0", "1.0"),
    },
    "grpo": {
        "wrong contract constant": ONLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH_ONLINE,
        "objective sign flipped": (
            [(T, "torch.maximum(-advantages * ratio, -advantages * clipped_ratio)",
              "torch.maximum(advantages * ratio, advantages * clipped_ratio)")],
            "test_ratio_clipping_is_inactive_inside_the_clip_range",
        ),
        "ratio never clipped": (
            [(T, "clipped_ratio = torch.clamp(ratio, 1.0 + low, 1.0 + high)",
              "clipped_ratio = ratio")],
            "test_ratio_clipping_is_active_outside_the_clip_range",
        ),
        "KL measured against the replayed state, not the reference": (
            [(T, "self._replay_kl(getattr(output, kl_field), getattr(reference, kl_field), step)",
              "self._replay_kl(getattr(output, kl_field), step.state, step)")],
            KL_NEVER_ADDED[1],
        ),
        "kl_type ignored: the KL always compares velocities": (
            [(T, "kl_field = _KL_FIELDS[args.kl_type]", 'kl_field = "velocity"')],
            "test_x_based_kl_is_the_gap_of_the_next_state_means",
        ),
        "KL term never added to the loss": KL_NEVER_ADDED,
        "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
        "optimizer state lost on an exact resume": OPTIMIZER_NOT_RESTORED,
        "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
        "clip_range order not validated": (
            [(A, "if not -1.0 <= low < high:", "if False:")],
            _rejects("clip_range-value4-ValueError"),
        ),
        "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
        "global_std defaults to False": _default_flipped("True", "False"),
    },
    "awm": {
        "wrong contract constant": ONLINE_SWAP,
        "accumulation window flushed early": EARLY_FLUSH_ONLINE,
        "objective sign flipped": (
            [(T, "policy_loss = torch.maximum(unclipped_loss, clipped_loss).mean()",
              "policy_loss = -torch.maximum(unclipped_loss, clipped_loss).mean()")],
            "test_on_policy_ratio_is_one_and_the_loss_is_minus_the_mean_advantage",
        ),
        "advantages normalised over the micro-batch": (
            [(T, "advantages = advantages.to(ratio.device)",
              "advantages = torch.softmax(advantages.to(ratio.device), dim=0) * len(advantages)")],
            "test_on_policy_ratio_is_one_and_the_loss_is_minus_the_mean_advantage",
        ),
        "ratio never clipped": (
            [(T, "clipped_loss = -advantages * torch.clamp(ratio, 1.0 + low, 1.0 + high)",
              "clipped_loss = -advantages * ratio")],
            "test_ratio_clipping_is_active_outside_the_clip_range",
        ),
        "old log-probs drawn at other noise than the microsteps": (
            [(T, "self._matching_log_prob(velocity, noised).detach()))",
              "self._matching_log_prob(velocity, noised).detach() - 0.01))")],
            "test_on_policy_ratio_is_one_and_the_loss_is_minus_the_mean_advantage",
        ),
        "KL measured against the flow-matching target, not the reference": (
            [(T, "self._velocity_kl(velocity, reference_velocity, noised)",
              "self._velocity_kl(velocity, noised.target_velocity, noised)")],
            KL_NEVER_ADDED[1],
        ),
        "KL term never added to the loss": KL_NEVER_ADDED,
        "load_checkpoint overridden without restoring the weights": WEIGHTS_NOT_RESTORED,
        "optimizer state lost on an exact resume": OPTIMIZER_NOT_RESTORED,
        "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
        "clip_range order not validated": (
            [(A, "if not -1.0 <= low < high:", "if False:")],
            _rejects("clip_range-value4-ValueError"),
        ),
        "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
        "global_std defaults to False": _default_flipped("True", "False"),
    },
    "opd": OPD_MUTANTS,
    # SFT's answers with multi-role ownership: every optimizer step goes through the role
    # coordinator (it tests ``sync_gradients`` itself, and the suites' stand-in steps by plain
    # SGD), so no early-flush or optimizer-state mutant.
    "sft_multi_role": {
        **{name: SFT_MUTANTS[name] for name in (
            "wrong contract constant", "objective sign flipped",
            "load_checkpoint overridden without restoring the weights",
            "trainer_type check dropped", "trainer_type defaults to another key",
        )},
        "role counters reset after an exact resume": ROLE_COUNTERS_NOT_RESTORED,
        "primary role's step not counted": (
            [(T, "stepped = self._finish_role_microbatch()",
              "stepped = self.role_optimization.finish_microbatch()")],
            RESUME_CHECK,
        ),
    },
    # OPD's answers with multi-role ownership get their own trainer; these mutants are the ones
    # its shape does not change (the per-role objective has its own tests).
    # (OPD's answers with multi-role ownership are the DMD family: its single teacher_path.)
    "opd_multi_role": {**{name: OPD_MUTANTS[name] for name in (
        "wrong contract constant",
        "teacher snapshot not declared as a runtime child", "trainer_type check dropped",
        "teacher_param_device not validated",
        "load_checkpoint overridden without restoring the weights",
        "teacher snapshot reset after an exact resume",
        "trainer_type defaults to another key",
    )},
        "reward stage used by a no-feedback trainer": (
            [(T, "return self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])",
              "samples = self.generate_samples(compute_log_prob=False, trajectory_indices=[-1])\n"
              "        self.prepare_feedback(samples)\n        return samples")],
            "test_two_generation_cycles_run_through_start",
        ),
        "teacher_param_device defaults to cuda": _default_flipped('"cpu"', '"cuda"'),
        "role counters reset after an exact resume": ROLE_COUNTERS_NOT_RESTORED},
}

# Mutants of the ``--state structured`` twins: the state validation and the objective's
# reduction over every component.
_SFT_STRUCTURED: dict[str, Mutant] = {
    "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
    "hook skips the state validation": (
        [_skip_validation("clean_state = self._validate_structured_state(")],
        HOOK_SKIPS_VALIDATION,
    ),
    "objective ignores the audio component's data": (
        [(T, "self.adapter, clean_state, primary_timesteps, batch=model_batch",
          f"self.adapter, {_audio_blanked('clean_state')}, primary_timesteps, batch=model_batch")],
        OBJECTIVE_DROPS_A_COMPONENT,
    ),
}
_RENOISE_STRUCTURED: dict[str, Mutant] = {
    "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
    "hook skips the state validation": _SFT_STRUCTURED["hook skips the state validation"],
    "objective ignores the audio component's data": (
        [(T, "self.adapter, clean_state, primary_timesteps, batch=batch",
          f"self.adapter, {_audio_blanked('clean_state')}, primary_timesteps, batch=batch")],
        OBJECTIVE_DROPS_A_COMPONENT,
    ),
}
_OPD_STRUCTURED: dict[str, Mutant] = {
    "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
    "hook skips the state validation": (
        [_skip_validation_of("replay.state", indent=24)],
        HOOK_SKIPS_VALIDATION,
    ),
    "objective ignores the audio component's data": (
        [(T, "errors[name] = gap.square()", 'errors[name] = gap.square() * (name != "audio")')],
        OBJECTIVE_DROPS_A_COMPONENT,
    ),
}
STRUCTURED_MUTANTS: dict[str, dict[str, Mutant]] = {
    "sft": _SFT_STRUCTURED,
    "record": _SFT_STRUCTURED,
    "offline_dpo": {
        "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
        "hook skips the state validation": (
            [_skip_validation_of("chosen.clean_state", indent=12),
             _skip_validation_of("rejected.clean_state", indent=12)],
            HOOK_SKIPS_VALIDATION,
        ),
        "objective ignores the audio component's data": (
            [(T, "adapter, chosen[1], primary_timesteps, batch=chosen[0]",
              f"adapter, {_audio_blanked('chosen[1]')}, primary_timesteps, batch=chosen[0]"),
             (T, "rejected[1],\n", f"{_audio_blanked('rejected[1]')},\n")],
            OBJECTIVE_DROPS_A_COMPONENT,
        ),
    },
    "grpo": {
        "missing components accepted": MISSING_COMPONENTS_ACCEPTED,
    "unexpected components accepted": UNEXPECTED_COMPONENTS_ACCEPTED,
        "hook skips the state validation": (
            [_skip_validation_of("step.state", indent=24)],
            HOOK_SKIPS_VALIDATION,
        ),
        "objective sign flipped": MUTANTS["grpo"]["objective sign flipped"],
    },
    "awm": _RENOISE_STRUCTURED,
    "opd": _OPD_STRUCTURED,
}


# ------------------------------------------------------------------ the objective's maths
# Mistakes inside the objective (issue 29): each is caught by the checklist check that sees the
# maths on the fakes: the direction of one update, the frozen reference and teacher, no state
# kept from an earlier batch, state on ``self`` that an exact resume must restore.
DIRECTION = "test_one_update_moves_the_model_the_way_the_supervision_says"
FROZEN = "test_the_reference_and_the_teacher_stay_frozen_and_get_no_gradient"
STALE = "test_no_state_carries_over_from_one_batch_to_the_next"
SFT_TERMS = "per_term = []"  # the first line of the SFT/record objective's body


def _first_in_sft_objective(*lines: str) -> list[tuple[str, str, str]]:
    """``lines`` run first in the SFT/record objective (inside its edit markers)."""
    return [(T, SFT_TERMS, "".join(f"{line}\n        " for line in lines) + SFT_TERMS)]


_HELPER_IMPORT = "from ..forward_process import forward_velocity_state\n"
SFT_OBJECTIVE_MUTANTS: dict[str, Mutant] = {
    "objective sign flipped": (SFT_MUTANTS["objective sign flipped"][0], DIRECTION),
    "target cached on self (plain attribute)": (_first_in_sft_objective(
        'if not hasattr(self, "_target"):', "    self._target = clean_state",
        "clean_state = self._target"), STALE),
    "target cached through __dict__.setdefault": (_first_in_sft_objective(
        'clean_state = self.__dict__.setdefault("_target", clean_state)'), STALE),
    "target cached in a module-level helper": (
        [(T, _HELPER_IMPORT, _HELPER_IMPORT + "\n_TARGETS = {}\n\n\ndef _cached(state):\n"
          '    return _TARGETS.setdefault("target", state)\n'),
         *_first_in_sft_objective("clean_state = _cached(clean_state)")], STALE),
    "stale condition (cached on self)": (_first_in_sft_objective(
        'model_batch = self.__dict__.setdefault("_condition", model_batch)'), STALE),
    "running mean on self, not checkpointed": (
        [(T, "loss = torch.stack(per_term, dim=0).mean()",
          "loss = torch.stack(per_term, dim=0).mean()\n"
          '        self._loss_mean = 0.9 * getattr(self, "_loss_mean", 1.0) + 0.1 * float(loss)\n'
          "        loss = loss / self._loss_mean")],
        RESUME_CHECK),
}
GRPO_KL = "with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():"
OBJECTIVE_MUTANTS: dict[str, dict[str, Mutant]] = {
    "sft": SFT_OBJECTIVE_MUTANTS,
    "record": SFT_OBJECTIVE_MUTANTS,
    "sft_multi_role": {"objective sign flipped": SFT_OBJECTIVE_MUTANTS["objective sign flipped"]},
    "offline_dpo": {
        "chosen and rejected arms swapped": (
            MUTANTS["offline_dpo"]["chosen and rejected arms swapped"][0], DIRECTION),
        "reference not frozen (scored with the policy)": (
            MUTANTS["offline_dpo"]["reference not frozen (scored with the policy)"][0], FROZEN),
        "objective sign flipped": ([(T, "losses.append(loss)", "losses.append(-loss)")],
                                   DIRECTION),
        "reference forward with gradients": (
            [(T, "with torch.no_grad(), adapter.use_ref_parameters(), self.autocast():",
              "with adapter.use_ref_parameters(), self.autocast():")], FROZEN),
    },
    "grpo": {
        "objective sign flipped": (MUTANTS["grpo"]["objective sign flipped"][0], DIRECTION),
        "reference forward with gradients (KL)": (
            [(T, GRPO_KL, GRPO_KL.replace("torch.no_grad(), ", ""))], FROZEN),
    },
    "awm": {
        "objective sign flipped": (MUTANTS["awm"]["objective sign flipped"][0], DIRECTION),
        "reference forward with gradients (KL)": (
            [(T, GRPO_KL, GRPO_KL.replace("torch.no_grad(), ", ""))], FROZEN),
        # The measured case: advantages softmaxed per micro-batch, and an example of one
        # sample per micro-batch: every weight is 1, the reward has no effect.
        "a geometry that cancels the reward": (
            [(T, "advantages = advantages.to(ratio.device)",
              "advantages = torch.softmax(advantages.to(ratio.device), dim=0) * len(advantages)"),
             (E, "per_device_batch_size: 16", "per_device_batch_size: 1")], DIRECTION),
    },
    "opd": {
        "objective sign flipped": (
            [(T, "loss = per_sample.mean()", "loss = -per_sample.mean()")], DIRECTION),
        "teacher forward with gradients": (
            [(T, "            torch.no_grad(),\n            self.adapter.use_named_parameters(",
              "            self.adapter.use_named_parameters("),
             (T, "_detached(self._target(", "(self._target(")], FROZEN),
    },
    "dmd": {
        "objective sign flipped": (
            [(T, "loss = 0.5 * _squared_error(adapter, predicted, target).mean()",
              "loss = -0.5 * _squared_error(adapter, predicted, target).mean()")], DIRECTION),
    },
}
MUTANTS["dmd"] = {  # the distribution-matching family: generator and critic roles
    "wrong contract constant": NO_FEEDBACK_SWAP,
    "trainer_type check dropped": TRAINER_TYPE_UNCHECKED,
    "trainer_type defaults to another key": WRONG_TRAINER_TYPE,
}
for _case, _extra in OBJECTIVE_MUTANTS.items():
    MUTANTS[_case] = {**MUTANTS[_case], **_extra}
STRUCTURED_MUTANTS["grpo"]["objective sign flipped"] = OBJECTIVE_MUTANTS["grpo"][
    "objective sign flipped"]
