"""Fixtures: a shared, importable copy of ``templates/sandbox``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from sandbox_helpers import copy_sandbox


@pytest.fixture(scope="session")
def sandbox_root(tmp_path_factory) -> Path:
    """One shared copy, importable in-process (``src`` on ``sys.path``)."""
    root = copy_sandbox(tmp_path_factory.mktemp("ff") / "checkout")
    sys.path.insert(0, str(root / "src"))
    sys.dont_write_bytecode = True
    return root


@pytest.fixture()
def example_config(sandbox_root):
    """Load an example YAML of the shared copy as a dict."""

    def load(name: str) -> dict:
        path = sandbox_root / "examples" / name / "lora" / "toy" / "default.yaml"
        return yaml.safe_load(path.read_text())

    return load
