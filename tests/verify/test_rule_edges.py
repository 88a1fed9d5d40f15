"""Rule edges a one-line change to a verify rule would let through.

FF503 (docs/verify.md): a dataset example needs unit train source weights (weight: 1) and
``train.max_epochs`` an integer >= 1. FF604: the framework reserves ``adapter_ema``,
``adapter_reference`` and ``multirole`` for its own checkpoint children; an algorithm that names
any of them among its ``runtime_child_names`` is an error.
"""

from __future__ import annotations

import pytest

from tests.verify.conftest import TRAINERS, beyond_baseline

SFT_EX = "examples/sft/lora/sd3_5/default.yaml"
CRD = f"{TRAINERS}/rl/crd.py"
CRD_CHILDREN = '("_crd_old", "_crd_sampling")'
# Written out here, not imported from the catalogue: a shortened list there must fail this test.
RESERVED = ("adapter_ema", "adapter_reference", "multirole")


def _hits(report, rule: str, path: str) -> list:
    return [f for f in report.findings if f.rule_id == rule and f.path == path]


def test_the_unedited_sft_example_is_clean(checkout):
    assert beyond_baseline(checkout.verify()) == []


@pytest.mark.parametrize("weight", ["0.5", "0", "2"])
def test_ff503_a_train_source_weight_other_than_one_is_flagged(checkout, weight):
    checkout.edit(SFT_EX, "weight: 1,", f"weight: {weight},")
    hits = _hits(checkout.verify(), "FF503", SFT_EX)
    assert [f.line for f in hits] == [checkout.line(SFT_EX, "train: {")]
    assert "weight" in hits[0].message and hits[0].severity == "error"


@pytest.mark.parametrize("value", ["0", "true", "false", "-1", "1.5", "'1'"])
def test_ff503_max_epochs_must_be_an_integer_of_at_least_one(checkout, value):
    checkout.edit(SFT_EX, "  max_epochs: 1\n", f"  max_epochs: {value}\n")
    hits = _hits(checkout.verify(), "FF503", SFT_EX)
    assert [f.line for f in hits] == [checkout.line(SFT_EX, "max_epochs")]
    assert "max_epochs" in hits[0].message


def test_ff503_max_epochs_above_one_is_fine(checkout):
    checkout.edit(SFT_EX, "  max_epochs: 1\n", "  max_epochs: 3\n")
    assert _hits(checkout.verify(), "FF503", SFT_EX) == []


@pytest.mark.parametrize("name", RESERVED)
def test_ff604_every_reserved_child_name_is_flagged(checkout, name):
    checkout.edit(CRD, CRD_CHILDREN, f'("_crd_old", "_crd_sampling", "{name}")')
    hits = _hits(checkout.verify(), "FF604", CRD)
    assert [f.line for f in hits] == [checkout.line(CRD, "runtime_child_names =")]
    assert repr(name) in hits[0].message and "reserved" in hits[0].message
    assert hits[0].algorithm == "crd"


def test_ff604_a_name_that_only_contains_a_reserved_one_is_fine(checkout):
    """The check is by name, not by substring: ``_crd_multirole`` is the algorithm's own."""
    checkout.edit(CRD, CRD_CHILDREN, '("_crd_old", "_crd_sampling", "_crd_multirole")')
    reserved = [f for f in _hits(checkout.verify(), "FF604", CRD) if "reserved" in f.message]
    assert reserved == []
