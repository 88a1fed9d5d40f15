"""The text a hyperparameter puts into the generated files: the field, its checks, the example's
value, the docs' row and the arguments test's rows.

The templates insert these strings as they are, and ``ffgen param add``'s edits
(:mod:`ffgen.edits.args_param`, :mod:`ffgen.edits.param_lines`) insert the very same strings into
files the user edited, so both ways give the same bytes. The Python is laid out the way
``ruff format`` (line length 100) lays it out, so a generated module passes ``ruff format
--check`` whatever the name's length.
"""

from __future__ import annotations

import ast
import dataclasses

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView
from ffgen.classify.params import ParamSet, ParamSpec
from ffgen.errors import UsageError

WIDTH = 100
FIELD_INDENT = " " * 4
CHECK_INDENT = " " * 8
HELP_PREFIX = "Objective hyperparameter"


@dataclasses.dataclass(frozen=True, slots=True)
class ParamView:
    """One param as the templates see it."""

    name: str
    field: str  # the dataclass field, indented for the class body, no final newline
    checks: str  # its statements at the end of ``__post_init__``, no final newline
    yaml: str  # the example config's value
    doc_row: str  # the row of the docs' parameter table
    uses_math: bool  # the checks use ``math.inf``


def param_views(params: ParamSet | None) -> tuple[ParamView, ...]:
    return tuple(param_view(p) for p in params.items) if params else ()


def param_view(p: ParamSpec) -> ParamView:
    view = ParamView(
        name=p.name,
        field=field_code(p),
        checks=check_code(p),
        yaml=yaml_value(p),
        doc_row=f"| `{p.name}` | `{doc_value(p)}` | {markdown_cell(help_text(p))} |",
        uses_math=p.kind == "float",
    )
    # The help text's lines are laid out to fit (a single word too long for a line stays whole).
    code = view.field.splitlines()[:2] + view.checks.splitlines()
    too_long = [line for line in code if len(line) > WIDTH]
    if too_long:
        raise UsageError(
            f"--param {str(p)!r}: its generated code would not fit {WIDTH} columns "
            f"({too_long[0].strip()[:40]}...); use a shorter name, bounds or choices"
        )
    return view


# -- the field ---------------------------------------------------------------------------------


def help_text(p: ParamSpec) -> str:
    """The user's help text, else a generic one that names the allowed values."""
    if p.help:
        return p.help
    text = f"{HELP_PREFIX}: {p.describe()}."
    if len(f'{CHECK_INDENT}metadata={{"help": "{text}"}},') > WIDTH:
        return f"{HELP_PREFIX}; __post_init__ lists its allowed values."
    return text


def markdown_cell(text: str) -> str:
    """Text for one cell of a Markdown table: a '|' would end the cell."""
    return text.replace("|", "\\|")


def _metadata_lines(text: str) -> list[str]:
    """``metadata={"help": ...},`` as ruff format lays it out: one line, else the dict split
    with the text on its own line, else the text in implicitly joined parts that each fit
    (split at spaces; a word too long for any line stays whole, as ruff leaves it)."""
    one = f'{CHECK_INDENT}metadata={{"help": "{text}"}},'
    if len(one) <= WIDTH:
        return [one]
    inner = CHECK_INDENT + "    "
    parts: list[str] = []
    line = f'{inner}"help": "'
    for word in text.split(" "):
        piece = word if line.endswith('"') else " " + word
        if len(line) + len(piece) + 2 > WIDTH and not line.endswith('"'):
            parts.append(line + ' "')  # the space ends this part, as the templates write it
            line, piece = f'{inner}"', word
        line += piece
    parts.append(line + '"')
    return [f"{CHECK_INDENT}metadata={{", *parts, f"{CHECK_INDENT}}},"]


def annotation(p: ParamSpec) -> str:
    if p.choices:
        return "Literal[" + ", ".join(python_literal(c) for c in p.choices) + "]"
    return p.kind


def field_code(p: ParamSpec) -> str:
    return "\n".join((
        f"{FIELD_INDENT}{p.name}: {annotation(p)} = field(",
        f"{CHECK_INDENT}default={python_literal(p.default)},",
        *_metadata_lines(help_text(p)),
        f"{FIELD_INDENT})",
    ))


def python_literal(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'  # the parser admits no quote or backslash in a string
    return repr(value)


# -- the checks --------------------------------------------------------------------------------


def check_code(p: ParamSpec) -> str:
    """Type first (TypeError), then the value (ValueError), as the templates' own fields do."""
    attr = f"self.{p.name}"
    lines = [_type_check(p, attr), _raise("TypeError", p)]
    if p.kind == "float":
        lines.append(f"{CHECK_INDENT}{attr} = float({attr})")
    value_check = _value_check(p, attr)
    if value_check:
        lines += [value_check, _raise("ValueError", p)]
    return "\n".join(lines)


def _type_check(p: ParamSpec, attr: str) -> str:
    if p.kind in ("bool", "str"):
        return f"{CHECK_INDENT}if not isinstance({attr}, {p.kind}):"
    types = "(int, float)" if p.kind == "float" else "int"
    head = f"{CHECK_INDENT}if isinstance({attr}, bool) or not isinstance("
    one = f"{head}{attr}, {types}):"
    if len(one) <= WIDTH:
        return one
    return f"{head}\n{CHECK_INDENT}    {attr}, {types}\n{CHECK_INDENT}):"


def _value_check(p: ParamSpec, attr: str) -> str:
    if p.choices:
        listed = ", ".join(python_literal(c) for c in p.choices)
        return f"{CHECK_INDENT}if {attr} not in ({listed}):"
    if p.kind == "float":
        return f"{CHECK_INDENT}if not {_float_interval(p, attr)}:"
    if p.kind == "int" and p.bounds is not None:
        return f"{CHECK_INDENT}if {_int_outside(p, attr)}:"
    return ""


def _float_interval(p: ParamSpec, attr: str) -> str:
    """A chained comparison that is false for NaN and the infinities too."""
    b = p.bounds
    low = "-math.inf" if b is None or b.low is None else repr(float(b.low))
    high = "math.inf" if b is None or b.high is None else repr(float(b.high))
    low_op = "<" if b is None or b.low is None or b.low_open else "<="
    high_op = "<" if b is None or b.high is None or b.high_open else "<="
    return f"{low} {low_op} {attr} {high_op} {high}"


def _int_outside(p: ParamSpec, attr: str) -> str:
    b = p.bounds
    assert b is not None
    if b.low is not None and b.high is not None:
        low_op, high_op = ("<" if b.low_open else "<="), ("<" if b.high_open else "<=")
        return f"not {b.low} {low_op} {attr} {high_op} {b.high}"
    if b.low is not None:
        return f"{attr} {'<=' if b.low_open else '<'} {b.low}"
    return f"{attr} {'>=' if b.high_open else '>'} {b.high}"


def _raise(error: str, p: ParamSpec) -> str:
    """``raise Error(f"train.NAME must be ..., received {self.NAME!r}")`` as ruff lays it out:
    one line, else the message on its own line, else the message in two parts."""
    pad, inner = CHECK_INDENT + "    ", CHECK_INDENT + "        "
    head = f"train.{p.name} must be {p.describe()}, "
    tail = f"received {{self.{p.name}!r}}"
    message = f'f"{head}{tail}"'
    one = f"{pad}raise {error}({message})"
    if len(one) <= WIDTH:
        return one
    if len(inner + message) <= WIDTH:
        return f"{pad}raise {error}(\n{inner}{message}\n{pad})"
    return f'{pad}raise {error}(\n{inner}"{head}"\n{inner}f"{tail}"\n{pad})'


# -- the example, the docs and the arguments test ------------------------------------------------


def yaml_value(p: ParamSpec) -> str:
    """The default as the example config writes it (PyYAML reads ``1e-05`` as text, so an
    exponent gets a mantissa with a dot)."""
    value = p.default
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text
    return str(value)


def doc_value(p: ParamSpec) -> str:
    if isinstance(p.default, str):
        return p.default or '""'
    return yaml_value(p)


def rejected_values(p: ParamSpec) -> tuple[tuple[str, str], ...]:
    """(Python literal, error) pairs the arguments class must refuse: a wrong type, and a value
    outside the constraint (NaN for an unconstrained float)."""
    wrong_type = {"float": '"not-a-number"', "int": "1.5", "bool": '"yes"', "str": "1"}
    out = [(wrong_type[p.kind], "TypeError")]
    outside = _outside_value(p)
    if outside is not None:
        out.append((outside, "ValueError"))
    return tuple(out)


def _outside_value(p: ParamSpec) -> str | None:
    if p.choices:
        return '"not a choice"' if p.kind == "str" else str(max(int(c) for c in p.choices) + 1)
    b = p.bounds
    if b is None:
        return 'float("nan")' if p.kind == "float" else None
    if b.low is not None:
        value = b.low if b.low_open else b.low - 1
    else:
        value = b.high if b.high_open else b.high + 1  # type: ignore[operator]
    return repr(float(value)) if p.kind == "float" else str(int(value))


def param_rows(params: ParamSet | None) -> tuple[tuple[tuple[str, str, str], ...], tuple]:
    """The arguments test's rejected ``(name, value, error)`` rows and ``(name, default)``
    rows of the params."""
    items = params.items if params else ()
    rejected = tuple((p.name, v, e) for p in items for v, e in rejected_values(p))
    defaults = tuple((p.name, python_literal(p.default)) for p in items)
    return rejected, defaults


def help_rows(params: ParamSet | None) -> tuple[str, ...]:
    """The arguments test's ``(name, help)`` rows of the params that carry their own help
    text, each laid out as ruff format lays out a tuple in a list: one line, else one element
    per line with a trailing comma."""
    rows = []
    for p in params.items if params else ():
        if not p.help:
            continue
        one = f'{CHECK_INDENT}("{p.name}", "{p.help}"),'
        if len(one) <= WIDTH:
            rows.append(one)
        else:
            inner = CHECK_INDENT + "    "
            rows.append(f'{CHECK_INDENT}(\n{inner}"{p.name}",\n{inner}"{p.help}",\n{CHECK_INDENT}),')
    return tuple(rows)


# -- the names the arguments class already has ------------------------------------------------


def check_params(view: CheckoutView, ctx) -> None:
    """Refuse a param whose name the generated arguments class (``ctx``'s render) or the
    checkout's base class (with its bases) already defines."""
    clash = param_clash(view, ctx)
    if clash is not None:
        raise UsageError(f"--param {clash[0]!r}: {clash[1]}; choose another name")


def param_clash(view: CheckoutView, ctx) -> tuple[str, str] | None:
    """The first param whose name the arguments class would also get from its template or its
    base, and why (None: none). ``update`` asks too: a template may add a field a recorded
    param already named."""
    if not ctx.params:
        return None
    own = rendered_members(ctx)
    base = base_class(ctx.acquisition)
    inherited = _inherited_members(view, base)
    for p in ctx.params:
        if own.count(p.name) > 1:
            return p.name, (f"{ctx.args_class} already has a field {p.name!r} of its own (the "
                            "algorithm's)")
        if p.name in inherited:
            return p.name, (f"{inherited[p.name]} already defines {p.name!r} and the arguments "
                            "class inherits it")
    return None


def rendered_members(ctx) -> list[str]:
    """The members of the arguments class as ``ctx`` renders it (its params included)."""
    from ffgen.generate import render  # here: only a render needs Jinja

    return class_members(ast.parse(render.render(render.ARGS_TEMPLATE, ctx)), ctx.args_class)


def class_members(tree: ast.Module, name: str) -> list[str]:
    """The names class ``name`` of ``tree`` binds in its body (fields, attributes, methods)."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return _members(node)
    return []


def _members(node: ast.ClassDef) -> list[str]:
    out = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            out.append(item.target.id)
        elif isinstance(item, ast.Assign):
            out += [t.id for t in item.targets if isinstance(t, ast.Name)]
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append(item.name)
    return out


BASE_MODULES = (layout.ARGS_BASE, layout.ARGS_OFFLINE, f"{layout.PKG}/hparams/abc.py")


def _inherited_members(view: CheckoutView, base: str) -> dict[str, str]:
    """Member name -> defining class, over ``base`` and the bases it has in the modules that
    define the checkout's argument base classes (unreadable modules add nothing)."""
    classes: dict[str, ast.ClassDef] = {}
    for rel in BASE_MODULES:
        text = view.read(rel)
        try:
            tree = ast.parse(text) if text is not None else None
        except (SyntaxError, RecursionError, MemoryError):
            tree = None
        for node in tree.body if tree is not None else ():
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
    out: dict[str, str] = {}
    todo, seen = [base], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in classes:
            continue
        seen.add(name)
        node = classes[name]
        for member in _members(node):
            out.setdefault(member, name)
        todo += [b.id for b in node.bases if isinstance(b, ast.Name)]
    return out


def base_class(acquisition: str) -> str:
    """The checkout class the generated arguments class derives from."""
    if acquisition == "dataset":
        return "OfflineFlowMatchingTrainingArguments"
    return "TrainingArguments"
