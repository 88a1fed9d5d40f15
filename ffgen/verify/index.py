"""A static index of a checkout, built lazily with the ``ast`` module and queried by the rules.

Modules are parsed on first use and cached; names resolve across modules by following imports
(absolute, relative and re-exports); classes expose their bases, class-level assignments and
methods, and an MRO over the classes found in the checkout. Nothing here imports checkout code.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
from collections.abc import Iterator

from ffgen.checkout.view import CheckoutView
from ffgen.errors import TOO_DEEP

ROOT_PACKAGE = "flow_factory"
_MAX_DEPTH = 25


@dataclasses.dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    value: ast.expr | None
    annotation: ast.expr | None
    line: int


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ClassInfo:
    name: str
    module: str  # dotted module name
    path: str
    line: int
    bases: tuple[ast.expr, ...]
    assigns: dict[str, Assignment]
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class ImportBinding:
    module: str  # absolute dotted module
    attr: str | None  # None: the binding is the module itself
    line: int


Binding = ClassInfo | Assignment | ImportBinding


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ModuleInfo:
    dotted: str
    path: str
    is_package: bool
    bindings: dict[str, Binding] = dataclasses.field(default_factory=dict)
    all_names: tuple[str, ...] | None = None
    all_line: int = 1


@dataclasses.dataclass(frozen=True, slots=True)
class Symbol:
    """What a name resolves to: a class, a module-level assignment, a module, or an outside name."""

    kind: str  # "class" | "assign" | "module" | "external"
    qualname: str
    cls: ClassInfo | None = None
    assign: Assignment | None = None
    module: str | None = None  # module holding the assignment / the module itself


@dataclasses.dataclass(frozen=True, slots=True)
class SyntaxProblem:
    path: str
    line: int
    message: str


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``ast.walk(node)`` but the expression contexts (``Load``/``Store``/``Del``,
    a third of a function's nodes; the rules read them as ``.ctx``), in its breadth-first order.
    The descendants are listed once per node (the rules walk the same methods over and over) and
    kept on the node itself, so they live exactly as long as the (shared, never modified) tree;
    the list leaves the node out: a node holding itself would be a reference cycle, and a tree
    verify is done with would wait for the cyclic collector instead of being freed at once."""
    rest = node.__dict__.get("_ffgen_walk")
    if rest is None:
        out = [node]
        for current in out:  # the list grows while it is read: breadth first
            for name in child_fields(current.__class__):
                value = getattr(current, name, None)
                if value.__class__ is list:
                    out.extend(v for v in value if isinstance(v, ast.AST))
                elif isinstance(value, ast.AST):
                    out.append(value)
        rest = node._ffgen_walk = out[1:]
    return itertools.chain((node,), rest)


def children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` as a list, less the expression contexts (as :func:`walk`)."""
    out: list[ast.AST] = []
    for name in child_fields(node.__class__):
        value = getattr(node, name, None)
        if value.__class__ is list:
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


# Fields that never hold a node (names, flags) or hold only an expression context.
_NOT_NODES = frozenset(
    {"id", "name", "attr", "arg", "module", "asname", "kind", "level", "conversion",
     "is_async", "type_comment", "tag", "ctx"}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that can hold child nodes (not names, flags or contexts)."""
    found = _CHILD_FIELDS.get(cls)
    if found is None:
        found = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _NOT_NODES)
    return found


def module_paths(dotted: str) -> tuple[str, str]:
    base = "src/" + dotted.replace(".", "/")
    return base + ".py", base + "/__init__.py"


class CheckoutIndex:
    """Parsed-once view of the Python package and helpers to resolve names and inheritance."""

    def __init__(self, view: CheckoutView) -> None:
        self.view = view
        self._modules: dict[str, ModuleInfo | None] = {}
        self._mro: dict[int, tuple[ClassInfo, ...]] = {}
        self.syntax_problems: dict[str, SyntaxProblem] = {}

    # -- modules -----------------------------------------------------------------------------
    def module(self, dotted: str) -> ModuleInfo | None:
        if dotted not in self._modules:
            self._modules[dotted] = self._load(dotted)
        return self._modules[dotted]

    def loaded(self) -> set[str]:
        """The dotted names of the modules read so far."""
        return set(self._modules)

    def forget(self, modules: set[str]) -> None:
        """Drop what was read of ``modules`` (their trees, classes and parses) so memory holds
        one batch of algorithms at a time; a later question reads them again. Inheritance
        orders are keyed by the identity of classes that may now be freed: all are dropped."""
        for dotted in modules:
            info = self._modules.pop(dotted, None)
            if info is not None:
                self.view.forget(info.path)
        self._mro.clear()

    def module_exists(self, dotted: str) -> bool:
        return any(self.view.exists(p) for p in module_paths(dotted))

    def _load(self, dotted: str) -> ModuleInfo | None:
        for path, is_pkg in zip(module_paths(dotted), (False, True), strict=True):
            text = self.view.read(path)
            if text is not None:
                return self._parse(dotted, path, is_pkg, text)
        return None

    def _parse(self, dotted: str, path: str, is_pkg: bool, text: str) -> ModuleInfo:
        info = ModuleInfo(dotted, path, is_pkg)
        try:
            tree = self.view.python_tree(path, text)  # shared with hints and conformance
        except SyntaxError as exc:
            self.syntax_problems[path] = SyntaxProblem(path, exc.lineno or 1, exc.msg)
            return info
        except (RecursionError, MemoryError):
            self.syntax_problems[path] = SyntaxProblem(path, 1, TOO_DEEP)
            return info
        package = dotted if is_pkg else dotted.rpartition(".")[0]
        try:
            for stmt in _top_level(tree.body):
                self._bind(info, package, stmt)
        except RecursionError:  # like a syntax error: the file cannot be analysed
            self.syntax_problems[path] = SyntaxProblem(path, 1, TOO_DEEP)
            return ModuleInfo(dotted, path, is_pkg)
        return info

    def _bind(self, info: ModuleInfo, package: str, stmt: ast.stmt) -> None:
        b = info.bindings
        if isinstance(stmt, ast.ClassDef):
            b[stmt.name] = _class_info(stmt, info.dotted, info.path)
        elif isinstance(stmt, ast.ImportFrom):
            base = _absolute(package, stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name != "*":
                    b[alias.asname or alias.name] = ImportBinding(base, alias.name, stmt.lineno)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.partition(".")[0]
                target = alias.name if alias.asname else local
                b[local] = ImportBinding(target, None, stmt.lineno)
        else:
            for a in _assignments(stmt):
                b[a.name] = a
                if a.name == "__all__":
                    object.__setattr__(info, "all_names", _string_tuple(a.value))
                    object.__setattr__(info, "all_line", a.line)

    # -- names -------------------------------------------------------------------------------
    def resolve(self, module: str, name: str, depth: int = 0) -> Symbol | None:
        """Follow ``name`` as seen from ``module`` to where it is defined."""
        info = self.module(module)
        if info is None or depth > _MAX_DEPTH:
            return None
        binding = info.bindings.get(name)
        if isinstance(binding, ClassInfo):
            return Symbol("class", binding.qualname, cls=binding)
        if isinstance(binding, Assignment):
            return Symbol("assign", f"{module}.{name}", assign=binding, module=module)
        if isinstance(binding, ImportBinding):
            return self._resolve_import(binding, depth + 1)
        if info.is_package and self.module_exists(f"{module}.{name}"):
            return Symbol("module", f"{module}.{name}", module=f"{module}.{name}")
        return None

    def _resolve_import(self, b: ImportBinding, depth: int) -> Symbol | None:
        if b.attr is None:
            if self.module_exists(b.module):
                return Symbol("module", b.module, module=b.module)
            return Symbol("external", b.module)
        if self.module(b.module) is not None:
            found = self.resolve(b.module, b.attr, depth)
            if found is not None:
                return found
        sub = f"{b.module}.{b.attr}"
        if self.module_exists(sub):
            return Symbol("module", sub, module=sub)
        if b.module.split(".")[0] == ROOT_PACKAGE:
            return None  # an in-package import that points nowhere
        return Symbol("external", sub)

    def resolve_expr(self, module: str, expr: ast.expr, depth: int = 0) -> Symbol | None:
        if isinstance(expr, ast.Name):
            return self.resolve(module, expr.id, depth)
        if isinstance(expr, ast.Subscript):  # Generic[T], ClassVar[...]
            return self.resolve_expr(module, expr.value, depth)
        if isinstance(expr, ast.Attribute):
            owner = self.resolve_expr(module, expr.value, depth + 1)
            if owner is None:
                return None
            if owner.kind == "module" and owner.module:
                return self.resolve(owner.module, expr.attr, depth + 1)
            if owner.kind == "external":
                return Symbol("external", f"{owner.qualname}.{expr.attr}")
        return None

    def resolve_class(self, module: str, expr: ast.expr) -> ClassInfo | None:
        sym = self.resolve_expr(module, expr)
        return sym.cls if sym is not None else None

    def resolve_dotted_class(self, dotted: str) -> ClassInfo | None:
        mod, _, name = dotted.rpartition(".")
        if not mod or self.module(mod) is None:
            return None
        sym = self.resolve(mod, name)
        return sym.cls if sym is not None else None

    # -- classes -----------------------------------------------------------------------------
    def bases(self, cls: ClassInfo) -> tuple[ClassInfo, ...]:
        found = (self.resolve_class(cls.module, b) for b in cls.bases)
        return tuple(c for c in found if c is not None and c is not cls)

    def mro(self, cls: ClassInfo) -> tuple[ClassInfo, ...]:
        key = id(cls)
        if key not in self._mro:
            self._mro[key] = (cls,)  # guards against cycles while computing
            self._mro[key] = _c3(cls, [self.mro(b) for b in self.bases(cls)])
        return self._mro[key]

    def lookup(self, cls: ClassInfo, attr: str) -> tuple[ClassInfo, Assignment] | None:
        for owner in self.mro(cls):
            if attr in owner.assigns:
                return owner, owner.assigns[attr]
        return None

    def find_method(self, cls: ClassInfo, name: str) -> ClassInfo | None:
        for owner in self.mro(cls):
            if name in owner.methods:
                return owner
        return None

    def is_subclass(self, cls: ClassInfo, name: str) -> bool:
        return any(c.name == name for c in self.mro(cls))

    # -- values ------------------------------------------------------------------------------
    def constant_name(self, module: str, expr: ast.expr | None, names: set[str]) -> str | None:
        """The name among ``names`` that ``expr`` refers to, following aliases and imports."""
        for _ in range(_MAX_DEPTH):
            if expr is None:
                return None
            leaf = expr.id if isinstance(expr, ast.Name) else getattr(expr, "attr", None)
            if not isinstance(expr, ast.Name | ast.Attribute):
                return None
            sym = self.resolve_expr(module, expr)
            if sym is None or sym.kind == "external":
                tail = sym.qualname.rpartition(".")[2] if sym else leaf
                return tail if tail in names else None
            if sym.kind != "assign" or sym.assign is None or sym.module is None:
                return None
            if sym.assign.name in names and _is_contract_module(sym.module):
                return sym.assign.name
            module, expr = sym.module, sym.assign.value
        return None

    def literal(self, module: str, expr: ast.expr | None) -> object:
        """A literal value, following one module-level name; ``None`` when not a literal."""
        if isinstance(expr, ast.Name):
            sym = self.resolve(module, expr.id)
            if sym is None or sym.assign is None:
                return None
            expr = sym.assign.value
        if expr is None:
            return None
        try:
            return ast.literal_eval(expr)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None


def _is_contract_module(module: str) -> bool:
    return module.startswith(f"{ROOT_PACKAGE}.contracts")


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module statements, descending into if/try blocks (TYPE_CHECKING, optional imports)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _top_level(stmt.body) + _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            out += _top_level(stmt.body)
            for handler in stmt.handlers:
                out += _top_level(handler.body)
        else:
            out.append(stmt)
    return out


def _absolute(package: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, module] if module else base)


def _assignments(stmt: ast.stmt) -> list[Assignment]:
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [Assignment(stmt.target.id, stmt.value, stmt.annotation, stmt.lineno)]
    if isinstance(stmt, ast.Assign):
        return [
            Assignment(t.id, stmt.value, None, stmt.lineno)
            for t in stmt.targets
            if isinstance(t, ast.Name)
        ]
    return []


def _class_info(node: ast.ClassDef, module: str, path: str) -> ClassInfo:
    assigns: dict[str, Assignment] = {}
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            methods[stmt.name] = stmt
        else:
            for a in _assignments(stmt):
                assigns[a.name] = a
    return ClassInfo(node.name, module, path, node.lineno, tuple(node.bases), assigns, methods)


def _string_tuple(expr: ast.expr | None) -> tuple[str, ...] | None:
    if not isinstance(expr, ast.List | ast.Tuple):
        return None
    return tuple(e.value for e in expr.elts if isinstance(e, ast.Constant) and isinstance(
        e.value, str))


def _c3(cls: ClassInfo, parents: list[tuple[ClassInfo, ...]]) -> tuple[ClassInfo, ...]:
    """C3 linearisation over in-checkout classes; falls back to depth-first on conflicts."""
    seqs = [list(p) for p in parents] + [[p[0] for p in parents if p]]
    out = [cls]
    while any(seqs):
        seqs = [s for s in seqs if s]
        head = next((s[0] for s in seqs if not any(s[0] in t[1:] for t in seqs)), None)
        if head is None:
            rest = [c for p in parents for c in p if c not in out]
            return tuple(out + list(dict.fromkeys(rest)))
        out.append(head)
        seqs = [s[1:] if s[0] is head else s for s in seqs]
    return tuple(out)
