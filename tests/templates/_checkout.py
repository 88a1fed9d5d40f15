"""Generate one algorithm into a fresh sandbox copy and train it in a subprocess.

``generate`` prefers the real ``ffgen new`` (typer's CliRunner on ``ffgen.cli.app``). When that
command is unusable in this tree it falls back to rendering the five templates and registering the
key with plain text edits, and says so with a warning (the templates are what is under test here).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from _render import REPO, family_context, render_all

from ffgen.context import RenderContext

SANDBOX = REPO / "templates" / "sandbox"
CYCLE_LINE = re.compile(r"^cycle=(\d+) loss=(\S+)(?: reward=(\S+))?$")

# CLI flags equivalent to ``_render.FAMILY_ANSWERS`` (model type toy, LoRA).
FAMILY_FLAGS: dict[str, list[str]] = {
    "sft": ["--acquisition", "dataset", "--supervision", "demonstrations", "--ownership", "single"],
    "offline_dpo": ["--acquisition", "dataset", "--supervision", "preference_pairs"],
    "record": [
        "--acquisition", "dataset", "--supervision", "record:CaptionRecord",
        "--ownership", "single",
    ],
    "grpo": [
        "--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm", "coupled",
        "--dynamics", "sde", "--ownership", "snapshots",
    ],
    "awm": [
        "--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm",
        "decoupled", "--ownership", "snapshots",
    ],
    "opd": ["--acquisition", "generation", "--feedback", "none"],
}


@dataclass(frozen=True)
class Generated:
    root: Path
    ctx: RenderContext
    via_cli: bool

    @property
    def example(self) -> Path:
        return self.root / self.ctx.example_path


def copy_sandbox(dest: Path) -> Path:
    shutil.copytree(SANDBOX, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def generate(tmp: Path, family: str, name: str | None = None) -> Generated:
    """A fresh sandbox at ``tmp/<family>`` with the family's algorithm generated into it."""
    name = name or f"gen-{family.replace('_', '-')}"
    ctx = family_context(family, name)
    root = copy_sandbox(tmp / family)
    problem = _generate_with_cli(root, name, family)
    if problem is None:
        return Generated(root, ctx, via_cli=True)
    warnings.warn(f"ffgen new unusable ({problem}); rendering + text edits instead", stacklevel=2)
    shutil.rmtree(root)
    root = copy_sandbox(tmp / family)
    _generate_with_text_edits(root, ctx)
    return Generated(root, ctx, via_cli=False)


def _generate_with_cli(root: Path, name: str, family: str) -> str | None:
    try:
        from typer.testing import CliRunner

        from ffgen.cli import app

        args = ["new", name, "--checkout", str(root), "--yes", "--model-type", "toy",
                "--finetune-type", "lora", *FAMILY_FLAGS[family]]
        result = CliRunner().invoke(app, args)
    except Exception as exc:  # noqa: BLE001 - any failure of the CLI selects the fallback
        return f"{type(exc).__name__}: {exc}"
    if result.exit_code != 0:
        return f"exit {result.exit_code}: {result.output.strip()[-300:]}"
    return None


def _generate_with_text_edits(root: Path, ctx: RenderContext) -> None:
    rendered = render_all(ctx)
    for role, rel in (("args", ctx.args_path), ("trainer", ctx.trainer_path),
                      ("example", ctx.example_path), ("test", ctx.test_path)):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered[role], encoding="utf-8")
    init = root / "src/flow_factory/trainers" / ctx.category / "__init__.py"
    if not init.exists():
        init.write_text(f'"""{ctx.category} trainers."""\n', encoding="utf-8")
    registry = root / "src/flow_factory/hparams/training_args/_registry.py"
    text = registry.read_text(encoding="utf-8")
    text = text.replace(
        "from ._base import TrainingArguments\n",
        f"from ._base import TrainingArguments\nfrom .{ctx.module} import {ctx.args_class}\n",
    )
    text = text.replace(
        "_TRAINING_ARGS_REGISTRY: Dict[str, Type[TrainingArguments]] = {\n",
        "_TRAINING_ARGS_REGISTRY: Dict[str, Type[TrainingArguments]] = {\n"
        f'    "{ctx.key}": {ctx.args_class},\n',
    )
    registry.write_text(text, encoding="utf-8")
    trainers = root / "src/flow_factory/trainers/registry.py"
    text = trainers.read_text(encoding="utf-8").replace(
        "_TRAINER_REGISTRY: Dict[str, str] = {\n",
        f'_TRAINER_REGISTRY: Dict[str, str] = {{\n    "{ctx.key}": "{ctx.trainer_dotted}",\n',
    )
    trainers.write_text(text, encoding="utf-8")


def run_train(root: Path, config: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m flow_factory.train CONFIG`` on the copy (``PYTHONPATH=<root>/src``)."""
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1",
           "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "flow_factory.train", str(config)],
        cwd=root, env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )


def parse_cycles(stdout: str) -> list[tuple[int, float, float | None]]:
    """``(cycle, loss, reward)`` per ``cycle=<i> loss=<x> [reward=<y>]`` line."""
    rows = []
    for line in stdout.splitlines():
        match = CYCLE_LINE.match(line.strip())
        if match:
            reward = float(match.group(3)) if match.group(3) else None
            rows.append((int(match.group(1)), float(match.group(2)), reward))
    return rows


__all__ = ["FAMILY_FLAGS", "Generated", "copy_sandbox", "generate", "parse_cycles", "run_train"]
