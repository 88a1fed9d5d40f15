"""One test per former false alarm of `ffgen verify` on the real Flow-Factory checkout.

On the pristine real checkout verify used to report 33 errors: FF505 on every example config
(no `optimizer:` key), FF603 on DMD2 / TDM / TDM-R1 (roles held by the framework's multirole
child) and FF302 on DiffusionOPD (a hand-advanced step around its own optimizer step). Each test
pins the corrected reading, and its neighbour pins that the real defect is still an error.
"""

from __future__ import annotations

from tests.verify.conftest import OPD_TRAINER, REAL_EXAMPLES, TRAINERS, beyond_baseline

GRPO_REAL = "examples/grpo/lora/sd3_5/hpsv3_2x8_medium.yaml"
WAN_REAL = "examples/grpo/full/wan21/t2v.yaml"
DMD2_EX = "examples/dmd2/lora/sd3_5/ocr.yaml"
DMD2 = f"{TRAINERS}/distillation/dmd2.py"
REAL_OPTIMIZERS = '''optimizers:
  - name: "default"
    learning_rate: 3.0e-4
    weight_decay: 1.0e-4
    betas: [0.9, 0.999]
    eps: 1.0e-8
    max_grad_norm: 1.0
'''


def _rules(report, path: str | None = None) -> list[tuple[str, str]]:
    return [(f.rule_id, f.severity) for f in beyond_baseline(report)
            if path is None or f.path == path]


# -- FF505 ---------------------------------------------------------------------------------------
def test_ff505_entry_without_optimizer_key_is_adamw(checkout):
    text = (checkout.root / GRPO_REAL).read_text()
    assert REAL_OPTIMIZERS in text and "optimizer:" not in text.split("optimizers:")[1]
    assert _rules(checkout.verify()) == []
    # The same config spelled out (what ffgen itself writes) is equally clean.
    checkout.edit(GRPO_REAL, '    learning_rate: 3.0e-4\n',
                  '    optimizer: adamw\n    learning_rate: 3.0e-4\n')
    assert _rules(checkout.verify()) == []


def test_ff505_unknown_optimizer_is_still_an_error(checkout):
    checkout.edit(GRPO_REAL, '  - name: "default"\n', '  - name: "default"\n    optimizer: sgd\n')
    (f,) = beyond_baseline(checkout.verify())
    assert (f.rule_id, f.severity, f.path) == ("FF505", "error", GRPO_REAL)
    assert f.line == checkout.line(GRPO_REAL, "optimizer: sgd")
    assert "'sgd'" in f.message and "adamw, muon" in f.message


def test_ff505_optimizer_kinds_come_from_the_checkouts_registry(checkout):
    checkout.write(
        "src/flow_factory/hparams/optimizer_args/_registry.py",
        "_OPTIMIZER_ARGS_REGISTRY = {'adamw': object, 'muon': object, 'lion': object}\n",
    )
    checkout.edit(GRPO_REAL, '  - name: "default"\n', '  - name: "default"\n    optimizer: lion\n')
    assert _rules(checkout.verify()) == []


def test_ff505_single_mapping_and_unnamed_entry_are_the_default_role(checkout):
    text = (checkout.root / WAN_REAL).read_text()
    head = text[: text.index("\noptimizers:\n") + 1]
    checkout.write(WAN_REAL, head + "optimizers: {learning_rate: 1.0e-4, max_grad_norm: 1.0}\n")
    import yaml

    assert isinstance(yaml.safe_load((checkout.root / WAN_REAL).read_text())["optimizers"], dict)
    assert _rules(checkout.verify()) == []


def test_unnamed_entries_of_a_multi_role_algorithm_miss_their_roles(checkout):
    """An unnamed entry is the ``default`` role: FF608 names the role left without an entry,
    FF609 the entry that names no role (FF505 no longer reports the same thing twice)."""
    checkout.edit(DMD2_EX, "  - {name: fake, optimizer: adamw,", "  - {optimizer: adamw,")
    found = sorted(beyond_baseline(checkout.verify()), key=lambda f: f.rule_id)
    assert [(f.rule_id, f.severity) for f in found] == [("FF608", "error"), ("FF609", "error")]
    assert "'fake'" in found[0].message and "'default'" in found[1].message


def test_rewards_as_a_single_mapping_is_accepted(checkout):
    checkout.edit(GRPO_REAL, 'rewards:\n  - name: "hpsv3_aesthetic"\n',
                  'rewards:\n    name: "hpsv3_aesthetic"\n')
    import yaml

    data = yaml.safe_load((checkout.root / GRPO_REAL).read_text())
    assert isinstance(data["rewards"], dict)
    assert _rules(checkout.verify()) == []


def test_rewards_mapping_still_counts_for_ff504(checkout):
    checkout.edit(DMD2_EX, "eval_rewards:",
                  "rewards: {name: ocr, reward_model: OCR}\neval_rewards:")
    assert _rules(checkout.verify()) == [("FF504", "error")]


def test_every_real_example_config_is_clean(checkout):
    report = checkout.verify()
    for rel in REAL_EXAMPLES:
        assert _rules(report, rel) == [], rel


# -- FF603 ---------------------------------------------------------------------------------------
def test_ff603_multirole_child_covers_dmd2_style_roles(checkout):
    from ffgen.verify.facts import build_facts
    from ffgen.verify.index import CheckoutIndex

    facts = build_facts(CheckoutIndex(checkout_view(checkout)))
    for key in ("dmd2", "tdm", "tdm-r1"):
        alg = facts.algorithm(key)
        assert len(facts.roles(alg.args_cls)[0]) > 1
        assert facts.class_value(alg.trainer_cls, "runtime_child_names").owner.name == (
            "BaseTrainer"), key  # no algorithm-level children, like the real trainers
    report = checkout.verify()
    assert [f for f in report.findings if f.rule_id == "FF603"] == []
    # TDM-R1's slow surrogate is a variant snapshot: also held by the multirole child.
    assert "declare_variant_snapshot" in (checkout.root / TRAINERS / "distillation/tdm_r1.py"
                                          ).read_text()


def test_ff603_still_flags_an_undeclared_algorithm_snapshot(checkout):
    checkout.edit(DMD2, "    def _run_training_step(self) -> None:\n",
                  "    def _initialize_snapshots(self) -> None:\n"
                  '        self.adapter.add_named_parameters("dmd2_generator_ema")\n'
                  '        self._register_named_parameter_runtime_child("dmd2_generator_ema")\n\n'
                  "    def _run_training_step(self) -> None:\n")
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF603"]
    assert (f.severity, f.path, f.algorithm) == ("error", DMD2, "dmd2")
    assert f.line == checkout.line(DMD2, "add_named_parameters(")
    assert "'dmd2_generator_ema'" in f.message
    # Declaring it as the algorithm's own child clears both FF603 and FF604.
    checkout.edit(DMD2, '    execution_contract: ClassVar[ExecutionContract] = '
                        'ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT\n',
                  '    execution_contract: ClassVar[ExecutionContract] = '
                  'ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT\n'
                  '    runtime_child_names = ("dmd2_generator_ema",)\n')
    assert _rules(checkout.verify()) == []


def test_ff603_accepts_children_named_by_the_dynamic_hook(checkout):
    # DiffusionOPD names its teacher children from the config; its snapshots pass.
    text = (checkout.root / OPD_TRAINER).read_text()
    assert "def _algorithm_runtime_child_names" in text and "add_named_parameters(" in text
    assert [f for f in checkout.verify().findings if f.rule_id == "FF603"] == []
    checkout.edit(OPD_TRAINER, "    def _algorithm_runtime_child_names(",
                  "    def _teacher_names(")
    checkout.edit(OPD_TRAINER, "names = self._algorithm_runtime_child_names()",
                  "names = self._teacher_names()")
    found = [f for f in checkout.verify().findings if f.rule_id == "FF603"]
    (f,) = found
    assert (f.severity, f.algorithm) == ("error", "diffusion-opd")
    assert f.line == checkout.line(OPD_TRAINER, "add_named_parameters(")


# -- FF302 ---------------------------------------------------------------------------------------
def test_ff302_hand_step_around_own_optimizer_step_is_a_warning(checkout):
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF302"]
    assert (f.severity, f.path, f.algorithm) == ("warning", OPD_TRAINER, "diffusion-opd")
    assert f.line == checkout.line(OPD_TRAINER, "self.step += 1")
    assert "_apply_optimizer_step" in f.message and "_apply_optimizer_step" in f.fix
    assert checkout.verify().errors == ()


def test_ff302_step_in_a_trainer_that_calls_the_helper_is_an_error(checkout):
    checkout.edit(OPD_TRAINER, "        if samples:\n",
                  "        self._loss_info = self._apply_optimizer_step({})\n        if samples:\n")
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF302"]
    assert (f.severity, f.line) == ("error", checkout.line(OPD_TRAINER, "self.step += 1"))
    assert "counts twice" in f.message


def test_ff302_step_without_any_optimizer_step_is_an_error(checkout):
    checkout.edit(OPD_TRAINER, "                    self.optimizer.step()\n", "")
    (f,) = [f for f in checkout.verify().findings if f.rule_id == "FF302"]
    assert f.severity == "error" and "without stepping an optimizer" in f.message


def test_ff302_writing_epoch_or_data_epoch_is_an_error(checkout):
    checkout.edit(OPD_TRAINER, "                    self.step += 1\n",
                  "                    self.step += 1\n"
                  "                    self.epoch += 1\n"
                  "                    self.data_epoch = 0\n")
    found = sorted((f.severity, f.message.split()[1]) for f in checkout.verify().findings
                   if f.rule_id == "FF302")
    assert found == [("error", "writes"), ("error", "writes"), ("warning", "advances")]
    messages = " ".join(f.message for f in checkout.verify().errors)
    assert "self.epoch" in messages and "self.data_epoch" in messages


def checkout_view(checkout):
    from ffgen.checkout.view import CheckoutView

    return CheckoutView(checkout.root)
