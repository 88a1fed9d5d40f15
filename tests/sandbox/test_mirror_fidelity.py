"""The sandbox is a miniature of the real Flow-Factory, at least as strict: drift fails here.

The facts are ``tests/fixtures/flow_factory_api.json`` (format: ``tests/fixtures/README.md``),
which lists every real module (opaque ones by name). A sandbox module whose dotted name is there
with its interface captured is a *mirrored module*; a class in it whose name the real module
defines is a *mirror class*. A dotted name the real package lacks is a *sandbox-only module*: it
may hold anything (the toy model, sandbox conveniences) under names generated code never
imports. Three points are compared:

1. Extras. Every public member of a mirror class (methods, properties, class attributes,
   dataclass fields, attributes assigned on ``self``; inherited ones through the class's own
   sandbox bases) exists on the real class (through its real bases, and the members of library
   bases such as ``nn.Module`` or ``Enum``); the sandbox class has no library base the real one
   lacks (``dict`` would add ``keys()``...). The same holds for a *namesake*, a class of a
   sandbox-only module named like a class the real package defines once (the sandbox's
   ``RewardBuffer``). Every public function, class and constant a mirrored module defines, and
   every name a mirrored package re-exports, exists in the real module.
2. Fields. A mirror dataclass (or ``NamedTuple``) has the real public field names, each
   required exactly when the real one is (no default).
3. Refusals. Every sandbox function or method that mirrors a real one with
   ``refuses_unless_instance`` really refuses: called with a stand-in for that parameter (a
   ``SimpleNamespace``, and a second stand-in of a wrong but plausible type, e.g. a dict for a
   ``LatentState`` or ``1`` for a ``bool``), it raises ``TypeError``/``ValueError`` whose message
   names the parameter or the type, and before touching any other argument: the other required
   arguments are objects that fail loudly when used (or real values from ``VALID_ARGUMENTS``).

Parts 1 and 2 are static (``ast``); part 3 imports the shared sandbox copy (``sandbox_root``).
Each part's test prints its count ("extras: 0", ...), so a run reports the state in one line.
"""

from __future__ import annotations

import ast
import contextlib
import enum
import importlib
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from test_api_fidelity import SANDBOX, api, class_facts, read_module

# Library bases: the public members they give a class (the real fixture does not list them).
_PYDANTIC_MEMBERS = {
    "model_config", "model_fields", "model_computed_fields", "model_extra", "model_fields_set",
    "model_construct", "model_copy", "model_dump", "model_dump_json", "model_json_schema",
    "model_parametrized_name", "model_post_init", "model_rebuild", "model_validate",
    "model_validate_json", "model_validate_strings", "copy", "dict", "json", "parse_obj",
    "parse_raw", "parse_file", "from_orm", "construct", "schema", "schema_json", "validate",
    "update_forward_refs",
}
LIBRARY_BASES: dict[str, Callable[[], set[str]]] = {
    "Module": lambda: set(dir(torch.nn.Module)),
    "Enum": lambda: set(dir(enum.Enum)) | {"name", "value"},
    "str": lambda: set(dir(str)),
    "dict": lambda: set(dir(dict)),
    "tuple": lambda: set(dir(tuple)),
    "NamedTuple": lambda: set(dir(tuple)),
    "TypedDict": lambda: set(dir(dict)),
    "Dataset": lambda: set(dir(torch.utils.data.Dataset)),
    "ValueError": lambda: set(dir(ValueError)),
    "BaseModel": lambda: _PYDANTIC_MEMBERS,
}
# Bases that add no public member.
NEUTRAL_BASES = {"ABC", "object", "Generic", "Protocol"}


def short(base: str) -> str:
    """``nn.Module`` -> ``Module``, ``Generic[StepT]`` -> ``Generic``."""
    return base.split("[", 1)[0].rsplit(".", 1)[-1]


def public(name: str) -> bool:
    return not name.startswith("_")


# ==================================================================== modules
def sandbox_modules() -> list[str]:
    names = []
    for path in sorted((SANDBOX / "flow_factory").rglob("*.py")):
        parts = list(path.relative_to(SANDBOX).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def upstream(module: str) -> str:
    """``captured`` (interface known), ``opaque`` (exists, interface unknown) or ``absent``."""
    facts = api().get(module)
    if facts is None:
        return "absent"
    return "opaque" if facts.get("opaque") else "captured"


def mirrored_modules() -> list[str]:
    return [m for m in sandbox_modules() if upstream(m) == "captured"]


# ==================================================================== the real classes
def real_class(module: str, name: str) -> dict | None:
    facts = api().get(module, {})
    return facts.get("classes", {}).get(name) or facts.get("private_classes", {}).get(name)


@cache
def real_class_homes() -> dict[str, list[str]]:
    homes: dict[str, list[str]] = {}
    for module, facts in api().items():
        for name in [*facts["classes"], *facts.get("private_classes", {})]:
            homes.setdefault(name, []).append(module)
    return homes


@cache
def real_lineage(module: str, name: str) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
    """The real class and its bases the fixture knows (nearest first), and its library bases."""
    out: list[tuple[str, str]] = []
    library: set[str] = set()
    todo = [(module, name)]
    while todo:
        mod, cls = todo.pop(0)
        if (mod, cls) in out:
            continue
        out.append((mod, cls))
        for base in real_class(mod, cls)["bases"]:
            base = short(base)
            homes = [mod] if real_class(mod, base) else real_class_homes().get(base, [])
            if len(homes) == 1:
                todo.append((homes[0], base))
            else:
                library.add(base)
    return tuple(out), frozenset(library)


@cache
def real_members(module: str, name: str) -> frozenset[str]:
    lineage, library = real_lineage(module, name)
    members: set[str] = set()
    for mod, cls in lineage:
        facts = real_class(mod, cls)
        members |= {*facts["methods"], *facts["class_attributes"], *facts["instance_attributes"]}
    for base in library:
        members |= LIBRARY_BASES.get(base, set)()
    return frozenset(members)


def real_module_names(module: str) -> set[str]:
    facts = api()[module]
    return {*facts["functions"], *facts["function_types"], *facts["classes"],
            *facts.get("private_classes", {}), *facts["names"], *facts["imported"]}


# ==================================================================== the sandbox's classes
@dataclass(frozen=True)
class SandboxClass:
    module: str
    node: ast.ClassDef


@cache
def sandbox_lineage(module: str, name: str) -> tuple[tuple[SandboxClass, ...], frozenset[str]]:
    """The sandbox class and the bases the sandbox defines (nearest first), and its library
    bases (those that resolve to no sandbox class)."""
    out: list[SandboxClass] = []
    library: set[str] = set()
    todo = [(module, name)]
    while todo:
        mod, cls = todo.pop(0)
        facts = read_module(SANDBOX, mod) if mod.startswith("flow_factory") else None
        node = None if facts is None else next(
            (n for n in facts.tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if node is None:
            if facts is not None and cls in facts.imports and facts.imports[cls][1]:
                todo.insert(0, facts.imports[cls])
            else:
                library.add(cls)
            continue
        if any(c.module == mod and c.node.name == cls for c in out):
            continue
        out.append(SandboxClass(mod, node))
        for base in node.bases:
            text = ast.unparse(base)
            owner = text.split("[", 1)[0].rsplit(".", 1)[0] if "." in text else ""
            if owner and facts is not None and owner in facts.imports:
                library.add(short(text))  # ``nn.Module``, ``torch.nn.Module``
            else:
                todo.append((mod, short(text)))
    return tuple(out), frozenset(library - NEUTRAL_BASES)


def sandbox_members(module: str, name: str) -> dict[str, str]:
    """Every member the sandbox class and its sandbox bases define -> the defining class."""
    members: dict[str, str] = {}
    for c in sandbox_lineage(module, name)[0]:
        facts = class_facts(c.node)
        for member in [*facts.methods, *facts.class_attributes, *facts.instance_attributes]:
            members.setdefault(member, f"{c.module}.{c.node.name}")
    return members


def real_home(module: str, name: str) -> str | None:
    """The real module defining class ``name`` as seen from ``module``: ``module`` itself, or
    the one module that defines it when ``module`` only imports it (a re-exporting package)."""
    if real_class(module, name) is not None:
        return module
    homes = real_class_homes().get(name, [])
    return homes[0] if name in api()[module]["imported"] and len(homes) == 1 else None


def mirror_classes() -> Iterator[tuple[str, str, str]]:
    """(sandbox module, class, real module) for every mirror class, and for every namesake: a
    class of a sandbox-only module named like a class the real package defines once (the
    sandbox's ``RewardBuffer`` stands in for the real one wherever it lives)."""
    for module in sandbox_modules():
        kind = upstream(module)
        if kind == "opaque":
            continue
        for node in read_module(SANDBOX, module).tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            if kind == "captured":
                home = real_home(module, node.name)
            else:
                homes = real_class_homes().get(node.name, [])
                home = homes[0] if len(homes) == 1 else None
            if home is not None:
                yield module, node.name, home


# ==================================================================== part 1: extras
def class_extras(module: str, name: str, home: str | None = None) -> list[str]:
    home = home or module
    real = real_members(home, name)
    out = [f"{module}.{name}.{m} (from {where})"
           for m, where in sorted(sandbox_members(module, name).items())
           if public(m) and m not in real]
    real_library = real_lineage(home, name)[1] - NEUTRAL_BASES
    for base in sorted(sandbox_lineage(module, name)[1] - real_library):
        out.append(f"{module}.{name}({base}): a library base the real class lacks")
    return out


def sandbox_module_names(module: str) -> dict[str, str]:
    """Public names a sandbox module defines (functions, classes, constants) and, for a
    package, re-exports from ``flow_factory`` modules -> what it is."""
    facts = read_module(SANDBOX, module)
    names = {f: "function" for f in facts.functions}
    names |= {c: "class" for c in facts.classes}
    names |= {n: "constant" for n in facts.names if n != "__all__"}
    if facts.path.name == "__init__.py":
        for local, (source, _) in facts.imports.items():
            if source.startswith("flow_factory"):
                names.setdefault(local, f"re-export from {source}")
    return {n: kind for n, kind in names.items() if public(n)}


def module_extras(module: str) -> list[str]:
    real = real_module_names(module)
    return [f"{module}.{n} ({kind})" for n, kind in sorted(sandbox_module_names(module).items())
            if n not in real]


def all_extras() -> list[str]:
    out = [e for module, name, home in mirror_classes() for e in class_extras(module, name, home)]
    return out + [e for module in mirrored_modules() for e in module_extras(module)]


# ==================================================================== part 2: fields
def _decorated_dataclass(node: ast.ClassDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if short(ast.unparse(target)) == "dataclass":
            return True
    return False


def _required(value: ast.expr | None) -> bool:
    if value is None:
        return True
    if isinstance(value, ast.Call) and short(ast.unparse(value.func)) == "field":
        return not {k.arg for k in value.keywords} & {"default", "default_factory"}
    return False


def sandbox_fields(module: str, name: str) -> dict[str, bool] | None:
    """Public field -> required, for a sandbox dataclass or NamedTuple (else None)."""
    lineage, library = sandbox_lineage(module, name)
    if not (_decorated_dataclass(lineage[0].node) or "NamedTuple" in library):
        return None
    fields: dict[str, bool] = {}
    for c in reversed(lineage):
        for item in c.node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) \
                    and not ast.unparse(item.annotation).startswith("ClassVar"):
                fields[item.target.id] = _required(item.value)
    return {f: r for f, r in fields.items() if public(f)}


def real_fields(module: str, name: str) -> dict[str, bool]:
    fields: dict[str, bool] = {}
    for mod, cls in reversed(real_lineage(module, name)[0]):
        for attr, text in real_class(mod, cls)["class_attributes"].items():
            has_value = text.endswith("= ...")
            annotation = text.removesuffix("= ...").strip()
            if annotation and not annotation.startswith("ClassVar"):
                fields[attr] = not has_value
    return {f: r for f, r in fields.items() if public(f)}


def field_mismatches() -> list[str]:
    out = []
    for module, name, home in mirror_classes():
        ours = sandbox_fields(module, name)
        if ours is None:
            continue
        real = real_fields(home, name)
        where = f"{module}.{name}"
        for f in sorted(ours.keys() - real.keys()):
            out.append(f"{where}.{f}: a field the real class lacks")
        for f in sorted(real.keys() - ours.keys()):
            out.append(f"{where}.{f}: a real field the sandbox lacks")
        for f in sorted(ours.keys() & real.keys()):
            if ours[f] != real[f]:
                want = "required" if real[f] else "defaulted"
                out.append(f"{where}.{f}: the real field is {want}")
    return out


# ==================================================================== part 3: refusals
@dataclass(frozen=True)
class Refusal:
    module: str
    owner: str  # class name, or "" for a module-level function
    function: str
    parameter: str
    type_name: str

    @property
    def qualified(self) -> str:
        owner = f"{self.owner}." if self.owner else ""
        return f"{self.module}.{owner}{self.function}({self.parameter}: {self.type_name})"


def real_refusals() -> list[Refusal]:
    out = []
    for module, facts in sorted(api().items()):
        for function, types in facts["function_types"].items():
            for param, type_name in types.get("refuses_unless_instance", {}).items():
                out.append(Refusal(module, "", function, param, type_name))
        for owner, cls in {**facts["classes"], **facts.get("private_classes", {})}.items():
            for function, types in cls["types"].items():
                for param, type_name in types.get("refuses_unless_instance", {}).items():
                    out.append(Refusal(module, owner, function, param, type_name))
    return out


class Touched(Exception):  # noqa: N818 - it is an event, not an error type
    """A function used an argument before refusing the stand-in (never caught by it)."""


class Untouchable:
    """An argument that raises ``Touched`` on any use: refusing must come first."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _touched(self, *args: Any, **kwargs: Any) -> Any:
        raise Touched(f"used argument {object.__getattribute__(self, '_name')!r}")

    __getattr__ = __call__ = __iter__ = __len__ = __getitem__ = __bool__ = _touched
    __setattr__ = __contains__ = __eq__ = __float__ = __int__ = __index__ = _touched
    __hash__ = None  # type: ignore[assignment]


def stand_ins(type_name: str) -> list[Any]:
    """A ``SimpleNamespace``, and a wrong but plausible value of another type."""
    plausible: dict[str, Any] = {
        "bool": 1, "int": 1.5, "str": 1, "list": (), "dict": [("key", 1)],
        "Mapping": [("key", 1)], "torch.Tensor": [0.0, 1.0],
    }
    return [SimpleNamespace(), plausible.get(type_name, {"latent": torch.zeros(2, 8)})]


def type_words(type_name: str) -> list[str]:
    """Words a refusal message may use for ``type_name`` (``torch.Tensor`` -> ``Tensor``)."""
    return [short(w.strip()) for w in type_name.strip("()").split(",") if w.strip()]


def sandbox_target(sandbox: Any, r: Refusal) -> tuple[Any, Any] | None:
    """(owner object, attribute) in the imported sandbox, or None when it does not model it."""
    try:
        module = importlib.import_module(r.module)
    except ImportError:
        return None
    owner = getattr(module, r.owner, None) if r.owner else module
    if owner is None or (r.owner and getattr(owner, "__module__", "") != r.module):
        return None
    if r.owner:
        for klass in owner.__mro__:
            if r.function in vars(klass):
                return owner, vars(klass)[r.function]
        return None
    function = getattr(owner, r.function, None)
    return None if function is None else (owner, function)


# Real values for arguments a refusal check may not replace with an Untouchable (a function
# whose other checks legitimately run first, or whose other refused parameters need valid
# values). Each entry: (module, owner, function) -> builder(context) -> {parameter: value}.
def _latent(context: dict) -> Any:
    from flow_factory.samples import LatentState

    return LatentState({"latent": torch.zeros(2, 8)})


VALID_ARGUMENTS: dict[tuple[str, str, str], Callable[[dict], dict[str, Any]]] = {
    ("flow_factory.trainers.common.flow_matching", "", "build_noised_output_state"):
        lambda c: {"adapter": c["adapter"], "clean_state": _latent(c),
                   "primary_timesteps": torch.full((2,), 0.5), "batch": {}},
    ("flow_factory.trainers.common.flow_matching", "", "flow_matching_per_sample_loss"):
        lambda c: {"adapter": c["adapter"], "predicted_velocity": _latent(c),
                   "noised": c["adapter"].add_forward_process_noise(
                       _latent(c), c["adapter"].build_training_component_times(
                           torch.full((2,), 0.5)))},
    ("flow_factory.trainers.common.state_validation", "", "require_latent_state"):
        lambda c: {"trainer": c["trainer"], "identifier": "state"},
}
# Instances the methods of a class are called on (default: a bare ``object.__new__``).
INSTANCES: dict[tuple[str, str], Callable[[dict], Any]] = {
    ("flow_factory.models.abc", "BaseAdapter"): lambda c: c["adapter"],
    ("flow_factory.trainers.abc", "BaseTrainer"): lambda c: c["trainer"],
}


def call_with(r: Refusal, owner: Any, attribute: Any, value: Any, context: dict,
              valid: dict[str, Any]) -> None:
    """Call the sandbox's function with ``value`` for the refused parameter, ``valid`` values
    for the parameters named there and an ``Untouchable`` for every other required one."""
    if isinstance(attribute, property):
        instance = INSTANCES.get((r.module, r.owner), lambda c: object.__new__(owner))(context)
        setattr(instance, r.function, value)
        return
    function = attribute.__func__ if isinstance(attribute, (classmethod, staticmethod)) \
        else attribute
    params = list(inspect.signature(function).parameters.values())
    if r.function == "__init__":
        bound: Any = None
    elif isinstance(attribute, classmethod):
        bound = owner
    elif isinstance(attribute, staticmethod) or not r.owner:
        bound = None
    else:
        bound = INSTANCES.get((r.module, r.owner), lambda c: object.__new__(owner))(context)
    if bound is not None or r.function == "__init__":
        params = params[1:]
    names = {p.name for p in params}
    if r.parameter not in names:
        raise AssertionError(f"the sandbox's {r.function} has no parameter {r.parameter!r}")
    kwargs = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name == r.parameter:
            kwargs[p.name] = value
        elif p.name in valid:
            kwargs[p.name] = valid[p.name]
        elif p.default is p.empty:
            kwargs[p.name] = Untouchable(p.name)
    if r.function == "__init__":
        result = owner(**kwargs)
    elif bound is not None:
        result = function(bound, **kwargs)
    else:
        result = function(**kwargs)
    # A generator or context manager runs its body (and its checks) when first used.
    if inspect.isgenerator(result):
        next(result, None)
    elif isinstance(result, contextlib.AbstractContextManager) and hasattr(result, "gen"):
        with result:
            pass


def _parameter_names(attribute: Any) -> set[str]:
    target = attribute.fset if isinstance(attribute, property) else attribute
    target = getattr(target, "__func__", target)
    return set(inspect.signature(target).parameters)


class SampleKind(enum.Enum):
    """The type given where the refused type is itself a parameter (``_require_enum(value,
    enum_type)``)."""

    ONE = "one"


def refusal_problem(r: Refusal, owner: Any, attribute: Any, context: dict) -> str | None:
    """Why the sandbox's function is looser than the real one (None: it refuses)."""
    build = VALID_ARGUMENTS.get((r.module, r.owner, r.function), lambda c: {})
    try:
        valid = build(context)
    except Exception as exc:  # noqa: BLE001 - reported, not a refusal of the stand-in
        return f"could not build the valid arguments of its table entry: {exc!r}"
    words = [r.parameter, *type_words(r.type_name)]
    if r.type_name in _parameter_names(attribute):
        valid = {**valid, r.type_name: SampleKind}  # the type is an argument of the call
        words.append(SampleKind.__name__)
    for value in stand_ins(r.type_name):
        label = f"a {type(value).__name__} for {r.parameter}"
        try:
            call_with(r, owner, attribute, value, context, valid)
        except (TypeError, ValueError) as exc:
            message = str(exc).lower()
            if not any(w.lower() in message for w in words):
                return f"{label}: {type(exc).__name__} names neither of {words}: {exc}"
            continue
        except Touched as exc:
            return f"{label}: {exc} before refusing"
        except Exception as exc:  # noqa: BLE001 - any other error is not a refusal
            return f"{label}: {type(exc).__name__} instead of a refusal: {exc}"
        return f"{label}: accepted"
    return None


# ==================================================================== tests
def test_the_fixture_knows_every_real_module():
    """Deciding "sandbox-only" needs the real package's module list, opaque modules too."""
    assert upstream("flow_factory.trainers.abc") == "captured"
    assert upstream("flow_factory.rewards") == "opaque"
    assert upstream("flow_factory.data_utils") == "opaque"  # a parent package
    assert upstream("flow_factory.models.toy") == "absent"
    assert upstream("flow_factory.sandbox_support") == "absent"
    assert len(api()) > 140


def test_no_extra_public_members():
    extras = all_extras()
    opaque = [m for m in sandbox_modules() if upstream(m) == "opaque"]
    print(f"extras: {len(extras)} ({sum(1 for _ in mirror_classes())} mirror classes, "
          f"{len(mirrored_modules())} mirrored modules; not comparable, the real interface "
          f"is not captured: {', '.join(opaque)})")
    assert not extras, (
        f"{len(extras)} public sandbox names the real interface lacks (move them to the toy "
        "adapter, a private name or a sandbox-only module):\n" + "\n".join(extras))


def test_dataclasses_have_the_real_fields():
    mismatches = field_mismatches()
    print(f"field mismatches: {len(mismatches)}")
    assert not mismatches, "\n".join(mismatches)


@pytest.fixture()
def refusal_context(sandbox_root, example_config):
    from flow_factory.hparams import Arguments
    from flow_factory.models.toy import ToyAdapter
    from flow_factory.trainers.offline.sft import SFTTrainer

    config = Arguments.from_dict(example_config("sft"))
    adapter = ToyAdapter(config=config, accelerator=SimpleNamespace(device=torch.device("cpu")))
    return {"config": config, "adapter": adapter, "trainer": object.__new__(SFTTrainer)}


def test_no_looser_functions(sandbox_root, refusal_context):
    looser, modelled, not_modelled = [], 0, []
    for r in real_refusals():
        target = sandbox_target(sandbox_root, r)
        if target is None:
            not_modelled.append(r.qualified)
            continue
        modelled += 1
        problem = refusal_problem(r, *target, refusal_context)
        if problem:
            looser.append(f"{r.qualified}: {problem}")
    print(f"looser functions: {len(looser)} of {modelled} modelled refusals "
          f"({len(not_modelled)} real refusals have no sandbox counterpart)")
    assert modelled >= 10, "found too few sandbox counterparts; the lookup broke"
    assert not looser, "\n".join(looser)


# ==================================================================== the checks can fail
def test_extras_check_sees_a_member_beyond_the_real_class(monkeypatch):
    monkeypatch.setattr(
        f"{__name__}.sandbox_members",
        lambda module, name: {"history": "x", "_private": "x", "step": "x"})
    assert class_extras("flow_factory.trainers.abc", "BaseTrainer") == [
        "flow_factory.trainers.abc.BaseTrainer.history (from x)"]


def test_field_check_sees_a_default_the_real_field_lacks():
    real = real_fields("flow_factory.contracts.execution", "ExecutionContract")
    assert real == {"acquisition": True, "feedback": True}


def test_refusal_check_sees_a_loose_function():
    def loose(state, other):
        return state

    def strict(state, other):
        if not isinstance(state, torch.Tensor):
            raise TypeError(f"state must be a Tensor, got {type(state).__name__}")
        return other.shape

    def uses_first(state, other):
        other.shape  # noqa: B018 - touches the other argument first
        raise TypeError("state must be a Tensor")

    def lazy(state, other):
        if not isinstance(state, torch.Tensor):
            raise TypeError("state must be a Tensor")
        yield other

    r = Refusal("m", "", "f", "state", "torch.Tensor")
    assert refusal_problem(r, None, lazy, {}) is None
    assert "accepted" in refusal_problem(r, None, loose, {})
    assert refusal_problem(r, None, strict, {}) is None
    assert "used argument 'other'" in refusal_problem(r, None, uses_first, {})
