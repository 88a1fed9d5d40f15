"""``--param NAME:TYPE=DEFAULT[:CONSTRAINT]``: parsing, the canonical text, the refusals, and the
code each param renders (laid out as ``ruff format`` lays it out)."""

from __future__ import annotations

import subprocess

import pytest

from ffgen.classify.params import Bounds, ParamSet, parse_param, parse_params
from ffgen.errors import UsageError
from ffgen.generate.param_code import param_view, rejected_values, yaml_value
from ffgen.quality.gates import ruff_command


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("margin:float=0.1:>=0", "margin:float=0.1:>=0"),
        (" margin : float = 0.1 : >= 0 ", "margin:float=0.1:>=0"),
        ("scale:float=1:>0", "scale:float=1.0:>0"),
        ("p:float=0.5:in (0,1]", "p:float=0.5:in (0, 1]"),
        ("p:float=0.5:in [0.1, 1)", "p:float=0.5:in [0.1, 1)"),
        ("lr:float=1e-5:<1e-3", "lr:float=1e-05:<0.001"),
        ("steps:int=3:in [1, 10]", "steps:int=3:in [1, 10]"),
        ("k:int=2:<=4", "k:int=2:<=4"),
        ("mode:str=a:a|b", "mode:str=a:a|b"),
        ("mode:str=a:choices a|b", "mode:str=a:a|b"),
        ("n:int=2:1|2|4", "n:int=2:1|2|4"),
        ("flag:bool=True", "flag:bool=true"),
        ("teacher:str=toy:seed=7", "teacher:str=toy:seed=7"),
        ("path:str=", "path:str="),
        ("x:float=-2.5", "x:float=-2.5"),
    ],
)
def test_a_spec_parses_to_its_canonical_text_and_back(spec, canonical):
    """Rule: the record keeps the canonical text; parsing it again gives the same param."""
    param = parse_param(spec)
    assert str(param) == canonical
    assert parse_param(canonical) == param


def test_the_constraint_is_what_the_spec_says():
    assert parse_param("p:float=0.5:in (0, 1]").bounds == Bounds(0.0, 1.0, True, False)
    assert parse_param("m:float=0:>=0").bounds == Bounds(low=0.0)
    assert parse_param("m:float=0:<1").bounds == Bounds(high=1.0, high_open=True)
    assert parse_param("mode:str=b:a|b").choices == ("a", "b")
    assert parse_param("n:int=4:1|2|4").choices == (1, 2, 4)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("margin", "no ':TYPE'"),
        ("margin:float", "no '=DEFAULT'"),
        ("margin:double=0.1", "type 'double' is not one of float, int, bool, str"),
        ("Margin:float=0.1", "not a lowercase Python identifier"),
        ("_m:float=0.1", "not a lowercase Python identifier"),
        ("class:float=0.1", "Python keyword"),
        ("trainer_type:str=x", "already a field of every arguments class"),
        ("m" * 33 + ":float=1", "longer than 32 characters"),
        ("margin:float=abc", "the default 'abc' is not a float"),
        ("margin:float=nan", "not finite"),
        ("margin:float=inf", "not finite"),
        ("steps:int=1.5", "the default '1.5' is not an int"),
        ("flag:bool=yes", "write true or false"),
        ("flag:bool=true:>0", "a bool parameter takes no constraint"),
        ("margin:float=0.1:>=zero", "the bound 'zero' is not a float"),
        ("margin:float=0.1:~0", "constraint '~0' is not one of"),
        ("margin:float=0.1:a|b", "a float parameter takes bounds, not choices"),
        ("mode:str=a:>0", "a str parameter takes choices only"),
        ("mode:str=a:a|a", "a choice is given twice"),
        ("mode:str=a:a|", "choice '' must be letters"),
        ("mode:str=c:a|b", "the default c is not one of 'a', 'b'"),
        ("margin:float=-1:>=0", "the default -1.0 is not a finite float >= 0"),
        ("p:float=0.5:in (1, 0)", "empty or a single value"),
        ('s:str=say "hi"', "printable ASCII without quotes"),
        ("s:str=a|b|c", "choices follow the default"),
    ],
)
def test_a_bad_spec_is_one_line_naming_the_problem(spec, problem):
    """Rule: every parse error names the spec and what is wrong, on one line."""
    with pytest.raises(UsageError) as caught:
        parse_param(spec)
    message = caught.value.message
    assert problem in message
    assert message.startswith(f"--param {spec.strip()!r}: ")
    assert "\n" not in message


def test_the_same_name_twice_is_refused():
    with pytest.raises(UsageError, match="given twice"):
        parse_params("a:int=1\na:float=2")


def test_a_param_set_prints_one_spec_per_line():
    params = parse_params("margin:float=0.1:>=0\nmode:str=a:a|b")
    assert isinstance(params, ParamSet)
    assert params.names == ("margin", "mode")
    assert parse_params(str(params)) == params
    assert parse_params("") is None


@pytest.mark.parametrize(
    ("spec", "rejected"),
    [
        ("m:float=0.1:>=0", (('"not-a-number"', "TypeError"), ("-1.0", "ValueError"))),
        ("m:float=0.1:>0", (('"not-a-number"', "TypeError"), ("0.0", "ValueError"))),
        ("m:float=0.1", (('"not-a-number"', "TypeError"), ('float("nan")', "ValueError"))),
        ("p:float=0.5:in (0, 1]", (('"not-a-number"', "TypeError"), ("0.0", "ValueError"))),
        ("p:float=0.5:<=1", (('"not-a-number"', "TypeError"), ("2.0", "ValueError"))),
        ("n:int=3:in [1, 10]", (("1.5", "TypeError"), ("0", "ValueError"))),
        ("n:int=3", (("1.5", "TypeError"),)),
        ("n:int=2:1|2", (("1.5", "TypeError"), ("3", "ValueError"))),
        ("b:bool=false", (('"yes"', "TypeError"),)),
        ("s:str=a:a|b", (("1", "TypeError"), ('"not a choice"', "ValueError"))),
    ],
)
def test_each_param_has_invalid_values_for_its_test(spec, rejected):
    """Rule: the generated arguments test refuses a wrong type and a value outside the
    constraint (NaN for an unconstrained float)."""
    assert rejected_values(parse_param(spec)) == rejected


def test_yaml_values_read_back_as_the_default():
    import yaml

    for spec in ("a:float=1e-5", "a:float=0.1", "a:float=3", "a:int=-2", "a:bool=false",
                 "a:str=toy:seed=7", "a:str=", "a:str=true", "a:str=1.5"):
        param = parse_param(spec)
        assert yaml.safe_load(f"x: {yaml_value(param)}")["x"] == param.default, spec


# -- the code a param renders ------------------------------------------------------------------

LONG = "a_long_hyperparameter_name_of_32"
SPECS = [
    "margin:float=0.1:>=0", "m:float=0.5:in (0, 1]", f"{LONG}:float=0.1:>=0",
    f"f{LONG[:13]}:float=0.1", f"i{LONG[:12]}:int=3:in [1, 10]", f"i{LONG[1:]}:int=3:>0",
    f"b{LONG[1:]}:bool=true", f"s{LONG[1:]}:str=toy:seed=7", f"c{LONG[:24]}:str=x:x|y|z",
    "steps:int=3:<100", "mode:str=fast:fast|slow|a_much_longer_choice_name_than_usual",
    f"e{LONG[1:]}:float=1e-05:in (1e-08, 0.001]",
]


def _module(specs: list[str]) -> str:
    """A class the way the arguments template lays one out, holding the params."""
    views = [param_view(parse_param(s)) for s in specs]
    fields = "\n".join(v.field for v in views)
    checks = "\n".join(v.checks for v in views)
    return (
        "import math\nfrom dataclasses import dataclass, field\nfrom typing import Literal\n\n\n"
        "@dataclass\nclass Args:\n"
        f"{fields}\n\n    def __post_init__(self) -> None:\n{checks}\n"
    )


def test_the_rendered_code_is_as_ruff_formats_it(tmp_path):
    """Rule: whatever the name's length, the field and the checks pass ``ruff format --check``
    and ``ruff check`` (the gates every generated module passes)."""
    ruff = ruff_command()
    assert ruff is not None, "ruff is a test dependency (ffgen[test])"
    path = tmp_path / "args.py"
    path.write_text(_module(SPECS), encoding="utf-8")
    for tool in (["format", "--check", "--diff"], ["check", "--select", "E,F,W,I,B,UP"]):
        done = subprocess.run([*ruff, *tool, "--line-length", "100", "--isolated", str(path)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_rendered_checks_accept_the_default_and_refuse_the_invalid_values():
    """Rule: the checks run: the default passes, each rejected value raises its error naming
    the field."""
    namespace: dict[str, object] = {}
    exec(compile(_module(SPECS), "args.py", "exec"), namespace)  # noqa: S102
    Args = namespace["Args"]
    Args()  # every default is valid
    for spec in SPECS:
        param = parse_param(spec)
        for literal, error in rejected_values(param):
            with pytest.raises(getattr(__builtins__, error, None) or eval(error)) as caught:
                Args(**{param.name: eval(literal)})  # noqa: S307
            assert f"train.{param.name} " in str(caught.value)


def test_a_param_too_long_for_its_line_is_refused():
    with pytest.raises(UsageError, match="would not fit 100 columns"):
        param_view(parse_param(f"{LONG}:float=0.30000000000000004:in "
                               "(0.10000000000000002, 0.30000000000000004]"))
