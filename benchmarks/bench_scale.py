"""``ffgen verify`` and ``ffgen list`` per algorithm, on checkouts of realistic algorithms.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 500,2000] [--repeat 3] [--profile]

Each algorithm is the size of a generated offline DPO: a sandbox gets one with ``ffgen new``
(``my-dpo``), which is then cloned N times under other names (its trainer and arguments modules,
its example config, and its line in each registry and re-export), so every clone is wired
through all four edit points as ``new`` wires one. The clones carry no record (``list`` shows
them hand-written, as it shows Flow-Factory's own). Prints, per size, the median wall and CPU
time and the peak memory of ``verify --format json`` and ``list --format json`` as fresh
processes, and per algorithm their growth over a checkout of one (target: under 1 ms and 50 KB).
It also prints the floor under that target on this machine: CPython's own ``ast.parse`` of one
algorithm's two modules, which any check that reads them pays before its first rule.
``--profile`` runs ``verify`` once in process under cProfile at the largest size and prints the
top entries.

Not a test: timings depend on the machine; the README quotes what this prints.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FFGEN = [sys.executable, "-m", "ffgen"]
OWN = ("src/flow_factory/trainers/offline/my_dpo.py",
       "src/flow_factory/hparams/training_args/my_dpo.py")
SHARED = ("src/flow_factory/trainers/registry.py",
          "src/flow_factory/trainers/offline/__init__.py",
          "src/flow_factory/hparams/training_args/_registry.py",
          "src/flow_factory/hparams/training_args/__init__.py",
          "src/flow_factory/hparams/__init__.py")
NAMES = re.compile(r"my_dpo|my-dpo|MyDPO|MY_DPO")


def renamed(text: str, i: int) -> str:
    return NAMES.sub(lambda m: {"my_dpo": f"b{i}_dpo", "my-dpo": f"b{i}-dpo",
                                "MyDPO": f"B{i}DPO", "MY_DPO": f"B{i}_DPO"}[m.group()], text)


def build(root: Path, n: int) -> None:
    """A sandbox with ``my-dpo`` generated, then ``n - 1`` clones of it, then ``my-dpo``'s record
    dropped (so every algorithm is read alike)."""
    subprocess.run([*FFGEN, "sandbox", str(root)], check=True, capture_output=True)
    subprocess.run([*FFGEN, "new", "my-dpo", "--checkout", str(root), "--yes", "--model-type",
                    "toy", "--acquisition", "dataset", "--supervision", "preference_pairs"],
                   check=True, capture_output=True)
    examples = sorted(p.relative_to(root).as_posix() for p in (root / "examples/my_dpo").rglob("*")
                      if p.is_file())
    for rel in (*OWN, *examples):
        text = (root / rel).read_text()
        for i in range(1, n):
            target = root / renamed(rel, i)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(renamed(text, i))
    for rel in SHARED:
        lines = (root / rel).read_text().splitlines(keepends=True)
        out = []
        for line in lines:
            out.append(line)
            if NAMES.search(line):
                out.extend(renamed(line, i) for i in range(1, n))
        (root / rel).write_text("".join(out))
    shutil.rmtree(root / ".ffgen")


def measure(argv: list[str], repeat: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds (user + system) and the largest peak RSS (KB) of a fresh
    ``ffgen`` process. CPU time is the steadier figure on a machine shared with other jobs."""
    walls, cpus, peaks = [], [], []
    script = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], "
              "stdout=subprocess.DEVNULL); u = resource.getrusage(resource.RUSAGE_CHILDREN); "
              "print(u.ru_maxrss, u.ru_utime + u.ru_stime)")
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True,
                              text=True, check=True)
        walls.append(time.perf_counter() - start)
        peak, cpu = done.stdout.split()
        peaks.append(int(peak))
        cpus.append(float(cpu))
    return statistics.median(walls), statistics.median(cpus), max(peaks)


def parse_floor(root: Path, repeat: int = 51) -> float:
    """Median seconds CPython takes to parse one algorithm's trainer and arguments modules."""
    import ast

    texts = [(root / rel).read_text() for rel in OWN]
    times = []
    for _ in range(repeat):
        start = time.process_time()
        for text in texts:
            ast.parse(text)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="500,2000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        baseline = {}
        for n in [1, *sizes]:
            root = Path(tmp) / f"c{n}"
            build(root, n)
            if n == 1:
                print(f"CPython's parse of one algorithm's two modules alone: "
                      f"{parse_floor(root) * 1000:.2f} ms CPU", flush=True)
            for command in ("verify", "list"):
                wall, cpu, peak = measure([*FFGEN, command, "--checkout", str(root), "--format",
                                           "json"], args.repeat)
                head = (f"{command:6} {n:5} algorithms: {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
                        f"{peak / 1024:4.0f} MB")
                if n == 1:
                    baseline[command] = (wall, cpu, peak)
                    print(head, flush=True)
                    continue
                base_wall, base_cpu, base_peak = baseline[command]
                print(f"{head}; per algorithm {(wall - base_wall) / (n - 1) * 1000:5.2f} ms wall, "
                      f"{(cpu - base_cpu) / (n - 1) * 1000:5.2f} ms CPU, "
                      f"{(peak - base_peak) / (n - 1):5.1f} KB", flush=True)
        if args.profile:
            import cProfile
            import pstats

            sys.path.insert(0, str(REPO))
            from ffgen.checkout.view import CheckoutView
            from ffgen.verify.engine import run_verify

            root = Path(tmp) / f"c{sizes[-1]}"
            profile = cProfile.Profile()
            profile.runcall(run_verify, CheckoutView(root))
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
