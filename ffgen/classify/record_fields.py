"""The typed fields a ``record:<TypeName>(name:type, ...)`` supervision declares.

Each field is read from every row's metadata JSON under its own name and reaches the objective
as a batch tensor (``bool``, ``int``, ``float``) or a tuple of texts (``str``). A ``bool`` field
can carry the record's direction (``--direction``: desirable or not), which the default objective
and the generated checks then use.
"""

from __future__ import annotations

import keyword
import re

from ffgen.errors import UsageError

FIELD_TYPES = ("bool", "int", "float", "str")
MAX_NAME = 32  # a field's name is written into generated lines of at most 100 characters
_FIELD_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# Attributes the generated record (and its batch view) already have: a field of one of these
# names would replace them. ``none`` is the answer "no direction".
TAKEN = frozenset({
    "record_id", "source", "prompt", "target_media", "negative_prompt", "input_media",
    "metadata", "records", "from_batch", "from_records", "none",
})
# The declared form: record:TypeName or record:TypeName(field:type, ...)
RECORD_RE = re.compile(r"^record:([^()]*?)(?:\((.*)\))?$", re.DOTALL)

Fields = tuple[tuple[str, str], ...]


def parse_fields(text: str, where: str) -> Fields:
    """``label:bool, weight:float`` -> ``(("label", "bool"), ("weight", "float"))``."""
    fields: list[tuple[str, str]] = []
    for item in (part.strip() for part in text.split(",")):
        name, sep, kind = (x.strip() for x in item.partition(":"))
        if not sep or not name:
            raise UsageError(
                f"--supervision {where!r}: field {item!r} is not name:type; e.g. "
                "record:Judged(label:bool)"
            )
        _check_field(name, kind, where)
        if any(name == seen for seen, _ in fields):
            raise UsageError(f"--supervision {where!r}: field {name!r} is declared twice")
        fields.append((name, kind))
    return tuple(fields)


def _check_field(name: str, kind: str, where: str) -> None:
    if not _FIELD_RE.match(name) or keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise UsageError(
            f"--supervision {where!r}: field name {name!r} must be a lowercase Python identifier"
        )
    if len(name) > MAX_NAME:
        raise UsageError(
            f"--supervision {where!r}: field name {name!r} is longer than {MAX_NAME} characters"
        )
    if name in TAKEN:
        raise UsageError(
            f"--supervision {where!r}: {name!r} is already an attribute of every record; "
            "choose another field name"
        )
    if kind not in FIELD_TYPES:
        raise UsageError(
            f"--supervision {where!r}: field {name!r} has type {kind!r}; choose "
            f"{'|'.join(FIELD_TYPES)}"
        )


def fields_text(fields: Fields) -> str:
    """The declared form of ``fields``: ``(label:bool, weight:float)``, or "" for none."""
    if not fields:
        return ""
    return "(" + ", ".join(f"{name}:{kind}" for name, kind in fields) + ")"


def direction_fields(fields: Fields) -> tuple[str, ...]:
    """The fields that can carry a direction: the ``bool`` ones."""
    return tuple(name for name, kind in fields if kind == "bool")
