"""``ffgen param add|remove KEY ...``: change a generated algorithm's hyperparameters.

The record's ``params`` answer changes, then ``update``'s own path runs: re-render from the
answers, merge three ways per file, move the record's pristine texts to the new render. So
``param add`` ends where ``new --param`` would have started, and ``update``/``remove`` stay
exact afterwards.

A plain merge would conflict wherever the user edited next to where the param goes (the end of
the class's fields, of ``__post_init__``, of ``train:``, of the docs table). So the three files a
param touches first get the param's own edit on *both* the user's text and the recorded pristine
(:mod:`ffgen.edits.args_param` for the class, :mod:`ffgen.edits.param_lines` for the example and
the docs section): the merge then sees the param on both sides, and only the user's edits and any
pending template change differ, as in any ``update``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console

from ffgen.checkout.facts import read_facts
from ffgen.checkout.view import CheckoutView, Overlay, find_root
from ffgen.classify.params import ParamSet, parse_param
from ffgen.edits.args_param import add_param, remove_param
from ffgen.edits.base import EditFailure
from ffgen.edits.param_lines import add_doc_row, add_train_key, remove_doc_row, remove_train_key
from ffgen.errors import RefusedError, UsageError
from ffgen.generate.param_code import (
    ParamView,
    check_params,
    class_members,
    param_view,
    rendered_members,
)
from ffgen.generate.plan import FileChange, Plan, Status, docs_inner
from ffgen.lifecycle.replay import Replayed, replay
from ffgen.lifecycle.update import UpdatePlan, plan_update
from ffgen.output import escape
from ffgen.store.read import read_record
from ffgen.store.records import Record, RecordedFile
from ffgen.write.journal import holding


@dataclass(frozen=True)
class ParamEdit:
    """One param in or out, as the edits insert or take away its text."""

    view: ParamView
    adding: bool


# -- the command -------------------------------------------------------------------------------


def run_param(
    checkout: Path | None,
    key: str,
    *,
    add: Sequence[str] = (),
    remove: Sequence[str] = (),
    dry_run: bool,
    fmt: str,
    console: Console | None = None,
    force: bool = False,
) -> int:
    from ffgen.lifecycle.commands import TEXT_JSON, _check_format, _console, _show_and_apply

    _check_format(fmt, TEXT_JSON)
    console = console or _console()
    root = find_root(checkout)
    verb = "param add" if add else "param remove"
    with holding(root, writes=not dry_run):
        planned = plan_param(CheckoutView(root), key, add=add, remove=remove, force=force)
        result, params = planned.result, planned.params
        if result.conflicts:
            where = ", ".join(dict.fromkeys(c.path for c in result.conflicts))
            raise RefusedError(
                f"{len(result.conflicts)} conflict(s) between your edits and template changes "
                f"`ffgen update {key}` has not merged yet, in {where}; nothing was written: run "
                f"`ffgen update {key}` first, then `ffgen {verb}` again"
            )
        listed = [str(p) for p in params.items] if params else []
        reads = [f"{r.path}:{r.line}" for r in planned.reads]
        code = _show_and_apply(console, root, result.plan, verb, dry_run=dry_run, fmt=fmt,
                               extra={"params": listed, "still_read": reads,
                                      "not_declared": list(planned.absent)})
        if planned.absent and fmt == "text":
            console.print(
                f"[yellow]note:[/yellow] {escape(', '.join(planned.absent))} is no longer a field "
                "of the arguments class (renamed or removed by hand?): the class is left as it "
                "is; the record, example, tests and docs drop the param", highlight=False)
        if planned.reads and fmt == "text":
            console.print(
                f"[yellow]--force: left reading a removed param:[/yellow] "
                f"{escape('; '.join(r.describe() for r in planned.reads))} "
                "(AttributeError when it runs; "
                "`ffgen verify` reports it as FF708)", highlight=False)
        return code


@dataclass(frozen=True, slots=True)
class ParamPlan:
    """What ``param add``/``param remove`` would do: the update, the params afterwards, and
    (with ``--force``) the reads of a removed param the code keeps."""

    result: UpdatePlan
    params: ParamSet | None
    reads: tuple = ()
    # removed params the arguments class no longer declares (renamed or deleted by hand): the
    # record, tests and docs drop them, the user's class is left as it is
    absent: tuple[str, ...] = ()


def plan_param(
    view: CheckoutView, key: str, *, add: Sequence[str] = (), remove: Sequence[str] = (),
    force: bool = False,
) -> ParamPlan:
    """Every change ``param add``/``param remove`` would make, and the params afterwards; a
    removal the code still reads is refused, naming each read, unless ``force``."""
    record = read_record(view, key)
    if record is None:
        raise RefusedError(
            f"{key} has no ffgen record (.ffgen/answers/{key}.yml); `ffgen param` changes "
            "algorithms ffgen generated (add a field by hand to others)"
        )
    model_types = read_facts(view).model_types
    before = replay(view, record, model_types)
    params, edits = changed_params(before.classification.answers.params, add, remove, key)
    answers = {k: v for k, v in record.answers.items() if k != "params"}
    if params:
        answers["params"] = str(params)
    after = replay(view, replace(record, answers=answers), model_types)
    check_params(view, after.ctx)
    kept = [e.view.name for e in edits if not e.adding and e.view.name in _names(after.ctx)]
    if kept:
        raise RefusedError(
            f"{key}: {', '.join(kept)} came with the algorithm it was copied from (--like), so "
            "every re-render brings it back; take it out of the copy's arguments class by hand"
        )
    prepared, overlay = _with_param_edits(view, replace(record, answers=answers), before, edits)
    result = plan_update(Overlay(base=view, changes=overlay), key, prepared)
    changes = tuple(_against_disk(view, c) if c.path in overlay else c for c in result.plan.changes)
    plan = Plan(key, changes)
    # a removed param the template now declares itself stays a field: reading it is fine
    declared = set(rendered_members(after.ctx))
    gone = [e.view.name for e in edits if not e.adding and e.view.name not in declared]
    reads = still_read(view, record, plan, gone)
    if reads and not force:
        raise RefusedError(
            f"{'; '.join(r.describe() for r in reads)}; nothing was written: take those reads "
            f"out first, or re-run with --force to remove the param anyway"
        )
    absent = tuple(e.view.name for e in edits if not e.adding
                   and not _declares(view, before.ctx.args_path, before.ctx.args_class,
                                     e.view.name))
    return ParamPlan(UpdatePlan(plan, result.conflicts), params, tuple(reads), absent)


def _declares(view: CheckoutView, path: str, class_name: str, name: str) -> bool:
    """Whether ``class_name`` in ``path`` declares the field ``name`` (True when the file does
    not read: other checks speak for it)."""
    import ast

    text = view.read(path)
    try:
        tree = ast.parse(text) if text is not None else None
    except SyntaxError:
        tree = None
    return tree is None or name in class_members(tree, class_name)


def _names(ctx) -> set[str]:
    return {p.name for p in ctx.params}


def changed_params(
    current: ParamSet | None, add: Sequence[str], remove: Sequence[str], key: str
) -> tuple[ParamSet | None, list[ParamEdit]]:
    """The params after adding specs ``add`` / removing names ``remove``, and the edits."""
    items = list(current.items) if current else []
    edits = []
    specs = [parse_param(text, "SPEC") for text in add]
    names = [spec.name for spec in specs]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise UsageError(f"the param {twice} is given twice in this command; give each once")
    for spec in specs:
        known = next((p for p in items if p.name == spec.name), None)
        if known is None:
            items.append(spec)
            edits.append(ParamEdit(param_view(spec), adding=True))
        elif known != spec:
            raise UsageError(
                f"{key} already has the param {known}; to change it run `ffgen param remove "
                f"{key} {spec.name}`, then add it again"
            )
    for name in remove:
        known = next((p for p in items if p.name == name), None)
        if known is None:
            listed = ", ".join(p.name for p in items) or "none"
            raise UsageError(f"{key} has no param {name!r} (its params: {listed})")
        items.remove(known)
        edits.append(ParamEdit(param_view(known), adding=False))
    return (ParamSet(tuple(items)) if items else None), edits


def still_read(view: CheckoutView, record: Record, plan: Plan, names: list[str]) -> list:
    """The reads of ``names`` left in the algorithm's Python files (the trainer, the tests, any
    file the record lists) as ``plan`` would leave them."""
    from ffgen.lifecycle.param_reads import field_reads

    if not names:
        return []
    planned = {c.path: c.new for c in plan.changes
               if c.status is not Status.DELETE and c.new is not None}
    texts = {}
    for path in (*(f.path for f in record.files), *planned):
        text = planned[path] if path in planned else view.read(path)
        if text is not None:
            texts[path] = text
    return field_reads(texts, names)


# -- the param's own edit on both sides of the merge ---------------------------------------------


def _with_param_edits(
    view: CheckoutView, record: Record, before: Replayed, edits: list[ParamEdit]
) -> tuple[Record, dict[str, str]]:
    """The record with its pristine texts edited, and the user's files edited (by path)."""
    ctx = before.ctx
    per_file: dict[str, Callable[[str], str]] = {
        ctx.args_path: lambda text: _edit_args(text, edits, ctx.args_class, ctx.args_path),
        ctx.example_path: lambda text: _edit_example(text, edits, ctx.example_path),
    }
    overlay = {}
    files = []
    for f in record.files:
        edit = per_file.get(f.path)
        files.append(RecordedFile(f.path, edit(f.pristine)) if edit else f)
        current = view.read(f.path) if edit else None
        if edit and current is not None:
            overlay[f.path] = edit(current)
    docs = record.docs
    if docs is not None:
        docs = replace(docs, section=_edit_docs(docs.section, edits, docs.path))
        current = view.read(docs.path)
        edited = _edit_docs_file(current, record.key, edits, docs.path) if current else None
        if edited is not None:
            overlay[docs.path] = edited
    return replace(record, files=tuple(files), docs=docs), overlay


def _edit_args(text: str, edits: list[ParamEdit], class_name: str, path: str) -> str:
    for e in edits:
        edit = add_param if e.adding else remove_param
        result = edit(text, e.view, class_name=class_name, path=path)
        if not result.ok:
            raise RefusedError(f"{result.reason}; nothing was written")
        text = result.code
    return text


def _edit_example(text: str, edits: list[ParamEdit], path: str) -> str:
    try:
        for e in edits:
            if e.adding:
                text = add_train_key(text, e.view.name, e.view.yaml)
            else:
                text = remove_train_key(text, e.view.name)
    except EditFailure as exc:
        raise RefusedError(f"{path}: {exc}; nothing was written") from None
    return text


def _edit_docs(section: str, edits: list[ParamEdit], path: str) -> str:
    try:
        for e in edits:
            if e.adding:
                section = add_doc_row(section, e.view.name, e.view.doc_row)
            else:
                section = remove_doc_row(section, e.view.name)
    except EditFailure as exc:
        raise RefusedError(f"{path}: {exc}; nothing was written") from None
    return section


def _edit_docs_file(text: str, key: str, edits: list[ParamEdit], path: str) -> str | None:
    """The guidance file with the algorithm's marked section edited (None: no section there,
    ``update`` adds it back the way ``new`` does)."""
    inner = docs_inner(text, key, path)
    if inner is None:
        return None
    start, stop = inner
    return text[:start] + _edit_docs(text[start:stop], edits, path) + text[stop:]


def _against_disk(view: CheckoutView, change: FileChange) -> FileChange:
    """A change planned against the edited overlay, restated against the file on disk."""
    old = view.read(change.path)
    if change.status is Status.DELETE or (change.status is Status.KEPT and not change.new):
        return replace(change, old=old)
    if old is None:
        return replace(change, status=Status.CREATE, old=None, note="")
    if change.new == old:
        return replace(change, status=Status.IDENTICAL, old=old, note="")
    return replace(change, status=Status.UPDATE, old=old, note="")

