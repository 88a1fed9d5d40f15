"""ffgen's template runtime (ffgen.generate.template_runtime / template_env / template_filters)
renders the compiled templates exactly as Jinja renders their sources, raises as StrictUndefined
does, and lets a command render without importing Jinja at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jinja2
import pytest

from ffgen.checkout.hints import read_hints
from ffgen.checkout.view import CheckoutView
from ffgen.classify.names import parse_name
from ffgen.generate import render
from ffgen.generate.context import build_context
from ffgen.generate.manifest import manifest_for
from ffgen.generate.template_env import CompiledTemplates
from ffgen.generate.template_runtime import StrictUndefined, UndefinedError
from ffgen.quality.points import NAME, legal_points
from ffgen.skill import SKILL_TEMPLATE, skill_context

REPO = Path(__file__).resolve().parents[2]


def _jinja(root: Path) -> jinja2.Environment:
    """Real Jinja on the template sources, with ffgen's options."""
    return render._make_environment(jinja2.FileSystemLoader(str(root)))


@pytest.fixture(scope="module")
def engines():
    assert render.compiled_is_current(render.templates_root(), render.COMPILED), (
        "stale: run python -m ffgen.generate.render --write")
    return CompiledTemplates(render.COMPILED), _jinja(render.templates_root())


def _contexts():
    """Every legal point as ``new`` renders it, without checkout hints and with the sandbox's."""
    names = parse_name(NAME)
    hints = read_hints(CheckoutView(render.templates_root() / "sandbox"))
    points = legal_points()
    return [build_context(names, c, h) for h in (None, hints) for c in points]


def test_every_template_new_renders_reads_as_jinja_renders_it(engines):
    ours, theirs = engines
    contexts = _contexts()
    assert len(contexts) > 100  # the whole matrix, twice
    checked = set()
    for ctx in contexts:
        values = ctx.as_dict()
        templates = [f.template for f in manifest_for(ctx).rendered] + [render.DOCS_TEMPLATE]
        for name in templates:
            expected = theirs.get_template(name).render(**values)
            assert ours.get_template(name).render(**values) == expected, (name, ctx.family)
            checked.add(name)
    # the families and the parts they include come along with the trainer and test modules
    assert len(checked) == 7 and render.TRAINER_TEMPLATE in checked


def test_the_skill_reads_as_jinja_renders_it(engines):
    ours, theirs = engines
    values = skill_context().as_dict()
    text = ours.get_template(SKILL_TEMPLATE).render(**values)
    assert text == theirs.get_template(SKILL_TEMPLATE).render(**values)
    assert "|" in text and len(text) > 1000


# -- small templates, compiled as ffgen compiles its own ------------------------------------------

SMALL = {
    "macro.jinja": '{% macro greet(who, mark="!") %}hi {{ who }}{{ mark }} {{ late }}'
                   '{% endmacro %}{{ greet(name) }} {{ greet(mark="?", who=name) }}',
    "caller.jinja": "{% macro box(tag) %}<{{ tag }}>{{ caller() }}{% endmacro %}"
                    "{% call box('b') %}in {{ name }}{% endcall %}",
    "loop.jinja": '{% for x in items %}{{ x.label }}{{ ", " if not loop.last }}{% endfor %}',
    "include.jinja": 'outer {{ name }}\n{% include "part.jinja" %}',
    "part.jinja": "inner {{ inner }}",
    "import.jinja": '{% import "lib.jinja" as lib with context %}{{ lib.show() }}',
    "lib.jinja": "{% set shown = name | upper %}{% macro show() %}{{ shown }} {{ hidden }}"
                 "{% endmacro %}",
    "loop_vars.jinja": "{% for k, v in pairs %}{{ loop.index }}/{{ loop.length }}:{{ k }}={{ v }}"
                       "{{ '|' if loop.first }}{{ ';' if not loop.last }}{% endfor %}"
                       "{% for x in gen %}{{ loop.revindex }}{{ loop.nextitem if not loop.last }}"
                       "{% endfor %}",
    "filters.jinja": '{{ names | sort | join(",") }} {{ names | sort(case_sensitive=True) | list }}'
                     " {{ data | tojson }} {{ names | map('upper') | join }} {{ rows | map("
                     "attribute='label') | join('-') }} {{ rows | map('first') | list | length }}"
                     " {{ word | capitalize }}{% set ns = namespace(n=1) %}{% set ns.n = 3 %}"
                     "{{ ns.n }}{{ range(2) | list }}",
    "plain.jinja": "{% macro twice(x) %}{{ x }}{{ x }}{% endmacro %}",
    "from.jinja": '{% from "plain.jinja" import twice %}{% import "plain.jinja" as p %}'
                  "{{ twice(name) }}{{ p.twice(1) }}",
    # imported without context: the macro cannot see the importer's variables
    "from_lib.jinja": '{% from "lib.jinja" import show %}{{ show() }}',
}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    root = tmp_path_factory.mktemp("small")
    for name, text in SMALL.items():
        (root / name).write_text(text, encoding="utf-8")
    compiled = root / "compiled"
    render.compile_templates(root, compiled)
    first_lines = {p.read_text().splitlines()[0] for p in compiled.glob("tmpl_*.py")}
    assert all(line.startswith("from ffgen.generate.template_runtime import ") for line in
               first_lines)
    return CompiledTemplates(compiled), _jinja(root)


class Row:
    def __init__(self, label):
        self.label = label

    def __getitem__(self, index):
        return self.label[index]


def _values():
    # made for each render: a generator is used up by the first
    return {
        "name": "Ada", "late": "L", "inner": "I", "hidden": "H", "word": "wORD",
        "items": [Row("a"), Row("b")], "pairs": [("x", 1), ("y", 2)], "gen": iter("pq"),
        "names": ["b", "C", "a"], "rows": [Row("ab"), Row("cd")],
        "data": {"z": "<&'>", "a": [1, None]},
    }


def test_loops_filters_macros_and_imports_read_as_jinja(small):
    ours, theirs = small
    for name in SMALL:
        if name == "from_lib.jinja":
            continue  # raises: below
        expected = theirs.get_template(name).render(**_values())
        assert ours.get_template(name).render(**_values()) == expected, name
    assert ours.get_template("loop_vars.jinja").render(**_values()) == "1/2:x=1|;2/2:y=22q1"
    assert ours.get_template("from.jinja").render(**_values()) == "AdaAda11"
    assert ours.get_template("macro.jinja").render(**_values()) == "hi Ada! L hi Ada? L"
    assert ours.get_template("caller.jinja").render(**_values()) == "<b>in Ada"
    assert "[0, 1]" in ours.get_template("filters.jinja").render(**_values())


def _raised(small, template: str, values: dict) -> tuple[str, str]:
    ours, theirs = small
    with pytest.raises(UndefinedError) as mine:
        ours.get_template(template).render(**values)
    with pytest.raises(jinja2.UndefinedError) as real:
        theirs.get_template(template).render(**values)
    return str(mine.value), str(real.value)


@pytest.mark.parametrize(("name", "values", "message"), [
    ("macro.jinja", {"name": "Ada"}, "'late' is undefined"),
    ("macro.jinja", {"late": "L"}, "'name' is undefined"),
    ("loop.jinja", {}, "'items' is undefined"),
    ("loop.jinja", {"items": [1]}, "'int object' has no attribute 'label'"),
    ("include.jinja", {"name": "Ada"}, "'inner' is undefined"),
    ("import.jinja", {"name": "Ada"}, "'hidden' is undefined"),
    ("import.jinja", {"hidden": "H"}, "'name' is undefined"),
    ("from_lib.jinja", {"name": "Ada", "hidden": "H"}, "'name' is undefined"),
])
def test_an_undefined_value_raises_naming_it_as_jinja_does(small, name, values, message):
    assert _raised(small, name, values) == (message, message)


@pytest.mark.parametrize("use", [
    str, bool, len, iter, hash, lambda u: u == 1, lambda u: 1 == u, lambda u: u != 1,
    lambda u: u < 1, lambda u: u + "x", lambda u: "x" + u, lambda u: [] + u, lambda u: u[0],
    lambda u: u.attr, lambda u: u(), lambda u: 1 in u, lambda u: -u,
])
def test_a_strict_undefined_raises_on_any_use(use):
    with pytest.raises(UndefinedError, match="'thing' is undefined"):
        use(StrictUndefined(name="thing"))
    with pytest.raises(jinja2.UndefinedError, match="'thing' is undefined"):
        use(jinja2.StrictUndefined(name="thing"))


def test_a_missing_template_is_refused_by_name(small):
    ours, _ = small
    with pytest.raises(LookupError, match="nowhere.jinja"):
        ours.get_template("nowhere.jinja")


# -- no Jinja on the fast path ------------------------------------------------------------------

# Runs its body in a fresh interpreter and says which modules were loaded, however the body
# ends (``sys.exit``, or ``os._exit`` without tearing the interpreter down, as ``new`` may).
LOADED = """
import json, os, sys
def report():
    loaded = {{name: name in sys.modules for name in
              ("jinja2", "markupsafe", "ffgen.generate.template_env")}}
    print(json.dumps(loaded), file=sys.stderr, flush=True)
leave = os._exit
os._exit = lambda code: (report(), leave(code))
{body}
report()
"""
NONE = {"jinja2": False, "markupsafe": False, "ffgen.generate.template_env": True}


def _child(body: str, *args: str) -> dict:
    code = LOADED.format(body=textwrap.dedent(body))
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_rendering_the_compiled_form_imports_no_jinja():
    loaded = _child("""
        from ffgen.skill import render_skill
        assert "ffgen" in render_skill()
    """)
    assert loaded == NONE


def test_new_on_a_checkout_imports_no_jinja(sandbox):
    loaded = _child("""
        from ffgen.entry import main
        try:
            main()
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
    """, "new", "my-sft", "--checkout", str(sandbox), "--yes", "--model-type", "toy",
        "--acquisition", "dataset", "--supervision", "demonstrations")
    assert loaded == NONE
    assert list(sandbox.glob("src/flow_factory/trainers/*/my_sft.py"))
