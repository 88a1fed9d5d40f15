"""``ffgen verify``'s short way around typer (ffgen/entry.py): it takes exactly the arguments
typer would take, hands everything else to typer, and prints and exits exactly as typer's way
does, without importing what verify does not use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

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
]
LEFT_TO_TYPER = [
    [],
    ["new", "x"],
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
]


def _typer_options(monkeypatch, argv: list[str]) -> dict[str, object]:
    seen: dict[str, object] = {}

    def fake(checkout, algorithm, fmt, explain, *, fix=False, dry_run=False):
        seen.update(checkout=checkout, algorithm=algorithm, fmt=fmt, explain=explain,
                    fix=fix, dry_run=dry_run)
        return 0

    monkeypatch.setattr(command, "verify_cmd", fake)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    return seen


@pytest.mark.parametrize("argv", UNDERSTOOD, ids=" ".join)
def test_the_short_way_passes_what_typer_passes(monkeypatch, argv):
    assert entry.verify_options(argv) == _typer_options(monkeypatch, argv)


@pytest.mark.parametrize("argv", LEFT_TO_TYPER, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_goes_to_typer(argv):
    assert entry.verify_options(argv) is None


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
