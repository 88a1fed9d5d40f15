"""The faithful checkout (all 14 built-ins in their real declaration styles, with real example
configs) has no errors; its one warning is DiffusionOPD's hand-advanced step, as on the real
checkout."""

from __future__ import annotations

import subprocess
import sys

from ffgen.checkout.view import CheckoutView, Overlay, check_layout
from ffgen.verify.engine import run_verify
from tests.verify.conftest import BASELINE, FAITHFUL, REAL_EXAMPLES, TRAINERS

BUILT_INS = (
    "grpo", "grpo-guard", "dppo", "nft", "awm", "dgpo", "dpo", "crd", "dmd2", "tdm", "tdm-r1",
    "diffusion-opd", "sft", "offline-dpo",
)


def test_fixture_is_a_recent_layout_checkout():
    check_layout(FAITHFUL)


def test_faithful_checkout_has_no_errors_only_the_baseline_warning():
    report = run_verify(CheckoutView(FAITHFUL))
    assert report.algorithms == BUILT_INS
    assert report.errors == (), [f.as_dict() for f in report.errors]
    got = [(f.rule_id, f.severity, f.path, f.algorithm) for f in report.findings]
    assert got == list(BASELINE), got


def test_real_example_configs_are_in_the_fixture_and_checked():
    from ffgen.verify.examples import load_examples

    view = CheckoutView(FAITHFUL)
    loaded = {ex.path: ex for ex in load_examples(view)}
    for rel in REAL_EXAMPLES:
        assert rel in loaded and loaded[rel].error is None, rel
        assert not any(f.path == rel for f in run_verify(view).findings), rel
    # They are the configs that used to raise FF505: no entry spells out `optimizer:`.
    for rel in REAL_EXAMPLES:
        opts = loaded[rel].data["optimizers"]
        assert opts and all("optimizer" not in o for o in opts), rel


def test_every_builtin_resolves_both_classes():
    from ffgen.verify.facts import build_facts
    from ffgen.verify.index import CheckoutIndex

    facts = build_facts(CheckoutIndex(CheckoutView(FAITHFUL)))
    for alg in facts.algorithms:
        assert alg.args_cls is not None and alg.trainer_cls is not None, alg.key
    contracts = {a.key: facts.contract(a.trainer_cls).value for a in facts.algorithms}
    assert contracts["tdm-r1"] == "ONLINE_EXECUTION_CONTRACT"
    assert contracts["tdm"] == "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT"
    assert contracts["sft"] == "OFFLINE_EXECUTION_CONTRACT"
    assert facts.paradigm(facts.algorithm("grpo-guard").trainer_cls) == "coupled"
    assert facts.roles(facts.algorithm("tdm").args_cls)[0] == ("generator", "fake")


def test_algorithm_filter():
    report = run_verify(CheckoutView(FAITHFUL), algorithm="tdm-r1")
    assert report.algorithms == ("tdm-r1",)


def test_overlay_is_verified_without_writing():
    rel = f"{TRAINERS}/rl/nft.py"
    base = CheckoutView(FAITHFUL)
    text = base.read(rel).replace('paradigm = "decoupled"', "")
    report = run_verify(Overlay(base, {rel: text}))
    assert [f.rule_id for f in report.errors] == ["FF203"]
    assert run_verify(base).errors == ()


def test_overlay_with_new_files_is_indexed():
    base = CheckoutView(FAITHFUL)
    reg = f"{TRAINERS}/registry.py"
    text = base.read(reg).replace(
        '    "offline-dpo":',
        '    "my-algo": "flow_factory.trainers.rl.my_algo.MyAlgoTrainer",\n    "offline-dpo":',
    )
    report = run_verify(Overlay(base, {reg: text}))
    assert {f.rule_id for f in report.errors} == {"FF101", "FF103"}


def test_never_imports_checkout_code_or_torch():
    code = (
        "import sys; from pathlib import Path; from ffgen.checkout.view import CheckoutView;"
        "from ffgen.verify.engine import run_verify;"
        f"r = run_verify(CheckoutView(Path({str(FAITHFUL)!r})));"
        "assert not r.errors;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'flow_factory')];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_command_module_imports_stay_light():
    code = (
        "import sys; import ffgen.verify.command;"
        "heavy = [m for m in ('rich', 'yaml', 'ffgen.verify.engine') if m in sys.modules];"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_introduced_errors_ignores_preexisting_ones():
    from ffgen.verify.model import introduced_errors

    base = CheckoutView(FAITHFUL)
    rel = f"{TRAINERS}/rl/awm.py"
    broken = Overlay(base, {rel: base.read(rel).replace('paradigm = "decoupled"', "")})
    before = run_verify(broken)
    reg = f"{TRAINERS}/registry.py"
    extra = Overlay(broken, {reg: base.read(reg).replace('"awm":', '"awm":', 1)})
    assert introduced_errors(before, run_verify(extra)) == ()
    assert [f.rule_id for f in introduced_errors(run_verify(base), before)] == ["FF203"]
