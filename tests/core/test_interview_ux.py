"""The interview as a person meets it, and answers an agent can discover.

The terminal is faked where rich reads it (``input()``): every reply goes through the same
prompt code ``ffgen new`` uses on a real terminal.
"""

from __future__ import annotations

import builtins
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from ffgen.checkout.facts import read_facts
from ffgen.checkout.view import CheckoutView
from ffgen.classify import interview
from ffgen.classify.model import Answers, Ownership, SupervisionKind
from ffgen.classify.rules import QUESTION_ORDER, fill_forced, legal_classifications
from ffgen.errors import UsageError
from ffgen.generate.new import NewRequest, gather_answers
from ffgen.skill import render_skill
from tests.core.test_interactive import Terminal
from tests.lifecycle._lifecycle import ffgen

FAITHFUL = Path(__file__).parents[1] / "fixtures" / "faithful_checkout"


class FakeTerminal:
    """Replies typed at rich's prompts, in order; what the console printed, as text."""

    def __init__(self, monkeypatch, replies):
        self.replies = list(replies)
        self.console = Console(file=io.StringIO(), width=120, color_system=None)
        monkeypatch.setattr(builtins, "input", self._input)

    def _input(self, prompt=""):
        if not self.replies:
            raise EOFError
        return self.replies.pop(0)

    @property
    def screen(self) -> str:
        return self.console.file.getvalue()


def request(**flags) -> NewRequest:
    return NewRequest(name="my-algo", class_name=None, checkout=None, flags=flags,
                      interactive=True, dry_run=True, force=False, fmt="text")


def test_enter_at_a_question_without_default_asks_again(monkeypatch, sandbox):
    # acquisition: Enter (no default), then dataset; supervision: Enter, then demonstrations;
    # dynamics, state, ownership, finetune_type: Enter takes each default.
    term = FakeTerminal(monkeypatch, ["", "dataset", "", "", "demonstrations", "", "", ""])
    sources: interview.Sources = {}
    facts = read_facts(CheckoutView(sandbox))
    a = gather_answers(request(), facts, term.console, None, sources)
    assert a.acquisition.value == "dataset" and a.supervision.kind is SupervisionKind.DEMONSTRATIONS
    assert a.ownership is Ownership.SINGLE and a.model_type == "toy"
    assert term.screen.count("acquisition has no default") == 1
    assert term.screen.count("supervision has no default") == 1
    assert term.replies == []
    assert sources["acquisition"] == sources["supervision"] == "given"
    assert sources["feedback"] == sources["paradigm"] == "forced"
    assert sources["dynamics"] == sources["state"] == sources["finetune_type"] == "defaulted"
    assert sources["model_type"] == "forced"


def test_end_of_input_at_a_question_is_a_usage_error(monkeypatch, sandbox):
    term = FakeTerminal(monkeypatch, [])
    facts = read_facts(CheckoutView(sandbox))
    with pytest.raises(UsageError, match="no answer for acquisition"):
        gather_answers(request(), facts, term.console)


def test_enter_on_a_real_terminal_is_asked_again(sandbox):
    term = Terminal(["new", "my-algo", "--checkout", str(sandbox), "--dry-run",
                     "--dynamics", "any", "--finetune-type", "lora"], cwd=sandbox)
    term.expect("acquisition")
    term.send("")
    term.expect("acquisition has no default")
    term.send("dataset")
    term.expect("supervision")
    term.send("")
    term.expect("supervision has no default")
    term.send("demonstrations")
    for question in ("state", "ownership"):
        term.expect(question)
        term.send("")
    assert term.wait() == 0, term.buffer
    assert "Traceback" not in term.buffer and "skipping model_type = toy" in term.buffer


def test_a_question_with_one_possible_answer_is_skipped_with_the_reason():
    said, asked = [], []

    def ask(question, default):
        asked.append(question.prop)
        return ""

    start = Answers(acquisition=interview.QUESTIONS["acquisition"].parse("dataset"),
                    supervision=interview.QUESTIONS["supervision"].parse("preference_pairs"))
    interview.interview(start, ("toy",), ask, said.append)
    assert "model_type" not in asked and "ownership" not in asked
    assert any(s.startswith("skipping model_type = toy (the only model type") for s in said)
    assert any(s.startswith("skipping ownership = snapshots (") for s in said)


def _possible(answers: list[Answers], a: Answers, prop: str) -> set[object]:
    props = (*QUESTION_ORDER, "finetune_type")
    return {
        getattr(full, prop)
        for full in answers
        if all(getattr(a, p) in (None, getattr(full, p)) for p in props)
    }


def test_every_question_the_interview_asks_has_two_possible_answers():
    """Walk every path of the interview: an open question never has a single legal answer
    (forced_value would have to fill it, and the interview skip it with the reason)."""
    legal = [c.answers for c in legal_classifications()]
    props = (*QUESTION_ORDER, "finetune_type")
    pending, seen = [(Answers(), 0)], 0
    while pending:
        a, i = pending.pop()
        a, _ = fill_forced(a)
        if i == len(props):
            continue
        prop = props[i]
        if getattr(a, prop) is not None:
            pending.append((a, i + 1))
            continue
        possible = _possible(legal, a, prop)
        assert len(possible) >= 2, (prop, a, possible)
        pending += [(a.with_(**{prop: v}), i + 1) for v in possible]
        seen += 1
    assert seen > 50


def test_a_missing_model_type_lists_the_checkout_s_model_types(runner, tmp_path):
    root = shutil.copytree(FAITHFUL, tmp_path / "checkout")
    result = ffgen(runner, "new", "my-algo", "--checkout", str(root), "--yes", "--dry-run",
                   "--acquisition", "dataset", "--supervision", "demonstrations")
    assert result.exit_code == 2
    line = result.stderr.strip()
    model_types = read_facts(CheckoutView(root)).model_types
    assert len(model_types) > 5 and all(m in line for m in model_types)
    assert line.startswith("error: missing --model-type")


def test_the_skill_says_how_to_list_the_model_types():
    text = " ".join(render_skill().split())
    assert "run step 2 without it (the `error:` line lists them" in text


def _answers_of(result) -> dict[str, dict[str, str]]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["answers"]


def test_new_json_gives_each_resolved_answer_and_its_source(runner, sandbox):
    result = ffgen(runner, "new", "my-algo", "--checkout", str(sandbox), "--yes", "--dry-run",
                   "--format", "json", "--acquisition", "generation", "--feedback",
                   "runtime_reward", "--paradigm", "coupled")
    answers = _answers_of(result)
    assert answers["paradigm"] == {"value": "coupled", "source": "given"}
    assert answers["dynamics"] == {"value": "sde", "source": "forced"}
    assert answers["supervision"] == {"value": "prompts", "source": "forced"}
    assert answers["model_type"] == {"value": "toy", "source": "forced"}
    assert answers["state"] == {"value": "legacy", "source": "defaulted"}
    assert answers["category"] == {"value": "rl", "source": "defaulted"}
    assert "roles" not in answers


def test_a_replayed_record_s_answers_are_given(runner, sandbox):
    flags = ("--yes", "--acquisition", "dataset", "--supervision", "demonstrations")
    assert ffgen(runner, "new", "my-algo", "--checkout", str(sandbox), *flags).exit_code == 0
    record = sandbox / ".ffgen/answers/my-algo.yml"
    result = ffgen(runner, "new", "other-algo", "--checkout", str(sandbox), "--answers",
                   str(record), "--dry-run", "--format", "json")
    answers = _answers_of(result)
    assert {v["source"] for v in answers.values()} == {"given"}
    assert answers["feedback"]["value"] == "none"


def test_sources_follow_the_non_interactive_completion():
    sources: interview.Sources = {}
    given = interview.from_flags({"acquisition": "generation", "feedback": "none"})
    a, _ = interview.complete_non_interactive(replace(given), ("toy",), sources)
    assert sources == {
        "acquisition": "given", "feedback": "given", "paradigm": "forced",
        "supervision": "forced", "ownership": "forced", "dynamics": "defaulted",
        "state": "defaulted", "finetune_type": "defaulted", "model_type": "forced",
    }  # fmt: skip
    assert a.paradigm.value == "distillation"
