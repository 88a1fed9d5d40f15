"""Records a user is happy to commit: readable YAML, about 10 KB per algorithm all told, the
merge bases compressed beside it (the checklist's once), old inline records still loading."""

from __future__ import annotations

import base64
import json
import lzma
import shutil

import yaml

from ffgen.store import record_store
from tests.helpers import snapshot
from tests.lifecycle._lifecycle import CASES, ffgen, new, read_record_at, record_file

KEY = "margin-dpo"
CHECKLIST = "tests/trainers/algorithm_checklist.py"
# What "about 10 KB per algorithm" allows: measured 12.6 KB for an offline DPO (its test file
# and trainer grew with the objective checks and the one-switch reference forwards), the
# shared checklist not counted (stored once); a little room above that, so real growth still
# shows here.
MAX_PER_ALGORITHM = 13_000


def _per_algorithm_bytes(root, key: str) -> int:
    own = [record_file(root, key), root / record_store.pack_path(key)]
    return sum(path.stat().st_size for path in own)


def _blobs(root) -> list[str]:
    return sorted(p.name for p in (root / record_store.SHARED_DIR).glob("*"))


def test_the_record_is_small_readable_yaml(runner, sandbox):
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    text = record_file(sandbox, KEY).read_text()
    assert len(text) < 3000 and "pristine:" not in text and "|" not in text
    data = yaml.safe_load(text)
    assert data["format"] == 3 and data["answers"]["class_name"] == "MarginDPO"
    assert all(set(f) <= {"path", "sha256", "shared"} for f in data["files"])
    assert _per_algorithm_bytes(sandbox, KEY) <= MAX_PER_ALGORITHM
    # the base decodes to exactly the files as written
    record = read_record_at(sandbox, KEY)
    assert all((sandbox / f.path).read_text() == f.pristine for f in record.files)


def test_the_shared_checklist_base_is_stored_once_and_goes_with_the_last(runner, sandbox):
    before = snapshot(sandbox)
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    assert new(runner, sandbox, "my-sft", *CASES["sft"]).exit_code == 0
    assert len(_blobs(sandbox)) == 1
    assert (sandbox / record_store.ATTRIBUTES).read_text() == record_store.ATTRIBUTES_TEXT
    assert ffgen(runner, "remove", "my-sft", "--checkout", str(sandbox)).exit_code == 0
    assert len(_blobs(sandbox)) == 1  # margin-dpo still names it
    assert ffgen(runner, "remove", KEY, "--checkout", str(sandbox)).exit_code == 0
    assert snapshot(sandbox) == before and not (sandbox / ".ffgen").exists()


def _as_format_2(root, key: str) -> None:
    """Rewrite the record as an ffgen of format 2 wrote it: every text inline, no base files."""
    record = read_record_at(root, key)
    path = record_file(root, key)
    data = yaml.safe_load(path.read_text())
    data["format"] = 2
    for entry in data["files"]:
        entry.pop("shared", None)
        entry["pristine"] = record.file(entry["path"]).pristine
    data["docs"] = {"path": record.docs.path, "separator": record.docs.separator,
                    "section": record.docs.section}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    shutil.rmtree(root / record_store.BASE_DIR)


def test_an_old_inline_record_still_works_and_migrates_on_the_next_write(runner, sandbox):
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    written = snapshot(sandbox)
    _as_format_2(sandbox, KEY)
    listed = ffgen(runner, "list", "--checkout", str(sandbox))
    assert listed.exit_code == 0 and "unchanged" in listed.stdout
    assert ffgen(runner, "check", "--checkout", str(sandbox)).exit_code == 0
    assert read_record_at(sandbox, KEY).file(CHECKLIST).shared  # format 2's one shared file
    again = new(runner, sandbox, KEY, *CASES["offline_dpo"])
    assert again.exit_code == 0, again.output  # a migration, not a conflict
    assert snapshot(sandbox) == written  # format 3, as a fresh `new` writes it


def test_update_migrates_an_old_record_and_remove_takes_one_out(runner, sandbox):
    before = snapshot(sandbox)
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    written = snapshot(sandbox)
    _as_format_2(sandbox, KEY)
    assert ffgen(runner, "update", KEY, "--checkout", str(sandbox)).exit_code == 0
    assert snapshot(sandbox) == written
    _as_format_2(sandbox, KEY)
    assert ffgen(runner, "remove", KEY, "--checkout", str(sandbox)).exit_code == 0
    assert snapshot(sandbox) == before


def test_a_missing_or_damaged_base_is_one_line_naming_it(runner, sandbox):
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    pack = sandbox / record_store.pack_path(KEY)
    pack.write_text("not a base\n")
    damaged = ffgen(runner, "update", KEY, "--checkout", str(sandbox))
    assert damaged.exit_code == 1 and record_store.pack_path(KEY) in damaged.output
    assert "damaged" in damaged.output and len(damaged.output.strip().splitlines()) == 1
    pack.unlink()
    missing = ffgen(runner, "check", "--checkout", str(sandbox))  # (list shows it broken)
    assert missing.exit_code == 1 and "is missing" in missing.output


def _as_older_ffgen_wrote_it(path) -> None:
    """Re-write a base file as ffgen did before shared bases took zlib: xz at preset 6 with its
    default dictionary, whatever the base."""
    texts = record_store.decode(path.read_text(), str(path))
    data = json.dumps(texts, sort_keys=True, ensure_ascii=False).encode("utf-8")
    xz = base64.b85encode(lzma.compress(data, preset=6)).decode()
    path.write_text("".join(xz[i : i + 100] + "\n" for i in range(0, len(xz), 100)))


def _bases(root) -> list:
    return sorted((root / record_store.BASE_DIR).rglob("*.b85"))


def test_bases_an_older_ffgen_wrote_still_read_and_stay_as_they_are(runner, sandbox):
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    bases = _bases(sandbox)
    assert len(bases) == 2  # the algorithm's own base and the shared checklist's
    for path in bases:
        _as_older_ffgen_wrote_it(path)
    old = snapshot(sandbox)
    record = read_record_at(sandbox, KEY)
    assert all((sandbox / f.path).read_text() == f.pristine for f in record.files)
    listed = ffgen(runner, "list", "--checkout", str(sandbox))
    assert listed.exit_code == 0 and "unchanged" in listed.stdout
    again = new(runner, sandbox, KEY, *CASES["offline_dpo"])
    assert again.exit_code == 0, again.output
    assert snapshot(sandbox) == old  # the same texts: an xz base is not rewritten
    pack = sandbox / record_store.pack_path(KEY)
    pack.write_text(pack.read_text()[:-40] + "\n")  # a truncated xz stream
    damaged = ffgen(runner, "update", KEY, "--checkout", str(sandbox))
    assert damaged.exit_code == 1 and "damaged" in damaged.output
    assert len(damaged.output.strip().splitlines()) == 1


def test_answers_replay_from_a_copied_record_without_its_base(runner, sandbox, tmp_path):
    assert new(runner, sandbox, KEY, *CASES["offline_dpo"]).exit_code == 0
    copied = tmp_path / "answers.yml"
    copied.write_text(record_file(sandbox, KEY).read_text())
    other = tmp_path / "other"
    shutil.copytree(sandbox, other)
    assert ffgen(runner, "remove", KEY, "--checkout", str(other)).exit_code == 0
    replayed = ffgen(runner, "new", KEY, "--checkout", str(other), "--answers", str(copied))
    assert replayed.exit_code == 0, replayed.output
    assert snapshot(other) == snapshot(sandbox)
