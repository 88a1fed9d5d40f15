"""End-to-end speed of ``ffgen new``, ``ffgen verify`` and ``ffgen --help`` against their floors.

    .venv/bin/python benchmarks/bench_commands.py [--repeat 9] [--algorithms 25]

Builds a real-size checkout (the faithful fixture plus ``--algorithms`` synthetic ones: about 140
source files and 40 example configs), then times, as fresh processes, alternating per repeat:

- ``ffgen new`` (one SFT-family algorithm, into a fresh copy each time) against its floor:
  python start-up + importing libcst + parsing the five files ``new`` edits with libcst
  (target: at most 2x);
- ``ffgen verify --format json`` against its floor: python start-up + ``ast.parse`` of every
  source file + loading every example config with the YAML loader verify uses (libyaml's
  ``CSafeLoader`` where PyYAML has it: the pure-Python loader is slower than what verify can do,
  so a floor with it would flatter verify) (target: at most 1.2x);
- ``ffgen --help`` (target: at most 0.1 s).

Every process, floors included, runs with Python's bytecode cache on (in a temporary
``PYTHONPYCACHEPREFIX``, warmed by an untimed first round), as an installed ffgen has it: pip
compiles a package's modules when it installs them. Timing with ``PYTHONDONTWRITEBYTECODE=1``
(which some shells set) would charge ffgen for compiling its own source on every run, a cost no
installed ffgen pays.

Prints the medians of the wall time and of the CPU time (user + system of the child) and the
ratios of each, measured in the same run. On a machine other jobs share, the CPU times are the
steadier ones: waiting for a core counts in the wall time only.
"""

from __future__ import annotations

import argparse
import os
import resource
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
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
root = Path(sys.argv[1])
for path in sorted(root.rglob("src/**/*.py")):
    ast.parse(path.read_text(encoding="utf-8"))
for path in sorted(root.rglob("examples/**/*.yaml")):
    yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
"""
NAMES = ("new", "new floor", "verify", "verify floor", "help")
TARGETS = {"new": 2.0, "verify": 1.2}
HELP_TARGET = 0.1


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU time of one successful run; any other exit (a refusal is 1) ends the
    benchmark, so a command that fails fast is never timed as a fast success."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{(done.stdout + done.stderr)[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def _environment(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(cache)}


def _commands(base: Path, copy: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "new": [py, "-m", "ffgen", *NEW, "--checkout", str(copy)],
        "new floor": [py, "-c", NEW_FLOOR, *(str(base / p) for p in EDITED)],
        "verify": [py, "-m", "ffgen", "verify", "--checkout", str(base), "--format", "json"],
        "verify floor": [py, "-c", VERIFY_FLOOR, str(base)],
        "help": [py, "-m", "ffgen", "--help"],
    }


def measure(repeat: int, algorithms: int) -> tuple[dict[str, list[tuple[float, float]]], str]:
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in NAMES}
    with tempfile.TemporaryDirectory() as tmp:
        base = synthesize(Path(tmp) / "base", algorithms)
        env = _environment(Path(tmp) / "pycache")
        size = (f"{len(list(base.rglob('src/**/*.py')))} source files, "
                f"{len(list(base.rglob('examples/**/*.yaml')))} example configs")
        for i in range(repeat + 1):  # round 0 warms the file and bytecode caches
            copy = shutil.copytree(base, Path(tmp) / f"copy{i}")
            for name, argv in _commands(base, copy).items():
                measured = _run(argv, env)
                if i:
                    times[name].append(measured)
            shutil.rmtree(copy)
    return times, size


def report(times: dict[str, list[tuple[float, float]]], size: str, repeat: int) -> None:
    wall = {k: statistics.median(t for t, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
    print(f"checkout: {size}; medians of {repeat} runs (wall, cpu)")
    for name in NAMES:
        print(f"{name:>13}: {wall[name]:.3f} s  {cpu[name]:.3f} s")
    for name, target in TARGETS.items():
        floor = f"{name} floor"
        print(f"{name + ' / floor':<15}= {wall[name] / wall[floor]:.2f} wall, "
              f"{cpu[name] / cpu[floor]:.2f} cpu (target <= {target})")
    print(f"{'--help':<15}= {wall['help']:.3f} s wall, {cpu['help']:.3f} s cpu "
          f"(target <= {HELP_TARGET})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--algorithms", type=int, default=25)
    args = parser.parse_args()
    times, size = measure(args.repeat, args.algorithms)
    report(times, size, args.repeat)


if __name__ == "__main__":
    main()
