"""The provenance part of a record: where a ``--like`` / ``--extends`` algorithm started.

Kept apart from :mod:`ffgen.store.records` (which stores and validates it like every other
part of the record): the source algorithm, its classes and the text of its files at copy time.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffgen.store.records import RecordedFile


@dataclasses.dataclass(frozen=True, slots=True)
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
