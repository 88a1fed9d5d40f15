"""verify_cmd: formats, exit codes, --explain, and the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ffgen.verify.catalogue import RULES
from ffgen.verify.command import verify_cmd
from tests.verify.conftest import FAITHFUL, TRAINERS

SANDBOX = Path(__file__).resolve().parents[2] / "templates" / "sandbox"


def _seed_start_override(checkout) -> None:
    checkout.edit(f"{TRAINERS}/rl/dpo.py", "    def optimize(",
                  "    def start(self):\n        pass\n\n    def optimize(")


def test_clean_text_exit_0(capsys):
    assert verify_cmd(FAITHFUL, None, "text", None) == 0
    assert "0 error(s)" in capsys.readouterr().out


def test_text_groups_by_algorithm(checkout, capsys):
    _seed_start_override(checkout)
    assert verify_cmd(checkout.root, None, "text", None) == 1
    out = capsys.readouterr().out
    assert "dpo" in out and "FF301" in out and "fix:" in out and "1 error(s)" in out


def test_json_is_machine_readable(checkout, capsys):
    _seed_start_override(checkout)
    assert verify_cmd(checkout.root, None, "json", None) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["errors"] == 1
    (f,) = [f for f in payload["findings"] if f["severity"] == "error"]
    assert f["rule_id"] == "FF301" and f["algorithm"] == "dpo"
    assert f["path"] == f"{TRAINERS}/rl/dpo.py" and f["line"] == checkout.line(f["path"], "start")
    assert len(payload["algorithms"]) == 14


def test_github_annotations(checkout, capsys):
    _seed_start_override(checkout)
    assert verify_cmd(checkout.root, "dpo", "github", None) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"::error file={TRAINERS}/rl/dpo.py,line=")
    assert "title=FF301 dpo::" in first


def test_warnings_do_not_fail(checkout, capsys):
    checkout.edit("examples/nft/lora/sd3_5/default.yaml", "optimizers:\n", "x_optimizers:\n")
    assert verify_cmd(checkout.root, None, "json", None) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"] == {"errors": 0, "warnings": 2, "accepted": 0}  # + OPD's FF302
    assert sorted(f["rule_id"] for f in payload["findings"]) == ["FF302", "FF507"]


@pytest.mark.parametrize("rule", [r.id for r in RULES])
def test_explain_every_rule(rule, capsys):
    assert verify_cmd(None, None, "text", rule) == 0
    out = capsys.readouterr().out
    assert out.startswith(rule) and "Fix:" in out


def test_explain_unknown(capsys):
    assert verify_cmd(None, None, "text", "FF999") == 2
    err = capsys.readouterr().err
    assert "unknown rule" in err
    known = err.split("known: ")[1].split(" (or all)")[0].split(", ")
    assert known == sorted(known) and "FF604" in known  # in order, to find one by eye


def test_not_a_checkout_exit_2(tmp_path, capsys):
    assert verify_cmd(tmp_path, None, "text", None) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Flow-Factory checkout" in err


def test_unknown_algorithm_exit_2(capsys):
    assert verify_cmd(FAITHFUL, "nope", "text", None) == 2
    assert "not registered" in capsys.readouterr().err


def test_bad_format_exit_2(capsys):
    assert verify_cmd(FAITHFUL, None, "xml", None) == 2


def test_unreadable_registry_exit_2(checkout, capsys):
    checkout.edit(f"{TRAINERS}/registry.py", "_TRAINER_REGISTRY: Dict[str, str] = {",
                  "_TRAINER_REGISTRY: Dict[str, str] = dict(**{")
    checkout.edit(f"{TRAINERS}/registry.py", '}\n\n\ndef register', '})\n\n\ndef register')
    assert verify_cmd(checkout.root, None, "text", None) == 2
    assert "_TRAINER_REGISTRY" in capsys.readouterr().err


def test_sandbox_has_no_errors(capsys):
    code = verify_cmd(SANDBOX, None, "json", None)
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["errors"] == 0, payload["findings"]
    assert code == 0
    assert {"sft", "offline-dpo"} <= set(payload["algorithms"])


def test_docs_list_every_rule():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "verify.md").read_text()
    missing = [r.id for r in RULES if f"`{r.id}`" not in docs]
    assert not missing
