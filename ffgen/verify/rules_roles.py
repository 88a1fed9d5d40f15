"""Rules over multi-role training, snapshots, checkpoint runtime children and the optimizers and
distributed backends of multi-role examples (FF601-FF609)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from ffgen.verify.catalogue import RESERVED_RUNTIME_CHILDREN, finding
from ffgen.verify.facts import Algorithm, Facts
from ffgen.verify.index import ClassInfo
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
    for node in ast.walk(fn):
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
        for n in ast.walk(fn)
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
            for node in ast.walk(fn):
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


@dataclass(frozen=True)
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
        for node in ast.walk(fn):
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


# --- optimizers and distributed backends of multi-role examples (FF605-FF609) ----------------
# torch.optim.Muon first shipped in PyTorch 2.9.
MUON_TORCH = (2, 9)


@dataclass(frozen=True)
class _Backend:
    """The distributed plan an example's ``config_file`` selects (None: unknown)."""

    kind: str | None  # "deepspeed" | "fsdp" | "ddp" | None
    zero_stage: int | None = None
    fsdp_version: int | None = None
    use_orig_params: bool | None = None
    source: str = ""


def check_backends(facts: Facts) -> Iterator[Finding]:
    """FF605 Muon where it cannot run; FF606/FF607 multi-role on an unsupported backend."""
    view = facts.index.view
    torch_cap = _torch_upper_bound(view)
    for ex, alg, roles in _multirole_examples(facts, any_roles=True):
        backend = _backend(view, ex)
        multi = roles is not None and len(roles) > 1
        for keys, entry in _optimizer_entries(ex):
            kind = str(entry.get("optimizer", "adamw")).lower()
            if kind != "muon":
                continue
            name = entry.get("name", "default")
            fsdp1 = backend.kind == "fsdp" and backend.fsdp_version == 1
            if backend.kind == "deepspeed" or fsdp1:
                plan = "FSDP1" if fsdp1 else "DeepSpeed"
                yield finding("FF605", ex.path, ex.line(*keys, "optimizer"), alg.key,
                              f"optimizers ({name}) uses muon on {plan} ({backend.source})")
            elif torch_cap is not None and torch_cap < MUON_TORCH:
                yield finding("FF605", ex.path, ex.line(*keys, "optimizer"), alg.key,
                              f"optimizers ({name}) uses muon but the checkout pins torch below "
                              f"{'.'.join(map(str, MUON_TORCH))} (no torch.optim.Muon)")
        if not multi:
            continue
        where = ex.line("config_file")
        if backend.kind == "deepspeed" and backend.zero_stage not in (None, 1, 2):
            yield finding("FF606", ex.path, where, alg.key,
                          f"{alg.key} trains roles {list(roles)} on DeepSpeed ZeRO-"
                          f"{backend.zero_stage} ({backend.source}); several roles need ZeRO-1/2")
        fsdp2 = backend.kind == "fsdp" and backend.fsdp_version == 2
        if fsdp2 and backend.use_orig_params is False:
            yield finding("FF607", ex.path, where, alg.key,
                          f"{alg.key} trains roles {list(roles)} on FSDP2 with "
                          f"use_orig_params false ({backend.source})")


def check_role_optimizers(facts: Facts) -> Iterator[Finding]:
    """FF608 a role without an ``optimizers:`` entry; FF609 an entry that names no role."""
    for ex, alg, roles in _multirole_examples(facts, any_roles=False):
        entries = list(_optimizer_entries(ex))
        if not entries:
            continue  # no list: every role takes the algorithm's defaults (FF505 asks for one)
        names = [e.get("name", "default") for _, e in entries]
        for role in roles:
            if role not in names:
                yield finding("FF608", ex.path, ex.line("optimizers"), alg.key,
                              f"role {role!r} of {alg.key} has no optimizers entry "
                              f"(entries: {names})",
                              f"add `- name: {role}` with max_grad_norm to optimizers")
        for keys, entry in entries:
            name = entry.get("name", "default")
            if name not in roles:
                yield finding("FF609", ex.path, ex.line(*keys, "name"), alg.key,
                              f"optimizers entry {name!r} names no role of {alg.key} "
                              f"(roles: {list(roles)})",
                              f"rename it to one of {', '.join(roles)} or remove it")


def _multirole_examples(facts: Facts, *, any_roles: bool):
    for ex in facts.examples:
        if not isinstance(ex.data, dict):
            continue
        alg = facts.algorithm(ex.trainer_type)
        if alg is None or alg.args_cls is None:
            continue
        roles, _ = facts.roles(alg.args_cls)
        if any_roles or (roles is not None and len(roles) > 1):
            yield ex, alg, roles


def _optimizer_entries(ex) -> Iterator[tuple[tuple, dict]]:
    opts = ex.data.get("optimizers")
    if isinstance(opts, dict):
        yield ("optimizers",), opts
    elif isinstance(opts, list):
        for i, entry in enumerate(opts):
            if isinstance(entry, dict):
                yield ("optimizers", i), entry


def _backend(view, ex) -> _Backend:
    """Read the accelerate config an example names; else guess from its file name."""
    path = ex.data.get("config_file")
    if not isinstance(path, str) or not path:
        return _Backend(None)
    text = view.read(path)
    if text is None:
        return _backend_from_name(path)
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return _Backend(None, source=path)
    if not isinstance(data, dict):
        return _Backend(None, source=path)
    kind = str(data.get("distributed_type", "")).upper()
    if kind == "DEEPSPEED":
        ds = data.get("deepspeed_config") if isinstance(data.get("deepspeed_config"), dict) else {}
        stage = ds.get("zero_stage")
        if stage is None and isinstance(ds.get("deepspeed_config_file"), str):
            stage = _json_zero_stage(view, ds["deepspeed_config_file"])
        return _Backend("deepspeed", zero_stage=_int(stage), source=path)
    if kind == "FSDP":
        fsdp = data.get("fsdp_config") if isinstance(data.get("fsdp_config"), dict) else {}
        orig = fsdp.get("fsdp_use_orig_params")
        return _Backend("fsdp", fsdp_version=_int(fsdp.get("fsdp_version", 1)),
                        use_orig_params=orig if isinstance(orig, bool) else None, source=path)
    if kind in ("MULTI_GPU", "NO", ""):
        return _Backend("ddp" if kind == "MULTI_GPU" else None, source=path)
    return _Backend(None, source=path)


def _backend_from_name(path: str) -> _Backend:
    name = path.lower().rsplit("/", 1)[-1]
    if "deepspeed" in path.lower() or "zero" in name:
        stage = next((s for s in (3, 2, 1) if f"zero{s}" in name or f"zero_{s}" in name
                      or f"stage{s}" in name), None)
        return _Backend("deepspeed", zero_stage=stage, source=path)
    if "fsdp" in name:
        return _Backend("fsdp", fsdp_version=2 if "fsdp2" in name else None, source=path)
    return _Backend(None, source=path)


def _json_zero_stage(view, path: str) -> int | None:
    import json

    text = view.read(path)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    zero = data.get("zero_optimization") if isinstance(data, dict) else None
    return _int(zero.get("stage")) if isinstance(zero, dict) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _torch_upper_bound(view) -> tuple[int, int] | None:
    """The highest torch (major, minor) the checkout's pyproject allows, when it caps it."""
    import re

    text = view.read("pyproject.toml") or ""
    caps = []
    for spec in re.findall(r"""["']torch\s*([<=~][^"';]*)["']""", text):
        for op, major, minor in re.findall(r"(==|<=|<|~=)\s*(\d+)\.(\d+)", spec):
            version = (int(major), int(minor))
            # "<2.9" allows at most 2.8; "==", "<=" and "~=" (within a minor) allow that minor
            caps.append((version[0], version[1] - 1) if op == "<" else version)
    return min(caps) if caps else None


RULES = (*RULES, check_backends, check_role_optimizers)
