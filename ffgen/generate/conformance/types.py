"""Types from the checkout's own annotations: what a value annotated so is, and what a parameter
annotated so admits."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from ffgen.generate.conformance.members import (
    ATTRIBUTE,
    KEEPS_SIGNATURE,
    PROPERTY,
    UNKNOWN,
    Member,
    decorator_name,
    is_name,
)
from ffgen.generate.conformance.symbols import ClassRef, Opaque, Symbol

if TYPE_CHECKING:
    from ffgen.generate.conformance.index import Index


@dataclasses.dataclass(frozen=True, slots=True)
class TupleOf:
    """A fixed-length tuple (``Tuple[A, B]``): what unpacking it gives, item by item."""

    items: tuple[Type | None, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class ItemsOf:
    """An iterable of one item type (``List[A]``, ``Iterator[A]``): what a loop over it gives."""

    item: Type


# What a value is statically known to be: an instance of a checkout class (or of a rendered class
# deriving from one), or a tuple / iterable of such. Everything else is unknown (None).
Type = ClassRef | TupleOf | ItemsOf


@dataclasses.dataclass(frozen=True, slots=True)
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
        names = class_names(self.index, cls)
        for admitted in expect.admits:
            if isinstance(admitted, ClassRef) and admitted.name in names:
                return True
            # a value typed as a base may be an instance of the admitted subclass
            if isinstance(admitted, ClassRef) and cls.name in class_names(self.index, admitted):
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
            if isinstance(node, ast.Call) and decorator_name(node) == "register":
                if any(is_name(a, cls.name) for a in node.args):
                    return True
        return any(decorator_name(d) == "register" for d in cls.node.decorator_list)

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
        names = {decorator_name(d) for d in node.decorator_list}
        if names & CONTEXT_DECORATORS or not names <= KEEPS_SIGNATURE | {
            "staticmethod",
            "classmethod",
        }:
            return None
        return self.of(node.returns, scope)


def class_names(index: Index, cls: ClassRef) -> set[str]:
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
