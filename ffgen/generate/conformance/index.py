"""The checkout, parsed once: its modules and classes, each parsed and resolved on demand."""

from __future__ import annotations

import ast
import builtins

from ffgen.checkout.view import CheckoutView
from ffgen.generate.conformance.members import (
    OBJECT_NAMES,
    PLAIN_EXTERNAL_BASES,
    UNKNOWN,
    Member,
    class_members,
    dataclass_fields,
    dataclass_options,
    member_from_def,
)
from ffgen.generate.conformance.signatures import KEYWORD_ONLY, Param, Signature
from ffgen.generate.conformance.symbols import (
    ClassRef,
    Module,
    Opaque,
    Symbol,
    definitions,
    import_table,
    in_package,
    top_level,
)
from ffgen.generate.conformance.types import Types

ADAPTER_MODULE = "flow_factory.models.abc"
ADAPTER_CLASS = "BaseAdapter"


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
                self._trees[path] = None if text is None else self.view.python_tree(path, text)
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
        table, stars, _ = import_table(top_level(tree), dotted, is_package)
        defs = definitions(tree)
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
            self._members[key] = class_members(cls)
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
            options = dataclass_options(item.node)
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
            options = dataclass_options(item.node)
            if options is not None:
                for param in dataclass_fields(item.node, options["kw_only"], item.module):
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
