"""The sandbox, the faithful fixture and the templates cannot drift from the real interface.

The facts about the real Flow-Factory interface (the version ffgen targets) live in
``tests/fixtures/flow_factory_api.json`` (format: ``tests/fixtures/README.md``). Everything here is
static (``ast``): no sandbox, fixture or generated code is imported.

What is compared
  * the sandbox's ``BaseTrainer`` (``trainers/abc.py``) and ``BaseAdapter`` (``models/abc.py``),
    member by member, against the real classes with everything they inherit;
  * the public top-level functions (by signature) and classes (by name) of the sandbox's
    shared helper modules (``HELPER_MODULES``) against the real modules of the same dotted name.

A sandbox member the real interface has must have a compatible signature. A public sandbox
member the real interface lacks is not allowed at all (``test_mirror_fidelity.py`` counts them,
over every mirrored class and module; sandbox conveniences live in sandbox-only modules such as
``flow_factory.sandbox_support`` or on the toy adapter). Private sandbox members (``_name``) the
real interface lacks are implementation details: no template may use them. Dunder members other
than ``__init__`` are not compared.

Compatibility of a sandbox member S with the real member R of the same name
  1. Kind. Data members (class attributes, attributes assigned on ``self``, properties) are
     interchangeable: reading them looks the same. A callable is never compatible with a data
     member. Callables keep their binding (instance method, ``staticmethod``, ``classmethod``)
     and S is a ``contextmanager`` exactly when R is.
  2. Parameters, after dropping the bound first parameter (``self``/``cls``) of instance and
     class methods:
     a. the positional-or-keyword parameters have the same names in the same order;
     b. the keyword-only parameters have the same names (in any order);
     c. S has ``*args`` exactly when R does, and ``**kwargs`` exactly when R does;
     d. a parameter both have is required in S exactly when it is required in R (S may neither
        add a required parameter nor give a default to one the real one requires);
     e. the relaxations of a-c: a parameter only one side has is accepted when it is optional
        there and the other side absorbs it (``*args`` and ``**kwargs`` for a positional
        parameter, ``**kwargs`` for a keyword-only one); and a real hook that takes only
        ``(*args, **kwargs)`` (``BaseAdapter.forward``/``inference``/``rollout``: each model
        adapter defines the concrete parameters) accepts any sandbox signature.
  So every call written against the sandbox binds the same way on the real class, and a
  subclass that overrides S with S's parameters is called correctly by the real framework.

The faithful fixture (``tests/fixtures/faithful_checkout``) must agree exactly with the facts for
the modules it models (``FAITHFUL_MODULES``): the same public functions with the same signature
text, the same public classes with the same bases, methods (signature and decorators) and class
attributes (with the same annotations, compared as ``ast`` prints them), for
``BaseTrainer``/``BaseAdapter`` the same attributes assigned on ``self`` (across their bases),
and the packages in ``FAITHFUL_PACKAGES`` re-export the same names (each from a fixture module
that defines it). Modules another part of the fixture models only in part
(``FAITHFUL_PARTIAL_MODULES``) must give each function they define its real signature.

Templates: every legal classification is rendered; the generated trainer may not read a sandbox
member beyond the real interface (``self.<m>``, ``self.adapter.<m>``, or ``<m>`` on an adapter
alias) unless the generated class defines or assigns it itself, and may not import a helper the
real module lacks.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
API_FILE = REPO / "tests" / "fixtures" / "flow_factory_api.json"
SANDBOX = REPO / "templates" / "sandbox" / "src"
FAITHFUL = REPO / "tests" / "fixtures" / "faithful_checkout" / "src"
DOC = REPO / "docs" / "sandbox-api.md"

TRAINER = ("flow_factory.trainers.abc", "BaseTrainer")
ADAPTER = ("flow_factory.models.abc", "BaseAdapter")
HELPER_MODULES = (
    "flow_factory.trainers.common.dpo_objective",
    "flow_factory.trainers.common.flow_matching",
    "flow_factory.trainers.common.forward_kwargs",
    "flow_factory.trainers.common.offline_batch",
    "flow_factory.trainers.common.state_validation",
    "flow_factory.trainers.forward_process",
    "flow_factory.trainers.distillation.distillation_runtime",
    "flow_factory.trainers.distillation.opd.common",
    "flow_factory.utils.trajectory_collector",
    "flow_factory.models.condition_state",
    "flow_factory.models.output_state",
    "flow_factory.data_utils.loader",
    "flow_factory.data_utils.offline_dataset",
    "flow_factory.data_utils.offline_train_data",
    "flow_factory.data_utils.schema",
)
# Modules the faithful fixture models completely (functions, classes, methods).
FAITHFUL_MODULES = (
    "flow_factory.trainers.abc",
    "flow_factory.trainers.multirole.checkpointing",
    "flow_factory.trainers.multirole.backend",
    "flow_factory.trainers.common.dpo_objective",
    "flow_factory.trainers.common.flow_matching",
    "flow_factory.trainers.common.forward_kwargs",
    "flow_factory.trainers.common.offline_batch",
    "flow_factory.trainers.common.replay_batching",
    "flow_factory.trainers.common.sample_prefetch",
    "flow_factory.trainers.common.state_validation",
    "flow_factory.trainers.forward_process",
    "flow_factory.trainers.distillation.opd.common",
    "flow_factory.utils.trajectory_collector",
    "flow_factory.models.abc",
    "flow_factory.models.condition_state",
    "flow_factory.models.model_bundle",
    "flow_factory.models.output_state",
    "flow_factory.models.variants",
    "flow_factory.samples.references",
    "flow_factory.samples.samples",
    "flow_factory.samples.trajectory",
    "flow_factory.hparams.optimizer_args._base",
    "flow_factory.hparams.optimizer_args._registry",
    "flow_factory.hparams.optimizer_args.adamw",
    "flow_factory.hparams.optimizer_args.muon",
    *(f"flow_factory.hparams.training_args.{m}" for m in (
        "_base", "_offline", "_registry", "awm", "crd", "dgpo", "dmd2", "dpo", "dppo", "grpo",
        "nft", "offline_dpo", "opd", "sft", "tdm", "tdm_r1")),
    "flow_factory.data_utils.loader",
    "flow_factory.data_utils.offline_dataset",
    "flow_factory.data_utils.offline_train_data",
    "flow_factory.data_utils.schema",
)
# Modules the fixture models in part: each function it defines must have the real signature.
FAITHFUL_PARTIAL_MODULES = ("flow_factory.trainers.distillation.distillation_runtime",)
FAITHFUL_PACKAGES = (
    "flow_factory.hparams.optimizer_args",
    "flow_factory.hparams.training_args",
    "flow_factory.models",
    "flow_factory.samples",
    "flow_factory.trainers.common",
)
# Classes whose attributes assigned on ``self`` (with their bases') the fixture reproduces.
FAITHFUL_INSTANCE_ATTRIBUTES = (TRAINER, ADAPTER)

KNOWN_DECORATORS = ("property", "setter", "staticmethod", "classmethod", "contextmanager",
                    "abstractmethod")
CALLABLE_KINDS = ("method", "staticmethod", "classmethod", "function")


# ==================================================================== signatures and members
@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "pos" | "kw" | "*" | "**"
    default: bool = False


@dataclass(frozen=True)
class Member:
    name: str
    kind: str  # "method" | "staticmethod" | "classmethod" | "function" | "property" | "data"
    text: str = ""  # the signature in the fixture's notation, for callables and properties
    contextmanager: bool = False

    @property
    def is_callable(self) -> bool:
        return self.kind in CALLABLE_KINDS

    @property
    def params(self) -> tuple[Param, ...]:
        params = parse_params(self.text)
        if self.kind in ("method", "classmethod") and params and params[0].kind == "pos":
            params = params[1:]
        return params


def parse_decorators(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"@(\w+)", text.split("(", 1)[0]))


def parse_params(text: str) -> tuple[Param, ...]:
    """``"@d (a, b=, *args, c, **kw)"`` -> parameters (``*`` alone only marks keyword-only)."""
    inner = text[text.index("(") + 1 : text.rindex(")")]
    params: list[Param] = []
    keyword_only = False
    for raw in (p.strip() for p in inner.split(",")):
        if not raw:
            continue
        if raw.startswith("**"):
            params.append(Param(raw[2:], "**"))
        elif raw.startswith("*"):
            keyword_only = True
            if raw != "*":
                params.append(Param(raw[1:], "*"))
        else:
            default = raw.endswith("=")
            params.append(Param(raw.rstrip("="), "kw" if keyword_only else "pos", default))
    return tuple(params)


def member_from_text(name: str, text: str) -> Member:
    decorators = set(parse_decorators(text))
    if decorators & {"property", "setter"}:
        kind = "property"
    elif "staticmethod" in decorators:
        kind = "staticmethod"
    elif "classmethod" in decorators:
        kind = "classmethod"
    else:
        kind = "method"
    return Member(name, kind, text, "contextmanager" in decorators)


def function_member(name: str, text: str) -> Member:
    """A module-level function (no bound parameter)."""
    return Member(name, "function", text, "contextmanager" in parse_decorators(text))


def signature_text(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A function's signature in the fixture's notation (known decorators only)."""
    decorators = []
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in KNOWN_DECORATORS:
            decorators.append(name)
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    first_default = len(positional) - len(a.defaults)
    parts = [p.arg + ("=" if i >= first_default else "") for i, p in enumerate(positional)]
    if a.vararg is not None:
        parts.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        parts.append("*")
    parts += [p.arg + ("" if d is None else "=") for p, d in zip(a.kwonlyargs, a.kw_defaults,
                                                                 strict=True)]
    if a.kwarg is not None:
        parts.append("**" + a.kwarg.arg)
    return "".join(f"@{d} " for d in decorators) + f"({', '.join(parts)})"


def incompatibility(s: Member, r: Member) -> str | None:
    """Why sandbox member ``s`` does not fit real member ``r`` (None: compatible; see the rule)."""
    if not s.is_callable and not r.is_callable:
        return None
    if s.is_callable != r.is_callable:
        return f"sandbox has a {s.kind}, the real one a {r.kind}"
    if s.kind != r.kind:
        return f"sandbox has a {s.kind}, the real one a {r.kind}"
    if s.contextmanager != r.contextmanager:
        return "contextmanager on one side only"
    sp, rp = s.params, r.params
    if sorted(p.kind for p in rp) == ["*", "**"]:
        return None  # a fully variadic real hook: each model defines the real parameters
    s_var = {p.kind for p in sp if p.kind in ("*", "**")}
    r_var = {p.kind for p in rp if p.kind in ("*", "**")}
    problems = []
    for var, label in (("*", "*args"), ("**", "**kwargs")):
        if (var in s_var) != (var in r_var):
            problems.append(f"{label} on one side only")
    s_pos = [p for p in sp if p.kind == "pos"]
    r_pos = [p for p in rp if p.kind == "pos"]
    for i, (x, y) in enumerate(zip(s_pos, r_pos, strict=False)):
        if x.name != y.name:
            problems.append(f"positional parameter {i + 1} is {x.name!r}, the real one "
                            f"{y.name!r}")
        elif x.default != y.default:
            problems.append(_default_problem(x))
    both_var = s_var & r_var
    for extra, side in ((s_pos[len(r_pos):], "sandbox"), (r_pos[len(s_pos):], "real")):
        for p in extra:
            if not (p.default and both_var == {"*", "**"}):
                problems.append(f"only the {side} one has positional {p.name!r}")
    s_kw = {p.name: p for p in sp if p.kind == "kw"}
    r_kw = {p.name: p for p in rp if p.kind == "kw"}
    for name in sorted(s_kw.keys() & r_kw.keys()):
        if s_kw[name].default != r_kw[name].default:
            problems.append(_default_problem(s_kw[name]))
    for only, side in ((s_kw.keys() - r_kw.keys(), "sandbox"), (r_kw.keys() - s_kw.keys(), "real")):
        pool = s_kw if side == "sandbox" else r_kw
        for name in sorted(only):
            if not (pool[name].default and "**" in both_var):
                problems.append(f"only the {side} one has keyword-only {name!r}")
    return "; ".join(problems) or None


def _default_problem(p: Param) -> str:
    if p.default:
        return f"sandbox gives {p.name!r} a default the real one lacks"
    return f"sandbox makes {p.name!r} required"


# ==================================================================== the real interface (facts)
@cache
def api() -> dict:
    return json.loads(API_FILE.read_text(encoding="utf-8"))["modules"]


def api_class_module(name: str, prefer: str) -> str | None:
    """The fixture module defining class ``name`` (``prefer`` first, else the only one)."""
    if name in api().get(prefer, {}).get("classes", {}):
        return prefer
    found = [m for m, v in api().items() if name in v["classes"]]
    return found[0] if len(found) == 1 else None


def real_mro(module: str, name: str) -> list[tuple[str, str]]:
    out, todo = [], [(module, name)]
    while todo:
        mod, cls = todo.pop(0)
        if (mod, cls) in out:
            continue
        out.append((mod, cls))
        for base in api()[mod]["classes"][cls]["bases"]:
            found = api_class_module(base.rsplit(".", 1)[-1], mod)
            if found is not None:
                todo.append((found, base.rsplit(".", 1)[-1]))
    return out


@cache
def real_interface(module: str, name: str) -> dict[str, Member]:
    """Every member of the real class, inherited ones included (nearest definition wins)."""
    members: dict[str, Member] = {}
    for mod, cls in real_mro(module, name):
        facts = api()[mod]["classes"][cls]
        for m, text in facts["methods"].items():
            members.setdefault(m, member_from_text(m, text))
        for m in [*facts["class_attributes"], *facts["instance_attributes"]]:
            members.setdefault(m, Member(m, "data"))
    return members


def real_module_has(module: str, name: str) -> Member | None:
    facts = api().get(module)
    if facts is None:
        return None
    if name in facts["functions"]:
        return function_member(name, facts["functions"][name])
    if name in facts["classes"] or name in facts["names"] or name in facts["imported"]:
        return Member(name, "data")
    return None


# ==================================================================== checkouts read with ast
@dataclass
class ClassFacts:
    name: str
    bases: list[str]
    methods: dict[str, str]  # name -> signature text (the last definition wins)
    class_attributes: set[str]
    instance_attributes: set[str]
    annotations: dict[str, str] = field(default_factory=dict)  # class attribute -> its text

    def members(self) -> dict[str, Member]:
        out = {m: member_from_text(m, t) for m, t in self.methods.items()}
        for m in self.class_attributes | self.instance_attributes:
            out.setdefault(m, Member(m, "data"))
        return out


@dataclass
class ModuleFacts:
    path: Path
    tree: ast.Module
    functions: dict[str, str]
    classes: dict[str, ClassFacts]
    names: set[str]
    imports: dict[str, tuple[str, str]]  # local name -> (absolute module, name)


def module_path(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*parts, *([target] if target else [])])


def self_targets(node: ast.AST) -> Iterator[str]:
    """Attribute names assigned on ``self`` by one assignment target."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == "self":
        yield node.attr
    elif isinstance(node, (ast.Tuple, ast.List)):
        for elt in node.elts:
            yield from self_targets(elt)
    elif isinstance(node, ast.Starred):
        yield from self_targets(node.value)


def class_facts(node: ast.ClassDef) -> ClassFacts:
    methods: dict[str, str] = {}
    class_attributes: set[str] = set()
    instance_attributes: set[str] = set()
    annotations: dict[str, str] = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods[item.name] = signature_text(item)
            for sub in ast.walk(item):
                targets = []
                if isinstance(sub, ast.Assign):
                    targets = sub.targets
                elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
                    targets = [sub.target]
                for t in targets:
                    instance_attributes.update(self_targets(t))
        elif isinstance(item, ast.Assign):
            class_attributes.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            class_attributes.add(item.target.id)
            annotations[item.target.id] = ast.unparse(item.annotation)
    bases = [ast.unparse(b) for b in node.bases]
    return ClassFacts(node.name, bases, methods, class_attributes, instance_attributes,
                      annotations)


@cache
def read_module(root: Path, module: str) -> ModuleFacts | None:
    path = module_path(root, module)
    if path is None:
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return module_facts(tree, module, path.name == "__init__.py", path)


def module_facts(tree: ast.Module, module: str, is_package: bool, path: Path) -> ModuleFacts:
    functions, classes, names, imports = {}, {}, set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = signature_text(node)
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = class_facts(node)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            source = (resolve_relative(module, is_package, node.level, node.module)
                      if node.level else node.module or "")
            for alias in node.names:
                imports[alias.asname or alias.name] = (source, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = (alias.name, "")
    return ModuleFacts(path, tree, functions, classes, names, imports)


def checkout_mro(root: Path, module: str, name: str) -> list[ClassFacts]:
    """The class and its bases that the checkout itself defines (followed through imports)."""
    out: list[ClassFacts] = []
    todo = [(module, name)]
    while todo:
        mod, cls = todo.pop(0)
        facts = read_module(root, mod)
        if facts is None or cls not in facts.classes:
            if facts is not None and cls in facts.imports:
                todo.insert(0, facts.imports[cls])
            continue
        c = facts.classes[cls]
        if c in out:
            continue
        out.append(c)
        for base in c.bases:
            base = base.rsplit(".", 1)[-1]
            if base in facts.classes:
                todo.append((mod, base))
            elif base in facts.imports:
                todo.append(facts.imports[base])
    return out


def checkout_interface(root: Path, module: str, name: str) -> dict[str, Member]:
    members: dict[str, Member] = {}
    for c in checkout_mro(root, module, name):
        for m, member in c.members().items():
            members.setdefault(m, member)
    return members


# ==================================================================== findings
def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_compared(name: str) -> bool:
    return name == "__init__" or not (name.startswith("__") and name.endswith("__"))


@dataclass(frozen=True)
class Finding:
    owner: str  # "BaseTrainer", "BaseAdapter" or a module
    member: str
    problem: str
    sandbox: str = ""
    real: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.owner}.{self.member}"

    def __str__(self) -> str:
        sigs = f" [sandbox {self.sandbox} | real {self.real}]" if self.sandbox or self.real else ""
        return f"{self.qualified}: {self.problem}{sigs}"


def sandbox_findings() -> tuple[list[Finding], set[str]]:
    """Members that break the rule, and the qualified names of every sandbox member beyond the
    real interface (extensions and private internals)."""
    findings: list[Finding] = []
    beyond: set[str] = set()
    for module, cls in (TRAINER, ADAPTER):
        real = real_interface(module, cls)
        for name, member in sorted(checkout_interface(SANDBOX, module, cls).items()):
            if not is_compared(name):
                continue
            if name not in real:
                beyond.add(f"{cls}.{name}")
                continue
            why = incompatibility(member, real[name])
            if why:
                findings.append(Finding(cls, name, why, member.text, real[name].text))
    for module in HELPER_MODULES:
        facts = read_module(SANDBOX, module)
        if facts is None:
            continue
        defined = {**{f: function_member(f, t) for f, t in facts.functions.items()},
                   **{c: Member(c, "data") for c in facts.classes}}
        for name, member in sorted(defined.items()):
            real = real_module_has(module, name)
            if real is None:
                beyond.add(f"{module}.{name}")
                continue
            why = incompatibility(member, real)
            if why:
                findings.append(Finding(module, name, why, member.text, real.text))
    return findings, beyond


# ==================================================================== tests: sandbox vs facts
def test_fixture_covers_what_the_tests_compare():
    for module in {TRAINER[0], ADAPTER[0], *HELPER_MODULES, *FAITHFUL_MODULES,
                   *FAITHFUL_PARTIAL_MODULES, *FAITHFUL_PACKAGES}:
        assert module in api(), f"{API_FILE.name} lacks {module}; rerun make_api_fixture.py"
    trainer = real_interface(*TRAINER)
    adapter = real_interface(*ADAPTER)
    # A few facts that section 0 of the interface notes turn on.
    assert "num_replay_steps" not in adapter
    assert adapter["add_named_parameters"].text == (
        "(self, name, target_components=, device=, overwrite=)")
    assert adapter["get_replay_step"].text == "(self, batch, step_index)"
    assert "get_train_step_indices" in adapter
    assert trainer["step"].kind == "property"
    assert "_declared_runtime_child_names" in trainer
    assert "model_bundle" in trainer and "role_optimization" in trainer


@pytest.mark.parametrize(
    ("s", "r", "ok"),
    [
        ("(self, batch, i)", "(self, batch, step_index)", False),
        ("(self, name, source=)", "(self, name, target_components=, device=, overwrite=)", False),
        ("(self)", "(self, args)", False),
        ("(self, x=)", "(self, x)", False),
        ("(self, x)", "(self, x=)", False),
        ("(self, *, a=, **kw)", "(self, **kw)", True),
        ("(self, *, a, **kw)", "(self, **kw)", False),
        ("(self, *args, **kw)", "(self, *args, **kw)", True),
        ("(self, **kw)", "(self, x, *args, **kw)", False),
        ("(self, state, times, batch)", "(self, *args, **kw)", True),
        ("@contextmanager (self)", "(self)", False),
        ("@staticmethod (x)", "(self, x)", False),
        ("@classmethod (cls, a)", "@classmethod (klass, a)", True),
        ("@property (self)", "@setter (self, value)", True),
    ],
)
def test_compatibility_rule(s, r, ok):
    assert (incompatibility(member_from_text("m", s), member_from_text("m", r)) is None) is ok


def test_sandbox_members_fit_the_real_interface():
    """Every compared sandbox member the real interface has is compatible with it."""
    findings, _ = sandbox_findings()
    assert not findings, "sandbox members that differ from the real interface:\n" + "\n".join(
        map(str, findings))


# ==================================================================== tests: faithful vs facts
def _class_differences(module: str, name: str, facts: ClassFacts | None) -> list[str]:
    real = api()[module]["classes"][name]
    where = f"{module}.{name}"
    if facts is None:
        return [f"{where}: missing"]
    out = []
    if [b.rsplit(".", 1)[-1] for b in facts.bases] != [b.rsplit(".", 1)[-1]
                                                         for b in real["bases"]]:
        out.append(f"{where}: bases {facts.bases} != {real['bases']}")
    for m in sorted(real["methods"].keys() | facts.methods.keys()):
        got, want = facts.methods.get(m), real["methods"].get(m)
        if got != want:
            out.append(f"{where}.{m}: fixture {got} != real {want}")
    if facts.class_attributes != set(real["class_attributes"]):
        out.append(f"{where}: class attributes differ: "
                   f"extra {sorted(facts.class_attributes - set(real['class_attributes']))}, "
                   f"missing {sorted(set(real['class_attributes']) - facts.class_attributes)}")
    for attr, text in sorted(real["class_attributes"].items()):
        want = _annotation_of(text)
        got = facts.annotations.get(attr)
        if want is not None and got is not None and not _same_annotation(got, want):
            out.append(f"{where}.{attr}: annotated {got!r}, the real one {want!r}")
    return out


def _annotation_of(text: str) -> str | None:
    """The annotation in a recorded class attribute (``"int = ..."``, ``"int"``, ``"= ..."``)."""
    text = text.removesuffix("= ...").strip()
    return text or None


def _same_annotation(got: str, want: str) -> bool:
    """Equal once both are spelled the way ``ast`` prints them (quotes, spacing)."""
    try:
        return ast.unparse(ast.parse(got, mode="eval")) == ast.unparse(ast.parse(want,
                                                                                 mode="eval"))
    except SyntaxError:
        return got == want


def _assigned_on_self(mro: list[tuple[str, ClassFacts | dict]]) -> set[str]:
    """Attributes assigned on ``self`` across a class and its bases, minus methods, properties,
    class attributes and dunders (assigning those creates no new member)."""
    assigned, defined = set(), set()
    for _, c in mro:
        if isinstance(c, ClassFacts):
            assigned |= c.instance_attributes
            defined |= set(c.methods) | c.class_attributes
        else:
            assigned |= set(c["instance_attributes"])
            defined |= set(c["methods"]) | set(c["class_attributes"])
    return {a for a in assigned - defined if not (a.startswith("__") and a.endswith("__"))}


def test_faithful_fixture_agrees_with_the_facts():
    problems: list[str] = []
    for module in FAITHFUL_MODULES:
        facts = read_module(FAITHFUL, module)
        real = api()[module]
        if facts is None:
            problems.append(f"{module}: no such module in the faithful fixture")
            continue
        public = {f: t for f, t in facts.functions.items() if not f.startswith("_")}
        for f in sorted(public.keys() | real["functions"].keys()):
            if public.get(f) != real["functions"].get(f):
                problems.append(f"{module}.{f}: fixture {public.get(f)} != real "
                                f"{real['functions'].get(f)}")
        classes = {c for c in facts.classes if not c.startswith("_")}
        if classes != set(real["classes"]):
            problems.append(f"{module}: classes {sorted(classes)} != {sorted(real['classes'])}")
        for name in real["classes"]:
            problems += _class_differences(module, name, facts.classes.get(name))
    for module in FAITHFUL_PARTIAL_MODULES:
        facts = read_module(FAITHFUL, module)
        for f, text in sorted((facts.functions if facts else {}).items()):
            want = api()[module]["functions"].get(f)
            if not f.startswith("_") and text != want:
                problems.append(f"{module}.{f}: fixture {text} != real {want}")
    for module, cls in FAITHFUL_INSTANCE_ATTRIBUTES:
        got = _assigned_on_self([("", c) for c in checkout_mro(FAITHFUL, module, cls)])
        want = _assigned_on_self([(m, api()[m]["classes"][c]) for m, c in real_mro(module, cls)])
        if got != want:
            problems.append(f"{cls} assigns on self: extra {sorted(got - want)}, "
                            f"missing {sorted(want - got)}")
    assert not problems, "the faithful fixture drifted from the facts:\n" + "\n".join(problems)


def test_faithful_packages_reexport_the_real_names():
    problems = []
    for package in FAITHFUL_PACKAGES:
        facts = read_module(FAITHFUL, package)
        assert facts is not None, package
        want = set(api()[package]["imported"]) - {"annotations"}
        got = set(facts.imports)
        if got != want:
            problems.append(f"{package}: extra {sorted(got - want)}, missing {sorted(want - got)}")
        for local, (source, name) in sorted(facts.imports.items()):
            origin = read_module(FAITHFUL, source)
            if origin is None or not ({name} & (origin.functions.keys() | origin.classes.keys()
                                                | origin.names | origin.imports.keys())):
                problems.append(f"{package}: {local} comes from {source}, which lacks {name}")
    assert not problems, "\n".join(problems)


def test_faithful_optimizer_entry_defaults_to_adamw():
    base = read_module(FAITHFUL, "flow_factory.hparams.optimizer_args._base")
    node = next(n for n in base.tree.body
                if isinstance(n, ast.ClassDef) and n.name == "OptimizerArguments")
    field = next(n for n in node.body
                 if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "optimizer")
    assert isinstance(field.value, ast.Constant) and field.value.value == "adamw"


# ==================================================================== tests: templates
def _rendered_trainers() -> Iterator[tuple[str, str, str]]:
    """(label, package of the trainer module, source) for every legal classification."""
    from ffgen.classify.names import parse_name
    from ffgen.classify.rules import legal_classifications
    from ffgen.generate import render
    from ffgen.generate.context import build_context

    names = parse_name("my-algo")
    seen: set[str] = set()
    for c in legal_classifications(("toy", "sd3-5")):
        ctx = build_context(names, c)
        source = render.render(render.TRAINER_TEMPLATE, ctx)
        if source in seen:
            continue
        seen.add(source)
        a = c.answers
        label = (f"{ctx.family}/{a.ownership.value}/{a.state.value}/{a.dynamics.value}/"
                 f"{a.finetune_type.value}")
        yield label, f"flow_factory.trainers.{ctx.category}", source


def _defined_by_file_classes(tree: ast.Module) -> dict[str, tuple[set[str], list[str]]]:
    """Class name -> (members it defines or assigns, base names) for the file's classes."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            c = class_facts(node)
            out[node.name] = (set(c.methods) | c.class_attributes | c.instance_attributes,
                              [b.rsplit(".", 1)[-1] for b in c.bases])
    return out


def _template_uses(package: str, source: str, trainer_beyond: set[str],
                   adapter_beyond: set[str], helper_beyond: Callable[[str, str], bool],
                   ) -> Iterator[str]:
    """Uses of members beyond the real interface in one generated trainer module."""
    tree = ast.parse(source)
    facts = module_facts(tree, f"{package}.generated", False, Path("generated.py"))
    for module, name in facts.imports.values():
        if module.startswith("flow_factory") and name and helper_beyond(module, name):
            yield f"imports {module}.{name}"
    classes = _defined_by_file_classes(tree)

    def lineage(name: str, seen: tuple[str, ...] = ()) -> tuple[set[str], set[str]]:
        """Members the file's class and its same-file bases define, and the other bases."""
        defined, bases = classes.get(name, (set(), []))
        roots = set()
        for b in bases:
            if b in classes and b not in seen:
                more, r = lineage(b, (*seen, name))
                defined, roots = defined | more, roots | r
            else:
                roots.add(b)
        return defined, roots

    def adapter_uses(fn: ast.AST, trainer: bool, defined: set[str]) -> Iterator[str]:
        aliases = {"adapter"}
        for sub in ast.walk(fn):
            if isinstance(sub, ast.Assign) and ast.unparse(sub.value) == "self.adapter":
                aliases |= {t.id for t in sub.targets if isinstance(t, ast.Name)}
        for sub in ast.walk(fn):
            if not isinstance(sub, ast.Attribute):
                continue
            owner = ast.unparse(sub.value)
            if trainer and owner == "self" and sub.attr in trainer_beyond \
                    and sub.attr not in defined:
                yield f"self.{sub.attr} (BaseTrainer.{sub.attr})"
            elif (owner == "self.adapter" or owner in aliases) and sub.attr in adapter_beyond:
                yield f"{owner}.{sub.attr} (BaseAdapter.{sub.attr})"

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            defined, roots = lineage(node.name)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield from adapter_uses(item, "BaseTrainer" in roots, defined)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from adapter_uses(node, False, set())


def _beyond_sets() -> tuple[set[str], set[str], Callable[[str, str], bool]]:
    _, beyond = sandbox_findings()
    trainer = {q.split(".", 1)[1] for q in beyond if q.startswith("BaseTrainer.")}
    adapter = {q.split(".", 1)[1] for q in beyond if q.startswith("BaseAdapter.")}

    def helper(module: str, name: str) -> bool:
        """A name the sandbox module defines and the real module (when captured) lacks."""
        sandbox = read_module(SANDBOX, module)
        if sandbox is None or module not in api() or api()[module].get("opaque"):
            return False
        own = sandbox.functions.keys() | sandbox.classes.keys() | sandbox.names
        return name in own and real_module_has(module, name) is None

    return trainer, adapter, helper


def test_template_scan_catches_uses_beyond_the_real_interface():
    source = (
        "from ...data_utils.offline_train_data import resolve_path\n"
        "from ..abc import BaseTrainer\n\n\n"
        "class Mine(BaseTrainer):\n"
        "    def post_init(self):\n"
        "        self.mine = 1\n\n"
        "    def optimize(self, samples):\n"
        "        adapter = self.adapter\n"
        "        adapter.trainable_state_dict()\n"
        "        self.adapter.init_ema()\n"
        "        self.history.append(self.mine)\n"
        "        return self._loss_info, self.mine\n\n\n"
        "def helper(adapter):\n"
        "    return adapter.named_state_dict('x')\n"
    )
    uses = set(_template_uses(
        "flow_factory.trainers.rl", source, {"history", "_loss_info", "mine"},
        {"trainable_state_dict", "init_ema", "named_state_dict"},
        lambda module, name: (module, name) == (
            "flow_factory.data_utils.offline_train_data", "resolve_path"),
    ))
    assert uses == {
        "imports flow_factory.data_utils.offline_train_data.resolve_path",
        "adapter.trainable_state_dict (BaseAdapter.trainable_state_dict)",
        "self.adapter.init_ema (BaseAdapter.init_ema)",
        "self.history (BaseTrainer.history)",
        "self._loss_info (BaseTrainer._loss_info)",
        "adapter.named_state_dict (BaseAdapter.named_state_dict)",
    }


def test_no_template_uses_a_sandbox_extension():
    """Generated trainers touch only members the real interface has (listed extensions and
    private sandbox internals included in what they may not touch)."""
    trainer_beyond, adapter_beyond, helper_beyond = _beyond_sets()
    uses: dict[str, list[str]] = {}
    count = 0
    for label, package, source in _rendered_trainers():
        count += 1
        for use in sorted(set(_template_uses(package, source, trainer_beyond, adapter_beyond,
                                             helper_beyond))):
            uses.setdefault(use, []).append(label)
    assert count > 10, "rendered too few trainers; the enumeration broke"
    lines = [f"{use}: {len(labels)} renders, e.g. {', '.join(labels[:3])}"
             for use, labels in sorted(uses.items())]
    assert not uses, "generated trainers use sandbox members beyond the real interface:\n" + \
        "\n".join(lines)
