"""Step time of generated trainers vs the sandbox's hand-written ones of the same family.

Usage: ``python benchmarks/bench_trainer.py [--repeats N] [--families sft,offline_dpo]``.

Creates a sandbox checkout in a temporary folder and generates, per family with a hand-written
sandbox trainer (``sft``: ``SFTTrainer``; ``offline_dpo``: ``OfflineDPOTrainer``), one algorithm
into it with ``ffgen new`` (toy, LoRA). Then, in a fresh interpreter on that checkout, it builds
both trainers from the sandbox's own example of that family (same data, seeds and
hyper-parameters; only ``trainer_type`` differs) and times ``optimize_batch`` over full data
epochs, alternating the two trainers per repeat. Prints both medians and the ratio per family
(generated / hand-written; target <= 1.05). Families without a hand-written trainer are reported
against SFT by ``benchmarks/gpu_smoke.py --device cpu``.
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

# family -> (hand-written trainer_type, `ffgen new` flags)
FAMILIES = {
    "sft": ("sft", ["--acquisition", "dataset", "--supervision", "demonstrations",
                    "--ownership", "single"]),
    "offline_dpo": ("offline-dpo", ["--acquisition", "dataset", "--supervision",
                                    "preference_pairs"]),
}


def _key(family: str) -> str:
    return "bench-" + family.replace("_", "-")


def _generate(root: Path, families: list[str]) -> None:
    from typer.testing import CliRunner

    from ffgen.cli import app
    from ffgen.sandbox import create_sandbox

    create_sandbox(root)
    for family in families:
        result = CliRunner().invoke(app, [
            "new", _key(family), "--checkout", str(root), "--yes", "--model-type", "toy",
            "--finetune-type", "lora", *FAMILIES[family][1],
        ])
        if result.exit_code != 0:
            raise SystemExit(f"ffgen new failed ({result.exit_code}): {result.output}")


def _time_family(root: Path, family: str, repeats: int) -> tuple[float, float, int]:
    import yaml
    from flow_factory.hparams import Arguments
    from flow_factory.trainers.loader import load_trainer

    hand_type = FAMILIES[family][0]
    example = root / "examples" / hand_type.replace("-", "_") / "lora/toy/default.yaml"
    base = yaml.safe_load(example.read_text())

    def build(trainer_type: str):
        data = {**base, "train": {**base["train"], "trainer_type": trainer_type}}
        return load_trainer(Arguments.from_dict(data))

    trainers = {"hand": build(hand_type), "generated": build(_key(family))}
    times: dict[str, list[float]] = {name: [] for name in trainers}
    for epoch in range(repeats + 1):  # epoch 0 warms up
        for name, trainer in trainers.items():
            trainer.dataloader.sampler.set_epoch(epoch)
            for batch in trainer.dataloader:
                start = time.perf_counter()
                trainer.optimize_batch(batch)
                if epoch:
                    times[name].append(time.perf_counter() - start)
    return statistics.median(times["hand"]), statistics.median(times["generated"]), len(
        times["hand"])


def _worker(root: Path, families: list[str], repeats: int) -> None:
    import torch

    torch.set_num_threads(1)
    for family in families:
        hand, generated, steps = _time_family(root, family, repeats)
        print(f"{family:>12}: hand-written {hand * 1e3:.3f} ms, generated {generated * 1e3:.3f} "
              f"ms (median of {steps} steps each); ratio {generated / hand:.3f} "
              "(target <= 1.05)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="Timed data epochs per trainer.")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise SystemExit(f"no hand-written trainer for {unknown[0]!r}; choose from "
                         f"{', '.join(FAMILIES)} (the rest: benchmarks/gpu_smoke.py)")
    if args.worker is not None:
        _worker(args.worker, families, args.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "checkout"
        _generate(root, families)
        env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1",
               "FLOW_FACTORY_SANDBOX_DEVICE": "cpu"}
        subprocess.run(
            [sys.executable, __file__, "--worker", str(root), "--repeats", str(args.repeats),
             "--families", ",".join(families)],
            cwd=root, env=env, check=True,
        )


if __name__ == "__main__":
    main()
