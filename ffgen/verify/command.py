"""``ffgen verify``: the command body the CLI wraps (stdlib-only imports at module level).

rich, yaml and the rule engine are imported inside the functions so ``ffgen --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FORMATS = ("text", "json", "github")
EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2


def verify_cmd(
    checkout: Path | None, algorithm: str | None, fmt: str, explain: str | None
) -> int:
    """Print the report (or a rule's rationale) and return the exit code: 0 / 1 / 2."""
    if explain is not None:
        return explain_rule(explain)
    if fmt not in FORMATS:
        return _fail(f"--format {fmt!r} is not one of {', '.join(FORMATS)}")
    from ffgen.checkout import CheckoutView, find_root
    from ffgen.errors import FfgenError
    from ffgen.verify.engine import run_verify

    try:
        root = find_root(checkout)
        report = run_verify(CheckoutView(root), algorithm=algorithm)
    except FfgenError as exc:
        return _fail(exc.message)
    {"text": print_text, "json": print_json, "github": print_github}[fmt](report, root)
    return EXIT_FINDINGS if report.errors else EXIT_OK


def _fail(message: str) -> int:
    print(f"ffgen verify: {message}", file=sys.stderr)
    return EXIT_CANNOT_RUN


def explain_rule(rule_id: str) -> int:
    from ffgen.verify.catalogue import BY_ID, SANCTIONED_EXTENSIONS

    rule = BY_ID.get(rule_id.strip().upper())
    if rule is None:
        return _fail(f"unknown rule {rule_id!r}; known: {', '.join(BY_ID)}")
    print(f"{rule.id} [{rule.severity}] {rule.title}\n")
    print(rule.rationale)
    if rule.id == "FF305":
        allowed = ", ".join(f"{c} from {p}" for c, p in SANCTIONED_EXTENSIONS.items())
        print(f"\nSanctioned: {allowed}.")
    print(f"\nFix: {rule.fix}")
    print("Accept for one algorithm in .ffgen-verify.yaml: "
          f"accepted: [{{algorithm: KEY, rule: {rule.id}, reason: ...}}]")
    return EXIT_OK


def print_json(report, root: Path) -> None:
    payload = {
        "checkout": str(root),
        "algorithms": list(report.algorithms),
        "summary": {"errors": len(report.errors), "warnings": len(report.warnings),
                    "accepted": len(report.suppressed)},
        "findings": [f.as_dict() for f in report.findings],
    }
    print(json.dumps(payload, indent=2))


def print_github(report, root: Path) -> None:
    for f in report.findings:
        title = _gh_prop(f"{f.rule_id} {f.algorithm or 'checkout'}")
        body = _gh_data(f"{f.message}. Fix: {f.fix}")
        print(f"::{f.severity} file={_gh_prop(f.path)},line={f.line},title={title}::{body}")
    print(_summary(report))


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def print_text(report, root: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    groups: dict[str, list] = {}
    for f in report.findings:
        groups.setdefault(f.algorithm or "(checkout)", []).append(f)
    for name, findings in groups.items():
        table = Table(title=f"[bold]{name}[/]", title_justify="left", show_lines=True)
        table.add_column("rule", no_wrap=True)
        table.add_column("where / what / fix", overflow="fold")
        for f in findings:
            style = "red" if f.severity == "error" else "yellow"
            table.add_row(
                f"[{style}]{f.rule_id}\n{f.severity}[/]",
                f"[cyan]{f.location}[/]\n{f.message}\n[dim]fix: {f.fix}[/]",
            )
        console.print(table)
    console.print(_summary(report))


def _summary(report) -> str:
    n = len(report.algorithms)
    text = (f"ffgen verify: {len(report.errors)} error(s), {len(report.warnings)} warning(s) "
            f"in {n} algorithm{'s' if n != 1 else ''}")
    if report.suppressed:
        text += f" ({len(report.suppressed)} accepted in .ffgen-verify.yaml)"
    return text
