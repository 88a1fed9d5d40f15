"""Class members as the checks see them: their kinds and signatures, what a class body and its
methods define, and what ``@dataclass`` makes its constructor take."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from ffgen.generate.conformance.signatures import (
    KEYWORD_ONLY,
    POSITIONAL,
    Param,
    Signature,
    signature_of,
)
from ffgen.generate.conformance.symbols import ClassRef, target_names

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


@dataclasses.dataclass(frozen=True, slots=True)
class Member:
    """A method or attribute a checkout class offers, and where it is defined."""
    name: str
    kind: str
    owner: str  # the class that defines it
    signature: Signature | None = None  # None: not a function, or a decorator hides it
    # The def (or annotated assignment) and its module: where its annotations come from.
    node: ast.AST | None = dataclasses.field(default=None, compare=False, repr=False)
    scope: str | None = dataclasses.field(default=None, compare=False, repr=False)

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
    names = [decorator_name(d) for d in node.decorator_list]
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


def decorator_name(node: ast.expr) -> str:
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


# -- what a class body and its methods define


def class_members(cls: ClassRef) -> dict[str, Member]:
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
                for name in target_names(target):
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
        receiver = first_param(method) if isinstance(method, FUNCTIONS) else None
        if receiver is None:
            continue
        for stmt in _statements(method.body):
            for target in _store_targets(stmt):
                found.update(_self_store(target, receiver))
    return found


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


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
        if is_name(call.func, "setattr") and len(call.args) > 1:
            yield call


def _self_store(target: ast.expr, receiver: str) -> Iterator[str]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _self_store(element, receiver)
    elif isinstance(target, ast.Starred):
        yield from _self_store(target.value, receiver)
    elif isinstance(target, ast.Attribute) and is_name(target.value, receiver):
        yield target.attr
    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute):
        if target.value.attr == "__dict__" and is_name(target.value.value, receiver):
            yield from constant_str(target.slice)
    elif isinstance(target, ast.Call) and is_name(target.args[0], receiver):
        yield from constant_str(target.args[1])


def first_param(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    if any(decorator_name(d) == "staticmethod" for d in method.decorator_list):
        return None
    positional = [*method.args.posonlyargs, *method.args.args]
    return positional[0].arg if positional else None


def is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def constant_str(node: ast.AST) -> list[str]:
    return [node.value] if isinstance(node, ast.Constant) and isinstance(node.value, str) else []


# -- dataclass constructors


def dataclass_options(node: ast.ClassDef) -> dict[str, bool] | None:
    """``@dataclass`` options (init, kw_only) of a class, or None when it is not a dataclass."""
    for decorator in node.decorator_list:
        if decorator_name(decorator) != "dataclass":
            continue
        options = {"init": True, "kw_only": False}
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg in options and isinstance(keyword.value, ast.Constant):
                    options[keyword.arg] = bool(keyword.value.value)
        return options
    return None


def dataclass_fields(node: ast.ClassDef, kw_only: bool, scope: str) -> list[Param]:
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
    if not (isinstance(value, ast.Call) and decorator_name(value) == "field"):
        return {}
    options: dict[str, bool] = {"has_default": False}
    for keyword in value.keywords:
        if keyword.arg in ("default", "default_factory"):
            options["has_default"] = True
        elif keyword.arg in ("init", "kw_only") and isinstance(keyword.value, ast.Constant):
            options[keyword.arg] = bool(keyword.value.value)
    return options
