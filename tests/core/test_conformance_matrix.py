"""Every legal classification's rendered files fit the faithful fixture's real interface.

The faithful fixture (``tests/fixtures/faithful_checkout``) carries the real members and
signatures of ``BaseTrainer``, ``BaseAdapter``, the argument classes and the shared helpers
(held to the real interface by ``tests/sandbox/test_api_fidelity.py``). ``build_plan`` runs the
conformance check on the checkout as it would be, so a plan that is built at all passes it.
Removing a member the templates use from a copy of the fixture must make the check refuse,
naming that member.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ffgen.checkout.facts import read_facts
from ffgen.checkout.hints import read_hints
from ffgen.checkout.view import CheckoutView
from ffgen.classify.names import parse_name
from ffgen.classify.rules import legal_classifications
from ffgen.errors import RefusedError
from ffgen.generate.context import build_context
from ffgen.generate.plan import build_plan

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "faithful_checkout"
ADAPTER = "src/flow_factory/models/abc.py"
TRAINER = "src/flow_factory/trainers/abc.py"


def _plan(view: CheckoutView, c, *, hints=True):
    names = parse_name("my-algo")
    ctx = build_context(names, c, read_hints(view) if hints else None)
    return ctx, build_plan(view, read_facts(view), names, c, ctx)


def test_every_legal_classification_conforms_to_the_faithful_fixture():
    view = CheckoutView(FIXTURE)
    seen = set()
    for c in legal_classifications(model_types=("sd3-5",)):
        a = c.answers
        try:
            _plan(view, c)
        except RefusedError as exc:
            pytest.fail(f"{c.family.value}/{a.ownership.value}/{a.state.value}/"
                        f"{a.finetune_type.value}: {exc}")
        seen.add((c.family.value, a.ownership.value, a.state.value, a.finetune_type.value))
    families = {s[0] for s in seen}
    assert families == {"sft", "offline_dpo", "record", "grpo", "awm", "opd", "dmd"}
    assert {s[1] for s in seen} == {"single", "snapshots", "multi_role"}
    assert {s[2] for s in seen} == {"legacy", "structured"}
    assert {s[3] for s in seen} == {"lora", "full"}


def test_distillation_conforms_with_and_without_the_checkout_teacher_helper():
    view = CheckoutView(FIXTURE)
    opd = [c for c in legal_classifications(model_types=("sd3-5",)) if c.family.value == "opd"]
    loaders = set()
    for c in opd:
        for hints in (True, False):
            ctx, _ = _plan(view, c, hints=hints)
            loaders.add(ctx.teacher_loader)
    assert loaders == {"helper", "inline"}


def _copy_without(tmp_path: Path, rel: str, method: str) -> CheckoutView:
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURE, root)
    path = root / rel
    text = path.read_text(encoding="utf-8")
    # Rename the definition so every use of the real name has nothing to resolve to.
    renamed, count = re.subn(rf"\bdef {method}\(", f"def _removed_{method}(", text)
    assert count == 1, f"{method} is not defined once in {rel}"
    path.write_text(renamed, encoding="utf-8")
    return CheckoutView(root)


def _one(family: str, **answers):
    for c in legal_classifications(model_types=("sd3-5",)):
        a = c.answers
        if c.family.value == family and all(
            getattr(a, k).value == v for k, v in answers.items()
        ):
            return c
    raise AssertionError(f"no legal {family} classification with {answers}")


@pytest.mark.parametrize(
    ("rel", "method", "family", "answers"),
    [
        (ADAPTER, "get_train_step_indices", "grpo", {}),
        (ADAPTER, "get_replay_step", "grpo", {}),
        (ADAPTER, "add_named_parameters", "opd", {"finetune_type": "full"}),
        (ADAPTER, "use_component_variant", "dmd", {"ownership": "multi_role"}),
        (TRAINER, "_register_named_parameter_runtime_child", "opd", {}),
        (TRAINER, "_apply_optimizer_step", "sft", {}),
        (TRAINER, "_sample_timesteps", "awm", {}),
    ],
)
def test_a_member_the_templates_use_missing_from_the_checkout_is_refused(
    tmp_path, rel, method, family, answers
):
    view = _copy_without(tmp_path, rel, method)
    with pytest.raises(RefusedError) as refused:
        _plan(view, _one(family, **answers))
    message = str(refused.value)
    assert f".{method}`" in message and "differs from ffgen's templates" in message
    assert "\n" not in message


def _example_yaml(view: CheckoutView, c) -> dict:
    import yaml

    ctx, plan = _plan(view, c)
    change = next(ch for ch in plan.changes if ch.path == ctx.example_path)
    return yaml.safe_load(change.new)


def test_example_starts_from_the_checkouts_own_example_of_that_model_type():
    """The fixture's real SD3.5 GRPO config gives the model, resolution, dataset and reward."""
    view = CheckoutView(FIXTURE)
    example = _example_yaml(view, _one("grpo", finetune_type="lora"))
    assert example["model"]["model_name_or_path"] == "stabilityai/stable-diffusion-3.5-medium"
    # The model settings the real loader needs (its target_modules default, all, fails LoRA).
    assert example["model"]["target_modules"] == "default"
    assert example["train"]["resolution"] == 512
    dataset = example["data"]["datasets"][0]
    assert dataset["name"] == "aesthetics" and dataset["train"]["max_dataset_size"] == 8192
    assert example["rewards"][0]["reward_model"] == "hpsv3_service"
    assert not any("<" in str(v) for v in example["model"].values())  # no placeholder path


def test_example_takes_no_dataset_from_an_example_of_another_acquisition_kind():
    """An offline family keeps its own dataset unless an example of its supervision kind exists;
    the model settings still come from the model type's example."""
    import yaml

    view = CheckoutView(FIXTURE)
    ctx, plan = _plan(view, _one("sft"))
    example = yaml.safe_load(next(ch.new for ch in plan.changes if ch.path == ctx.example_path))
    sft_examples = [p for p in view.files("examples/sft/**/*.yaml")]
    assert sft_examples, "the fixture has an SFT example of its own"
    own = yaml.safe_load(view.read(sft_examples[0]))
    assert example["data"]["datasets"][0]["dataset_dir"] == own["data"]["datasets"][0][
        "dataset_dir"
    ]
    assert "rewards" not in example


def _plan_with_trainer_edit(monkeypatch, c, pattern: str, replacement: str):
    """Plan ``c`` against the fixture with one regex edit of the rendered trainer."""
    from ffgen.generate import render

    real = render.render

    def edited(template, ctx):
        text = real(template, ctx)
        if template == render.TRAINER_TEMPLATE:
            text, count = re.subn(pattern, replacement, text)
            assert count == 1, f"{pattern!r} is not in the rendered trainer once"
        return text

    monkeypatch.setattr(render, "render", edited)
    return _plan(CheckoutView(FIXTURE), c)


@pytest.mark.parametrize("state", ["legacy", "structured"])
def test_a_latent_state_passed_to_a_mapping_reduction_is_refused(monkeypatch, state):
    """Cause 2: DMD's squared-error helper handed the adapter's reduction a LatentState where
    the real ``reduce_flow_matching_objective_values(values: Mapping[str, torch.Tensor])``
    takes a plain mapping. The helper's ``adapter: Any`` is typed by its only caller."""
    c = _one("dmd", state=state)
    with pytest.raises(RefusedError) as refused:
        _plan_with_trainer_edit(
            monkeypatch, c, r"values = (\{name: .*\})\n", r"values = LatentState(\1)\n"
        )
    message = str(refused.value)
    assert "`BaseAdapter.reduce_flow_matching_objective_values` expects " in message
    assert "`values: Mapping[str, torch.Tensor]`, got LatentState" in message
    assert "this checkout's LatentState is not a Mapping" in message
    assert "\n" not in message


def test_detach_on_a_latent_state_is_refused(monkeypatch):
    """Cause 5: OPD detached the teacher's target with ``LatentState.detach()``; the target (a
    ``LatentState`` the trainer's own ``_target`` returns) has no such member."""
    with pytest.raises(RefusedError) as refused:
        _plan_with_trainer_edit(
            monkeypatch,
            _one("opd"),
            r"_detached\((self\._target\(.*\), replay\))\)",
            r"\1.detach()",
        )
    message = str(refused.value)
    assert "`LatentState.detach` is not defined" in message
    assert "this checkout's LatentState has active_masks, component_names, components" in message
    assert message.startswith("src/flow_factory/trainers/distillation/my_algo.py: ")


def test_the_fixture_annotates_what_the_type_checks_read():
    """The type rules read the fixture's annotations: they must be there (and resolvable)."""
    import ast

    def annotations(rel: str, cls: str, method: str) -> tuple[list[str], str]:
        tree = ast.parse((FIXTURE / rel).read_text(encoding="utf-8"))
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        fn = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == method)
        args = [ast.unparse(a.annotation) for a in fn.args.args[1:] + fn.args.kwonlyargs]
        return args, ast.unparse(fn.returns)

    assert annotations(ADAPTER, "BaseAdapter", "reduce_flow_matching_objective_values") == (
        ["Mapping[str, torch.Tensor]", "Optional[LatentState]"],
        "torch.Tensor",
    )
    assert annotations(ADAPTER, "BaseAdapter", "get_terminal_state") == (
        ["StackedSampleBatch"],
        "LatentState",
    )
    forward = ast.parse((FIXTURE / "src/flow_factory/trainers/forward_process.py").read_text())
    fn = next(n for n in forward.body if isinstance(n, ast.FunctionDef))
    assert ast.unparse(fn.returns) == "LatentState"
