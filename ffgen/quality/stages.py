"""The in-process stages of one point: render, compile, plan (with conformance), write, verify.

They run in worker processes; each point works in its own copy of the template sandbox.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ffgen.quality.points import NAME, Failure, PointResult, answers_dict, label, point_id

READ_ONLY_DIRS = ("assets", "dataset")  # sandbox data nothing writes to


# -- per-point stages (run in worker processes) ---------------------------------------------------


@dataclass(frozen=True)
class _Shared:
    """What every point reads and nothing changes: the template sandbox and its facts."""

    template: Path
    view: object
    facts: object
    hints: object
    names: object
    # entries of the view's parse cache known to be the template's own files
    kept: set = field(default_factory=set)


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


def _forget_point_parses(shared: _Shared) -> None:
    """Drop what one point parsed of its own files (rendered, edited): the template's files
    parse the same for every point, a point's own would only pile up in the worker."""
    cache = shared.view.parse_cache()
    for key in [k for k in cache if k not in shared.kept]:
        _, rel, text = key
        if shared.view.read(rel) == text:  # the template's own file, first read by this point
            shared.kept.add(key)
        else:
            del cache[key]


def check_chunk(template: str, work: str, chunk: list[tuple[int, object]]) -> list[PointResult]:
    """Run the in-process stages for some points (a worker task)."""
    shared = _shared(Path(template))
    results = []
    for index, c in chunk:
        results.append(check_point(shared, Path(work), index, c))
        _forget_point_parses(shared)
    return results


def check_point(shared: _Shared, work: Path, index: int, c) -> PointResult:
    result = PointResult(index, label(c), c.family.value, answers_dict(c))
    state: dict[str, object] = {}
    steps: tuple[tuple[str, Callable], ...] = (
        ("render", lambda: _render(shared, c, state)),
        ("compile", lambda: _compile(state)),
        ("plan", lambda: _plan(shared, c, state)),
        ("conformance", lambda: None),  # inside build_plan: a refusal there is reported here
        ("write", lambda: _write(shared, work / point_id(index), state)),
        ("verify", lambda: _verify(shared, work / point_id(index))),
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
            result.failure = Failure(stage, one_line(f"{type(exc).__name__}: {exc}"))
            break
        result.passed.append(stage)
    _files(result, state)
    return result


class _StageFailed(Exception):
    def __init__(self, detail: str, stage: str = "") -> None:
        super().__init__(detail)
        self.detail = one_line(detail)
        self.stage = stage


def one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


def _render(shared: _Shared, c, state: dict) -> None:
    from ffgen.generate import render
    from ffgen.generate.context import build_context
    from ffgen.generate.manifest import manifest_for

    ctx = build_context(shared.names, c, shared.hints)
    manifest = manifest_for(ctx)
    state["ctx"] = ctx
    state["rendered"] = {f.path: render.render(f.template, ctx) for f in manifest.rendered}


# (path, text) of the files this worker compiled: many points render the same file (the checklist
# is one text for all), and compiling it again would tell nothing new
_COMPILED: set[tuple[str, bytes]] = set()


def _compile(state: dict) -> None:
    import hashlib

    for path, code in state["rendered"].items():
        key = (path, hashlib.sha256(code.encode()).digest())
        if not path.endswith(".py") or key in _COMPILED:
            continue
        try:
            compile(code, path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise _StageFailed(f"{path}:{exc.lineno}: {exc.msg}") from None
        _COMPILED.add(key)


def _plan(shared: _Shared, c, state: dict) -> None:
    from ffgen.errors import FfgenError
    from ffgen.generate.conformance.findings import HINT
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


def precompile(template: Path) -> None:
    """Byte-compile the template's modules, so that each point's suite imports the files the
    point left as they were without compiling them again. The bytecode records a hash of its
    source, checked on every import: a file a point changed is compiled afresh, never run stale
    (the suites write no bytecode, so the template's stays as it is)."""
    import compileall
    import py_compile

    mode = py_compile.PycInvalidationMode.CHECKED_HASH
    compileall.compile_dir(template / "src", quiet=1, invalidation_mode=mode, workers=1)


def copy_sandbox(template: Path, root: Path) -> None:
    """A copy of the template sandbox whose data folders (read, never written) are links to the
    template's: creating and deleting the copy costs a third of a full one. Everything ffgen or a
    suite could write is copied, so nothing a point does can reach the template; the bytecode
    files (replaced, never written in place, and checked against their source) are hard links."""
    shutil.copytree(
        template,
        root,
        ignore=lambda d, names: _linked(template, d, names),
        copy_function=_copy_file,
    )
    for name in READ_ONLY_DIRS:
        if (template / name).is_dir():
            try:
                (root / name).symlink_to(template / name, target_is_directory=True)
            except OSError:  # no symlinks here: copy after all
                shutil.copytree(template / name, root / name)


def _copy_file(source: str, target: str) -> None:
    if source.endswith(".pyc"):
        try:
            os.link(source, target)
            return
        except OSError:  # no hard links here: copy after all
            pass
    shutil.copy2(source, target)


def _linked(template: Path, folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n in READ_ONLY_DIRS] if Path(folder) == template else []


def _verify(shared: _Shared, root: Path) -> None:
    from ffgen.checkout.view import CheckoutView
    from ffgen.verify.engine import run_verify

    # The copy's files that the point left as they were parse as the template's did.
    report = run_verify(CheckoutView(root, share_parses_with=shared.view))
    if report.findings:
        f = report.findings[0]
        raise _StageFailed(
            f"{f.rule_id} {f.location}: {f.message} ({len(report.findings)} finding(s))"
        )


def files_digest(plan) -> str:
    """A digest of every file the plan writes that a generated suite can read: all but ffgen's
    record under ``.ffgen/`` and the docs pages (``.md``; the suites read code and configs).
    Two points with one digest give their suites the same code and data to run."""
    import hashlib

    digest = hashlib.sha256()
    for change in sorted(plan.writes, key=lambda ch: ch.path):
        if not change.path.startswith(".ffgen/") and not change.path.endswith(".md"):
            digest.update(f"{change.path}\0{change.status.value}\0{change.new}\0".encode())
    return digest.hexdigest()


def _files(result: PointResult, state: dict) -> None:
    from ffgen.checkout import layout

    rendered = state.get("rendered", {})
    result.rendered = tuple(p for p in rendered if p.endswith(".py"))
    plan = state.get("plan")
    if plan is not None:
        result.edited = tuple(
            ch.path for ch in plan.writes if ch.path.endswith(".py") and ch.path not in rendered
        )
        result.files_digest = files_digest(plan)
    ctx = state.get("ctx")
    if ctx is not None:
        result.tests = (ctx.test_path, layout.args_test_path(ctx.module))
