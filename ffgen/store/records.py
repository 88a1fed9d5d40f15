"""The record ``new`` keeps per algorithm in ``.ffgen/answers/<key>.yml`` (copier's answers file).

It holds what the lifecycle commands need and nothing they could compute: the answers (to replay
``new``), the ffgen version, and for every file ffgen created its content hash and pristine render
(the base of ``update``'s three-way merge; the hash tells ``remove`` and ``list`` whether the user
edited it). The YAML names each pristine text by its sha256; the texts themselves are kept
compressed in ``.ffgen/base/`` (:mod:`ffgen.store.record_store`), so the record a user commits
stays small and readable. Format-2 records (texts inline) still load; the next write migrates
them. Shared files ffgen only edited are listed with the entries it added; ``remove`` re-derives
the edits from the manifest, so the record cannot drift from ``new``.

Records are read with ``yaml.safe_load`` and validated field by field: a record someone edited
into an unknown shape is refused with the field it got wrong, never half-trusted.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from enum import Enum

from ffgen.checkout.layout import CHECKLIST_PATH
from ffgen.classify.model import Answers
from ffgen.errors import RefusedError
from ffgen.store.record_source import SOURCE_KEYS, RecordedSource, source_data
from ffgen.store.record_store import sha256

ANSWERS_DIR = ".ffgen/answers"
FORMAT = 3  # bumped when the record's shape changes
READABLE_FORMATS = (2, FORMAT)  # 2: pristine texts inline in the YAML
HEADER = (
    "# Written by `ffgen new`: the answers to replay it (`ffgen new NAME --answers FILE`) and\n"
    "# the sha256 of every file it created; their pristine renders (the base of `ffgen update`)\n"
    "# are in .ffgen/base/. Do not edit.\n"
)
# The answers a record may hold: each is the value of the `ffgen new` flag of the same name
# (NAME and --class-name, then one per field of the classifier's answers).
ANSWER_KEYS = ("name", "class_name", *(f.name for f in dataclasses.fields(Answers)))
_TOP_KEYS = (
    "format",
    "ffgen_version",
    "key",
    "contract",
    "answers",
    "files",
    "created",
    "registry",
    "docs",
    "source",
)


def answers_path(key: str) -> str:
    return f"{ANSWERS_DIR}/{key}.yml"


@dataclasses.dataclass(frozen=True, slots=True)
class RecordedFile:
    """A file ffgen created outright, as it rendered it."""

    path: str
    pristine: str
    shared: bool = False  # several algorithms list it (the checklist): its base is stored once

    @property
    def sha256(self) -> str:
        return sha256(self.pristine)


@dataclasses.dataclass(frozen=True, slots=True)
class RecordedEdit:
    """A shared file ffgen edited in place, and what it added there (shown by ``list``)."""

    path: str
    added: str


@dataclasses.dataclass(frozen=True, slots=True)
class RecordedDocs:
    """The algorithm's marked section of the guidance document, and the separator put before
    it, so that ``remove`` takes out exactly the bytes ``new`` added."""

    path: str
    separator: str
    section: str


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """ffgen's record of one generated algorithm (``.ffgen/answers/<key>.yml``)."""
    key: str
    ffgen_version: str
    contract: str
    answers: Mapping[str, str]
    files: tuple[RecordedFile, ...]
    created: tuple[str, ...]  # shared files ffgen created (deleted again once left empty)
    registry: tuple[RecordedEdit, ...]
    docs: RecordedDocs | None
    source: RecordedSource | None = None  # ``--like`` / ``--extends``: provenance

    @property
    def path(self) -> str:
        return answers_path(self.key)

    def file(self, path: str) -> RecordedFile | None:
        return next((f for f in self.files if f.path == path), None)


def flag_text(value: object) -> str:
    """An answer in the form its flag takes it (``a,b`` for lists, ``k=v,...`` for mappings)."""
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Mapping):
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, tuple | list):
        return ",".join(f"{v[0]}={v[1]}" if isinstance(v, tuple | list) else str(v) for v in value)
    return str(value)


# -- writing ---------------------------------------------------------------------------------

_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


@functools.cache
def _dumper():
    """A SafeDumper that writes multi-line text as literal blocks, so records read like files;
    libyaml's emitter when present (~5x faster on a record's pristine texts)."""
    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
        pass

    def text(dumper, data: str):
        # Blank text (the docs separator) reads best escaped: "\n". A literal block would
        # turn other line breaks (\r, NEL, U+2028/9) into \n: escape those too.
        escaped = data.isspace() or any(c in data for c in _OTHER_BREAKS)
        style = '"' if escaped else ("|" if "\n" in data else None)
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, text)
    return Dumper


def record_text(record: Record, version: str) -> str:
    """The record's YAML (its texts named by sha256; ``stored_files`` also gives their base)."""
    return stored_files(record, version)[record.path]


def stored_files(record: Record, version: str) -> dict[str, str]:
    """Every file the record is kept in: its YAML, and the base files holding its texts."""
    import yaml

    from ffgen.store import record_store

    data = _record_data(record, version)
    own, shared = record_store.externalize(data)
    body = yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)
    return {record.path: HEADER + body, **record_store.base_files(record.key, own, shared)}


def _record_data(record: Record, version: str) -> dict[str, object]:
    data: dict[str, object] = {
        "format": FORMAT,
        "ffgen_version": version,
        "key": record.key,
        "contract": record.contract,
        "answers": dict(record.answers),
        "files": [
            {"path": f.path, "sha256": f.sha256, "shared": f.shared, "pristine": f.pristine}
            for f in record.files
        ],
        "created": list(record.created),
        "registry": [{"path": e.path, "added": e.added} for e in record.registry],
    }
    if record.docs is not None:
        d = record.docs
        data["docs"] = {"path": d.path, "separator": d.separator, "section": d.section}
    if record.source is not None:
        data["source"] = source_data(record.source)
    return data


# -- reading ---------------------------------------------------------------------------------


def parse_record(text: str, where: str, read=None) -> Record:
    """Validate a record's text; ``where`` names it in messages. ``read`` (a checkout view's
    reader) finds its pristine texts in ``.ffgen/base/``; without it a format-3 record reads back
    without them (no files, no docs): enough to replay its answers, not to update or remove."""
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise RefusedError(
            f"{where}: not valid YAML{at}; restore it from version control"
        ) from None
    data = _mapping(data, where, "the record")
    if data.get("format") == FORMAT:
        from ffgen.store.record_store import internalize

        data = internalize(dict(data), read, where)
    return _record(data, where)


def _record(data: Mapping, where: str) -> Record:
    _only(data, _TOP_KEYS, where, "the record")
    if data.get("format") not in READABLE_FORMATS:
        raise RefusedError(
            f"{where}: record format {data.get('format')!r} is not {FORMAT}; it was written by "
            "another ffgen version: re-run `ffgen new` with that algorithm's answers"
        )
    key = _text(data, "key", where)
    answers = _answers(_mapping(data.get("answers"), where, "answers"), where)
    files = tuple(_file(f, where) for f in _list(data, "files", where))
    created = tuple(_path(p, where, "created") for p in _list(data, "created", where))
    registry = tuple(_edit(e, where) for e in _list(data, "registry", where))
    docs = _docs(data.get("docs"), where)
    source = parse_source(data.get("source"), where)
    return Record(
        key=key,
        ffgen_version=_text(data, "ffgen_version", where),
        contract=_text(data, "contract", where),
        answers=answers,
        files=files,
        created=created,
        registry=registry,
        docs=docs,
        source=source,
    )


def _answers(data: Mapping, where: str) -> dict[str, str]:
    _only(data, ANSWER_KEYS, where, "answers")
    out = {}
    for name, value in data.items():
        if not isinstance(value, str):
            raise RefusedError(
                f"{where}: answers.{name} must be text as its flag takes it, got {value!r}"
            )
        out[name] = value
    if "name" not in out:
        raise RefusedError(f"{where}: answers.name is missing; the record cannot be replayed")
    _check_answers(out, where)
    return out


def _check_answers(answers: dict[str, str], where: str) -> None:
    """Every answer passes the rules its flag does, on every read: a record edited to
    ``model_type: ../../x`` is refused before anything is planned from it."""
    from ffgen.classify.interview import from_flags
    from ffgen.classify.names import check_record_type, parse_name
    from ffgen.errors import FfgenError

    try:
        names = parse_name(answers["name"], answers.get("class_name"))
        parsed = from_flags({k: v for k, v in answers.items() if k not in ("name", "class_name")})
        check_record_type(names, parsed.supervision.record_type if parsed.supervision else None)
    except FfgenError as exc:
        raise RefusedError(f"{where}: {exc.message}") from None


def _file(item: object, where: str) -> RecordedFile:
    data = _mapping(item, where, "a files entry")
    _only(data, ("path", "sha256", "shared", "pristine"), where, "a files entry")
    path = _path(data.get("path"), where, "files")
    pristine = _text(data, "pristine", where, f"files[{path}].pristine")
    if data.get("sha256") != sha256(pristine):
        raise RefusedError(
            f"{where}: files[{path}].sha256 does not match its pristine text; the record was "
            "edited by hand: restore it from version control"
        )
    # Format 2 did not mark shared files; the checklist was the only one.
    shared = data.get("shared", path == CHECKLIST_PATH)
    if not isinstance(shared, bool):
        raise RefusedError(f"{where}: files[{path}].shared must be true or false, got {shared!r}")
    return RecordedFile(path, pristine, shared)


def _edit(item: object, where: str) -> RecordedEdit:
    data = _mapping(item, where, "a registry entry")
    _only(data, ("path", "added"), where, "a registry entry")
    return RecordedEdit(_path(data.get("path"), where, "registry"), _text(data, "added", where))


def _docs(item: object, where: str) -> RecordedDocs | None:
    if item is None:
        return None
    data = _mapping(item, where, "docs")
    _only(data, ("path", "separator", "section"), where, "docs")
    separator = data.get("separator")
    if separator not in ("", "\n", "\n\n"):
        raise RefusedError(f"{where}: docs.separator must be empty or newlines, got {separator!r}")
    return RecordedDocs(
        _path(data.get("path"), where, "docs"), separator, _text(data, "section", where)
    )


def _path(value: object, where: str, field: str) -> str:
    """A recorded path must be relative, forward-slashed and free of ``..``."""
    if not isinstance(value, str) or not value:
        raise RefusedError(f"{where}: {field} has a path that is not text: {value!r}")
    parts = value.split("/")
    if value.startswith(("/", "~")) or "\\" in value or ":" in parts[0] or ".." in parts:
        raise RefusedError(
            f"{where}: {field} path {value!r} leaves the checkout; a record names files "
            "relative to the checkout root only"
        )
    if any(p in ("", ".") for p in parts):
        raise RefusedError(f"{where}: {field} path {value!r} is not a plain relative path")
    return value


def _mapping(value: object, where: str, what: str) -> Mapping:
    if not isinstance(value, dict):
        raise RefusedError(f"{where}: {what} must be a mapping, got {type(value).__name__}")
    return value


def _list(data: Mapping, name: str, where: str) -> list:
    value = data.get(name, [])
    if not isinstance(value, list):
        raise RefusedError(f"{where}: {name} must be a list, got {type(value).__name__}")
    return value


def _text(data: Mapping, name: str, where: str, label: str | None = None) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise RefusedError(f"{where}: {label or name} must be text, got {value!r}")
    return value


def _only(data: Mapping, allowed: tuple[str, ...], where: str, what: str) -> None:
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise RefusedError(
            f"{where}: unknown key {unknown[0]!r} in {what}; allowed: {', '.join(allowed)}"
        )


def parse_source(item: object, where: str) -> RecordedSource | None:
    if item is None:
        return None
    data = _mapping(item, where, "source")
    _only(data, SOURCE_KEYS, where, "source")
    texts = tuple(_file(f, where) for f in _list(data, "texts", where))
    lists = {name: tuple(_text_list(data, name, where)) for name in ("keys", "neighbours")}
    plain = {
        name: _text(data, name, where, f"source.{name}")
        for name in SOURCE_KEYS
        if name not in ("keys", "neighbours", "texts")
    }
    for name in ("trainer_path", "args_path"):
        _path(plain[name], where, f"source.{name}")
    if plain["example_path"]:
        _path(plain["example_path"], where, "source.example_path")
    if plain["mode"] not in ("like", "extends"):
        raise RefusedError(f"{where}: source.mode must be like or extends, got {plain['mode']!r}")
    return RecordedSource(**plain, **lists, texts=texts)


def _text_list(data: Mapping, name: str, where: str) -> list[str]:
    items = _list(data, name, where)
    if not all(isinstance(i, str) for i in items):
        raise RefusedError(f"{where}: source.{name} must be a list of text")
    return items
