"""The registered algorithms a batch at a time, so that memory holds what was found, not trees.

A module's ``ast`` tree takes about twenty times its text; holding every algorithm's modules
(and every example's YAML node tree) at once made ``verify`` grow by ~390 KB per algorithm. Up
to :data:`BATCH` algorithms are analysed as one, exactly as before. Beyond that, each batch's
own modules and examples are read, checked and forgotten before the next batch is read; the
framework's modules, the registries and the package ``__init__`` modules stay. What the rules
need across batches is kept as small values: every registered key, the keys of each args
class (aliases) and what was already reported once per shared class.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Iterator

from ffgen.verify.examples import Example, example_paths, read_light_example
from ffgen.verify.facts import Facts, class_key, facts_of, read_registries, registered_keys
from ffgen.verify.index import CheckoutIndex

BATCH = 32
# Up to this many algorithms are analysed in one pass, held whole (about 390 KB each, so at most
# some 80 MB): batching costs time (the aliases' pre-pass parses the args modules a second time,
# examples are read light and composed again for a line) that only pays for itself in memory
# at scale; it made a checkout of 44 algorithms a third slower to verify.
WHOLE = 200
GC_YOUNG = 100_000  # allocations between two young collections while analysing (700 usually)


@dataclasses.dataclass(frozen=True, slots=True)
class Batch:
    """One batch's facts; ``stray`` (first batch only): the examples no registered algorithm
    owns (YAML errors, unknown ``trainer_type``), checked once."""

    facts: Facts
    first: bool
    stray: tuple[Example, ...] = ()


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """The cyclic collector's young generation made larger while a checkout is analysed, then
    restored: parsing allocates a few thousand objects per module that live until their batch
    is done, and a collection every 700 allocations would scan them again and again (as much
    time as the parsing itself). The collector still runs, every :data:`GC_YOUNG` allocations;
    a forgotten batch is freed without it: trees hold no reference cycles (:func:`walk`)."""
    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def batches(index: CheckoutIndex, size: int | None = None, *, examples: bool = False
            ) -> Iterator[Batch]:
    """The algorithms of ``index`` in registry order, ``size`` (default :data:`BATCH`) at a
    time; all in one batch, whole facts and nothing forgotten, when there are no more than
    ``size`` or, by default, :data:`WHOLE`. ``examples``: give each batch's facts the example
    configs that name its algorithms."""
    whole = size or max(BATCH, WHOLE)
    size = size or BATCH
    args, trainers = read_registries(index)
    keys = registered_keys(args, trainers)
    if len(keys) <= whole:
        yield Batch(facts_of(index, args, trainers, keys), True)
        return
    pinned = index.loaded()  # the registries and what they import
    aliases = _aliases(index, args, keys, pinned)
    owned, stray = _examples_by_key(index, keys) if examples else ({}, ())
    position = {path: i for i, path in enumerate(example_paths(index.view))} if examples else {}
    seen: dict[str, set] = {}
    for start in range(0, len(keys), size):
        part = keys[start:start + size]
        facts = facts_of(index, args, trainers, part, keys=keys, aliases=aliases, seen=seen)
        if examples:  # in the files' order, as whole facts load them
            facts.__dict__["examples"] = tuple(sorted(
                (ex for k in part for ex in owned.get(k, ())), key=lambda ex: position[ex.path]))
        yield Batch(facts, start == 0, stray if start == 0 else ())
        if start + size < len(keys):  # the last batch's trees stay for whoever reads next
            index.forget(_own_modules(facts) - pinned)


def _aliases(index: CheckoutIndex, args, keys: tuple[str, ...], pinned: set[str]
             ) -> dict[tuple[str, str, int], tuple[str, ...]]:
    """The registry keys of each args class, by where the class is defined."""
    out: dict[tuple[str, str, int], tuple[str, ...]] = {}
    for start in range(0, len(keys), BATCH):
        for key in keys[start:start + BATCH]:
            entry = args.get(key)
            cls = index.resolve_class(args.module, entry.value) if entry is not None else None
            if cls is not None:
                out[class_key(cls)] = (*out.get(class_key(cls), ()), key)
        index.forget(index.loaded() - pinned)
    return out


def _examples_by_key(index: CheckoutIndex, keys: tuple[str, ...]
                     ) -> tuple[dict[str, list[Example]], tuple[Example, ...]]:
    """Each registered key's examples, light (their loaded data, no node tree: ~7 KB each
    instead of ~50); and the examples that name none."""
    registered = set(keys)
    owned: dict[str, list[Example]] = {}
    stray = []
    for path in example_paths(index.view):
        example = read_light_example(index.view, path)
        if isinstance(example.data, dict) and example.trainer_type in registered:
            owned.setdefault(example.trainer_type, []).append(example)
        else:
            stray.append(example)
    return owned, tuple(stray)


def _own_modules(facts: Facts) -> set[str]:
    """The modules defining the batch's own classes (and those of the algorithms it asked for)."""
    out = set()
    for alg in facts.resolved():
        for cls in (alg.args_cls, alg.trainer_cls):
            if cls is not None:
                out.update(c.module for c in facts.own_classes(cls))
    return out
