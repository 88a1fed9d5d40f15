"""What keeps the commands light stays in place: ``new`` and ``verify`` never import torch (it
runs only in generated code and its suites), ``verify`` never loads the generator's libraries
(Jinja, libcst), ``new`` loads the ``--like`` package only for ``--like``/``--extends`` and
never libcst's matchers, and
``ffgen --help`` is typer's own live help. The interpreter exits normally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from ffgen.cli import app

REPO = Path(__file__).resolve().parents[2]

# Runs the ``ffgen`` command in a fresh interpreter, then says which of the watched modules it
# loaded; an exit handler, so it runs only when the interpreter ends normally.
CHILD = """
import atexit, json, sys
def report():
    watched = ("torch", "jinja2", "libcst", "libcst.matchers", "ffgen.generate.like")
    loaded = [m for m in watched if m in sys.modules]
    print(json.dumps({"loaded": loaded}), file=sys.stderr, flush=True)
atexit.register(report)
sys.argv[0] = "ffgen"
from ffgen.entry import main
main()
"""


def _run(*args: str) -> tuple[int, list[str], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False, timeout=300)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return done.returncode, report["loaded"], done.stdout


def test_new_never_imports_torch_and_like_only_when_asked(sandbox):
    code, loaded, out = _run("new", "my-sft", "--checkout", str(sandbox), "--yes",
                             "--model-type", "toy", "--acquisition", "dataset",
                             "--supervision", "demonstrations")
    assert code == 0 and "file(s) written under" in out
    assert sorted(loaded) == ["jinja2", "libcst"]
    code, loaded, _ = _run("new", "my-copy", "--like", "my-sft", "--checkout", str(sandbox),
                           "--yes", "--format", "json")
    assert code == 0 and "torch" not in loaded and "ffgen.generate.like" in loaded
    assert "libcst.matchers" not in loaded  # a third of a second to import


def test_verify_loads_neither_torch_nor_the_generator(sandbox):
    code, loaded, out = _run("verify", "--checkout", str(sandbox), "--format", "json")
    assert code == 0, out
    assert loaded == []


def test_help_is_typer_s_live_help():
    code, loaded, out = _run("--help")
    live = CliRunner().invoke(app, ["--help"], prog_name="ffgen", terminal_width=200)
    assert code == 0 and loaded == []
    assert out.startswith("Usage: ffgen [OPTIONS] COMMAND [ARGS]...")
    commands = [line.split()[0] for line in live.stdout.split("Commands:")[1].splitlines()
                if line.strip()]
    assert commands and all(f"  {name} " in out for name in commands)


def test_ffgen_leaves_through_the_interpreter_s_normal_exit():
    ffgen = REPO / "ffgen"
    for path in ffgen.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "gc.disable(" not in text, path
        assert "os._exit(" not in text or path.name == "runner.py", path  # a forked child's end
