"""Render Jinja2 templates shipped in ``ffgen.templates`` (the top-level ``templates/`` folder).

StrictUndefined: a variable a template needs but the context lacks is an error, never "".

The templates ship compiled ahead of time too (``ffgen/generate/compiled/``, Jinja's own
module form, importing :mod:`ffgen.generate.template_runtime` instead of Jinja's runtime), so a
command neither imports Jinja nor lexes and compiles the templates. The compiled form is only a
cache: it is used when it was made from exactly these template sources, and the sources are
rendered by Jinja otherwise. ``tests/core/test_compiled_templates.py`` fails when it is stale
(or Jinja would now compile it otherwise); regenerate it with

    .venv/bin/python -m ffgen.generate.render --write
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from hashlib import sha256
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
# The miniature checkout ``ffgen sandbox`` copies as it is: no templates there (compiling refuses
# one), so the currency check need not walk its 40-odd folders.
_COPIED = "sandbox"
# The one import line of a module Jinja compiled, and what ffgen ships in its place.
_JINJA_RUNTIME = "from jinja2.runtime import "
_OUR_RUNTIME = "from ffgen.generate.template_runtime import "


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
    root = templates_root()
    if compiled_is_current(root, COMPILED):
        from ffgen.generate.template_env import CompiledTemplates

        return CompiledTemplates(COMPILED)
    return _make_environment(_source_loader(root))


def _make_environment(loader):
    import jinja2  # imported here: only a stale compiled form (or compiling) needs Jinja

    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def sources_stamp(root: Path) -> str:
    """What the compiled form was made from: every template's path and bytes.

    Run before each command's first render, so kept cheap: one walk, one hash. (Which Jinja
    compiled them no longer matters here: the runtime is ffgen's own.)"""
    digest = sha256()
    top = os.path.join(str(root), "")  # each path found starts with it (scandir joins so)
    for path in sorted(_template_files(top, skip=_COPIED)):
        with open(path, "rb") as file:
            data = file.read()
        name = path[len(top):].replace(os.sep, "/")
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return f"templates sha256 {digest.hexdigest()}"


def _template_files(folder: str, skip: str = "") -> list[str]:
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name == skip:
                continue
            if entry.is_dir(follow_symlinks=False):
                found += _template_files(entry.path)
            elif entry.name.endswith(_SUFFIX) and entry.is_file():
                found.append(entry.path)
    return found


def compiled_is_current(root: Path, compiled: Path) -> bool:
    try:
        stamp = (compiled / _STAMP).read_text(encoding="utf-8")
    except OSError:
        return False
    return f"STAMP = {sources_stamp(root)!r}" in stamp


def compile_templates(root: Path, target: Path) -> None:
    """Write the compiled form of every template under ``root`` into ``target`` (replaced)."""
    import shutil  # only here: rendering never needs them
    import tempfile

    from ffgen.generate import restyle_cache

    copied = sorted((root / _COPIED).rglob(f"*{_SUFFIX}"))
    if copied:
        raise RuntimeError(f"{copied[0]}: {_COPIED}/ is copied as it is, never rendered")
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / "compiled"
        environment = _make_environment(_source_loader(root))
        environment.compile_templates(
            str(staging), filter_func=lambda name: name.endswith(_SUFFIX), zip=None,
            ignore_errors=False,
        )
        _use_our_runtime(staging)
        (staging / _STAMP).write_text(_stamp_module(root), encoding="utf-8")
        cache = restyle_cache.cache_module(environment, restyle_cache.constant_templates(root))
        (staging / restyle_cache.MODULE).write_text(cache, encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(staging, target)


def _source_loader(root: Path):
    import jinja2

    return jinja2.FileSystemLoader(str(root))


def _use_our_runtime(folder: Path) -> None:
    """Point every compiled module's import of Jinja's runtime at ffgen's."""
    import re

    from ffgen.generate import template_runtime

    for path in sorted(folder.glob("tmpl_*.py")):
        first, newline, rest = path.read_text(encoding="utf-8").partition("\n")
        names = first[len(_JINJA_RUNTIME):].split(", ")
        other = re.search(r"^\s*(from|import) jinja2", rest, re.M)
        if not first.startswith(_JINJA_RUNTIME) or other:
            raise RuntimeError(f"{path.name}: Jinja's compiled form changed: {first!r}")
        lacking = [name for name in names if not hasattr(template_runtime, name)]
        if lacking:
            raise RuntimeError(f"{path.name} needs {lacking} from ffgen.generate.template_runtime")
        path.write_text(_OUR_RUNTIME + ", ".join(names) + newline + rest, encoding="utf-8")


def _stamp_module(root: Path) -> str:
    import jinja2

    return (
        '"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).\n\n'
        "Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses\n"
        'these modules (through ffgen.generate.template_runtime) only while STAMP matches the\n'
        'template sources.\n"""\n'
        f"\nCOMPILED_BY = {'jinja2 ' + jinja2.__version__!r}\n"
        f"STAMP = {sources_stamp(root)!r}\n"
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m ffgen.generate.render --write")
    compile_templates(templates_root(), COMPILED)
    print(f"compiled {len(list(COMPILED.glob('tmpl_*.py')))} templates into {COMPILED}")
