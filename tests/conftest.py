"""Shared fixtures: a fresh sandbox checkout per test, and a CLI runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ffgen.sandbox import create_sandbox


@pytest.fixture
def sandbox(tmp_path) -> Path:
    return create_sandbox(tmp_path / "checkout")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def keep_only_toy(root: Path) -> Path:
    """Drop the sandbox's ``sd3-5`` model type: for checks of what ``new`` does in a checkout
    whose model registry has one type (the model type is then forced, never asked)."""
    registry = root / "src/flow_factory/models/registry.py"
    lines = registry.read_text().splitlines(keepends=True)
    registry.write_text("".join(line for line in lines if '"sd3-5"' not in line))
    return root


@pytest.fixture
def toy_sandbox(tmp_path) -> Path:
    return keep_only_toy(create_sandbox(tmp_path / "checkout"))
