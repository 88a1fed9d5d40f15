"""FF701-FF704 beyond the seeded defects: graded severities, the passing neighbour of each
failing case, and the built-ins' own patterns the rules must leave alone."""

from __future__ import annotations

from tests.verify.conftest import TRAINERS, add_method, beyond_baseline, findings_of

AWM = f"{TRAINERS}/rl/awm.py"
NFT = f"{TRAINERS}/rl/nft.py"
DPO = f"{TRAINERS}/rl/dpo.py"
OPD = f"{TRAINERS}/distillation/opd/trainer.py"
SFT = f"{TRAINERS}/offline/sft.py"
OFFLINE_DPO = f"{TRAINERS}/offline/offline_dpo.py"
OPTIMIZE_BATCH = "    def optimize_batch(self, batch: Any) -> None:"
COLLECT = ("        return self.generate_samples(\n"
           "            reward_buffer=self.reward_buffer, compute_log_prob=False, "
           "trajectory_indices=[-1]\n        )\n")
ENCODE_TARGET = ("        encoded = self.adapter.encode_output_state(batch.output.target_media, "
                 "prepared)\n")
GUARDED_STEP = ("        if self.accelerator.sync_gradients:\n"
                "            self._loss_info = self._apply_optimizer_step(self._loss_info)\n")
NEW_RULES = ("FF701", "FF702", "FF703", "FF704")




def test_pristine_fixture_has_none_of_the_new_rules(checkout):
    assert not {f.rule_id for f in beyond_baseline(checkout.verify())} & set(NEW_RULES)


def test_explain_lists_the_new_rules():
    from ffgen.verify.catalogue import BY_ID

    for rule_id in NEW_RULES:
        r = BY_ID[rule_id]
        assert r.severity == "error" and "error" in r.rationale and r.fix, rule_id


# -- FF701 --------------------------------------------------------------------------------------
def test_ff701_a_helper_on_the_sample_path_counts(checkout):
    checkout.edit(AWM, COLLECT, "        return self._collect()\n\n"
                                "    def _collect(self):\n"
                                "        return self.adapter.pipeline(prompt=['a cat'])\n")
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF701"]
    assert (f.severity, f.path, f.line) == ("error", AWM, checkout.line(AWM, "pipeline(prompt"))
    assert "_inject_batch_metadata" in f.message and "add_samples" in f.message
    assert "generate_samples" in f.fix


def test_ff701_bookkeeping_redone_by_hand_is_a_warning(checkout):
    checkout.edit(AWM, COLLECT, (
        "        self.adapter.rollout()\n"
        "        samples = []\n"
        "        with self._rollout_acceleration():\n"
        "            for batch in self.dataloader:\n"
        "                out = self.adapter.inference(**batch)\n"
        "                self._inject_batch_metadata(out, batch)\n"
        "                self.reward_buffer.add_samples(out)\n"
        "                samples.extend(out)\n"
        "        return samples\n"))
    assert findings_of(checkout, "FF701") == [
        ("warning", AWM, checkout.line(AWM, "self.adapter.inference("), "awm")]


def test_ff701_a_sample_batch_override_is_the_seam(checkout):
    seam = ("    def sample_batch(self, batch, reward_buffer=None, **extra_inference_kwargs):\n"
            "        samples = self.adapter.inference(**batch, guidance_scale=1.0)\n"
            "        self._inject_batch_metadata(samples, batch)\n"
            "        if reward_buffer is not None:\n"
            "            reward_buffer.add_samples(samples)\n"
            "        return samples\n")
    add_method(checkout, AWM, seam)
    assert findings_of(checkout, "FF701") == []
    # Dropping the metadata injection loses source propagation: an error at the call.
    checkout.edit(AWM, "        self._inject_batch_metadata(samples, batch)\n", "")
    assert findings_of(checkout, "FF701") == [
        ("error", AWM, checkout.line(AWM, "self.adapter.inference("), "awm")]


def test_ff701_no_feedback_trainer_needs_no_reward_buffering(checkout):
    checkout.edit(OPD, "        return self.generate_samples(reward_buffer=None, "
                       "compute_log_prob=False)\n", (
                           "        self.adapter.rollout()\n"
                           "        with self._rollout_acceleration():\n"
                           "            batch = next(iter(self.dataloader))\n"
                           "            out = self.adapter.inference(**batch)\n"
                           "            self._inject_batch_metadata(out, batch)\n"
                           "        return out\n"))
    assert [s for s, *_ in findings_of(checkout, "FF701")] == ["warning"]


def test_ff701_inference_outside_the_sample_path_is_not_collection(checkout):
    add_method(checkout, AWM, "    def _preview(self, batch):\n"
                           "        return self.adapter.inference(**batch)\n")
    assert findings_of(checkout, "FF701") == []


# -- FF702 --------------------------------------------------------------------------------------
def test_ff702_delegating_override_and_advantage_transforms_are_fine(checkout):
    text = (checkout.root / DPO).read_text()
    assert "self.advantage_processor.compute_advantages(" in text  # online DPO's override
    assert 'batch["advantage"] / max(clip)' in (checkout.root / NFT).read_text()
    assert "gather_aligned_floating_tensors(" in (checkout.root / f"{TRAINERS}/rl/crd.py"
                                                  ).read_text()
    assert findings_of(checkout, "FF702") == []


def test_ff702_override_without_the_processor(checkout):
    checkout.edit(DPO, "        return self.advantage_processor.compute_advantages(\n",
                  "        return self._rank_advantages(\n")
    assert findings_of(checkout, "FF702") == [
        ("error", DPO, checkout.line(DPO, "def compute_advantages"), "dpo")]


def test_ff702_reward_gather_for_a_log_is_a_warning(checkout):
    # NFT keeps the base prepare_feedback (the processor runs): a gather of rewards may only
    # feed a metric, so it is graded down.
    checkout.edit(NFT, "            del r\n", "            del r\n"
                       '            self.accelerator.gather(batch["rewards"])\n')
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF702"]
    assert (f.severity, f.line) == ("warning", checkout.line(NFT, "accelerator.gather("))
    assert "gather()" in f.message


def test_ff702_a_compute_that_bypasses_the_processor_is_an_error(checkout):
    checkout.edit(DPO, "        self.compute_advantages(samples, rewards, store_to_samples=True)\n",
                  "        scores = rewards['ocr']\n"
                  "        centred = scores - scores.mean()\n"
                  "        del centred\n")
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF702"]
    assert (f.severity, f.line) == ("error", checkout.line(DPO, "centred = scores - "))
    assert "subtracts their mean" in f.message


# -- FF703 --------------------------------------------------------------------------------------
def test_ff703_keeping_the_current_batch_outputs_is_a_warning(checkout):
    checkout.edit(SFT, ENCODE_TARGET, ENCODE_TARGET + "        self._last_target = encoded\n")
    assert findings_of(checkout, "FF703") == [
        ("warning", SFT, checkout.line(SFT, "self._last_target = encoded"), "sft")]


def test_ff703_a_lazily_filled_attribute_is_a_cache(checkout):
    checkout.edit(SFT, ENCODE_TARGET, (
        "        if self._target is None:\n"
        "            self._target = self.adapter.encode_output_state(\n"
        "                batch.output.target_media, prepared)\n"
        "        encoded = self._target\n"))
    assert findings_of(checkout, "FF703") == [
        ("error", SFT, checkout.line(SFT, "self._target = self.adapter"), "sft")]


def test_ff703_memoised_encoder_and_appended_outputs(checkout):
    add_method(checkout, SFT, ("    @functools.lru_cache(maxsize=None)\n"
                            "    def _encode(self, media, prepared):\n"
                            "        return self.adapter.encode_output_state(media, prepared)\n"),
            before=OPTIMIZE_BATCH)
    checkout.edit(SFT, ENCODE_TARGET, ENCODE_TARGET
                  + "        self._history.append(encoded.clean_state.detach())\n")
    found = findings_of(checkout, "FF703")
    assert [(s, line) for s, _, line, _ in found] == [
        ("error", checkout.line(SFT, "def _encode(")),
        ("error", checkout.line(SFT, "self._history.append(")),
    ]


def test_ff703_conditions_may_be_cached_and_branches_are_exclusive(checkout):
    prepare = "        prepared = self.adapter.prepare_condition_state(condition)\n"
    checkout.edit(SFT, prepare, (
        "        if batch.condition_key in self._conditions:\n"
        "            prepared = self._conditions[batch.condition_key]\n"
        "        else:\n"
        "            prepared = self.adapter.prepare_condition_state(condition)\n"
        "            self._conditions[batch.condition_key] = prepared\n"))
    assert findings_of(checkout, "FF703") == []


def test_ff703_a_condition_per_arm_in_a_loop_or_a_helper(checkout):
    checkout.edit(OFFLINE_DPO, "        for arm in (chosen, rejected):\n"
                               "            bind_prepared_condition_output(prepared, "
                               "arm.forward_context)\n",
                  "        for arm in (chosen, rejected):\n"
                  "            self._bind(condition, arm)\n")
    add_method(checkout, OFFLINE_DPO, (
        "    def _bind(self, condition, arm):\n"
        "        fresh = self.adapter.prepare_condition_state(condition)\n"
        "        return bind_prepared_condition_output(fresh, arm.forward_context)\n"),
        before=OPTIMIZE_BATCH)
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF703"]
    assert (f.severity, f.line) == ("error", checkout.line(OFFLINE_DPO, "self._bind(condition"))
    assert "inside a loop" in f.message


# -- FF704 --------------------------------------------------------------------------------------
def test_ff704_guarded_helpers_early_returns_and_inner_guards_are_fine(checkout):
    checkout.edit(SFT, GUARDED_STEP, "        self._finish()\n\n"
                                     "    def _finish(self) -> None:\n"
                                     "        if not self.accelerator.sync_gradients:\n"
                                     "            return\n"
                                     "        self._loss_info = self._apply_optimizer_step("
                                     "self._loss_info)\n")
    checkout.edit(OFFLINE_DPO, GUARDED_STEP, "        if self.accelerator.sync_gradients:\n"
                                             "            self._step_now()\n\n"
                                             "    def _step_now(self) -> None:\n"
                                             "        self._loss_info = self._apply_optimizer_step("
                                             "self._loss_info)\n")
    assert findings_of(checkout, "FF704") == []


def test_ff704_a_role_coordinator_microbatch_steps_only_on_sync(checkout):
    # The coordinator's finish steps on a sync boundary only: inside its microbatch it is
    # guarded; the same finish outside one is not.
    checkout.edit(SFT, GUARDED_STEP, "        with self.role_optimization.microbatch():\n"
                                     "            self._finish_role_microbatch()\n")
    assert findings_of(checkout, "FF704") == []
    checkout.edit(OFFLINE_DPO, GUARDED_STEP, "        self._finish_role_microbatch()\n")
    assert findings_of(checkout, "FF704") == [
        ("error", OFFLINE_DPO, checkout.line(OFFLINE_DPO, "self._finish_role_microbatch()"),
         "offline-dpo")]


def test_ff704_end_of_data_in_the_guard_is_a_partial_flush(checkout):
    checkout.edit(SFT, "        if self.accelerator.sync_gradients:\n",
                  "        if self.accelerator.sync_gradients or batch.is_last:\n")
    assert findings_of(checkout, "FF704") == [
        ("error", SFT, checkout.line(SFT, "self._apply_optimizer_step(self._loss_info)"), "sft")]


def test_ff704_forcing_sync_gradients(checkout):
    checkout.edit(SFT, GUARDED_STEP, "        if batch.is_last:\n"
                                     "            self.accelerator.gradient_state."
                                     "_set_sync_gradients(True)\n" + GUARDED_STEP)
    assert findings_of(checkout, "FF704") == [
        ("error", SFT, checkout.line(SFT, "_set_sync_gradients(True)"), "sft")]


def test_ff704_generation_trainers_are_not_checked(checkout):
    # A generated-acquisition optimize() loops its own microbatches (GRPO steps per batch).
    assert "for _batch in samples:" in (checkout.root / f"{TRAINERS}/rl/grpo.py").read_text()
    assert findings_of(checkout, "FF704") == []


# -- exceptions and output ----------------------------------------------------------------------
def test_an_accepted_exception_hides_the_finding(checkout):
    checkout.edit(SFT, GUARDED_STEP, "        self._loss_info = self._apply_optimizer_step("
                                     "self._loss_info)\n")
    checkout.write(".ffgen-verify.yaml",
                   "accepted:\n  - {algorithm: sft, rule: FF704, reason: one-batch windows}\n")
    report = checkout.verify()
    assert findings_of(checkout, "FF704") == []
    assert [f.rule_id for f in report.suppressed] == ["FF704"]


def test_json_and_github_output_name_file_line_and_rule(checkout, capsys):
    import json

    from ffgen.verify.command import verify_cmd

    checkout.edit(SFT, GUARDED_STEP, "        self._loss_info = self._apply_optimizer_step("
                                     "self._loss_info)\n")
    line = checkout.line(SFT, "self._apply_optimizer_step(self._loss_info)")
    assert verify_cmd(checkout.root, "sft", "json", None) == 1
    (f,) = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule_id"] == "FF704"]
    assert (f["path"], f["line"], f["severity"]) == (SFT, line, "error")
    assert verify_cmd(checkout.root, "sft", "github", None) == 1
    assert f"::error file={SFT},line={line},title=FF704 sft::" in capsys.readouterr().out


def test_ff702_an_evaluate_override_gathering_eval_rewards_is_not_feedback(checkout):
    add_method(checkout, NFT, ("    def evaluate(self) -> None:\n"
                            "        reward_buffer = self.eval_dataset_reward_buffers['ocr']\n"
                            "        rewards = reward_buffer.finalize(store_to_samples=True)\n"
                            "        self.accelerator.gather(rewards['ocr'])\n"))
    assert findings_of(checkout, "FF702") == []
