"""``ffgen check-templates``: the fast form passes on the real templates (CI runs it here), and a
broken template point makes it exit non-zero naming the point and the stage.

Broken points are made by wrapping ``ffgen.generate.render.render`` (the templates are never
edited); those
runs check a few points only (``legal_points`` patched) so they take seconds, not the full run.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import ffgen.quality.check_templates as ct
from ffgen.classify.rules import legal_classifications
from ffgen.cli import app
from ffgen.errors import RefusedError
from ffgen.generate import render
from ffgen.quality import gates, suites

TRAINER_HEADER = "class MyAlgoTrainer(BaseTrainer):\n"


def _invoke(*args: str):
    return CliRunner().invoke(app, ["check-templates", *args])


def _json(*args: str) -> tuple[int, dict]:
    result = _invoke("--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)


def _first_of(families: tuple[str, ...]) -> list:
    """The first legal point of each family, in that order."""
    points = ct.legal_points()
    return [next(c for c in points if c.family.value == f) for f in families]


def _only_points(monkeypatch, families: tuple[str, ...]) -> None:
    points = _first_of(families)
    monkeypatch.setattr(ct, "legal_points", lambda: points)


def _break_trainer(monkeypatch, family: str, edit) -> None:
    real = render.render

    def broken(template, ctx):
        text = real(template, ctx)
        if template == render.TRAINER_TEMPLATE and ctx.family == family:
            return edit(text)
        return text

    monkeypatch.setattr(render, "render", broken)


def test_fast_form_passes_every_stage_on_every_legal_point(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the run must leave the caller's tree alone
    code, payload = _json()
    assert code == 0, payload["message"]
    assert payload["ok"] is True and payload["first_failure"] is None
    assert payload["legal_points"] == len(list(legal_classifications())) > 100
    subset = set(payload["suite_points"])
    assert 6 <= len(subset) < 20
    for point in payload["points"]:
        stages = point["stages"]
        assert {s for s, v in stages.items() if s != "suite"} == set(ct.STAGES) - {"suite"}
        assert all(v == "passed" for s, v in stages.items() if s != "suite"), point
        assert stages["suite"] == ("passed" if point["id"] in subset else "not run"), point
    assert all(stage["skipped_reason"] is None for stage in payload["stages"].values())
    assert payload["illegal"]["count"] > 0 and payload["illegal"]["problems"] == []
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("stage", "edit"),
    [
        (
            "compile",
            lambda text: text.replace(TRAINER_HEADER, "class MyAlgoTrainer(BaseTrainer)\n"),
        ),
        (
            "verify",
            lambda text: text.replace(
                TRAINER_HEADER, TRAINER_HEADER + "    def start(self):\n        pass\n\n"
            ),
        ),
    ],
)
def test_a_broken_template_point_fails_naming_point_and_stage(monkeypatch, stage, edit):
    _only_points(monkeypatch, ("grpo", "sft"))
    _break_trainer(monkeypatch, "grpo", edit)
    code, payload = _json()
    assert code == 1
    first = payload["first_failure"]
    assert (first["point"], first["stage"]) == ("p000", stage)
    assert first["label"].startswith("grpo/")
    assert payload["message"].startswith("check-templates: FAILED: point p000 (grpo/")
    assert f"at stage {stage}:" in payload["message"]
    others = [p for p in payload["points"][1:] if p["failure"]]
    assert all(p["failure"]["stage"] not in ("compile", "verify") for p in others)

    if stage == "compile":  # the text form names the same point and stage (once is enough)
        text = _invoke()
        assert text.exit_code == 1
        assert "FAILED: point p000 (grpo/" in text.output and f"at stage {stage}:" in text.output


def test_a_failing_generated_suite_is_the_suite_stage_of_its_point(monkeypatch):
    """Ruff is reported skipped here, so the suites run whatever the templates' formatting."""
    _only_points(monkeypatch, ("sft", "grpo"))
    monkeypatch.setattr(gates, "ruff_command", lambda: None)
    real = render.render

    def with_failing_test(template, ctx):
        text = real(template, ctx)
        if template == render.TEST_TEMPLATE and ctx.family == "grpo":
            text += "\n\ndef test_injected_failure():\n    assert False\n"
        return text

    monkeypatch.setattr(render, "render", with_failing_test)
    code, payload = _json()
    assert code == 1
    sft, grpo = payload["points"]
    assert grpo["failure"]["stage"] == "suite"
    assert "test_injected_failure" in grpo["failure"]["detail"]
    assert "test_injected_failure" not in json.dumps(sft)
    assert set(payload["suite_points"]) == {"p000", "p001"}


def test_missing_tools_are_reported_as_skipped(monkeypatch):
    _only_points(monkeypatch, ("sft",))
    monkeypatch.setattr(gates, "ruff_command", lambda: None)
    monkeypatch.setattr(gates, "suite_skip_reason", lambda: "torch is not installed (test)")
    code, payload = _json()
    assert code == 0, payload["message"]
    assert "ruff is not installed" in payload["stages"]["ruff-format"]["skipped_reason"]
    assert payload["stages"]["ruff-check"]["skipped"] == 1
    assert payload["stages"]["suite"]["skipped_reason"] == "torch is not installed (test)"
    (point,) = payload["points"]
    assert point["stages"]["ruff-format"] == "skipped" and point["stages"]["suite"] == "skipped"
    assert point["stages"]["verify"] == "passed"


def test_every_illegal_combination_is_refused_with_one_line():
    legal = ct.legal_points()
    illegal = ct.check_illegal()
    # the full product of the answers' axes (finetune type included), minus the legal points
    product = 2 * 2 * 3 * 3 * 4 * 2 * 3 * 2
    assert illegal.count == product - len(legal)
    assert illegal.problems == ()


def test_a_refusal_without_a_reason_is_a_problem(monkeypatch):
    import ffgen.classify.rules

    real = ffgen.classify.rules.classify

    def terse(answers):
        if answers.acquisition.value == "dataset" and answers.feedback.value == "runtime_reward":
            raise RefusedError("no\ncontract")
        return real(answers)

    monkeypatch.setattr(ffgen.classify.rules, "classify", terse)
    problems = ct.check_illegal().problems
    assert problems and all("one-line reason" in p for _, p in problems)


def test_the_suite_subset_covers_every_family_and_axis_value():
    points = ct.legal_points()
    chosen = [points[i] for i in ct.suite_subset(points)]

    def values(cs, attr):
        return {getattr(c.answers, attr).value for c in cs}

    assert {c.family for c in chosen} == {c.family for c in points}
    for attr in ("dynamics", "state", "ownership", "finetune_type"):
        assert values(chosen, attr) == values(points, attr)
    assert len(chosen) <= len({c.family for c in points}) + 3


def test_bad_format_is_a_usage_error():
    result = _invoke("--format", "yaml")
    assert result.exit_code == 2
    assert "--format 'yaml'" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_full_runs_the_suite_on_every_point_and_the_fast_form_on_the_subset(monkeypatch):
    def sft(dynamics, state, finetune):
        return next(
            c
            for c in ct.legal_points()
            if c.family.value == "sft"
            and (c.answers.dynamics.value, c.answers.state.value) == (dynamics, state)
            and (c.answers.ownership.value, c.answers.finetune_type.value) == ("single", finetune)
        )

    # The third point adds no value the first two lack, so the fast form leaves it out.
    points = [
        sft("any", "legacy", "lora"),
        sft("sde", "structured", "full"),
        sft("sde", "legacy", "lora"),
    ]
    monkeypatch.setattr(ct, "legal_points", lambda: points)
    chosen: list[list[str]] = []

    class Recording:  # the suites stage, recording the points handed to it
        def __init__(self, *args):
            chosen.append([])

        def add(self, p):
            chosen[-1].append(p.id)

        def poll(self):
            pass

        finish = stop = poll

    monkeypatch.setattr(ct, "SuiteStage", Recording)
    monkeypatch.setattr(gates, "ruff_command", lambda: None)
    ct.run_check(full=False)
    ct.run_check(full=True)
    assert chosen == [["p000", "p001"], ["p000", "p001", "p002"]]


def test_plain_progress_prints_a_line_per_tenth(capsys):
    advance = ct.plain_progress("points", 20)
    for _ in range(20):
        advance(1)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"check-templates: points {n}/20" for n in range(2, 21, 2)]
    ct.plain_progress("suites", 0)(0)
    assert capsys.readouterr().err == ""


def test_text_form_off_a_terminal_shows_progress_as_plain_lines(monkeypatch):
    _only_points(monkeypatch, ("sft",))
    monkeypatch.setattr(gates, "ruff_command", lambda: None)
    monkeypatch.setattr(gates, "suite_skip_reason", lambda: "not in this test")
    result = _invoke()
    assert "check-templates: points 1/1" in result.stderr.splitlines()
    assert "\x1b[" not in result.stderr  # no terminal codes in a log


def test_a_suite_whose_process_dies_fails_its_point_and_only_its_point(monkeypatch):
    """Each suite runs in a process of its own: one that dies mid-run (no outcome written) is
    that point's suite failure, with how it ended; the other point's suite still passes."""
    _only_points(monkeypatch, ("sft", "grpo"))
    monkeypatch.setattr(gates, "ruff_command", lambda: None)
    real = render.render

    def with_dying_test(template, ctx):
        text = real(template, ctx)
        if template == render.TEST_TEMPLATE and ctx.family == "grpo":
            text += "\n\ndef test_dies():\n    import os\n\n    os._exit(3)\n"
        return text

    monkeypatch.setattr(render, "render", with_dying_test)
    code, payload = _json("--full")
    assert code == 1
    sft, grpo = payload["points"]
    assert grpo["failure"]["stage"] == "suite"
    assert "ended with status" in grpo["failure"]["detail"], grpo["failure"]
    assert sft["stages"]["suite"] == "passed"


def test_points_that_leave_the_same_files_share_one_suite_run(monkeypatch):
    """Two points that render the same files (every answer now changes the code, so the same
    classification twice) share one suite run, and a failure of it is reported on both; a point
    with other files gets its own run."""
    def awm(dynamics, finetune):
        return next(
            c for c in ct.legal_points()
            if c.family.value == "awm" and c.answers.dynamics.value == dynamics
            and (c.answers.state.value, c.answers.ownership.value) == ("legacy", "single")
            and c.answers.finetune_type.value == finetune
        )

    points = [awm("ode", "lora"), awm("ode", "lora"), awm("ode", "full")]
    monkeypatch.setattr(ct, "legal_points", lambda: points)
    monkeypatch.setattr(gates, "ruff_command", lambda: None)
    monkeypatch.setattr(gates, "suite_skip_reason", lambda: "")
    ran: list[str] = []

    class FailingRunner:  # the runner process, every suite it is sent failing
        def __init__(self, work, jobs):
            pass

        def send(self, item):
            ran.append(item["id"])

        def poll(self, wait=0.0):
            return []

        def close(self, finished):
            for pid in ran:
                finished(pid)
            return {"": "", **{pid: {"exit": 1, "failed": ["test_x"]} for pid in ran}}

        def stop(self):
            pass

    monkeypatch.setattr(suites, "SuiteRunner", FailingRunner)
    report = ct.run_check(full=True)
    digests = [p.files_digest for p in report.points]
    assert digests[0] == digests[1] != digests[2] and all(digests)
    assert sorted(ran) == ["p000", "p002"]
    details = [p.failure.detail for p in report.points]
    assert details[1] == "generated suite failed: test_x (the same files as p000)"
    assert details[0] == details[2] == "generated suite failed: test_x"
