"""The short ways around typer (ffgen/argv.py, ffgen/entry.py) for ``verify``, ``new`` and
``--help``: they take exactly the arguments typer would take, hand everything else to typer, and
print and exit exactly as typer's way does, without importing what they do not use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ffgen import argv as short_way
from ffgen import entry
from ffgen.cli import app
from ffgen.verify import command

REPO = Path(__file__).resolve().parents[2]
UNDERSTOOD = [
    ["verify"],
    ["verify", "--checkout", "some/dir"],
    ["verify", "--checkout=some/dir", "--format", "json"],
    ["verify", "--format=github", "--algorithm", "sft", "--algorithm", "dpo"],
    ["verify", "--explain", "FF101", "--format", "json"],
    ["verify", "--explain=all"],
    ["verify", "--fix", "--dry-run", "--checkout", "x", "--fix"],
    ["verify", "--dry-run"],
    ["verify", "--format", "xml"],  # verify_cmd itself refuses it, on either way
    ["new", "my-algo"],
    ["new", "--yes", "my-algo", "--acquisition", "dataset", "--supervision=demonstrations"],
    ["new", "x", "-y", "--param", "a:float=1", "--param=b:int=2", "--format", "json"],
    ["new", "x", "--checkout", "c", "--answers", "a.yml", "--dry-run", "--force", "--debug"],
    ["new", "x", "--like", "sft", "--class-name", "X", "--model-type", "toy", "--roles", "a,b",
     "--role-cadence", "b=2", "--finetune-type", "full", "--category", "rl", "--state",
     "legacy", "--ownership", "single", "--dynamics", "sde", "--paradigm", "coupled",
     "--feedback", "none", "--extends", "grpo", "--acquisition", "a", "--acquisition", "b"],
]
LEFT_TO_TYPER = [
    [],
    ["list"],
    ["--version"],
    ["verify", "--help"],
    ["verify", "--checkout"],
    ["verify", "--checkout", "--fix"],
    ["verify", "--checkout="],
    ["verify", "--fix=yes"],
    ["verify", "--formats", "json"],
    ["verify", "extra"],
    ["verify", "-h"],
    ["verify", "--", "--fix"],
    ["new"],
    ["new", "a", "b"],
    ["new", "--yes"],
    ["new", "x", "--help"],
    ["new", "x", "--param"],
    ["new", "x", "-yq"],
    ["new", "-", "--yes"],
    ["new", "x", "--yes=1"],
    ["new", "x", "--acquisiton", "dataset"],
]


def _typer_options(monkeypatch, argv: list[str]) -> tuple[str, dict[str, object]]:
    seen: dict[str, object] = {}

    def fake_verify(checkout, algorithm, fmt, explain, *, fix=False, dry_run=False):
        seen.update(checkout=checkout, algorithm=algorithm, fmt=fmt, explain=explain,
                    fix=fix, dry_run=dry_run)
        return 0

    def fake_new(**given):
        seen.update(given)
        return 0

    monkeypatch.setattr(command, "verify_cmd", fake_verify)
    monkeypatch.setattr(entry, "new_code", fake_new)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    return argv[0], seen


@pytest.mark.parametrize("argv", UNDERSTOOD, ids=" ".join)
def test_the_short_way_passes_what_typer_passes(monkeypatch, argv):
    assert short_way.options(argv) == _typer_options(monkeypatch, argv)


@pytest.mark.parametrize("argv", LEFT_TO_TYPER, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_goes_to_typer(argv):
    assert short_way.options(argv) is None


@pytest.mark.parametrize("name", sorted(short_way.SPECS))
def test_each_spec_is_the_typer_command_s_options(name):
    """A new option on the typer command must be added to the short way too (or it would be
    handed to typer, slower but right: this keeps the two from drifting apart silently)."""
    declared = {}
    for param in typer.main.get_command(app).commands[name].params:
        if isinstance(param, typer.core.TyperArgument):
            assert short_way.SPECS[name].argument == param.name
            continue
        kind = (short_way.FLAG if param.is_flag else
                short_way.LIST if param.multiple else short_way.VALUE)
        default = None if param.multiple else param.default
        for opt in param.opts:
            declared[opt] = (param.name, kind, default)
    assert short_way.SPECS[name].options == declared


def _ffgen(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "ffgen", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120, check=False)


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:")}


def _errors(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_the_short_way_prints_and_exits_as_typer_s_way(sandbox, fmt):
    trainer = next(sandbox.glob("src/flow_factory/trainers/**/sft.py"))
    text = trainer.read_text(encoding="utf-8")
    for broken in (False, True):
        if broken:  # an error finding: exit 1, the same report either way
            trainer.write_text(text.replace("execution_contract =", "_contract ="), "utf-8")
        short = _ffgen("verify", "--checkout", str(sandbox), "--format", fmt)
        typer_way = CliRunner().invoke(app, ["verify", "--checkout", str(sandbox), "--format", fmt])
        assert (short.returncode, short.stdout) == (typer_way.exit_code, typer_way.stdout)
        assert short.returncode == (1 if broken else 0)
        assert _errors(short.stderr) == ""


def test_the_short_way_imports_neither_typer_nor_the_generator(sandbox):
    done = _ffgen("verify", "--checkout", str(sandbox), "--format", "json")
    assert done.returncode == 0, _errors(done.stderr)
    heavy = {"typer", "click", "rich", "jinja2", "libcst", "dataclasses", "ffgen.cli"}
    assert heavy & _imported(done.stderr) == set()


def test_a_usage_error_on_the_short_way_is_one_line_and_exit_2(tmp_path):
    done = _ffgen("verify", "--checkout", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert _errors(done.stderr).startswith("error: --checkout ")
    assert len(_errors(done.stderr).splitlines()) == 1


def test_the_top_help_text_is_typer_s_own():
    from ffgen.top_help import TEXT

    assert entry.render_top_help() == TEXT, (
        "ffgen/top_help.py is stale; run python -m ffgen.entry --write-help"
    )


def _help_via(args: list[str], columns: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": str(columns)}
    return subprocess.run([sys.executable, "-X", "importtime", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


TYPER_WAY = "import sys; sys.argv = ['ffgen', '--help']; from ffgen.entry import _typer_code; " \
    "sys.exit(_typer_code())"


@pytest.mark.parametrize("columns", [80, 132])
def test_help_without_typer_prints_what_typer_prints(columns):
    typer_way = _help_via(["-c", TYPER_WAY], columns)
    as_module = _help_via(["-m", "ffgen", "--help"], columns)
    assert as_module.returncode == typer_way.returncode == 0
    assert as_module.stdout == typer_way.stdout.replace("Usage: ffgen", "Usage: python -m ffgen")
    assert "typer" not in _imported(as_module.stderr)
    script = ("import sys; sys.argv = ['/somewhere/bin/ffgen', '--help']; "
              "from ffgen.entry import main; main()")  # as the console script runs it
    as_script = _help_via(["-c", script], columns)
    assert (as_script.returncode, as_script.stdout) == (0, typer_way.stdout)


def test_a_narrow_terminal_gets_typer_s_wrapping():
    narrow = _help_via(["-m", "ffgen", "--help"], 60)
    assert narrow.returncode == 0 and "typer" in _imported(narrow.stderr)
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 58


NEW_ARGS = ["new", "my-algo", "--yes", "--model-type", "toy", "--acquisition", "dataset",
            "--supervision", "demonstrations"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_new_on_the_short_way_plans_as_typer_s_way(sandbox, fmt):
    args = [*NEW_ARGS, "--checkout", str(sandbox), "--dry-run", "--format", fmt]
    short = _ffgen(*args)
    typer_way = CliRunner().invoke(app, args)
    assert (short.returncode, short.stdout) == (typer_way.exit_code, typer_way.stdout) == (
        0, typer_way.stdout)
    assert "typer" not in _imported(short.stderr)


def test_new_on_the_short_way_writes_and_refuses_as_typer_s_way(sandbox):
    done = _ffgen(*NEW_ARGS, "--checkout", str(sandbox))
    assert done.returncode == 0, _errors(done.stderr)
    assert (sandbox / "src/flow_factory/trainers/offline/my_algo.py").is_file()
    bad = _ffgen("new", "other", "--yes", "--acquisition", "sideways", "--checkout", str(sandbox))
    typer_way = CliRunner().invoke(
        app, ["new", "other", "--yes", "--acquisition", "sideways", "--checkout", str(sandbox)])
    assert bad.returncode == typer_way.exit_code != 0
    assert _errors(bad.stderr).splitlines() == typer_way.stderr.splitlines()
    assert len(_errors(bad.stderr).splitlines()) == 1
