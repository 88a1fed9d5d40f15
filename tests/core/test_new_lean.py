"""What keeps ``ffgen new`` fast stays in place: piped, it never loads rich, Jinja (the
templates ship compiled), hashlib (OpenSSL's start-up; ffgen.digests) or tempfile; without
``--like`` or ``--extends`` it never loads their package; the cyclic collector is off only
while it runs."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import ffgen.generate.new as new_module
from ffgen.generate.new import NewRequest, run_new

REPO = Path(__file__).resolve().parents[2]
SFT = {"acquisition": "dataset", "supervision": "demonstrations", "model_type": "toy"}

# Runs the ``ffgen`` command in a fresh interpreter, then says which modules it loaded (however
# the command ends: ``sys.exit``, or ``os._exit`` without tearing the interpreter down).
CHILD = """
import json, os, sys
def report(code):
    watched = ("rich", "jinja2", "hashlib", "tempfile", "ffgen.generate.like")
    loaded = [m for m in watched if m in sys.modules]
    print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr, flush=True)
leave = os._exit
os._exit = lambda code: (report(code), leave(code))
from ffgen.entry import main
try:
    main()
except SystemExit as exc:
    report(exc.code)
"""


def _loaded(*args: str) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False)
    return json.loads(done.stderr.strip().splitlines()[-1]), done.stdout


def test_piped_new_loads_none_of_what_it_does_not_need(sandbox):
    args = ["new", "my-sft", "--checkout", str(sandbox), "--yes", "--model-type", "toy",
            "--acquisition", "dataset", "--supervision", "demonstrations"]
    result, out = _loaded(*args)
    assert result == {"code": 0, "loaded": []}
    assert "file(s) written under" in out
    again, _ = _loaded("new", "my-copy", "--like", "my-sft", "--checkout", str(sandbox),
                       "--yes", "--format", "json")
    assert again == {"code": 0, "loaded": ["ffgen.generate.like"]}


def _request(sandbox: Path) -> NewRequest:
    return NewRequest(name="my-sft", class_name=None, checkout=sandbox, flags=SFT,
                      interactive=False, dry_run=True, force=False, fmt="json")


def test_the_collector_is_off_while_new_runs_and_as_it_was_after(sandbox, monkeypatch, capsys):
    seen = []
    prepare = new_module.prepare_new

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return prepare(*args, **kwargs)

    monkeypatch.setattr(new_module, "prepare_new", watched)
    assert gc.isenabled()
    assert run_new(_request(sandbox)) == 0
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        assert run_new(_request(sandbox)) == 0
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()
    capsys.readouterr()


def test_what_new_allocated_is_not_left_young_for_the_next_collection(sandbox, capsys):
    """The objects of a run are old when the collector comes back: its next collection (of the
    young generation) walks a few, not everything the run made (tens of thousands of objects,
    tens of milliseconds)."""
    young: list[int] = []

    def on_collect(phase: str, info: dict) -> None:
        if phase == "start" and not young:
            young.append(len(gc.get_objects(generation=info["generation"])))

    run_new(_request(sandbox))  # imports and caches settle: the second run is the one measured
    gc.collect()
    gc.callbacks.append(on_collect)
    try:
        assert run_new(_request(sandbox)) == 0
        kept = []
        for _ in range(10 * gc.get_threshold()[0]):  # allocations, until a collection runs
            kept.append([])
            if young:
                break
    finally:
        gc.callbacks.remove(on_collect)
    capsys.readouterr()
    assert young and young[0] < 5_000, young
