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
   because the framework calls it that way.

Each checkout module is parsed once per run and classes are resolved only when asked for, so a run
costs a handful of parses however many members the rendered files touch.

What it cannot see: types beyond the receiver and the adapter (``self.training_args.x``,
``batch.x``, what a call returns); members behind ``getattr``/``hasattr`` probes (trusted, since
the code handles their absence); the members of a base from another library (torch, a builtin),
which may define anything; signatures behind decorators other than the well-known ones; whether a
base parameter an override takes only by name (``**kwargs``) is ever passed positionally.
"""

from __future__ import annotations

import ast
import builtins
import difflib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ffgen.checkout import CheckoutView
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
    found: dict[tuple[str, str, str], Finding] = {}
    for path, tree in sources.items():
        for f in FileCheck(index, path, tree, generated=frozenset(sources)).run():
            found.setdefault((f.path, f.member, f.problem), f)
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


def signature_of(name: str, args: ast.arguments) -> Signature:
    params: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = POSONLY if i < len(args.posonlyargs) else POSITIONAL
        params.append(Param(arg.arg, kind, _default_text(default)))
    if args.vararg:
        params.append(Param(args.vararg.arg, VAR_POSITIONAL))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(Param(arg.arg, KEYWORD_ONLY, _default_text(default)))
    if args.kwarg:
        params.append(Param(args.kwarg.arg, VAR_KEYWORD))
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

    def call_signature(self, through_instance: bool) -> Signature | None:
        """Parameters a call passes explicitly: ``self``/``cls`` are bound already, except for a
        plain method reached through the class."""
        if self.signature is None or self.kind not in FUNCTION_KINDS:
            return None
        if self.kind == CLASSMETHOD or (self.kind == METHOD and through_instance):
            return self.signature.without_first()
        return self.signature


def member_from_def(node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str) -> Member:
    names = [_decorator_name(d) for d in node.decorator_list]
    kind = METHOD
    if "staticmethod" in names:
        kind = STATIC
    elif "classmethod" in names:
        kind = CLASSMETHOD
    elif any(n in PROPERTY_DECORATORS or n in ("setter", "getter", "deleter") for n in names):
        return Member(node.name, PROPERTY, owner)
    others = [n for n in names if n not in ("staticmethod", "classmethod")]
    visible = all(n in KEEPS_SIGNATURE for n in others)
    signature = signature_of(node.name, node.args) if visible else None
    return Member(node.name, kind, owner, signature)


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
            found = self.members(item).get(name)
            if found is not None:
                return found
        if unknown or name in OBJECT_NAMES:
            return UNKNOWN
        return None

    def member_names(self, cls: ClassRef) -> list[str]:
        names: set[str] = set()
        for item in self.mro(cls):
            if isinstance(item, ClassRef):
                names |= set(self.members(item))
        return sorted(names)

    def adapter_class(self) -> ClassRef | None:
        if self._adapter is False:
            self._adapter = self.class_ref(self.resolve(ADAPTER_MODULE, ADAPTER_CLASS))
        return self._adapter

    def constructor(self, cls: ClassRef | None) -> Signature | None:
        """What ``Cls(...)`` takes: the first ``__init__`` in the MRO, or the one ``@dataclass``
        generates; None when an unreadable base or a ``__new__`` may decide."""
        if cls is None:
            return None
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
                for param in _dataclass_fields(item.node, options["kw_only"]):
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
            new = member_from_def(node, cls.name)
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
            members.setdefault(node.target.id, Member(node.target.id, ATTRIBUTE, cls.name))
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


def _dataclass_fields(node: ast.ClassDef, kw_only: bool) -> list[Param]:
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
        params.append(Param(stmt.target.id, kind, "..." if has_default else None))
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
        self.nodes = list(ast.walk(tree))  # walked once; imports inside functions count too
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
        yield from self.check_imports()
        yield from self.check_imported_calls()
        for node in self.nodes:
            if isinstance(node, ast.ClassDef):
                cls = self.generated_class(node)
                if cls is not None:
                    yield from ClassCheck(self, cls).run()

    def finding(self, node: ast.AST, member: str, problem: str, instead: str) -> Finding:
        return Finding(self.path, getattr(node, "lineno", 0), member, problem, instead)

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
            sig = member_from_def(symbol.node, "").signature
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


# --- rules 2, 3, 4 and 5 inside one generated class ----------------------------------------------


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
                yield from self.check_method(node)

    def checkout_label(self, cls: ClassRef) -> str:
        """The name to show for a member looked up on ``cls``: its first checkout class."""
        for item in self.index.mro(cls):
            if isinstance(item, ClassRef) and item.path not in self.file.generated:
                return item.name
        return cls.name

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

    # -- rules 2, 3 and 4 inside one method

    def check_method(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Finding]:
        body = list(_walk_method(node))
        env = MethodTypes(self, body, _first_param(node))
        # ``self.step += 1`` reads ``step`` before it stores it
        augmented = {id(n.target) for n in body if isinstance(n, ast.AugAssign)}
        for sub in body:
            if isinstance(sub, ast.Attribute):
                if isinstance(sub.ctx, ast.Load) or id(sub) in augmented:
                    yield from self.check_read(sub, env)
            elif isinstance(sub, ast.Call):
                yield from self.check_call(sub, env)

    def check_read(self, node: ast.Attribute, env: MethodTypes) -> Iterator[Finding]:
        owner = env.type_of(node.value)
        if owner is None or node.attr in env.guarded.get(owner, ()):
            return
        if self.index.lookup(owner, node.attr) is not None:
            return
        label = self.checkout_label(owner)
        close = difflib.get_close_matches(node.attr, self.index.member_names(owner), cutoff=0.6)
        if close:
            instead = f"this checkout has {', '.join(close)}"
        elif owner == self.cls:
            instead = f"neither {self.cls.name} nor this checkout's {label} and its bases define it"
        else:
            instead = f"this checkout's {label} and its bases define no such member"
        yield self.file.finding(node, f"{label}.{node.attr}", "is not defined", instead)

    def check_call(self, call: ast.Call, env: MethodTypes) -> Iterator[Finding]:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        if _is_super(func.value):
            member = self.index.lookup(self.cls, func.attr, skip_self=True)
            if member is None:
                yield self.missing_super(call, func.attr)
                return
        else:
            owner = env.type_of(func.value)
            member = self.index.lookup(owner, func.attr) if owner is not None else None
        sig = member.call_signature(through_instance=True) if member is not None else None
        problem = call_problem(sig, call) if sig is not None else None
        if problem:
            label = f"{member.owner}.{func.attr}"
            shown = member.signature.text()  # as the checkout spells it, ``self`` included
            yield self.file.finding(call, label, problem, f"this checkout has {shown}")

    def missing_super(self, call: ast.Call, name: str) -> Finding:
        label = self.checkout_label(self.cls)
        instead = f"this checkout's {label} and its bases define no such member"
        return self.file.finding(call, f"{label}.{name}", "is not defined", instead)


def _kind_problem(base: Member, mine: Member) -> str | None:
    comparable = (*FUNCTION_KINDS, PROPERTY)
    if base.kind not in comparable or base.kind == mine.kind:
        return None
    return f"as a {mine.kind} (the checkout's is a {base.kind})"


def _is_super(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _is_name(node.func, "super") and not node.args


def _walk_method(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a method except those of classes defined inside it: their ``self`` is
    another object (they are checked on their own when they derive from the checkout)."""
    pending = list(ast.iter_child_nodes(node))
    while pending:
        child = pending.pop()
        yield child
        if not isinstance(child, ast.ClassDef):
            pending.extend(ast.iter_child_nodes(child))


class MethodTypes:
    """What a method's local names are known to be: its receiver (the generated class) and the
    adapter, reached as ``self.adapter`` or through a local alias assigned only from it."""

    def __init__(self, check: ClassCheck, body: list[ast.AST], receiver: str | None) -> None:
        self.index = check.index
        self.locals: dict[str, ClassRef] = {}
        if receiver is not None:
            self.locals[receiver] = check.cls
        self.locals.update(self._aliases(body, receiver))
        self.guarded = self._guarded(body)

    def type_of(self, expr: ast.expr) -> ClassRef | None:
        if isinstance(expr, ast.Name):
            return self.locals.get(expr.id)
        if isinstance(expr, ast.Attribute) and expr.attr == "adapter":
            owner = self.type_of(expr.value)
            if owner is not None and self.index.lookup(owner, "adapter") is not None:
                return self.index.adapter_class()
        return None

    def _aliases(self, body: list[ast.AST], receiver: str | None) -> dict[str, ClassRef]:
        """``adapter = self.adapter``: a name counts only if every binding of it is such an alias
        (a name bound to anything else could be anything)."""
        candidates: dict[str, ClassRef | None] = {}
        for node in sorted(body, key=_position):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    typed = self.type_of(node.value)
                    if candidates.get(target.id, typed) is not typed:
                        typed = None
                    candidates[target.id] = typed
                    continue
            for name in _bound_names(node):
                if name != receiver:
                    candidates[name] = None
        return {name: ref for name, ref in candidates.items() if ref is not None}

    def _guarded(self, body: list[ast.AST]) -> dict[ClassRef, set[str]]:
        """Members probed with hasattr/getattr: the code itself handles their absence."""
        guarded: dict[ClassRef, set[str]] = {}
        for node in body:
            if not (isinstance(node, ast.Call) and len(node.args) >= 2):
                continue
            if not (_is_name(node.func, "hasattr") or _is_name(node.func, "getattr")):
                continue
            owner = self.type_of(node.args[0])
            if owner is not None:
                guarded.setdefault(owner, set()).update(_constant_str(node.args[1]))
        return guarded


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _bound_names(node: ast.AST) -> Iterator[str]:
    """Names a node binds other than by a plain ``name = value``."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_names(target)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        yield from _target_names(node.target)
    elif isinstance(node, ast.comprehension):
        yield from _target_names(node.target)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _target_names(node.optional_vars)
    elif isinstance(node, ast.NamedExpr):
        yield from _target_names(node.target)
    elif isinstance(node, ast.arg):
        yield node.arg
