"""``--param 'NAME:TYPE=DEFAULT:CONSTRAINT:HELP'``: the help text reaches the arguments field, the
docs row and the arguments test, safely quoted in Python, YAML and Markdown (issue 29, item 6)."""

from __future__ import annotations

import ast
import re
import subprocess

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ffgen.classify.params import ParamSet, parse_param, parse_params
from ffgen.errors import UsageError
from ffgen.generate.param_code import help_rows, param_view
from ffgen.quality.gates import ruff_command

HELP = "Margin added to the chosen arm's implicit reward: in nats | per pair"


@pytest.mark.parametrize(
    ("spec", "canonical", "help_text"),
    [
        (f"margin:float=0.1:>=0:{HELP}", f"margin:float=0.1:>=0:{HELP}", HELP),
        ("margin:float=0.1::Plain margin", "margin:float=0.1::Plain margin", "Plain margin"),
        ("flag:bool=true:: A flag ", "flag:bool=true::A flag", "A flag"),
        ("mode:str=a:a|b:Which: a|b", "mode:str=a:a|b:Which: a|b", "Which: a|b"),
        ("tag:str=toy:seed=7::Seeded toy", "tag:str=toy:seed=7::Seeded toy", "Seeded toy"),
        ("tag:str=toy:seed=7", "tag:str=toy:seed=7", ""),
        ("n:int=2:1|2|4", "n:int=2:1|2|4", ""),
    ],
)
def test_a_help_text_parses_and_prints_back(spec, canonical, help_text):
    """Rule: the help is everything after the third ':'; the canonical text keeps it (an empty
    constraint stays as '::'), so the record replays the same param."""
    param = parse_param(spec)
    assert param.help == help_text
    assert str(param) == canonical
    assert parse_param(canonical) == param


def test_the_help_replaces_the_generic_text_in_the_field_docs_and_args_test():
    param = parse_param(f"margin:float=0.1:>=0:{HELP}")
    view = param_view(param)
    assert "Objective hyperparameter" not in view.field + view.doc_row
    assert _field_help(view.field) == HELP
    assert view.doc_row == f"| `margin` | `0.1` | {HELP.replace('|', chr(92) + '|')} |"
    assert _row_values(help_rows(ParamSet((param,)))) == [("margin", HELP)]
    # without a help text: the generic one, and no help row in the arguments test
    plain = parse_param("margin:float=0.1:>=0")
    assert "Objective hyperparameter: a finite float >= 0." in param_view(plain).field
    assert help_rows(ParamSet((plain,))) == ()


@pytest.mark.parametrize("bad", ['say "hi"', "back\\slash", "two\nlines", "tab\there",
                                 "x" * 201])
def test_a_help_text_that_cannot_be_carried_safely_is_one_line_naming_it(bad):
    with pytest.raises(UsageError) as caught:
        parse_param(f"m:float=0.1::{bad}")
    assert "the help text must be printable" in caught.value.message
    assert "\n" not in caught.value.message


def _field_help(field: str) -> str:
    tree = ast.parse("class A:\n" + field + "\n")
    call = tree.body[0].body[0].value
    metadata = next(k.value for k in call.keywords if k.arg == "metadata")
    return ast.literal_eval(metadata)["help"]


def _row_values(rows: tuple[str, ...]) -> list[tuple[str, str]]:
    return ast.literal_eval("[\n" + "\n".join(rows) + "\n]")


def _markdown_cells(row: str) -> list[str]:
    """A GFM table row's cells: split at '|' not escaped by a backslash, unescape '\\|'."""
    inner = row.strip().removeprefix("|").removesuffix("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=220), st.sampled_from(["float=0.1:>=0", "str=a:a|b", "bool=true:"]))
def test_any_help_text_is_refused_or_carried_exactly_in_python_yaml_and_markdown(text, kind):
    """Property: a help text either gets one clear usage error, or reads back unchanged from
    the field's Python, the record's YAML, the docs' Markdown row and the args test's row."""
    spec = f"p:{kind}:{text}"
    try:
        param = parse_param(spec)
    except UsageError as exc:
        assert "\n" not in exc.message and exc.message.startswith("--param ")
        return
    assert param.help == text.strip()
    record = yaml.safe_load(yaml.safe_dump({"params": str(ParamSet((param,)))},
                                           allow_unicode=True))
    assert parse_params(record["params"]) == ParamSet((param,))
    if not param.help:
        return
    view = param_view(param)
    assert _field_help(view.field) == param.help
    assert _markdown_cells(view.doc_row)[2] == param.help
    assert len(_markdown_cells(view.doc_row)) == 3
    assert _row_values(help_rows(ParamSet((param,)))) == [("p", param.help)]


def test_long_and_quoted_help_texts_are_laid_out_as_ruff_formats_them(tmp_path):
    """Rule: the field and the args test's rows pass ``ruff format --check`` at line length
    100, short or long, with quotes, colons and pipes."""
    ruff = ruff_command()
    assert ruff is not None, "ruff is a test dependency (ffgen[test])"
    helps = ["Short.", HELP, "It's a 'quoted' word: {braces} and `code`",
             " ".join(["word"] * 40), "x" * 150, "Émoji-free unicode: naïve café"]
    params = [parse_param(f"p{i}:float=0.1::{h}") for i, h in enumerate(helps)]
    fields = "\n".join(param_view(p).field for p in params)
    rows = "\n".join(help_rows(ParamSet(tuple(params))))
    path = tmp_path / "args.py"
    path.write_text(
        "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Args:\n"
        f"{fields}\n\n\nROWS = [\n    [\n{rows}\n    ],\n]\n", encoding="utf-8")
    done = subprocess.run([*ruff, "format", "--check", "--diff", "--line-length", "100",
                           "--isolated", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
