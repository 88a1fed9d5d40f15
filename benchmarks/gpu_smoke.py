"""GPU smoke run: two cycles of every family's generated trainer on CUDA with bf16 autocast.

Usage: ``python benchmarks/gpu_smoke.py [--families sft,grpo,...] [--device cuda|cpu]``.

Creates a sandbox checkout in a temporary folder, generates one algorithm per family into it with
``ffgen new`` (model type toy, LoRA), then, in a fresh interpreter on that checkout with
``FLOW_FACTORY_SANDBOX_DEVICE`` set, builds each trainer from its generated example with
``mixed_precision: bf16`` and ``max_epochs: 2`` and times ``start()``. Prints, per family, the
wall time per optimizer step and its ratio against the hand-written sandbox trainer of the same
family (sft, offline-dpo, grpo) or, for families without one, against the hand-written SFT trainer.

Not part of CI: it needs a CUDA device (``--device cpu`` runs the same path on the CPU, which only
shows the script still works). Each trainer runs once untimed first (CUDA warm-up), then
``--repeats`` times; the median is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FAMILY_FLAGS = {
    "sft": ["--acquisition", "dataset", "--supervision", "demonstrations"],
    "offline_dpo": ["--acquisition", "dataset", "--supervision", "preference_pairs"],
    "record": ["--acquisition", "dataset", "--supervision", "record:CaptionRecord"],
    "grpo": ["--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm",
             "coupled"],
    "awm": ["--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm",
            "decoupled", "--ownership", "snapshots"],
    "opd": ["--acquisition", "generation", "--feedback", "none"],
    "dmd": ["--acquisition", "generation", "--feedback", "none", "--ownership", "multi_role",
            "--roles", "generator,fake_score", "--role-cadence", "fake_score=3"],
}
# The hand-written sandbox trainer each family is compared with (its own kind where one exists).
BASELINE = {"sft": "sft", "offline_dpo": "offline-dpo", "grpo": "grpo"}


def _key(family: str) -> str:
    return "smoke-" + family.replace("_", "-")


def _generate(root: Path, families: list[str]) -> None:
    sys.path.insert(0, str(REPO))
    from typer.testing import CliRunner

    from ffgen.cli import app
    from ffgen.sandbox import create_sandbox

    create_sandbox(root)
    for family in families:
        args = ["new", _key(family), "--checkout", str(root), "--yes", "--model-type", "toy",
                "--finetune-type", "lora", *FAMILY_FLAGS[family]]
        result = CliRunner().invoke(app, args)
        if result.exit_code != 0:
            raise SystemExit(f"ffgen new {_key(family)} failed: {result.output}")


def _worker(root: Path, families: list[str], repeats: int) -> None:
    """Inside the checkout's interpreter: time every trainer, print one JSON line."""
    import torch
    import yaml
    from flow_factory.hparams import Arguments
    from flow_factory.trainers.loader import load_trainer

    def config(example: Path, trainer_type: str) -> dict:
        data = yaml.safe_load(example.read_text())
        data["mixed_precision"] = "bf16"
        data["train"] = {**data["train"], "trainer_type": trainer_type, "max_epochs": 2}
        return data

    devices: set[str] = set()

    def check(trainer, name: str) -> None:
        """The run trained, where it was asked to: steps taken, finite trainable weights."""
        params = [p for group in trainer.optimizer.param_groups for p in group["params"]]
        if int(trainer.progress.optimizer_step) < 1 or not params:
            raise SystemExit(f"{name}: no optimizer step was taken")
        devices.update(p.device.type for p in params)
        if not all(bool(torch.isfinite(p.detach()).all()) for p in params):
            raise SystemExit(f"{name}: non-finite trainable weights after training")

    def step_time(data: dict) -> float:
        runs = []
        for _ in range(repeats + 1):  # the first run warms up kernels and caches
            trainer = load_trainer(Arguments.from_dict(data))
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            start = time.perf_counter()
            trainer.start()
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            check(trainer, data["train"]["trainer_type"])
            steps = max(int(trainer.progress.optimizer_step), 1)
            runs.append((time.perf_counter() - start) / steps)
        return statistics.median(runs[1:])

    examples = {f: next((root / "examples" / _key(f).replace("-", "_")).rglob("default.yaml"))
                for f in families}
    out: dict[str, object] = {"torch": torch.__version__, "generated": {}, "hand_written": {}}
    for kind in sorted({BASELINE.get(f, "sft") for f in families}):
        example = root / "examples" / kind.replace("-", "_") / "lora" / "toy" / "default.yaml"
        out["hand_written"][kind] = step_time(config(example, kind))
    for family in families:
        out["generated"][family] = step_time(config(examples[family], _key(family)))
    # the device the trained weights really lived on, not the one torch could have used
    out["device"] = ",".join(sorted(devices))
    print(json.dumps(out))


def _report(result: dict, families: list[str]) -> None:
    print(f"device {result['device']}, torch {result['torch']}, bf16 autocast, 2 cycles")
    print(f"{'family':>12}  {'step ms':>9}  {'vs':>12}  {'ratio':>6}")
    for family in families:
        kind = BASELINE.get(family, "sft")
        mine, base = result["generated"][family], result["hand_written"][kind]
        against = kind if family in BASELINE else "sft (none)"
        print(f"{family:>12}  {mine * 1e3:9.2f}  {against:>12}  {mine / base:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join(FAMILY_FLAGS))
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in FAMILY_FLAGS]
    if unknown:
        raise SystemExit(f"unknown family {unknown[0]!r}; choose from {', '.join(FAMILY_FLAGS)}")
    if args.worker is not None:
        _worker(args.worker, families, args.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "checkout"
        _generate(root, families)
        env = {**os.environ, "PYTHONPATH": str(root / "src"),
               "FLOW_FACTORY_SANDBOX_DEVICE": args.device}
        done = subprocess.run(
            [sys.executable, __file__, "--worker", str(root), "--families", ",".join(families),
             "--repeats", str(args.repeats)],
            cwd=root, env=env, capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"worker failed ({done.returncode}):\n{done.stderr[-4000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if result["device"] != args.device:
            raise SystemExit(f"asked for {args.device}, the weights trained on {result['device']}")
        _report(result, families)


if __name__ == "__main__":
    main()
