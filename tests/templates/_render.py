"""Build render contexts for every legal classification and render the algorithm templates."""

from __future__ import annotations

from pathlib import Path

from ffgen.classify.model import (
    Acquisition,
    Answers,
    Dynamics,
    Feedback,
    FinetuneType,
    Ownership,
    Paradigm,
    State,
    Supervision,
    SupervisionKind,
)
from ffgen.classify.names import parse_name
from ffgen.classify.rules import classify, legal_classifications
from ffgen.generate import render
from ffgen.generate.context import RenderContext, build_context

REPO = Path(__file__).resolve().parents[2]

TEMPLATES = {
    "args": render.ARGS_TEMPLATE,
    "trainer": render.TRAINER_TEMPLATE,
    "example": render.EXAMPLE_TEMPLATE,
    "test": render.TEST_TEMPLATE,
    "docs": render.DOCS_TEMPLATE,
}

# One representative answer set per family (the toy model, LoRA).
FAMILY_ANSWERS: dict[str, dict[str, object]] = {
    "sft": dict(acquisition="dataset", feedback="none", paradigm="decoupled",
                supervision="demonstrations", ownership="single"),
    "offline_dpo": dict(acquisition="dataset", feedback="none", paradigm="decoupled",
                        supervision="preference_pairs", ownership="snapshots"),
    "record": dict(acquisition="dataset", feedback="none", paradigm="decoupled",
                   supervision="record:CaptionRecord", ownership="single"),
    # A record whose label carries its direction: the KTO-like objective against a reference.
    "kto": dict(acquisition="dataset", feedback="none", paradigm="decoupled",
                supervision="record:Judged(label:bool)", ownership="snapshots",
                direction="label"),
    "grpo": dict(acquisition="generation", feedback="runtime_reward", paradigm="coupled",
                 dynamics="sde", supervision="prompts", ownership="snapshots"),
    "awm": dict(acquisition="generation", feedback="runtime_reward", paradigm="decoupled",
                supervision="prompts", ownership="snapshots"),
    "opd": dict(acquisition="generation", feedback="none", paradigm="distillation",
                supervision="prompts", ownership="snapshots"),
    # A single-objective family with several live roles: each steps through the coordinator.
    "sft_multi_role": dict(acquisition="dataset", feedback="none", paradigm="decoupled",
                           supervision="demonstrations", ownership="multi_role",
                           roles=("policy", "critic")),
    # Distillation with two live roles: the dmd family (generator + flow-matched critic).
    "opd_multi_role": dict(acquisition="generation", feedback="none", paradigm="distillation",
                           supervision="prompts", ownership="multi_role",
                           roles=("student", "critic")),
    "dmd": dict(acquisition="generation", feedback="none", paradigm="distillation",
                supervision="prompts", ownership="multi_role",
                roles=("generator", "fake_score"), role_cadence=(("fake_score", 3),)),
}


def make_context(
    name: str,
    *,
    acquisition: str,
    feedback: str,
    paradigm: str,
    supervision: str,
    ownership: str,
    dynamics: str = "any",
    state: str = "legacy",
    roles: tuple[str, ...] = (),
    role_cadence: tuple[tuple[str, int], ...] = (),
    model_type: str = "toy",
    finetune_type: str = "lora",
    direction: str | None = None,
) -> RenderContext:
    """Classify one answer set (raising ``FfgenError`` when illegal) and build its context."""
    answers = Answers(
        acquisition=Acquisition(acquisition),
        feedback=Feedback(feedback),
        paradigm=Paradigm(paradigm),
        dynamics=Dynamics(dynamics),
        supervision=Supervision.parse(supervision),
        state=State(state),
        ownership=Ownership(ownership),
        roles=tuple(roles),
        role_cadence=tuple(role_cadence),
        model_type=model_type,
        finetune_type=FinetuneType(finetune_type),
        direction=direction,
    )
    return build_context(parse_name(name), classify(answers))


def family_context(family: str, name: str | None = None, **overrides: object) -> RenderContext:
    answers = {**FAMILY_ANSWERS[family], **overrides}
    return make_context(name or f"gen-{family.replace('_', '-')}", **answers)


def legal_contexts(model_types: tuple[str, ...] = ("toy", "sd3-5")) -> list[RenderContext]:
    """Every legal classification (all axes) as a render context."""
    names = parse_name("my-algo")
    return [build_context(names, c) for c in legal_classifications(model_types)]


def render_all(ctx: RenderContext) -> dict[str, str]:
    """Render the five algorithm templates; keys as in ``TEMPLATES``."""
    return {role: render.render(template, ctx) for role, template in TEMPLATES.items()}


__all__ = [
    "FAMILY_ANSWERS",
    "REPO",
    "SupervisionKind",
    "TEMPLATES",
    "family_context",
    "legal_contexts",
    "make_context",
    "render_all",
]
