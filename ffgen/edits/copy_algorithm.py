"""Copy one algorithm's class out of a module into a new module (``ffgen new NAME --like KEY``).

The copy holds the named class and the module-level helpers it uses, transitively (functions,
constants, private classes), never the module's other algorithms: a class of the module it needs
that belongs to another algorithm (GRPO-Guard's base ``GRPOTrainer``) is imported from the
source module instead. Imports are kept only where the copied code uses what they bind, re-based
to the new module's place; ``__all__`` lists the copied public names. Names bound to the source
algorithm are renamed symbol-aware (:mod:`ffgen.edits._rename`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ._rename import Renames, relative_to, rename
from .base import parse_guarded

_ANNOTATION_TEXT = re.compile(r"[A-Za-z_][\w.]*(\[[\w.\[\], ]*\])?")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class CopySpec:
    roots: tuple[str, ...]  # top-level names to copy (the class, names another copy imports)
    renames: Renames
    source_module: str  # dotted name of the module copied from
    external: frozenset[str] = frozenset()  # top-level names imported from it, never copied
    docstring: str | None = None  # the new module's docstring (None: keep the source's)


@dataclass(frozen=True)
class CopiedModule:
    text: str
    copied: tuple[str, ...]  # source names of the top-level definitions copied
    imported: tuple[str, ...]  # source names imported from the source module instead


@dataclass
class _Statement:
    node: cst.BaseStatement
    kind: str  # doc | future | import | all | def | block | other
    binds: frozenset[str] = frozenset()
    uses: frozenset[str] = field(default_factory=frozenset)


class _Uses(cst.CSTVisitor):
    """Every identifier a node reads (over-approximated: locals count too), annotation-like
    strings included (``"RoleUpdatePlan"``); attribute members and keyword names excluded."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self._members: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._members.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._members.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._members:
            self.names.add(node.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and _ANNOTATION_TEXT.fullmatch(value.replace(" ", "")):
            self.names.update(_IDENTIFIER.findall(value))


def uses_of(node: cst.CSTNode) -> frozenset[str]:
    visitor = _Uses()
    node.visit(visitor)
    return frozenset(visitor.names)


def import_binds(small: cst.BaseSmallStatement) -> list[str]:
    """The names one import statement binds."""
    if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
        return [_bound(a) for a in small.names]
    if isinstance(small, cst.Import):
        return [_bound(a).split(".")[0] for a in small.names]
    return []


def _bound(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return get_full_name_for_node(alias.asname.name) or ""
    return get_full_name_for_node(alias.name) or ""


def _classify(node: cst.BaseStatement, first: bool) -> _Statement:
    if isinstance(node, cst.ClassDef | cst.FunctionDef):
        return _Statement(node, "def", frozenset({node.name.value}), uses_of(node))
    if not isinstance(node, cst.SimpleStatementLine):
        binds = frozenset(n for s in _inner_smalls(node) for n in _small_binds(s))
        return _Statement(node, "block" if binds else "other", binds, uses_of(node))
    small = node.body[0]
    if first and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
        return _Statement(node, "doc")
    if isinstance(small, cst.ImportFrom) and get_full_name_for_node(small.module) == "__future__":
        return _Statement(node, "future")
    if isinstance(small, cst.Import | cst.ImportFrom):
        return _Statement(node, "import", frozenset(n for s in node.body for n in import_binds(s)))
    binds = frozenset(n for s in node.body for n in _small_binds(s))
    if binds == {"__all__"}:
        return _Statement(node, "all", binds)
    return _Statement(node, "def" if binds else "other", binds, uses_of(node))


def _small_binds(small: cst.BaseSmallStatement) -> list[str]:
    if isinstance(small, cst.Assign):
        return [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return [small.target.value]
    return import_binds(small)


def _inner_smalls(node: cst.CSTNode) -> list[cst.BaseSmallStatement]:
    """Small statements of a top-level block (``if TYPE_CHECKING:``, ``try:``), not of defs."""
    out: list[cst.BaseSmallStatement] = []
    for child in node.children:
        if isinstance(child, cst.SimpleStatementLine):
            out += list(child.body)
        elif not isinstance(child, cst.ClassDef | cst.FunctionDef):
            out += _inner_smalls(child)
    return out


def _select(statements: list[_Statement], spec: CopySpec) -> tuple[set[int], set[str], set[str]]:
    """Indexes of the definitions to copy, the external names they use, and every name used."""
    defs: dict[str, list[int]] = {}
    for index, s in enumerate(statements):
        if s.kind == "def":
            for name in s.binds:
                defs.setdefault(name, []).append(index)
    selected: set[int] = set()
    external: set[str] = set()
    used: set[str] = set(spec.roots)  # a root may be an import another copy re-imports
    queue = list(spec.roots)
    seen = set(queue)
    while queue:
        for index in defs.get(queue.pop(), []):
            if index in selected:
                continue
            selected.add(index)
            used |= statements[index].uses
            for name in statements[index].uses - seen:
                seen.add(name)
                if name in spec.external and name in defs:
                    external.add(name)
                elif name in defs:
                    queue.append(name)
    return selected, external, used


def _pruned_import(node: cst.SimpleStatementLine, used: set[str]) -> cst.SimpleStatementLine | None:
    """The import line with only the aliases the copy uses (None when nothing is left)."""
    smalls = []
    for small in node.body:
        if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
            continue
        names = list(small.names)  # type: ignore[union-attr]
        kept = [a for a in names if _bound(a).split(".")[0] in used]
        if not kept:
            continue
        if len(kept) != len(names) and not getattr(small, "lpar", None):
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        smalls.append(small.with_changes(names=kept))
    return node.with_changes(body=smalls) if smalls else None


def _all_statement(node: cst.SimpleStatementLine, names: list[str]) -> cst.SimpleStatementLine:
    items = ", ".join(f'"{n}"' for n in names)
    text = f"__all__ = [{items}]"
    if len(text) > 100:
        text = "__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]"
    return cst.parse_statement(text + "\n").with_changes(leading_lines=node.leading_lines)


def _source_all(node: cst.SimpleStatementLine) -> list[str]:
    value = getattr(node.body[0], "value", None)
    if not isinstance(value, cst.List | cst.Tuple):
        return []
    out = []
    for element in value.elements:
        if isinstance(element.value, cst.SimpleString):
            out.append(str(element.value.evaluated_value))
    return out


def _external_import(spec: CopySpec, names: set[str]) -> cst.SimpleStatementLine:
    level, module = relative_to(spec.renames.target_package, spec.source_module)
    where = "." * level + (module or "")
    return cst.parse_statement(f"from {where} import {', '.join(sorted(names))}\n")


def _docstring(text: str) -> cst.SimpleStatementLine:
    return cst.parse_statement(f'"""{text}"""\n')


def copy_module(source: str, spec: CopySpec) -> CopiedModule:
    """The new module's text: ``spec.roots`` and what they use, renamed and re-based."""
    tree = parse_guarded(source, "the --like source module")
    statements = [_classify(node, i == 0) for i, node in enumerate(tree.body)]
    selected, external, used = _select(statements, spec)
    for s in statements:  # a kept block (``if TYPE_CHECKING:``) needs what it reads too
        if s.kind == "block" and s.binds & used:
            used |= s.uses
    copied = [n for i in sorted(selected) for n in sorted(statements[i].binds)]
    body: list[cst.BaseStatement] = []
    if spec.docstring is not None:
        body.append(_docstring(spec.docstring))
    last_import = -1
    for index, s in enumerate(statements):
        node = _kept(s, index, selected, used, copied, spec)
        if node is None:
            continue
        if s.kind in ("future", "import"):
            last_import = len(body)
        body.append(rename(node, spec.renames))  # type: ignore[arg-type]
    if external:
        at = last_import + 1 if last_import >= 0 else int(spec.docstring is not None)
        line = _external_import(spec, external)
        if at and last_import < 0:
            line = line.with_changes(leading_lines=[cst.EmptyLine()])
        body.insert(at, line)
    module = tree.with_changes(body=body, header=_renamed_header(tree, spec))
    return CopiedModule(module.code, tuple(copied), tuple(sorted(external)))


def _kept(
    s: _Statement, index: int, selected: set[int], used: set[str], copied: list[str], spec: CopySpec
) -> cst.BaseStatement | None:
    if s.kind == "doc":
        return None if spec.docstring is not None else s.node
    if s.kind == "future":
        return s.node
    if s.kind == "import":
        return _pruned_import(s.node, used)  # type: ignore[arg-type]
    if s.kind == "block":
        return s.node if s.binds & used else None
    if s.kind == "all":
        names = [n for n in _source_all(s.node) if n in copied]  # type: ignore[arg-type]
        renamed = [spec.renames.names.get(n, n) for n in names]
        return _all_statement(s.node, renamed) if renamed else None  # type: ignore[arg-type]
    return s.node if index in selected else None


def _renamed_header(tree: cst.Module, spec: CopySpec) -> list[cst.EmptyLine]:
    return [rename(line, spec.renames) for line in tree.header]  # type: ignore[misc]


def imports_for(source: str, renames: Renames, names: set[str]) -> list[str]:
    """The import lines of ``source`` that bind ``names``, pruned and re-based (for a new
    module that uses a few of the source's names, such as an ``--extends`` child)."""
    tree = parse_guarded(source, "the --like source module")
    lines = []
    for index, node in enumerate(tree.body):
        s = _classify(node, index == 0)
        if s.kind != "import" or not s.binds & names:
            continue
        pruned = _pruned_import(node, names)  # type: ignore[arg-type]
        if pruned is not None:
            renamed = rename(pruned.with_changes(leading_lines=[]), renames)
            lines.append(cst.Module(body=[renamed]).code)  # type: ignore[list-item]
    return lines


def defined_names(source: str) -> set[str]:
    """Top-level names ``source`` defines itself (classes, functions, assignments)."""
    tree = parse_guarded(source, "the --like source module")
    statements = [_classify(node, i == 0) for i, node in enumerate(tree.body)]
    return {n for s in statements if s.kind == "def" for n in s.binds}
