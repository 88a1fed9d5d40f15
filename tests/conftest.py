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
