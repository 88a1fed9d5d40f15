"""Render Jinja2 templates shipped in ``ffgen.templates`` (the top-level ``templates/`` folder).

StrictUndefined: a variable a template needs but the context lacks is an error, never "".
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

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
    return Path(str(resources.files("ffgen.templates")))


@lru_cache(maxsize=1)
def _environment():
    import jinja2  # imported here so `ffgen --help` stays fast

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_root())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(template: str, ctx: RenderContext) -> str:
    """Render one template with the algorithm's context."""
    return _environment().get_template(template).render(**ctx.as_dict())
