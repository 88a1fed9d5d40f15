"""Checking one rendered file: its imports (rule 1), its calls of imported names (rule 4), and
each of its functions (through ``scope_check``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ffgen.generate.conformance.findings import Finding
from ffgen.generate.conformance.index import Index
from ffgen.generate.conformance.local_types import BINDERS, LocalTypes
from ffgen.generate.conformance.members import FUNCTIONS, first_param
from ffgen.generate.conformance.scope_check import ClassCheck, ScopeCheck
from ffgen.generate.conformance.signatures import bind, call_problem
from ffgen.generate.conformance.symbols import (
    ClassRef,
    Module,
    Symbol,
    definitions,
    dotted_of,
    import_table,
    in_package,
)
from ffgen.generate.conformance.types import Type
from ffgen.verify.index import child_fields


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
            definitions(tree),
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
                functions += [(item, cls) for item in node.body if isinstance(item, FUNCTIONS)]
        functions += [(node, None) for node in self.tree.body if isinstance(node, FUNCTIONS)]
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
        receiver = first_param(func) if cls is not None else None
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
                        {p.name: env.type_of(arg) for p, arg in bind(sig, call)}
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
        import difflib  # only for a diff or a suggestion: most runs need neither

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
            import difflib  # only for a diff or a suggestion: most runs need neither

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


Scope = tuple[list[ast.Attribute], list[ast.Call], list[ast.AST]]  # reads, calls, binders


def _scoped_walk(tree: ast.Module) -> tuple[list[ast.AST], dict[int, Scope]]:
    """Every node but the expression contexts (in ``ast.walk`` order), and for each function
    that is not nested in another (keyed by id) what the checks read of it: its attribute
    reads, calls and binding nodes.

    A function nested in another belongs to it; a class's body belongs to no function (its
    methods are functions of their own: their ``self`` is another object). One walk serves
    every check: this runs on every function of every rendered file."""
    # Breadth first, as ast.walk: ``nodes`` is the queue itself, ``owners`` the scope each
    # queued node belongs to (two lists, no tuple per node: this loop is the hot one).
    nodes: list[ast.AST] = [tree]
    owners: list[Scope | None] = [None]
    scopes: dict[int, Scope] = {}
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for index, node in enumerate(nodes):  # the list grows while it is read
        scope = owners[index]
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
        elif scope is None and kind in functions:
            inner = scopes.setdefault(id(node), ([], [], []))
        else:
            inner = scope
        # ast.iter_child_nodes, inlined, less the expression contexts (Load/Store/Del: a third
        # of the nodes, read by no check here)
        for name in child_fields(kind):
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        nodes.append(item)
                        owners.append(inner)
            elif isinstance(value, ast.AST):
                nodes.append(value)
                owners.append(inner)
    return nodes, scopes
