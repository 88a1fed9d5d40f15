"""Verify and list a batch of algorithms at a time: the same report as all at once, and memory
that holds one batch's trees, not the checkout's."""

from __future__ import annotations

import ast
import gc
import weakref

import pytest

from ffgen.checkout import view as view_module
from ffgen.checkout.view import CheckoutView
from ffgen.lifecycle.status import checkout_states
from ffgen.verify import batches as batches_module
from ffgen.verify.batches import batches
from ffgen.verify.engine import FACT_RULES, run_verify
from ffgen.verify.index import CheckoutIndex, module_paths, walk
from tests.verify.conftest import TRAINERS
from tests.verify.test_defects import CASES


def _many_defects(checkout) -> int:
    """Every seeded defect that still applies after the ones before it, at once; and a package
    re-export of a module renamed by hand while the registry still names it (FF109 names the
    algorithm that owned it). Returns how many applied."""
    applied = 0
    for case in CASES:
        texts = {}
        for path, old, new in case.edits:
            text = texts.get(path) or (checkout.root / path).read_text(encoding="utf-8")
            if old not in text:
                break
            texts[path] = text.replace(old, new, 1)
        else:
            for path, text in texts.items():
                checkout.write(path, text)
            applied += 1
    dpo = checkout.root / TRAINERS / "offline/offline_dpo.py"
    dpo.rename(dpo.with_name("offline_dpo_v2.py"))
    return applied


def _report(checkout, size: int, algorithm: str | None = None):
    original = batches_module.BATCH, batches_module.WHOLE
    batches_module.BATCH = batches_module.WHOLE = size
    try:
        report = run_verify(CheckoutView(checkout.root), algorithm=algorithm)
    finally:
        batches_module.BATCH, batches_module.WHOLE = original
    return report.findings, report.suppressed, report.algorithms


def test_batches_find_what_one_pass_finds(checkout):
    assert _many_defects(checkout) > 40
    whole = _report(checkout, 1000)
    assert len({f.rule_id for f in whole[0]}) > 25  # the defects did not mask each other
    assert any(f.rule_id == "FF109" and f.algorithm == "offline-dpo" for f in whole[0])
    for size in (1, 2, 5):
        assert _report(checkout, size) == whole, size


@pytest.mark.parametrize("key", ["grpo-guard", "sft", "offline-dpo"])
def test_batches_find_what_one_pass_finds_for_one_algorithm(checkout, key):
    _many_defects(checkout)
    assert _report(checkout, 1, key) == _report(checkout, 1000, key)


def test_list_in_batches_shows_what_one_pass_shows(checkout, monkeypatch):
    whole = checkout_states(CheckoutView(checkout.root))
    monkeypatch.setattr(batches_module, "BATCH", 1)
    monkeypatch.setattr(batches_module, "WHOLE", 1)
    assert checkout_states(CheckoutView(checkout.root)) == whole
    assert {s.contract for s in whole} - {None} and {s.category for s in whole} - {None}


def test_a_batch_is_forgotten_before_the_next_is_read(checkout):
    view = CheckoutView(checkout.root)
    index = CheckoutIndex(view)
    before: set[str] = set()
    examples: list[str] = []
    forgotten = 0
    for batch in batches(index, 1, examples=True):
        own = batches_module._own_modules(batch.facts)
        stale = before - own
        parsed = {key[1] for key in view.parse_cache()}
        assert not stale & index.loaded()
        assert not {p for m in stale for p in module_paths(m)} & parsed
        assert not set(examples) & parsed
        forgotten += len(stale)
        before, examples = own, [ex.path for ex in batch.facts.examples]
    assert forgotten >= 10


def test_a_forgotten_batch_is_freed_without_the_cyclic_collector(checkout, monkeypatch):
    """Trees hold no reference cycles, the rules leave none that reach them: a batch's trees are
    gone as soon as the next batch replaces it, with the collector off. (The view's last few
    parses, kept for ``new``'s compile check, are a bounded few: none here.)"""
    monkeypatch.setattr(view_module, "_RECENT", {})
    monkeypatch.setattr(view_module, "_RECENT_SIZE", 0)
    index = CheckoutIndex(CheckoutView(checkout.root))
    refs = []
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for batch in batches(index, 1, examples=True):
            for rule in FACT_RULES:
                list(rule(batch.facts))
            trainer = batch.facts.algorithms[0].trainer_cls
            if trainer is not None and trainer.methods:
                refs.append((trainer.name, weakref.ref(next(iter(trainer.methods.values())))))
        alive = [name for name, ref in refs[:-1] if ref() is not None]
    finally:
        if enabled:
            gc.enable()
    # a trainer that other algorithms extend stays while they are read; none outlives the run
    assert len(refs) > 8 and len(alive) <= 2, alive


def test_walk_lists_each_node_once_without_holding_itself():
    tree = ast.parse("def f(a):\n    x = a + 1\n    return [x for x in range(a)]\n")
    fn = tree.body[0]
    expected = [n for n in ast.walk(fn) if not isinstance(n, ast.expr_context)]
    assert list(walk(fn)) == expected
    assert list(walk(fn)) == expected  # from what the first walk kept
    assert fn not in fn.__dict__["_ffgen_walk"]
    enabled = gc.isenabled()
    gc.disable()
    try:
        ref = weakref.ref(tree)
        del tree, fn
        assert ref() is None  # freed by reference counting alone
    finally:
        if enabled:
            gc.enable()
