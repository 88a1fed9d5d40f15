"""The edit points of one algorithm: every file ``new`` writes or edits, as data.

``new`` applies the ``add`` side, ``verify`` reads the same paths, ``remove`` applies the ``remove``
side and ``update`` / ``check`` re-render the same files; keeping them in one list is what stops
the commands from drifting apart.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import replace

from ffgen.checkout import layout
from ffgen.generate import render
from ffgen.generate.context import RenderContext
from ffgen.store.records import answers_path


@dataclasses.dataclass(frozen=True, slots=True)
class RenderedFile:
    """A file ffgen owns outright: rendered from a template."""

    path: str
    template: str
    # True for a file every generated algorithm of the checkout uses (the checklist): each
    # record lists it, ``new`` leaves an existing one alone and ``remove`` deletes it only with
    # the last algorithm whose record lists it.
    shared: bool = False
    # The text when it does not come from ``template``: a ``--like`` / ``--extends`` file
    # computed from the source algorithm (ffgen.generate.like).
    text: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class RegistryEdit:
    """A shared file ffgen edits in place with a libcst transform."""

    path: str
    what: str  # shown in messages: "args registry import and entry"
    added: str  # what the add side puts there, for the record: "my-algo -> MyAlgoTrainingArguments"
    add: Callable[[str], object]  # source -> ffgen.edits.EditResult
    remove: Callable[[str], object]


@dataclasses.dataclass(frozen=True, slots=True)
class Manifest:
    """What ``new`` writes for one algorithm: rendered files, edits, docs, record."""
    rendered: tuple[RenderedFile, ...]
    edits: tuple[RegistryEdit, ...]
    docs_path: str
    answers_path: str


@dataclasses.dataclass(frozen=True, slots=True)
class Entries:
    """Who one algorithm is in the shared files: its key, classes and modules.

    A generated algorithm has one module name for both classes; a hand-written one (``remove
    --force``, ``verify --fix``) may not, so the two are kept apart.
    """

    key: str
    args_module: str
    args_class: str
    trainer_module: str
    trainer_class: str
    category: str

    @property
    def trainer_dotted(self) -> str:
        return layout.trainer_dotted_path(self.category, self.trainer_module, self.trainer_class)


def registry_edits(e: Entries) -> tuple[RegistryEdit, ...]:
    """The five shared-file edits that register ``e``, each with its inverse."""
    from ffgen.edits import registries as edits  # libcst is slow to import; only plans need it

    cat_init = layout.category_init_path(e.category)
    reg = dict(key=e.key, module=e.args_module, class_name=e.args_class)
    args_init = dict(module=e.args_module, class_name=e.args_class)
    trainer = dict(key=e.key, dotted_path=e.trainer_dotted)
    category = dict(module=e.trainer_module, class_name=e.trainer_class, path=cat_init)
    return (
        RegistryEdit(
            layout.ARGS_REGISTRY,
            "args registry import and entry",
            f"{e.key} -> {e.args_class}",
            lambda s: edits.add_args_registry_entry(s, **reg),
            lambda s: edits.remove_args_registry_entry(s, **reg),
        ),
        RegistryEdit(
            layout.ARGS_INIT,
            "training_args re-export and __all__",
            f"from .{e.args_module} import {e.args_class}",
            lambda s: edits.add_args_init_export(s, **args_init),
            lambda s: edits.remove_args_init_export(s, **args_init),
        ),
        RegistryEdit(
            layout.HPARAMS_INIT,
            "hparams re-export and __all__",
            e.args_class,
            lambda s: edits.add_hparams_reexport(s, class_name=e.args_class),
            lambda s: edits.remove_hparams_reexport(s, class_name=e.args_class),
        ),
        RegistryEdit(
            layout.TRAINER_REGISTRY,
            "trainer registry entry",
            f"{e.key} -> {e.trainer_dotted}",
            lambda s: edits.add_trainer_registry_entry(s, **trainer),
            lambda s: edits.remove_trainer_registry_entry(s, **trainer),
        ),
        RegistryEdit(
            cat_init,
            "category re-export",
            f"from .{e.trainer_module} import {e.trainer_class}",
            lambda s: edits.add_category_reexport(s, **category),
            lambda s: edits.remove_category_reexport(s, **category),
        ),
    )


def entries_of(ctx: RenderContext) -> Entries:
    return Entries(
        ctx.key, ctx.module, ctx.args_class, ctx.module, ctx.trainer_class, ctx.category
    )


def manifest_for(ctx: RenderContext, copied: Mapping[str, str] | None = None) -> Manifest:
    """The edit points of ``ctx``'s algorithm; ``copied``: texts that replace a template's
    render (path -> text, from the source of a ``--like`` / ``--extends`` run)."""
    rendered = (
        RenderedFile(ctx.args_path, render.ARGS_TEMPLATE),
        RenderedFile(ctx.trainer_path, render.TRAINER_TEMPLATE),
        RenderedFile(ctx.example_path, render.EXAMPLE_TEMPLATE),
        RenderedFile(ctx.test_path, render.TEST_TEMPLATE),
        RenderedFile(layout.args_test_path(ctx.module), render.ARGS_TEST_TEMPLATE),
        RenderedFile(layout.CHECKLIST_PATH, render.CHECKLIST_TEMPLATE, shared=True),
    )
    copied = copied or {}
    return Manifest(
        rendered=tuple(
            replace(f, text=copied[f.path]) if f.path in copied else f for f in rendered
        ),
        edits=registry_edits(entries_of(ctx)),
        docs_path=layout.GUIDANCE_ALGORITHMS,
        answers_path=answers_path(ctx.key),
    )
