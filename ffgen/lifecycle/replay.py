"""From a record back to what ``new`` computed: names, classification, render context, manifest.

``new --answers``, ``remove``, ``update``, ``check`` and ``list`` all start here, so every one of
them sees the algorithm exactly as ``new`` would render it today from the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ffgen.checkout.hints import CheckoutHints, read_hints
from ffgen.checkout.view import CheckoutView
from ffgen.classify import interview
from ffgen.classify.model import Answers, Classification
from ffgen.classify.names import AlgorithmNames, parse_name
from ffgen.classify.rules import classify
from ffgen.errors import FfgenError, RefusedError, UsageError
from ffgen.generate.context import RenderContext, build_context
from ffgen.generate.manifest import Manifest, manifest_for
from ffgen.lifecycle.records import ANSWERS_DIR, Record, answers_path, parse_record
from ffgen.record import fields_of

# Answers that are not properties of the algorithm but name it.
NAMING = ("name", "class_name")


@dataclass(frozen=True)
class Replayed:
    record: Record
    names: AlgorithmNames
    classification: Classification
    ctx: RenderContext
    manifest: Manifest


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
    for path in record_paths(view):
        key = Path(path).stem
        record = read_record(view, key)
        if record is not None:
            out.append(record)
    return tuple(out)


def record_paths(view: CheckoutView) -> list[str]:
    """The records' files; ``.ffgen/answers`` that is not a folder is refused (read as "no
    records", every generated algorithm would pass for a hand-written one)."""
    if view.exists(ANSWERS_DIR) and not view.is_dir(ANSWERS_DIR):
        raise RefusedError(f"{ANSWERS_DIR} is a file, not the folder of ffgen's records; restore "
                           "it from version control")
    return view.files(f"{ANSWERS_DIR}/*.yml")


MAX_ANSWERS_FILE = 1_000_000  # a record is a few KB


def load_answers_file(path: Path) -> Record:
    """A record given on the command line (``new --answers FILE``); any checkout's will do."""
    given = Path(path)
    if given.exists() and (not given.is_file() or given.stat().st_size > MAX_ANSWERS_FILE):
        raise UsageError(f"--answers {path}: not a record file (a device, a FIFO, or over "
                         f"{MAX_ANSWERS_FILE // 1000} KB); pass a record such as "
                         f"{ANSWERS_DIR}/<key>.yml")
    try:
        text = given.read_text(encoding="utf-8")
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
    known = set(fields_of(Answers))
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


def classification_of(
    flags: Mapping[str, str | None], model_types: tuple[str, ...], where: str
) -> Classification:
    """Classify recorded answers; a bad value names the record it came from."""
    try:
        answers = interview.from_flags(dict(flags))
        answers, _ = interview.complete_non_interactive(answers, model_types)
        return classify(answers)
    except FfgenError as exc:
        raise RefusedError(f"{where}: {exc.message}") from None


def replay(
    view: CheckoutView,
    record: Record,
    model_types: tuple[str, ...],
    hints: CheckoutHints | None = None,
) -> Replayed:
    """What ``new`` computes today from ``record``'s answers, in this checkout (``hints``: the
    checkout's, when the caller replays several records)."""
    try:
        names = parse_name(record.answers["name"], record.answers.get("class_name"))
    except FfgenError as exc:
        raise RefusedError(f"{record.path}: {exc.message}") from None
    if names.key != record.key:
        raise RefusedError(
            f"{record.path}: answers.name {names.key!r} does not match key {record.key!r}; "
            "restore the record from version control"
        )
    c = classification_of(flags_from(record), model_types, record.path)
    ctx = build_context(names, c, hints if hints is not None else read_hints(view))
    if record.source is None:
        return Replayed(record, names, c, ctx, manifest_for(ctx))
    # ``--like`` / ``--extends``: the files that came from the source, recomputed from the
    # source's text at copy time (ffgen.generate.like), so that only ffgen's change shows.
    from ffgen.generate.like import like_context
    from ffgen.generate.like.files import source_files

    ctx = like_context(ctx, record.source)
    return Replayed(record, names, c, ctx, manifest_for(ctx, source_files(record.source, ctx)))
