"""Where each algorithm of a checkout stands: ``ffgen list`` shows it, ``ffgen check`` gates on it.

Built-in and hand-written algorithms come from verify's index (contract, paradigm, category);
generated ones add their record: is each created file unchanged or edited by the user, would
today's templates render something else (behind), and are the shared-file entries still there.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView
from ffgen.generate.like.provenance import source_changes
from ffgen.generate.manifest import registry_edits
from ffgen.generate.plan import docs_inner, render_all
from ffgen.lifecycle.health import Broken, broken_files
from ffgen.lifecycle.replay import replay
from ffgen.store.records import Record, sha256

UNCHANGED, EDITED, MISSING, BROKEN = "unchanged", "edited", "missing", "broken"
UNWIRED = "unwired"  # a shared-file entry of the algorithm is gone or names something else


@dataclass(frozen=True)
class FileState:
    path: str
    state: str  # unchanged | edited | missing


@dataclass(frozen=True)
class AlgorithmState:
    key: str
    contract: str | None
    paradigm: str | None
    category: str | None
    generated: bool
    files: tuple[FileState, ...] = ()
    behind: tuple[str, ...] = ()  # files today's templates render differently
    missing_entries: tuple[str, ...] = ()  # shared files that lost the algorithm's entry
    # entries that name something else now (a module renamed and its entry fixed by hand)
    moved_entries: tuple[str, ...] = ()
    broken: tuple[Broken, ...] = ()  # files with conflict markers or that do not parse
    # ``--like`` copies: the source's files that changed since the copy (``update --from-source``)
    source_changed: tuple[str, ...] = ()
    # the algorithm's section of the guidance document, as its files are (None: it has none)
    docs: FileState | None = None

    @property
    def state(self) -> str:
        """One word for the table: broken > behind > unwired > edited > unchanged ("-" when
        not generated). The docs section counts as one of the files."""
        if not self.generated:
            return "-"
        if self.broken:
            return BROKEN
        if self.behind:
            return "behind"
        if self.missing_entries or self.moved_entries:
            return UNWIRED
        files = (*self.files, *([self.docs] if self.docs is not None else []))
        if any(f.state != UNCHANGED for f in files):
            return EDITED
        return UNCHANGED

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "contract": self.contract,
            "paradigm": self.paradigm,
            "category": self.category,
            "generated": self.generated,
            "state": self.state,
            "files": [{"path": f.path, "state": f.state} for f in self.files],
            "behind": list(self.behind),
            "missing_entries": list(self.missing_entries),
            "moved_entries": list(self.moved_entries),
            "broken": [b.as_dict() for b in self.broken],
            "source_changed": list(self.source_changed),
            "docs": None if self.docs is None else {"path": self.docs.path,
                                                    "state": self.docs.state},
        }


def checkout_states(view: CheckoutView) -> tuple[AlgorithmState, ...]:
    """Every algorithm: registered ones in registry order, then generated ones not registered."""
    from ffgen.checkout.facts import read_facts
    from ffgen.checkout.hints import read_hints

    records, damaged = _records(view)
    model_types = read_facts(view).model_types
    hints = read_hints(view) if records else None  # once, not once per record

    def generated(record: Record | AlgorithmState) -> AlgorithmState:
        if isinstance(record, AlgorithmState):
            return record  # a record that cannot be read: shown broken, the others as they are
        return generated_state(view, record, model_types, hints)

    records = {**records, **damaged}

    out = [
        generated(records[key]) if key in records else state
        for key, state in _registered(view).items()
    ]
    seen = {s.key for s in out}
    out += [generated(r) for k, r in records.items() if k not in seen]
    return tuple(out)


def _records(view: CheckoutView) -> tuple[dict[str, Record], dict[str, AlgorithmState]]:
    """Every record that reads, and a broken state for each one that does not."""
    from pathlib import PurePosixPath

    from ffgen.errors import RefusedError
    from ffgen.store.read import read_record, record_paths

    good, damaged = {}, {}
    for path in record_paths(view):
        key = PurePosixPath(path).stem
        try:
            record = read_record(view, key)
        except RefusedError as exc:
            problem = exc.message.removeprefix(f"{path}: ")
            damaged[key] = AlgorithmState(key, None, None, None, generated=True,
                                          broken=(Broken(path, 1, problem),))
            continue
        if record is not None:
            good[key] = record
    return good, damaged


def _registered(view: CheckoutView) -> dict[str, AlgorithmState]:
    from ffgen.verify.batches import batches, fewer_collections
    from ffgen.verify.index import CheckoutIndex

    out = {}
    with fewer_collections():  # a batch at a time: memory holds the states, not trees
        for batch in batches(CheckoutIndex(view)):
            facts = batch.facts
            for a in facts.algorithms:
                contract = facts.contract(a.args_cls).value if a.args_cls is not None else None
                category = layout.trainer_category(a.trainer_cls.module) if a.trainer_cls else None
                paradigm = facts.paradigm(a.trainer_cls) or facts.paradigm(a.args_cls)
                out[a.key] = AlgorithmState(a.key, contract, paradigm, category, generated=False)
    return out


def generated_state(
    view: CheckoutView, record: Record, model_types: tuple[str, ...], hints=None
) -> AlgorithmState:
    replayed = replay(view, record, model_types, hints)
    rendered = render_all(replayed.ctx, replayed.manifest)
    behind = [p for p, text in rendered.files.items() if _pristine(record, p) != text]
    behind += [f.path for f in record.files if f.path not in rendered.files]
    if record.docs is not None and record.docs.section != rendered.section:
        behind.append(record.docs.path)
    return AlgorithmState(
        key=record.key,
        contract=record.contract,
        paradigm=replayed.classification.answers.paradigm.value,
        category=replayed.classification.category,
        generated=True,
        files=tuple(_file_state(view, record, f.path) for f in record.files),
        behind=tuple(behind),
        missing_entries=missing_entries(view, record, replayed),
        moved_entries=moved_entries(view, record, replayed),
        broken=broken_files(view, record),
        source_changed=source_changes(view, record),
        docs=_docs_state(view, record),
    )


def _docs_state(view: CheckoutView, record: Record) -> FileState | None:
    """The algorithm's docs section: as ffgen wrote it, edited, or gone (markers removed)."""
    if record.docs is None:
        return None
    from ffgen.errors import RefusedError

    try:
        inner = docs_section_text(view, record.key, record.docs.path)
    except RefusedError:  # a marker missing or doubled: the health check names its line
        return FileState(record.docs.path, EDITED)
    if inner is None:
        return FileState(record.docs.path, MISSING)
    same = inner == record.docs.section.strip() + "\n"
    return FileState(record.docs.path, UNCHANGED if same else EDITED)


def docs_section_text(view: CheckoutView, key: str, path: str) -> str | None:
    """The text between ``key``'s docs markers in ``path`` (None: no such section)."""
    text = view.read(path)
    inner = None if text is None else docs_inner(text, key, path)
    return None if inner is None else text[inner[0] : inner[1]]


def missing_entries(view: CheckoutView, record: Record, replayed) -> tuple[str, ...]:
    """Shared files whose entry for the algorithm is gone (``add`` would change them)."""
    from ffgen.generate.manifest import entries_of

    recorded = {e.path for e in record.registry}
    missing = []
    for edit in registry_edits(entries_of(replayed.ctx)):
        if edit.path not in recorded:
            continue
        text = view.read(edit.path)
        result = None if text is None else edit.add(text)
        if result is None or result.status == "changed" or (
            result.status == "failed" and not _names_another(result.reason)
        ):
            missing.append(edit.path)
    return tuple(missing)


def _names_another(reason: str) -> bool:
    """An edit refused because the entry is there, naming something else (a renamed module)."""
    return "already maps to" in reason or "is already imported from" in reason


def moved_entries(view: CheckoutView, record: Record, replayed) -> tuple[str, ...]:
    """What each shared file's entry for the algorithm says instead of what ffgen wrote."""
    from ffgen.generate.manifest import entries_of

    recorded = {e.path for e in record.registry}
    out = []
    for edit in registry_edits(entries_of(replayed.ctx)):
        text = view.read(edit.path) if edit.path in recorded else None
        result = edit.add(text) if text is not None else None
        if result is not None and result.status == "failed" and _names_another(result.reason):
            out.append(result.reason.split("; ")[0])  # (its advice is for `new`, not here)
    return tuple(out)


def _pristine(record: Record, path: str) -> str | None:
    f = record.file(path)
    return f.pristine if f is not None else None


def _file_state(view: CheckoutView, record: Record, path: str) -> FileState:
    current = view.read(path)
    if current is None:
        return FileState(path, MISSING)
    same = sha256(current) == record.file(path).sha256
    return FileState(path, UNCHANGED if same else EDITED)
