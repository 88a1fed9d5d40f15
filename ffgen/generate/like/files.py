"""The files a ``--like`` copy starts with: the trainer and arguments modules and the example.

Everything here is computed from a :class:`RecordedSource` (the source's classes and the text of
its files), never from the checkout directly, so that ``new`` (the source now), the lifecycle's
replay (the source at copy time) and ``update --from-source`` (both) compute the same copy.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from ffgen.checkout.layout import dotted_of, package_of
from ffgen.checkout.view import CheckoutView
from ffgen.edits._rename import Renames, absolute_module
from ffgen.edits.copy_algorithm import CopySpec, copy_module, defined_names
from ffgen.errors import RefusedError
from ffgen.generate.context import RenderContext
from ffgen.generate.like.extension_doc import documented_extension
from ffgen.generate.like.source import LIKE, SourceAlgorithm
from ffgen.generate.like.trainer_type import own_trainer_type
from ffgen.store.records import RecordedFile, RecordedSource

TRAINER_TYPE_LINE = re.compile(r"^(\s*trainer_type\s*:\s*)(['\"]?)([^'\"#\s]+)(['\"]?)(.*)$")


def source_record(
    view: CheckoutView, source: SourceAlgorithm, example_path: str | None
) -> RecordedSource:
    """The source as a copy records it: its classes and its files' text as they are now."""
    paths = [source.trainer.path, source.args.path, *([example_path] if example_path else [])]
    texts = tuple(RecordedFile(p, view.read(p) or "") for p in paths)
    return RecordedSource(
        key=source.key,
        mode=source.mode,
        kind="generated" if source.template_objective else "handwritten",
        trainer_class=source.trainer.name,
        trainer_path=source.trainer.path,
        args_class=source.args.name,
        args_path=source.args.path,
        keys=tuple(dict.fromkeys((source.key, *source.args_keys))),
        neighbours=tuple(sorted(source.neighbours)),
        hook=source.objective_hook,
        example_path=example_path or "",
        texts=texts,
    )


def with_texts(src: RecordedSource, view: CheckoutView) -> RecordedSource:
    """The same source with its files' text as the checkout holds them now."""
    from dataclasses import replace

    texts = tuple(RecordedFile(f.path, view.read(f.path) or "") for f in src.texts)
    return replace(src, texts=texts)


def source_files(src: RecordedSource, ctx: RenderContext) -> dict[str, str]:
    """The files of the new algorithm that come from the source (path -> text)."""
    if src.mode == LIKE:
        files = _copies(src, ctx)
    else:
        from ffgen.generate.like.extend import extension_files

        files = extension_files(src, ctx)
    example = src.text(src.example_path) if src.example_path else None
    if example is not None:
        files[ctx.example_path] = derived_example(example, src.keys, ctx.key)
    if ctx.params and src.mode == LIKE:
        _with_params(files, ctx, copied_example=example is not None)
    return files


def _with_params(files: dict[str, str], ctx: RenderContext, *, copied_example: bool) -> None:
    """The copy's ``--param`` fields, checks and example values, by the very edits ``ffgen param
    add`` makes (a generated source's own params are there already: the edits keep them)."""
    from ffgen.edits.args_param import add_param
    from ffgen.edits.base import EditFailure
    from ffgen.edits.param_lines import add_train_key

    for p in ctx.params:
        result = add_param(files[ctx.args_path], p, class_name=ctx.args_class,
                           path=ctx.args_path)
        if not result.ok:
            raise RefusedError(f"--param {p.name}: {result.reason}; nothing was written")
        files[ctx.args_path] = result.code
        if copied_example:  # the template's example renders the params itself
            try:
                files[ctx.example_path] = add_train_key(files[ctx.example_path], p.name, p.yaml)
            except EditFailure as exc:
                raise RefusedError(f"{ctx.example_path}: {exc}; nothing was written") from None


def _modules(src: RecordedSource, ctx: RenderContext) -> dict[str, str]:
    return {
        dotted_of(src.args_path): dotted_of(ctx.args_path),
        dotted_of(src.trainer_path): dotted_of(ctx.trainer_path),
    }


# Module-level names ffgen's templates bind to an algorithm through its module name
# (``<MODULE>_DEFAULT_OPTIMIZERS``): exact names, renamed with the module; any other name that
# merely contains the source's name stays as it is.
MODULE_NAMES = ("DEFAULT_OPTIMIZERS", "TRAINABLE_ROLES")


def _bound_names(src: RecordedSource, ctx: RenderContext, args_text: str) -> dict[str, str]:
    names = {src.trainer_class: ctx.trainer_class, src.args_class: ctx.args_class}
    old, new = src.args_path.rsplit("/", 1)[-1].removesuffix(".py").upper(), ctx.module.upper()
    defined = defined_names(args_text)
    for suffix in MODULE_NAMES:
        if f"{old}_{suffix}" in defined:
            names[f"{old}_{suffix}"] = f"{new}_{suffix}"
    return names


def _copies(src: RecordedSource, ctx: RenderContext) -> dict[str, str]:
    trainer_module, args_module = dotted_of(src.trainer_path), dotted_of(src.args_path)
    trainer_text, args_text = src.text(src.trainer_path) or "", src.text(src.args_path) or ""
    names = _bound_names(src, ctx, args_text)
    trainer = copy_module(
        trainer_text,
        CopySpec(
            roots=(src.trainer_class,),
            renames=Renames(
                names,
                {src.key: ctx.key},
                _modules(src, ctx),
                package_of(src.trainer_path),
                package_of(ctx.trainer_path),
            ),
            source_module=trainer_module,
            external=frozenset(src.neighbours),
            docstring=_docstring("Trainer", src, ctx, src.trainer_class, src.trainer_path),
        ),
    )
    imported = imported_from(trainer_text, package_of(src.trainer_path), args_module)
    args = copy_module(
        args_text,
        CopySpec(
            roots=(src.args_class, *imported),
            renames=Renames(
                names,
                dict.fromkeys(src.keys, ctx.key),
                _modules(src, ctx),
                package_of(src.args_path),
                package_of(ctx.args_path),
            ),
            source_module=args_module,
            external=frozenset(src.neighbours),
            docstring=_docstring("Training arguments", src, ctx, src.args_class, src.args_path),
        ),
    )
    for copied, cls, path in ((trainer, src.trainer_class, src.trainer_path),
                              (args, src.args_class, src.args_path)):
        if cls not in copied.copied:
            raise RefusedError(
                f"{path} no longer defines {cls}, the class {ctx.key} was copied from; there is "
                "nothing to copy (the copy is yours now)"
            )
    args_text = own_trainer_type(args.text, ctx.args_class, ctx.key, ctx.args_path)
    trainer_text = documented_extension(trainer.text, ctx.trainer_class, src.key,
                                        src.trainer_class, ctx.key)
    return {ctx.trainer_path: trainer_text, ctx.args_path: args_text}


def imported_from(text: str, package: str, wanted: str) -> tuple[str, ...]:
    """Names a module of ``package`` imports from the module ``wanted`` (anywhere in it)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            where = absolute_module(package, node.level, node.module)
            if where == wanted:
                found += [a.name for a in node.names if a.name != "*"]
    return tuple(dict.fromkeys(found))


def _docstring(what: str, src: RecordedSource, ctx: RenderContext, cls: str, path: str) -> str:
    return (
        f"{what} of the ``{ctx.key}`` algorithm, copied from ``{src.key}``.\n\n"
        f"``ffgen new {ctx.key} --like {src.key}`` copied ``{cls}`` from\n"
        f"``{path}``\n"
        "with the module-level helpers it uses, renaming what is bound to the source; "
        f"``ffgen update\n{ctx.key} --from-source`` merges the source's later changes into "
        "this copy.\n"
    )


def derived_example(text: str, old_keys: tuple[str, ...], new_key: str) -> str:
    """The source's example with ``train.trainer_type`` set to the new key (comments kept)."""
    from ffgen.verify.examples import load_example

    example = load_example("source.yaml", text)
    lines = text.splitlines(keepends=True)
    if "trainer_type" in example.train:
        index = example.line("train", "trainer_type") - 1
        match = TRAINER_TYPE_LINE.match(lines[index].rstrip("\r\n"))
        if match and match.group(3) in old_keys:
            ending = lines[index][len(lines[index].rstrip("\r\n")) :]
            head, open_q, _, close_q, rest = match.groups()
            lines[index] = f"{head}{open_q}{new_key}{close_q}{rest}{ending}"
            return "".join(lines)
    return _with_trainer_type(lines, example, new_key)


def _with_trainer_type(lines: list[str], example, new_key: str) -> str:
    """A ``trainer_type`` line under ``train:`` (the example relied on the default key)."""
    index = example.line("train") - 1
    indent = "  "
    if index + 1 < len(lines):
        following = lines[index + 1]
        indent = following[: len(following) - len(following.lstrip())] or indent
    lines.insert(index + 1, f"{indent}trainer_type: {new_key}\n")
    return "".join(lines)


def copied_texts(src: RecordedSource) -> Mapping[str, str]:
    return {f.path: f.pristine for f in src.texts}
