"""Golden examples: what ``ffgen new`` writes for one representative algorithm per family.

``generated_examples/<example>/`` holds, for each example, every file ``new`` creates or edits in
a fresh sandbox, as it reads afterwards. Tests compare a fresh render with it; after a template
change, regenerate and review the diff:

    .venv/bin/python -m ffgen.quality.golden --write
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from ffgen.generate.new import NewRequest, prepare_new
from ffgen.generate.plan import Status
from ffgen.sandbox import create_sandbox

# example folder -> (NAME, flags); model type toy so each also runs in the sandbox
EXAMPLES: dict[str, tuple[str, dict[str, str]]] = {
    "grpo_coupled": (
        "my-grpo",
        dict(acquisition="generation", feedback="runtime_reward", paradigm="coupled"),
    ),
    "awm_decoupled_snapshots": (
        "my-awm",
        dict(
            acquisition="generation",
            feedback="runtime_reward",
            paradigm="decoupled",
            ownership="snapshots",
        ),
    ),
    "opd_distillation": ("my-opd", dict(acquisition="generation", feedback="none")),
    "sft_demonstrations": ("my-sft", dict(acquisition="dataset", supervision="demonstrations")),
    "dpo_preference_pairs": (
        "my-dpo",
        # one hyperparameter (--param), so a golden shows what a param renders
        dict(acquisition="dataset", supervision="preference_pairs", params="margin:float=0.1:>=0"),
    ),
    "dmd_multi_role": (
        "my-dmd",
        dict(
            acquisition="generation",
            feedback="none",
            ownership="multi_role",
            roles="generator,fake_score",
            role_cadence="fake_score=3",
        ),
    ),
    "record_structured": (
        "my-record",
        dict(acquisition="dataset", supervision="record:CaptionRecord", state="structured"),
    ),
    # a record with a label carrying its direction: the KTO-like objective against a reference
    "record_kto_direction": (
        "my-kto",
        dict(acquisition="dataset", supervision="record:Judged(label:bool)", direction="label"),
    ),
}

GOLDEN_ROOT = Path(__file__).resolve().parents[2] / "generated_examples"


def render_example(example: str, workdir: Path) -> dict[str, str]:
    """Files ``new`` would create or change for ``example``, keyed by relative path."""
    name, flags = EXAMPLES[example]
    checkout = create_sandbox(workdir / example)
    request = NewRequest(
        name=name,
        class_name=None,
        checkout=checkout,
        flags={**flags, "model_type": "toy"},
        interactive=False,
        dry_run=True,
        force=False,
        fmt="json",
    )
    _, plan, _ = prepare_new(request, Console(quiet=True))
    return {c.path: c.new for c in plan.changes if c.status is not Status.IDENTICAL}


def read_golden(example: str, root: Path = GOLDEN_ROOT) -> dict[str, str]:
    base = root / example
    return {
        p.relative_to(base).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(base.rglob("*"))
        if p.is_file()
    }


def write_goldens(root: Path = GOLDEN_ROOT) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for example in EXAMPLES:
            files = render_example(example, Path(tmp))
            target = root / example
            shutil.rmtree(target, ignore_errors=True)
            for rel, text in files.items():
                path = target / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            print(f"wrote {len(files)} files to {target}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m ffgen.quality.golden --write")
    write_goldens()
