"""The record in `.ffgen/answers/<key>.yml`: written whole, read back exactly, bad ones refused."""

from dataclasses import replace

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ffgen.errors import RefusedError
from ffgen.store.records import (
    Record,
    RecordedDocs,
    RecordedEdit,
    RecordedFile,
    parse_record,
    stored_files,
)
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import CASES, ffgen, new, read_record_at, record_file

BASE = Record(
    key="my-algo",
    ffgen_version="0.1.0",
    contract="ONLINE_EXECUTION_CONTRACT",
    answers={"name": "my-algo", "acquisition": "generation"},
    files=(RecordedFile("src/a.py", "A = 1\n"),),
    created=("guidance/algorithms.md",),
    registry=(RecordedEdit("src/r.py", "my-algo -> A"),),
    docs=RecordedDocs("guidance/algorithms.md", "\n", "## my-algo"),
)


def _round_trip(record: Record) -> Record:
    """Write ``record`` as ffgen keeps it (YAML + base files) and read it back from them."""
    files = stored_files(record, "0.1.0")
    return parse_record(files[record.path], "r", files.get)


@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_pristine_text_reads_back_exactly(text):
    """The merge base must be byte-exact, whatever the file holds (tabs, trailing spaces, ...)."""
    record = replace(BASE, files=(RecordedFile("src/a.py", text),))
    assert _round_trip(record) == record


@pytest.mark.parametrize("text", ["0\x85", "a\r\nb\n", "x\u2028y\n", "tab\tend  \n", "\ufeffbom\n"])
def test_other_line_breaks_survive_the_record(text):
    """NEL, CR, U+2028 and a BOM come back as they were (the base stores exact text)."""
    record = replace(BASE, files=(RecordedFile("src/a.py", text, shared=True),))
    assert _round_trip(record) == record


def test_new_writes_a_record_of_every_created_file_and_edit(runner, sandbox):
    assert new(runner, sandbox, "my-algo", *CASES["grpo_structured_newcat"]).exit_code == 0
    record = read_record_at(sandbox, "my-algo")
    for f in record.files:
        assert (sandbox / f.path).read_text() == f.pristine
    assert "src/flow_factory/trainers/newcat/__init__.py" in record.created
    assert {e.path for e in record.registry} >= {
        "src/flow_factory/hparams/training_args/_registry.py",
        "src/flow_factory/trainers/registry.py",
    }
    assert record.answers["state"] == "structured" and record.answers["category"] == "newcat"


def _mutate(data, how):
    how(data)
    return yaml.safe_dump(data, sort_keys=False)


@pytest.mark.parametrize(
    ("how", "message"),
    [
        (lambda d: d.update(extra=1), "unknown key 'extra' in the record"),
        (lambda d: d["answers"].update(colour="red"), "unknown key 'colour' in answers"),
        (lambda d: d["answers"].update(acquisition=3), "answers.acquisition must be text"),
        (lambda d: d["files"][0].update(path="../outside.py"), "leaves the checkout"),
        (lambda d: d["files"][0].update(path="/etc/passwd"), "leaves the checkout"),
        (lambda d: d["created"].append("a/../../b"), "leaves the checkout"),
        (lambda d: d["files"][0].update(sha256="0" * 64), "lacks the pristine text of files"),
        (lambda d: d["files"][0].update(sha256="../x"), "must be a sha256"),
        (lambda d: d["files"][0].update(shared="yes"), "shared must be true or false"),
        (lambda d: d.update(format=1), "record format 1"),
        (lambda d: d["docs"].update(separator="x"), "docs.separator"),
        (lambda d: d.update(files="nope"), "files must be a list"),
    ],
)
def test_a_bad_record_is_refused_naming_the_field(how, message):
    files = stored_files(BASE, "0.1.0")
    data = yaml.safe_load(files[BASE.path])
    with pytest.raises(RefusedError, match="(r.yml: |.ffgen/base/).*") as info:
        parse_record(_mutate(data, how), "r.yml", files.get)
    assert message in info.value.message


@pytest.mark.parametrize("command", ["remove", "update", "list", "check"])
def test_every_lifecycle_command_refuses_a_record_with_a_bad_answer(runner, sandbox, command):
    assert new(runner, sandbox, "my-algo", *CASES["sft"]).exit_code == 0
    path = record_file(sandbox, "my-algo")
    path.write_text(path.read_text().replace("acquisition: dataset", "acquisition: telepathy"))
    before = snapshot(sandbox)
    args = [command, *(["my-algo"] if command in ("remove", "update") else [])]
    result = ffgen(runner, *args, "--checkout", str(sandbox))
    assert result.exit_code == 1
    assert ".ffgen/answers/my-algo.yml" in result.output and "telepathy" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert snapshot(sandbox) == before
