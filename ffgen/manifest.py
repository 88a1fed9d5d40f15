"""The edit points of one algorithm: every file ``new`` writes or edits, as data.

``new`` applies the ``add`` side, ``verify`` reads the same paths, and ``remove`` (later) applies
the ``remove`` side; keeping them in one list is what stops the three from drifting apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ffgen import layout, render
from ffgen.context import RenderContext

ANSWERS_DIR = ".ffgen/answers"


def answers_path(key: str) -> str:
    return f"{ANSWERS_DIR}/{key}.yml"


@dataclass(frozen=True)
class RenderedFile:
    """A file ffgen owns outright: rendered from a template."""

    path: str
    template: str


@dataclass(frozen=True)
class RegistryEdit:
    """A shared file ffgen edits in place with a libcst transform."""

    path: str
    what: str  # shown in messages: "args registry import and entry"
    add: Callable[[str], object]  # source -> ffgen.edits.EditResult
    remove: Callable[[str], object]


@dataclass(frozen=True)
class Manifest:
    rendered: tuple[RenderedFile, ...]
    edits: tuple[RegistryEdit, ...]
    docs_path: str
    answers_path: str


def manifest_for(ctx: RenderContext) -> Manifest:
    from ffgen import edits  # libcst is slow to import; only planning needs it

    cat_init = layout.category_init_path(ctx.category)
    reg = dict(key=ctx.key, module=ctx.module, class_name=ctx.args_class)
    return Manifest(
        rendered=(
            RenderedFile(ctx.args_path, render.ARGS_TEMPLATE),
            RenderedFile(ctx.trainer_path, render.TRAINER_TEMPLATE),
            RenderedFile(ctx.example_path, render.EXAMPLE_TEMPLATE),
            RenderedFile(ctx.test_path, render.TEST_TEMPLATE),
            RenderedFile(layout.args_test_path(ctx.module), render.ARGS_TEST_TEMPLATE),
        ),
        edits=(
            RegistryEdit(
                layout.ARGS_REGISTRY,
                "args registry import and entry",
                lambda s: edits.add_args_registry_entry(s, **reg),
                lambda s: edits.remove_args_registry_entry(s, **reg),
            ),
            RegistryEdit(
                layout.ARGS_INIT,
                "training_args re-export and __all__",
                lambda s: edits.add_args_init_export(
                    s, module=ctx.module, class_name=ctx.args_class
                ),
                lambda s: edits.remove_args_init_export(
                    s, module=ctx.module, class_name=ctx.args_class
                ),
            ),
            RegistryEdit(
                layout.HPARAMS_INIT,
                "hparams re-export and __all__",
                lambda s: edits.add_hparams_reexport(s, class_name=ctx.args_class),
                lambda s: edits.remove_hparams_reexport(s, class_name=ctx.args_class),
            ),
            RegistryEdit(
                layout.TRAINER_REGISTRY,
                "trainer registry entry",
                lambda s: edits.add_trainer_registry_entry(
                    s, key=ctx.key, dotted_path=ctx.trainer_dotted
                ),
                lambda s: edits.remove_trainer_registry_entry(
                    s, key=ctx.key, dotted_path=ctx.trainer_dotted
                ),
            ),
            RegistryEdit(
                cat_init,
                "category re-export",
                lambda s: edits.add_category_reexport(
                    s, module=ctx.module, class_name=ctx.trainer_class, path=cat_init
                ),
                lambda s: edits.remove_category_reexport(
                    s, module=ctx.module, class_name=ctx.trainer_class, path=cat_init
                ),
            ),
        ),
        docs_path=layout.GUIDANCE_ALGORITHMS,
        answers_path=answers_path(ctx.key),
    )
