"""Rules over multi-role training, snapshots and checkpoint runtime children (FF601-FF604).

The optimizers and backends of multi-role examples are :mod:`ffgen.verify.rules_backends`.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from ffgen.verify.catalogue import RESERVED_RUNTIME_CHILDREN, finding
from ffgen.verify.facts import Algorithm, Facts
from ffgen.verify.index import ClassInfo, walk
from ffgen.verify.model import Finding

ROLE_HOOK = "_optimizer_args_for_role"
PLAN = "role_update_plan"
CHILD_HOOK = "_algorithm_runtime_child_names"
REGISTER_CALLS = ("register_runtime_child", "_register_named_parameter_runtime_child")


def check_roles(facts: Facts) -> Iterator[Finding]:
    for alg in facts.algorithms:
        a, t = alg.args_cls, alg.trainer_cls
        if a is None or t is None:
            continue
        roles, line = facts.roles(a)
        signal = facts.own_method(t, ROLE_HOOK) or facts.own_method(a, PLAN)
        if roles is not None and len(roles) > 1:
            yield from _defaults(facts, alg, roles)
            yield from _plan(facts, alg, roles)
        elif signal is not None or roles is not None:
            yield finding(
                "FF601", a.path, line or a.line, alg.key,
                f"{alg.key} optimizes per role but {a.name}.required_trainable_roles "
                f"{'is missing' if roles is None else 'is not a literal tuple of two or more'}",
            )


def _defaults(facts: Facts, alg: Algorithm, roles: tuple[str, ...]) -> Iterator[Finding]:
    t = alg.trainer_cls
    owner = facts.own_method(t, ROLE_HOOK)
    if owner is None:
        yield finding(
            "FF602", t.path, t.line, alg.key,
            f"{t.name} trains roles {list(roles)} but does not override {ROLE_HOOK}()",
            f"override {ROLE_HOOK}() falling back to a *_DEFAULT_OPTIMIZERS tuple",
        )
        return
    fn = owner.methods[ROLE_HOOK]
    for node in walk(fn):
        if isinstance(node, ast.Name) and node.id.endswith("_DEFAULT_OPTIMIZERS"):
            names = _default_names(facts, owner, node.id)
            if names is not None and sorted(names) != sorted(roles):
                yield finding(
                    "FF602", owner.path, node.lineno, alg.key,
                    f"{node.id} names {names} but {alg.key} trains roles {list(roles)}",
                )
            return


def _default_names(facts: Facts, owner: ClassInfo, name: str) -> list[str] | None:
    sym = facts.index.resolve(owner.module, name)
    if sym is None or sym.assign is None or not isinstance(sym.assign.value, ast.Tuple | ast.List):
        return None
    names = []
    for elt in sym.assign.value.elts:
        kw = next((k for k in getattr(elt, "keywords", []) if k.arg == "name"), None)
        if kw is None or not isinstance(kw.value, ast.Constant):
            return None
        names.append(kw.value.value)
    return names


def _plan(facts: Facts, alg: Algorithm, roles: tuple[str, ...]) -> Iterator[Finding]:
    a = alg.args_cls
    owner = facts.own_method(a, PLAN)
    if owner is None:
        return
    fn = owner.methods[PLAN]
    phases = [
        n.args[0].value
        for n in walk(fn)
        if isinstance(n, ast.Call) and _callee(n) == "RolePhase" and n.args
        and isinstance(n.args[0], ast.Constant)
    ]
    if phases and sorted(set(phases)) != sorted(roles):
        yield finding(
            "FF602", owner.path, fn.lineno, alg.key,
            f"{owner.name}.{PLAN}() phases {phases} do not name exactly roles {list(roles)}",
        )


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")


def check_snapshots(facts: Facts) -> Iterator[Finding]:
    """FF603: every algorithm-owned snapshot or role is framework-covered or declared.

    The framework checkpoints EMA / reference weights itself and adds its ``multirole`` child
    whenever more than one trainable role is required; that child holds every role and its
    variant snapshots. Named-parameter snapshots are the algorithm's own and need a declared
    child (``runtime_child_names`` or an ``_algorithm_runtime_child_names()`` override).
    """
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None:
            continue
        roles, _ = facts.roles(alg.args_cls)
        multirole = roles is not None and len(roles) > 1
        declared = _declared_children(facts, t)
        for owner, fn in facts.effective_methods(t):
            for node in walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                kind = SNAPSHOT_CALLS.get(_callee(node))
                if kind is None or (multirole and kind != "named-parameter snapshot"):
                    continue
                name = _snapshot_name(facts, owner, node, kind)
                if declared.covers(name):
                    continue
                shown = repr(name) if isinstance(name, str) else "(computed name)"
                what = f"{kind} {shown}" if kind != "component variants" else kind
                why = "" if kind == "named-parameter snapshot" else (
                    f" (and {alg.key} requires fewer than two trainable roles, so no "
                    "multirole child covers it)"
                )
                yield finding(
                    "FF603", owner.path, node.lineno, alg.key,
                    f"{owner.name}.{fn.name} creates {what} but {t.name} declares no runtime "
                    f"child for it{why}",
                )


# Adapter calls that create state exact resume must save, and what each creates.
SNAPSHOT_CALLS = {
    "add_named_parameters": "named-parameter snapshot",
    "declare_variant_snapshot": "variant snapshot",
    "declare_component_variants": "component variants",
}
_NAME_ARG = {  # (position, keyword) of the snapshot name
    "named-parameter snapshot": (0, "name"),
    "variant snapshot": (1, "snapshot_name"),
}


def _snapshot_name(facts: Facts, owner: ClassInfo, call: ast.Call, kind: str) -> str | None:
    if kind not in _NAME_ARG:
        return None
    pos, kw = _NAME_ARG[kind]
    arg = call.args[pos] if len(call.args) > pos else next(
        (k.value for k in call.keywords if k.arg == kw), None)
    return _string(facts, owner, arg)


def _string(facts: Facts, owner: ClassInfo, expr: ast.expr | None) -> str | None:
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else None
    if isinstance(expr, ast.Name):
        value = facts.index.literal(owner.module, expr)
        return value if isinstance(value, str) else None
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class _Declared:
    """The algorithm's own checkpoint children: ``names`` when known, ``dynamic`` when an
    ``_algorithm_runtime_child_names()`` override (or a non-literal tuple) decides them."""

    names: frozenset[str]
    dynamic: bool

    def covers(self, name: str | None) -> bool:
        if self.dynamic:
            return True
        return name in self.names if name is not None else bool(self.names)


def _declared_children(facts: Facts, t: ClassInfo) -> _Declared:
    if facts.own_method(t, CHILD_HOOK) is not None:
        return _Declared(frozenset(), True)
    found = facts.index.lookup(t, "runtime_child_names")
    if found is None or id(found[0]) in facts.framework(t):
        return _Declared(frozenset(), False)
    owner, assign = found
    value = assign.value
    if isinstance(value, ast.Name):
        sym = facts.index.resolve(owner.module, value.id)
        value = sym.assign.value if sym is not None and sym.assign is not None else None
    if not isinstance(value, ast.Tuple | ast.List):
        return _Declared(frozenset(), value is not None)
    names = [_string(facts, owner, e) for e in value.elts]
    known = frozenset(n for n in names if n is not None)
    return _Declared(known, len(known) != len(names))


def check_children(facts: Facts) -> Iterator[Finding]:
    """FF604: no reserved child names; registered children are declared."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None:
            continue
        d = facts.class_value(t, "runtime_child_names")
        names = d.value if isinstance(d.value, tuple | list) else None
        fw = facts.framework(t)
        if names and d.owner is not None and id(d.owner) not in fw:
            for bad in (n for n in names if n in RESERVED_RUNTIME_CHILDREN):
                yield finding(
                    "FF604", d.owner.path, d.line, alg.key,
                    f"runtime child name {bad!r} is reserved by the framework",
                )
        if names is None or facts.own_method(t, CHILD_HOOK) is not None:
            continue
        yield from _undeclared(facts, alg, set(names))


def _undeclared(facts: Facts, alg: Algorithm, names: set[str]) -> Iterator[Finding]:
    for owner, fn in facts.effective_methods(alg.trainer_cls):
        for node in walk(fn):
            if not (isinstance(node, ast.Call) and _callee(node) in REGISTER_CALLS):
                continue
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and arg.value not in names:
                yield finding(
                    "FF604", owner.path, node.lineno, alg.key,
                    f"runtime child {arg.value!r} is registered but not in "
                    f"runtime_child_names {sorted(names)}",
                )


RULES = (check_roles, check_snapshots, check_children)
