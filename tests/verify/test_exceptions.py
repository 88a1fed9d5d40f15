"""Accepted exceptions in .ffgen-verify.yaml: one algorithm, one rule."""

from __future__ import annotations

import pytest

from ffgen.errors import UsageError
from tests.verify.conftest import ARGS, TRAINERS, beyond_baseline

EXC = ".ffgen-verify.yaml"


def _seed(checkout) -> None:
    """NFT's trainer subclasses AWM's (FF305: not a sanctioned extension). Its arguments extend
    AWM's too, so the AWM methods it inherits find the fields they read (no FF708)."""
    checkout.edit(f"{TRAINERS}/rl/nft.py", "from ..abc import BaseTrainer",
                  "from .awm import AWMTrainer")
    checkout.edit(f"{TRAINERS}/rl/nft.py", "(BaseTrainer)", "(AWMTrainer)")
    checkout.edit(f"{ARGS}/nft.py", "from ._base import TrainingArguments,",
                  "from .awm import AWMTrainingArguments\nfrom ._base import TrainingArguments,")
    checkout.edit(f"{ARGS}/nft.py", "(TrainingArguments)", "(AWMTrainingArguments)")


def test_accepted_exception_hides_one_rule_for_one_algorithm(checkout):
    _seed(checkout)
    checkout.write(EXC, "accepted:\n  - {algorithm: nft, rule: FF305, reason: shares AWM}\n")
    report = checkout.verify()
    assert beyond_baseline(report) == []
    assert [f.rule_id for f in report.suppressed] == ["FF305"]


def test_exception_for_other_algorithm_does_not_apply(checkout):
    _seed(checkout)
    checkout.write(EXC, "accepted:\n  - {algorithm: awm, rule: FF305, reason: x}\n")
    rules = sorted(f.rule_id for f in beyond_baseline(checkout.verify()))
    assert rules == ["FF003", "FF305"]


def test_stale_exception_warns_with_line(checkout):
    checkout.write(EXC, "# accepted findings\naccepted:\n  - algorithm: dpo\n    rule: FF301\n"
                        "    reason: legacy loop\n")
    (f,) = beyond_baseline(checkout.verify())
    assert (f.rule_id, f.severity, f.path, f.line) == ("FF003", "warning", EXC, 3)
    assert checkout.verify(algorithm="nft").findings == ()


@pytest.mark.parametrize(
    "text, message",
    [
        ("accepted: {algorithm: nft}\n", "list of entries"),
        ("accepted:\n  - {algorithm: nft, rule: FF999, reason: x}\n", "unknown rule"),
        ("accepted:\n  - {algorithm: nft, rule: FF305}\n", "reason"),
        ("accepted:\n  - {rule: FF305, reason: x}\n", "algorithm"),
        ("accepted: [\n", "not valid YAML"),
    ],
)
def test_malformed_exception_file_is_a_usage_error(checkout, text, message):
    checkout.write(EXC, text)
    with pytest.raises(UsageError, match=message):
        checkout.verify()
