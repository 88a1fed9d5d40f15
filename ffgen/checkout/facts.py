"""Read what ``ffgen new`` needs from a checkout, statically (``ast``; no checkout code runs)."""

from __future__ import annotations

import ast
import dataclasses

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView
from ffgen.errors import TOO_DEEP, RefusedError


@dataclasses.dataclass(frozen=True, slots=True)
class CheckoutFacts:
    """What the checkout defines and registers, read statically."""
    contract_constants: frozenset[str]
    base_args_classes: frozenset[str]  # TrainingArguments, OfflineFlowMatchingTrainingArguments
    args_registry: tuple[tuple[str, str], ...]  # (key, args class name)
    trainer_registry: tuple[tuple[str, str], ...]  # (key, dotted trainer path)
    args_modules: frozenset[str]  # module stems under hparams/training_args/
    trainer_modules: frozenset[str]  # "<category>.<module>" under trainers/
    categories: frozenset[str]  # trainer category packages
    model_types: tuple[str, ...]  # keys of the model registry, when it can be read

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(k for k, _ in self.args_registry) | {k for k, _ in self.trainer_registry}

    @property
    def class_names(self) -> frozenset[str]:
        trainers = {path.rsplit(".", 1)[-1] for _, path in self.trainer_registry}
        return frozenset(c for _, c in self.args_registry) | trainers


def parse_module(view: CheckoutView, rel: str) -> ast.Module:
    text = view.read(rel)
    if text is None:
        raise RefusedError(f"{rel} is missing from the checkout; ffgen needs it")
    try:
        return view.python_tree(rel, text)
    except SyntaxError as exc:  # (a NUL byte: no line number)
        where = f"{rel}:{exc.lineno}" if exc.lineno else rel
        raise RefusedError(f"{where}: does not parse ({exc.msg}); fix it first") from None
    except (RecursionError, MemoryError):
        raise RefusedError(f"{rel}: {TOO_DEEP}; simplify it first") from None


def module_level_names(tree: ast.Module) -> set[str]:
    """Names a module defines or imports at top level."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def find_dict(tree: ast.Module, name: str) -> ast.Dict | None:
    for node in tree.body:
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Dict):
            return value
    return None


def _registry_items(view: CheckoutView, rel: str, name: str) -> tuple[tuple[str, str], ...]:
    found = find_dict(parse_module(view, rel), name)
    if found is None:
        raise RefusedError(f"{rel}: no `{name} = {{...}}` dict literal; ffgen cannot read it")
    items = []
    for k, v in zip(found.keys, found.values, strict=True):
        if isinstance(k, ast.Constant) and isinstance(k.value, str):
            value = v.id if isinstance(v, ast.Name) else getattr(v, "value", "")
            items.append((k.value, str(value)))
    return tuple(items)


def _module_stems(view: CheckoutView, folder: str) -> set[str]:
    return {p.rsplit("/", 1)[-1][:-3] for p in view.files(f"{folder}/*.py")}


def _trainer_modules(view: CheckoutView, categories: set[str]) -> set[str]:
    found = set()
    for cat in categories:
        found |= {f"{cat}.{stem}" for stem in _module_stems(view, f"{layout.TRAINERS_DIR}/{cat}")}
        for sub in view.files(f"{layout.TRAINERS_DIR}/{cat}/*/__init__.py"):
            found.add(f"{cat}.{sub.split('/')[-2]}")
    return found


def _categories(view: CheckoutView) -> set[str]:
    inits = view.files(f"{layout.TRAINERS_DIR}/*/__init__.py")
    return {p.split("/")[-2] for p in inits} - {"common", "multirole", "__pycache__"}


def _model_types(view: CheckoutView) -> tuple[str, ...]:
    if not view.exists(layout.MODEL_REGISTRY):
        return ()
    tree = parse_module(view, layout.MODEL_REGISTRY)
    for node in tree.body:
        value = getattr(node, "value", None)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Dict):
            keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
            if keys and all(isinstance(k, str) for k in keys):
                return tuple(keys)
    return ()


def read_facts(view: CheckoutView) -> CheckoutFacts:
    contracts = module_level_names(parse_module(view, layout.CONTRACTS_EXECUTION))
    bases = module_level_names(parse_module(view, layout.ARGS_BASE))
    if view.exists(layout.ARGS_OFFLINE):
        bases |= module_level_names(parse_module(view, layout.ARGS_OFFLINE))
    categories = _categories(view)
    return CheckoutFacts(
        contract_constants=frozenset(n for n in contracts if n.endswith("_EXECUTION_CONTRACT")),
        base_args_classes=frozenset(n for n in bases if n.endswith("TrainingArguments")),
        args_registry=_registry_items(view, layout.ARGS_REGISTRY, layout.ARGS_REGISTRY_NAME),
        trainer_registry=_registry_items(
            view, layout.TRAINER_REGISTRY, layout.TRAINER_REGISTRY_NAME
        ),
        args_modules=frozenset(_module_stems(view, layout.TRAINING_ARGS_DIR)),
        trainer_modules=frozenset(_trainer_modules(view, categories)),
        categories=frozenset(categories),
        model_types=_model_types(view),
    )
