"""``ffgen verify``: the command body the CLI wraps (stdlib-only imports at module level).

rich, yaml and the rule engine are imported inside the functions so ``ffgen --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FORMATS = ("text", "json", "github")
FIX_FORMATS = ("text", "json")
EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2


def verify_cmd(
    checkout: Path | None,
    algorithm: str | None,
    fmt: str,
    explain: str | None,
    *,
    fix: bool = False,
    dry_run: bool = False,
) -> int:
    """Print the report (or a rule's rationale) and return the exit code: 0 / 1 / 2."""
    problem = _flag_problem(fmt, explain, fix, dry_run)
    if problem:
        return _fail(problem)
    if explain is not None:
        return explain_rule(explain, fmt)
    if fix:
        return fix_cmd(checkout, algorithm, fmt, dry_run)
    from ffgen.checkout.view import CheckoutView, find_root
    from ffgen.errors import FfgenError
    from ffgen.verify.engine import run_verify

    try:
        root = find_root(checkout)
        _settle(root)
        report = run_verify(CheckoutView(root), algorithm=algorithm)
    except FfgenError as exc:
        return _fail(exc.message)
    {"text": print_text, "json": print_json, "github": print_github}[fmt](report, root)
    return EXIT_FINDINGS if report.errors else EXIT_OK


def _settle(root: Path) -> None:
    """Never report on a tree a killed ``new`` left half-written. Its journal (and its temporary
    siblings) can only be in the journal's folder: a checkout without that folder has nothing to
    settle, nor the writer's import to pay."""
    from ffgen.write import JOURNAL_PATH

    if (root / JOURNAL_PATH).parent.is_dir():
        from ffgen.write.journal import settle_before_reading

        settle_before_reading(root)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_CANNOT_RUN


def _flag_problem(fmt: str, explain: str | None, fix: bool, dry_run: bool) -> str:
    """The first bad flag combination, as one line naming the fix ("" when the flags are fine)."""
    if dry_run and not fix:
        return "--dry-run only applies to --fix; add --fix or drop --dry-run"
    if fix and explain is not None:
        return "--explain and --fix do not combine; run them separately"
    if explain is None and fmt not in FORMATS:
        return f"--format {fmt!r} is not one of {', '.join(FORMATS)}"
    if explain is not None and fmt not in ("text", "json"):
        return f"--explain prints text or json, not {fmt!r}; use --format text or --format json"
    if fix and fmt not in FIX_FORMATS:
        return f"--fix prints text or json, not {fmt!r}; use --format text or --format json"
    return ""


def fix_cmd(checkout: Path | None, algorithm: str | None, fmt: str, dry_run: bool) -> int:
    """``--fix``: repair the mechanical findings (or show the diffs); the exit code is what
    verify returns for the checkout as it is afterwards (as it would be, with --dry-run)."""
    from ffgen.checkout.view import CheckoutView, find_root
    from ffgen.errors import FfgenError
    from ffgen.verify.fix import plan_fixes
    from ffgen.write.apply import apply_plan
    from ffgen.write.journal import holding

    try:
        root = find_root(checkout)
        with holding(root, writes=not dry_run):  # the lock from the first read to the write
            result = plan_fixes(CheckoutView(root), algorithm=algorithm)
            if not dry_run and result.plan.writes:
                apply_plan(root, result.plan)
    except FfgenError as exc:
        return _fail(exc.message)
    (print_fix_json if fmt == "json" else print_fix_text)(result, root, dry_run)
    return EXIT_FINDINGS if result.after.errors else EXIT_OK


def print_fix_json(result, root: Path, dry_run: bool) -> None:
    payload = {
        "checkout": str(root),
        "dry_run": dry_run,
        "fixed": [x.as_dict() for x in result.fixed],
        "left": [x.as_dict() for x in result.left],
        "files": [{"path": c.path, "status": c.status.value, "diff": c.diff()}
                  for c in result.plan.changes],
        "summary": {"fixed": len(result.fixed), "left": len(result.left),
                    "errors": len(result.after.errors), "warnings": len(result.after.warnings),
                    "files": len(result.plan.changes)},
    }
    print(json.dumps(payload, indent=2))


def print_fix_text(result, root: Path, dry_run: bool) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True)
    for x in result.fixed:
        f = x.finding
        console.print(f"[green]fixed[/] {f.rule_id} {escape(f.algorithm or '(checkout)')}: "
                      f"{escape(x.what)} [dim]({escape(x.path)})[/]")
    for x in result.left:
        f = x.finding
        style = "red" if f.severity == "error" else "yellow"
        console.print(f"[{style}]left[/]  {f.rule_id} {escape(f.algorithm or '(checkout)')} "
                      f"[cyan]{escape(f.location)}[/]: {escape(f.message)}\n"
                      f"      [dim]why: {escape(x.reason)}[/]")
    if dry_run:
        from ffgen.output import print_diff

        for change in result.plan.changes:
            print_diff(console, change.diff())
    files = len(result.plan.changes)
    verb = "would change" if dry_run else "changed"
    console.print(f"ffgen verify --fix: {len(result.fixed)} fixed, {len(result.left)} left; "
                  f"{files} file(s) {verb}; {len(result.after.errors)} error(s) and "
                  f"{len(result.after.warnings)} warning(s) remain")


def explain_rule(rule_id: str, fmt: str = "text") -> int:
    from ffgen.verify.catalogue import BY_ID, SANCTIONED_EXTENSIONS

    if rule_id.strip().lower() == "all":
        return list_rules(fmt)
    rule = BY_ID.get(rule_id.strip().upper())
    if rule is None:
        return _fail(f"unknown rule {rule_id!r}; known: {', '.join(sorted(BY_ID))} (or all)")
    sanctioned = SANCTIONED_EXTENSIONS if rule.id == "FF305" else {}
    if fmt == "json":
        print(json.dumps({
            "rule_id": rule.id, "severity": rule.severity, "title": rule.title,
            "rationale": rule.rationale, "fix": rule.fix,
            "sanctioned": [{"class": c, "module": m} for c, m in sanctioned.items()],
        }, indent=2))
        return EXIT_OK
    print(f"{rule.id} [{rule.severity}] {rule.title}\n")
    print(rule.rationale)
    if rule.id == "FF305":
        allowed = ", ".join(f"{c} from {p}" for c, p in SANCTIONED_EXTENSIONS.items())
        print(f"\nSanctioned: {allowed}.")
    print(f"\nFix: {rule.fix}")
    print("Accept for one algorithm in .ffgen-verify.yaml: "
          f"accepted: [{{algorithm: KEY, rule: {rule.id}, reason: ...}}]")
    return EXIT_OK


def list_rules(fmt: str) -> int:
    """``--explain all``: every rule, one line each (id, severity, title), or as JSON."""
    from ffgen.verify.catalogue import RULES

    if fmt == "json":
        rows = [{"rule_id": r.id, "severity": r.severity, "title": r.title} for r in RULES]
        print(json.dumps({"rules": rows}, indent=2))
        return EXIT_OK
    for r in RULES:
        print(f"{r.id} [{r.severity}] {r.title}")
    print(f"\n{len(RULES)} rules; ffgen verify --explain ID prints one rule's rationale and fix.")
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
    if not report.findings:  # the clean case, CI's usual one: no table, so no rich to import
        print(_summary(report))
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    groups: dict[str, list] = {}
    for f in report.findings:
        groups.setdefault(f.algorithm or "(checkout)", []).append(f)
    for name, findings in groups.items():
        # escaped: keys, paths and messages are the checkout's (a registry key `[/x]`)
        table = Table(title=f"[bold]{escape(name)}[/]", title_justify="left", show_lines=True)
        table.add_column("rule", no_wrap=True)
        table.add_column("where / what / fix", overflow="fold")
        for f in findings:
            style = "red" if f.severity == "error" else "yellow"
            table.add_row(
                f"[{style}]{f.rule_id}\n{f.severity}[/]",
                f"[cyan]{escape(f.location)}[/]\n{escape(f.message)}\n[dim]fix: {escape(f.fix)}[/]",
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
