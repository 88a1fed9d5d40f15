"""A ``--like`` copy's arguments class selects and checks its own registry key.

Most Flow-Factory arguments classes inherit ``trainer_type`` from ``TrainingArguments`` (default
``"grpo"``); only the classes bound to one key (SFT, offline DPO) declare it as a ``Literal`` of
their key and refuse any other value in ``__post_init__``. A copy is registered under its own key,
so it gets both, as those classes have them: the field first among the fields (after the
docstring and class constants), the refusal right after the ``super().__post_init__()`` call (in
a ``__post_init__`` of its own when the class has none). What the copied class already declares
or checks stays as it is, so the edit is idempotent and a copy of SFT is left untouched.
"""

from __future__ import annotations

import libcst as cst

from ffgen.edits._imports import add_name
from ffgen.edits._module import top_level_class, uses_attribute
from ffgen.edits.base import parse_guarded
from ffgen.edits.copy_algorithm import import_binds
from ffgen.errors import RefusedError

HELP = "Registry key selecting this algorithm (fixed)."
LINE_LIMIT = 100

# The shapes below are tested on the nodes directly: libcst's matchers would say the same, but
# importing them costs a third of a second, as much as the rest of a `--like` run's libcst.


def _is_name(node: cst.CSTNode, value: str) -> bool:
    return isinstance(node, cst.Name) and node.value == value


def _is_super_post_init(node: cst.CSTNode) -> bool:
    """``super().__post_init__(...)``."""
    func = node.func if isinstance(node, cst.Call) else None
    return (isinstance(func, cst.Attribute) and _is_name(func.attr, "__post_init__")
            and isinstance(func.value, cst.Call) and _is_name(func.value.func, "super"))


class _Collect(cst.CSTVisitor):
    def __init__(self, wanted) -> None:
        super().__init__()
        self.wanted = wanted
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.wanted(node):
            self.found.append(node)
        return True


def _find(node: cst.CSTNode, wanted) -> list[cst.CSTNode]:
    """Every node at or under ``node`` for which ``wanted`` holds."""
    collect = _Collect(wanted)
    node.visit(collect)
    return collect.found


def _only(statement: cst.BaseStatement) -> cst.BaseSmallStatement | None:
    """The one small statement of a simple line (None for a compound or a ``a; b`` line)."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def own_trainer_type(text: str, class_name: str, key: str, path: str) -> str:
    """``text`` with ``class_name`` declaring ``trainer_type: Literal[key]`` and refusing another
    value (unchanged when it does both already)."""
    tree = parse_guarded(text, path)
    cls = _class(tree, class_name, path)
    declares, refuses = _declares(cls), _refuses(cls)
    if declares and refuses:
        return text
    new = cls if declares else _with_field(cls, key)
    new = new if refuses else _with_refusal(new, class_name, key)
    tree = tree.with_changes(body=[new if s is cls else s for s in tree.body])
    if not declares:
        tree = _ensure_from_import(tree, "dataclasses", "field", path)
        tree = _ensure_from_import(tree, "typing", "Literal", path)
    return tree.code


def _class(tree: cst.Module, name: str, path: str) -> cst.ClassDef:
    found = top_level_class(tree, name)
    if found is not None:
        return found
    raise RefusedError(
        f"{path}: the copy holds no top-level class {name} to give its own trainer_type; "
        "the copy step lost it (report this)"
    )


def _declares(cls: cst.ClassDef) -> bool:
    """Whether the class body itself binds ``trainer_type`` (annotated or not)."""
    return any(
        isinstance(small, cst.AnnAssign) and _is_name(small.target, "trainer_type")
        or isinstance(small, cst.Assign)
        and any(_is_name(t.target, "trainer_type") for t in small.targets)
        for s in cls.body.body if isinstance(s, cst.SimpleStatementLine)
        for small in s.body
    )


def _post_init(cls: cst.ClassDef) -> cst.FunctionDef | None:
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__post_init__":
            return statement
    return None


def _refuses(cls: cst.ClassDef) -> bool:
    """Whether ``__post_init__`` has an ``if`` that tests ``self.trainer_type``."""
    method = _post_init(cls)
    if method is None:
        return False
    tests = _find(method, lambda node: isinstance(node, cst.If))
    return any(uses_attribute(t.test, "self", "trainer_type") for t in tests)


# -- the field -------------------------------------------------------------------------------


def _field_statement(key: str) -> cst.BaseStatement:
    head = f'trainer_type: Literal["{key}"] = field('
    default, metadata = f'default="{key}"', f'metadata={{"help": "{HELP}"}}'
    if len(head) + len(default) + len(metadata) + 7 <= LINE_LIMIT:  # indent, ", " and ")"
        return cst.parse_statement(f"{head}{default}, {metadata})\n")
    if len(default) + len(metadata) + 10 <= LINE_LIMIT:
        return cst.parse_statement(f"{head}\n    {default}, {metadata}\n)\n")
    return cst.parse_statement(f"{head}\n    {default},\n    {metadata},\n)\n")


def _is_class_constant(statement: cst.BaseStatement) -> bool:
    """The docstring or a ``ClassVar`` line: what stands before the fields."""
    small = _only(statement)
    if isinstance(small, cst.Expr):
        return isinstance(small.value, cst.SimpleString | cst.ConcatenatedString)
    if not isinstance(small, cst.AnnAssign):
        return False
    hint = small.annotation.annotation
    holder = hint.value if isinstance(hint, cst.Subscript) else None
    return _is_name(holder, "ClassVar") or (
        isinstance(holder, cst.Attribute) and _is_name(holder.attr, "ClassVar"))


def _with_field(cls: cst.ClassDef, key: str) -> cst.ClassDef:
    body = list(cls.body.body)
    at = 0
    while at < len(body) and _is_class_constant(body[at]):
        at += 1
    field_line = _field_statement(key)
    if at < len(body):
        field_line, body[at] = _share_spacing(field_line, body[at])
    body.insert(at, field_line)
    return cls.with_changes(body=cls.body.with_changes(body=body))


def _share_spacing(new: cst.BaseStatement, following: cst.BaseStatement):
    """The new field takes the blank lines before ``following``; ``following`` keeps its comments
    but those that speak of ``trainer_type`` (which say it is not declared here: no longer
    true), and one blank line when it is a method."""
    lines = list(following.leading_lines)
    blank = 0
    while blank < len(lines) and lines[blank].comment is None:
        blank += 1
    kept = [
        line for line in lines[blank:]
        if line.comment is None or "trainer_type" not in line.comment.value
    ]
    method = isinstance(following, cst.FunctionDef | cst.ClassDef)
    if method and not (kept and kept[0].comment is None):  # a blank line before a method
        kept = [cst.EmptyLine(indent=False), *kept]
    return (
        new.with_changes(leading_lines=lines[:blank]),
        following.with_changes(leading_lines=kept),
    )


# -- the refusal -----------------------------------------------------------------------------


def _refusal(class_name: str, key: str) -> cst.BaseStatement:
    parts = [f"{class_name} requires ", f"train.trainer_type='{key}', "]
    one_line = f'raise ValueError(f"{"".join(parts)}got {{self.trainer_type!r}}")'
    if len(one_line) + 12 <= LINE_LIMIT:
        raise_text = one_line
    else:
        if len("".join(parts)) + 18 <= LINE_LIMIT:  # indent and quotes
            parts = ["".join(parts)]
        strings = "".join(f'    "{part}"\n' for part in parts)
        raise_text = f'raise ValueError(\n{strings}    f"got {{self.trainer_type!r}}"\n)'
    indented = "\n".join("    " + line for line in raise_text.splitlines())
    return cst.parse_statement(f'if self.trainer_type != "{key}":\n{indented}\n')


def _with_refusal(cls: cst.ClassDef, class_name: str, key: str) -> cst.ClassDef:
    method = _post_init(cls)
    if method is None:
        return _with_post_init(cls, class_name, key)
    statements = list(method.body.body)
    at = next((i + 1 for i, s in enumerate(statements) if _find(s, _is_super_post_init)), None)
    if at is None:  # no super() call: the check goes first (after a docstring)
        at = 1 if statements and _is_class_constant(statements[0]) else 0
    statements.insert(at, _refusal(class_name, key))
    new_method = method.with_changes(body=method.body.with_changes(body=statements))
    body = [new_method if s is method else s for s in cls.body.body]
    return cls.with_changes(body=cls.body.with_changes(body=body))


def _with_post_init(cls: cst.ClassDef, class_name: str, key: str) -> cst.ClassDef:
    """A ``__post_init__`` of its own after the fields (before the first method)."""
    refusal = cst.Module(body=[_refusal(class_name, key)]).code
    inner = "".join("    " + line + "\n" for line in refusal.splitlines())
    method = cst.parse_statement(
        f"def __post_init__(self) -> None:\n    super().__post_init__()\n{inner}"
    ).with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    body = list(cls.body.body)
    at = next(
        (i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef | cst.ClassDef)),
        len(body),
    )
    body.insert(at, method)
    return cls.with_changes(body=cls.body.with_changes(body=body))


# -- imports ---------------------------------------------------------------------------------


def _ensure_from_import(tree: cst.Module, module: str, name: str, path: str) -> cst.Module:
    """``name`` bound from ``module``: already, added to its from-import, or a new line after
    the ``from dataclasses import`` line (loud when the module has neither)."""
    imports = [
        small
        for s in tree.body
        if isinstance(s, cst.SimpleStatementLine)
        for small in s.body
        if isinstance(small, cst.ImportFrom) and not small.relative
    ]
    if any(name in import_binds(i) for i in imports):
        return tree  # bound already (also from elsewhere, such as typing_extensions)
    same = [i for i in imports if _is_name(i.module, module)]
    if any(isinstance(i.names, cst.ImportStar) for i in same):
        return tree
    if same:
        return add_name(tree, same[0], name)
    return _insert_after_dataclasses(tree, module, name, path)


def _insert_after_dataclasses(tree: cst.Module, module: str, name: str, path: str) -> cst.Module:
    body = list(tree.body)
    at = next((i for i, s in enumerate(body)
               if isinstance(small := _only(s), cst.ImportFrom)
               and _is_name(small.module, "dataclasses")), None)
    if at is None:
        raise RefusedError(
            f"{path}: no `from dataclasses import ...` line to place `from {module} import "
            f"{name}` after (the copy's trainer_type field needs it); add it to the source's "
            "imports or to the copy by hand"
        )
    body.insert(at + 1, cst.parse_statement(f"from {module} import {name}\n"))
    return tree.with_changes(body=body)
