"""What a function's local names are known to be: the typed values rule 6 holds to their class."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ffgen.generate.conformance.members import (
    CLASSMETHOD,
    FUNCTION_KINDS,
    STATIC,
    constant_str,
    is_name,
)
from ffgen.generate.conformance.symbols import ClassRef, target_names
from ffgen.generate.conformance.types import ItemsOf, TupleOf, Type, class_names

if TYPE_CHECKING:
    from ffgen.generate.conformance.file_check import FileCheck


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
        if isinstance(found, ClassRef) and found.name in class_names(self.index, owner):
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
            if not (is_name(node.func, "hasattr") or is_name(node.func, "getattr")):
                continue
            owner = self.type_of(node.args[0])
            if isinstance(owner, ClassRef):
                guarded.setdefault(owner, set()).update(constant_str(node.args[1]))
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
                for name in target_names(element):
                    yield name, None
                if isinstance(element, ast.Starred):
                    for name in target_names(element.value):
                        yield name, None
            else:
                yield from _target_bindings(element, value, (*path, (i, len(target.elts))))


def _other_bound_names(node: ast.AST) -> Iterator[str]:
    """Names bound other than by assignment, loop or walrus: all of unknown type here."""
    if isinstance(node, ast.AugAssign):
        yield from target_names(node.target)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from target_names(node.optional_vars)
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
            yield from target_names(target)


def _narrowed(calls: list[ast.Call]) -> set[str]:
    """Names the code tests with ``isinstance``: it decides itself what they are."""
    found: set[str] = set()
    for node in calls:
        if is_name(node.func, "isinstance") and node.args:
            if isinstance(node.args[0], ast.Name):
                found.add(node.args[0].id)
    return found
