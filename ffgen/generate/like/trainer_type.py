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
import libcst.matchers as m

from ffgen.edits._imports import add_name
from ffgen.edits._module import top_level_class
from ffgen.edits.base import parse_guarded
from ffgen.edits.copy_algorithm import import_binds
from ffgen.errors import RefusedError

HELP = "Registry key selecting this algorithm (fixed)."
LINE_LIMIT = 100
_SELF_TRAINER_TYPE = m.Attribute(value=m.Name("self"), attr=m.Name("trainer_type"))
_SUPER_POST_INIT = m.Call(
    func=m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name("__post_init__"))
)


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
    target = m.Name("trainer_type")
    declared = m.SimpleStatementLine(
        body=[m.ZeroOrMore(), m.AnnAssign(target=target) | m.Assign(
            targets=[m.ZeroOrMore(), m.AssignTarget(target=target), m.ZeroOrMore()]
        ), m.ZeroOrMore()]
    )
    return any(m.matches(s, declared) for s in cls.body.body)


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
    tests = m.findall(method, m.If())
    return any(m.findall(t.test, _SELF_TRAINER_TYPE) for t in tests if isinstance(t, cst.If))


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
    doc = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())])
    class_var = m.Subscript(value=m.Name("ClassVar") | m.Attribute(attr=m.Name("ClassVar")))
    constant = m.SimpleStatementLine(body=[m.AnnAssign(annotation=m.Annotation(class_var))])
    return m.matches(statement, doc | constant)


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
    at = next((i + 1 for i, s in enumerate(statements) if m.findall(s, _SUPER_POST_INIT)), None)
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
    same = [i for i in imports if m.matches(i.module, m.Name(module))]
    if any(isinstance(i.names, cst.ImportStar) for i in same):
        return tree
    if same:
        return add_name(tree, same[0], name)
    return _insert_after_dataclasses(tree, module, name, path)


def _insert_after_dataclasses(tree: cst.Module, module: str, name: str, path: str) -> cst.Module:
    body = list(tree.body)
    anchor = m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name("dataclasses"))])
    at = next((i for i, s in enumerate(body) if m.matches(s, anchor)), None)
    if at is None:
        raise RefusedError(
            f"{path}: no `from dataclasses import ...` line to place `from {module} import "
            f"{name}` after (the copy's trainer_type field needs it); add it to the source's "
            "imports or to the copy by hand"
        )
    body.insert(at + 1, cst.parse_statement(f"from {module} import {name}\n"))
    return tree.with_changes(body=body)
