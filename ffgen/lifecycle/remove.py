"""``ffgen remove``: the inverse of ``new``, planned from the same manifest of edit points.

A generated algorithm is removed from its record: the files ffgen created go (unless the user
edited them since), the shared-file entries come out through each edit's inverse transform, and
shared files ffgen created go again once nothing else is in them. ``new`` then ``remove`` leaves
the checkout byte-identical. An algorithm ffgen did not generate is removed only with ``--force``,
and then only what verify can attribute to its key.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ffgen.checkout import layout
from ffgen.checkout.facts import read_facts
from ffgen.checkout.style import leading_header
from ffgen.checkout.view import CheckoutView
from ffgen.errors import RefusedError, UsageError
from ffgen.generate.manifest import Entries, RegistryEdit, entries_of, registry_edits
from ffgen.generate.plan import (
    DOCS_HEADER,
    FileChange,
    Plan,
    Status,
    category_stub,
    docs_section,
    other_pristine,
)
from ffgen.lifecycle.replay import replay
from ffgen.lifecycle.status import docs_section_text
from ffgen.store import record_store
from ffgen.store.read import read_record
from ffgen.store.records import Record, RecordedDocs, answers_path, sha256

KEPT_AS_YOURS = "edited since ffgen wrote it: kept as your file; ffgen no longer tracks it"
KEPT_SECTION = "your edited section kept as your text, without ffgen's markers"


@dataclass(frozen=True)
class Target:
    """What one removal takes out, however it was found (record or verify's attribution)."""

    key: str
    entries: Entries
    owned: tuple[tuple[str, str | None], ...]  # (path, pristine sha256 or None when unknown)
    created: tuple[str, ...]
    docs: RecordedDocs | None
    record: Record | None
    keep_exports: frozenset[str] = frozenset()  # re-export files left alone (shared classes)


@dataclass(frozen=True, slots=True)
class Removal:
    """What ``remove`` writes, and (``--force`` only) the uses of the algorithm it leaves: a
    subclass, an import or an example config that will fail once it is gone."""

    plan: Plan
    still_used: tuple[str, ...] = ()


def plan_remove(view: CheckoutView, key: str, *, force: bool, keep_edited: bool = False
                ) -> Removal:
    """Everything ``remove`` takes out. Files the user edited stop it unless ``force`` (delete
    them too) or ``keep_edited`` (keep them, untracked): either way no record is left behind.
    Uses of the algorithm elsewhere stop it too; ``force`` (which a hand-written algorithm
    needs anyway) goes on and returns them, for the command to say what it left broken."""
    if force and keep_edited:
        raise UsageError("--force deletes edited files and --keep-edited keeps them; pass one")
    target = _target(view, key, force)
    still_used = tuple(references(view, target)) if force else ()
    if not force:
        _refuse_uses(view, target)
        edited = edited_paths(view, target)
        if edited and not keep_edited:
            raise RefusedError(
                f"{key}: {len(edited)} file(s) edited since ffgen wrote them "
                f"({', '.join(edited)}); nothing was removed: pass --keep-edited to remove the "
                "rest and keep these as your own, or --force to delete them too"
            )
    changes = [_owned_change(view, path, sha, force) for path, sha in target.owned]
    changes = [c for c in changes if c is not None]
    changes += _shared_changes(view, target)
    docs = docs_removal(view, target, keep_edited=not force)
    if docs is not None:
        changes.append(docs)
    if target.record is not None:
        changes.append(_delete(view, target.record.path))
        # and its base files (ffgen.store.record_store): the pristine texts go with it
        released = record_store.released(view, target.record.key, target.record.path)
        changes += [_delete(view, path) for path in released]
    return Removal(Plan(key=key, changes=tuple(changes)), still_used)


def _refuse_uses(view: CheckoutView, target: Target) -> None:
    refs = references(view, target)
    if refs:
        raise RefusedError(
            f"{target.key} is still used ({len(refs)} reference(s)): {uses_text(refs, 3)}; "
            "remove those uses first, or pass --force"
        )


def uses_text(refs: list[str] | tuple[str, ...], shown: int) -> str:
    """The first ``shown`` uses, then how many more."""
    more = f"; and {len(refs) - shown} more" if len(refs) > shown else ""
    return "; ".join(refs[:shown]) + more


def edited_paths(view: CheckoutView, target: Target) -> list[str]:
    """Files (and the docs section) the user changed since ffgen wrote them."""
    out = []
    for path, sha in target.owned:
        current = view.read(path)
        if sha is not None and current is not None and sha256(current) != sha:
            out.append(path)
    if _edited_section(view, target) is not None:
        out.append(target.docs.path)
    return out


def _edited_section(view: CheckoutView, target: Target) -> str | None:
    """The text between the algorithm's docs markers, when it is not what ffgen wrote."""
    if target.docs is None:
        return None
    inner = docs_section_text(view, target.key, target.docs.path)
    return None if inner is None or inner == target.docs.section.strip() + "\n" else inner


# -- what to remove ------------------------------------------------------------------------


def _target(view: CheckoutView, key: str, force: bool) -> Target:
    record = read_record(view, key)
    if record is not None:
        return _from_record(view, record)
    facts = read_facts(view)
    if key not in facts.keys:
        raise UsageError(
            f"{key!r} is not a registered algorithm key and has no ffgen record; "
            "`ffgen list` shows the algorithms of this checkout"
        )
    if not force:
        raise RefusedError(
            f"{key} was not generated by ffgen (no {answers_path(key)}); pass --force to "
            "remove what verify can attribute to it"
        )
    return _attributed(view, key)


def _from_record(view: CheckoutView, record: Record) -> Target:
    facts = read_facts(view)
    replayed = replay(view, record, facts.model_types)
    # A shared file (the checklist) goes with the last algorithm whose record lists it.
    shared = {f.path for f in replayed.manifest.rendered if f.shared}
    still_used = {path for path in shared if other_pristine(view, path, record.key) is not None}
    return Target(
        key=record.key,
        entries=entries_of(replayed.ctx),
        owned=tuple((f.path, f.sha256) for f in record.files if f.path not in still_used),
        created=record.created,
        docs=record.docs,
        record=record,
    )


def _attributed(view: CheckoutView, key: str) -> Target:
    """A hand-written algorithm: what verify's index resolves for the key, and no more."""
    from ffgen.verify.facts import build_facts
    from ffgen.verify.index import CheckoutIndex

    facts = build_facts(CheckoutIndex(view))
    algorithm = facts.algorithm(key)
    args_cls, trainer_cls = algorithm.args_cls, algorithm.trainer_cls
    if args_cls is None or trainer_cls is None:
        raise RefusedError(
            f"{key}: verify cannot resolve both its classes, so ffgen cannot tell what belongs "
            "to it; remove it by hand"
        )
    category = layout.trainer_category(trainer_cls.module) or ""
    entries = Entries(
        key,
        args_cls.module.rsplit(".", 1)[-1],
        args_cls.name,
        trainer_cls.module.rsplit(".", 1)[-1],
        trainer_cls.name,
        category,
    )
    # A class another algorithm uses, as its own or as a base, is shared: its module is never
    # deleted and its re-exports stay (grpo-guard runs on GRPO's classes, tdm subclasses dmd2's).
    shared = {
        id(base)
        for a in facts.algorithms
        if a.key != key
        for c in (a.args_cls, a.trainer_cls)
        if c is not None
        for base in facts.index.mro(c)
    }
    owned = []
    for cls in (args_cls, trainer_cls):
        if id(cls) not in shared and _only_defines(view, cls.path, cls.name):
            owned.append((cls.path, None))
    owned += [(p, None) for p in _examples_of(view, key)]
    keep = set()
    if id(args_cls) in shared:
        keep |= {layout.ARGS_INIT, layout.HPARAMS_INIT}
    if id(trainer_cls) in shared:
        keep.add(layout.category_init_path(category))
    return Target(key, entries, tuple(owned), (), None, None, frozenset(keep))


def _only_defines(view: CheckoutView, path: str, class_name: str) -> bool:
    """True when ``path`` defines no class but ``class_name`` (else the module is shared)."""
    tree = _parse(view, path)
    if tree is None:
        return False
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    return classes == [class_name]


def _examples_of(view: CheckoutView, key: str) -> list[str]:
    """Example configs that train ``key`` (read as verify reads them: ``train.trainer_type``,
    the framework's default when absent)."""
    from ffgen.verify.examples import load_examples

    return [ex.path for ex in load_examples(view) if ex.data and ex.trainer_type == key]


# -- references that block a removal ---------------------------------------------------------


def references(view: CheckoutView, target: Target) -> list[str]:
    """Uses of the algorithm outside what the removal takes out, as ``path:line: what``."""
    e = target.entries
    mine = {p for p, _ in target.owned} | {edit.path for edit in registry_edits(e)}
    mine |= {layout.ARGS_REGISTRY, layout.TRAINER_REGISTRY}
    found = [
        f"{path}: an example config with trainer_type {target.key}"
        for path in _examples_of(view, target.key)
        if path not in mine
    ]
    modules = {
        f"flow_factory.hparams.training_args.{e.args_module}",
        f"flow_factory.trainers.{e.category}.{e.trainer_module}",
    }
    classes = {e.args_class, e.trainer_class}
    for path in (*view.files("src/**/*.py"), *view.files("tests/**/*.py")):
        if path in mine:
            continue
        text = view.read(path) or ""
        if not any(name in text for name in (*classes, e.args_module, e.trainer_module)):
            continue  # cheap filter before parsing
        tree = _parse_text(text, path)
        if tree is not None:
            found += [f"{path}:{line}: {what}" for line, what in _uses(tree, modules, classes)]
    return found


def _uses(tree: ast.Module, modules: set[str], classes: set[str]) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module in modules or names & classes:
                out.append((node.lineno, f"imports from {node.module}"))
        elif isinstance(node, ast.Import):
            hit = [a.name for a in node.names if a.name in modules]
            if hit:
                out.append((node.lineno, f"imports {hit[0]}"))
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
                if name in classes:
                    out.append((node.lineno, f"class {node.name} inherits from {name}"))
    return out


# -- the changes -----------------------------------------------------------------------------


def _owned_change(view: CheckoutView, path: str, sha: str | None, force: bool) -> FileChange | None:
    current = view.read(path)
    if current is None:
        return None  # already gone
    if sha is not None and sha256(current) != sha and not force:
        return FileChange(path, Status.KEPT, current, current, KEPT_AS_YOURS)
    return FileChange(path, Status.DELETE, current, "")


def _delete(view: CheckoutView, path: str) -> FileChange:
    return FileChange(path, Status.DELETE, view.read(path) or "", "")


def _shared_changes(view: CheckoutView, target: Target) -> list[FileChange]:
    out = []
    for edit in registry_edits(target.entries):
        if edit.path in target.keep_exports:
            continue
        change = _inverse(view, edit, target.created)
        if change is not None:
            out.append(change)
    return out


def _inverse(view: CheckoutView, edit: RegistryEdit, created: tuple[str, ...]) -> FileChange | None:
    old = view.read(edit.path)
    if old is None:
        return None
    result = edit.remove(old)
    if result.status == "failed":
        raise RefusedError(f"{result.reason}; nothing was removed")
    new = result.code if result.status == "changed" else old
    category = edit.path.rsplit("/", 2)[-2]
    if edit.path in created and new == category_stub(category, leading_header(new)):
        return FileChange(edit.path, Status.DELETE, old, "")
    if new == old:
        return None
    return FileChange(edit.path, Status.UPDATE, old, new)


def docs_removal(
    view: CheckoutView, target: Target, keep_edited: bool = False
) -> FileChange | None:
    """Take out the marked section and the separator ``new`` put before it; a section the user
    edited stays as their text, only the markers go (``keep_edited``)."""
    path = target.docs.path if target.docs is not None else layout.GUIDANCE_ALGORITHMS
    old = view.read(path)
    span = None if old is None else docs_section(old, target.key, path)
    if span is None:
        return None
    start, stop = span
    edited = _edited_section(view, target) if keep_edited else None
    if edited is not None:
        return FileChange(path, Status.UPDATE, old, old[:start] + edited + old[stop:],
                          KEPT_SECTION)
    separator = target.docs.separator if target.docs is not None else ""
    if separator and old[:start].endswith(separator):
        start -= len(separator)
    new = old[:start] + old[stop:]
    if path in target.created and new == DOCS_HEADER:
        return FileChange(path, Status.DELETE, old, "")
    return FileChange(path, Status.UPDATE, old, new)


def _parse(view: CheckoutView, path: str) -> ast.Module | None:
    text = view.read(path)
    return None if text is None else _parse_text(text, path)


def _parse_text(text: str, path: str) -> ast.Module | None:
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, RecursionError, MemoryError):
        return None
