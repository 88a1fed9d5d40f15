"""Command line: thin commands that parse, call the stages and map results to exit codes.

Heavy modules (rich, jinja2, libcst, yaml) are imported inside the commands so that
``ffgen --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ffgen.cli_options import (
    _NAME_HELP,
    _PARAM_SPEC,
    _Acquisition,
    _Answers,
    _Cadence,
    _Category,
    _ClassName,
    _Debug,
    _Direction,
    _DryRun,
    _Dynamics,
    _Extends,
    _Feedback,
    _Finetune,
    _Force,
    _Format,
    _Like,
    _ModelType,
    _opt,
    _Ownership,
    _Paradigm,
    _Param,
    _Roles,
    _State,
    _Supervision,
    _Yes,
)
from ffgen.errors import EXIT_USAGE, FfgenError
from ffgen.stdout_guard import print_error

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Generate and verify Flow-Factory training algorithms.",
)


def _fail(exc: FfgenError, debug: bool) -> None:
    if debug:
        raise exc
    raise typer.Exit(print_error(exc))


def _print_version(value: bool) -> None:
    if value:
        from ffgen import __version__

        print(f"ffgen {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print ffgen's version."
        ),
    ] = False,
) -> None:
    """Generate and verify Flow-Factory training algorithms."""


@app.command()
def new(
    name: Annotated[str, typer.Argument(metavar="NAME", help=_NAME_HELP)],
    checkout: Annotated[Path | None, _opt("DIR", "Flow-Factory checkout root.")] = None,
    acquisition: _Acquisition = None,
    feedback: _Feedback = None,
    paradigm: _Paradigm = None,
    dynamics: _Dynamics = None,
    supervision: _Supervision = None,
    state: _State = None,
    ownership: _Ownership = None,
    direction: _Direction = None,
    roles: _Roles = None,
    role_cadence: _Cadence = None,
    model_type: _ModelType = None,
    finetune_type: _Finetune = None,
    category: _Category = None,
    param: _Param = None,
    class_name: _ClassName = None,
    like: _Like = None,
    extends: _Extends = None,
    yes: _Yes = False,
    dry_run: _DryRun = False,
    force: _Force = False,
    answers: _Answers = None,
    fmt: _Format = "text",
    debug: _Debug = False,
) -> None:
    """Classify a new algorithm and write everything its integration needs."""
    given = dict(locals())
    from ffgen.cli_options import new_code

    raise typer.Exit(new_code(**given))


@app.command()
def sandbox(
    directory: Path = typer.Argument(
        ..., metavar="DIR", help="Where to create the practice checkout."
    ),
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Output."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Create a miniature, runnable Flow-Factory checkout to try ffgen on."""
    from ffgen.sandbox import run_sandbox

    try:
        code = run_sandbox(directory, fmt)
    except FfgenError as exc:
        _fail(exc, debug)
    raise typer.Exit(code)


@app.command()
def verify(
    checkout: Path | None = typer.Option(None, metavar="DIR", help="Flow-Factory checkout root."),
    algorithm: str | None = typer.Option(None, metavar="KEY", help="Check one registry key only."),
    fmt: str = typer.Option("text", "--format", metavar="text|json|github", help="Output."),
    explain: str | None = typer.Option(
        None, metavar="ID|all", help="Print a rule's rationale (all: list every rule)."
    ),
    fix: bool = typer.Option(
        False, "--fix", help="Repair the mechanical findings (imports, re-exports, registries)."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="With --fix: show the diffs; write nothing."
    ),
) -> None:
    """Check every algorithm in a checkout against the integration rules (static, fast)."""
    from ffgen.verify.command import verify_cmd

    raise typer.Exit(verify_cmd(checkout, algorithm, fmt, explain, fix=fix, dry_run=dry_run))


@app.command("check-templates")
def check_templates(
    full: bool = typer.Option(
        False, "--full", help="Run the generated suite on every point, not a representative few."
    ),
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Output."),
) -> None:
    """Render every legal classification into a fresh sandbox and run every quality gate on it.

    Stages per point: render, compile, plan, conformance, write, verify, ruff-format, ruff-check,
    suite. Without --full the generated suite runs on a representative subset: every family and
    every value of dynamics, state, ownership and finetune type at least once. Exit 0 when every
    point passes, 1 naming the first failing point and stage, 2 for bad flags.
    """
    from ffgen.quality.check_templates import check_templates_cmd

    raise typer.Exit(check_templates_cmd(full=full, fmt=fmt))


_CHECKOUT = typer.Option(None, "--checkout", metavar="DIR", help="Flow-Factory checkout root.")
_DEBUG = typer.Option(False, "--debug", help="Show tracebacks.")


def _run(debug: bool, call) -> None:
    try:
        code = call()
    except FfgenError as exc:
        _fail(exc, debug)
    raise typer.Exit(code)


@app.command("list")
def list_(
    checkout: Path | None = _CHECKOUT,
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Output."),
    debug: bool = _DEBUG,
) -> None:
    """Every algorithm of the checkout, and whether ffgen's files are as it wrote them."""
    from ffgen.lifecycle.commands import run_list

    _run(debug, lambda: run_list(checkout, fmt))


@app.command()
def remove(
    key: str = typer.Argument(..., metavar="KEY", help="Registry key of the algorithm."),
    checkout: Path | None = _CHECKOUT,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan and diffs only."),
    force: bool = typer.Option(
        False, "--force", help="Also delete edited files; ignore remaining uses."
    ),
    keep_edited: bool = typer.Option(
        False, "--keep-edited", help="Remove the rest; keep edited files as your own (untracked)."
    ),
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Plan output."),
    debug: bool = _DEBUG,
) -> None:
    """Take an algorithm out: its files, registry entries, docs section and record.

    Files you edited since ffgen wrote them stop it (they are listed) unless --keep-edited or
    --force says what to do with them."""
    from ffgen.lifecycle.commands import run_remove

    _run(debug, lambda: run_remove(checkout, key, dry_run=dry_run, force=force, fmt=fmt,
                                   keep_edited=keep_edited))


@app.command()
def update(
    key: str = typer.Argument(..., metavar="KEY", help="Registry key of the algorithm."),
    checkout: Path | None = _CHECKOUT,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan and diffs only."),
    conflict: str = typer.Option(
        "refuse", "--conflict", metavar="inline|refuse", help="What to do with conflicts."
    ),
    from_source: bool = typer.Option(
        False, "--from-source", help="A --like copy: also merge its source's changes since."
    ),
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Plan output."),
    debug: bool = _DEBUG,
) -> None:
    """Re-render a generated algorithm with today's templates, merging your edits."""
    from ffgen.lifecycle.commands import run_update

    _run(
        debug,
        lambda: run_update(checkout, key, dry_run=dry_run, conflict=conflict, fmt=fmt,
                           from_source=from_source),
    )


@app.command()
def check(
    checkout: Path | None = _CHECKOUT,
    fmt: str = typer.Option("text", "--format", metavar="text|json|github", help="Output."),
    debug: bool = _DEBUG,
) -> None:
    """Fail when a generated algorithm is behind the templates or lost its registry entries."""
    from ffgen.lifecycle.commands import run_check

    _run(debug, lambda: run_check(checkout, fmt))


@app.command()
def smoke(
    key: str = typer.Argument(..., metavar="KEY", help="Registry key of the algorithm."),
    checkout: Path | None = _CHECKOUT,
    compare: str | None = typer.Option(
        None, "--compare", metavar="OTHER", help="Run OTHER the same way; compare step by step."
    ),
    device: str = typer.Option("cpu", "--device", metavar="cpu|cuda", help="Where to train."),
    cycles: int = typer.Option(2, "--cycles", metavar="N", help="Acquisition cycles to run."),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Seed (default 0)."),
    python: str | None = typer.Option(
        None, "--python", metavar="PATH", help="The checkout's interpreter (default: this one)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    debug: bool = _DEBUG,
) -> None:
    """Train KEY for a few steps on a tiny local model through the checkout's own trainer;
    report losses, rewards, grad norms and whether the right weights moved."""
    from ffgen.smoke.command import run_smoke

    _run(debug, lambda: run_smoke(checkout, key, compare=compare, device=device, cycles=cycles,
                                  seed=seed, python=python, fmt_json=as_json))


@app.command()
def skill(
    checkout: Path | None = _CHECKOUT,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan and diff; write nothing."),
    force: bool = typer.Option(False, "--force", help="Overwrite a skill file edited by hand."),
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Plan output."),
    remove: bool = typer.Option(
        False, "--remove", help="Take the skill and its AGENTS.md pointer out again."
    ),
    debug: bool = _DEBUG,
) -> None:
    """Write the agent skill that drives ffgen into the checkout (.agents/skills/ffgen/SKILL.md)
    and point AGENTS.md at it."""
    from ffgen.skill import run_skill

    _run(
        debug,
        lambda: run_skill(checkout, dry_run=dry_run, force=force, fmt=fmt, remove=remove),
    )


param_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Add or remove a generated algorithm's hyperparameters (after `ffgen new`).",
)
app.add_typer(param_app, name="param")
_KEY = typer.Argument(..., metavar="KEY", help="Registry key of the algorithm.")
_PARAM_DRY_RUN = typer.Option(False, "--dry-run", help="Show the plan and diffs only.")
_PARAM_FORMAT = typer.Option("text", "--format", metavar="text|json", help="Plan output.")


@param_app.command("add")
def param_add(
    key: str = _KEY,
    specs: list[str] = typer.Argument(..., metavar=f"{_PARAM_SPEC}...", help="Params to add."),
    checkout: Path | None = _CHECKOUT,
    dry_run: bool = _PARAM_DRY_RUN,
    fmt: str = _PARAM_FORMAT,
    debug: bool = _DEBUG,
) -> None:
    """Add hyperparameters: the field and its checks, the example, the docs row and tests."""
    from ffgen.lifecycle.params import run_param

    _run(debug, lambda: run_param(checkout, key, add=specs, dry_run=dry_run, fmt=fmt))


@param_app.command("remove")
def param_remove(
    key: str = _KEY,
    names: list[str] = typer.Argument(..., metavar="NAME...", help="Params to remove."),
    checkout: Path | None = _CHECKOUT,
    dry_run: bool = _PARAM_DRY_RUN,
    force: bool = typer.Option(
        False, "--force", help="Remove a param the code still reads (the reads are listed)."
    ),
    fmt: str = _PARAM_FORMAT,
    debug: bool = _DEBUG,
) -> None:
    """Remove hyperparameters that `param add` or `new --param` added."""
    from ffgen.lifecycle.params import run_param

    _run(debug, lambda: run_param(checkout, key, remove=names, dry_run=dry_run, fmt=fmt,
                                  force=force))


def app_code() -> int:
    """Run the typer app; click's own usage errors become one ``error:`` line too."""
    usage_error, click_error = _click_errors()
    from ffgen.stdout_guard import interrupted

    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:
        return interrupted()
    except typer.Abort as exc:  # Ctrl+C or end of input at a prompt
        if isinstance(exc.__context__, EOFError):
            print("error: no answer (end of input); nothing was written", file=sys.stderr)
            return EXIT_USAGE
        return interrupted()
    except usage_error as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `ffgen`: the help is the answer
            exc.show()
            return exc.exit_code
        where = exc.ctx.command_path if exc.ctx is not None else "ffgen"
        message = exc.format_message().rstrip(".")
        print(f"error: {message}; see `{where} --help`", file=sys.stderr)
        return EXIT_USAGE
    except click_error as exc:
        print(f"error: {exc.format_message()}", file=sys.stderr)
        return exc.exit_code
    return code or 0


def _click_errors() -> tuple[type[Exception], type[Exception]]:
    """The click ``UsageError`` / ``ClickException`` typer raises (it may bundle its own click,
    so they are found through the public ``typer.BadParameter`` rather than imported)."""
    mro = typer.BadParameter.__mro__
    usage = next(c for c in mro if c.__name__ == "UsageError")
    base = next(c for c in mro if c.__name__ == "ClickException")
    return usage, base

