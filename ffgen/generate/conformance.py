"""Conformance: prove the rendered files use only what the user's Flow-Factory checkout has.

Runs in the plan stage, before anything is written, statically (``ast``; no checkout code runs,
no torch). For every rendered Python file it checks, against the checkout as it would be:

1. each ``flow_factory`` import (absolute or relative) names a module and a name the checkout
   defines or re-exports;
2. each ``self.<member>`` a generated class reads is defined by the class itself or by the
   checkout class it derives from (body, bases, or what they assign on ``self``);
3. each ``self.adapter.<member>`` (or a local alias of the adapter) exists on ``BaseAdapter``;
4. each call of those members, and of imported flow_factory functions and classes, fits the
   checkout's signature;
5. each method a generated class overrides keeps the parameters of the checkout's method,
   because the framework calls it that way;
6. types from the checkout's own annotations: a value whose type is known (a local bound from a
   call whose callee has a return annotation, a class constructor, an annotated parameter, an
   annotated field or property of a typed value, tuple unpacking, a loop over a typed list) is
   held to its class: every member read on it exists there (``LatentState.detach``), every call
   of a method on it fits, and it is not passed where the callee's annotation excludes it (a
   ``LatentState`` for ``values: Mapping[str, torch.Tensor]``). A private helper of a rendered
   file takes, for a parameter its annotation leaves open, the type all its callers pass.

Each checkout module is parsed once per run and classes are resolved only when asked for, so a run
costs a handful of parses however many members the rendered files touch; each rendered file is
walked once for every check.

Rule 6 refuses only what is certain: a type is known only when every binding of the name agrees
(a name tested with ``isinstance`` is left alone), an annotation that is not clearly a checkout
class (``Any``, a protocol, a ``TypeVar``, a name that does not resolve) makes nothing known and
admits anything, and a class deriving from outside the checkout (``dict``, ``torch.nn.Module``)
or defining ``__getattr__`` may be or have anything. A value typed as a base may be a subclass:
a member a rendered ``src/`` subclass has is accepted, a base's method returning the base called
on a subclass gives the subclass, and a base-typed value passed where its subclass is expected is
accepted. Calls into the rendered files' own defs are not checked against ffgen's annotations.

What it cannot see: types beyond what the annotations say (``self.training_args.x`` when the
attribute is assigned on ``self`` unannotated, ``batch["x"]``, mapping values); members behind
``getattr``/``hasattr`` probes (trusted, since the code handles their absence); the members of a
base from another library (torch, a builtin), which may define anything; signatures behind
decorators other than the well-known ones; whether a base parameter an override takes only by
name (``**kwargs``) is ever passed positionally.
"""

from __future__ import annotations

import ast
import builtins
import difflib
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from ffgen.checkout.view import CheckoutView
from ffgen.errors import RefusedError

HINT = "this checkout's Flow-Factory differs from ffgen's templates"
PACKAGE = "flow_factory"
ADAPTER_MODULE = "flow_factory.models.abc"
ADAPTER_CLASS = "BaseAdapter"


@dataclass(frozen=True)
class Finding:
    """One thing a rendered file uses that the checkout does not have (or has differently)."""

    path: str  # the rendered file, relative to the checkout root
    line: int
    member: str  # what was used, e.g. ``BaseAdapter.add_named_parameters``
    problem: str  # e.g. "takes no `source`"
    instead: str  # what the checkout has, e.g. "this checkout has add_named_parameters(...)"

    @property
    def message(self) -> str:
        return f"{self.path}: `{self.member}` {self.problem} ({self.instead}); {HINT}"


def conformance_findings(view: CheckoutView, files: Mapping[str, str]) -> list[Finding]:
    """Every conformance miss of the rendered ``files`` (path -> code) against ``view``.

    ``view`` should already contain the rendered files (an ``Overlay``), so that generated modules
    importing each other resolve. Findings are sorted by file, then position.
    """
    index = Index(view)
    sources = {p: ast.parse(code, filename=p) for p, code in sorted(files.items()) if _is_py(p)}
    for path, tree in sources.items():
        index.seed(path, tree)
    generated = frozenset(sources)
    checks = [FileCheck(index, path, tree, generated) for path, tree in sources.items()]
    index.rendered = [cls for check in checks if check.dotted for cls in check.classes()]
    index.rendered_texts = dict(files)
    found: dict[tuple[str, str, str], Finding] = {}
    for check in checks:
        for f in check.run():
            key = (f.path, f.member, f.problem)
            if key not in found or f.line < found[key].line:  # the first place it happens
                found[key] = f
    return sorted(found.values(), key=lambda f: (f.path, f.line, f.member, f.problem))


def check_conformance(view: CheckoutView, files: Mapping[str, str]) -> None:
    """Refuse (one line, the first miss) unless the rendered files fit the checkout."""
    findings = conformance_findings(view, files)
    if findings:
        raise RefusedError(findings[0].message)


def _is_py(path: str) -> bool:
    return path.endswith(".py")


# --- signatures -----------------------------------------------------------------------------------

POSONLY, POSITIONAL, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = (
    "posonly",
    "positional",
    "var_positional",
    "keyword_only",
    "var_keyword",
)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: str | None = None  # source text of the default; None: required (or * / **)
    # The annotation as written, and the module it is written in (where its names resolve).
    annotation: ast.expr | None = field(default=None, compare=False, repr=False)
    scope: str | None = field(default=None, compare=False, repr=False)

    @property
    def required(self) -> bool:
        return self.default is None and self.kind in (POSONLY, POSITIONAL, KEYWORD_ONLY)


@dataclass(frozen=True)
class Signature:
    name: str
    params: tuple[Param, ...]

    def text(self) -> str:
        parts: list[str] = []
        for i, p in enumerate(self.params):
            if p.kind == KEYWORD_ONLY and not any(q.kind == VAR_POSITIONAL for q in self.params):
                if not any(q.kind == KEYWORD_ONLY for q in self.params[:i]):
                    parts.append("*")
            parts.append(_param_text(p))
            is_last_posonly = p.kind == POSONLY and (
                i + 1 == len(self.params) or self.params[i + 1].kind != POSONLY
            )
            if is_last_posonly:
                parts.append("/")
        return f"{self.name}({', '.join(parts)})"

    def without_first(self) -> Signature:
        """The signature as seen through a bound method (``self``/``cls`` already passed)."""
        if self.params and self.params[0].kind in (POSONLY, POSITIONAL):
            return Signature(self.name, self.params[1:])
        return self

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind in (POSONLY, POSITIONAL))

    def has(self, kind: str) -> bool:
        return any(p.kind == kind for p in self.params)

    def by_name(self, name: str) -> Param | None:
        """The parameter a keyword argument ``name`` binds to (positional-only ones cannot)."""
        for p in self.params:
            if p.name == name and p.kind in (POSITIONAL, KEYWORD_ONLY):
                return p
        return None


def _param_text(p: Param) -> str:
    prefix = {VAR_POSITIONAL: "*", VAR_KEYWORD: "**"}.get(p.kind, "")
    return f"{prefix}{p.name}" + (f"={p.default}" if p.default is not None else "")


def signature_of(name: str, args: ast.arguments, scope: str | None = None) -> Signature:
    params: list[Param] = []

    def add(arg: ast.arg, kind: str, default: ast.expr | None = None) -> None:
        params.append(Param(arg.arg, kind, _default_text(default), arg.annotation, scope))

    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        add(arg, POSONLY if i < len(args.posonlyargs) else POSITIONAL, default)
    if args.vararg:
        add(args.vararg, VAR_POSITIONAL)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        add(arg, KEYWORD_ONLY, default)
    if args.kwarg:
        add(args.kwarg, VAR_KEYWORD)
    return Signature(name, tuple(params))


def _default_text(node: ast.expr | None) -> str | None:
    return None if node is None else ast.unparse(node)


def call_problem(sig: Signature, call: ast.Call) -> str | None:
    """Why ``call`` cannot bind to ``sig`` (already bound), or None. ``*x``/``**x`` splats hide
    what they pass, so only what the explicit arguments show is checked."""
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    splat = any(k.arg is None for k in call.keywords)
    n_pos = sum(not isinstance(a, ast.Starred) for a in call.args)
    positional = sig.positional
    if not sig.has(VAR_POSITIONAL) and n_pos > len(positional):
        return f"takes {_count(len(positional))}, got {n_pos}"
    named = [k.arg for k in call.keywords if k.arg is not None]
    for name in named:
        problem = _keyword_problem(sig, name, positional[:n_pos])
        if problem:
            return problem
    if splat:  # ``**x`` may supply any named parameter
        return None
    given = set(named)
    missing = [p for p in sig.params if p.kind == KEYWORD_ONLY and p.required]
    if not starred:  # ``*x`` may supply any positional one
        missing = [p for p in positional[n_pos:] if p.required] + missing
    missing = [p for p in missing if p.kind == POSONLY or p.name not in given]
    if missing:
        return f"is called without its required `{missing[0].name}`"
    return None


def _keyword_problem(sig: Signature, name: str, filled: tuple[Param, ...]) -> str | None:
    target = sig.by_name(name)
    if target is None:
        if sig.has(VAR_KEYWORD):
            return None
        if any(p.name == name for p in sig.params if p.kind == POSONLY):
            return f"takes `{name}` only positionally"
        return f"takes no `{name}`"
    if target in filled:
        return f"gets `{name}` twice (positionally and by keyword)"
    return None


def _count(n: int) -> str:
    return f"{n} positional argument{'' if n == 1 else 's'}"


def override_problem(base: Signature, over: Signature) -> str | None:
    """Why ``over`` cannot take the calls the framework makes to ``base`` (both bound), or None.

    A base parameter counts as kept when the override takes it at the same position under the
    same name, by name (a keyword-only parameter or ``**kwargs``), or through ``*args, **kwargs``.
    """
    over_pos = over.positional
    catch_all = over.has(VAR_POSITIONAL) and over.has(VAR_KEYWORD)
    for i, p in enumerate(base.positional):
        mine = over_pos[i] if i < len(over_pos) else None
        if mine is not None and (mine.name == p.name or p.kind == POSONLY):
            if p.kind == POSITIONAL and mine.kind == POSONLY:
                return f"taking `{p.name}` only positionally"
            if mine.required and not p.required:
                return f"with `{p.name}` required, which is optional there"
            continue
        if catch_all:
            continue
        if any(q.name == p.name for q in over_pos):
            return f"with `{p.name}` at another position"
        if over.by_name(p.name) is None and not over.has(VAR_KEYWORD):
            return f"without its `{p.name}` parameter"
    # A base's ``*args``/``**kwargs`` promise nothing (``optimize(self, *args, **kwargs)`` is a
    # placeholder each algorithm narrows), so only its named parameters must be kept.
    for p in base.params:
        if p.kind == KEYWORD_ONLY and over.by_name(p.name) is None and not over.has(VAR_KEYWORD):
            return f"without its `{p.name}` parameter"
    return _extra_required(base, over)


def _extra_required(base: Signature, over: Signature) -> str | None:
    """An override parameter the framework never passes must have a default."""
    base_names = {p.name for p in base.params}
    for i, p in enumerate(over.positional):
        beyond = i >= len(base.positional) and not base.has(VAR_POSITIONAL)
        if p.required and beyond and p.name not in base_names:
            return f"with `{p.name}` required, which the framework does not pass"
    for p in over.params:
        if p.kind == KEYWORD_ONLY and p.required and p.name not in base_names:
            if not base.has(VAR_KEYWORD):
                return f"with `{p.name}` required, which the framework does not pass"
    return None


# --- members --------------------------------------------------------------------------------------

METHOD, STATIC, CLASSMETHOD, PROPERTY, ATTRIBUTE, NESTED_CLASS = (
    "method",
    "staticmethod",
    "classmethod",
    "property",
    "attribute",
    "class",
)
FUNCTION_KINDS = (METHOD, STATIC, CLASSMETHOD)
# Decorators that keep the decorated function's parameters (contextmanager changes what the call
# returns, not what it takes). Any other decorator hides the signature: its calls go unchecked.
KEEPS_SIGNATURE = frozenset(
    {
        "abstractmethod",
        "contextmanager",
        "asynccontextmanager",
        "override",
        "final",
        "cache",
        "lru_cache",
        "no_grad",
        "inference_mode",
        "enable_grad",
        "overload",
    }
)
PROPERTY_DECORATORS = frozenset({"property", "cached_property", "abstractproperty"})


@dataclass(frozen=True)
class Member:
    name: str
    kind: str
    owner: str  # the class that defines it
    signature: Signature | None = None  # None: not a function, or a decorator hides it
    # The def (or annotated assignment) and its module: where its annotations come from.
    node: ast.AST | None = field(default=None, compare=False, repr=False)
    scope: str | None = field(default=None, compare=False, repr=False)

    def call_signature(self, through_instance: bool) -> Signature | None:
        """Parameters a call passes explicitly: ``self``/``cls`` are bound already, except for a
        plain method reached through the class."""
        if self.signature is None or self.kind not in FUNCTION_KINDS:
            return None
        if self.kind == CLASSMETHOD or (self.kind == METHOD and through_instance):
            return self.signature.without_first()
        return self.signature


def member_from_def(
    node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str, scope: str | None = None
) -> Member:
    names = [_decorator_name(d) for d in node.decorator_list]
    kind = METHOD
    if "staticmethod" in names:
        kind = STATIC
    elif "classmethod" in names:
        kind = CLASSMETHOD
    elif any(n in PROPERTY_DECORATORS or n in ("setter", "getter", "deleter") for n in names):
        return Member(node.name, PROPERTY, owner, node=node, scope=scope)
    others = [n for n in names if n not in ("staticmethod", "classmethod")]
    visible = all(n in KEEPS_SIGNATURE for n in others)
    signature = signature_of(node.name, node.args, scope) if visible else None
    return Member(node.name, kind, owner, signature, node, scope)


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


# Members every class has through ``object`` (and ABC/Generic machinery): reading them never
# depends on Flow-Factory.
OBJECT_NAMES = frozenset(dir(object)) | {
    "__dict__",
    "__weakref__",
    "__module__",
    "__annotations__",
    "__orig_bases__",
    "__parameters__",
    "__abstractmethods__",
    "_abc_impl",
    "__dataclass_fields__",
    "__dataclass_params__",
    "__match_args__",
    "__slots__",
    "__name__",
    "__qualname__",
    "__mro__",
    "__wrapped__",
}
# External bases known to add nothing beyond OBJECT_NAMES. Any other base from outside
# flow_factory (torch, a builtin such as dict) is unknown: names not found elsewhere are allowed.
PLAIN_EXTERNAL_BASES = frozenset(
    {
        ("builtins", "object"),
        ("abc", "ABC"),
        ("typing", "Generic"),
        ("typing", "Protocol"),
        ("typing_extensions", "Generic"),
        ("typing_extensions", "Protocol"),
    }
)
UNKNOWN = Member("?", ATTRIBUTE, "?")  # exists as far as we can tell, but nothing more is known


# --- the checkout, parsed once --------------------------------------------------------------------


@dataclass(frozen=True)
class Module:
    dotted: str
    path: str | None  # None: a namespace package (a folder without __init__.py)
    is_package: bool
    tree: ast.Module | None  # None: namespace package, or a file that does not parse
    defs: Mapping[str, ast.stmt]  # top-level def / class / assignment
    imports: Mapping[str, tuple[str, str | None]]  # local -> (absolute module, name | None)
    stars: tuple[str, ...]  # absolute modules star-imported
    open_ended: bool  # module __getattr__ or unparsable: names we cannot see may exist


@dataclass(frozen=True)
class Symbol:
    kind: str  # "module" | "class" | "function" | "value" | "external" | "missing"
    module: str  # the defining module (for "missing": the module that lacks it)
    name: str | None  # None for a module
    node: ast.stmt | None = None

    @property
    def qualified(self) -> str:
        return self.module if self.name is None else f"{self.module}.{self.name}"


@dataclass(frozen=True)
class ClassRef:
    module: str
    name: str
    node: ast.ClassDef
    path: str

    @property
    def key(self) -> tuple[str, str, int]:
        return self.module, self.name, self.node.lineno


@dataclass(frozen=True)
class Opaque:
    """A base class we cannot read; ``open`` when it may define any member."""

    label: str
    open: bool


def in_package(dotted: str) -> bool:
    return dotted == PACKAGE or dotted.startswith(PACKAGE + ".")


def dotted_of(path: str) -> str | None:
    """``src/flow_factory/a/b.py`` -> ``flow_factory.a.b``; None outside the package."""
    if not (path.startswith(f"src/{PACKAGE}/") and path.endswith(".py")):
        return None
    dotted = path[len("src/") : -len(".py")].replace("/", ".")
    return dotted.removesuffix(".__init__")


def absolute_module(importer: str | None, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The absolute module an ImportFrom names; None when relative outside a known package."""
    if node.level == 0:
        return node.module
    if importer is None:
        return None
    parts = importer.split(".")
    if not is_package:
        parts = parts[:-1]
    if node.level - 1 > len(parts):
        return None
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def import_table(
    nodes: Iterable[ast.AST], importer: str | None, is_package: bool
) -> tuple[dict[str, tuple[str, str | None]], list[str], list[tuple[ast.ImportFrom, str]]]:
    """(local name -> (module, name)), star-imported modules, and each ImportFrom with its
    absolute module, from the import statements among ``nodes``."""
    table: dict[str, tuple[str, str | None]] = {}
    stars: list[str] = []
    froms: list[tuple[ast.ImportFrom, str]] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    table[alias.asname] = (alias.name, None)
                else:
                    head = alias.name.split(".")[0]
                    table[head] = (head, None)
        elif isinstance(node, ast.ImportFrom):
            module = absolute_module(importer, is_package, node)
            if module is None:
                continue
            froms.append((node, module))
            for alias in node.names:
                if alias.name == "*":
                    stars.append(module)
                else:
                    table[alias.asname or alias.name] = (module, alias.name)
    return table, stars, froms


def _top_level(tree: ast.AST) -> Iterator[ast.stmt]:
    """Module-level statements, looking inside if/try/with blocks but not into defs."""
    pending = list(getattr(tree, "body", []))
    while pending:
        node = pending.pop(0)
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                pending.extend(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                pending.extend(handler.body)


def _definitions(tree: ast.Module) -> dict[str, ast.stmt]:
    defs: dict[str, ast.stmt] = {}
    for node in _top_level(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.setdefault(node.name, node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _target_names(target):
                    defs.setdefault(name, node)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            defs.setdefault(node.target.id, node)
    return defs


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)


class Index:
    """The checkout's modules and classes, each parsed/resolved once per run, on demand."""

    def __init__(self, view: CheckoutView) -> None:
        self.view = view
        self._trees: dict[str, ast.Module | None] = {}  # keyed by path
        self._modules: dict[str, Module | None] = {}  # keyed by dotted name
        # classes keyed by (module, name, line): a nested class may reuse a top-level name
        self._members: dict[tuple[str, str, int], dict[str, Member]] = {}
        self._mros: dict[tuple[str, str, int], tuple[ClassRef | Opaque, ...]] = {}
        self._adapter: ClassRef | None | bool = False  # False: not looked up yet
        self.types = Types(self)
        # classes of the rendered src/ files: they exist at run time (a value a checkout
        # annotation types as their base may be one of them)
        self.rendered: list[ClassRef] = []
        self.rendered_texts: dict[str, str] = {}
        self._signatures: dict[int, Signature | None] = {}
        self._constructors: dict[tuple[str, str, int], Signature | None] = {}

    def seed(self, path: str, tree: ast.Module) -> None:
        """Use an already parsed rendered file instead of parsing the overlay's copy again."""
        self._trees[path] = tree

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            text = self.view.read(path)
            try:
                self._trees[path] = None if text is None else ast.parse(text, filename=path)
            except SyntaxError:
                self._trees[path] = None  # unreadable: treated as open-ended, not as missing
        return self._trees[path]

    def module(self, dotted: str) -> Module | None:
        if dotted not in self._modules:
            self._modules[dotted] = self._load(dotted) if in_package(dotted) else None
        return self._modules[dotted]

    def _load(self, dotted: str) -> Module | None:
        base = "src/" + dotted.replace(".", "/")
        for path, is_package in ((f"{base}.py", False), (f"{base}/__init__.py", True)):
            if self.view.exists(path):
                return self._module_from(dotted, path, is_package)
        if self.view.is_dir(base):
            return Module(dotted, None, True, None, {}, {}, (), False)
        return None

    def _module_from(self, dotted: str, path: str, is_package: bool) -> Module:
        tree = self.tree(path)
        if tree is None:
            return Module(dotted, path, is_package, None, {}, {}, (), True)
        table, stars, _ = import_table(_top_level(tree), dotted, is_package)
        defs = _definitions(tree)
        return Module(
            dotted, path, is_package, tree, defs, table, tuple(stars), "__getattr__" in defs
        )

    # -- names

    def add(self, module: Module) -> None:
        """Register a module under a name of its own (a rendered test file, say)."""
        self._modules[module.dotted] = module

    def resolve(self, dotted: str, name: str, seen: frozenset[str] = frozenset()) -> Symbol:
        """What ``from <dotted> import <name>`` gives, following re-exports through the checkout."""
        if not in_package(dotted):
            return Symbol("external", dotted, name)
        module = self.module(dotted)
        if module is None:
            return Symbol("missing", dotted, None)
        return self.resolve_in(module, name, seen)

    def resolve_in(self, module: Module, name: str, seen: frozenset[str] = frozenset()) -> Symbol:
        key = f"{module.dotted}:{name}"
        if key in seen:  # an import cycle: Python would fail too, but that is not our finding
            return Symbol("external", module.dotted, name)
        seen = seen | {key}
        if name in module.defs:
            return self._defined(module, name)
        if name in module.imports:
            source, original = module.imports[name]
            if original is None:
                return self.module_symbol(source)
            return self.resolve(source, original, seen)
        if in_package(module.dotted) and self.module(f"{module.dotted}.{name}") is not None:
            return Symbol("module", f"{module.dotted}.{name}", None)
        for star in module.stars:
            found = self.resolve(star, name, seen)
            if found.kind != "missing":
                return found
        if module.open_ended:
            return Symbol("external", module.dotted, name)
        return Symbol("missing", module.dotted, name)

    def module_symbol(self, dotted: str) -> Symbol:
        if not in_package(dotted):
            return Symbol("external", dotted, None)
        kind = "module" if self.module(dotted) is not None else "missing"
        return Symbol(kind, dotted, None)

    def _defined(self, module: Module, name: str) -> Symbol:
        node = module.defs[name]
        if isinstance(node, ast.ClassDef):
            return Symbol("class", module.dotted, name, node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Symbol("function", module.dotted, name, node)
        return Symbol("value", module.dotted, name, node)

    def class_ref(self, symbol: Symbol) -> ClassRef | None:
        if symbol.kind != "class" or not isinstance(symbol.node, ast.ClassDef):
            return None
        module = self.module(symbol.module)
        path = module.path if module is not None and module.path else ""
        return ClassRef(symbol.module, symbol.node.name, symbol.node, path)

    def names_in(self, dotted: str) -> list[str]:
        module = self.module(dotted)
        return [] if module is None else sorted({*module.defs, *module.imports})

    # -- classes

    def members(self, cls: ClassRef) -> dict[str, Member]:
        """What the class body defines, plus what its methods assign on ``self``."""
        key = cls.key
        if key not in self._members:
            self._members[key] = _class_members(cls)
        return self._members[key]

    def mro(self, cls: ClassRef) -> tuple[ClassRef | Opaque, ...]:
        """The class and its bases, depth first, left to right (close enough to C3 for lookups)."""
        key = cls.key
        if key not in self._mros:
            self._mros[key] = ()  # guards against a class deriving from itself
            order: list[ClassRef | Opaque] = [cls]
            for base in self.bases(cls):
                for item in self.mro(base) if isinstance(base, ClassRef) else (base,):
                    if item not in order:
                        order.append(item)
            self._mros[key] = tuple(order)
        return self._mros[key]

    def bases(self, cls: ClassRef) -> list[ClassRef | Opaque]:
        module = self.module(cls.module)
        found: list[ClassRef | Opaque] = []
        for expr in cls.node.bases:
            if isinstance(expr, ast.Subscript):  # Generic[T], Base[X]
                expr = expr.value
            symbol = self.symbol_of(expr, module)
            ref = self.class_ref(symbol) if symbol is not None else None
            found.append(ref if ref is not None else _opaque(symbol, expr))
        return found

    def symbol_of(self, expr: ast.expr, module: Module | None) -> Symbol | None:
        """Resolve a Name or dotted Attribute written in ``module`` (a base class, say)."""
        if isinstance(expr, ast.Name):
            if module is None:
                return None
            found = self.resolve_in(module, expr.id)
            if found.kind == "missing" and hasattr(builtins, expr.id):
                return Symbol("external", "builtins", expr.id)
            return found
        if isinstance(expr, ast.Attribute):
            owner = self.symbol_of(expr.value, module)
            if owner is not None and owner.kind == "module":
                return self.resolve(owner.module, expr.attr)
            return owner if owner is not None and owner.kind == "external" else None
        return None

    def lookup(self, cls: ClassRef, name: str, *, skip_self: bool = False) -> Member | None:
        """The member ``name`` on ``cls`` (first definition in its MRO), ``UNKNOWN`` when an
        unreadable base might define it, None when it certainly does not exist."""
        unknown = False
        for item in self.mro(cls)[1 if skip_self else 0 :]:
            if isinstance(item, Opaque):
                unknown = unknown or item.open
                continue
            members = self.members(item)
            found = members.get(name)
            if found is not None:
                return found
            # a class computing its attributes may answer any name
            unknown = unknown or "__getattr__" in members or "__getattribute__" in members
        if unknown or name in OBJECT_NAMES:
            return UNKNOWN
        return None

    def member_names(self, cls: ClassRef) -> list[str]:
        names: set[str] = set()
        for item in self.mro(cls):
            if isinstance(item, ClassRef):
                names |= set(self.members(item))
        return sorted(names)

    def function_signature(self, node: ast.AST, scope: str | None) -> Signature | None:
        """A module-level function's signature (None behind an unknown decorator), once."""
        if id(node) not in self._signatures:
            self._signatures[id(node)] = member_from_def(node, "", scope).signature
        return self._signatures[id(node)]

    def adapter_class(self) -> ClassRef | None:
        if self._adapter is False:
            self._adapter = self.class_ref(self.resolve(ADAPTER_MODULE, ADAPTER_CLASS))
        return self._adapter

    def constructor(self, cls: ClassRef | None) -> Signature | None:
        """What ``Cls(...)`` takes: the first ``__init__`` in the MRO, or the one ``@dataclass``
        generates; None when an unreadable base or a ``__new__`` may decide."""
        if cls is None:
            return None
        if cls.key not in self._constructors:
            self._constructors[cls.key] = self._constructor(cls)
        return self._constructors[cls.key]

    def _constructor(self, cls: ClassRef) -> Signature | None:
        mro = self.mro(cls)
        for i, item in enumerate(mro):
            if isinstance(item, Opaque):
                if item.open:
                    return None
                continue
            members = self.members(item)
            if "__new__" in members:
                return None
            if "__init__" in members:
                init = members["__init__"].call_signature(through_instance=True)
                return None if init is None else Signature(cls.name, init.params)
            options = _dataclass_options(item.node)
            if options is not None and options["init"]:
                return self._dataclass_init(cls.name, mro[i:])
        return Signature(cls.name, ())  # object.__init__: no arguments

    def _dataclass_init(self, name: str, mro: tuple[ClassRef | Opaque, ...]) -> Signature | None:
        """Fields of every dataclass in the MRO, bases first, keyword-only ones last."""
        fields: dict[str, Param] = {}
        for item in reversed(mro):
            if isinstance(item, Opaque):
                if item.open:
                    return None
                continue
            options = _dataclass_options(item.node)
            if options is not None:
                for param in _dataclass_fields(item.node, options["kw_only"], item.module):
                    fields[param.name] = param
        ordered = sorted(fields.values(), key=lambda p: p.kind == KEYWORD_ONLY)
        return Signature(name, tuple(ordered))


def _opaque(symbol: Symbol | None, expr: ast.expr) -> Opaque:
    label = ast.unparse(expr)
    if symbol is None:
        return Opaque(label, open=True)
    if symbol.kind == "missing":  # a flow_factory base the checkout lacks contributes nothing
        return Opaque(label, open=False)
    if symbol.kind == "external":
        return Opaque(label, open=(symbol.module, symbol.name) not in PLAIN_EXTERNAL_BASES)
    return Opaque(label, open=True)  # a computed base (``Base = make()``): anything goes


def _class_members(cls: ClassRef) -> dict[str, Member]:
    members: dict[str, Member] = {}
    for node in cls.node.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            new = member_from_def(node, cls.name, cls.module)
            old = members.get(node.name)
            # a property's setter must not turn it back into a method; overloads keep the last
            if old is None or old.kind != PROPERTY:
                members[node.name] = new
        elif isinstance(node, ast.ClassDef):
            members[node.name] = Member(node.name, NESTED_CLASS, cls.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _target_names(target):
                    members.setdefault(name, Member(name, ATTRIBUTE, cls.name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            members.setdefault(name, Member(name, ATTRIBUTE, cls.name, node=node, scope=cls.module))
    for name in sorted(_assigned_on_self(cls.node)):
        members.setdefault(name, Member(name, ATTRIBUTE, cls.name))
    return members


def _assigned_on_self(node: ast.ClassDef) -> set[str]:
    """Attributes any method stores on its first parameter (``self.x = ...``, ``setattr(self,
    "x", ...)``, ``self.__dict__["x"] = ...``): they exist on instances once that method ran.

    Only statements are visited, never expressions: base classes are the largest modules a run
    reads, and a store on ``self`` is always a statement's target."""
    found: set[str] = set()
    for method in node.body:
        receiver = _first_param(method) if isinstance(method, _FUNCTIONS) else None
        if receiver is None:
            continue
        for stmt in _statements(method.body):
            for target in _store_targets(stmt):
                found.update(_self_store(target, receiver))
    return found


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a body, nested blocks included (if/for/while/with/try/match, inner defs)."""
    pending = list(body)
    while pending:
        stmt = pending.pop()
        yield stmt
        for block in ("body", "orelse", "finalbody"):
            pending.extend(getattr(stmt, block, []))
        for handler in getattr(stmt, "handlers", []):
            pending.extend(handler.body)
        for case in getattr(stmt, "cases", []):
            pending.extend(case.body)


def _store_targets(stmt: ast.stmt) -> Iterator[ast.expr]:
    if isinstance(stmt, ast.Assign):
        yield from stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        yield stmt.target
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        yield from (item.optional_vars for item in stmt.items if item.optional_vars)
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value  # setattr(self, "name", value)
        if _is_name(call.func, "setattr") and len(call.args) > 1:
            yield call


def _self_store(target: ast.expr, receiver: str) -> Iterator[str]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _self_store(element, receiver)
    elif isinstance(target, ast.Starred):
        yield from _self_store(target.value, receiver)
    elif isinstance(target, ast.Attribute) and _is_name(target.value, receiver):
        yield target.attr
    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute):
        if target.value.attr == "__dict__" and _is_name(target.value.value, receiver):
            yield from _constant_str(target.slice)
    elif isinstance(target, ast.Call) and _is_name(target.args[0], receiver):
        yield from _constant_str(target.args[1])


def _first_param(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    if any(_decorator_name(d) == "staticmethod" for d in method.decorator_list):
        return None
    positional = [*method.args.posonlyargs, *method.args.args]
    return positional[0].arg if positional else None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _constant_str(node: ast.AST) -> list[str]:
    return [node.value] if isinstance(node, ast.Constant) and isinstance(node.value, str) else []


# --- dataclass constructors -----------------------------------------------------------------------


def _dataclass_options(node: ast.ClassDef) -> dict[str, bool] | None:
    """``@dataclass`` options (init, kw_only) of a class, or None when it is not a dataclass."""
    for decorator in node.decorator_list:
        if _decorator_name(decorator) != "dataclass":
            continue
        options = {"init": True, "kw_only": False}
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg in options and isinstance(keyword.value, ast.Constant):
                    options[keyword.arg] = bool(keyword.value.value)
        return options
    return None


def _dataclass_fields(node: ast.ClassDef, kw_only: bool, scope: str) -> list[Param]:
    params: list[Param] = []
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = ast.unparse(stmt.annotation)
        if "ClassVar" in annotation:
            continue
        if annotation.endswith("KW_ONLY"):
            kw_only = True
            continue
        options = _field_options(stmt.value)
        if not options.get("init", True):
            continue
        kind = KEYWORD_ONLY if options.get("kw_only", kw_only) else POSITIONAL
        has_default = stmt.value is not None and options.get("has_default", True)
        default = "..." if has_default else None
        params.append(Param(stmt.target.id, kind, default, stmt.annotation, scope))
    return params


def _field_options(value: ast.expr | None) -> dict[str, bool]:
    """What a ``field(...)`` call says about init, kw_only and whether there is a default."""
    if not (isinstance(value, ast.Call) and _decorator_name(value) == "field"):
        return {}
    options: dict[str, bool] = {"has_default": False}
    for keyword in value.keywords:
        if keyword.arg in ("default", "default_factory"):
            options["has_default"] = True
        elif keyword.arg in ("init", "kw_only") and isinstance(keyword.value, ast.Constant):
            options[keyword.arg] = bool(keyword.value.value)
    return options


# --- types from the checkout's annotations --------------------------------------------------------


@dataclass(frozen=True)
class TupleOf:
    """A fixed-length tuple (``Tuple[A, B]``): what unpacking it gives, item by item."""

    items: tuple[Type | None, ...]


@dataclass(frozen=True)
class ItemsOf:
    """An iterable of one item type (``List[A]``, ``Iterator[A]``): what a loop over it gives."""

    item: Type


# What a value is statically known to be: an instance of a checkout class (or of a rendered class
# deriving from one), or a tuple / iterable of such. Everything else is unknown (None).
Type = ClassRef | TupleOf | ItemsOf


@dataclass(frozen=True)
class Expect:
    """What a parameter's annotation admits, where that is clear: checkout classes and a few
    kinds no checkout class can be unless it derives from outside the checkout (``Mapping``,
    ``torch.Tensor``, builtins)."""

    text: str  # the annotation as written
    admits: tuple[ClassRef | str, ...]

    def labels(self) -> list[str]:
        return list(dict.fromkeys(a.name if isinstance(a, ClassRef) else a for a in self.admits))


# Annotation heads, by their last dotted name.
WRAPPERS = frozenset({"ClassVar", "Final", "Annotated", "Required", "NotRequired", "ReadOnly"})
TUPLES = frozenset({"Tuple", "tuple"})
ITERABLES = frozenset(
    {
        "List",
        "list",
        "Sequence",
        "MutableSequence",
        "Iterator",
        "Iterable",
        "Generator",
        "Collection",
        "Set",
        "set",
        "FrozenSet",
        "frozenset",
        "AbstractSet",
        "Deque",
        "deque",
    }
)
MAPPINGS = frozenset(
    {
        "Mapping",
        "MutableMapping",
        "Dict",
        "dict",
        "OrderedDict",
        "DefaultDict",
        "defaultdict",
        "MappingProxyType",
        "ChainMap",
        "Counter",
    }
)
# builtin (or typing alias) -> the kind a value must be; a checkout class is none of them unless
# it derives from outside the checkout
PLAIN_KINDS = {
    "str": "str",
    "bytes": "bytes",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "complex": "complex",
    "list": "list",
    "List": "list",
    "tuple": "tuple",
    "Tuple": "tuple",
    "set": "set",
    "Set": "set",
    "frozenset": "frozenset",
    "FrozenSet": "frozenset",
}
CONTEXT_DECORATORS = frozenset({"contextmanager", "asynccontextmanager"})


def _head(expr: ast.expr) -> str:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ""


def _subscript_args(node: ast.Subscript) -> list[ast.expr]:
    inner = node.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _is_ellipsis(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is Ellipsis


def _union_members(expr: ast.expr) -> list[ast.expr] | None:
    """The members of ``Optional[X]`` (X and None), ``Union[...]`` and ``X | Y``; None when the
    annotation is no union."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return [expr.left, expr.right]
    if isinstance(expr, ast.Subscript):
        head = _head(expr.value)
        if head == "Optional":
            return [*_subscript_args(expr), ast.Constant(None)]
        if head == "Union":
            return _subscript_args(expr)
    return None


class Types:
    """Checkout annotations read as types, each resolved once per run (no checkout code runs).

    Conservative by construction: an annotation that is not clearly a checkout class (or a
    tuple/iterable of them) is unknown, and a parameter annotation that is not clearly
    restrictive admits anything."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._types: dict[tuple[int, str], Type | None] = {}
        self._expects: dict[tuple[int, str], Expect | None] = {}
        # quoted annotations parsed once, kept alive so the ids used as keys stay unique
        self._quoted: dict[int, tuple[ast.expr, ast.expr | None]] = {}

    def unquoted(self, expr: ast.expr | None) -> ast.expr | None:
        """``"LatentState"`` (a forward reference) -> the expression it spells."""
        if not (isinstance(expr, ast.Constant) and isinstance(expr.value, str)):
            return expr
        if id(expr) not in self._quoted:
            try:
                parsed: ast.expr | None = ast.parse(expr.value.strip(), mode="eval").body
            except SyntaxError:
                parsed = None
            self._quoted[id(expr)] = (expr, parsed)
        return self._quoted[id(expr)][1]

    def symbol(self, expr: ast.expr, scope: str) -> Symbol | None:
        module = self.index.module(scope)
        return self.index.symbol_of(expr, module) if module is not None else None

    # -- what a value annotated so is

    def of(self, annotation: ast.expr | None, scope: str | None) -> Type | None:
        if annotation is None or scope is None:
            return None
        key = (id(annotation), scope)
        if key not in self._types:
            self._types[key] = self._type(annotation, scope, 0)
        return self._types[key]

    def _type(self, expr: ast.expr | None, scope: str, depth: int) -> Type | None:
        expr = self.unquoted(expr)
        if expr is None or depth > 8:
            return None
        members = _union_members(expr)
        if members is not None:  # Optional[X] is X (None has no members to read)
            found = {self._type(m, scope, depth + 1) for m in members if not _is_none(m)}
            return found.pop() if len(found) == 1 else None
        if isinstance(expr, ast.Subscript):
            return self._generic_type(expr, scope, depth)
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return None
        symbol = self.symbol(expr, scope)
        if symbol is None:
            return None
        if symbol.kind == "class":
            cls = self.index.class_ref(symbol)
            return None if cls is None or self.is_protocol(cls) else cls
        alias = _alias_value(symbol)
        return self._type(alias, symbol.module, depth + 1) if alias is not None else None

    def _generic_type(self, expr: ast.Subscript, scope: str, depth: int) -> Type | None:
        head, args = _head(expr.value), _subscript_args(expr)
        if head in WRAPPERS:
            return self._type(args[0], scope, depth + 1)
        if head in TUPLES:
            if len(args) == 2 and _is_ellipsis(args[1]):
                item = self._type(args[0], scope, depth + 1)
                return ItemsOf(item) if item is not None else None
            items = tuple(self._type(a, scope, depth + 1) for a in args)
            return TupleOf(items) if any(i is not None for i in items) else None
        if head in ITERABLES:
            item = self._type(args[0], scope, depth + 1)
            return ItemsOf(item) if item is not None else None
        return None  # a mapping, a callable, a generic class: nothing to read from it here

    # -- what a parameter annotated so admits

    def expect(self, annotation: ast.expr | None, scope: str | None) -> Expect | None:
        """None: admits anything (no annotation, ``Any``, a protocol, anything unclear)."""
        if annotation is None or scope is None:
            return None
        key = (id(annotation), scope)
        if key not in self._expects:
            admits = self._admits(annotation, scope, 0)
            text = ast.unparse(self.unquoted(annotation) or annotation)
            self._expects[key] = Expect(text, tuple(admits)) if admits else None
        return self._expects[key]

    def _admits(self, expr: ast.expr | None, scope: str, depth: int) -> list[ClassRef | str] | None:
        expr = self.unquoted(expr)
        if expr is None or depth > 8:
            return None
        if _is_none(expr):
            return []
        members = _union_members(expr)
        if members is not None:
            found: list[ClassRef | str] = []
            for member in members:
                admits = self._admits(member, scope, depth + 1)
                if admits is None:
                    return None
                found.extend(admits)
            return found
        if isinstance(expr, ast.Subscript):
            if _head(expr.value) in WRAPPERS:
                return self._admits(_subscript_args(expr)[0], scope, depth + 1)
            expr = expr.value  # Mapping[str, X] admits what Mapping admits
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return None
        return self._admits_named(expr, scope, depth)

    def _admits_named(
        self, expr: ast.Name | ast.Attribute, scope: str, depth: int
    ) -> list[ClassRef | str] | None:
        symbol = self.symbol(expr, scope)
        if symbol is not None and symbol.kind == "class":
            cls = self.index.class_ref(symbol)
            structural = cls is None or self.is_protocol(cls)
            if structural or "__subclasshook__" in self.index.members(cls):
                return None
            return [cls]
        alias = _alias_value(symbol) if symbol is not None else None
        if alias is not None:
            return self._admits(alias, symbol.module, depth + 1)
        if symbol is not None and symbol.kind in ("function", "value", "module"):
            return None
        # External or unresolved (a checkout may leave typing names unimported under
        # ``from __future__ import annotations``): known only by how it is spelled.
        head, text = _head(expr), ast.unparse(expr)
        source = symbol.module if symbol is not None and symbol.kind == "external" else None
        if head in MAPPINGS:
            return ["Mapping"]
        if text == "torch.Tensor" or (text == "Tensor" and (source or "").startswith("torch")):
            return ["torch.Tensor"]
        if head in PLAIN_KINDS and source in (None, "builtins", "typing"):
            return [PLAIN_KINDS[head]]
        return None

    def admits(self, expect: Expect, cls: ClassRef) -> bool:
        """Whether an instance of ``cls`` can be what ``expect`` admits (True when unsure)."""
        mro = self.index.mro(cls)
        if any(isinstance(item, Opaque) and item.open for item in mro):
            return True  # derives from outside the checkout: may be a dict, a tensor, anything
        names = _class_names(self.index, cls)
        for admitted in expect.admits:
            if isinstance(admitted, ClassRef) and admitted.name in names:
                return True
            # a value typed as a base may be an instance of the admitted subclass
            if isinstance(admitted, ClassRef) and cls.name in _class_names(self.index, admitted):
                return True
            if admitted == "Mapping" and self._mapping_like(cls):
                return True
        return False

    def _mapping_like(self, cls: ClassRef) -> bool:
        """Has the mapping protocol's core, or is registered as a mapping (``X.register(C)``)."""
        names = set(self.index.member_names(cls))
        if {"keys", "__getitem__"} <= names:
            return True
        module = self.index.module(cls.module)
        tree = module.tree if module is not None else None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Call) and _decorator_name(node) == "register":
                if any(_is_name(a, cls.name) for a in node.args):
                    return True
        return any(_decorator_name(d) == "register" for d in cls.node.decorator_list)

    def is_protocol(self, cls: ClassRef) -> bool:
        """A structural type: whatever has its members fits it."""
        return any(_head(_base_expr(b)) == "Protocol" for b in cls.node.bases)

    # -- what reading a member or calling a function gives

    def member(self, member: Member | None) -> Type | None:
        """The type of an annotated attribute or a property's value."""
        if member is None or member is UNKNOWN:
            return None
        if member.kind == ATTRIBUTE and isinstance(member.node, ast.AnnAssign):
            return self.of(member.node.annotation, member.scope)
        if member.kind == PROPERTY and isinstance(member.node, ast.FunctionDef):
            return self.of(member.node.returns, member.scope)
        return None

    def returns(self, node: ast.AST | None, scope: str | None) -> Type | None:
        """What calling a def gives, from its return annotation. A coroutine, a context manager
        or a def behind an unknown decorator gives something else: unknown."""
        if not isinstance(node, ast.FunctionDef):
            return None
        names = {_decorator_name(d) for d in node.decorator_list}
        if names & CONTEXT_DECORATORS or not names <= KEEPS_SIGNATURE | {
            "staticmethod",
            "classmethod",
        }:
            return None
        return self.of(node.returns, scope)


def _class_names(index: Index, cls: ClassRef) -> set[str]:
    """The names of a class and of its checkout (and rendered) bases."""
    return {item.name for item in index.mro(cls) if isinstance(item, ClassRef)}


def _base_expr(expr: ast.expr) -> ast.expr:
    return expr.value if isinstance(expr, ast.Subscript) else expr


def _alias_value(symbol: Symbol | None) -> ast.expr | None:
    """``Alias = Union[...]`` at a module's top level: the aliased annotation."""
    node = symbol.node if symbol is not None and symbol.kind == "value" else None
    value = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        value = node.value
    elif isinstance(node, ast.AnnAssign) and "TypeAlias" in ast.unparse(node.annotation):
        value = node.value
    # only what can spell a type: a constant or a call is a value, not an alias
    return value if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript, ast.BinOp)) else None


# --- checking one rendered file -------------------------------------------------------------------


class FileCheck:
    """The checks of one rendered file; ``run`` yields its findings."""

    def __init__(self, index: Index, path: str, tree: ast.Module, generated: frozenset[str]):
        self.index = index
        self.path = path
        self.tree = tree
        self.generated = generated  # paths of every rendered file: they are not the checkout
        self.dotted = dotted_of(path)
        is_package = path.endswith("/__init__.py")
        # walked once; imports inside functions count too
        self.nodes, self.scopes = _scoped_walk(tree)
        self.imports, stars, self.froms = import_table(self.nodes, self.dotted, is_package)
        # Classes resolve their bases through a module: the file's own (it is in the overlay) for
        # top-level classes of src/ files, else one built from this file's imports (tests).
        self.module = index.module(self.dotted) if self.dotted else None
        self.local = Module(
            f"<{path}>",
            path,
            is_package,
            tree,
            _definitions(tree),
            self.imports,
            tuple(stars),
            False,
        )
        index.add(self.local)

    def run(self) -> Iterator[Finding]:
        yield from self.check_shadowed_imports()
        yield from self.check_imports()
        yield from self.check_imported_calls()
        functions: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassRef | None]] = []
        for node in self.nodes:
            if isinstance(node, ast.ClassDef):
                # a helper class's methods have no receiver to check, but typed values count
                cls = self.generated_class(node)
                if cls is not None:
                    yield from ClassCheck(self, cls).run()
                functions += [(item, cls) for item in node.body if isinstance(item, _FUNCTIONS)]
        functions += [(node, None) for node in self.tree.body if isinstance(node, _FUNCTIONS)]
        for func, env in self.local_types(functions):
            yield from ScopeCheck(self, func, env).run()

    def check_shadowed_imports(self) -> Iterator[Finding]:
        """A top-level class or function named like a name the module imports replaces it for
        every later use (``class BaseTrainer`` after ``from ..abc import BaseTrainer``: the
        trainer would inherit from the record class), which no other check would see."""
        imported_at = {
            alias.asname or alias.name: node.lineno
            for node in self.tree.body if isinstance(node, ast.ImportFrom | ast.Import)
            for alias in node.names if alias.name != "*"
        }
        for node in self.tree.body:
            if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            line = imported_at.get(node.name)
            if line is not None:
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                yield Finding(self.path, node.lineno, node.name,
                              f"is defined as a {kind} that shadows its import",
                              f"imported on line {line}; give the {kind} another name")

    def local_types(
        self, functions: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassRef | None]]
    ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, LocalTypes]]:
        """Each function with its local types. A private helper of this file takes, for a
        parameter its annotation leaves open (none, ``Any``), the type every call of it in this
        file passes: ``_helper(adapter: Any)`` called only with ``self.adapter`` is checked as
        the adapter. Two rounds: a helper's calls from another helper count too."""
        envs = {id(f): self.scope_types(f, cls, {}) for f, cls in functions}
        helpers = self.private_helpers()
        for _ in range(2):
            passed = self.passed_to(helpers, functions, envs)
            if not passed:
                break
            for func, cls in functions:
                if id(func) in passed:
                    envs[id(func)] = self.scope_types(func, cls, passed[id(func)])
        for func, _ in functions:
            yield func, envs[id(func)]

    def scope_types(
        self,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        cls: ClassRef | None,
        passed: dict[str, Type],
    ) -> LocalTypes:
        _, calls, binders = self.scopes[id(func)]
        receiver = _first_param(func) if cls is not None else None
        return LocalTypes(self, func, binders, calls, receiver, cls, passed)

    def private_helpers(self) -> dict[str, ast.FunctionDef]:
        """Top-level ``_name`` functions used only by direct calls in this file (not passed as
        values, not named by another rendered file): every caller is in sight."""
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)}
        escaped = {
            n.id
            for n in self.nodes
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called
        }
        others = [text for path, text in self.index.rendered_texts.items() if path != self.path]
        return {
            node.name: node
            for node in self.tree.body
            if isinstance(node, ast.FunctionDef)
            and node.name.startswith("_")
            and node.name not in escaped
            and not any(node.name in text for text in others)
        }

    def passed_to(
        self,
        helpers: dict[str, ast.FunctionDef],
        functions: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassRef | None]],
        envs: dict[int, LocalTypes],
    ) -> dict[int, dict[str, Type]]:
        """helper id -> {parameter: the one type every call passes it} (when all agree)."""
        seen: dict[str, list[dict[str, Type | None]]] = {}
        for func, _ in functions:
            env = envs[id(func)]
            for call in self.scopes[id(func)][1]:
                name = call.func.id if isinstance(call.func, ast.Name) else None
                if name not in helpers or name in env.bound:
                    continue
                sig = self.index.function_signature(helpers[name], self.local.dotted)
                if sig is not None:
                    seen.setdefault(name, []).append(
                        {p.name: env.type_of(arg) for p, arg in _bind(sig, call)}
                    )
        found: dict[int, dict[str, Type]] = {}
        for name, calls in seen.items():
            agreed: dict[str, Type] = {}
            sig = self.index.function_signature(helpers[name], self.local.dotted)
            for param in sig.params:
                types = {call.get(param.name) for call in calls}
                if len(types) == 1 and None not in types:
                    agreed[param.name] = types.pop()
            if agreed:
                found[id(helpers[name])] = agreed
        return found

    def finding(self, node: ast.AST, member: str, problem: str, instead: str) -> Finding:
        return Finding(self.path, getattr(node, "lineno", 0), member, problem, instead)

    def classes(self) -> Iterator[ClassRef]:
        """The file's top-level classes."""
        module = self.module if self.module is not None else self.local
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                yield ClassRef(module.dotted, node.name, node, self.path)

    # -- rule 1: imports

    def check_imports(self) -> Iterator[Finding]:
        for node, module in self.froms:
            if not in_package(module):
                continue
            if self.index.module(module) is None:
                yield self.missing_module(node, module)
                continue
            for alias in node.names:
                symbol = self.index.resolve(module, alias.name) if alias.name != "*" else None
                if symbol is not None and symbol.kind == "missing":
                    yield self.missing_name(node, module, alias.name, symbol)
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if in_package(alias.name) and self.index.module(alias.name) is None:
                        yield self.missing_module(node, alias.name)

    def missing_module(self, node: ast.AST, module: str) -> Finding:
        parent, _, leaf = module.rpartition(".")
        where = "src/" + module.replace(".", "/")
        close = difflib.get_close_matches(leaf, self.index.names_in(parent), n=3, cutoff=0.6)
        instead = f"this checkout has no {where}.py or {where}/__init__.py"
        if close:
            instead += f"; closest in {parent}: {', '.join(close)}"
        return self.finding(node, module, "does not exist", instead)

    def missing_name(self, node: ast.AST, module: str, name: str, symbol: Symbol) -> Finding:
        if symbol.name is None:  # a re-export points at a module that is gone
            instead = (
                f"this checkout's {module} re-exports it from {symbol.module}, which is missing"
            )
        elif symbol.module != module:
            instead = (
                f"this checkout's {module} re-exports it from {symbol.module}, "
                "which does not define it"
            )
        else:
            close = difflib.get_close_matches(name, self.index.names_in(module), n=3, cutoff=0.6)
            instead = f"this checkout has a different version of {module}, without it"
            if close:
                instead += f"; closest: {', '.join(close)}"
        return self.finding(node, f"{module}.{name}", "is not defined", instead)

    # -- rule 4 for imported functions and classes

    def imported(self, expr: ast.expr) -> Symbol | None:
        """The flow_factory symbol an expression names through this file's imports."""
        if isinstance(expr, ast.Name):
            source, original = self.imports.get(expr.id, ("", None))
            if not in_package(source):
                return None
            if original is None:
                return self.index.module_symbol(source)
            return self.index.resolve(source, original)
        if isinstance(expr, ast.Attribute):
            owner = self.imported(expr.value)
            if owner is not None and owner.kind == "module":
                return self.index.resolve(owner.module, expr.attr)
        return None

    def callee_symbol(self, func: ast.expr, env: LocalTypes) -> Symbol | None:
        """What a called name is: a flow_factory function or class this file imports (or reaches
        through an imported module), or a def of this file."""
        if isinstance(func, ast.Name):
            if func.id in env.bound:  # a local variable, not the global of that name
                return None
            own = self.module if self.module is not None else self.local
            if func.id in own.defs:
                return self.index.resolve_in(own, func.id)
            return self.imported(func)
        if not isinstance(func, ast.Attribute):
            return None
        return self.imported(func)

    def imported_class(self, expr: ast.expr) -> ClassRef | None:
        symbol = self.imported(expr)
        return self.index.class_ref(symbol) if symbol is not None else None

    def is_generated_scope(self, scope: str | None) -> bool:
        """Whether a def's module is one of the rendered files (ffgen's own code)."""
        module = self.index.module(scope) if scope else None
        return module is not None and module.path in self.generated

    def check_imported_calls(self) -> Iterator[Finding]:
        for node in self.nodes:
            if not isinstance(node, ast.Call):
                continue
            symbol = self.imported(node.func)
            if symbol is not None:
                yield from self.check_symbol_call(node, symbol)
            elif isinstance(node.func, ast.Attribute):
                owner = self.imported(node.func.value)
                if owner is not None and owner.kind == "class":
                    yield from self.check_class_attribute_call(node, owner, node.func.attr)

    def check_symbol_call(self, call: ast.Call, symbol: Symbol) -> Iterator[Finding]:
        if symbol.kind == "function":
            sig = self.index.function_signature(symbol.node, symbol.module)
        elif symbol.kind == "class":
            sig = self.index.constructor(self.index.class_ref(symbol))
        else:
            return
        problem = call_problem(sig, call) if sig is not None else None
        if problem:
            yield self.finding(call, symbol.qualified, problem, f"this checkout has {sig.text()}")

    def check_class_attribute_call(
        self, call: ast.Call, owner: Symbol, name: str
    ) -> Iterator[Finding]:
        """``Cls.method(...)`` on an imported class, checked where the member is found: members
        of imported classes other than the trainer's and the adapter's are not in the contract."""
        cls = self.index.class_ref(owner)
        member = self.index.lookup(cls, name) if cls is not None else None
        sig = member.call_signature(through_instance=False) if member is not None else None
        problem = call_problem(sig, call) if sig is not None else None
        if problem:
            label = f"{member.owner}.{name}"
            yield self.finding(call, label, problem, f"this checkout has {member.signature.text()}")

    # -- which classes are generated classes

    def generated_class(self, node: ast.ClassDef) -> ClassRef | None:
        """The rendered class, when it derives from a checkout (flow_factory) class; helper
        classes of the rendered file are left alone."""
        top_level = self.module is not None and self.module.defs.get(node.name) is node
        module = self.module if top_level else self.local
        cls = ClassRef(module.dotted, node.name, node, self.path)
        for item in self.index.mro(cls)[1:]:
            if isinstance(item, ClassRef) and item.path not in self.generated:
                return cls
        return None


# --- rules 2 to 6 inside one function -----------------------------------------------------------


@dataclass(frozen=True)
class ClassCheck:
    file: FileCheck
    cls: ClassRef

    @property
    def index(self) -> Index:
        return self.file.index

    def run(self) -> Iterator[Finding]:
        for node in self.cls.node.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from self.check_override(node)

    # -- rule 5

    def check_override(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Finding]:
        base = self.index.lookup(self.cls, node.name, skip_self=True)
        if base is None or base is UNKNOWN:
            return
        mine = member_from_def(node, self.cls.name)
        problem = _kind_problem(base, mine)
        base_sig = base.call_signature(through_instance=True)
        mine_sig = mine.call_signature(through_instance=True)
        if problem is None and base_sig is not None and mine_sig is not None:
            problem = override_problem(base_sig, mine_sig)
        if problem:
            shown = base.signature.text() if base.signature else f"{base.name} as a {base.kind}"
            yield self.file.finding(
                node,
                f"{self.cls.name}.{node.name}",
                f"overrides {base.owner}.{node.name} {problem}",
                f"this checkout has {shown}",
            )


# A typed value's class lists its members in a refusal when it has no more public ones than this
# (a data class such as LatentState); a larger class (the trainer, the adapter) names the closest.
LISTED_MEMBERS = 12


@dataclass(frozen=True)
class ScopeCheck:
    """Rules 2, 3, 4 and 6 inside one function of a rendered file: a method of a generated class
    (``env.cls``: its receiver is that class) or any other function (no receiver)."""

    file: FileCheck
    node: ast.FunctionDef | ast.AsyncFunctionDef
    env: LocalTypes

    @property
    def index(self) -> Index:
        return self.file.index

    @property
    def cls(self) -> ClassRef | None:
        return self.env.cls

    def run(self) -> Iterator[Finding]:
        env = self.env
        reads, calls, binders = self.file.scopes[id(self.node)]
        # ``self.step += 1`` reads ``step`` before it stores it
        augmented = {id(n.target) for n in binders if isinstance(n, ast.AugAssign)}
        for sub in reads:
            if isinstance(sub.ctx, ast.Load) or id(sub) in augmented:
                yield from self.check_read(sub, env)
        for sub in calls:
            yield from self.check_call(sub, env)
            yield from self.check_argument_types(sub, env)

    def checkout_label(self, cls: ClassRef) -> str:
        """The name to show for a member looked up on ``cls``: its first checkout class."""
        for item in self.index.mro(cls):
            if isinstance(item, ClassRef) and item.path not in self.file.generated:
                return item.name
        return cls.name

    # -- rules 2, 3 and (for any typed value) 6: members exist

    def check_read(self, node: ast.Attribute, env: LocalTypes) -> Iterator[Finding]:
        owner = env.type_of(node.value)
        if not isinstance(owner, ClassRef) or node.attr in env.guarded.get(owner, ()):
            return
        if self.index.lookup(owner, node.attr) is not None or self.in_subclass(owner, node.attr):
            return
        label = self.checkout_label(owner)
        yield self.file.finding(
            node, f"{label}.{node.attr}", "is not defined", self.what_it_has(owner, node.attr)
        )

    def in_subclass(self, owner: ClassRef, name: str) -> bool:
        """Whether a rendered class deriving from ``owner`` has ``name``: a value typed as a base
        may be one (a class of the rendered ``src/`` files, or of the test file reading it: a
        stand-in). Not for the receiver, nor for the adapter in ``src/`` (the contract)."""
        if owner == self.cls:
            return False
        pool = [] if owner == self.index.adapter_class() else list(self.index.rendered)
        if self.file.dotted is None:
            pool += self.file.classes()
        for cls in pool:
            if cls != owner and owner.name in _class_names(self.index, cls):
                if self.index.lookup(cls, name) is not None:
                    return True
        return False

    def what_it_has(self, owner: ClassRef, name: str) -> str:
        label = self.checkout_label(owner)
        names = self.index.member_names(owner)
        public = [n for n in names if not n.startswith("_")]
        large = owner == self.cls or owner == self.index.adapter_class()
        if not large and len(public) <= LISTED_MEMBERS:
            return f"this checkout's {label} has {', '.join(public) or 'no public members'}"
        close = difflib.get_close_matches(name, names, cutoff=0.6)
        if close:
            return f"this checkout has {', '.join(close)}"
        if owner == self.cls:
            return f"neither {self.cls.name} nor this checkout's {label} and its bases define it"
        return f"this checkout's {label} and its bases define no such member"

    # -- rule 4 on members

    def check_call(self, call: ast.Call, env: LocalTypes) -> Iterator[Finding]:
        found = self.member_called(call, env)
        if found is None:
            if self.cls is not None and _is_super_call(call):
                yield self.missing_super(call, call.func.attr)
            return
        member, sig, _ = found
        problem = call_problem(sig, call) if sig is not None else None
        if problem:
            label = f"{member.owner}.{call.func.attr}"
            shown = member.signature.text()  # as the checkout spells it, ``self`` included
            yield self.file.finding(call, label, problem, f"this checkout has {shown}")

    def member_called(
        self, call: ast.Call, env: LocalTypes
    ) -> tuple[Member, Signature | None, ClassRef] | None:
        """The member ``call`` calls on a typed receiver or through ``super()``, its signature
        as called (bound) and the class it was looked up on."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        if _is_super(func.value):
            if self.cls is None:
                return None
            owner, member = self.cls, self.index.lookup(self.cls, func.attr, skip_self=True)
        else:
            owner = env.type_of(func.value)
            if not isinstance(owner, ClassRef):
                return None
            member = self.index.lookup(owner, func.attr)
        if member is None:
            return None
        return member, member.call_signature(through_instance=True), owner

    def missing_super(self, call: ast.Call, name: str) -> Finding:
        label = self.checkout_label(self.cls)
        instead = f"this checkout's {label} and its bases define no such member"
        return self.file.finding(call, f"{label}.{name}", "is not defined", instead)

    # -- rule 6: what is passed fits the checkout's annotation

    def check_argument_types(self, call: ast.Call, env: LocalTypes) -> Iterator[Finding]:
        callee = self.checkout_callee(call, env)
        if callee is None:
            return
        label, sig = callee
        for param, arg in _bind(sig, call):
            value = env.type_of(arg)
            if not isinstance(value, ClassRef):
                continue
            expect = self.index.types.expect(param.annotation, param.scope)
            if expect is None or self.index.types.admits(expect, value):
                continue
            got = self.checkout_label(value)
            yield self.file.finding(
                arg,
                label,
                f"expects `{param.name}: {expect.text}`, got {got}",
                f"this checkout's {got} is not a {' or '.join(expect.labels())}",
            )

    def checkout_callee(self, call: ast.Call, env: LocalTypes) -> tuple[str, Signature] | None:
        """(label, bound signature) of a checkout function, class or method ``call`` calls;
        None for anything else, the rendered files' own defs included (ffgen's annotations are
        not the checkout's)."""
        found = self.member_called(call, env)
        if found is not None:
            member, sig, _ = found
            if sig is None or self.file.is_generated_scope(member.scope):
                return None
            return f"{member.owner}.{call.func.attr}", sig
        symbol = self.file.callee_symbol(call.func, env)
        if symbol is None or not in_package(symbol.module):
            return None
        if symbol.kind == "function":
            sig = self.index.function_signature(symbol.node, symbol.module)
        elif symbol.kind == "class":
            sig = self.index.constructor(self.index.class_ref(symbol))
        else:
            return None
        return (symbol.qualified, sig) if sig is not None else None


def _bind(sig: Signature, call: ast.Call) -> Iterator[tuple[Param, ast.expr]]:
    """Each explicit argument with the parameter it binds to (as far as the call shows)."""
    positional = sig.positional
    star = next((p for p in sig.params if p.kind == VAR_POSITIONAL), None)
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break  # what follows binds wherever the splat ends
        param = positional[i] if i < len(positional) else star
        if param is not None:
            yield param, arg
    extra = next((p for p in sig.params if p.kind == VAR_KEYWORD), None)
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        param = sig.by_name(keyword.arg) or extra
        if param is not None:
            yield param, keyword.value


def _kind_problem(base: Member, mine: Member) -> str | None:
    comparable = (*FUNCTION_KINDS, PROPERTY)
    if base.kind not in comparable or base.kind == mine.kind:
        return None
    return f"as a {mine.kind} (the checkout's is a {base.kind})"


def _is_super(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _is_name(node.func, "super") and not node.args


def _is_super_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and _is_super(call.func.value)


Scope = tuple[list[ast.Attribute], list[ast.Call], list[ast.AST]]  # reads, calls, binders


def _scoped_walk(tree: ast.Module) -> tuple[list[ast.AST], dict[int, Scope]]:
    """Every node (in ``ast.walk`` order), and for each function that is not nested in another
    (keyed by id) what the checks read of it: its attribute reads, calls and binding nodes.

    A function nested in another belongs to it; a class's body belongs to no function (its
    methods are functions of their own: their ``self`` is another object). One walk serves
    every check: this runs on every function of every rendered file."""
    nodes: list[ast.AST] = []
    scopes: dict[int, Scope] = {}
    pending: deque[tuple[ast.AST, Scope | None]] = deque([(tree, None)])
    while pending:
        node, scope = pending.popleft()
        nodes.append(node)
        kind = type(node)
        if scope is not None:
            if kind is ast.Attribute:
                scope[0].append(node)
            elif kind is ast.Call:
                scope[1].append(node)
            elif kind in BINDERS:
                scope[2].append(node)
        if kind is ast.ClassDef:
            inner = None
        elif scope is None and kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            inner = scopes.setdefault(id(node), ([], [], []))
        else:
            inner = scope
        for name in node._fields:  # ast.iter_child_nodes, inlined: this loop is the hot one
            value = getattr(node, name, None)
            if isinstance(value, list):
                pending.extend((item, inner) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append((value, inner))
    return nodes, scopes


# --- what a function's local names are ------------------------------------------------------------

# A binding of a local name: ("fixed", type), ("annotation", expr) or ("value", expr, path), the
# path leading from the value's type to the name's (tuple positions, loop items); None: unknown.
Binding = tuple | None
ITEM = ("item",)  # a path step: one item of an iterable
ROUNDS = 6  # bindings depending on bindings: a few rounds settle every chain a trainer writes
# builtins that hand the items of their iterable argument back: (name -> keeps items as is)
ITEM_PRESERVING = frozenset({"list", "tuple", "sorted", "reversed", "iter"})
# Node types that bind local names (see ``_node_bindings``).
BINDERS = frozenset(
    {
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.NamedExpr,
        ast.withitem,
        ast.arg,
        ast.Import,
        ast.ImportFrom,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.ExceptHandler,
        ast.Global,
        ast.Nonlocal,
        ast.MatchAs,
        ast.MatchStar,
        ast.MatchMapping,
        ast.Delete,
    }
)


class LocalTypes:
    """What a function's local names are known to be, flow-insensitively: a name has a type when
    every binding of it in the function gives that same type (a parameter's annotation, an
    assignment from a typed expression, a loop over a typed iterable, tuple unpacking), and is
    unknown otherwise. The receiver of a generated class's method is that class; a name passed to
    ``isinstance`` is unknown (the code narrows it itself)."""

    def __init__(
        self,
        file: FileCheck,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        binders: list[ast.AST],
        calls: list[ast.Call],
        receiver: str | None,
        cls: ClassRef | None,
        passed: dict[str, Type],
    ) -> None:
        self.file = file
        self.cls = cls
        self.passed = passed  # parameter -> the type every call passes (a private helper)
        self.index = file.index
        self.types = file.index.types
        self.scope = file.local.dotted
        self.locals: dict[str, Type] = {}
        self.bound: set[str] = set()  # every local name (a global of the same name is hidden)
        self._memo: dict[int, Type | None] | None = None  # once the bindings have settled
        bindings = self._bindings(func, binders, receiver, cls)
        self.bound = set(bindings)
        self._settle(bindings, _narrowed(calls))
        self._memo = {}
        self.guarded = self._guarded(calls)

    # -- expressions

    def type_of(self, expr: ast.expr) -> Type | None:
        if self._memo is None:
            return self._type_of(expr)
        key = id(expr)
        if key not in self._memo:
            self._memo[key] = self._type_of(expr)
        return self._memo[key]

    def _type_of(self, expr: ast.expr) -> Type | None:
        if isinstance(expr, ast.Name):
            return self.locals.get(expr.id)
        if isinstance(expr, ast.Attribute):
            return self._attribute_type(expr)
        if isinstance(expr, ast.Call):
            return self._call_type(expr)
        if isinstance(expr, ast.Subscript):
            owner = self.type_of(expr.value)
            index = expr.slice
            if isinstance(owner, TupleOf) and isinstance(index, ast.Constant):
                if isinstance(index.value, int) and -len(owner.items) <= index.value < len(
                    owner.items
                ):
                    return owner.items[index.value]
            return None
        if isinstance(expr, ast.IfExp):
            body, orelse = self.type_of(expr.body), self.type_of(expr.orelse)
            return body if body == orelse else None
        if isinstance(expr, ast.NamedExpr):
            return self.type_of(expr.value)
        return None

    def _attribute_type(self, expr: ast.Attribute) -> Type | None:
        owner = self.type_of(expr.value)
        if not isinstance(owner, ClassRef):
            return None
        member = self.index.lookup(owner, expr.attr)
        found = self.types.member(member)
        # The trainer's adapter, however it is declared, is held to BaseAdapter (rule 3) in the
        # framework's code; a generated test's trainer may carry a stand-in adapter.
        if found is None and expr.attr == "adapter" and member is not None:
            if self.file.dotted is not None or owner == self.cls:
                return self.index.adapter_class()
        return found

    def _call_type(self, call: ast.Call) -> Type | None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in ITEM_PRESERVING | {"enumerate"}:
            if func.id not in self.bound and len(call.args) == 1:
                items = self.type_of(call.args[0])
                if isinstance(items, ItemsOf):
                    if func.id == "enumerate":
                        return ItemsOf(TupleOf((None, items.item)))
                    return items
        if isinstance(func, ast.Attribute):
            owner = self.type_of(func.value)
            kinds = FUNCTION_KINDS
            if owner is None:  # Cls.method(...) on an imported class
                owner, kinds = self.file.imported_class(func.value), (STATIC, CLASSMETHOD)
            if isinstance(owner, ClassRef):
                member = self.index.lookup(owner, func.attr)
                if member is None or member.kind not in kinds:
                    return None
                return self._as_called(self.types.returns(member.node, member.scope), owner)
        symbol = self.file.callee_symbol(func, self)
        if symbol is None:
            return None
        if symbol.kind == "function":
            return self.types.returns(symbol.node, symbol.module)
        if symbol.kind == "class":
            cls = self.index.class_ref(symbol)
            return None if cls is None or self.types.is_protocol(cls) else cls
        return None

    def _as_called(self, found: Type | None, owner: ClassRef) -> Type | None:
        """A method annotated to return one of its class's bases (``from_dict -> ArgABC``,
        ``to -> Base``) called on a subclass most likely returns that subclass (``cls(...)``,
        ``replace(self)``): take the subclass, which has every member the base has."""
        if isinstance(found, ClassRef) and found.name in _class_names(self.index, owner):
            return owner
        return found

    # -- bindings

    def _bindings(
        self,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        body: list[ast.AST],
        receiver: str | None,
        cls: ClassRef | None,
    ) -> dict[str, list[Binding]]:
        found: dict[str, list[Binding]] = {}
        own = func.args
        own_args = [*own.posonlyargs, *own.args, *own.kwonlyargs]
        for arg in own_args:
            declared = self.types.of(arg.annotation, self.scope)
            if arg.arg == receiver and cls is not None:
                binding: Binding = ("fixed", cls)
            elif declared is not None:
                binding = ("fixed", declared)
            elif arg.arg in self.passed:  # the annotation leaves it open; every caller agrees
                binding = ("fixed", self.passed[arg.arg])
            else:
                binding = None
            found.setdefault(arg.arg, []).append(binding)
        for arg in (own.vararg, own.kwarg):
            if arg is not None:
                found.setdefault(arg.arg, []).append(None)
        skip = {id(a) for a in own_args} | {id(own.vararg), id(own.kwarg)}
        for node in body:
            if id(node) not in skip:
                for name, binding in _node_bindings(node):
                    found.setdefault(name, []).append(binding)
        return found

    def _settle(self, bindings: dict[str, list[Binding]], narrowed: set[str]) -> None:
        """Type names round by round: a round can type names whose bindings read names the
        round before typed (types only ever get known, so this settles)."""
        pending = {n: b for n, b in bindings.items() if n not in narrowed and None not in b}
        for _ in range(ROUNDS):
            typed = {}
            for name, options in pending.items():
                found = self._agreed(options)
                if found is not None:
                    typed[name] = found
            if not typed:
                return
            # a typed name keeps its type in later rounds: only the others are tried again
            self.locals.update(typed)
            pending = {n: b for n, b in pending.items() if n not in typed}

    def _agreed(self, options: list[tuple]) -> Type | None:
        """The type every binding gives, or None."""
        first = self._binding_type(options[0])
        for binding in options[1:]:
            if first is None or self._binding_type(binding) != first:
                return None
        return first

    def _binding_type(self, binding: tuple) -> Type | None:
        kind = binding[0]
        if kind == "fixed":
            return binding[1]
        if kind == "annotation":
            return self.types.of(binding[1], self.scope)
        found = self.type_of(binding[1])
        for step in binding[2]:
            if step == ITEM:
                found = found.item if isinstance(found, ItemsOf) else None
            else:
                position, length = step
                ok = isinstance(found, TupleOf) and len(found.items) == length
                found = found.items[position] if ok else None
            if found is None:
                return None
        return found

    def _guarded(self, calls: list[ast.Call]) -> dict[ClassRef, set[str]]:
        """Members probed with hasattr/getattr: the code itself handles their absence."""
        guarded: dict[ClassRef, set[str]] = {}
        for node in calls:
            if len(node.args) < 2:
                continue
            if not (_is_name(node.func, "hasattr") or _is_name(node.func, "getattr")):
                continue
            owner = self.type_of(node.args[0])
            if isinstance(owner, ClassRef):
                guarded.setdefault(owner, set()).update(_constant_str(node.args[1]))
        return guarded


def _node_bindings(node: ast.AST) -> Iterator[tuple[str, Binding]]:
    """The local names one node binds, each with how (None: in a way that tells nothing)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_bindings(target, node.value, ())
    elif isinstance(node, ast.AnnAssign):
        if isinstance(node.target, ast.Name):  # the declared type, whatever the value
            yield node.target.id, ("annotation", node.annotation)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from _target_bindings(node.target, node.iter, (ITEM,))
    elif isinstance(node, ast.NamedExpr):
        yield from _target_bindings(node.target, node.value, ())
    else:
        for name in _other_bound_names(node):
            yield name, None


def _target_bindings(
    target: ast.expr, value: ast.expr, path: tuple
) -> Iterator[tuple[str, Binding]]:
    if isinstance(target, ast.Name):
        yield target.id, ("value", value, path)
    elif isinstance(target, (ast.Tuple, ast.List)):
        starred = any(isinstance(e, ast.Starred) for e in target.elts)
        for i, element in enumerate(target.elts):
            if starred:  # positions after a starred target are not fixed
                for name in _target_names(element):
                    yield name, None
                if isinstance(element, ast.Starred):
                    for name in _target_names(element.value):
                        yield name, None
            else:
                yield from _target_bindings(element, value, (*path, (i, len(target.elts))))


def _other_bound_names(node: ast.AST) -> Iterator[str]:
    """Names bound other than by assignment, loop or walrus: all of unknown type here."""
    if isinstance(node, ast.AugAssign):
        yield from _target_names(node.target)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _target_names(node.optional_vars)
    elif isinstance(node, ast.arg):  # a nested function's or lambda's parameter
        yield node.arg
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            yield from _target_names(target)


def _narrowed(calls: list[ast.Call]) -> set[str]:
    """Names the code tests with ``isinstance``: it decides itself what they are."""
    found: set[str] = set()
    for node in calls:
        if _is_name(node.func, "isinstance") and node.args:
            if isinstance(node.args[0], ast.Name):
                found.add(node.args[0].id)
    return found
