"""Command line: thin commands that parse, call the stages and map results to exit codes.

Heavy modules (rich, jinja2, libcst, yaml) are imported inside the commands so that
``ffgen --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ffgen.errors import EXIT_USAGE, FfgenError

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
    from rich.console import Console

    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]error:[/bold red] {exc.message}", markup=True
    )
    raise typer.Exit(exc.exit_code)


@app.command()
def new(
    name: str = typer.Argument(
        ..., metavar="NAME", help="Algorithm name, e.g. my-algo (registry key)."
    ),
    checkout: Path | None = typer.Option(None, metavar="DIR", help="Flow-Factory checkout root."),
    acquisition: str | None = typer.Option(
        None, metavar="generation|dataset", help="Generated samples or a finite dataset."
    ),
    feedback: str | None = typer.Option(
        None, metavar="runtime_reward|none", help="Whether a runtime reward scores samples."
    ),
    paradigm: str | None = typer.Option(
        None, metavar="coupled|decoupled|distillation", help="How the objective uses samples."
    ),
    dynamics: str | None = typer.Option(
        None, metavar="sde|ode|any", help="Sampler dynamics the objective needs."
    ),
    supervision: str | None = typer.Option(
        None,
        metavar="prompts|demonstrations|preference_pairs|record:<TypeName>",
        help="What supervises the objective.",
    ),
    state: str | None = typer.Option(
        None, metavar="legacy|structured", help="Single- or multi-component latent state."
    ),
    ownership: str | None = typer.Option(
        None, metavar="single|multi_role|snapshots", help="Who owns trainable weights."
    ),
    roles: str | None = typer.Option(None, metavar="A,B", help="Role names for multi_role."),
    model_type: str | None = typer.Option(
        None, metavar="TYPE", help="Model type for the example config."
    ),
    finetune_type: str | None = typer.Option(
        None, metavar="lora|full", help="Fine-tuning of the example config."
    ),
    category: str | None = typer.Option(
        None, metavar="DIR", help="Trainer folder (default from answers)."
    ),
    class_name: str | None = typer.Option(
        None, metavar="STEM", help="Class stem, e.g. GRPOX for acronyms."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Never ask; take sound defaults."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Show the plan and diffs; write nothing."
    ),
    force: bool = typer.Option(False, "--force", help="Overwrite conflicting files."),
    fmt: str = typer.Option("text", "--format", metavar="text|json", help="Plan output."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Classify a new algorithm and write everything its integration needs."""
    from ffgen.commands import NewRequest, run_new

    flags = dict(
        acquisition=acquisition,
        feedback=feedback,
        paradigm=paradigm,
        dynamics=dynamics,
        supervision=supervision,
        state=state,
        ownership=ownership,
        roles=roles,
        model_type=model_type,
        finetune_type=finetune_type,
        category=category,
    )
    request = NewRequest(
        name=name,
        class_name=class_name,
        checkout=checkout,
        flags=flags,
        interactive=not yes and sys.stdin.isatty(),
        dry_run=dry_run,
        force=force,
        fmt=fmt,
    )
    try:
        code = run_new(request)
    except FfgenError as exc:
        _fail(exc, debug)
    raise typer.Exit(code)


@app.command()
def sandbox(
    directory: Path = typer.Argument(
        ..., metavar="DIR", help="Where to create the practice checkout."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Create a miniature, runnable Flow-Factory checkout to try ffgen on."""
    from ffgen.sandbox import create_sandbox

    try:
        target = create_sandbox(directory)
    except FfgenError as exc:
        _fail(exc, debug)
    typer.echo(f"sandbox checkout created at {target}")


@app.command()
def verify(
    checkout: Path | None = typer.Option(None, metavar="DIR", help="Flow-Factory checkout root."),
    algorithm: str | None = typer.Option(None, metavar="KEY", help="Check one registry key only."),
    fmt: str = typer.Option("text", "--format", metavar="text|json|github", help="Output."),
    explain: str | None = typer.Option(None, metavar="ID", help="Print a rule's rationale."),
) -> None:
    """Check every algorithm in a checkout against the integration rules (static, fast)."""
    from ffgen.verify.command import verify_cmd

    raise typer.Exit(verify_cmd(checkout, algorithm, fmt, explain))


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(EXIT_USAGE)
