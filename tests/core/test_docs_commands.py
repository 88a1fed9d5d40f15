"""The docs' commands run as written: every ```` ```bash runnable ```` block of the README and
``docs/``, and the **Run** block ``ffgen new`` writes into a checkout's guidance.

Convention: a fenced block whose info string is ``bash runnable`` is a script a reader can paste
into a scratch folder, with ffgen's environment active (its ``ffgen`` and ``python`` first on
``PATH``). The blocks of one document run in order in one scratch folder, each in its own
``bash -euo pipefail`` (a ``cd`` stays inside its block); a line that must fail says so with
``!``. Blocks that need what a test cannot have (``pip install`` from the network, a CI runner)
are plain ``bash`` or ``yaml`` blocks.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "docs/verify.md", "docs/sandbox-api.md")
_BLOCK = re.compile(r"^```bash runnable\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_ANY_BASH = re.compile(r"^```bash\n(.*?)^```$", re.MULTILINE | re.DOTALL)
TIMEOUT_S = 600


def runnable_blocks(text: str) -> list[str]:
    return _BLOCK.findall(text)


def _env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"}


def run_block(script: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )


def _check(script: str, cwd: Path) -> None:
    run = run_block(script, cwd)
    assert run.returncode == 0, f"{script}\nexit {run.returncode}\n{run.stdout[-2000:]}\n" \
                                f"{run.stderr[-3000:]}"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_documents_runnable_blocks_run_as_written(document, tmp_path):
    blocks = runnable_blocks((REPO / document).read_text(encoding="utf-8"))
    assert blocks, f"{document} has no `bash runnable` block: its commands would go untested"
    for script in blocks:
        _check(script, tmp_path)


def test_the_generated_run_block_and_example_command_run_as_written(tmp_path):
    _check("ffgen sandbox demo && ffgen new margin-dpo --checkout demo --yes --acquisition "
           "dataset --supervision preference_pairs --model-type toy", tmp_path)
    root = tmp_path / "demo"
    guide = (root / "guidance/algorithms.md").read_text()
    section = guide[guide.index("<!-- ffgen:begin margin-dpo -->"):]
    block = _ANY_BASH.search(section).group(1)
    assert "PYTHONPATH=src python -m flow_factory.train" in block and "ff-train" not in block
    example = (root / "examples/margin_dpo/lora/toy/default.yaml").read_text()
    told = re.search(r"run with: (.*)$", example, re.MULTILINE).group(1)
    assert told in block.splitlines()  # the example names the same command
    _check(block, root)


@pytest.mark.parametrize(
    "stale",
    ["pip install ffgen ", "pip install ffgen\n", "rev: v0.1.0", "](https://github.com/)",
     "../shared/", "/work/"],
)
def test_no_document_names_what_does_not_exist(stale):
    """Commands and links the product does not have (no package index release, no tags, no
    Flow-Factory at github.com's root, no files outside the repository)."""
    for document in (*DOCUMENTS, ".pre-commit-hooks.yaml"):
        assert stale not in (REPO / document).read_text(encoding="utf-8"), document
