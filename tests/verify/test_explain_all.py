"""`ffgen verify --explain all` lists every rule of the catalogue, new ones included."""

import json

from typer.testing import CliRunner

from ffgen.cli import app
from ffgen.verify.catalogue import RULES


def test_explain_all_lists_every_rule_in_text_and_json():
    text = CliRunner().invoke(app, ["verify", "--explain", "all"])
    assert text.exit_code == 0
    lines = [line for line in text.stdout.splitlines() if line.startswith("FF")]
    assert [line.split()[0] for line in lines] == [r.id for r in RULES]
    assert any(line.startswith("FF708 [error]") for line in lines)
    data = CliRunner().invoke(app, ["verify", "--explain", "all", "--format", "json"])
    assert data.exit_code == 0
    ids = [row["rule_id"] for row in json.loads(data.stdout)["rules"]]
    assert ids == [r.id for r in RULES] and {"FF701", "FF705"} <= set(ids)


def test_an_unknown_rule_names_all_as_the_way_to_see_them():
    result = CliRunner().invoke(app, ["verify", "--explain", "FF999"])
    assert result.exit_code != 0
    assert "(or all)" in result.stderr
