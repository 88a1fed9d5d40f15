"""Semantic rules over trainer bodies: how samples are collected (FF701) and who makes the
advantages (FF702). FF703/FF704 (offline optimization) live in ``rules_semantic_offline``.

The rules read the algorithm's own methods (its part of the MRO, see ``Facts.own_classes``) as
the index parsed them, follow ``self.<method>()`` calls between them, and never look into the
framework's methods: what ``BaseTrainer`` does is the reference, not a suspect.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Iterable, Iterator

from ffgen.verify.catalogue import finding
from ffgen.verify.facts import Algorithm, Facts
from ffgen.verify.index import ClassInfo, children, walk
from ffgen.verify.model import WARNING, Finding

Function = ast.FunctionDef | ast.AsyncFunctionDef
Method = tuple[ClassInfo, Function]


# -- shared helpers --------------------------------------------------------------------------
def dotted(expr: ast.AST) -> str:
    """``self.adapter.inference`` -> that text; ``super().x`` -> ``super().x``; else ``?``."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
    elif isinstance(expr, ast.Call) and getattr(expr.func, "id", "") == "super":
        parts.append("super()")
    else:
        parts.append("?")
    return ".".join(reversed(parts))


def call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def calls(node: ast.AST) -> Iterable[ast.AST]:
    """The calls in ``node`` (itself first, if one), as :func:`walk` orders them; listed once
    per node and kept on it (the rules ask again and again), the node itself left out of the
    list so that it holds no reference cycle."""
    inner = node.__dict__.get("_ffgen_calls")
    if inner is None:
        inner = node._ffgen_calls = [n for n in walk(node) if isinstance(n, ast.Call)
                                     and n is not node]
    return itertools.chain((node,), inner) if isinstance(node, ast.Call) else inner


def own_definer(facts: Facts, cls: ClassInfo, name: str, after: ClassInfo | None = None
                ) -> Method | None:
    """The first own class (after ``after`` in the MRO, for ``super()``) defining ``name``."""
    own = facts.own_classes(cls)
    if after is not None:
        own = own[next((i + 1 for i, c in enumerate(own) if c is after), len(own)):]
    owner = next((c for c in own if name in c.methods), None)
    return (owner, owner.methods[name]) if owner is not None else None


def reached(facts: Facts, cls: ClassInfo, entries: tuple[str, ...]) -> list[Method]:
    """Own methods run from ``entries``: following ``self.x()`` and ``super().x()`` calls."""
    todo = [m for m in (own_definer(facts, cls, e) for e in entries) if m is not None]
    seen: dict[int, Method] = {}
    while todo:
        owner, fn = todo.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = (owner, fn)
        for call in calls(fn):
            todo += [m for m in (callee(facts, cls, owner, call),) if m is not None]
    return list(seen.values())


def callee(facts: Facts, cls: ClassInfo, owner: ClassInfo, call: ast.Call) -> Method | None:
    name = dotted(call.func)
    if name.count(".") != 1:
        return None
    head, attr = name.split(".")
    if head == "self":
        return own_definer(facts, cls, attr)
    if head == "super()":
        return own_definer(facts, cls, attr, after=owner)
    return None


def trainers(facts: Facts, acquisition: str) -> Iterator[tuple[Algorithm, ClassInfo]]:
    """Each algorithm's trainer class whose contract selects ``acquisition``."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is not None and facts.acquisition(t) == acquisition:
            yield alg, t


def where(owner: ClassInfo, fn: Function) -> str:
    return f"{owner.name}.{fn.name}"


# -- FF701: collection bypassed --------------------------------------------------------------
COLLECTION_ENTRIES = ("sample", "generate_samples", "sample_batch")
# What sample_batch()/generate_samples() do for every batch, as (label, call it shows up as).
BOOKKEEPING = (
    ("source/metadata propagation (_inject_batch_metadata)", "_inject_batch_metadata"),
    ("reward buffering (reward_buffer.add_samples)", "add_samples"),
    ("the rollout acceleration context (_rollout_acceleration)", "_rollout_acceleration"),
    ("rollout mode (adapter.rollout())", "rollout"),
)
# An own sample_batch() runs inside the base generate_samples(): the caller owns the rest.
SEAM_BOOKKEEPING = BOOKKEEPING[:2]


def check_collection(facts: Facts) -> Iterator[Finding]:
    """FF701: a generation trainer's sample() path calls adapter inference or the pipeline."""
    for alg, t in trainers(facts, "generation"):
        methods = reached(facts, t, COLLECTION_ENTRIES)
        hits = [(o, fn, c, text) for o, fn in methods for c, text in _direct_inference(fn)]
        if not hits:
            continue
        called = {call_name(c) for _, fn in methods for c in calls(fn)}
        rewarded = facts.feedback(t) == "runtime_reward"
        for owner, fn, call, text in hits:
            seam = fn.name == "sample_batch"
            needed = SEAM_BOOKKEEPING if seam else BOOKKEEPING
            if seam and _calls_super(fn, "sample_batch"):
                continue
            lost = [label for label, name in needed
                    if name not in called and (rewarded or name != "add_samples")]
            found = _collection_finding(alg, owner, fn, call, text, lost)
            if found is not None:
                yield found


def _collection_finding(alg: Algorithm, owner: ClassInfo, fn: Function, call: ast.Call,
                        text: str, lost: list[str]) -> Finding | None:
    if lost:
        return finding(
            "FF701", owner.path, call.lineno, alg.key,
            f"{where(owner, fn)} collects samples by calling {text}() directly, losing "
            f"{', '.join(lost)}",
        )
    if fn.name == "sample_batch":  # the documented seam for a different inference call
        return None
    return finding(
        "FF701", owner.path, call.lineno, alg.key,
        f"{where(owner, fn)} calls {text}() directly and redoes sample_batch()'s bookkeeping "
        "by hand; the framework's collection path would keep it in step",
        "collect through self.generate_samples(...) / self.sample_batch(batch, ...); put a "
        "different inference call in a sample_batch override",
        severity=WARNING,
    )


def _direct_inference(fn: Function) -> Iterator[tuple[ast.Call, str]]:
    """Calls of ``<adapter>.inference(...)`` or ``<...>.pipeline(...)`` (and pipeline aliases)."""
    aliases = {t.id for n in walk(fn) if isinstance(n, ast.Assign)
               and dotted(n.value).endswith(".pipeline")
               for t in n.targets if isinstance(t, ast.Name)}
    for call in calls(fn):
        text = dotted(call.func)
        inference = text.endswith(".inference") and "adapter" in text
        pipeline = text.endswith((".pipeline", ".pipeline.__call__"))
        if inference or pipeline or (isinstance(call.func, ast.Name) and call.func.id in aliases):
            yield call, text


def _calls_super(fn: Function, name: str) -> bool:
    return any(dotted(c.func) == f"super().{name}" for c in calls(fn))


# -- FF702: advantages reimplemented ---------------------------------------------------------
COLLECTIVES = {
    "gather", "gather_for_metrics", "all_gather", "all_gather_object", "gather_object",
    "all_reduce", "reduce", "reduce_scatter", "gather_aligned_floating_tensors",
    "gather_samples", "gather_tensor",
}
STATISTICS = {"std", "var", "std_mean", "var_mean", "nanstd", "nanvar"}
ADVANTAGE_KEYS = ("advantage", "advantages")
EVALUATION = ("evaluate", "_evaluate", "_eval")


def check_advantages(facts: Facts) -> Iterator[Finding]:
    """FF702: a runtime-reward trainer gathers/normalises rewards or stores advantages itself."""
    for alg, t in trainers(facts, "generation"):
        if facts.feedback(t) != "runtime_reward":
            continue
        methods = [(o, fn) for o, fn in facts.effective_methods(t)]
        routes = _routes_through_processor(facts, t)
        for owner, fn in methods:
            if not fn.name.startswith(EVALUATION):  # eval rewards are gathered for logs only
                yield from _advantage_findings(alg, owner, fn, routes)


def _routes_through_processor(facts: Facts, t: ClassInfo) -> bool:
    """prepare_feedback reaches the AdvantageProcessor: the base one, or a call from an own."""
    if own_definer(facts, t, "prepare_feedback") is None:
        return True
    methods = reached(facts, t, ("prepare_feedback",))
    return any(dotted(c.func).endswith(("compute_advantages", "super().prepare_feedback"))
               for _, fn in methods for c in calls(fn))


def _is_processor_call(call: ast.Call) -> bool:
    """A value the advantage processor produced is no longer a raw reward."""
    text = dotted(call.func)
    return "advantage_processor" in text or text.endswith("compute_advantages")


def _advantage_findings(alg: Algorithm, owner: ClassInfo, fn: Function, routes: bool
                        ) -> Iterator[Finding]:
    site = where(owner, fn)
    if fn.name == "compute_advantages" and not _delegates_advantages(fn):
        yield finding("FF702", owner.path, fn.lineno, alg.key,
                      f"{site} overrides compute_advantages without the advantage processor")
        return
    initial = {"rewards"} if fn.name == "compute_advantages" else set()
    if not initial and not any(_is_reward_source(n) for n in walk(fn)):
        return  # no reward value in this method: nothing to follow (the common case)
    tainted = tainted_names(fn, _is_reward_source, _is_processor_call, initial)
    seen = _Mentions(tainted, _is_reward_source, _is_processor_call)
    kinds = [(node.lineno, *kind) for node in walk(fn)
             if (kind := _advantage_kind(node, seen)) is not None]
    if not kinds:
        return
    kinds.sort()
    texts = list(dict.fromkeys(text for _, text, _ in kinds))  # one finding per method
    certain = any(sure for _, _, sure in kinds)
    yield finding(
        "FF702", owner.path, kinds[0][0], alg.key,
        f"{site} reimplements the advantage processor: it {'; '.join(texts)}",
        severity=None if certain or not routes else WARNING,
    )


def _delegates_advantages(fn: Function) -> bool:
    return any("advantage_processor" in dotted(c.func)
               or dotted(c.func) == "super().compute_advantages" for c in calls(fn))


def _advantage_kind(node: ast.AST, seen: _Mentions) -> tuple[str, bool] | None:
    """What ``node`` reimplements, and whether that is certain without the processor."""
    if isinstance(node, ast.Assign | ast.AugAssign) and seen(node.value):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(_is_advantage_target(t) for t in targets):
            return "stores advantages it computed from rewards", True
    if isinstance(node, ast.Call):
        name = call_name(node)
        args = [*node.args, *(k.value for k in node.keywords)]
        if name in COLLECTIVES and _is_collective(node) and any(seen(a) for a in args):
            return f"gathers rewards across processes ({name}())", False
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        if name in STATISTICS and any(seen(a) for a in [*args, receiver] if a is not None):
            return f"normalises rewards ({name}() over them)", False
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and seen(node.left):
        if isinstance(node.right, ast.Call) and call_name(node.right) in ("mean", "nanmean") \
                and seen(node.right):
            return "normalises rewards (subtracts their mean)", False
    return None


def _is_collective(call: ast.Call) -> bool:
    text = dotted(call.func)
    return call_name(call) != "reduce" or "accelerator" in text or "dist" in text


def _is_advantage_target(t: ast.expr) -> bool:
    if isinstance(t, ast.Subscript):
        key = t.slice
        return isinstance(key, ast.Constant) and key.value in ADVANTAGE_KEYS
    if isinstance(t, ast.Attribute):
        return t.attr in ADVANTAGE_KEYS and dotted(t.value) != "self"
    return False


def _is_reward_source(node: ast.AST) -> bool:
    """A reward value: the reward buffer's finalize(), the reward processor or models, or a
    ``["rewards"]`` lookup."""
    if isinstance(node, ast.Call):
        text = dotted(node.func)
        finalize = text.endswith(".finalize") and "reward" in text
        return finalize or "reward_processor" in text or "reward_model" in text
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value in ("rewards", "reward")
    return False


# -- a small taint walk, shared with the offline rules ---------------------------------------
class _Mentions:
    """Whether an expression uses a tainted name or a source, outside sanitizer calls."""

    def __init__(self, tainted: set[str], source: Callable[[ast.AST], bool],
                 sanitizer: Callable[[ast.Call], bool]) -> None:
        self.tainted, self.source, self.sanitizer = tainted, source, sanitizer

    def __call__(self, expr: ast.AST | None) -> bool:
        if expr is None:
            return False
        todo = [expr]
        while todo:
            node = todo.pop()
            if isinstance(node, ast.Call) and self.sanitizer(node):
                continue
            if self.source(node):
                return True
            if isinstance(node, ast.Name) and node.id in self.tainted:
                return True
            todo.extend(children(node))
        return False


def tainted_names(fn: Function, source: Callable[[ast.AST], bool],
                  sanitizer: Callable[[ast.Call], bool], initial: set[str]) -> set[str]:
    """Local names holding a value derived from ``source`` (assignments, loops, walrus)."""
    tainted = set(initial)
    mentions = _Mentions(tainted, source, sanitizer)
    for _ in range(3):  # a few passes settle names assigned before their source in the text
        before = len(tainted)
        for node in walk(fn):
            value, targets = binding(node)
            if value is not None and mentions(value):
                tainted.update(n.id for t in targets for n in walk(t)
                               if isinstance(n, ast.Name))
        if len(tainted) == before:
            break
    return tainted


def binding(node: ast.AST) -> tuple[ast.AST | None, list[ast.expr]]:
    if isinstance(node, ast.Assign):
        return node.value, node.targets
    if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
        return node.value, [node.target]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return node.iter, [node.target]
    return None, []


RULES = (check_collection, check_advantages)
