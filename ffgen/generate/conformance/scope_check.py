"""Rules 2 to 6 inside one function of a rendered file, and rule 5 on a generated class."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ffgen.generate.conformance.findings import Finding
from ffgen.generate.conformance.index import Index
from ffgen.generate.conformance.members import (
    FUNCTION_KINDS,
    PROPERTY,
    UNKNOWN,
    Member,
    is_name,
    member_from_def,
)
from ffgen.generate.conformance.signatures import Signature, bind, call_problem, override_problem
from ffgen.generate.conformance.symbols import ClassRef, in_package
from ffgen.generate.conformance.types import class_names

if TYPE_CHECKING:
    from ffgen.generate.conformance.file_check import FileCheck
    from ffgen.generate.conformance.local_types import LocalTypes


@dataclasses.dataclass(frozen=True, slots=True)
class ClassCheck:
    """The checks of one generated class of a rendered file."""
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


@dataclasses.dataclass(frozen=True, slots=True)
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
            if cls != owner and owner.name in class_names(self.index, cls):
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
        import difflib  # only for a diff or a suggestion: most runs need neither

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
        for param, arg in bind(sig, call):
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


def _kind_problem(base: Member, mine: Member) -> str | None:
    comparable = (*FUNCTION_KINDS, PROPERTY)
    if base.kind not in comparable or base.kind == mine.kind:
        return None
    return f"as a {mine.kind} (the checkout's is a {base.kind})"


def _is_super(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and is_name(node.func, "super") and not node.args


def _is_super_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and _is_super(call.func.value)
