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

Speed: the sandbox is created once (its modules byte-compiled once) and copied per point (its
read-only data folders linked, the copies on RAM-backed /dev/shm where there is one); points are
checked in worker processes (one per core), each parsing the template's files once for all its
points; each point's suite starts as soon as the point is written, so the suites overlap the
other points and ruff: one runner process imports torch once and forks a child per suite, a core
each (``ffgen.quality.runner``); each ruff tool runs once over all the files; and points whose
plans write the same code and configs (``ode`` and ``any`` dynamics often render one trainer)
share one suite run, its outcome reported on each. On a terminal the text form shows a progress
bar, elsewhere (CI) a plain line per tenth of a stage. Missing tools (ruff, or torch for the
suites) make their stage "skipped", with the reason, instead of failing.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ffgen.quality.gates import run_ruff
from ffgen.quality.points import (
    STAGES,
    CheckReport,
    PointResult,
    check_illegal,
    legal_points,
    suite_subset,
)
from ffgen.quality.stages import check_chunk, precompile
from ffgen.quality.suites import SuiteStage

# What the rest of ffgen and the tests use from here (the points are defined in .points).
__all__ = [
    "STAGES", "check_illegal", "check_templates_cmd", "legal_points", "report_json", "run_check",
    "suite_subset",
]  # fmt: skip

FORMATS = ("text", "json")
# Below this many points a worker pool costs more than it saves.
SERIAL_BELOW = 9
CHUNK = 6  # points per worker task: small enough for a smooth progress bar
SHM_MIN_FREE = 1 << 30  # the fast form needs ~60 MB; use /dev/shm only with plenty to spare
POLL_S = 0.05  # how often the suites' progress is read while the points are checked


# -- the whole run -------------------------------------------------------------------------------


def default_jobs() -> int:
    try:
        return max(1, min(8, len(os.sched_getaffinity(0))))
    except AttributeError:  # not on Linux
        return max(1, min(8, os.cpu_count() or 1))


def run_check(*, full: bool = False, jobs: int | None = None, progress=None) -> CheckReport:
    """Check every legal point (see the module docstring); ``progress(stage, total)`` returns a
    callable taking how many items finished, for a progress display."""
    started = time.perf_counter()
    progress = progress or (lambda stage, total: lambda n: None)
    points = legal_points()
    illegal = check_illegal()
    subset = set(range(len(points))) if full else suite_subset(points)
    jobs = jobs or default_jobs()
    skipped: dict[str, str] = {}
    timings = {"classify": time.perf_counter() - started}
    work = Path(tempfile.mkdtemp(prefix="ffgen-check-templates-", dir=_work_base()))
    advance = progress("points", len(points))  # first: the bars show in the stages' order
    suites = SuiteStage(work, jobs, skipped, progress("suites", len(subset)))

    def checked(r: PointResult) -> None:  # each point's suite starts as the point is written
        r.suite = r.index in subset
        if r.suite and r.failure is None:
            suites.add(r)

    try:
        template = _template(work)
        results = _check_points(template, work, points, jobs, advance, checked, suites.poll)
        timings["points"] = time.perf_counter() - started - sum(timings.values())
        run_ruff(work, results, skipped)  # while the suites run
        timings["ruff"] = time.perf_counter() - started - sum(timings.values())
        suites.finish()
        timings["suites"] = time.perf_counter() - started - sum(timings.values())
    finally:
        suites.stop()
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


def _template(work: Path) -> Path:
    """The sandbox every point copies, its modules byte-compiled once for all the suites."""
    from ffgen.sandbox import create_sandbox

    template = create_sandbox(work / "template")
    precompile(template)
    return template


def _work_base() -> str | None:
    """Where the point copies go: a RAM-backed /dev/shm when there is one with room (creating
    and deleting thousands of small files there is many times faster than on a disk), unless
    TMPDIR says otherwise; else the system's temporary folder."""
    shm = Path("/dev/shm")
    if os.environ.get("TMPDIR") or not shm.is_dir() or not os.access(shm, os.W_OK):
        return None
    return str(shm) if shutil.disk_usage(shm).free >= SHM_MIN_FREE else None


def _check_points(
    template: Path,
    work: Path,
    points: list,
    jobs: int,
    advance: Callable[[int], None],
    checked: Callable[[PointResult], None],
    poll: Callable[[], None],
) -> list[PointResult]:
    """Every point's in-process stages; ``checked`` hears of each point as it is done, and
    ``poll`` is called while waiting for them."""
    items = list(enumerate(points))
    if jobs == 1 or len(items) < SERIAL_BELOW:
        out = []
        for index, c in items:
            done = check_chunk(str(template), str(work), [(index, c)])
            out += done
            _each(done, checked, advance)
            poll()
        return out
    return _in_pool(template, work, items, jobs, lambda done: _each(done, checked, advance), poll)


def _each(done: list[PointResult], checked, advance) -> None:
    for r in done:
        checked(r)
    advance(len(done))


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
    template: Path, work: Path, items: list, jobs: int, finished, poll: Callable[[], None]
) -> list[PointResult]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    context = multiprocessing.get_context(_start_method())
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    out: list[PointResult] = []
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        waiting = {pool.submit(check_chunk, str(template), str(work), chunk) for chunk in chunks}
        while waiting:
            ready, waiting = wait(waiting, timeout=POLL_S, return_when=FIRST_COMPLETED)
            for future in ready:
                done = future.result()
                out += done
                finished(done)
            poll()
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
        return run_check(full=full, progress=plain_progress)
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


def plain_progress(stage: str, total: int, steps: int = 10):
    """Progress for a log (CI, a pipe): one line per tenth of a stage, none when it is empty."""
    done = 0
    shown = 0

    def advance(n: int) -> None:
        nonlocal done, shown
        done += n
        if total and done * steps // total > shown:
            shown = done * steps // total
            print(f"check-templates: {stage} {done}/{total}", file=sys.stderr, flush=True)

    return advance


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
