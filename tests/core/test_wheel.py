"""ffgen builds as a wheel whose ``ffgen`` command works in a fresh virtual environment.

Offline, as CI and this machine are: the wheel is built with ``pip wheel --no-build-isolation``
from a copy of the sources (so no stale ``build/`` folder can leak into it), installed with
``--no-deps --no-index`` into a new venv, and the venv reaches ffgen's dependencies (typer, rich,
jinja2, libcst, PyYAML) through a ``.pth`` line naming this environment's site-packages. ffgen's
own code and templates can only come from the wheel: the test checks where ``ffgen`` imports from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CACHES = ("__pycache__", ".ruff_cache", ".pytest_cache", ".mypy_cache")
IGNORE = shutil.ignore_patterns(*CACHES, "*.pyc")


def _run(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(
        list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _source_files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not set(p.parts) & set(CACHES) and p.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for name in ("ffgen", "templates"):
        shutil.copytree(REPO / name, src / name, ignore=IGNORE)
    # Tool caches in the sources must not end up in the wheel (they would be copied into every
    # sandbox the installed ffgen creates).
    sandbox = src / "templates" / "sandbox"
    for cache in (
        "src/__pycache__/x.cpython-311.pyc",
        ".ruff_cache/0.17/1234",
        ".pytest_cache/v/cache/nodeids",
    ):
        (sandbox / cache).parent.mkdir(parents=True)
        (sandbox / cache).write_bytes(b"")
    built = _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        str(src),
        "--no-deps",
        "--no-index",
        "--no-build-isolation",
        "-q",
        "-w",
        str(tmp / "dist"),
        cwd=tmp,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (found,) = (tmp / "dist").glob("ffgen-*.whl")
    return found


def test_the_wheel_holds_every_module_and_template(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"ffgen/{p}" for p in _source_files(REPO / "ffgen") if p.endswith(".py")}
    templates = {f"ffgen/templates/{p}" for p in _source_files(REPO / "templates")}
    assert modules - names == set()
    assert templates - names == set()
    assert not [n for n in names if set(n.split("/")) & set(CACHES) or n.endswith(".pyc")]
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "ffgen = ffgen.entry:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_installed_command_works_in_a_fresh_venv(wheel, tmp_path):
    venv = tmp_path / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "-q",
        "--no-deps",
        "--no-index",
        str(wheel),
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    site = Path(
        _run(
            str(python),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            cwd=tmp_path,
        ).stdout.strip()
    )
    (site / "ffgen_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    where = _run(str(python), "-c", "import ffgen; print(ffgen.__file__)", cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr

    ffgen = venv / "bin" / "ffgen"
    helped = _run(str(ffgen), "--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "new" in helped.stdout and "verify" in helped.stdout and "sandbox" in helped.stdout

    made = _run(str(ffgen), "sandbox", "demo", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    assert _source_files(tmp_path / "demo") == _source_files(REPO / "templates" / "sandbox")
    verified = _run(str(ffgen), "verify", "--checkout", "demo", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
