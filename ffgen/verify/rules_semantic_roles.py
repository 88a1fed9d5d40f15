"""Rules over the guide's common failures of setup, CFG and roles (FF705-FF707).

FF705 duplicated initialization, FF706 rollout CFG semantics in offline flow matching (and a
branch CFG the preprocessing never encodes negatives for), FF707 a frozen or time-shifted copy
declared as a live trainable role. What the real built-ins do, rule by rule, is in
``docs/verify.md``; none of them fires on the faithful fixture.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ffgen.verify.catalogue import finding
from ffgen.verify.facts import Algorithm, Facts, class_key
from ffgen.verify.index import ClassInfo, walk
from ffgen.verify.model import WARNING, Finding

INIT = "_initialization"


# --- shared: each trainer's running methods, computed once per run ---------------------------
def run_methods(facts: Facts, cls: ClassInfo) -> list[tuple[ClassInfo, ast.AST]]:
    """``facts.effective_methods(cls)`` (the own methods that run), once per run and class:
    every rule here and every key sharing the trainer asks again."""
    cache = facts.__dict__.setdefault("_run_methods_cache", {})
    if id(cls) not in cache:
        cache[id(cls)] = facts.effective_methods(cls)
    return cache[id(cls)]


INIT_HOOKS = "_build_train_dataloader, _declare_model_variants, _initialize_snapshots or " \
    "_init_reward_model"


# --- FF705: duplicated initialization ---------------------------------------------------------
def check_initialization(facts: Facts) -> Iterator[Finding]:
    """FF705: ``_initialization()`` is BaseTrainer's; trainers neither redefine nor re-run it."""
    for alg in facts.algorithms:
        if alg.trainer_cls is None:
            continue
        for owner in facts.own_classes(alg.trainer_cls):
            yield from _init_override(alg, owner)
            yield from _init_calls(alg, owner)


def _init_override(alg: Algorithm, owner: ClassInfo) -> Iterator[Finding]:
    fn = owner.methods.get(INIT)
    if fn is None:
        return
    if _calls_super(fn, INIT):  # extends the base: the setup still runs once, in order
        yield finding(
            "FF705", owner.path, fn.lineno, alg.key,
            f"{owner.name} overrides {INIT}() and extends BaseTrainer's; the base owns the "
            "dataloader, variant, optimizer, prepare and reward setup",
            f"delete the override and move the extra setup into the hook made for it "
            f"({INIT_HOOKS})",
            severity=WARNING,
        )
        return
    yield finding(
        "FF705", owner.path, fn.lineno, alg.key,
        f"{owner.name} overrides {INIT}() without calling BaseTrainer's: the dataloader, "
        "variants, optimizer, prepare and rewards it sets up are replaced",
    )


def _init_calls(alg: Algorithm, owner: ClassInfo) -> Iterator[Finding]:
    for name, fn in owner.methods.items():
        if name == INIT:
            continue
        for node in walk(fn):
            if isinstance(node, ast.Call) and _method_call(node) == INIT:
                yield finding(
                    "FF705", owner.path, node.lineno, alg.key,
                    f"{owner.name}.{name} calls {INIT}() again; BaseTrainer.__init__ runs it "
                    "once (a second dataloader, optimizer and prepare)",
                    f"delete the call; put extra setup into {INIT_HOOKS}",
                )


def _method_call(call: ast.Call) -> str | None:
    """``self.<name>(...)`` / ``super().<name>(...)`` -> name."""
    f = call.func
    if not isinstance(f, ast.Attribute):
        return None
    owner = f.value
    if isinstance(owner, ast.Name) and owner.id == "self":
        return f.attr
    if isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super":
        return f.attr
    return None


def _calls_super(fn: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
        and isinstance(n.func.value, ast.Call) and getattr(n.func.value.func, "id", "") == "super"
        for n in walk(fn)
    )


# --- FF706: rollout CFG semantics in offline flow matching ------------------------------------
OVERRIDES = "offline_training_forward_overrides"
FORWARD_HELPER = "forward_velocity_state"  # fills kwargs from {**training_args}, then overrides
FORWARD_METHOD = "forward_state"
ROLLOUT_KWARGS = ("training_forward_kwargs", "replay_forward_kwargs", "reference_forward_kwargs")
ROLLOUT_OWNERS = ("training_args", "eval_args")
PREPROCESS_CFG = "get_preprocess_guidance_scale"
OFFLINE_FIX = f"spread the adapter's offline overrides into the forward: **self.adapter.{OVERRIDES}"


def check_offline_cfg(facts: Facts) -> Iterator[Finding]:
    """FF706: dataset trainers' forwards use the adapter's offline overrides, not rollout CFG;
    an args class with an optimize/reference-branch CFG scale encodes negatives for it."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None or facts.acquisition(t) != "dataset":
            continue
        for owner, fn in run_methods(facts, t):
            yield from _offline_forwards(alg, owner, fn)
    yield from _branch_cfg(facts)


def _offline_forwards(alg: Algorithm, owner: ClassInfo, fn: ast.AST) -> Iterator[Finding]:
    for node in walk(fn):
        if not isinstance(node, ast.Call):
            continue
        kind = _forward_kind(node)
        if kind is None:
            continue
        verdict = _cfg_verdict(node, kind)
        if verdict is not None:
            severity, what = verdict
            yield finding(
                "FF706", owner.path, node.lineno, alg.key,
                f"{owner.name}.{fn.name} (dataset acquisition) {what}",
                OFFLINE_FIX, severity=severity,
            )


def _forward_kind(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name) and f.id == FORWARD_HELPER:
        return "helper"
    if isinstance(f, ast.Attribute) and f.attr == FORWARD_HELPER:
        return "helper"
    if isinstance(f, ast.Attribute) and f.attr == FORWARD_METHOD:
        return "adapter"
    return None


def _cfg_verdict(call: ast.Call, kind: str) -> tuple[str | None, str] | None:
    """(severity, what is wrong) for one forward call, or None when it is right or unknowable
    (a ``**name`` spread, e.g. ``overrides = adapter.offline_training_forward_overrides``,
    is not followed: kwargs built elsewhere are never judged)."""
    scale = next((k.value for k in call.keywords if k.arg == "guidance_scale"), None)
    name = FORWARD_HELPER if kind == "helper" else FORWARD_METHOD
    if scale is not None and _mentions_rollout_cfg(scale):
        return None, f"passes the rollout guidance scale ({ast.unparse(scale)}) to {name}()"
    spreads = [k.value for k in call.keywords if k.arg is None]
    if any(_is_overrides(s) for s in spreads):
        return None
    if any(_is_rollout_kwargs(s) for s in spreads):
        return None, (f"spreads the training kwargs (with the rollout guidance_scale) into "
                      f"{name}() without the adapter's {OVERRIDES}")
    if spreads:  # kwargs built elsewhere: cannot tell
        return None
    if scale is not None:
        return WARNING, (f"sets guidance_scale by hand in {name}(); the adapter owns the "
                         f"offline forward arguments ({OVERRIDES})")
    if kind == "helper":
        return None, (f"calls {name}() without the adapter's {OVERRIDES}: its forward "
                      "kwargs come from training_args, so the rollout guidance_scale applies")
    return WARNING, f"calls {name}() without the adapter's {OVERRIDES}"


def _is_overrides(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Attribute):
        return expr.attr == OVERRIDES
    if isinstance(expr, ast.Dict):  # {**adapter.offline_training_forward_overrides, ...}
        return any(k is None and _is_overrides(v)
                   for k, v in zip(expr.keys, expr.values, strict=True))
    if isinstance(expr, ast.Call) and getattr(expr.func, "id", "") == "dict":
        return any(_is_overrides(a) for a in expr.args)
    return False


def _is_rollout_kwargs(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call):
        f = expr.func
        return (f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")) in ROLLOUT_KWARGS
    if isinstance(expr, ast.Dict):  # {**self.training_args}
        return any(k is None and _names_rollout_args(v)
                   for k, v in zip(expr.keys, expr.values, strict=True))
    return False


def _mentions_rollout_cfg(expr: ast.expr) -> bool:
    for node in walk(expr):
        if isinstance(node, ast.Attribute) and node.attr == "guidance_scale":
            if _names_rollout_args(node.value):
                return True
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == PREPROCESS_CFG:
            return True
    return False


def _names_rollout_args(expr: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in ROLLOUT_OWNERS for n in walk(expr))


def _branch_cfg(facts: Facts) -> Iterator[Finding]:
    """A CFG scale for an optimize/reference branch, with no get_preprocess_guidance_scale()
    override: at a weak rollout scale no negative condition is encoded for that branch."""
    seen = facts.seen_set("FF706")  # one finding per field, however many classes inherit it
    for alg in facts.algorithms:
        a = alg.args_cls
        if a is None or facts.own_method(a, PREPROCESS_CFG) is not None:
            continue
        for owner in facts.own_classes(a):
            for name, assign in owner.assigns.items():
                if (class_key(owner), name) in seen:
                    continue
                seen.add((class_key(owner), name))
                if _is_branch_cfg(name) and not _is_classvar(assign.annotation):
                    yield finding(
                        "FF706", owner.path, assign.line, alg.key,
                        f"{owner.name}.{name} scales CFG for an optimize/reference branch but "
                        f"{a.name} does not override {PREPROCESS_CFG}(): with a rollout "
                        "guidance_scale <= 1 no negative condition is encoded for it",
                        f"override {PREPROCESS_CFG}() to return max(self.guidance_scale, "
                        f"self.{name})",
                        severity=WARNING,
                    )


def _is_branch_cfg(name: str) -> bool:
    words = name.lower().split("_")
    return name != "guidance_scale" and (name.endswith("guidance_scale") or "cfg" in words)


def _is_classvar(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return True  # a plain class attribute is no dataclass field
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return (head.id if isinstance(head, ast.Name) else getattr(head, "attr", "")) == "ClassVar"


# --- FF707: a frozen or time-shifted copy as a live trainable role ----------------------------
# Words that name the same model at another time or a frozen copy (the guide: "a reference
# policy, an EMA, an old snapshot, a sampling model"; a distillation teacher).
FROZEN_WORDS = frozenset({
    "ref", "reference", "ema", "teacher", "teachers", "old", "frozen", "prev", "previous",
    "snapshot", "anchor", "slow", "lagged", "sampling",
})
DECLARE_VARIANTS = "declare_component_variants"
ROLE_HOOK = "_optimizer_args_for_role"
SNAPSHOT_FIX = ("drop the role and keep the copy as a snapshot: use_ref_parameters() for the "
                "frozen reference, add_named_parameters()/use_named_parameters() for an old or "
                "EMA copy, declare_variant_snapshot() for a role's EMA")


def check_frozen_roles(facts: Facts) -> Iterator[Finding]:
    """FF707: every live trainable role (variant) is a copy that trains; frozen or time-shifted
    weights are snapshots."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None:
            continue
        for role, path, line in _live_roles(facts, alg):
            evidence = _frozen_evidence(facts, t, role)
            words = sorted(set(re.split(r"[^a-z0-9]+", role.lower())) & FROZEN_WORDS)
            if evidence:
                yield finding(
                    "FF707", path, line, alg.key,
                    f"live trainable role {role!r} of {alg.key} never trains: {evidence}",
                    SNAPSHOT_FIX,
                )
            elif words:
                yield finding(
                    "FF707", path, line, alg.key,
                    f"live trainable role {role!r} of {alg.key} is named as a frozen or "
                    f"time-shifted copy ({', '.join(words)}); a variant carries gradients and "
                    "optimizer state",
                    SNAPSHOT_FIX, severity=WARNING,
                )


def _live_roles(facts: Facts, alg: Algorithm) -> Iterator[tuple[str, str, int]]:
    """(role, path, line): the args class's required roles, then literal variant declarations
    of the trainer."""
    roles, line = facts.roles(alg.args_cls)
    seen: set[str] = set()
    if roles:
        owner = facts.own_method(alg.args_cls, "required_trainable_roles")
        for role in roles:
            seen.add(role)
            yield role, owner.path, line
    for owner, fn in run_methods(facts, alg.trainer_cls):
        for node in walk(fn):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == DECLARE_VARIANTS:
                for role in _literal_roles(facts, owner, node):
                    if role not in seen:
                        seen.add(role)
                        yield role, owner.path, node.lineno


def _literal_roles(facts: Facts, owner: ClassInfo, call: ast.Call) -> tuple[str, ...]:
    arg = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "trainable_variants"), None)
    value = facts.index.literal(owner.module, arg)
    if isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return ()


def _frozen_evidence(facts: Facts, t: ClassInfo, role: str) -> str | None:
    if role in _zero_lr_roles(facts, t):
        return "its default optimizer entry has learning_rate 0"
    for owner, fn in run_methods(facts, t):
        if role in _frozen_variants(fn):
            return f"{owner.name}.{fn.name} turns requires_grad off on its parameters"
    return None


def _zero_lr_roles(facts: Facts, t: ClassInfo) -> set[str]:
    owner = facts.own_method(t, ROLE_HOOK)
    if owner is None:
        return set()
    out: set[str] = set()
    for node in walk(owner.methods[ROLE_HOOK]):
        if isinstance(node, ast.Name) and node.id.endswith("_DEFAULT_OPTIMIZERS"):
            sym = facts.index.resolve(owner.module, node.id)
            value = sym.assign.value if sym is not None and sym.assign is not None else None
            for elt in getattr(value, "elts", ()):
                kw = {k.arg: k.value for k in getattr(elt, "keywords", ())}
                name, lr = _const(kw.get("name")), _const(kw.get("learning_rate"))
                if isinstance(name, str) and isinstance(lr, int | float) and lr == 0:
                    out.add(name)
    return out


def _const(expr: ast.expr | None) -> object:
    return expr.value if isinstance(expr, ast.Constant) else None


def _frozen_variants(fn: ast.AST) -> frozenset[str]:
    """Roles whose ``variant_parameters(role)`` the method collects while it turns
    requires_grad off (``requires_grad_(False)`` or ``.requires_grad = False``); kept on the
    node, like :func:`walk`, since every role of every key asks again."""
    cached = fn.__dict__.get("_ffgen_frozen_variants")
    if cached is None:
        cached = fn._ffgen_frozen_variants = _find_frozen_variants(fn)
    return cached


def _find_frozen_variants(fn: ast.AST) -> frozenset[str]:
    touched: set[str] = set()
    freezes = False
    for node in walk(fn):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "variant_parameters":
            touched |= {a.value for a in node.args if isinstance(_const(a), str)}
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "requires_grad_":
            freezes = freezes or any(_const(a) is False for a in node.args)
        if isinstance(node, ast.Assign) and _const(node.value) is False:
            freezes = freezes or any(getattr(t, "attr", "") == "requires_grad"
                                     for t in node.targets)
    return frozenset(touched) if freezes else frozenset()


RULES = (check_initialization, check_offline_cfg, check_frozen_roles)
