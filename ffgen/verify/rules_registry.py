"""Rules over the four edit points: both registries and both re-export modules (FF101-FF109)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ffgen.checkout import layout
from ffgen.verify.catalogue import finding
from ffgen.verify.facts import (
    ARGS_INIT_MODULE,
    ARGS_REGISTRY_MODULE,
    HPARAMS_INIT_MODULE,
    Algorithm,
    Facts,
    class_key,
)
from ffgen.verify.index import ClassInfo, ImportBinding
from ffgen.verify.model import Finding


def check_keys(facts: Facts) -> Iterator[Finding]:
    """FF101 (key sets) and FF102 (lowercase)."""
    a, t = facts.args_registry, facts.trainer_registry
    for alg in facts.algorithms:
        for entry, reg, other in ((alg.args_entry, a, t), (alg.trainer_entry, t, a)):
            if entry is None:
                continue
            if other.get(alg.key) is None:
                yield finding(
                    "FF101", reg.path, entry.line, alg.key,
                    f"key {alg.key!r} is in {_short(reg.path)} but not in {_short(other.path)}",
                    f"add {alg.key!r} to {other.path} (or remove it here)",
                )
            if alg.key != alg.key.lower():
                yield finding(
                    "FF102", reg.path, entry.line, alg.key,
                    f"registry key {alg.key!r} has uppercase letters; lookups lowercase the key",
                    f"rename the key to {alg.key.lower()!r} in both registries",
                )


def check_duplicate_keys(facts: Facts) -> Iterator[Finding]:
    """FF108: a key written twice in one registry literal (Python keeps the last silently)."""
    for reg in (facts.args_registry, facts.trainer_registry):
        first: dict[str, int] = {}
        for entry in reg.entries:
            if entry.key not in first:
                first[entry.key] = entry.line
                continue
            yield finding(
                "FF108", reg.path, entry.line, entry.key,
                f"key {entry.key!r} is in {_short(reg.path)} twice (lines {first[entry.key]} and "
                f"{entry.line}); Python keeps this entry and drops the first without a word",
                f"keep one {entry.key!r} entry in {reg.path}: rename or delete the other",
            )


def check_trainer_paths(facts: Facts) -> Iterator[Finding]:
    """FF103: each trainer path names an existing module file and class."""
    reg = facts.trainer_registry
    for alg in facts.algorithms:
        e = alg.trainer_entry
        if e is None or alg.trainer_cls is not None:
            continue
        value = e.value.value if isinstance(e.value, ast.Constant) else None
        if not isinstance(value, str) or "." not in value:
            msg = f"trainer entry for {alg.key!r} is not a dotted path string"
        elif not facts.index.module_exists(value.rpartition(".")[0]):
            module_file = layout.dotted_to_path(value.rpartition(".")[0])
            msg = f"trainer path {value!r}: module {module_file} does not exist"
        else:
            msg = f"trainer path {value!r}: class {value.rpartition('.')[2]} is not defined there"
        yield finding("FF103", reg.path, e.line, alg.key, msg)


def check_args_imports(facts: Facts) -> Iterator[Finding]:
    """FF104: each args registry value is imported (or defined) in _registry.py."""
    info = facts.index.module(ARGS_REGISTRY_MODULE)
    reg = facts.args_registry
    for alg in facts.algorithms:
        e = alg.args_entry
        if e is None or alg.args_cls is not None or info is None:
            continue
        name = ast.unparse(e.value)
        bound = isinstance(e.value, ast.Name) and e.value.id in info.bindings
        what = "does not resolve to a class" if bound else "is not imported in _registry.py"
        yield finding(
            "FF104", reg.path, e.line, alg.key, f"args class {name} for {alg.key!r} {what}",
            f"add `from .<module> import {name}` to {reg.path}" if not bound else "",
        )


def check_reexports(facts: Facts) -> Iterator[Finding]:
    """FF105 / FF106: each args class is imported and listed in __all__ of both packages."""
    seen = facts.seen_set("FF105")
    for alg in facts.algorithms:
        cls = alg.args_cls
        if cls is None or class_key(cls) in seen:
            continue
        seen.add(class_key(cls))
        yield from _reexport(facts, alg, cls, ARGS_INIT_MODULE, "FF105")
        yield from _reexport(facts, alg, cls, HPARAMS_INIT_MODULE, "FF106")


def _reexport(
    facts: Facts, alg: Algorithm, cls: ClassInfo, module: str, rule_id: str
) -> Iterator[Finding]:
    info = facts.index.module(module)
    if info is None:
        return
    binding = info.bindings.get(cls.name)
    problems = []
    if not isinstance(binding, ImportBinding) or facts.index.resolve(module, cls.name) is None or (
        facts.index.resolve(module, cls.name).cls is not cls
    ):
        problems.append("is not imported")
    if info.all_names is not None and cls.name not in info.all_names:
        problems.append("is missing from __all__")
    if not problems:
        return
    line = binding.line if isinstance(binding, ImportBinding) else info.all_line
    yield finding(
        rule_id, info.path, line, alg.key,
        f"{cls.name} {' and '.join(problems)} in {info.path}",
        f"import {cls.name} in {info.path} and list it in __all__",
    )


def check_bases(facts: Facts) -> Iterator[Finding]:
    """FF107: every base of an algorithm's own classes resolves."""
    seen = facts.seen_set("FF107")
    for alg in facts.algorithms:
        for cls in (alg.args_cls, alg.trainer_cls):
            for owner in facts.own_classes(cls) if cls is not None else ():
                if class_key(owner) in seen:
                    continue
                seen.add(class_key(owner))
                for base in owner.bases:
                    if facts.index.resolve_expr(owner.module, base) is None and not (
                        isinstance(base, ast.Name) and base.id in _BUILTIN_BASES
                    ):
                        yield finding(
                            "FF107", owner.path, base.lineno, alg.key,
                            f"{owner.name}'s base {ast.unparse(base)} does not resolve",
                        )


_BUILTIN_BASES = frozenset({"object", "Exception", "dict", "tuple", "list"})


def _short(path: str) -> str:
    return path.rpartition("/")[2] if path.endswith("_registry.py") else "trainers/registry.py"


def check_package_imports(facts: Facts) -> Iterator[Finding]:
    """FF109: a package ``__init__.py`` of the trainers or the hparams importing from a module
    of its own package that does not exist."""
    index = facts.index
    for package in _packages(facts):
        info = index.module(package)
        if info is None or not info.is_package:
            continue
        for name, binding in info.bindings.items():
            if not isinstance(binding, ImportBinding) or binding.attr is None:
                continue
            target = binding.module
            if not target.startswith(package + ".") or index.module_exists(target):
                continue
            yield finding(
                "FF109", info.path, binding.line, _owner(facts, target),
                f"{info.path} imports {name} from {target}, a module that does not exist; every "
                f"module under {package} fails to import",
            )


def _packages(facts: Facts) -> list[str]:
    """The packages the edit points live in: the trainers' and each category, the hparams'."""
    trainers = "flow_factory.trainers"
    out = [trainers, ARGS_INIT_MODULE, HPARAMS_INIT_MODULE]
    for path in facts.index.view.files(f"{layout.TRAINERS_DIR}/*/__init__.py"):
        out.append(f"{trainers}.{path.split('/')[-2]}")
    return list(dict.fromkeys(out))


def _owner(facts: Facts, module: str) -> str | None:
    """The algorithm whose module it was (the registry may still name it), if any."""
    for key in facts.keys:  # every algorithm, not only this batch's
        entry = facts.trainer_registry.get(key)
        value = getattr(entry.value, "value", None) if entry is not None else None
        if isinstance(value, str) and value.rpartition(".")[0] == module:
            return key
    return None


RULES = (
    check_keys, check_duplicate_keys, check_trainer_paths, check_args_imports, check_reexports,
    check_bases, check_package_imports,
)
# Rules over the whole checkout's files rather than over ``facts.algorithms``: run once when
# verify goes a batch of algorithms at a time.
CHECKOUT_RULES = (check_duplicate_keys, check_package_imports)
