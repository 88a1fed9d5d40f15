"""Render Jinja2 templates shipped in ``ffgen.templates`` (the top-level ``templates/`` folder).

StrictUndefined: a variable a template needs but the context lacks is an error, never "".
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffgen.generate.context import RenderContext

# The files ``ffgen new`` renders for one algorithm, by role.
ARGS_TEMPLATE = "algorithm/args.py.jinja"
TRAINER_TEMPLATE = "algorithm/trainer.py.jinja"
EXAMPLE_TEMPLATE = "algorithm/example.yaml.jinja"
TEST_TEMPLATE = "algorithm/test.py.jinja"
ARGS_TEST_TEMPLATE = "algorithm/args_test.py.jinja"
# One per checkout, shared by every generated algorithm's test file.
CHECKLIST_TEMPLATE = "algorithm/checklist.py.jinja"
DOCS_TEMPLATE = "algorithm/docs.md.jinja"


def templates_root() -> Path:
    # The package's folder, found by importing it (importlib.resources costs more than the
    # render it serves); ffgen always ships unzipped, as the sandbox copies these files.
    import ffgen.templates

    return Path(ffgen.templates.__file__).resolve().parent


def render(template: str, ctx: RenderContext) -> str:
    """Render one template with the algorithm's context; a Python module then takes the
    checkout's style (its licence header and spelling of generics: ``restyle``)."""
    text = _environment().get_template(template).render(**ctx.as_dict())
    if not template.endswith(".py.jinja"):
        return text
    from ffgen.checkout.style import CodeStyle
    from ffgen.generate.restyle import restyle

    style = CodeStyle(header=getattr(ctx, "license_header", ""),
                      generics=getattr(ctx, "generics", "builtin"))
    return restyle(text, style)


@lru_cache(maxsize=1)
def _environment():
    """Jinja's environment over the shipped templates, built once per process. Compiling the
    templates costs more than rendering them: Jinja's own bytecode cache keeps the compiled
    form between runs (see :func:`_bytecode_cache`)."""
    import jinja2  # here: only a command that renders pays for importing Jinja

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_root())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        bytecode_cache=_bytecode_cache(jinja2),
    )


def _bytecode_cache(jinja2):
    """Jinja's file cache in its own default folder (a per-user, owner-only folder under the
    system's temporary directory, which it checks before use), or none where that folder cannot
    be had: a cache is only ever a saving. An entry is used only for the same template source
    and the same Jinja and Python."""

    class QuietCache(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass  # a full or read-only temporary folder: the next run compiles again

    try:
        return QuietCache()
    except (OSError, RuntimeError):  # RuntimeError: Jinja found the folder unsafe
        return None
