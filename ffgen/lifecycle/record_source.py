"""The provenance part of a record: where a ``--like`` / ``--extends`` algorithm started.

Kept apart from :mod:`ffgen.lifecycle.records` (which stores and validates it like every other
part of the record): the source algorithm, its classes and the text of its files at copy time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ffgen.errors import RefusedError, quoted
from ffgen.record import record

if TYPE_CHECKING:
    from ffgen.lifecycle.records import RecordedFile


@record
class RecordedSource:
    """Where a ``--like`` / ``--extends`` algorithm started: the source algorithm, its classes,
    and the text of its files at copy time (the base of ``update --from-source``)."""

    key: str
    mode: str  # like | extends
    kind: str  # generated | handwritten: whether its objective is a family template's
    trainer_class: str
    trainer_path: str
    args_class: str
    args_path: str
    keys: tuple[str, ...]  # every registry key of the source's arguments class
    neighbours: tuple[str, ...]  # other algorithms' classes in the source's modules
    hook: str  # the objective hook an ``--extends`` child overrides
    example_path: str  # the source example the copy's example came from ("" for none)
    texts: tuple[RecordedFile, ...]

    def text(self, path: str) -> str | None:
        return next((f.pristine for f in self.texts if f.path == path), None)


SOURCE_KEYS = (
    "key", "mode", "kind", "trainer_class", "trainer_path", "args_class", "args_path", "keys",
    "neighbours", "hook", "example_path", "texts",
)  # fmt: skip


def source_data(source: RecordedSource) -> dict[str, object]:
    data: dict[str, object] = {k: getattr(source, k) for k in SOURCE_KEYS if k != "texts"}
    data["keys"], data["neighbours"] = list(source.keys), list(source.neighbours)
    data["texts"] = [
        {"path": f.path, "sha256": f.sha256, "pristine": f.pristine} for f in source.texts
    ]
    return data


def parse_source(item: object, where: str) -> RecordedSource | None:
    if item is None:
        return None
    from ffgen.lifecycle.records import _file, _list, _mapping, _only, _path, _text

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
        raise RefusedError(
            f"{where}: source.mode must be like or extends, got {quoted(plain['mode'])}"
        )
    return RecordedSource(**plain, **lists, texts=texts)


def _text_list(data: Mapping, name: str, where: str) -> list[str]:
    from ffgen.lifecycle.records import _list

    items = _list(data, name, where)
    if not all(isinstance(i, str) for i in items):
        raise RefusedError(f"{where}: source.{name} must be a list of text")
    return items
