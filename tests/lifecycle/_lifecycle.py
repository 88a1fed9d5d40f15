"""Shared steps of the lifecycle tests: run a command in-process, read and rewrite records."""

from __future__ import annotations

import json
from pathlib import Path

from ffgen.checkout.view import CheckoutView
from ffgen.cli import app
from ffgen.store.records import parse_record, stored_files
from tests.helpers import SPECS

# One algorithm per family and ownership, as `new` flags (model type toy).
CASES = {
    **SPECS,
    "opd_multi_role": [
        "--acquisition", "generation", "--feedback", "none", "--ownership", "multi_role",
        "--roles", "generator,fake_score",
    ],
    "dmd_cadence": [
        "--acquisition", "generation", "--feedback", "none", "--ownership", "multi_role",
        "--roles", "generator,fake_score", "--role-cadence", "fake_score=3",
    ],
    "grpo_structured_newcat": [*SPECS["grpo"], "--state", "structured", "--category", "newcat"],
}


def ffgen(runner, *args: str):
    return runner.invoke(app, [*args], catch_exceptions=False)


def new(runner, root: Path, name: str, *flags: str):
    return ffgen(runner, "new", name, "--checkout", str(root), "--yes", "--model-type", "toy",
                 *flags)


def json_out(result) -> dict:
    return json.loads(result.stdout)


def record_file(root: Path, key: str) -> Path:
    return root / ".ffgen" / "answers" / f"{key}.yml"


def rewrite_pristine(root: Path, key: str, path: str, pristine: str) -> None:
    """Make the record say ``new`` once rendered ``pristine`` for ``path`` (an older template)."""
    from dataclasses import replace

    record = read_record_at(root, key)
    files = tuple(
        replace(f, pristine=pristine) if f.path == path else f for f in record.files
    )
    write_record(root, replace(record, files=files))


def read_record_at(root: Path, key: str):
    """The record of ``key`` with its pristine texts (from ``.ffgen/base/``)."""
    where = record_file(root, key)
    return parse_record(where.read_text(), str(where), CheckoutView(root).read)


def write_record(root: Path, record) -> None:
    """Write ``record`` as ffgen keeps it: its YAML and the base files holding its texts."""
    for path, text in stored_files(record, record.ffgen_version).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
