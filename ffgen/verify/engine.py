"""Run every rule over a checkout view and collect a :class:`Report`."""

from __future__ import annotations

from ffgen.checkout.view import CheckoutView
from ffgen.errors import UsageError
from ffgen.verify import (
    rules_arg_reads,
    rules_backends,
    rules_classes,
    rules_examples,
    rules_registry,
    rules_roles,
    rules_semantic,
    rules_semantic_offline,
    rules_semantic_roles,
)
from ffgen.verify.batches import batches, fewer_collections
from ffgen.verify.catalogue import finding
from ffgen.verify.exceptions import apply_accepted, load_accepted
from ffgen.verify.index import CheckoutIndex
from ffgen.verify.model import Finding, Report

FACT_RULES = (
    *rules_registry.RULES, *rules_classes.RULES, *rules_roles.RULES,
    *rules_backends.RULES, *rules_semantic.RULES, *rules_semantic_offline.RULES,
    *rules_semantic_roles.RULES, *rules_arg_reads.RULES,
)
# After the first batch: the rules over ``facts.algorithms`` (the others read the whole
# checkout's files, once).
BATCH_RULES = tuple(r for r in FACT_RULES if r not in rules_registry.CHECKOUT_RULES)


def run_verify(view: CheckoutView, *, algorithm: str | None = None) -> Report:
    """Check every algorithm in ``view`` (or only ``algorithm``); apply accepted exceptions.

    Raises :class:`UsageError` when the view has no readable registries or ``algorithm`` is not
    a registered key.
    """
    index = CheckoutIndex(view)
    with fewer_collections():
        keys, found = _check(index, algorithm)
    accepted = load_accepted(view)
    found += _syntax(index)
    if algorithm is not None:
        found = [f for f in found if f.algorithm == algorithm or f.rule_id == "FF001"]
    kept, hidden = apply_accepted(_dedupe(found), accepted, algorithm)
    selected = (algorithm,) if algorithm is not None else keys
    return Report(tuple(sorted(kept, key=_order(selected))), selected, tuple(hidden))


def _check(index: CheckoutIndex, algorithm: str | None) -> tuple[tuple[str, ...], list[Finding]]:
    """Every registered key and what the rules found, a batch of algorithms at a time."""
    found: list[Finding] = []
    keys: tuple[str, ...] = ()
    for batch in batches(index, examples=True):
        facts = batch.facts
        if batch.first:
            keys = facts.keys
            if algorithm is not None and algorithm not in keys:
                raise UsageError(f"--algorithm {algorithm!r} is not registered; known keys: "
                                 f"{', '.join(keys) or '(none)'}")
        rules = FACT_RULES if batch.first else BATCH_RULES
        found += [f for rule in rules for f in rule(facts)]
        found += rules_examples.check_examples(facts, batch.stray + facts.examples)
    return keys, found


def _syntax(index: CheckoutIndex) -> list[Finding]:
    return [
        finding("FF001", p.path, p.line, None, f"syntax error: {p.message}")
        for p in index.syntax_problems.values()
    ]


def _dedupe(found: list[Finding]) -> list[Finding]:
    return list(dict.fromkeys(found))


def _order(keys: tuple[str, ...]):
    rank = {k: i for i, k in enumerate(keys)}

    def key(f: Finding) -> tuple:
        return (rank.get(f.algorithm, -1) if f.algorithm else -1, f.path, f.line, f.rule_id)

    return key
