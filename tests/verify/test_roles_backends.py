"""FF605-FF609: optimizers and distributed backends of multi-role examples.

Each rule has a defect it catches (one line naming the problem, with the fix) and clean real
configs it leaves alone: the verbatim real example configs of the fixture (DeepSpeed ZeRO-2 and
FSDP2 through ``config_file``) and the DMD2 example (two roles, one entry each).
"""

from __future__ import annotations

import pytest

from tests.verify.conftest import REAL_EXAMPLES

DMD2_EX = "examples/dmd2/lora/sd3_5/ocr.yaml"
GENERATOR_ENTRY = "  - {name: generator, optimizer: adamw,"
FAKE_ENTRY = "  - {name: fake, optimizer: adamw,"
NEW_RULES = ("FF605", "FF606", "FF607", "FF608", "FF609")


def _new(report, rule: str | None = None) -> list:
    return [f for f in report.findings
            if f.rule_id in NEW_RULES and (rule is None or f.rule_id == rule)]


def _accelerate(checkout, rel: str, body: str) -> None:
    checkout.write(rel, body)


def _use_config(checkout, rel: str) -> None:
    checkout.edit(DMD2_EX, "launcher: accelerate\n", f"launcher: accelerate\nconfig_file: {rel}\n")


def test_real_configs_and_the_dmd2_example_are_clean(checkout):
    report = checkout.verify()
    assert _new(report) == []
    text = "".join((checkout.root / p).read_text() for p in REAL_EXAMPLES)
    assert "deepspeed_zero2.yaml" in text and "fsdp2.yaml" in text  # the backends are exercised


def test_ff605_muon_on_deepspeed(checkout):
    _use_config(checkout, "config/deepspeed/deepspeed_zero2.yaml")
    checkout.edit(DMD2_EX, GENERATOR_ENTRY, "  - {name: generator, optimizer: muon,")
    found = _new(checkout.verify(), "FF605")
    assert [(f.algorithm, f.line) for f in found] == [("dmd2", checkout.line(DMD2_EX, "muon"))]
    assert "muon on DeepSpeed" in found[0].message and "adamw" in found[0].fix


def test_ff605_muon_without_torch_optim_muon(checkout):
    checkout.edit(DMD2_EX, GENERATOR_ENTRY, "  - {name: generator, optimizer: muon,")
    assert _new(checkout.verify()) == []  # DDP and an unpinned torch: Muon is fine
    pyproject = (checkout.root / "pyproject.toml").read_text()
    checkout.write("pyproject.toml", pyproject + '\n[tool.pins]\ndeps = ["torch<2.9"]\n')
    found = [f for f in _new(checkout.verify(), "FF605") if f.path == DMD2_EX]
    assert len(found) == 1 and "no torch.optim.Muon" in found[0].message


def test_ff605_muon_on_fsdp2_is_fine_but_not_on_fsdp1(checkout):
    checkout.edit(DMD2_EX, GENERATOR_ENTRY, "  - {name: generator, optimizer: muon,")
    rel = "config/accelerate_configs/fsdp.yaml"
    _use_config(checkout, rel)
    _accelerate(checkout, rel, "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n")
    assert _new(checkout.verify()) == []
    _accelerate(checkout, rel, "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 1\n")
    found = _new(checkout.verify(), "FF605")
    assert len(found) == 1 and "FSDP1" in found[0].message


@pytest.mark.parametrize("stage", [3])
def test_ff606_multi_role_on_zero3(checkout, stage):
    rel = f"config/deepspeed/deepspeed_zero{stage}.yaml"
    _use_config(checkout, rel)
    _accelerate(checkout, rel,
                f"distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: {stage}\n")
    found = _new(checkout.verify(), "FF606")
    assert [(f.algorithm, f.line) for f in found] == [("dmd2", checkout.line(DMD2_EX, rel))]
    assert "ZeRO-3" in found[0].message and "zero_stage: 1 or 2" in found[0].fix
    # ZeRO-2 (what the real configs use) is supported.
    _accelerate(checkout, rel, "distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 2\n")
    assert _new(checkout.verify()) == []


def test_ff606_reads_the_stage_from_the_deepspeed_json(checkout):
    rel = "config/accelerate_configs/ds.yaml"
    _use_config(checkout, rel)
    _accelerate(checkout, rel, "distributed_type: DEEPSPEED\ndeepspeed_config:\n"
                               "  deepspeed_config_file: config/deepspeed/ds.json\n")
    checkout.write("config/deepspeed/ds.json", '{"zero_optimization": {"stage": 3}}')
    assert len(_new(checkout.verify(), "FF606")) == 1


def test_ff607_multi_role_fsdp2_needs_use_orig_params(checkout):
    rel = "config/accelerate_configs/fsdp2.yaml"
    _use_config(checkout, rel)
    body = "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_use_orig_params: {}\n"
    _accelerate(checkout, rel, body.format("false"))
    found = _new(checkout.verify(), "FF607")
    assert len(found) == 1 and "use_orig_params false" in found[0].message
    assert "fsdp_use_orig_params: true" in found[0].fix
    _accelerate(checkout, rel, body.format("true"))
    assert _new(checkout.verify()) == []


def test_ff608_role_without_an_optimizer_entry(checkout):
    lines = (checkout.root / DMD2_EX).read_text().splitlines(keepends=True)
    fake = next(line for line in lines if line.startswith(FAKE_ENTRY))
    checkout.edit(DMD2_EX, fake, "")
    found = _new(checkout.verify(), "FF608")
    assert len(found) == 1 and "role 'fake' of dmd2 has no optimizers entry" in found[0].message
    assert "- name: fake" in found[0].fix


def test_ff609_entry_naming_no_role(checkout):
    checkout.edit(DMD2_EX, FAKE_ENTRY, "  - {name: critic, optimizer: adamw,")
    report = checkout.verify()
    names = _new(report, "FF609")
    assert len(names) == 1 and "'critic' names no role of dmd2" in names[0].message
    assert names[0].line == checkout.line(DMD2_EX, "name: critic")
    assert len(_new(report, "FF608")) == 1  # and the renamed role now has none
