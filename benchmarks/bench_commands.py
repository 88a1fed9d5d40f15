"""``ffgen new`` beside cookiecutter, ``ffgen verify`` and ``ffgen --help``, in one run.

    .venv/bin/python benchmarks/bench_commands.py [--repeat 9] [--algorithms 25]

Builds a real-size checkout (the faithful fixture plus ``--algorithms`` synthetic ones: about 140
source files and 40 example configs), then times, as fresh processes, alternating per repeat:

- ``ffgen new`` of one SFT-family algorithm into a fresh copy (5 shared files edited, about 10
  written; the conformance check and verify of the planned tree included, as always);
- ``cookiecutter --no-input`` rendering a template of the same files: the texts that very
  ``new`` wrote or changed, with the algorithm's name as the template's variables (the rest
  passed through ``{% raw %}``), so both write the same bytes to as many files. cookiecutter
  runs from its own virtual environment under the benchmark's temporary folder (made on first
  use; ``--cookiecutter PATH`` names another), never one of ffgen's dependencies;
- ``ffgen verify --format json`` on the checkout, and ``ffgen --help``;
- the floor under ``new``: a fresh interpreter importing the libraries ``new`` cannot work without
  (libcst for the registry edits, typer, Jinja2, PyYAML) and doing nothing else, so the report
  shows how much of the budget they take before ffgen runs a line of its own.

Budgets: ``new`` no slower than cookiecutter's render, ``verify`` at most 0.3 s, ``--help`` at
most 0.15 s. Every process runs with Python's bytecode cache on (a temporary
``PYTHONPYCACHEPREFIX``, warmed by an untimed first round), as an installed package has it.
Prints the medians of the wall time and of the CPU time (user + system of the child), and the
ratio of ``new`` to cookiecutter; exits 1 when a budget is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_verify import synthesize  # noqa: E402

KEY = "bench-new"
NEW = ["new", KEY, "--yes", "--model-type", "sd3-5", "--acquisition", "dataset",
       "--supervision", "demonstrations"]
# The algorithm's name in the spellings ``new`` writes, as cookiecutter variables.
SPELLINGS = {"bench-new": "key", "bench_new": "module", "BenchNew": "cls", "BENCH_NEW": "upper"}
NAMES = ("new", "cookiecutter", "floor", "verify", "help")
FLOOR = "import libcst, typer, jinja2, yaml"
BUDGET_S = {"verify": 0.3, "help": 0.15}


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU time of one successful run; any other exit ends the benchmark, so a
    command that fails fast is never timed as a fast success."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{(done.stdout + done.stderr)[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cookiecutter_command(tmp: Path, given: str | None) -> str:
    """The cookiecutter program to time: ``given``, or one installed into a venv of its own."""
    if given:
        return given
    env = tmp / "cookiecutter-venv"
    venv.create(env, with_pip=True)
    subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install", "-q", "cookiecutter"],
                   check=True)
    return str(env / "bin" / "cookiecutter")


def changed_files(before: Path, after: Path) -> dict[str, str]:
    """The files ``after`` has new or different from ``before`` (relative path -> text)."""
    out = {}
    for path in sorted(after.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(after).as_posix()
        old = before / rel
        text = path.read_text(encoding="utf-8")
        if not old.is_file() or old.read_text(encoding="utf-8") != text:
            out[rel] = text
    return out


def _templated(text: str, raw: bool = True) -> str:
    """``text`` as a cookiecutter template that renders it back, the name as variables (a
    path, rendered a folder at a time, has no braces to pass through ``raw``)."""
    pattern = "|".join(sorted(map(re.escape, SPELLINGS), key=len, reverse=True))
    parts = re.split(f"({pattern})", text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append("{{ cookiecutter." + SPELLINGS[part] + " }}")
        elif part:
            out.append("{% raw %}" + part + "{% endraw %}" if raw else part)
    return "".join(out)


def make_template(files: dict[str, str], folder: Path) -> Path:
    """A cookiecutter template writing ``files`` under one project folder."""
    (folder / "{{ cookiecutter.project }}").mkdir(parents=True)
    context = {"project": "out", **{name: spelling for spelling, name in SPELLINGS.items()}}
    (folder / "cookiecutter.json").write_text(json.dumps(context), encoding="utf-8")
    for rel, text in files.items():
        target = folder / "{{ cookiecutter.project }}" / _templated(rel, raw=False)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_templated(text), encoding="utf-8")
    return folder


def _check_template(cutter: str, template: Path, files: dict[str, str], out: Path,
                    env: dict[str, str]) -> None:
    """The render is byte for byte what ``new`` wrote: the two do the same output work."""
    _run([cutter, "--no-input", "-o", str(out), str(template)], env)
    rendered = {p.relative_to(out / "out").as_posix(): p.read_text(encoding="utf-8")
                for p in (out / "out").rglob("*") if p.is_file()}
    if rendered != files:
        raise SystemExit("the cookiecutter template does not render what new wrote")
    shutil.rmtree(out)


def measure(repeat: int, algorithms: int, cutter_given: str | None):
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in NAMES}
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cutter = cookiecutter_command(tmp, cutter_given)
        base = synthesize(tmp / "base", algorithms)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        first = shutil.copytree(base, tmp / "first")
        _run([py, "-m", "ffgen", *NEW, "--checkout", str(first)], env)
        files = changed_files(base, first)
        template = make_template(files, tmp / "template")
        _check_template(cutter, template, files, tmp / "check", env)
        size = (f"{len(list(base.rglob('src/**/*.py')))} source files, "
                f"{len(list(base.rglob('examples/**/*.yaml')))} example configs; new writes "
                f"{len(files)} files ({sum(map(len, files.values())) // 1024} KB)")
        for i in range(repeat + 1):  # round 0 warms the file and bytecode caches
            copy = shutil.copytree(base, tmp / f"copy{i}")
            out = tmp / f"out{i}"
            commands = {
                "new": [py, "-m", "ffgen", *NEW, "--checkout", str(copy)],
                "cookiecutter": [cutter, "--no-input", "-o", str(out), str(template)],
                "verify": [py, "-m", "ffgen", "verify", "--checkout", str(base),
                           "--format", "json"],
                "help": [py, "-m", "ffgen", "--help"],
                "floor": [py, "-c", FLOOR],
            }
            for name, argv in commands.items():
                measured = _run(argv, env)
                if i:
                    times[name].append(measured)
            shutil.rmtree(copy)
            shutil.rmtree(out)
    return times, size


def report(times: dict[str, list[tuple[float, float]]], size: str, repeat: int) -> bool:
    wall = {k: statistics.median(t for t, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
    print(f"checkout: {size}; medians of {repeat} runs (wall, cpu)")
    for name in NAMES:
        print(f"{name:>13}: {wall[name]:.3f} s  {cpu[name]:.3f} s")
    ratio = wall["new"] / wall["cookiecutter"]
    print(f"new / cookiecutter = {ratio:.2f} wall, {cpu['new'] / cpu['cookiecutter']:.2f} cpu "
          "(budget <= 1.0)")
    print(f"floor / cookiecutter = {wall['floor'] / wall['cookiecutter']:.2f} wall "
          f"({FLOOR}; ffgen's own work is new - floor = {wall['new'] - wall['floor']:.3f} s)")
    ok = ratio <= 1.0
    for name, budget in BUDGET_S.items():
        print(f"{name:>13} = {wall[name]:.3f} s wall (budget <= {budget} s)")
        ok = ok and wall[name] <= budget
    print("every budget met" if ok else "a budget was missed")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--algorithms", type=int, default=25)
    parser.add_argument("--cookiecutter", metavar="PATH",
                        help="a cookiecutter program to use instead of installing one")
    args = parser.parse_args()
    times, size = measure(args.repeat, args.algorithms, args.cookiecutter)
    sys.exit(0 if report(times, size, args.repeat) else 1)


if __name__ == "__main__":
    main()
