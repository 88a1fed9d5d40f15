"""End-to-end speed of ``ffgen new``, ``ffgen verify`` and ``ffgen --help`` against their floors.

    .venv/bin/python benchmarks/bench_commands.py [--repeat 7] [--algorithms 25]

Builds a real-size checkout (the faithful fixture plus ``--algorithms`` synthetic ones: about 140
source files and 40 example configs), then times, as fresh processes, alternating per repeat:

- ``ffgen new`` (one SFT-family algorithm, into a fresh copy each time) against its floor:
  python start-up + importing libcst + parsing the five files ``new`` edits with libcst
  (target: at most 2x);
- ``ffgen verify --format json`` against its floor: python start-up + ``ast.parse`` of every
  source file + ``yaml.safe_load`` of every example config (target: at most 1.5x);
- ``ffgen --help`` (target: at most 0.1 s).

Prints the medians and the ratios measured in the same run.
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
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

from bench_verify import synthesize  # noqa: E402

from ffgen.checkout import layout  # noqa: E402

EDITED = (layout.ARGS_REGISTRY, layout.ARGS_INIT, layout.HPARAMS_INIT, layout.TRAINER_REGISTRY,
          layout.category_init_path("offline"))
NEW = ["new", "bench-new", "--yes", "--model-type", "sd3-5", "--acquisition", "dataset",
       "--supervision", "demonstrations"]
NEW_FLOOR = """
import sys, libcst
for path in sys.argv[1:]:
    libcst.parse_module(open(path, encoding="utf-8").read())
"""
VERIFY_FLOOR = """
import ast, sys, yaml
from pathlib import Path
root = Path(sys.argv[1])
for path in sorted(root.rglob("src/**/*.py")):
    ast.parse(path.read_text(encoding="utf-8"))
for path in sorted(root.rglob("examples/**/*.yaml")):
    yaml.safe_load(path.read_text(encoding="utf-8"))
"""


def _run(argv: list[str], cwd: Path | None = None) -> float:
    """Wall time of one successful run; any other exit (a refusal is 1) ends the benchmark, so a
    command that fails fast is never timed as a fast success."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{(done.stdout + done.stderr)[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--algorithms", type=int, default=25)
    args = parser.parse_args()
    py = sys.executable
    times: dict[str, list[float]] = {k: [] for k in
                                     ("new", "new floor", "verify", "verify floor", "help")}
    with tempfile.TemporaryDirectory() as tmp:
        base = synthesize(Path(tmp) / "base", args.algorithms)
        sources = len(list(base.rglob("src/**/*.py")))
        configs = len(list(base.rglob("examples/**/*.yaml")))
        for i in range(args.repeat + 1):  # round 0 warms the file cache
            copy = shutil.copytree(base, Path(tmp) / f"copy{i}")
            runs = {
                "new": lambda c=copy: _run([py, "-m", "ffgen", *NEW, "--checkout", str(c)]),
                "new floor": lambda: _run([py, "-c", NEW_FLOOR, *(str(base / p) for p in EDITED)]),
                "verify": lambda: _run([py, "-m", "ffgen", "verify", "--checkout", str(base),
                                        "--format", "json"]),
                "verify floor": lambda: _run([py, "-c", VERIFY_FLOOR, str(base)]),
                "help": lambda: _run([py, "-m", "ffgen", "--help"]),
            }
            for name, run in runs.items():
                elapsed = run()
                if i:
                    times[name].append(elapsed)
            shutil.rmtree(copy)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"checkout: {sources} source files, {configs} example configs; "
          f"medians of {args.repeat} runs")
    for name, value in med.items():
        print(f"{name:>13}: {value:.3f} s")
    print(f"new / floor    = {med['new'] / med['new floor']:.2f} (target <= 2.0)")
    print(f"verify / floor = {med['verify'] / med['verify floor']:.2f} (target <= 1.5)")
    print(f"--help         = {med['help']:.3f} s (target <= 0.1)")


if __name__ == "__main__":
    main()
