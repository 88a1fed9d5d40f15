"""Semantic rules over dataset trainers (offline flow matching): encoded outputs kept across
batches or a condition prepared twice for one batch (FF703), and optimizer steps outside the
accumulation window (FF704).

The reference shape is the real SFT / offline DPO ``optimize_batch``: prepare the batch's
condition once, encode each output arm on demand against it, accumulate inside
``accumulate_gradients()`` and step only when ``accelerator.sync_gradients`` is true.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ffgen.verify.catalogue import finding
from ffgen.verify.facts import Algorithm, Facts
from ffgen.verify.index import ClassInfo, children, walk
from ffgen.verify.model import WARNING, Finding
from ffgen.verify.rules_semantic import (
    Function,
    Method,
    binding,
    call_name,
    callee,
    calls,
    dotted,
    own_definer,
    reached,
    trainers,
    where,
)

BATCH_ENTRIES = ("optimize_batch", "train_on_dataset_batch")
EPOCH_END = ("_after_acquisition_cycle",)
ENCODE = "encode_output_state"
PREPARE = "prepare_condition_state"
CACHE_DECORATORS = ("lru_cache", "cache", "cached_property")
CONTAINER_WRITES = ("append", "extend", "add", "insert", "setdefault", "update", "__setitem__")
VIEWS = ("detach", "clone", "to", "cpu", "cuda", "float", "half", "contiguous")
CACHE_FIX = (f"encode each batch's outputs with self.adapter.{ENCODE}(media, prepared) inside "
             "optimize_batch; cache only input conditions")
STEP_CALLS = ("_apply_optimizer_step", "finish_microbatch", "_finish_role_microbatch")
LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
         ast.GeneratorExp, ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)


# -- FF703: cached outputs ----------------------------------------------------------------
def check_offline_state(facts: Facts) -> Iterator[Finding]:
    """FF703: encode_output_state results kept on the trainer; a condition prepared twice."""
    for alg, t in trainers(facts, "dataset"):
        for owner, fn in facts.effective_methods(t):
            yield from _cached_outputs(alg, owner, fn)
        for entry in (own_definer(facts, t, name) for name in BATCH_ENTRIES):
            if entry is not None:
                problem = _prepare_sites(facts, t, entry, frozenset())[1]
                if problem is not None:
                    yield _redraw_finding(alg, *problem)


def _cached_outputs(alg: Algorithm, owner: ClassInfo, fn: Function) -> Iterator[Finding]:
    site = where(owner, fn)
    encodes = any(call_name(c) == ENCODE for c in calls(fn))
    if encodes and any(dotted(_decorator(d)).split(".")[-1] in CACHE_DECORATORS
                       for d in fn.decorator_list):
        yield finding("FF703", owner.path, fn.lineno, alg.key,
                      f"{site} memoises {ENCODE}() results across batches", CACHE_FIX)
        return
    if not encodes:
        return
    held = _held_names(fn)
    lazy = _lazily_assigned(fn)
    for node in walk(fn):
        for target, kind in _self_stores(node, held):
            if kind == "attribute" and id(node) not in lazy:
                yield finding(
                    "FF703", owner.path, node.lineno, alg.key,
                    f"{site} keeps this batch's encoded outputs on {target}; read on a later "
                    "batch they are stale targets",
                    CACHE_FIX, severity=WARNING,
                )
            else:
                yield finding("FF703", owner.path, node.lineno, alg.key,
                              f"{site} caches encoded outputs ({ENCODE}()) in {target} across "
                              "batches", CACHE_FIX)


def _decorator(d: ast.expr) -> ast.expr:
    return d.func if isinstance(d, ast.Call) else d


def _holds(expr: ast.AST | None, held: set[str]) -> bool:
    """``expr`` is an encode_output_state result, part of one, or a container of them."""
    if isinstance(expr, ast.Call):
        if call_name(expr) == ENCODE:
            return True
        func = expr.func
        return isinstance(func, ast.Attribute) and func.attr in VIEWS and _holds(func.value, held)
    if isinstance(expr, ast.Name):
        return expr.id in held
    if isinstance(expr, ast.Attribute | ast.Subscript | ast.Starred):
        return _holds(expr.value, held)
    if isinstance(expr, ast.Tuple | ast.List | ast.Set):
        return any(_holds(e, held) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(_holds(v, held) for v in expr.values)
    return False


def _held_names(fn: Function) -> set[str]:
    held: set[str] = set()
    for _ in range(3):
        before = len(held)
        for node in walk(fn):
            value, targets = binding(node)
            if value is not None and _holds(value, held):
                held.update(n.id for t in targets for n in walk(t) if isinstance(n, ast.Name))
        if len(held) == before:
            break
    return held


def _self_stores(node: ast.AST, held: set[str]) -> Iterator[tuple[str, str]]:
    """(where, "attribute" | "container") for each store of held outputs on ``self``."""
    if isinstance(node, ast.Assign | ast.AnnAssign) and _holds(node.value, held):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            text = dotted(t.value if isinstance(t, ast.Subscript) else t)
            if text.startswith("self."):
                yield text, "container" if isinstance(t, ast.Subscript) else "attribute"
    if isinstance(node, ast.Call) and call_name(node) in CONTAINER_WRITES:
        receiver = dotted(node.func.value) if isinstance(node.func, ast.Attribute) else ""
        args = [*node.args, *(k.value for k in node.keywords)]
        if receiver.startswith("self.") and any(_holds(a, held) for a in args):
            yield receiver, "container"


def _lazily_assigned(fn: Function) -> set[int]:
    """ids of assignments under an ``if`` that tests the attribute they assign (a lazy cache)."""
    out: set[int] = set()
    for node in walk(fn):
        if not isinstance(node, ast.If):
            continue
        tested = {dotted(n) for n in walk(node.test) if isinstance(n, ast.Attribute)}
        tested |= {f"self.{n.value}" for n in walk(node.test)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)}  # hasattr
        for stmt in node.body:
            for inner in walk(stmt):
                if isinstance(inner, ast.Assign) and any(dotted(t) in tested
                                                         for t in inner.targets):
                    out.add(id(inner))
    return out


# -- FF703: a condition prepared twice ----------------------------------------------------
Site = tuple[int, bool, tuple[tuple[int, int], ...]]  # line, in a loop, if-branch path
Problem = tuple[ClassInfo, Function, int, str]


def _prepare_sites(facts: Facts, t: ClassInfo, method: Method, stack: frozenset[int]
                   ) -> tuple[list[Site], Problem | None]:
    """Where one call of ``method`` prepares a condition (directly or through own helpers)."""
    owner, fn = method
    sites: list[Site] = []
    for call, loop, path in _calls_in_context(fn):
        if call_name(call) == PREPARE:
            sites.append((call.lineno, loop, path))
            continue
        inner = callee(facts, t, owner, call)
        if inner is None or id(inner[1]) in stack or inner[1] is fn:
            continue
        sub, problem = _prepare_sites(facts, t, inner, stack | {id(fn)})
        if problem is not None:
            return sites, problem
        if sub:
            sites.append((call.lineno, loop, path))
    return sites, _repeated(owner, fn, sites)


def _repeated(owner: ClassInfo, fn: Function, sites: list[Site]) -> Problem | None:
    for line, loop, _ in sites:
        if loop:
            return owner, fn, line, "inside a loop, once per iteration"
    for i, (line, _, path) in enumerate(sites):
        for _, _, earlier in sites[:i]:
            if not _exclusive(path, earlier):
                return owner, fn, line, "a second time for the same batch"
    return None


def _exclusive(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    branches = dict(a)
    return any(node in branches and branches[node] != branch for node, branch in b)


def _calls_in_context(fn: Function) -> list[tuple[ast.Call, bool, tuple[tuple[int, int], ...]]]:
    """Each call in ``fn``: inside a loop or not, and its if-branch path; kept on the node (a
    helper is reached from several entries), holding only nodes below it."""
    out = fn.__dict__.get("_ffgen_calls_in_context")
    if out is None:
        out = fn._ffgen_calls_in_context = []
        _visit(fn, fn, False, (), out)
    return out


# A module function, not a closure: a closure that calls itself is a reference cycle, and it
# would hold ``out`` (the method's calls) until the cyclic collector runs.
def _visit(fn: Function, node: ast.AST, loop: bool, path: tuple[tuple[int, int], ...],
           out: list[tuple[ast.Call, bool, tuple[tuple[int, int], ...]]]) -> None:
    if isinstance(node, ast.If):
        _visit(fn, node.test, loop, path, out)
        for s in node.body:
            _visit(fn, s, loop, (*path, (id(node), 0)), out)
        for s in node.orelse:
            _visit(fn, s, loop, (*path, (id(node), 1)), out)
        return
    if isinstance(node, ast.Call):
        out.append((node, loop, path))
    inner = loop or (isinstance(node, LOOPS) and node is not fn)
    for child in children(node):
        _visit(fn, child, inner, path, out)


def _redraw_finding(alg: Algorithm, owner: ClassInfo, fn: Function, line: int,
                    why: str) -> Finding:
    return finding("FF703", owner.path, line, alg.key,
                   f"{where(owner, fn)} prepares the condition state {why} "
                   f"({PREPARE}() belongs once per batch, shared by every arm)",
                   f"call self.adapter.{PREPARE}(condition) once at the top of optimize_batch "
                   "and pass the prepared condition to every arm")


# -- FF704: partial-window flush ----------------------------------------------------------
def check_accumulation_window(facts: Facts) -> Iterator[Finding]:
    """FF704: a dataset trainer steps the optimizer outside ``accelerator.sync_gradients``."""
    for alg, t in trainers(facts, "dataset"):
        for entry in (own_definer(facts, t, name) for name in BATCH_ENTRIES):
            if entry is not None:
                for owner, fn, call in _unguarded_steps(facts, t, entry, frozenset()):
                    yield finding(
                        "FF704", owner.path, call.lineno, alg.key,
                        f"{where(owner, fn)} steps the optimizer ({call_name(call)}()) outside "
                        "`if self.accelerator.sync_gradients:`, so it also steps (and counts a "
                        "step) on an unfinished accumulation window",
                    )
        for owner, fn in reached(facts, t, EPOCH_END):
            for call in calls(fn):
                if _is_step(call):
                    yield finding(
                        "FF704", owner.path, call.lineno, alg.key,
                        f"{where(owner, fn)} steps the optimizer ({call_name(call)}()) at the end "
                        "of the data epoch, flushing a partial accumulation window",
                    )
        for owner, fn in reached(facts, t, BATCH_ENTRIES + EPOCH_END):
            yield from _forced_sync(alg, owner, fn)


def _is_step(call: ast.Call) -> bool:
    name = call_name(call)
    return name in STEP_CALLS or (name == "step" and "optimizer" in dotted(call.func).lower())


def _unguarded_steps(facts: Facts, t: ClassInfo, method: Method, stack: frozenset[int]
                     ) -> Iterator[tuple[ClassInfo, Function, ast.Call]]:
    owner, fn = method
    for call, guarded in _guarded_calls(fn.body, False):
        if guarded:
            continue
        if _is_step(call):
            yield owner, fn, call
            continue
        inner = callee(facts, t, owner, call)
        if inner is not None and id(inner[1]) not in stack and inner[1] is not fn:
            yield from _unguarded_steps(facts, t, inner, stack | {id(fn)})


def _guarded_calls(stmts: list[ast.stmt], guarded: bool) -> Iterator[tuple[ast.Call, bool]]:
    """Every call in ``stmts`` with whether it runs only when gradients sync."""
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            sync = _sync_test(stmt.test)
            yield from ((c, guarded) for c in calls(stmt.test))
            yield from _guarded_calls(stmt.body, guarded or sync == "positive")
            yield from _guarded_calls(stmt.orelse, guarded or sync == "negative")
            guarded = guarded or (sync == "negative" and _exits(stmt.body))
            continue
        blocks = [getattr(stmt, f, []) for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(stmt, "handlers", [])]
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) or not any(
                blocks):
            yield from ((c, guarded) for c in calls(stmt))
            continue
        for header in _headers(stmt):
            yield from ((c, guarded) for c in calls(header))
        # The role coordinator's microbatch steps only when gradients sync (it checks itself).
        inner = guarded or _coordinator_microbatch(stmt)
        for block in blocks:
            yield from _guarded_calls(block, inner)


def _coordinator_microbatch(stmt: ast.stmt) -> bool:
    """``with <coordinator>.microbatch():``: its finish steps on a sync boundary only."""
    if not isinstance(stmt, ast.With | ast.AsyncWith):
        return False
    return any(call_name(c) == "microbatch" for item in stmt.items for c in calls(item))


def _headers(stmt: ast.stmt) -> list[ast.AST]:
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return list(stmt.items)
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, ast.While):
        return [stmt.test]
    return []


def _sync_test(test: ast.expr) -> str | None:
    """"positive" (true only when syncing), "negative" (true only when not), else None."""
    if not any(isinstance(n, ast.Attribute) and n.attr == "sync_gradients"
               for n in walk(test)):
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "negative" if _sync_test(test.operand) == "positive" else None
    if isinstance(test, ast.BoolOp):
        kinds = [_sync_test(v) for v in test.values]
        if isinstance(test.op, ast.And) and "positive" in kinds:
            return "positive"
        if isinstance(test.op, ast.Or) and all(k == "negative" for k in kinds):
            return "negative"
        return None  # `sync_gradients or <end of data>` also steps on a partial window
    return "positive"


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise | ast.Continue)


def _forced_sync(alg: Algorithm, owner: ClassInfo, fn: Function) -> Iterator[Finding]:
    for node in walk(fn):
        forced = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "sync_gradients" for t in node.targets)
        forced = forced or (isinstance(node, ast.Call)
                            and call_name(node) == "_set_sync_gradients")
        if forced:
            yield finding("FF704", owner.path, node.lineno, alg.key,
                          f"{where(owner, fn)} forces sync_gradients, stepping on a partial "
                          "accumulation window")


RULES = (check_offline_state, check_accumulation_window)
