"""``ffgen new NAME --extends KEY``: a strict extension of a sanctioned parent.

The trainer subclasses the parent's trainer and overrides one method, the objective hook (the
parent's ``_objective_loss`` when it has one, else the hook its contract selects), with the
parent's signature and a body that calls it: the algorithm starts as the parent and the user edits
the objective between the markers. The class docstring says why ``BaseTrainer`` plus shared
helpers is not enough (Flow-Factory requires the justification; verify's FF305 reads it). The
arguments subclass the parent's and differ only in the registry key.
"""

from __future__ import annotations

import ast
import textwrap

from ffgen.checkout.layout import dotted_of, package_of
from ffgen.edits._rename import Renames, relative_to
from ffgen.edits.copy_algorithm import defined_names, imports_for
from ffgen.generate.context import RenderContext
from ffgen.generate.like.trainer_type import HELP as TRAINER_TYPE_HELP
from ffgen.store.records import RecordedSource

EDIT_HERE = "    # --- objective: edit here " + "-" * 67
EDIT_END = "    # --- objective: end " + "-" * 73
# The hook's signature when the parent's class does not define it in its own module.
DEFAULT_PARAMS = {"optimize": ["self", "samples"], "optimize_batch": ["self", "batch"]}


def extension_files(src: RecordedSource, ctx: RenderContext) -> dict[str, str]:
    return {ctx.trainer_path: _trainer(src, ctx), ctx.args_path: _args(src, ctx)}


def _relative(from_path: str, to_path: str) -> str:
    level, module = relative_to(package_of(from_path), dotted_of(to_path))
    return "." * level + (module or "")


def _hook(text: str, cls_name: str, hook: str) -> ast.FunctionDef | None:
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name == cls_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == hook:
                    return item
    return None


def _arg(a: ast.arg, default: ast.expr | None) -> str:
    text = a.arg + (f": {ast.unparse(a.annotation)}" if a.annotation else "")
    if default is not None:
        text += (" = " if a.annotation else "=") + ast.unparse(default)
    return text


def _params(fn: ast.FunctionDef) -> tuple[list[str], list[str]]:
    """The parameters as written and the arguments of the ``super()`` call forwarding them."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params = [_arg(p, d) for p, d in zip(positional, defaults, strict=True)]
    call = [p.arg for p in positional[1:]]
    if a.posonlyargs:
        params.insert(len(a.posonlyargs), "/")
    if a.vararg:
        params.append("*" + _arg(a.vararg, None))
        call.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        params.append("*")
    params += [_arg(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    call += [f"{p.arg}={p.arg}" for p in a.kwonlyargs]
    if a.kwarg:
        params.append("**" + _arg(a.kwarg, None))
        call.append("**" + a.kwarg.arg)
    return params, call


def _def_lines(hook: str, params: list[str], returns: str) -> list[str]:
    """``def`` in the form ruff format gives it: one line, else wrapped parameters."""
    tail = f") -> {returns}:" if returns else "):"
    one = f"    def {hook}({', '.join(params)}{tail}"
    if len(one) <= 100:
        return [one]
    inner = "        " + ", ".join(params)
    if len(inner) <= 100:
        return [f"    def {hook}(", inner, "    " + tail]
    return [f"    def {hook}(", *(f"        {p}," for p in params), "    " + tail]


def _annotation_names(fn: ast.FunctionDef | None) -> set[str]:
    if fn is None:
        return set()
    a = fn.args
    nodes = [p.annotation for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.annotation]
    nodes += [p.annotation for p in (a.vararg, a.kwarg) if p is not None and p.annotation]
    nodes += [fn.returns] if fn.returns is not None else []
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def _section(line: str) -> tuple[int, str]:
    """isort's section of one import line and its sort key (relative: furthest first)."""
    import sys

    if line.startswith("from ."):
        dots = len(line[5:]) - len(line[5:].lstrip("."))
        return 3, f"{9 - dots}{line}"
    module = line.split()[1].split(".")[0]
    if module == "flow_factory":
        return 2, line
    return (0 if module in sys.stdlib_module_names else 1), line


def grouped_imports(lines: list[str]) -> list[str]:
    """Import lines in sections (stdlib, third party, first party, relative), a blank line
    between sections, each sorted the way ruff's isort rule sorts them."""
    by_section: dict[int, list[tuple[str, str]]] = {}
    for line in lines:
        section, key = _section(line)
        by_section.setdefault(section, []).append((key, line))
    out: list[str] = []
    for section in sorted(by_section):
        if out:
            out.append("")
        out += [line for _, line in sorted(by_section[section], key=_import_order)]
    return out


def _import_order(item: tuple[str, str]) -> tuple[bool, str]:
    key, line = item
    return line.startswith("from "), key.lower()


def _wrap(text: str, indent: str = "    ") -> list[str]:
    return textwrap.wrap(text, width=96, initial_indent=indent, subsequent_indent=indent)


def _class_doc(src: RecordedSource, ctx: RenderContext) -> list[str]:
    parent, key = src.trainer_class, src.key
    why = (
        f"Why not ``BaseTrainer`` plus shared helpers: this algorithm changes only the "
        f"objective hook ``{src.hook}``; sampling, the replay and feedback stages, checkpoints, "
        f"the execution contract and the paradigm stay exactly ``{key}``'s, and re-deriving them "
        "from ``BaseTrainer`` would duplicate the parent's whole pipeline for a one-method change "
        f"(Flow-Factory sanctions strict extensions of ``{key}`` for this case)."
    )
    return [
        f'    """{ctx.stem}: a strict extension of ``{parent}`` (``{key}``).',
        "",
        *_wrap(why),
        "",
        *_wrap(f"Generated by ffgen for ``{ctx.key}`` (``ffgen new {ctx.key} --extends {key}``)."),
        '    """',
    ]


def _override(src: RecordedSource, fn: ast.FunctionDef | None) -> list[str]:
    if fn is not None:
        params, call = _params(fn)
        returns = ast.unparse(fn.returns) if fn.returns is not None else ""
    else:
        params = DEFAULT_PARAMS.get(src.hook, ["self"])
        call, returns = params[1:], "None"
    body = f"super().{src.hook}({', '.join(call)})"
    doc = (
        f'        """``{src.trainer_class}.{src.hook}``, unchanged until you edit it here '
        '(the only\n        method this strict extension overrides)."""'
    )
    ret = "return " if returns not in ("", "None") else ""
    return [
        EDIT_HERE,
        *_def_lines(src.hook, params, returns),
        doc,
        f"        {ret}{body}",
        "",
        EDIT_END,
    ]


def _trainer(src: RecordedSource, ctx: RenderContext) -> str:
    text = src.text(src.trainer_path) or ""
    fn = _hook(text, src.trainer_class, src.hook)
    names = _annotation_names(fn)
    renames = Renames({}, {}, {}, package_of(src.trainer_path), package_of(ctx.trainer_path))
    own = defined_names(text) & names
    imports = imports_for(text, renames, names - own)
    parent_import = f"from {_relative(ctx.trainer_path, src.trainer_path)} import "
    parent_import += ", ".join(sorted({src.trainer_class, *own}))
    head = [
        f'"""Trainer of the ``{ctx.key}`` algorithm: a strict extension of ``{src.key}``.',
        "",
        *_wrap(
            f"Generated by ffgen. ``{ctx.trainer_class}`` subclasses ``{src.trainer_class}`` "
            "and overrides only its objective hook; edit it between the ``# --- objective`` "
            "markers.",
            indent="",
        ),
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    body = [
        *grouped_imports([line.rstrip("\n") for line in imports] + [parent_import]),
        "",
        f'__all__ = ["{ctx.trainer_class}"]',
        "",
        "",
        f"class {ctx.trainer_class}({src.trainer_class}):",
        *_class_doc(src, ctx),
        "",
        *_override(src, fn),
    ]
    return "\n".join(head + body) + "\n"


def _args(src: RecordedSource, ctx: RenderContext) -> str:
    parent, key, new = src.args_class, src.key, ctx.key
    lines = [
        f'"""Training arguments for the ``{new}`` algorithm: a strict extension of ``{key}``.',
        "",
        *_wrap(
            f"Generated by ffgen. ``{ctx.args_class}`` keeps every field and check of "
            f"``{parent}``; only the registry key differs.",
            indent="",
        ),
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass, field",
        "from typing import Literal",
        "",
        f"from {_relative(ctx.args_path, src.args_path)} import {parent}",
        "",
        f'__all__ = ["{ctx.args_class}"]',
        "",
        "",
        "@dataclass",
        f"class {ctx.args_class}({parent}):",
        f'    """Configure ``{new}``: the fields of ``{parent}``, selected by its own key."""',
        "",
        f'    trainer_type: Literal["{new}"] = field(',
        f'        default="{new}",',
        f'        metadata={{"help": "{TRAINER_TYPE_HELP}"}},',
        "    )",
        "",
        "    def __post_init__(self) -> None:",
        '        """Run the parent\'s validation as for its own key, then check this key."""',
        "        received = self.trainer_type",
        f'        self.trainer_type = "{key}"',
        "        try:",
        "            super().__post_init__()",
        "        finally:",
        "            self.trainer_type = received",
        f'        if received != "{new}":',
        "            raise ValueError(",
        '                f"{type(self).__name__} requires train.trainer_type="',
        f"                f\"'{new}', received {{received!r}}\"",
        "            )",
    ]
    return "\n".join(lines) + "\n"
