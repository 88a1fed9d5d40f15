"""Shared helpers: copy the faithful checkout and mutate one thing per case."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ffgen.checkout.view import CheckoutView
from ffgen.verify.engine import run_verify
from ffgen.verify.model import Report

FAITHFUL = Path(__file__).resolve().parents[1] / "fixtures" / "faithful_checkout"
PKG = "src/flow_factory"
ARGS = f"{PKG}/hparams/training_args"
TRAINERS = f"{PKG}/trainers"
OPD_TRAINER = f"{TRAINERS}/distillation/opd/trainer.py"
# The faithful checkout's one finding, as on the real checkout: DiffusionOPD steps its own
# optimizer and advances self.step by hand (FF302, a warning).
BASELINE = (("FF302", "warning", OPD_TRAINER, "diffusion-opd"),)
# Real example configs of the target Flow-Factory version, copied verbatim into the fixture.
REAL_EXAMPLES = (
    "examples/grpo/full/wan21/t2v.yaml",
    "examples/grpo/lora/flux2/hpsv3_2x8.yaml",
    "examples/grpo/lora/minimax_h3_t2va/default.yaml",
    "examples/grpo/lora/sd3_5/hpsv3_2x8_medium.yaml",
    "examples/nft/lora/wan21/t2v.yaml",
)


def beyond_baseline(report: Report) -> list:
    """The findings other than the faithful checkout's baseline warning."""
    return [f for f in report.findings
            if (f.rule_id, f.severity, f.path, f.algorithm) not in BASELINE]


SAMPLE = "    def sample(self)"


def findings_of(checkout, rule: str) -> list[tuple[str, str, int, str | None]]:
    """(severity, path, line, algorithm) of each finding of ``rule`` beyond the baseline."""
    return [(f.severity, f.path, f.line, f.algorithm)
            for f in beyond_baseline(checkout.verify()) if f.rule_id == rule]


def add_method(checkout, path: str, body: str, before: str = SAMPLE) -> None:
    """Insert ``body`` (a method) into the class of ``path``, just above ``before``."""
    checkout.edit(path, before, body + "\n" + before)


class Checkout:
    def __init__(self, root: Path) -> None:
        self.root = root

    def edit(self, rel: str, old: str, new: str, count: int = 1) -> None:
        path = self.root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {rel}"
        path.write_text(text.replace(old, new, count), encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def line(self, rel: str, needle: str) -> int:
        lines = (self.root / rel).read_text(encoding="utf-8").splitlines()
        if needle.startswith("="):  # whole-line match
            return next(i for i, text in enumerate(lines, 1) if text == needle[1:])
        return next(i for i, text in enumerate(lines, 1) if needle in text)

    def verify(self, algorithm: str | None = None) -> Report:
        return run_verify(CheckoutView(self.root), algorithm=algorithm)


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    root = tmp_path / "checkout"
    shutil.copytree(FAITHFUL, root)
    return Checkout(root)
