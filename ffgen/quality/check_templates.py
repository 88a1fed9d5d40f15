"""``ffgen check-templates``: every legal classification renders into code that passes every gate.

A template change that breaks one combination nobody tried is how generators rot. This command
enumerates every legal classification point (``classify.legal_classifications``, model type
``toy``, so the sandbox can run what it renders) and confirms that every other combination of the
answers is refused with a one-line reason. Each legal point then goes through the stages below,
in a fresh copy of the sandbox in a temporary folder (never in the user's tree), stopping at the
first stage it fails:

``render``       the templates render (StrictUndefined: a missing variable fails)
``compile``      every rendered Python file compiles
``plan``         ``ffgen new``'s plan builds: collisions, registry edits (libcst), answers record
``conformance``  the rendered files fit the checkout's interface (part of the plan; named apart)
``write``        the plan is written into the point's sandbox copy by ``apply_plan``
``verify``       ``ffgen verify`` on the written copy reports nothing at all
``ruff-format``  ``ruff format --check --line-length 100`` passes (rendered and edited files)
``ruff-check``   ``ruff check`` (E, F, W, I, B, UP; line length 100) is clean on rendered files
``suite``        the generated verification suite passes (pytest in a subprocess)

The suite runs on every point with ``--full``; the fast form runs it on a representative subset:
points picked greedily (the one adding the most values not yet covered, ties to the first in
enumeration order) until every family and every value of dynamics, state, ownership and finetune
type is covered; today 7 of 168 points.

Speed: the sandbox is created once and copied per point (its read-only data folders linked, the
copies on RAM-backed /dev/shm where there is one); points are checked in worker processes (one
per core); each ruff tool runs once over all the files; suites of up to ``SUITE_BATCH`` points
share one interpreter, so torch is imported once per batch. Missing tools (ruff, or torch for the
suites) make their stage "skipped", with the reason, instead of failing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

STAGES = (
    "render",
    "compile",
    "plan",
    "conformance",
    "write",
    "verify",
    "ruff-format",
    "ruff-check",
    "suite",
)
NAME = "my-algo"
MODEL_TYPE = "toy"
RECORD_TYPE = "PairRecord"
ROLES = ("generator", "critic")
FORMATS = ("text", "json")
LINE_LENGTH = "100"
RUFF_CHECK = (
    "check",
    "--isolated",
    "--select",
    "E,F,W,I,B,UP",
    "--config",
    "lint.isort.known-first-party = ['flow_factory']",
    "--line-length",
    LINE_LENGTH,
    "--target-version",
    "py310",
    "--output-format",
    "concise",
)
RUFF_FORMAT = (
    "format",
    "--check",
    "--isolated",
    "--line-length",
    LINE_LENGTH,
    "--target-version",
    "py310",
)
# Below this many points a worker pool costs more than it saves.
SERIAL_BELOW = 9
CHUNK = 6  # points per worker task: small enough for a smooth progress bar
SUITE_BATCH = 12  # most suites one runner interpreter runs
SUITE_TIMEOUT_S = 300  # per point, generous for a loaded 2-core machine
READ_ONLY_DIRS = ("assets", "dataset")  # sandbox data nothing writes to
SHM_MIN_FREE = 1 << 30  # the fast form needs ~60 MB; use /dev/shm only with plenty to spare


@dataclass(frozen=True)
class Failure:
    stage: str
    detail: str  # one line


@dataclass
class PointResult:
    """One legal point: where it stands after each stage (filled in as the stages run)."""

    index: int
    label: str
    family: str
    answers: dict[str, object]
    passed: list[str] = field(default_factory=list)
    failure: Failure | None = None
    rendered: tuple[str, ...] = ()  # rendered .py files, relative to the point's copy
    edited: tuple[str, ...] = ()  # .py files the plan edits or creates besides those
    tests: tuple[str, ...] = ()  # the generated suite's files
    suite: bool = False  # chosen to run the generated suite

    @property
    def id(self) -> str:
        return point_id(self.index)

    def status(self, stage: str, skipped: dict[str, str]) -> str:
        if stage in self.passed:
            return "passed"
        if self.failure is not None and self.failure.stage == stage:
            return "failed"
        if stage in skipped and self.failure is None and (stage != "suite" or self.suite):
            return "skipped"
        return "not run"

    def as_dict(self, skipped: dict[str, str]) -> dict[str, object]:
        failure = self.failure
        return {
            "id": self.id,
            "index": self.index,
            "label": self.label,
            "family": self.family,
            "answers": self.answers,
            "suite": self.suite,
            "stages": {s: self.status(s, skipped) for s in STAGES},
            "failure": {"stage": failure.stage, "detail": failure.detail} if failure else None,
        }


@dataclass(frozen=True)
class Illegal:
    count: int
    problems: tuple[tuple[str, str], ...]  # (label, what is wrong with its refusal)


@dataclass(frozen=True)
class CheckReport:
    points: tuple[PointResult, ...]
    illegal: Illegal
    skipped: dict[str, str]  # stage -> why it did not run
    full: bool
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)  # phase -> wall seconds

    @property
    def first_failure(self) -> PointResult | None:
        return next((p for p in self.points if p.failure is not None), None)

    @property
    def ok(self) -> bool:
        return self.first_failure is None and not self.illegal.problems

    def counts(self, stage: str) -> dict[str, int]:
        out = {"passed": 0, "failed": 0, "skipped": 0, "not run": 0}
        for p in self.points:
            out[p.status(stage, self.skipped)] += 1
        return out


def point_id(index: int) -> str:
    return f"p{index:03d}"


# -- the points ----------------------------------------------------------------------------------


def legal_points() -> list:
    """The points to check: every legal classification, in enumeration order."""
    return _enumerate()


def _enumerate() -> list:
    from ffgen.classify.rules import legal_classifications

    return list(
        legal_classifications(model_types=(MODEL_TYPE,), record_type=RECORD_TYPE, roles=ROLES)
    )


def label(c) -> str:
    a = c.answers
    return "/".join(
        (
            c.family.value,
            f"{a.acquisition.value}+{a.feedback.value}",
            a.paradigm.value,
            a.dynamics.value,
            str(a.supervision),
            a.state.value,
            a.ownership.value,
            a.finetune_type.value,
        )
    )


def answers_dict(c) -> dict[str, object]:
    a = c.answers
    return {
        "acquisition": a.acquisition.value,
        "feedback": a.feedback.value,
        "paradigm": a.paradigm.value,
        "dynamics": a.dynamics.value,
        "supervision": str(a.supervision),
        "state": a.state.value,
        "ownership": a.ownership.value,
        "roles": list(a.roles),
        "model_type": a.model_type,
        "finetune_type": a.finetune_type.value,
        "category": c.category,
        "contract": c.contract.value,
    }


def check_illegal() -> Illegal:
    """Every combination of the answers that is not a legal point must be refused by classify,
    with a one-line reason; and every combination classify accepts must be a legal point."""
    from ffgen.classify.rules import answer_combinations, classify
    from ffgen.errors import FfgenError

    known = {c.answers for c in _enumerate()}
    count, problems = 0, []
    for answers in answer_combinations((MODEL_TYPE,), RECORD_TYPE, ROLES):
        a = answers
        values = (
            a.acquisition,
            a.feedback,
            a.paradigm,
            a.dynamics,
            a.supervision,
            a.state,
            a.ownership,
            a.finetune_type,
        )
        name = "/".join(str(getattr(v, "value", v)) for v in values)
        try:
            classify(answers)
        except FfgenError as exc:
            count += 1
            if not exc.message.strip() or "\n" in exc.message:
                problems.append((name, f"refused without a one-line reason: {exc.message!r}"))
            continue
        if answers not in known:
            problems.append((name, "classify accepts it but legal_classifications misses it"))
    return Illegal(count, tuple(problems))


def suite_subset(points: Sequence) -> set[int]:
    """Indexes of the representative subset (see the module docstring)."""

    def values(c) -> set[tuple[str, str]]:
        a = c.answers
        return {
            ("family", c.family.value),
            ("dynamics", a.dynamics.value),
            ("state", a.state.value),
            ("ownership", a.ownership.value),
            ("finetune", a.finetune_type.value),
        }

    wanted = set().union(*(values(c) for c in points)) if points else set()
    chosen: set[int] = set()
    while wanted:
        best = max(range(len(points)), key=lambda i: (len(values(points[i]) & wanted), -i))
        chosen.add(best)
        wanted -= values(points[best])
    return chosen


# -- per-point stages (run in worker processes) ---------------------------------------------------


@dataclass(frozen=True)
class _Shared:
    """What every point reads and nothing changes: the template sandbox and its facts."""

    template: Path
    view: object
    facts: object
    hints: object
    names: object


_SHARED: dict[str, _Shared] = {}


def _shared(template: Path) -> _Shared:
    key = str(template)
    if key not in _SHARED:
        from ffgen.checkout.facts import read_facts
        from ffgen.checkout.hints import read_hints
        from ffgen.checkout.view import CheckoutView
        from ffgen.classify.names import parse_name

        view = CheckoutView(template)
        _SHARED[key] = _Shared(template, view, read_facts(view), read_hints(view), parse_name(NAME))
    return _SHARED[key]


def check_chunk(template: str, work: str, chunk: list[tuple[int, object]]) -> list[PointResult]:
    """Run the in-process stages for some points (a worker task)."""
    shared = _shared(Path(template))
    return [check_point(shared, Path(work), index, c) for index, c in chunk]


def check_point(shared: _Shared, work: Path, index: int, c) -> PointResult:
    result = PointResult(index, label(c), c.family.value, answers_dict(c))
    state: dict[str, object] = {}
    steps: tuple[tuple[str, Callable], ...] = (
        ("render", lambda: _render(shared, c, state)),
        ("compile", lambda: _compile(state)),
        ("plan", lambda: _plan(shared, c, state)),
        ("conformance", lambda: None),  # inside build_plan: a refusal there is reported here
        ("write", lambda: _write(shared, work / point_id(index), state)),
        ("verify", lambda: _verify(work / point_id(index))),
    )
    for stage, step in steps:
        try:
            step()
        except _StageFailed as exc:
            if exc.stage == "conformance":  # build_plan's last check: the rest of it passed
                result.passed.append("plan")
            result.failure = Failure(exc.stage or stage, exc.detail)
            break
        except Exception as exc:  # a crash is a failing point, reported with its stage
            result.failure = Failure(stage, _one_line(f"{type(exc).__name__}: {exc}"))
            break
        result.passed.append(stage)
    _files(result, state)
    return result


class _StageFailed(Exception):
    def __init__(self, detail: str, stage: str = "") -> None:
        super().__init__(detail)
        self.detail = _one_line(detail)
        self.stage = stage


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


def _render(shared: _Shared, c, state: dict) -> None:
    from ffgen.generate import render
    from ffgen.generate.context import build_context
    from ffgen.generate.manifest import manifest_for

    ctx = build_context(shared.names, c, shared.hints)
    manifest = manifest_for(ctx)
    state["ctx"] = ctx
    state["rendered"] = {f.path: render.render(f.template, ctx) for f in manifest.rendered}


def _compile(state: dict) -> None:
    for path, code in state["rendered"].items():
        if path.endswith(".py"):
            try:
                compile(code, path, "exec", dont_inherit=True)
            except SyntaxError as exc:
                raise _StageFailed(f"{path}:{exc.lineno}: {exc.msg}") from None


def _plan(shared: _Shared, c, state: dict) -> None:
    from ffgen.errors import FfgenError
    from ffgen.generate.conformance import HINT
    from ffgen.generate.plan import build_plan

    try:
        state["plan"] = build_plan(shared.view, shared.facts, shared.names, c, state["ctx"])
    except FfgenError as exc:
        stage = "conformance" if HINT in exc.message else "plan"
        raise _StageFailed(exc.message, stage) from None


def _write(shared: _Shared, root: Path, state: dict) -> None:
    from ffgen.write.apply import apply_plan

    copy_sandbox(shared.template, root)
    apply_plan(root, state["plan"])


def copy_sandbox(template: Path, root: Path) -> None:
    """A copy of the template sandbox whose data folders (read, never written) are links to the
    template's: creating and deleting the copy costs a third of a full one. Everything ffgen or a
    suite could write is copied, so nothing a point does can reach the template."""
    shutil.copytree(template, root, ignore=lambda d, names: _linked(template, d, names))
    for name in READ_ONLY_DIRS:
        if (template / name).is_dir():
            try:
                (root / name).symlink_to(template / name, target_is_directory=True)
            except OSError:  # no symlinks here: copy after all
                shutil.copytree(template / name, root / name)


def _linked(template: Path, folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n in READ_ONLY_DIRS] if Path(folder) == template else []


def _verify(root: Path) -> None:
    from ffgen.checkout.view import CheckoutView
    from ffgen.verify import run_verify

    report = run_verify(CheckoutView(root))
    if report.findings:
        f = report.findings[0]
        raise _StageFailed(
            f"{f.rule_id} {f.location}: {f.message} ({len(report.findings)} finding(s))"
        )


def _files(result: PointResult, state: dict) -> None:
    from ffgen.checkout import layout

    rendered = state.get("rendered", {})
    result.rendered = tuple(p for p in rendered if p.endswith(".py"))
    plan = state.get("plan")
    if plan is not None:
        result.edited = tuple(
            ch.path for ch in plan.writes if ch.path.endswith(".py") and ch.path not in rendered
        )
    ctx = state.get("ctx")
    if ctx is not None:
        result.tests = (ctx.test_path, layout.args_test_path(ctx.module))


# -- the stages over all points: ruff, then the suites --------------------------------------------


def ruff_command() -> list[str] | None:
    """How to run ruff here: this interpreter's ruff module, else a ruff on PATH."""
    import importlib.util

    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    return [found] if found else None


def run_ruff(work: Path, points: list[PointResult], skipped: dict[str, str]) -> None:
    ruff = ruff_command()
    if ruff is None:
        reason = "ruff is not installed (pip install ruff, or ffgen[test])"
        skipped["ruff-format"] = skipped["ruff-check"] = reason
        return
    _ruff_stage(
        work, points, "ruff-format", [*ruff, *RUFF_FORMAT], lambda p: (*p.rendered, *p.edited)
    )
    _ruff_stage(work, points, "ruff-check", [*ruff, *RUFF_CHECK], lambda p: p.rendered)


def _ruff_stage(
    work: Path,
    points: list[PointResult],
    stage: str,
    command: list[str],
    files: Callable[[PointResult], Iterable[str]],
) -> None:
    """One ruff run over every file of every point still going; failures go to their point."""
    going = [p for p in points if p.failure is None]
    paths = {p.index: [f"{p.id}/{f}" for f in files(p)] for p in going}
    every = [f for group in paths.values() for f in group]
    if not every:
        return
    run = subprocess.run([*command, *every], cwd=work, capture_output=True, text=True, check=False)
    lines = (run.stdout + run.stderr).splitlines()
    if run.returncode not in (0, 1):
        detail = next((line for line in lines if line.strip()), f"ruff exit {run.returncode}")
        for p in going:
            p.failure = Failure(stage, _one_line(f"ruff could not run: {detail}"))
        return
    for p in going:
        bad = [f for f in paths[p.index] if any(f in line for line in lines)]
        if bad:
            p.failure = Failure(stage, _ruff_detail(stage, bad, lines, p.id))
        else:
            p.passed.append(stage)


def _ruff_detail(stage: str, bad: list[str], lines: list[str], pid: str) -> str:
    first = bad[0].removeprefix(f"{pid}/")
    if stage == "ruff-format":
        more = f" (and {len(bad) - 1} more file(s))" if len(bad) > 1 else ""
        return f"{first} is not formatted as ruff format --line-length 100 would{more}"
    hit = next(line for line in lines if bad[0] in line)
    return hit.replace(f"{pid}/", "", 1).strip()


def suite_skip_reason() -> str:
    import importlib.util

    for module in ("torch", "pytest"):
        if importlib.util.find_spec(module) is None:
            return (
                f"{module} is not installed (the generated suites need it; pip install ffgen[test])"
            )
    return ""


def run_suites(
    work: Path,
    points: list[PointResult],
    jobs: int,
    skipped: dict[str, str],
    advance: Callable[[int], None],
) -> None:
    chosen = [p for p in points if p.suite and p.failure is None]
    reason = suite_skip_reason()
    if reason:
        skipped["suite"] = reason
        return
    if not chosen:
        return
    from concurrent.futures import ThreadPoolExecutor, as_completed

    # One interpreter per batch imports torch once; batches stay small enough that one runner
    # never accumulates a whole --full run, and there are at least as many as workers.
    count = max(min(jobs, len(chosen)), -(-len(chosen) // SUITE_BATCH))
    batches = [chosen[i::count] for i in range(count)]
    with ThreadPoolExecutor(min(jobs, count)) as pool:
        for future in as_completed([pool.submit(_suite_batch, work, b) for b in batches]):
            advance(future.result())


def _suite_batch(work: Path, batch: list[PointResult]) -> int:
    """Run the generated suites of ``batch`` in one child interpreter; record each outcome."""
    spec = work / f"suites-{batch[0].id}.json"
    out = work / f"suites-{batch[0].id}.out.json"
    items = [{"id": p.id, "root": str(work / p.id), "tests": list(p.tests)} for p in batch]
    spec.write_text(json.dumps(items), encoding="utf-8")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        # This file runs as a script: the runner needs nothing but the stdlib and pytest.
        run = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--run-suites", str(spec), str(out)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=SUITE_TIMEOUT_S * len(batch),
        )
        tail = _one_line((run.stdout + run.stderr)[-400:])
    except subprocess.TimeoutExpired:
        tail = f"timed out after {SUITE_TIMEOUT_S * len(batch)} s"
    results = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    for p in batch:
        _suite_outcome(p, results.get(p.id), tail)
    return len(batch)


def _suite_outcome(p: PointResult, outcome: dict | None, tail: str) -> None:
    if outcome is None:
        p.failure = Failure("suite", f"the suite runner stopped before this point: {tail}")
    elif outcome["exit"] != 0:
        failed = ", ".join(outcome["failed"][:3]) or f"pytest exit {outcome['exit']}"
        p.failure = Failure("suite", _one_line(f"generated suite failed: {failed}"))
    else:
        p.passed.append("suite")


# -- the suite runner (child process) ------------------------------------------------------------


class FailedTests:
    """pytest plugin: the names of the tests that failed (in any phase)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.names.append(report.nodeid.rsplit("::", 1)[-1])


def suite_runner(spec_path: str, out_path: str) -> None:
    """Child side of :func:`_suite_batch`: each point's suite with pytest, in this interpreter,
    with the point's ``src`` on the path and everything imported from the last point dropped."""
    import importlib

    import pytest

    results: dict[str, object] = {}
    previous: str | None = None
    for item in json.loads(Path(spec_path).read_text(encoding="utf-8")):
        root = item["root"]
        if previous is not None:
            _forget(previous)
            sys.path.remove(str(Path(previous) / "src"))
        sys.path.insert(0, str(Path(root) / "src"))
        importlib.invalidate_caches()
        os.chdir(root)
        failures = FailedTests()
        started = time.perf_counter()
        code = pytest.main(
            ["-q", "-p", "no:cacheprovider", "--rootdir", root, *item["tests"]], plugins=[failures]
        )
        results[item["id"]] = {
            "exit": int(code),
            "failed": failures.names,
            "seconds": round(time.perf_counter() - started, 2),
        }
        Path(out_path).write_text(json.dumps(results), encoding="utf-8")  # a crash keeps these
        previous = root


def _forget(root: str) -> None:
    """Drop every module imported from ``root`` (flow_factory, conftest, the test modules)."""
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or ""
        inside = where.startswith(root.rstrip(os.sep) + os.sep)
        if inside or name == "flow_factory" or name.startswith("flow_factory."):
            del sys.modules[name]


# -- the whole run -------------------------------------------------------------------------------


def default_jobs() -> int:
    try:
        return max(1, min(8, len(os.sched_getaffinity(0))))
    except AttributeError:  # not on Linux
        return max(1, min(8, os.cpu_count() or 1))


def run_check(*, full: bool = False, jobs: int | None = None, progress=None) -> CheckReport:
    """Check every legal point (see the module docstring); ``progress(stage, total)`` returns a
    callable taking how many items finished, for a progress display."""
    from ffgen.sandbox import create_sandbox

    started = time.perf_counter()
    progress = progress or (lambda stage, total: lambda n: None)
    points = legal_points()
    illegal = check_illegal()
    subset = set(range(len(points))) if full else suite_subset(points)
    jobs = jobs or default_jobs()
    skipped: dict[str, str] = {}
    timings = {"classify": time.perf_counter() - started}
    work = Path(tempfile.mkdtemp(prefix="ffgen-check-templates-", dir=_work_base()))
    try:
        template = create_sandbox(work / "template")
        results = _check_points(template, work, points, jobs, progress("points", len(points)))
        for r in results:
            r.suite = r.index in subset
        timings["points"] = time.perf_counter() - started - sum(timings.values())
        run_ruff(work, results, skipped)
        timings["ruff"] = time.perf_counter() - started - sum(timings.values())
        run_suites(work, results, jobs, skipped, progress("suites", len(subset)))
        timings["suites"] = time.perf_counter() - started - sum(timings.values())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    timings["cleanup"] = time.perf_counter() - started - sum(timings.values())
    return CheckReport(
        tuple(results),
        illegal,
        skipped,
        full,
        round(time.perf_counter() - started, 2),
        {k: round(v, 2) for k, v in timings.items()},
    )


def _work_base() -> str | None:
    """Where the point copies go: a RAM-backed /dev/shm when there is one with room (creating
    and deleting thousands of small files there is many times faster than on a disk), unless
    TMPDIR says otherwise; else the system's temporary folder."""
    shm = Path("/dev/shm")
    if os.environ.get("TMPDIR") or not shm.is_dir() or not os.access(shm, os.W_OK):
        return None
    return str(shm) if shutil.disk_usage(shm).free >= SHM_MIN_FREE else None


def _check_points(
    template: Path, work: Path, points: list, jobs: int, advance: Callable[[int], None]
) -> list[PointResult]:
    items = list(enumerate(points))
    if jobs == 1 or len(items) < SERIAL_BELOW:
        out = []
        for index, c in items:
            out += check_chunk(str(template), str(work), [(index, c)])
            advance(1)
        return out
    return _in_pool(template, work, items, jobs, advance)


def _start_method() -> str:
    """fork is cheapest (ffgen is already imported) but only safe while this process runs no
    other thread (a progress bar's, say): a forked child can deadlock on a lock one held."""
    import threading

    methods = multiprocessing_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def multiprocessing_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def _in_pool(
    template: Path, work: Path, items: list, jobs: int, advance: Callable[[int], None]
) -> list[PointResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context(_start_method())
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    out: list[PointResult] = []
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [pool.submit(check_chunk, str(template), str(work), chunk) for chunk in chunks]
        for future in as_completed(futures):
            done = future.result()
            out += done
            advance(len(done))
    return sorted(out, key=lambda r: r.index)


# -- output --------------------------------------------------------------------------------------


def check_templates_cmd(*, full: bool, fmt: str) -> int:
    """The command: run the check, print text or JSON, return 0 (all passed), 1 or 2 (usage)."""
    from ffgen.errors import EXIT_OK, EXIT_REFUSED, EXIT_USAGE

    if fmt not in FORMATS:
        print(f"error: --format {fmt!r} is not valid; choose text or json", file=sys.stderr)
        return EXIT_USAGE
    if fmt == "json":
        report = run_check(full=full)
        print(json.dumps(report_json(report), indent=2))
    else:
        report = _run_with_progress(full)
        print_text(report)
    return EXIT_OK if report.ok else EXIT_REFUSED


def _run_with_progress(full: bool) -> CheckReport:
    if not sys.stderr.isatty():
        return run_check(full=full)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    # No auto refresh: it runs a thread, and the worker pool forks only a thread-free process.
    with Progress(
        *columns, console=Console(stderr=True), transient=True, auto_refresh=False
    ) as bar:

        def track(stage: str, total: int):
            task = bar.add_task(stage, total=total)
            bar.refresh()

            def advance(n: int) -> None:
                bar.advance(task, n)
                bar.refresh()

            return advance

        return run_check(full=full, progress=track)


def first_failure_line(report: CheckReport) -> str:
    p = report.first_failure
    if p is not None:
        return (
            f"check-templates: FAILED: point {p.id} ({p.label}) at stage {p.failure.stage}: "
            f"{p.failure.detail}"
        )
    if report.illegal.problems:
        name, problem = report.illegal.problems[0]
        return f"check-templates: FAILED: illegal point {name} at stage refusal: {problem}"
    return ""


def report_json(report: CheckReport) -> dict[str, object]:
    first = report.first_failure
    return {
        "ok": report.ok,
        "full": report.full,
        "seconds": report.seconds,
        "timings": report.timings,
        "legal_points": len(report.points),
        "suite_points": [p.id for p in report.points if p.suite],
        "illegal": {
            "count": report.illegal.count,
            "problems": [
                {"point": name, "problem": problem} for name, problem in report.illegal.problems
            ],
        },
        "stages": {
            s: {**report.counts(s), "skipped_reason": report.skipped.get(s)} for s in STAGES
        },
        "first_failure": None
        if first is None
        else {
            "point": first.id,
            "label": first.label,
            "stage": first.failure.stage,
            "detail": first.failure.detail,
        },
        "message": first_failure_line(report),
        "points": [p.as_dict(report.skipped) for p in report.points],
    }


def print_text(report: CheckReport) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True)
    table = Table(
        title=f"check-templates: {len(report.points)} legal points "
        f"({'full' if report.full else 'fast'} form, {report.seconds:.1f} s)",
        title_justify="left",
    )
    for column in ("stage", "passed", "failed", "skipped", "not run", "first failing point"):
        table.add_column(column)
    firsts = {}
    for stage in STAGES:
        n = report.counts(stage)
        first = next((p for p in report.points if _failed_at(p, stage)), None)
        if first is not None:
            firsts[stage] = first
        row = [stage, *(str(n[k]) for k in ("passed", "failed", "skipped", "not run"))]
        table.add_row(*row, first.id if first else "")
    console.print(table)
    for stage, first in firsts.items():
        console.print(f"{stage}: {first.id} ({first.label}): {escape(first.failure.detail)}")
    for stage, reason in report.skipped.items():
        console.print(f"{stage}: skipped: {escape(reason)}")
    refused = report.illegal.count - len(report.illegal.problems)
    console.print(
        f"illegal points: {report.illegal.count}, refused with a one-line reason: {refused}"
    )
    if not report.full:
        suite = [p.id for p in report.points if p.suite]
        console.print(f"suite subset ({len(suite)} points): {', '.join(suite)}")
    line = first_failure_line(report)
    console.print(escape(line) if line else "check-templates: every stage passed")


def _failed_at(p: PointResult, stage: str) -> bool:
    return p.failure is not None and p.failure.stage == stage


if __name__ == "__main__" and sys.argv[1:2] == ["--run-suites"]:
    # Run as a script, Python put ffgen/ itself first on the path; its module names (plan,
    # render, layout, ...) must not shadow what the generated suites import.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    suite_runner(sys.argv[2], sys.argv[3])
