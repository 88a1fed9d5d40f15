"""FF708: a trainer reads an argument its arguments class does not define.

``self.training_args`` is the instance of the args class registered under the same key; a read
of a name that neither that class nor its bases define (fields, class attributes, properties,
methods, attributes set in ``__post_init__`` or any other method) raises AttributeError when the
code runs. Reads are ``self.training_args.<name>``, the same through ``self.config``, through a
local alias (``args = self.training_args``) and ``getattr(<those>, "<name>")`` without a
default. Guarded reads (a ``getattr`` default, ``hasattr``, ``except AttributeError``, an
``isinstance`` branch) are fine, and an args class whose attributes cannot be known statically
(an unresolved base, a ``__getattr__``, a computed ``setattr``) is never flagged. A ``setattr``
whose name is the variable of a loop over constant strings sets those names (the real TDM-R1
arguments validate two fields that way).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ffgen.verify.catalogue import finding
from ffgen.verify.facts import Facts
from ffgen.verify.index import ClassInfo, walk
from ffgen.verify.model import Finding
from ffgen.verify.rules_semantic_roles import run_methods

ARGS_ATTR = "training_args"
# External bases that add no instance attributes a trainer would read.
PLAIN_BASES = ("abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol")
BUILTIN_BASES = ("object",)
DYNAMIC = ("__getattr__", "__getattribute__")
CAUGHT = ("AttributeError", "Exception", "BaseException")


def check_argument_reads(facts: Facts) -> Iterator[Finding]:
    for alg in facts.algorithms:
        a, t = alg.args_cls, alg.trainer_cls
        if a is None or t is None:
            continue
        known = _defined_names(facts, a)
        if known is None:
            continue
        for owner, fn in run_methods(facts, t):
            for name, line in _reads(fn):
                if name in known or name.startswith("__"):
                    continue
                yield finding(
                    "FF708", owner.path, line, alg.key,
                    f"{owner.name}.{fn.name} reads training_args.{name}, which {a.name} and its "
                    "bases do not define (AttributeError when it runs)",
                    f"add `{name}` to {a.name} as a field with a default, help text and "
                    "validation, or read a field the class defines",
                )


def _defined_names(facts: Facts, cls: ClassInfo) -> set[str] | None:
    """Every attribute an instance of ``cls`` has, or None when that cannot be known."""
    cache = facts.__dict__.setdefault("_arg_names_cache", {})
    if id(cls) not in cache:
        cache[id(cls)] = _collect_names(facts, cls)
    return cache[id(cls)]


def _collect_names(facts: Facts, cls: ClassInfo) -> set[str] | None:
    names: set[str] = set()
    for c in facts.index.mro(cls):
        own = _class_names(facts, c)
        if own is None:
            return None
        names |= own
    return names


def _class_names(facts: Facts, c: ClassInfo) -> frozenset[str] | None:
    """What one class defines itself (bases shared by every args class are read once)."""
    cache = facts.__dict__.setdefault("_class_names_cache", {})
    if id(c) not in cache:
        cache[id(c)] = _own_names(facts, c)
    return cache[id(c)]


def _own_names(facts: Facts, c: ClassInfo) -> frozenset[str] | None:
    if not _bases_known(facts, c) or any(d in c.methods for d in DYNAMIC):
        return None
    names = set(c.assigns) | set(c.methods)
    for fn in c.methods.values():
        written = _self_writes(fn)
        if written is None:
            return None
        names |= written
    return frozenset(names)


def _bases_known(facts: Facts, cls: ClassInfo) -> bool:
    for base in cls.bases:
        sym = facts.index.resolve_expr(cls.module, base)
        if sym is None:
            if not (isinstance(base, ast.Name) and base.id in BUILTIN_BASES):
                return False
        elif sym.kind == "external" and sym.qualname not in PLAIN_BASES:
            return False
    return True


def _self_writes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str] | None:
    """Attributes ``fn`` sets on its instance; None when it sets computed names."""
    if not fn.args.args:
        return set()
    me = fn.args.args[0].arg
    loops = None  # the constant loops, found when a computed name needs them (rarely)
    out: set[str] = set()
    for node in walk(fn):
        for target in _targets(node):
            if isinstance(target, ast.Attribute) and _is_name(target.value, me):
                out.add(target.attr)
            elif isinstance(target, ast.Subscript) and _is_dict_of(target.value, me):
                loops = _constant_loops(fn) if loops is None else loops
                keys = _known_keys(target, target.slice, loops)
                if keys is None:
                    return None
                out |= keys
        if isinstance(node, ast.Call) and _sets_attr_on(node, me):
            loops = _constant_loops(fn) if loops is None else loops
            keys = _known_keys(node, node.args[1] if len(node.args) > 1 else None, loops)
            if keys is None:
                return None
            out |= keys
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("update", "setdefault") and _is_dict_of(node.func.value, me):
                return None  # self.__dict__.update(...): computed names
    return out


def _constant_loops(fn: ast.AST) -> list[tuple[str, tuple[str, ...], set[int]]]:
    """``for <name> in ("a", "b"):`` loops of ``fn`` whose name is bound nowhere else:
    (name, the strings, ids of the nodes in the loop body)."""
    stores: dict[str, int] = {}
    for node in walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    loops = []
    for node in walk(fn):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) \
                and stores.get(node.target.id) == 1:
            values = _const_strs(node.iter)
            if values is not None:
                inside = {id(n) for stmt in node.body for n in walk(stmt)}
                loops.append((node.target.id, values, inside))
    return loops


def _const_strs(expr: ast.expr) -> tuple[str, ...] | None:
    if not isinstance(expr, ast.Tuple | ast.List):
        return None
    values = tuple(_const_str(e) for e in expr.elts)
    return None if None in values else values


def _known_keys(where: ast.AST, key: ast.expr | None,
                loops: list[tuple[str, tuple[str, ...], set[int]]]) -> set[str] | None:
    """The names a write at ``where`` with ``key`` may set: a constant, or the variable of an
    enclosing loop over constants (``for name in ("a", "b"): setattr(self, name, ...)``, as the
    real TDM-R1 arguments do); None when they cannot be known."""
    const = _const_str(key)
    if const is not None:
        return {const}
    if isinstance(key, ast.Name):
        for name, values, inside in loops:
            if name == key.id and id(where) in inside:
                return set(values)
    return None


def _is_dict_of(expr: ast.expr, me: str) -> bool:
    return isinstance(expr, ast.Attribute) and expr.attr == "__dict__" and _is_name(expr.value, me)


def _const_str(expr: ast.expr | None) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    return None


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [e for t in node.targets for e in _unpack(t)]
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    return []


def _unpack(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [e for t in target.elts for e in _unpack(t)]
    return [target]


def _sets_attr_on(call: ast.Call, me: str) -> bool:
    """``setattr(self, ...)`` / ``object.__setattr__(self, ...)``."""
    f = call.func
    named = (isinstance(f, ast.Name) and f.id == "setattr") or (
        isinstance(f, ast.Attribute) and f.attr == "__setattr__")
    return named and bool(call.args) and _is_name(call.args[0], me)


def _is_name(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


# --- reads in trainer methods ----------------------------------------------------------------
def _reads(fn: ast.AST) -> tuple[tuple[str, int], ...]:
    """(name, first line) of every unguarded read of the training arguments in ``fn``; kept on
    the node, like :func:`walk` (a trainer shared by several keys is read once)."""
    cached = fn.__dict__.get("_ffgen_arg_reads")
    if cached is None:
        cached = fn._ffgen_arg_reads = _find_reads(fn)
    return cached


def _find_reads(fn: ast.AST) -> tuple[tuple[str, int], ...]:
    if not any(isinstance(n, ast.Attribute) and n.attr == ARGS_ATTR for n in walk(fn)):
        return ()  # most methods never touch the arguments
    aliases = _aliases(fn)
    guarded = _guarded_names(fn, aliases)
    caught = _caught_nodes(fn, aliases)
    found: dict[str, int] = {}
    for node in walk(fn):
        name = _read_name(node, aliases)
        if name is None or name in guarded or name in found or id(node) in caught:
            continue
        found[name] = node.lineno
    return tuple(found.items())


def _read_name(node: ast.AST, aliases: set[str]) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr if _is_args(node.value, aliases) else None
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr":
        if len(node.args) == 2 and not node.keywords and _is_args(node.args[0], aliases):
            key = node.args[1]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return key.value
    return None


def _is_args(expr: ast.expr, aliases: set[str]) -> bool:
    """``self.training_args``, ``self.config.training_args`` or a local alias of them."""
    if isinstance(expr, ast.Name):
        return expr.id in aliases
    if not (isinstance(expr, ast.Attribute) and expr.attr == ARGS_ATTR):
        return False
    owner = expr.value
    if isinstance(owner, ast.Attribute) and owner.attr == "config":
        owner = owner.value
    return _is_name(owner, "self")


def _aliases(fn: ast.AST) -> set[str]:
    """Local names whose every binding is the training arguments (``args = self.training_args``;
    a name also bound to anything else, or a parameter, is no alias)."""
    bound: dict[str, int] = {}
    stores: dict[str, int] = {}
    params = {a.arg for a in walk(fn) if isinstance(a, ast.arg)}
    for node in walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    if not stores:
        return set()
    aliases: set[str] = set()
    for _ in range(2):  # an alias of an alias
        for node in walk(fn):
            target, value = _simple_binding(node)
            if target is not None and _is_args(value, aliases):
                bound[target] = bound.get(target, 0) + 1
        aliases = {n for n, k in bound.items() if k == stores.get(n) and n not in params}
        bound = {}
    return aliases


def _simple_binding(node: ast.AST) -> tuple[str | None, ast.expr | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Name):
            return target.id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return node.target.id, node.value
    return None, None


def _guarded_names(fn: ast.AST, aliases: set[str]) -> set[str]:
    """Names ``fn`` checks with ``hasattr(<args>, "<name>")``."""
    out: set[str] = set()
    for node in walk(fn):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "hasattr":
            if len(node.args) == 2 and _is_args(node.args[0], aliases):
                key = node.args[1]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out.add(key.value)
    return out


def _caught_nodes(fn: ast.AST, aliases: set[str]) -> set[int]:
    """ids of nodes where a read cannot fail: inside a ``try`` whose handlers catch
    AttributeError (or everything), or an ``if isinstance(<args>, ...)`` branch (code shared by
    several args classes, reading a field of one of them)."""
    out: set[int] = set()
    for node in walk(fn):
        if isinstance(node, ast.Try) and any(_catches(h) for h in node.handlers):
            out |= {id(n) for stmt in node.body for n in walk(stmt)}
        elif isinstance(node, ast.If | ast.IfExp) and _tests_args_type(node.test, aliases):
            body = node.body if isinstance(node.body, list) else [node.body]
            out |= {id(n) for part in body for n in walk(part)}
    return out


def _tests_args_type(test: ast.expr, aliases: set[str]) -> bool:
    return any(
        isinstance(n, ast.Call) and getattr(n.func, "id", "") == "isinstance" and n.args
        and _is_args(n.args[0], aliases)
        for n in walk(test)
    )


def _catches(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {getattr(n, "id", getattr(n, "attr", "")) for n in walk(handler.type)}
    return bool(names & set(CAUGHT))


RULES = (check_argument_reads,)
