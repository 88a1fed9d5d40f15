"""Benchmark ``ffgen verify``: a realistic checkout and synthetic ones with up to 500 algorithms.

    .venv/bin/python benchmarks/bench_verify.py [--sizes 50,100,250,500] [--repeat 5]

Prints the median wall time of ``run_verify`` over repeated runs per checkout, the time per
algorithm and its ratio to the realistic checkout's (flat ~1.0 = linear scaling), and the median
start-up time of ``ffgen --help`` next to a bare ``python -c pass`` baseline on the same machine.
Targets: well under 0.5 s on the realistic
checkout, <= 3 s at 500 algorithms, ``ffgen --help`` under 0.15 s.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ffgen.checkout.view import CheckoutView  # noqa: E402
from ffgen.verify.engine import run_verify  # noqa: E402

FAITHFUL = REPO / "tests" / "fixtures" / "faithful_checkout"
ARGS = "src/flow_factory/hparams/training_args"
TRAINERS = "src/flow_factory/trainers"

ARGS_MODULE = '''from dataclasses import dataclass, field
from typing import ClassVar, Literal

from ...contracts.execution import {contract}, ExecutionContract
from {base_module} import {base}


@dataclass
class {cls}TrainingArguments({base}):
    execution_contract: ClassVar[ExecutionContract] = {contract}
    trainer_type: Literal["{key}"] = field(default="{key}")
    advantage_aggregation: Literal["sum", "gdpo"] = "gdpo"
    weight_{i}: float = 0.1

    def __post_init__(self) -> None:
        super().__post_init__()
'''
TRAINER_MODULE = '''from typing import ClassVar, List, Literal

from ...contracts import {contract}, ExecutionContract
from ..abc import BaseTrainer


class {cls}Trainer(BaseTrainer):
    paradigm: ClassVar[Literal["decoupled"]] = "decoupled"
    execution_contract: ClassVar[ExecutionContract] = {contract}
{hooks}
'''
GENERATION_HOOKS = '''
    def sample(self) -> List:
        return self.generate_samples(reward_buffer=self.reward_buffer)

    def optimize(self, samples: List) -> None:
        self._apply_optimizer_step({})
'''
DATASET_HOOKS = '''
    def optimize_batch(self, batch) -> None:
        if self.accelerator.sync_gradients:
            self._apply_optimizer_step({})
'''
ONLINE_YAML = '''data:
  datasets:
    - {{name: ocr, dataset_dir: dataset/ocr, train: {{weight: 1}}, eval: {{}}}}
model: {{model_type: sd3-5, finetune_type: lora}}
train:
  trainer_type: {key}
scheduler: {{dynamics_type: ODE, seed: 42}}
rewards:
  - {{name: ocr, reward_model: OCR, weight: 1.0, batch_size: 8}}
optimizers:
  - {{name: default, optimizer: adamw, learning_rate: 1.0e-5, max_grad_norm: 1.0}}
'''
OFFLINE_YAML = '''data:
  datasets:
    - {{name: d, dataset_dir: dataset/d, train: {{weight: 1}}, eval: {{}}}}
  enable_preprocess: true
  sampler_type: auto
model: {{model_type: sd3-5, finetune_type: lora}}
train:
  trainer_type: {key}
  max_epochs: 1
  gradient_accumulation_steps: 1
scheduler: {{dynamics_type: ODE, seed: 42}}
optimizers:
  - {{name: default, optimizer: adamw, learning_rate: 1.0e-5, max_grad_norm: 1.0}}
'''


def synthesize(root: Path, n: int) -> Path:
    """The faithful checkout plus ``n`` generated algorithms wired through all four edit points."""
    shutil.copytree(FAITHFUL, root)
    reg_imports, reg_args, reg_trainers, init_imports, names = [], [], [], [], []
    for i in range(n):
        key, mod, cls = f"synth-{i}", f"synth_{i}", f"Synth{i}"
        offline = i % 3 == 0
        fields = {
            "key": key, "cls": cls, "i": i,
            "contract": "OFFLINE_EXECUTION_CONTRACT" if offline else "ONLINE_EXECUTION_CONTRACT",
            "base": "OfflineFlowMatchingTrainingArguments" if offline else "TrainingArguments",
            "base_module": "._offline" if offline else "._base",
        }
        (root / ARGS / f"{mod}.py").write_text(ARGS_MODULE.format(**fields))
        hooks = DATASET_HOOKS if offline else GENERATION_HOOKS
        (root / TRAINERS / "rl" / f"{mod}.py").write_text(
            TRAINER_MODULE.format(hooks=hooks, **fields)
        )
        example = root / "examples" / mod / "lora" / "sd3_5" / "default.yaml"
        example.parent.mkdir(parents=True)
        example.write_text((OFFLINE_YAML if offline else ONLINE_YAML).format(key=key))
        reg_imports.append(f"from .{mod} import {cls}TrainingArguments\n")
        reg_args.append(f'    "{key}": {cls}TrainingArguments,\n')
        reg_trainers.append(f'    "{key}": "flow_factory.trainers.rl.{mod}.{cls}Trainer",\n')
        init_imports.append(f"from .{mod} import {cls}TrainingArguments\n")
        names.append(f'    "{cls}TrainingArguments",\n')
    _insert(root / ARGS / "_registry.py", "from .tdm_r1 import", "".join(reg_imports), before=True)
    _insert(root / ARGS / "_registry.py", '    "offline-dpo": Off', "".join(reg_args), after=True)
    _insert(root / TRAINERS / "registry.py", '    "offline-dpo": "fl', "".join(reg_trainers),
            after=True)
    _insert(root / ARGS / "__init__.py", "from .tdm_r1 import", "".join(init_imports), before=True)
    _insert(root / ARGS / "__init__.py", '    "TeacherConfig",', "".join(names), before=True)
    hp = root / "src/flow_factory/hparams/__init__.py"
    _insert(hp, '    "TeacherConfig",', "".join(names), before=True)
    hp_imports = "".join(f"from .training_args import {cls.strip()[1:-2]}\n" for cls in names)
    _insert(hp, "from .training_args import (", hp_imports, before=True)
    return root


def _insert(path: Path, anchor: str, text: str, *, before: bool = False, after: bool = False):
    lines = path.read_text().splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if line.startswith(anchor))
    lines.insert(i + 1 if after else i, text)
    path.write_text("".join(lines))


def median_time(root: Path, repeat: int) -> tuple[float, int, int]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        report = run_verify(CheckoutView(root))
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(report.algorithms), len(report.errors)


def command_time(argv: list[str], repeat: int) -> float | None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=REPO, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            print(f"{' '.join(argv)} failed: {done.stderr.decode().strip().splitlines()[-1]}")
            return None
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,100,250,500")
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    rows = [("faithful", *median_time(FAITHFUL, opts.repeat))]
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in opts.sizes.split(",")):
            root = synthesize(Path(tmp) / f"synth{n}", n)
            rows.append((f"synthetic +{n}", *median_time(root, opts.repeat)))
    base_per_algo = rows[0][1] / rows[0][2]
    print(f"{'checkout':<16}{'algorithms':>11}{'errors':>8}{'median s':>10}{'ms/algo':>9}"
          f"{'ratio':>7}")
    for name, secs, algos, errors in rows:
        per_algo = secs / algos
        print(f"{name:<16}{algos:>11}{errors:>8}{secs:>10.3f}{1000 * per_algo:>9.2f}"
              f"{per_algo / base_per_algo:>7.2f}")
    help_s = command_time([sys.executable, "-m", "ffgen", "--help"], opts.repeat)
    bare_s = command_time([sys.executable, "-c", "pass"], opts.repeat)
    if help_s is not None and bare_s is not None:
        print(f"ffgen --help: median {help_s:.3f} s (bare python start-up {bare_s:.3f} s, "
              f"ratio {help_s / bare_s:.1f})")
    return 1 if any(r[3] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
