"""Accepted exceptions: ``.ffgen-verify.yaml`` at the checkout root, one algorithm + rule each.

    # Findings this team has accepted; verify hides them and warns (FF003) when one goes stale.
    accepted:
      - algorithm: my-algo
        rule: FF305
        reason: extends GRPO until the shared replay helper lands
"""

from __future__ import annotations

import dataclasses

from ffgen.checkout.view import CheckoutView
from ffgen.errors import UsageError
from ffgen.verify.catalogue import BY_ID, finding
from ffgen.verify.model import Finding

EXCEPTIONS_FILE = ".ffgen-verify.yaml"


@dataclasses.dataclass(frozen=True, slots=True)
class Accepted:
    algorithm: str
    rule_id: str
    reason: str
    line: int

    def matches(self, f: Finding) -> bool:
        return f.algorithm == self.algorithm and f.rule_id == self.rule_id


def load_accepted(view: CheckoutView) -> tuple[Accepted, ...]:
    text = view.read(EXCEPTIONS_FILE)
    if text is None:
        return ()
    import yaml

    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UsageError(f"{EXCEPTIONS_FILE}: not valid YAML ({exc})") from exc
    if data is None:
        return ()
    entries = data.get("accepted") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f"{EXCEPTIONS_FILE}: expected `accepted:` with a list of entries")
    lines = _entry_lines(node)
    return tuple(_entry(e, lines[i] if i < len(lines) else 1) for i, e in enumerate(entries))


def _entry_lines(node: object) -> list[int]:
    for key, value in getattr(node, "value", []) or []:
        if getattr(key, "value", None) == "accepted":
            return [v.start_mark.line + 1 for v in getattr(value, "value", [])]
    return []


def _entry(e: object, line: int) -> Accepted:
    where = f"{EXCEPTIONS_FILE}:{line}"
    if not isinstance(e, dict) or not isinstance(e.get("algorithm"), str):
        raise UsageError(f"{where}: each entry needs `algorithm: <key>` and `rule: <FFxxx>`")
    rule_id = str(e.get("rule", ""))
    if rule_id not in BY_ID:
        raise UsageError(f"{where}: unknown rule {rule_id!r}; see `ffgen verify --explain ID`")
    reason = e.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise UsageError(f"{where}: entry for {e['algorithm']}/{rule_id} needs a `reason:`")
    return Accepted(e["algorithm"], rule_id, reason.strip(), line)


def apply_accepted(
    findings: list[Finding], accepted: tuple[Accepted, ...], algorithm: str | None
) -> tuple[list[Finding], list[Finding]]:
    """(kept findings + stale-entry warnings, suppressed findings)."""
    kept, hidden = [], []
    used: set[Accepted] = set()
    for f in findings:
        match = next((a for a in accepted if a.matches(f)), None)
        if match is None:
            kept.append(f)
        else:
            hidden.append(f)
            used.add(match)
    for a in accepted:
        if a not in used and algorithm in (None, a.algorithm):
            kept.append(finding(
                "FF003", EXCEPTIONS_FILE, a.line, a.algorithm,
                f"accepted {a.rule_id} for {a.algorithm!r} no longer matches any finding",
            ))
    return kept, hidden
