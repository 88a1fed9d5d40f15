"""FF705-FF708 beyond the seeded defects: graded severities, the passing neighbours of each
failing case, and the false alarms each rule must not raise (the built-ins' own patterns)."""

from __future__ import annotations

from tests.verify.conftest import ARGS, TRAINERS, add_method, beyond_baseline, findings_of

NFT = f"{TRAINERS}/rl/nft.py"
DMD2 = f"{TRAINERS}/distillation/dmd2.py"
DMD2_ARGS = f"{ARGS}/dmd2.py"
OFFLINE_DPO = f"{TRAINERS}/offline/offline_dpo.py"
SFT = f"{TRAINERS}/offline/sft.py"
OPD = f"{TRAINERS}/distillation/opd/trainer.py"
OPD_ARGS = f"{ARGS}/opd.py"
NFT_ARGS = f"{ARGS}/nft.py"
NFT_ARGS_METHODS = "    def __post_init__(self) -> None:\n"  # the first method, after the fields
TDM_R1_ARGS = f"{ARGS}/tdm_r1.py"
POLICY_OVERRIDES = ('source="offline DPO policy chosen",\n'
                    "            **self.adapter.offline_training_forward_overrides,\n")




def test_pristine_fixture_has_none_of_the_new_rules(checkout):
    found = {f.rule_id for f in beyond_baseline(checkout.verify())}
    assert not found & {"FF705", "FF706", "FF707", "FF708"}


# -- FF705 --------------------------------------------------------------------------------------
def test_ff705_override_that_extends_the_base_is_a_warning(checkout):
    add_method(checkout, NFT, "    def _initialization(self):\n"
                           "        super()._initialization()\n        self.extra = 1\n")
    assert findings_of(checkout, "FF705") == [
        ("warning", NFT, checkout.line(NFT, "def _initialization"), "nft")]


def test_ff705_hooks_the_base_calls_are_fine(checkout):
    add_method(checkout, NFT, "    def _init_reward_model(self):\n"
                           "        return super()._init_reward_model()\n")
    assert findings_of(checkout, "FF705") == []


def test_ff705_a_super_call_from_an_override_is_not_a_second_run(checkout):
    add_method(checkout, NFT, "    def _initialization(self):\n        super()._initialization()\n")
    assert [s for s, *_ in findings_of(checkout, "FF705")] == ["warning"]


# -- FF706 --------------------------------------------------------------------------------------
def test_ff706_overrides_through_a_local_name_are_fine(checkout):
    checkout.edit(OFFLINE_DPO, "        policy = forward_velocity_state(",
                  "        overrides = self.adapter.offline_training_forward_overrides\n"
                  "        policy = forward_velocity_state(")
    checkout.edit(OFFLINE_DPO, POLICY_OVERRIDES,
                  'source="offline DPO policy chosen", **overrides,\n')
    assert findings_of(checkout, "FF706") == []


def test_ff706_passing_the_rollout_scale_is_an_error_even_with_overrides(checkout):
    checkout.edit(OFFLINE_DPO, POLICY_OVERRIDES, 'source="offline DPO policy chosen",\n'
                  "            guidance_scale=self.training_args.guidance_scale,\n")
    assert findings_of(checkout, "FF706") == [
        ("error", OFFLINE_DPO, checkout.line(OFFLINE_DPO, "policy = forward_velocity_state("),
         "offline-dpo")]


def test_ff706_direct_forward_state_without_overrides_is_a_warning(checkout):
    checkout.edit(SFT, "        return batch\n",
                  "        return self.adapter.forward_state(batch=batch, state=batch, times=0)\n")
    assert findings_of(checkout, "FF706") == [
        ("warning", SFT, checkout.line(SFT, "forward_state("), "sft")]


def test_ff706_kwargs_built_elsewhere_are_not_judged(checkout):
    checkout.edit(SFT, "    def _loss(self, batch):\n        return batch\n",
                  "    def _loss(self, batch, **kwargs):\n"
                  "        return self.adapter.forward_state(batch=batch, **kwargs)\n")
    assert findings_of(checkout, "FF706") == []


def test_ff706_generation_trainers_may_use_rollout_cfg(checkout):
    add_method(checkout, NFT, "    def _loss(self, batch):\n"
                           "        return forward_velocity_state(self, batch, batch, batch, "
                           "source='nft')\n")
    assert findings_of(checkout, "FF706") == []


def test_ff706_branch_cfg_without_preprocess_override_is_a_warning(checkout):
    checkout.edit(DMD2_ARGS, "    def get_preprocess_guidance_scale(self) -> float:",
                  "    def _preprocess_scale(self) -> float:")
    # One finding on the field, although TDM and TDM-R1 inherit it too; TDM-R1's own
    # cfg_reward_scale (a real field) then lacks an override as well.
    assert findings_of(checkout, "FF706") == [
        ("warning", DMD2_ARGS, checkout.line(DMD2_ARGS, "real_guidance_scale:"), "dmd2"),
        ("warning", TDM_R1_ARGS, checkout.line(TDM_R1_ARGS, "cfg_reward_scale:"), "tdm-r1")]


def test_ff706_a_new_cfg_field_needs_the_override_too(checkout):
    checkout.edit(NFT_ARGS, NFT_ARGS_METHODS, "    kl_cfg: float = 4.5\n\n" + NFT_ARGS_METHODS)
    assert findings_of(checkout, "FF706") == [
        ("warning", NFT_ARGS, checkout.line(NFT_ARGS, "kl_cfg:"), "nft")]
    add_method(checkout, NFT_ARGS, "    def get_preprocess_guidance_scale(self):\n"
                                   "        return max(self.guidance_scale, self.kl_cfg)\n",
               before=NFT_ARGS_METHODS)
    assert findings_of(checkout, "FF706") == []


# -- FF707 --------------------------------------------------------------------------------------
def _roles(checkout, roles: str) -> None:
    checkout.edit(DMD2_ARGS, 'return ("generator", "fake")', f"return {roles}")


def test_ff707_a_role_named_as_a_frozen_copy_is_a_warning(checkout):
    _roles(checkout, '("generator", "teacher")')
    line = checkout.line(DMD2_ARGS, "def required_trainable_roles")
    assert ("warning", DMD2_ARGS, line, "dmd2") in findings_of(checkout, "FF707")


def test_ff707_ordinary_role_names_are_fine(checkout):
    _roles(checkout, '("generator", "fake_score")')
    assert findings_of(checkout, "FF707") == []


def test_ff707_a_trainer_that_freezes_a_variant_is_an_error(checkout):
    add_method(checkout, DMD2, "    def _freeze(self):\n"
                            '        for p in self.adapter.variant_parameters("fake"):\n'
                            "            p.requires_grad_(False)\n",
            before="    def sample(self)")
    found = findings_of(checkout, "FF707")
    assert ("error", DMD2_ARGS, checkout.line(DMD2_ARGS, "def required_trainable_roles"),
            "dmd2") in found


def test_ff707_variants_declared_by_the_trainer_count(checkout):
    add_method(checkout, NFT, "    def _declare_model_variants(self):\n"
                           '        self.adapter.declare_component_variants(("default", "ema"))\n')
    assert findings_of(checkout, "FF707") == [
        ("warning", NFT, checkout.line(NFT, "declare_component_variants("), "nft")]


# -- FF708 --------------------------------------------------------------------------------------
def _read(checkout, body: str) -> None:
    add_method(checkout, NFT, "    def _probe(self):\n" + body)


def test_ff708_reads_through_an_alias_and_getattr(checkout):
    _read(checkout, "        args = self.training_args\n        a = args.margin\n"
                    '        b = getattr(self.config.training_args, "temperature")\n')
    assert findings_of(checkout, "FF708") == [
        ("error", NFT, checkout.line(NFT, "args.margin"), "nft"),
        ("error", NFT, checkout.line(NFT, '"temperature"'), "nft"),
    ]


def test_ff708_defined_names_are_fine(checkout):
    """Own fields, base fields, properties, methods, ArgABC members and the extra_kwargs bag."""
    _read(checkout, "        ta: object = self.training_args\n"
                    "        return (ta.nft_beta if hasattr(ta, 'nft_beta') else ta.kl_beta,\n"
                    "                self.training_args.seed, ta.requires_ref_model,\n"
                    "                ta.get_preprocess_guidance_scale(), ta.to_dict(),\n"
                    "                ta.extra_kwargs, ta._manual_gradient_accumulation_steps)\n")
    assert findings_of(checkout, "FF708") == []


def test_ff708_guarded_reads_and_writes_are_fine(checkout):
    _read(checkout, '        a = getattr(self.training_args, "margin", 0.1)\n'
                    '        if hasattr(self.training_args, "margin"):\n'
                    "            a = self.training_args.margin\n"
                    "        try:\n            b = self.training_args.temperature\n"
                    "        except AttributeError:\n            b = 1.0\n"
                    "        if isinstance(self.training_args, dict):\n"
                    "            b = self.training_args.items\n"
                    "        self.training_args.scratch = a + b\n")
    assert findings_of(checkout, "FF708") == []


def test_ff708_a_field_set_in_post_init_is_defined(checkout):
    checkout.edit(NFT_ARGS, "        self.nft_beta = float(self.nft_beta)\n",
                  "        self.nft_beta = float(self.nft_beta)\n"
                  "        self.margin = 2 * self.kl_beta\n")
    _read(checkout, "        return self.training_args.margin\n")
    assert findings_of(checkout, "FF708") == []


def test_ff708_setattr_over_constant_names_sets_those_names(checkout):
    """The real TDM-R1 shape: ``for name in ("a", "b"): setattr(self, name, ...)``."""
    checkout.edit(NFT_ARGS, "        self.nft_beta = float(self.nft_beta)\n",
                  "        self.nft_beta = float(self.nft_beta)\n"
                  '        for name in ("margin", "slack"):\n'
                  "            setattr(self, name, 1.0)\n")
    _read(checkout, "        return self.training_args.margin, self.training_args.slak\n")
    assert findings_of(checkout, "FF708") == [
        ("error", NFT, checkout.line(NFT, "self.training_args.slak"), "nft")]


def test_ff708_setattr_over_computed_or_rebound_names_stays_unknowable(checkout):
    _read(checkout, "        return self.training_args.margin\n")
    loops = ('        for name in self.extra_kwargs:\n            setattr(self, name, 1.0)\n',
             '        for name in ("a", "b"):\n            name = name.upper()\n'
             '            setattr(self, name, 1.0)\n')
    for loop in loops:
        checkout.edit(NFT_ARGS, "        self.nft_beta = float(self.nft_beta)\n",
                      "        self.nft_beta = float(self.nft_beta)\n" + loop)
        assert findings_of(checkout, "FF708") == []
        checkout.edit(NFT_ARGS, loop, "")


def test_ff708_a_rebound_name_is_no_alias(checkout):
    _read(checkout, "        args = self.training_args\n        args = self.config\n"
                    "        return args.margin\n")
    assert findings_of(checkout, "FF708") == []


def test_ff708_unknowable_args_classes_are_never_flagged(checkout):
    _read(checkout, "        return self.training_args.margin\n")
    add_method(checkout, NFT_ARGS, "    def __getattr__(self, name):\n"
                                   "        return self.extra_kwargs[name]\n",
               before=NFT_ARGS_METHODS)
    assert findings_of(checkout, "FF708") == []


def test_ff708_an_external_base_makes_the_class_unknowable(checkout):
    _read(checkout, "        return self.training_args.margin\n")
    checkout.edit(NFT_ARGS, "from dataclasses import dataclass, field\n",
                  "from dataclasses import dataclass, field\n\nfrom somewhere import Mixin\n")
    checkout.edit(NFT_ARGS, "(TrainingArguments)", "(Mixin, TrainingArguments)")
    assert findings_of(checkout, "FF708") == []


TDM = f"{TRAINERS}/distillation/tdm.py"
TDM_R1 = f"{TRAINERS}/distillation/tdm_r1.py"


def test_ff708_inherited_trainer_code_is_checked_against_each_key(checkout):
    """TDM-R1 runs TDMTrainer.optimize (super()) with its own args class."""
    checkout.edit(TDM, "self.training_args.ttur_fake_updates", "self.training_args.ttur_steps")
    assert [a for *_, a in findings_of(checkout, "FF708")] == ["tdm", "tdm-r1"]


def test_ff708_a_field_of_the_subclass_args_only_fails_the_parent_key(checkout):
    checkout.edit(TDM, "self.training_args.ttur_fake_updates",
                  "self.training_args.tdm_weight")  # a TDM-R1 field TDM lacks
    assert [a for *_, a in findings_of(checkout, "FF708")] == ["tdm"]


def test_ff708_an_overridden_method_is_not_run(checkout):
    """Without its super() call TDMR1Trainer.optimize hides TDMTrainer's body from TDM-R1."""
    checkout.edit(TDM, "self.training_args.ttur_fake_updates", "self.training_args.ttur_steps")
    checkout.edit(TDM_R1, "        super().optimize(samples)\n", "")
    assert [a for *_, a in findings_of(checkout, "FF708")] == ["tdm"]


# -- FF708 on a generated algorithm in the sandbox ----------------------------------------------
def test_ff708_generated_trainer_reading_a_missing_field_fails_verify(sandbox, runner):
    """The margin-DPO walk-through: the trainer reads `margin`, the args class lacks it."""
    import json

    from ffgen.cli import app
    from tests.helpers import SPECS

    made = runner.invoke(app, ["new", "margin-dpo", "--checkout", str(sandbox), "--yes",
                               "--model-type", "toy", *SPECS["offline_dpo"]],
                         catch_exceptions=False)
    assert made.exit_code == 0, made.stdout
    rel = "src/flow_factory/trainers/offline/margin_dpo.py"
    trainer = sandbox / rel
    text = trainer.read_text()
    assert "beta=self.training_args.beta," in text
    trainer.write_text(text.replace("beta=self.training_args.beta,",
                                    "beta=self.training_args.beta + self.training_args.margin,"))
    line = next(i for i, row in enumerate(trainer.read_text().splitlines(), 1)
                if "training_args.margin" in row)

    as_text = runner.invoke(app, ["verify", "--checkout", str(sandbox)])
    assert as_text.exit_code == 1
    assert f"{rel}:{line}" in as_text.stdout and "FF708" in as_text.stdout
    as_json = runner.invoke(app, ["verify", "--checkout", str(sandbox), "--format", "json"])
    (hit,) = [f for f in json.loads(as_json.stdout)["findings"] if f["rule_id"] == "FF708"]
    assert (hit["path"], hit["line"], hit["algorithm"]) == (rel, line, "margin-dpo")
    assert "margin" in hit["message"] and "MarginDPOTrainingArguments" in hit["message"]
    # check, the gate a user runs after editing, fails on it too, pointing at the read
    checked = runner.invoke(app, ["check", "--checkout", str(sandbox)])
    assert checked.exit_code == 1
    assert "FAIL margin-dpo" in checked.stdout and f"FF708 at {rel}:{line}" in checked.stdout
    checked = runner.invoke(app, ["check", "--checkout", str(sandbox), "--format", "json"])
    (row,) = json.loads(checked.stdout)["algorithms"]
    assert row["ok"] is False and [e["rule_id"] for e in row["verify_errors"]] == ["FF708"]
