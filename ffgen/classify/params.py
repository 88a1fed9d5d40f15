"""Hyperparameters an algorithm adds to its arguments class:
``NAME:TYPE=DEFAULT[:CONSTRAINT[:HELP]]``.

``ffgen new --param`` and ``ffgen param add`` take one spec each; the record keeps them, one per
line, in the canonical form :func:`str` gives, so a replay parses back the very same params.
Pure values and parsing only: what the generated code looks like is
:mod:`ffgen.generate.param_code`.
"""

from __future__ import annotations

import dataclasses
import keyword
import math
import re

from ffgen.errors import UsageError

KINDS = ("float", "int", "bool", "str")
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_NAME = 32  # longer names no longer fit the generated checks' lines
MAX_TEXT = 60  # a string default or choice list longer than this does not fit a field's line
MAX_HELP = 200  # a help text is a sentence or two, not the docs
CHOICE_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
# A string default stays printable ASCII without the characters that would need escaping in
# Python, YAML or the docs' table.
_TEXT_RE = re.compile(r'^[ !#-\[\]-_a-{}~]*$')
# Names the generated class already gives a meaning (the base classes' are checked against the
# checkout when the plan is made).
RESERVED = ("trainer_type", "execution_contract", "extra_kwargs")
SYNTAX = "NAME:TYPE=DEFAULT[:CONSTRAINT[:HELP]], e.g. 'margin:float=0.1:>=0:Margin of the loss'"
CONSTRAINTS = "'>=X', '>X', '<=X', '<X', 'in (A, B]' or choices 'a|b'"
_INTERVAL_RE = re.compile(r"^in\s*([\[(])\s*([^,]+?)\s*,\s*([^\])]+?)\s*([\])])$")

Value = float | int | bool | str


@dataclasses.dataclass(frozen=True, slots=True)
class Bounds:
    """An interval; ``None`` leaves that side open-ended."""

    low: float | int | None = None
    high: float | int | None = None
    low_open: bool = False
    high_open: bool = False

    def admits(self, value: float | int) -> bool:
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        if self.high is not None:
            return value < self.high if self.high_open else value <= self.high
        return True

    def text(self) -> str:
        """The constraint as a spec writes it: ``>=0``, ``<1``, ``in (0, 1]``."""
        if self.low is not None and self.high is not None:
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"in {left}{number_text(self.low)}, {number_text(self.high)}{right}"
        if self.low is not None:
            return (">" if self.low_open else ">=") + number_text(self.low)
        return ("<" if self.high_open else "<=") + number_text(self.high)  # type: ignore[arg-type]

    def describe(self) -> str:
        """For messages and help: ``>= 0``, ``in (0, 1]``."""
        text = self.text()
        return text if text.startswith("in ") else re.sub(r"^([<>]=?)", r"\1 ", text)


@dataclasses.dataclass(frozen=True, slots=True)
class ParamSpec:
    """One hyperparameter: its field name, type, default and optional constraint."""

    name: str
    kind: str  # one of KINDS
    default: Value
    bounds: Bounds | None = None
    choices: tuple[int | str, ...] = ()
    help: str = ""  # what the field means, as the user wrote it ("": ffgen's generic text)

    def __str__(self) -> str:
        text = f"{self.name}:{self.kind}={value_text(self.default)}"
        constraint = ""
        if self.bounds is not None:
            constraint = self.bounds.text()
        elif self.choices:
            constraint = "|".join(str(c) for c in self.choices)
        if self.help:
            return f"{text}:{constraint}:{self.help}"
        return f"{text}:{constraint}" if constraint else text

    def describe(self) -> str:
        """What a valid value is, for messages, help and docs: ``a finite float >= 0``."""
        if self.choices:
            return "one of " + ", ".join(
                repr(c) if isinstance(c, str) else str(c) for c in self.choices
            )
        base = {"float": "a finite float", "int": "an int", "bool": "a bool", "str": "a string"}
        bounds = f" {self.bounds.describe()}" if self.bounds is not None else ""
        return base[self.kind] + bounds


@dataclasses.dataclass(frozen=True, slots=True)
class ParamSet:
    """An algorithm's params in order; the record's ``params`` answer is its text."""

    items: tuple[ParamSpec, ...]

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.items)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.items)

    def get(self, name: str) -> ParamSpec | None:
        return next((p for p in self.items if p.name == name), None)


def parse_params(text: str) -> ParamSet | None:
    """The params of a flag or a record: one spec per line (``None`` when there are none)."""
    specs = tuple(parse_param(line) for line in text.splitlines() if line.strip())
    names = [p.name for p in specs]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise UsageError(f"--param {twice!r} is given twice; give each name once")
    return ParamSet(specs) if specs else None


def params_text(specs: list[str] | tuple[str, ...] | None) -> str | None:
    """Repeated ``--param`` values as one answer (their lines), ``None`` when none is given."""
    if not specs:
        return None
    return "\n".join(spec.strip() for spec in specs)


def parse_param(text: str, where: str = "--param") -> ParamSpec:
    """One spec; every mistake is a one-line usage error naming it and the form to use."""
    spec = text.strip()

    def fail(problem: str) -> UsageError:
        return UsageError(f"{where} {spec!r}: {problem}")

    name, sep, rest = spec.partition(":")
    if not sep:
        raise fail(f"no ':TYPE' after the name; write {SYNTAX}")
    check_name(name.strip(), fail)
    kind, sep, value = rest.partition("=")
    kind = kind.strip()
    if kind not in KINDS:
        raise fail(f"type {kind!r} is not one of {', '.join(KINDS)}; write {SYNTAX}")
    if not sep:
        raise fail(f"no '=DEFAULT' after the type; write {SYNTAX}")
    default_text, constraint_text, help_text = _split_constraint(kind, value)
    default = parse_value(kind, default_text, fail)
    bounds, choices = parse_constraint(kind, constraint_text, fail)
    param = ParamSpec(name.strip(), kind, default, bounds, choices, check_help(help_text, fail))
    if not admits(param, default):
        raise fail(f"the default {value_text(default)} is not {param.describe()}; "
                   "change the default or the constraint")
    return param


def check_name(name: str, fail) -> None:
    if not NAME_RE.match(name):
        raise fail(f"name {name!r} is not a lowercase Python identifier (letters, digits, '_')")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise fail(f"name {name!r} is a Python keyword; choose another name")
    if len(name) > MAX_NAME:
        raise fail(f"name {name!r} is longer than {MAX_NAME} characters; choose a shorter one")
    if name in RESERVED:
        raise fail(f"name {name!r} is already a field of every arguments class; choose another")


def _split_constraint(kind: str, value: str) -> tuple[str, str, str]:
    """DEFAULT, CONSTRAINT and HELP. The help is everything after the third ':' (it may hold
    ':' itself). A string's default may hold ':' too (``toy:seed=7``), so for a string the
    default ends at the first part that is empty or reads as a constraint."""
    if kind != "str":
        default, _, rest = value.partition(":")
        constraint, _, help_text = rest.partition(":")
        return default.strip(), constraint.strip(), help_text
    parts = value.split(":")
    for at in range(1, len(parts)):
        if not parts[at].strip() or _looks_like_constraint(parts[at].strip()):
            return ":".join(parts[:at]), parts[at].strip(), ":".join(parts[at + 1 :])
    return value, "", ""


def check_help(text: str, fail) -> str:
    """The help text as the field, the docs and the tests carry it: one printable line. The
    generated field writes it in a plain double-quoted literal, so it holds no '"' or '\\'
    (the Markdown row escapes '|' itself)."""
    text = text.strip()
    if not text.isprintable() or '"' in text or "\\" in text or len(text) > MAX_HELP:
        raise fail(f"the help text must be printable, on one line, without '\"' or '\\', at "
                   f"most {MAX_HELP} characters (write ' for a quote)")
    return text


def _looks_like_constraint(text: str) -> bool:
    return "|" in text or text.startswith((">", "<", "in ", "in(", "in[", "choices"))


def parse_value(kind: str, text: str, fail) -> Value:
    """A default (or bound, or choice) of ``kind``, from its spec text."""
    if kind == "str":
        if "|" in text:
            raise fail(f"the default {text!r} holds '|'; choices follow the default: "
                       "NAME:str=DEFAULT:a|b")
        if not _TEXT_RE.match(text) or len(text) > MAX_TEXT:
            raise fail(f"the default {text!r} must be printable ASCII without quotes, '\\', '`' "
                       f"or '|', at most {MAX_TEXT} characters")
        return text
    if kind == "bool":
        if text.lower() not in ("true", "false"):
            raise fail(f"the default {text!r} is not a bool; write true or false")
        return text.lower() == "true"
    return parse_number(kind, text, fail, "the default")


def parse_number(kind: str, text: str, fail, what: str) -> float | int:
    try:
        number = int(text) if kind == "int" else float(text)
    except ValueError:
        article = "an" if kind == "int" else "a"
        raise fail(f"{what} {text!r} is not {article} {kind}") from None
    if isinstance(number, float) and not math.isfinite(number):
        raise fail(f"{what} {text!r} is not finite; give a finite number")
    return number


def parse_constraint(kind: str, text: str, fail) -> tuple[Bounds | None, tuple[int | str, ...]]:
    """Bounds for numbers, choices for strings and ints, nothing for bools."""
    if not text:
        return None, ()
    if kind == "bool":
        raise fail("a bool parameter takes no constraint; drop the ':CONSTRAINT'")
    if text.startswith("choices"):
        text = text.removeprefix("choices").strip()
    if "|" in text:
        return None, _choices(kind, text, fail)
    if kind == "str":
        raise fail(f"a str parameter takes choices only ('a|b'), not {text!r}")
    bounds = _bounds(kind, text, fail)
    if bounds.low is not None and bounds.high is not None and not bounds.low < bounds.high:
        raise fail(f"the interval {text!r} is empty or a single value; give low < high")
    return bounds, ()


def _bounds(kind: str, text: str, fail) -> Bounds:
    interval = _INTERVAL_RE.match(text)
    if interval:
        left, low, high, right = interval.groups()
        return Bounds(
            parse_number(kind, low, fail, "the bound"),
            parse_number(kind, high, fail, "the bound"),
            low_open=left == "(",
            high_open=right == ")",
        )
    for op in (">=", "<=", ">", "<"):
        if text.startswith(op):
            number = parse_number(kind, text[len(op):].strip(), fail, "the bound")
            if op.startswith(">"):
                return Bounds(low=number, low_open=op == ">")
            return Bounds(high=number, high_open=op == "<")
    raise fail(f"constraint {text!r} is not one of {CONSTRAINTS}")


def _choices(kind: str, text: str, fail) -> tuple[int | str, ...]:
    if kind == "float":
        raise fail("a float parameter takes bounds, not choices; use 'in [A, B]' or an int/str")
    parts = tuple(p.strip() for p in text.split("|"))
    if kind == "int":
        choices: tuple[int | str, ...] = tuple(
            parse_number("int", p, fail, "the choice") for p in parts
        )
    else:
        bad = next((p for p in parts if not CHOICE_RE.match(p)), None)
        if bad is not None:
            raise fail(f"choice {bad!r} must be letters, digits, '_', '.', '+' or '-'")
        choices = parts
    if len(set(choices)) != len(choices):
        raise fail("a choice is given twice; list each once")
    if len(choices) < 2:
        raise fail("give at least two choices ('a|b'); a single one is a constant")
    if len(text) > MAX_TEXT:
        raise fail(f"the choices are longer than {MAX_TEXT} characters; use fewer or shorter ones")
    return choices


def admits(param: ParamSpec, value: Value) -> bool:
    if param.choices:
        return value in param.choices
    if param.bounds is not None and isinstance(value, int | float):
        return param.bounds.admits(value)
    return True


def number_text(value: float | int) -> str:
    """A bound as specs and messages write it: ``0`` for ``0.0``, ``1e-05`` stays."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def value_text(value: Value) -> str:
    """A default as a spec writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)
