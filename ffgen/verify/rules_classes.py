"""Rules over the args and trainer classes of each algorithm (FF201-FF204, FF301-FF305, FF401-2)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ffgen.verify.catalogue import CONTRACT_CONSTANTS, PARADIGMS, finding
from ffgen.verify.extensions import class_docstring, documents_extension, sanctioned_extensions
from ffgen.verify.facts import BASE_ARGS, OFFLINE_ARGS, Algorithm, Declared, Facts, class_key
from ffgen.verify.index import ClassInfo, walk
from ffgen.verify.model import WARNING, Finding

PROGRESS_ATTRS = ("step", "epoch", "data_epoch", "cycle_index", "progress", "global_step")
PROGRESS_CALLS = ("advance_acquisition", "advance_optimizer_step")
APPLY_STEP = "_apply_optimizer_step"


def check_contracts(facts: Facts) -> Iterator[Finding]:
    """FF202 (named constant) for both classes, then FF201 (same contract)."""
    for alg in facts.algorithms:
        classes = [c for c in (alg.args_cls, alg.trainer_cls) if c is not None]
        bad = [f for c in classes for f in _contract_constant(facts, alg, c)]
        yield from bad
        if bad or len(classes) != 2:
            continue
        a, t = facts.contract(alg.args_cls), facts.contract(alg.trainer_cls)
        if a.value != t.value:
            path, line = _contract_site(alg, a, t)
            yield finding(
                "FF201", path, line, alg.key,
                f"{alg.trainer_cls.name} resolves to {t.value}{_via(t, alg.trainer_cls)} but "
                f"{alg.args_cls.name} to {a.value}{_via(a, alg.args_cls)}",
                f"declare the same constant on both (`execution_contract: "
                f"ClassVar[ExecutionContract] = {a.value}`)",
            )


def _contract_site(alg: Algorithm, a: Declared, t: Declared) -> tuple[str, int]:
    """Point at the trainer's own declaration, else the args class's, else the trainer class."""
    if t.owner is alg.trainer_cls:
        return t.owner.path, t.line
    if a.owner is alg.args_cls:
        return a.owner.path, a.line
    return alg.trainer_cls.path, alg.trainer_cls.line


def _via(d: Declared, cls: ClassInfo) -> str:
    return "" if d.owner is cls or d.owner is None else f" (inherited from {d.owner.name})"


def _contract_constant(facts: Facts, alg: Algorithm, cls: ClassInfo) -> Iterator[Finding]:
    d = facts.contract(cls)
    if d.value is not None:
        return
    if d.owner is None:
        yield finding(
            "FF202", cls.path, cls.line, alg.key,
            f"{cls.name} has no execution_contract anywhere in its bases",
            "declare `execution_contract: ClassVar[ExecutionContract] = <CONSTANT>`",
        )
        return
    shown = ast.unparse(d.assign.value) if d.assign and d.assign.value else "nothing"
    yield finding(
        "FF202", d.owner.path, d.line, alg.key,
        f"{d.owner.name}.execution_contract = {shown} is not one of "
        f"{', '.join(CONTRACT_CONSTANTS)}",
    )


def check_paradigm(facts: Facts) -> Iterator[Finding]:
    """FF203 (declared, valid) and FF204 (coupled needs generation + runtime_reward)."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None:
            continue
        d = facts.class_value(t, "paradigm")
        if d.value not in PARADIGMS:
            declared = d.owner is not None and d.value is not None
            yield finding(
                "FF203", (d.owner or t).path if declared else t.path,
                d.line if declared else t.line, alg.key,
                f"{t.name}.paradigm is {d.value!r}; expected one of {', '.join(PARADIGMS)}"
                if declared else f"{t.name} declares no paradigm (BaseTrainer's is None)",
            )
            continue
        contract = facts.contract(t).value
        if d.value == "coupled" and contract not in (None, "ONLINE_EXECUTION_CONTRACT"):
            yield finding(
                "FF204", d.owner.path, d.line, alg.key,
                f"{t.name} is coupled but its contract is {contract}",
            )


def check_start_and_progress(facts: Facts) -> Iterator[Finding]:
    """FF301 (start override) and FF302 (manual progress; a warning where the count holds)."""
    for alg in facts.algorithms:
        if alg.trainer_cls is None:
            continue
        own = facts.own_classes(alg.trainer_cls)
        for owner in own:
            if "start" in owner.methods:
                yield finding(
                    "FF301", owner.path, owner.methods["start"].lineno, alg.key,
                    f"{owner.name} overrides start(); the shared loop owns it",
                )
        helper = next((c for c in own if _calls(c, APPLY_STEP)), None)
        for owner in own:
            for fn in owner.methods.values():
                for line, what in _progress_writes(fn):
                    yield _progress_finding(alg, owner, fn, line, what, helper)


def _progress_finding(
    alg: Algorithm, owner: ClassInfo, fn: ast.AST, line: int, what: str,
    helper: ClassInfo | None,
) -> Finding:
    where = f"{owner.name}.{fn.name}"
    if what != "writes self.step":
        return finding("FF302", owner.path, line, alg.key, f"{where} {what} by hand")
    if helper is not None:
        return finding(
            "FF302", owner.path, line, alg.key,
            f"{where} advances self.step although {helper.name} calls {APPLY_STEP}(), which "
            "already advances it: every optimizer step counts twice",
            f"delete the assignment; {APPLY_STEP} advances step",
        )
    if not _steps_optimizer(fn):
        return finding(
            "FF302", owner.path, line, alg.key,
            f"{where} advances self.step without stepping an optimizer",
        )
    return finding(
        "FF302", owner.path, line, alg.key,
        f"{where} advances self.step by hand around its own optimizer step; the count holds, "
        f"but {APPLY_STEP} is the preferred helper",
        "replace optimizer.step()/zero_grad() and the step update with "
        f"self.{APPLY_STEP}(loss_info) when accelerator.sync_gradients",
        severity=WARNING,
    )


def _calls(cls: ClassInfo, name: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
        for fn in cls.methods.values() for n in walk(fn)
    )


def _steps_optimizer(fn: ast.AST) -> bool:
    """``<...optimizer...>.step()`` in ``fn`` (self.optimizer, an optimizers[role], a local)."""
    for n in walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "step":
            if "optimizer" in ast.unparse(n.func.value).lower():
                return True
    return False


def _progress_writes(fn: ast.AST) -> Iterator[tuple[int, str]]:
    for node in walk(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            attr = _self_attr(t)
            if attr:
                yield node.lineno, f"writes self.{attr}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in PROGRESS_CALLS:
                yield node.lineno, f"calls {node.func.attr}()"


def _self_attr(t: ast.expr) -> str | None:
    """``self.step`` / ``self.progress.x`` -> the counter's name."""
    if not isinstance(t, ast.Attribute):
        return None
    chain = []
    node: ast.expr = t
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if not (isinstance(node, ast.Name) and node.id == "self"):
        return None
    chain.reverse()
    if chain[0] in PROGRESS_ATTRS or (chain[0] == "runtime_state" and "progress" in chain):
        return ".".join(chain)
    return None


def check_hooks(facts: Facts) -> Iterator[Finding]:
    """FF303 (generation: optimize + sample) and FF304 (dataset: optimize_batch only)."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        acq = facts.acquisition(t) if t is not None else None
        if acq == "generation":
            missing = [m for m in ("optimize", "sample") if facts.own_method(t, m) is None]
            if missing:
                yield finding(
                    "FF303", t.path, t.line, alg.key,
                    f"{t.name} uses generated acquisition but does not implement "
                    f"{' or '.join(m + '()' for m in missing)}",
                )
        elif acq == "dataset":
            yield from _dataset_hooks(facts, alg, t)


def _dataset_hooks(facts: Facts, alg: Algorithm, t: ClassInfo) -> Iterator[Finding]:
    if facts.own_method(t, "optimize_batch") is None:
        yield finding(
            "FF304", t.path, t.line, alg.key,
            f"{t.name} uses dataset acquisition but does not implement optimize_batch()",
        )
    for name in ("optimize", "sample"):
        owner = facts.own_method(t, name)
        if owner is not None:
            yield finding(
                "FF304", owner.path, owner.methods[name].lineno, alg.key,
                f"{owner.name} defines {name}(), which dataset acquisition never calls",
            )


def check_inheritance(facts: Facts) -> Iterator[Finding]:
    """FF305: trainer-to-trainer inheritance only for a sanctioned strict extension: a child the
    checkout lists (GRPO-Guard from GRPO, ...), or a trainer within a sanctioned parent's MRO
    whose docstring documents the extension (``ffgen new --extends`` writes one)."""
    declared = sanctioned_extensions(facts.index.view)
    parents = tuple(dict.fromkeys(declared.values()))
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None:
            continue
        ancestors = [c for c in facts.own_classes(t)[1:] if facts.is_trainer_class(c)]
        if not ancestors or _within(facts, declared.get(alg.key, ""), ancestors):
            continue
        parent = next((p for p in parents if _within(facts, p, ancestors)), None)
        if parent is None:
            listed = ", ".join(f"{c} from {p}" for c, p in declared.items())
            gone = [p for p in parents if facts.algorithm(p) is None
                    and any(c.module.rpartition(".")[2] == p.replace("-", "_")
                            for c in ancestors)]  # the parent's own module, by its key
            # a sanctioned parent removed from the registries (`remove --force`): say so, or the
            # line reads as if an extension of it were refused
            why = (f"; {' and '.join(gone)} {'is' if len(gone) == 1 else 'are'} not registered "
                   "in this checkout, so nothing can extend "
                   f"{'it' if len(gone) == 1 else 'them'}" if gone else "")
            yield finding(
                "FF305", t.path, t.line, alg.key,
                f"{t.name} inherits trainer {ancestors[0].name}; only strict extensions of "
                f"{' and '.join(parents)} are sanctioned ({listed}){why}",
            )
            continue
        parent_cls = facts.algorithm(parent).trainer_cls
        if not documents_extension(_docstring(facts, t), parent, parent_cls.name):
            yield finding(
                "FF305", t.path, t.line, alg.key,
                f"{t.name} extends {parent_cls.name} ({parent}) without documenting the strict "
                "extension: its docstring must say it is a strict extension of "
                f"{parent_cls.name} and why BaseTrainer plus shared helpers is not enough",
                f'open the class docstring with "a strict extension of {parent_cls.name}" and '
                "the reason",
            )


def _within(facts: Facts, parent_key: str, ancestors: list[ClassInfo]) -> bool:
    """Every trainer ancestor lies in the MRO of ``parent_key``'s trainer."""
    parent = facts.algorithm(parent_key) if parent_key else None
    if parent is None or parent.trainer_cls is None:
        return False
    allowed = {id(c) for c in facts.index.mro(parent.trainer_cls)}
    return all(id(c) in allowed for c in ancestors)


def _docstring(facts: Facts, cls: ClassInfo) -> str | None:
    """The class's docstring, read from its module (the index keeps no docstrings)."""
    text = facts.index.view.read(cls.path)
    try:
        tree = ast.parse(text or "")
    except (SyntaxError, RecursionError):
        return None
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.name
                 and n.lineno == cls.line), None)
    return class_docstring(node)


def check_args_base(facts: Facts) -> Iterator[Finding]:
    """FF401: dataset args inherit the offline base; generation args do not."""
    for alg in facts.algorithms:
        a = alg.args_cls
        acq = facts.acquisition(a) if a is not None else None
        if acq is None:
            continue
        offline = facts.index.is_subclass(a, OFFLINE_ARGS)
        if acq == "dataset" and not offline:
            msg = f"{a.name} selects dataset acquisition but does not inherit {OFFLINE_ARGS}"
        elif acq == "generation" and offline:
            msg = f"{a.name} selects generated acquisition but inherits {OFFLINE_ARGS}"
        else:
            continue
        yield finding("FF401", a.path, a.line, alg.key, msg)


def check_trainer_type(facts: Facts) -> Iterator[Finding]:
    """FF402: the trainer_type default (and Literal) matches the class's registry keys."""
    seen = facts.seen_set("FF402")
    for alg in facts.algorithms:
        a = alg.args_cls
        if a is None or class_key(a) in seen:
            continue
        seen.add(class_key(a))
        found = facts.index.lookup(a, "trainer_type")
        if found is None or found[0].name == BASE_ARGS:
            continue
        owner, assign = found
        keys = facts.keys_for_args(a)
        default = _field_default(facts, owner, assign.value)
        literal = _literal_values(assign.annotation)
        where = owner.path, assign.line
        inherited = "" if owner is a else f" (inherited from {owner.name})"
        if isinstance(default, str) and default not in keys:
            yield finding(
                "FF402", *where, alg.key,
                f"{a.name}.trainer_type defaults to {default!r}{inherited} but its registry "
                f"key is {' / '.join(map(repr, keys))}",
                f"set the default to {keys[0]!r}",
            )
        elif literal is not None and set(keys) - set(literal):
            missing = sorted(set(keys) - set(literal))
            yield finding(
                "FF402", *where, alg.key,
                f"{a.name}.trainer_type is Literal{list(literal)}{inherited} but key(s) "
                f"{missing} also select it",
                "list every key of the class in the Literal",
            )


def _field_default(facts: Facts, owner: ClassInfo, value: ast.expr | None) -> object:
    if isinstance(value, ast.Call):
        for kw in value.keywords:
            if kw.arg == "default":
                return facts.index.literal(owner.module, kw.value)
        return None
    return facts.index.literal(owner.module, value)


def _literal_values(annotation: ast.expr | None) -> tuple[str, ...] | None:
    if not isinstance(annotation, ast.Subscript):
        return None
    head = annotation.value
    name = head.id if isinstance(head, ast.Name) else getattr(head, "attr", "")
    if name != "Literal":
        return None
    inner = annotation.slice
    elts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
    return tuple(e.value for e in elts if isinstance(e, ast.Constant))


RULES = (
    check_contracts,
    check_paradigm,
    check_start_and_progress,
    check_hooks,
    check_inheritance,
    check_args_base,
    check_trainer_type,
)
