"""Render Jinja2 templates shipped in ``ffgen.templates`` (the top-level ``templates/`` folder).

StrictUndefined: a variable a template needs but the context lacks is an error, never "".

The templates ship compiled ahead of time too (``ffgen/generate/compiled/``, Jinja's own
module form), so a command does not spend its time lexing and compiling them. The compiled form
is only a cache: it is used when it was made from exactly these template sources by this Jinja
version, and the sources are rendered otherwise. ``tests/core/test_compiled_templates.py`` fails
when it is stale; regenerate it with

    .venv/bin/python -m ffgen.generate.render --write
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from functools import lru_cache
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

COMPILED = Path(__file__).resolve().parent / "compiled"
_SUFFIX = ".jinja"
_STAMP = "__init__.py"


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
    import jinja2  # imported here so `ffgen --help` and `ffgen verify` never load it

    root = templates_root()
    if compiled_is_current(root, COMPILED):
        return _make_environment(jinja2.ModuleLoader(str(COMPILED)))
    return _make_environment(jinja2.FileSystemLoader(str(root)))


def _make_environment(loader):
    import jinja2

    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def sources_stamp(root: Path) -> str:
    """What the compiled form was made from: the Jinja version and every template's bytes."""
    import jinja2

    digest = hashlib.sha256()
    for path in sorted(root.rglob(f"*{_SUFFIX}")):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return f"jinja2 {jinja2.__version__}, templates sha256 {digest.hexdigest()}"


def compiled_is_current(root: Path, compiled: Path) -> bool:
    try:
        stamp = (compiled / _STAMP).read_text(encoding="utf-8")
    except OSError:
        return False
    return f"STAMP = {sources_stamp(root)!r}" in stamp


def compile_templates(root: Path, target: Path) -> None:
    """Write the compiled form of every template under ``root`` into ``target`` (replaced)."""
    from ffgen.generate import restyle_cache

    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / "compiled"
        environment = _make_environment(_source_loader(root))
        environment.compile_templates(
            str(staging), filter_func=lambda name: name.endswith(_SUFFIX), zip=None,
            ignore_errors=False,
        )
        (staging / _STAMP).write_text(_stamp_module(root), encoding="utf-8")
        cache = restyle_cache.cache_module(environment, restyle_cache.constant_templates(root))
        (staging / restyle_cache.MODULE).write_text(cache, encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(staging, target)


def _source_loader(root: Path):
    import jinja2

    return jinja2.FileSystemLoader(str(root))


def _stamp_module(root: Path) -> str:
    return (
        '"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).\n\n'
        "Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses\n"
        'these modules only while STAMP matches the template sources and the Jinja version.\n"""\n'
        f"\nSTAMP = {sources_stamp(root)!r}\n"
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m ffgen.generate.render --write")
    compile_templates(templates_root(), COMPILED)
    print(f"compiled {len(list(COMPILED.glob('tmpl_*.py')))} templates into {COMPILED}")
