"""Render Jinja2 templates shipped in ``ffgen.templates`` (the top-level ``templates/`` folder).

StrictUndefined: a variable a template needs but the context lacks is an error, never "".
"""

from __future__ import annotations

import importlib.util
import sys
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
    """Jinja's file cache where Python keeps the bytecode of ffgen's own modules, and on the
    same terms: the templates package's ``__pycache__`` (or its place under
    ``PYTHONPYCACHEPREFIX``), read but never written under ``PYTHONDONTWRITEBYTECODE`` / ``-B``.
    So ffgen writes nothing the interpreter would not write anyway: nothing in a temporary
    folder, nothing in the user's checkout. An entry is used only for the same template source
    and the same Jinja and Python; a folder that cannot be written only costs the compile."""
    folder = Path(importlib.util.cache_from_source(str(templates_root() / "__init__.py"))).parent

    class QuietCache(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket) -> None:
            if sys.dont_write_bytecode:  # read, never written, as Python treats its .pyc files
                return
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass  # a read-only install or a full disk: the next run compiles again

    return QuietCache(str(folder))
