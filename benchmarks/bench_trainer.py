"""Step time of a generated SFT-family trainer vs the sandbox's hand-written ``SFTTrainer``.

Usage: ``python benchmarks/bench_trainer.py [--repeats N]``.

Creates a sandbox checkout in a temporary folder, generates ``bench-sft`` into it with
``ffgen new`` (dataset + demonstrations, toy, LoRA), then in a fresh interpreter on that checkout
builds both trainers from the sandbox's own ``examples/sft/lora/toy/default.yaml`` (same data,
seeds and hyper-parameters; only ``trainer_type`` differs) and times ``optimize_batch`` over full
data epochs, alternating the two trainers per repeat. Prints both medians and the ratio
(generated / hand-written; target <= 1.05).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KEY = "bench-sft"


def _generate(root: Path) -> None:
    from typer.testing import CliRunner

    from ffgen.cli import app
    from ffgen.sandbox import create_sandbox

    create_sandbox(root)
    result = CliRunner().invoke(app, [
        "new", KEY, "--checkout", str(root), "--yes", "--model-type", "toy",
        "--finetune-type", "lora", "--acquisition", "dataset", "--supervision", "demonstrations",
        "--ownership", "single",
    ])
    if result.exit_code != 0:
        raise SystemExit(f"ffgen new failed ({result.exit_code}): {result.output}")


def _worker(root: Path, repeats: int) -> None:
    import torch
    import yaml
    from flow_factory.hparams import Arguments
    from flow_factory.trainers.loader import load_trainer

    torch.set_num_threads(1)
    base = yaml.safe_load((root / "examples/sft/lora/toy/default.yaml").read_text())

    def build(trainer_type: str):
        data = {**base, "train": {**base["train"], "trainer_type": trainer_type}}
        return load_trainer(Arguments.from_dict(data))

    trainers = {"hand-written sft": build("sft"), f"generated {KEY}": build(KEY)}
    times: dict[str, list[float]] = {name: [] for name in trainers}
    for epoch in range(repeats + 1):  # epoch 0 warms up
        for name, trainer in trainers.items():
            trainer.dataloader.sampler.set_epoch(epoch)
            for batch in trainer.dataloader:
                start = time.perf_counter()
                trainer.optimize_batch(batch)
                if epoch:
                    times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"{name:>22}: median step {value * 1e3:.3f} ms over {len(times[name])} steps")
    hand, generated = medians["hand-written sft"], medians[f"generated {KEY}"]
    print(f"{'ratio':>22}: {generated / hand:.3f} (generated / hand-written; target <= 1.05)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="Timed data epochs per trainer.")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        _worker(args.worker, args.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "checkout"
        _generate(root)
        env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1"}
        subprocess.run(
            [sys.executable, __file__, "--worker", str(root), "--repeats", str(args.repeats)],
            cwd=root, env=env, check=True,
        )


if __name__ == "__main__":
    main()
