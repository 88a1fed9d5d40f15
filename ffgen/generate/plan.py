"""Plan stage: compute every file change ``new`` would make, in memory, writing nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ffgen import __version__
from ffgen.checkout import layout
from ffgen.checkout.facts import CheckoutFacts
from ffgen.checkout.view import CheckoutView, Overlay
from ffgen.classify.model import Classification
from ffgen.classify.names import AlgorithmNames
from ffgen.errors import RefusedError
from ffgen.generate import record_changes as record_plan
from ffgen.generate import render
from ffgen.generate.changes import FileChange, Plan, Status, owned_file
from ffgen.generate.conformance.check import check_conformance
from ffgen.generate.context import RenderContext
from ffgen.generate.manifest import Manifest, manifest_for
from ffgen.store.read import all_records
from ffgen.store.records import (
    Record,
    RecordedDocs,
    RecordedEdit,
    RecordedFile,
    RecordedSource,
    flag_text,
    parse_record,
)


def other_pristine(view: CheckoutView, path: str, key: str) -> str | None:
    """What another algorithm's record holds as the pristine text of the shared file ``path``
    (None when no other record lists it)."""
    for record in all_records(view):
        recorded = record.file(path) if record.key != key else None
        if recorded is not None:
            return recorded.pristine
    return None


def shared_file(
    view: CheckoutView, path: str, new: str, key: str, force: bool
) -> tuple[FileChange, str]:
    """A file every generated algorithm uses (the checklist), and the pristine text to record.

    The first algorithm creates it like an owned file. Once another algorithm's record lists
    it, it is that algorithm's file as much as this one's: ``new`` leaves it as it is (a user's
    edit, or an older render ``update`` has not brought forward yet) and records the same
    pristine, so the three-way merge of ``update`` starts from what ffgen actually wrote. When
    it differs from today's render the change is KEPT, its note saying why and naming
    ``ffgen update``.
    """
    old = view.read(path)
    pristine = other_pristine(view, path, key) if old is not None else None
    if pristine is None:
        return owned_file(view, path, new, force), new
    if old == new:
        return FileChange(path, Status.IDENTICAL, old, old), pristine
    # Kept, and said so: rewriting it here would leave the other records' merge base behind
    # (``remove`` of the last one would then keep ffgen's own text as a user edit).
    note = _kept_shared_note(key, old, pristine, new)
    return FileChange(path, Status.KEPT, old, old, note=note), pristine


def _kept_shared_note(key: str, old: str, pristine: str, new: str) -> str:
    if pristine == new:
        return "edited since ffgen wrote it; today's template renders the same"
    why = "an older template wrote it" if old == pristine else "edited, and today's differs"
    return (f"{why}; `ffgen update` of each algorithm (e.g. `ffgen update {key}`) brings it to "
            "today's template, keeping edits")


def edited_file(view: CheckoutView, path: str, what: str, transform) -> FileChange | None:
    old = view.read(path)
    if old is None:
        raise RefusedError(f"{path} is missing; ffgen needs it for the {what}")
    result = transform(old)
    if result.status == "failed":
        raise RefusedError(result.reason)
    if result.status == "skipped":
        return None
    status = Status.UPDATE if result.status == "changed" else Status.IDENTICAL
    return FileChange(path, status, old, result.code)


DOCS_HEADER = "# Training algorithms\n"


def docs_markers(key: str) -> tuple[str, str]:
    return f"<!-- ffgen:begin {key} -->", f"<!-- ffgen:end {key} -->"


def docs_section(text: str, key: str, path: str) -> tuple[int, int] | None:
    """Where the algorithm's marked section is in ``text``: from its begin marker to just past
    its end marker (and that line's newline); None when neither marker is there. A marker
    missing, doubled or out of order is refused naming its line: guessing which end goes with
    which begin could delete the user's text after the section."""
    begin, end = docs_markers(key)
    begins, ends = _all(text, begin), _all(text, end)
    if not begins and not ends:
        return None
    if len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]:
        stop = ends[0] + len(end)
        return begins[0], stop + (text[stop : stop + 1] == "\n")
    line, problem = marker_problem(text, key, begins, ends)
    raise RefusedError(f"{path}:{line}: {problem}")


def docs_inner(text: str, key: str, path: str) -> tuple[int, int] | None:
    """Where the text inside the algorithm's markers is: from the line after the begin marker
    to the end marker. None without a section; refused as :func:`docs_section` refuses."""
    span = docs_section(text, key, path)
    if span is None:
        return None
    begin, end = docs_markers(key)
    start = span[0] + len(begin) + 1
    return start, text.index(end, start)


def marker_problem(text: str, key: str, begins: list[int] | None = None,
                   ends: list[int] | None = None) -> tuple[int, str] | None:
    """The line of a missing, doubled or misplaced docs marker of ``key``, and what to do."""
    begin, end = docs_markers(key)
    begins = _all(text, begin) if begins is None else begins
    ends = _all(text, end) if ends is None else ends
    if (not begins and not ends) or (
        len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]
    ):
        return None
    if len(begins) != 1:
        marker, at = begin, (begins[1] if begins else ends[0])
        what = "a second" if begins else "no"
    else:
        marker, at = end, (ends[1] if len(ends) > 1 else begins[0])
        what = "a second" if len(ends) > 1 else ("no" if not ends else "an out-of-order")
    line = text.count("\n", 0, at) + 1
    return line, (
        f"the docs section of {key} has {what} `{marker}`; ffgen will not guess where the "
        "section ends: make it one begin and one end marker (or delete both), then run ffgen "
        "again"
    )


def _all(text: str, marker: str) -> list[int]:
    out, at = [], text.find(marker)
    while at >= 0:
        out.append(at)
        at = text.find(marker, at + 1)
    return out


def docs_block(key: str, section: str) -> str:
    begin, end = docs_markers(key)
    return f"{begin}\n{section.strip()}\n{end}\n"


def docs_change(
    view: CheckoutView, path: str, key: str, section: str, force: bool, separator: str = ""
) -> tuple[FileChange, str]:
    """Append (or refresh) the algorithm's marked section in the guidance document; also return
    the separator put before a new section (``separator`` is the recorded one on a re-run)."""
    block = docs_block(key, section)
    old = view.read(path)
    if old is None:
        return FileChange(path, Status.CREATE, None, f"{DOCS_HEADER}\n{block}"), "\n"
    span = docs_section(old, key, path)
    if span is not None:
        start, stop = span
        new = old[:start] + block + old[stop:]
        if new == old:
            return FileChange(path, Status.IDENTICAL, old, old), separator
        status = Status.UPDATE if force else Status.CONFLICT
        return FileChange(path, status, old, new), separator
    sep = "" if old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
    return FileChange(path, Status.UPDATE, old, old + sep + block), sep


def recorded_answers(names: AlgorithmNames, c: Classification) -> dict[str, str]:
    """Every answer as its flag takes it: replaying these through ``new`` renders the same."""
    out = {"name": names.key, "class_name": names.stem}
    for name in (f.name for f in dataclasses.fields(c.answers)):
        value = c.category if name == "category" else getattr(c.answers, name)
        if value not in (None, (), {}):
            out[name] = flag_text(value)
    return out


def existing_record(view: CheckoutView, path: str) -> Record | None:
    text = view.read(path)
    return None if text is None else parse_record(text, path, view.read)


def record_changes(view: CheckoutView, record: Record, force: bool) -> list[FileChange]:
    """The record and its base files (see :mod:`ffgen.generate.record_changes`)."""
    return record_plan.record_changes(view, record, force)


def record_for(
    ctx: RenderContext,
    answers: dict[str, str],
    files: dict[str, str],
    shared: SharedChanges,
    source: RecordedSource | None = None,
) -> Record:
    return Record(
        key=ctx.key,
        ffgen_version=__version__,
        contract=ctx.contract,
        answers=answers,
        files=tuple(
            RecordedFile(path, text, path in _shared_paths(ctx)) for path, text in files.items()
        ),
        created=shared.created,
        registry=shared.applied,
        docs=shared.docs,
        source=source,
    )


def _shared_paths(ctx: RenderContext) -> set[str]:
    return {f.path for f in manifest_for(ctx).rendered if f.shared}


def check_collisions(
    view: CheckoutView, facts: CheckoutFacts, ctx: RenderContext, manifest: Manifest
) -> None:
    """Refuse a name that is already taken, unless ffgen generated it (a re-run)."""
    if view.exists(manifest.answers_path):
        return
    if ctx.key in facts.keys:
        raise RefusedError(
            f"NAME {ctx.key!r} is already a registered algorithm key; choose another name"
        )
    if ctx.module in facts.args_modules or f"{ctx.category}.{ctx.module}" in facts.trainer_modules:
        raise RefusedError(
            f"module {ctx.module!r} already exists in the checkout; choose another NAME"
        )
    for cls in (ctx.args_class, ctx.trainer_class):
        if cls in facts.class_names:
            raise RefusedError(
                f"class {cls} already exists in the checkout; choose another NAME or --class-name"
            )


def check_contract_constant(facts: CheckoutFacts, ctx: RenderContext) -> None:
    if ctx.contract not in facts.contract_constants:
        raise RefusedError(
            f"{layout.CONTRACTS_EXECUTION} does not define {ctx.contract}; this checkout's "
            "Flow-Factory is a different version than ffgen's templates target"
        )


def category_init_change(
    view: CheckoutView, category: str, header: str = ""
) -> FileChange | None:
    """A new category folder needs a package ``__init__.py`` (docstring-only, like rl/)."""
    path = layout.category_init_path(category)
    if view.exists(path):
        return None
    module = f"{layout.TRAINERS_DIR}/{category}.py"
    if view.exists(module):
        raise RefusedError(
            f"--category {category}: {module} is a module, and a package {category}/ beside it "
            "would hide it (flow_factory.trainers would stop importing): choose another --category"
        )
    return FileChange(path, Status.CREATE, None, category_stub(category, header))


def category_stub(category: str, header: str = "") -> str:
    """What a category package ffgen creates holds: the checkout's licence ``header`` and a
    docstring, like ``rl/`` has."""
    return (f"{header}\n" if header else "") + f'"""{category.capitalize()} trainers."""\n'


@dataclasses.dataclass(frozen=True, slots=True)
class Rendered:
    """Everything the templates produce for one algorithm: owned files and the docs section."""

    files: dict[str, str]
    section: str


def render_all(ctx: RenderContext, manifest: Manifest) -> Rendered:
    files = {
        f.path: f.text if f.text is not None else render.render(f.template, ctx)
        for f in manifest.rendered
    }
    return Rendered(files, render.render(render.DOCS_TEMPLATE, ctx).strip())


@dataclasses.dataclass(frozen=True, slots=True)
class SharedChanges:
    """The plan's edits of shared files, and what the record says about them."""

    changes: tuple[FileChange, ...]
    applied: tuple[RecordedEdit, ...]  # the edits this checkout takes
    created: tuple[str, ...]  # shared files the algorithm brought into being
    docs: RecordedDocs


def shared_changes(
    view: CheckoutView,
    manifest: Manifest,
    ctx: RenderContext,
    section: str,
    previous: Record | None,
    force: bool,
) -> SharedChanges:
    """Category package, registry and re-export edits, and the docs section.

    Shared files created here are recorded, so that ``remove`` deletes them again once nothing
    else is left in them; a re-run keeps what the first run recorded.
    """
    changes: list[FileChange] = []
    created = list(previous.created) if previous is not None else []
    new_category = category_init_change(view, ctx.category, ctx.license_header)
    edit_view = view
    if new_category is not None:
        changes.append(new_category)
        created.append(new_category.path)
        edit_view = _overlay(view, [new_category])
    applied = []  # a docstring-only category package takes no re-export, for one
    for edit in manifest.edits:
        change = edited_file(edit_view, edit.path, edit.what, edit.add)
        if change is not None:
            changes.append(change)
            applied.append(RecordedEdit(edit.path, edit.added))
    known_sep = previous.docs.separator if previous is not None and previous.docs else ""
    docs, sep = docs_change(view, manifest.docs_path, ctx.key, section, force, known_sep)
    changes.append(docs)
    if docs.status is Status.CREATE:
        created.append(docs.path)
    return SharedChanges(
        tuple(changes),
        tuple(applied),
        tuple(dict.fromkeys(created)),
        RecordedDocs(manifest.docs_path, sep, section),
    )


def build_plan(
    view: CheckoutView,
    facts: CheckoutFacts,
    names: AlgorithmNames,
    c: Classification,
    ctx: RenderContext,
    *,
    force: bool = False,
    source: RecordedSource | None = None,
    copied: Mapping[str, str] | None = None,
) -> Plan:
    """Every change of ``new``; ``source`` and ``copied``: a ``--like`` / ``--extends`` run's
    provenance and the files it computed from the source (ffgen.generate.like)."""
    manifest = manifest_for(ctx, copied)
    check_collisions(view, facts, ctx, manifest)
    check_contract_constant(facts, ctx)
    rendered = render_all(ctx, manifest)
    previous = existing_record(view, manifest.answers_path)
    shared_paths = {f.path for f in manifest.rendered if f.shared}
    changes = [
        owned_file(view, p, text, force)
        for p, text in rendered.files.items()
        if p not in shared_paths
    ]
    pristine = dict(rendered.files)
    for path in sorted(shared_paths):
        change, pristine[path] = shared_file(view, path, rendered.files[path], ctx.key, force)
        changes.append(change)
    shared = shared_changes(view, manifest, ctx, rendered.section, previous, force)
    changes.extend(shared.changes)
    record = record_for(ctx, recorded_answers(names, c), pristine, shared, source)
    changes += record_changes(view, record, force)
    # Every Flow-Factory member the rendered files use must exist, with a fitting signature, in
    # the checkout as it would be (so the new modules count), before anything is written.
    if source is None:
        check_conformance(_overlay(view, changes), rendered.files)
    else:  # a copy answers for what it adds to its source (ffgen.generate.like.checks)
        from ffgen.generate.like.checks import check_copy_conformance

        check_copy_conformance(view, _overlay(view, changes), rendered.files, source, ctx)
    return Plan(key=ctx.key, changes=tuple(changes), source=source)


def _overlay(view: CheckoutView, changes: list[FileChange]) -> CheckoutView:
    return Overlay(base=view, changes={c.path: c.new for c in changes})


def check_plan_verifies(view: CheckoutView, plan: Plan) -> None:
    """Refuse a plan that ``ffgen verify`` would flag: run it on the checkout as it would be."""
    from ffgen.verify.engine import run_verify
    from ffgen.verify.model import introduced_errors

    report = run_verify(_overlay(view, list(plan.changes)))
    if not report.errors:
        return  # nothing to compare: the checkout as it would be is clean (the common case)
    new_errors = introduced_errors(run_verify(view), report)
    if new_errors:
        f = new_errors[0]
        raise RefusedError(
            f"the plan would fail `ffgen verify`: {f.rule_id} {f.path}:{f.line}: {f.message} "
            f"({len(new_errors)} error(s)); nothing was written"
        )
