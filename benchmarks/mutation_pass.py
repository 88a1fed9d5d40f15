"""A small mutation pass: one-line changes to the given modules, each run against chosen tests.

    .venv/bin/python benchmarks/mutation_pass.py ffgen/write/lock.py ffgen/checkout/textfile.py \\
        --tests tests/core/test_write_safety.py [--max 20] [--timeout 120] [--seed 0]
    .venv/bin/python benchmarks/mutation_pass.py --replace ffgen/lifecycle/update.py 'OLD' 'NEW' \\
        --tests tests/lifecycle/test_update.py      # one explicit mutant (repeatable)
    .venv/bin/python benchmarks/mutation_pass.py ffgen/write/lock.py --list   # the mutants, no runs

The working tree is never touched: the tracked and untracked-but-not-ignored files are copied to
a temporary folder, each mutant is written there (and the original put back after it), and the
tests run there with ``pytest -n 0 -x`` under a per-mutant timeout. A mutant is killed when the
tests fail (or time out), survives when they pass; mutants that do not compile are not counted.

Mutations, one at a time: a comparison operator flipped (``==``/``!=``, ``<``/``>=``,
``>``/``<=``), ``True``/``False`` swapped, ``and``/``or`` swapped, a ``not`` dropped, a returned
value replaced (by ``None``, or a bool by its negation), a call statement removed (``pass``). At
most ``--max`` per module, sampled with ``--seed``. Prints every result, then the survivors.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLIPS = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
         "True": "False", "False": "True", "and": "or", "or": "and"}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository root
    line: int  # 1-based
    kind: str
    before: str  # the whole original line
    after: str  # the whole mutated line (or the whole file, for an explicit --replace)
    whole_file: bool = False

    def label(self) -> str:
        if self.whole_file:
            return f"{self.path} {self.kind}"
        return f"{self.path}:{self.line} {self.kind}: {self.before.strip()} -> {self.after.strip()}"


# --- finding mutants ---------------------------------------------------------------------------


def _replace_at(line: str, start: int, end: int, new: str) -> str:
    return line[:start] + new + line[end:]


def token_mutants(path: str, source: str) -> list[Mutant]:
    """Operator, constant and ``not`` mutations, located by token (strings are never touched)."""
    lines = source.splitlines(keepends=True)
    out = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for i, tok in enumerate(tokens):
        (row, col), (end_row, end_col) = tok.start, tok.end
        if row != end_row or tok.type not in (tokenize.OP, tokenize.NAME):
            continue
        line = lines[row - 1]
        if tok.string in FLIPS:
            new = _replace_at(line, col, end_col, FLIPS[tok.string])
            out.append(Mutant(path, row, f"flip {tok.string}", line, new))
        elif tok.string == "not":
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            stop = following.start[1] if following and following.start[0] == row else end_col
            new = _replace_at(line, col, stop, "")
            out.append(Mutant(path, row, "drop not", line, new))
    return out


def ast_mutants(path: str, source: str) -> list[Mutant]:
    """Returned values replaced and call statements removed (single-line statements only)."""
    lines = source.splitlines(keepends=True)
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Return | ast.Expr) or node.lineno != node.end_lineno:
            continue
        line = lines[node.lineno - 1]
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            is_bool = isinstance(value, ast.Constant) and isinstance(value.value, bool)
            new_value = "None" if not is_bool else str(not value.value)
            if isinstance(value, ast.Compare | ast.BoolOp):
                new_value = f"not ({ast.get_source_segment(source, value)})"
            new = _replace_at(line, value.col_offset, value.end_col_offset, new_value)
            out.append(Mutant(path, node.lineno, "replace return", line, new))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            new = _replace_at(line, node.col_offset, node.end_col_offset, "pass")
            out.append(Mutant(path, node.lineno, "remove call", line, new))
    return out


def compiles(source: str) -> bool:
    try:
        compile(source, "<mutant>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


def mutants_of(path: str, limit: int, rng: random.Random) -> list[Mutant]:
    source = (REPO / path).read_text(encoding="utf-8")
    found = [m for m in token_mutants(path, source) + ast_mutants(path, source)
             if compiles(apply_to(source, m))]
    unique = list({(m.line, m.after): m for m in found}.values())
    chosen = rng.sample(unique, min(limit, len(unique)))
    return sorted(chosen, key=lambda m: (m.line, m.kind))


def explicit_mutants(replacements: list[list[str]]) -> list[Mutant]:
    """``--replace PATH OLD NEW``: OLD must occur exactly once in PATH."""
    out = []
    for path, old, new in replacements:
        source = (REPO / path).read_text(encoding="utf-8")
        count = source.count(old)
        if count != 1:
            sys.exit(f"--replace: {old!r} occurs {count} times in {path}; make it unique")
        line = source[: source.index(old)].count("\n") + 1
        kind = f"replace {old!r} -> {new!r}"
        out.append(Mutant(path, line, kind, old, source.replace(old, new), whole_file=True))
    return out


def apply_to(source: str, m: Mutant) -> str:
    if m.whole_file:
        return m.after
    lines = source.splitlines(keepends=True)
    lines[m.line - 1] = m.after
    return "".join(lines)


# --- running them ------------------------------------------------------------------------------


def copy_repo(dest: Path) -> Path:
    """Tracked files plus untracked ones git does not ignore (never the venv or caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = REPO / rel
        if not source.is_file():
            continue  # deleted in the working tree but still tracked
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    return dest


def run_tests(copy: Path, tests: list[str], timeout: float) -> tuple[str, str]:
    """``killed``, ``survived`` or ``timeout``, and the first failing test (when killed)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # a stale .pyc would hide a mutant
    cmd = [sys.executable, "-m", "pytest", "-n", "0", "-x", "-q", "-p", "no:cacheprovider",
           *tests]
    try:
        done = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    if done.returncode == 0:
        return "survived", ""
    lines = done.stdout.decode(errors="replace").splitlines()
    first = next((ln for ln in lines if ln.startswith(("FAILED", "ERROR"))), "")
    return "killed", first.split(" - ")[0]


def check_copy_is_imported(copy: Path) -> None:
    """The editable install must not win over the copy's own ``ffgen``."""
    found = subprocess.run(
        [sys.executable, "-c", "import ffgen; print(ffgen.__file__)"],
        cwd=copy, capture_output=True, text=True, check=True,
    ).stdout.strip()
    if not Path(found).resolve().is_relative_to(copy.resolve()):
        sys.exit(f"the copy imports ffgen from {found}, not from itself; cannot mutate safely")


def run_pass(mutants: list[Mutant], tests: list[str], timeout: float) -> list[tuple[Mutant, str]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="ffgen-mutants-") as tmp:
        copy = copy_repo(Path(tmp) / "repo")
        check_copy_is_imported(copy)
        if run_tests(copy, tests, timeout)[0] != "survived":
            sys.exit("the selected tests do not pass on the unmutated copy; fix that first")
        for m in mutants:
            target = copy / m.path
            original = target.read_text(encoding="utf-8")
            target.write_text(apply_to(original, m), encoding="utf-8")
            started = time.monotonic()
            try:
                outcome, failed = run_tests(copy, tests, timeout)
            finally:
                target.write_text(original, encoding="utf-8")
            by = f"\n           by {failed}" if failed else ""
            print(f"{outcome.upper():8} {time.monotonic() - started:5.1f}s  {m.label()}{by}",
                  flush=True)
            results.append((m, outcome))
    return results


def report(results: list[tuple[Mutant, str]]) -> int:
    per_module: dict[str, Counter] = {}
    for m, outcome in results:
        per_module.setdefault(m.path, Counter())[outcome] += 1
    print("\nper module (killed / timeout / survived):")
    for path, counts in per_module.items():
        print(f"  {path}: {counts['killed']} / {counts['timeout']} / {counts['survived']}")
    survivors = [m for m, outcome in results if outcome == "survived"]
    print(f"\n{len(survivors)} survivor(s)" + (":" if survivors else ""))
    for m in survivors:
        print(f"  {m.label()}")
    return 1 if survivors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module paths relative to the repository")
    parser.add_argument("--tests", nargs="+", default=[], help="pytest selection (paths, -k ...)")
    parser.add_argument("--max", type=int, default=20, help="at most this many per module")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--replace", nargs=3, action="append", default=[],
                        metavar=("PATH", "OLD", "NEW"), help="an explicit mutant (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    mutants = explicit_mutants(args.replace)
    for path in args.modules:
        mutants += mutants_of(path, args.max, rng)
    if not mutants:
        parser.error("no mutants: give module paths or --replace")
    if args.list:
        for m in mutants:
            print(m.label())
        return 0
    if not args.tests:
        parser.error("--tests is required to run the mutants")
    return report(run_pass(mutants, args.tests, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
