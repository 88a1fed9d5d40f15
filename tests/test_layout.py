"""The package layout the README describes: one subpackage per stage, small modules, short
functions. A module that grows past the limits is split along its seams, not waved through."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ffgen"
README = PACKAGE.parent / "README.md"
MODULE_LINES = 420  # "about 400"
FUNCTION_LINES = 50


def _modules() -> list[Path]:
    skip = {"templates"}
    return sorted(p for p in PACKAGE.rglob("*.py") if not skip & set(p.parts))


def _subpackages() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.glob("*/__init__.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_and_function_sizes(path: Path):
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") <= MODULE_LINES, f"{path.name}: split it along its seams"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]
    assert not long, f"{path.name}: functions over {FUNCTION_LINES} lines: {', '.join(long)}"


@pytest.mark.parametrize("package", _subpackages(), ids=lambda p: p.name)
def test_each_subpackage_says_what_it_is_and_is_in_the_readme(package: Path):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    assert doc and doc.splitlines()[0].strip(), f"{package.name}/__init__.py: a one-line docstring"
    assert f"`ffgen/{package.name}/`" in README.read_text(encoding="utf-8"), (
        f"README's layout section does not describe ffgen/{package.name}/"
    )


def test_every_subpackage_ships_in_the_wheel():
    """setuptools lists packages by hand here (templates/ maps to ffgen.templates): a package
    left out of pyproject.toml works in an editable install and is missing from a real one."""
    import re

    text = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^packages = \[(.*?)\]", text, re.M | re.S)
    listed = set(re.findall(r'"([\w.]+)"', block.group(1)))
    found = {
        ".".join(p.parent.relative_to(PACKAGE.parent).parts)
        for p in PACKAGE.rglob("__init__.py")
        if "templates" not in p.parts and "__pycache__" not in p.parts
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
