"""Reading records back: one algorithm's, every one in a checkout, one given on the command line,
and a record's answers as ``new`` flags."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ffgen.checkout.view import CheckoutView
from ffgen.classify.model import Answers
from ffgen.errors import RefusedError, UsageError
from ffgen.store.records import ANSWERS_DIR, Record, answers_path, parse_record

# Answers that are not properties of the algorithm but name it.
NAMING = ("name", "class_name")


def read_record(view: CheckoutView, key: str) -> Record | None:
    """The record of ``key`` in this checkout, or None when ffgen did not generate it."""
    path = answers_path(key)
    text = view.read(path)
    if text is None:
        return None
    record = parse_record(text, path, view.read)
    if record.key != key:
        raise RefusedError(f"{path}: records key {record.key!r}, not {key!r}; rename the file back")
    return record


def all_records(view: CheckoutView) -> tuple[Record, ...]:
    out = []
    for path in view.files(f"{ANSWERS_DIR}/*.yml"):
        key = Path(path).stem
        record = read_record(view, key)
        if record is not None:
            out.append(record)
    return tuple(out)


def load_answers_file(path: Path) -> Record:
    """A record given on the command line (``new --answers FILE``); any checkout's will do."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"--answers {path}: no such file; pass a record such as {ANSWERS_DIR}/<key>.yml"
        ) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"--answers {path}: cannot read it ({type(exc).__name__}); pass the record file itself"
        ) from None
    return parse_record(text, str(path))  # its answers: the texts stay in its checkout


def flags_from(record: Record) -> dict[str, str]:
    """The record's answers as ``new`` flags (without the naming ones)."""
    known = {f.name for f in dataclasses.fields(Answers)}
    flags = {}
    for name, value in record.answers.items():
        if name in NAMING:
            continue
        if name not in known:
            raise RefusedError(
                f"{record.path}: answer {name!r} is not one this ffgen version asks; "
                "update ffgen or remove the answer"
            )
        flags[name] = value
    return flags
