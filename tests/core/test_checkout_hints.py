"""Generated examples start from the checkout's closest example of the same kind."""

import functools
from dataclasses import replace
from pathlib import Path

import yaml

from ffgen.checkout.hints import read_hints
from ffgen.checkout.view import CheckoutView
from ffgen.classify.names import parse_name
from ffgen.classify.rules import legal_classifications
from ffgen.cli import app
from ffgen.generate import render
from ffgen.generate.context import RenderContext, build_context
from tests.example_loading import (
    DATA_DECIDED,
    REAL_MIXED_PRECISION,
    REAL_MODEL_DEFAULTS,
    missing_model_settings,
    missing_section_settings,
    needed_model_keys,
    real_fields,
    real_model_args,
)
from tests.helpers import SPECS


def _new(runner, root, name, family):
    args = ["new", name, "--checkout", str(root), "--yes", "--model-type", "toy", *SPECS[family]]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output


def _dataset(root, module):
    data = yaml.safe_load(next((root / "examples" / module).rglob("default.yaml")).read_text())
    return data["data"]["datasets"][0]["dataset_dir"]


def test_a_generated_record_example_is_never_taken_for_a_prompt_dataset(runner, sandbox):
    """A generated dataset algorithm's example names its own trainer_type; only its record says
    it trains on records, so a later generation algorithm must not start from its dataset."""
    _new(runner, sandbox, "my-records", "record")
    _new(runner, sandbox, "my-grpo", "grpo")
    _new(runner, sandbox, "my-sft", "sft")
    assert _dataset(sandbox, "my_grpo") == "dataset/toy_prompts"
    assert _dataset(sandbox, "my_sft") == _dataset(sandbox, "sft")
    assert _dataset(sandbox, "my_records") != _dataset(sandbox, "my_grpo")


# --- generated examples carry the settings their base needs (faithful fixture, real defaults) ---

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "faithful_checkout"
MODEL_ARGS = ("flow_factory.hparams.model_args", "ModelArguments")
SCHEDULER_ARGS = ("flow_factory.hparams.scheduler_args", "SchedulerArguments")


@functools.cache
def _generated_examples() -> tuple[tuple[RenderContext, dict, dict], ...]:
    """(context, generated example, base example) for every legal classification of every model
    type the fixture has examples of, rendered with the fixture's hints (one per set of answers
    the example depends on: the state representation is not one)."""
    view = CheckoutView(FIXTURE)
    hints = read_hints(view)
    model_types = tuple(sorted({e.model_type for e in hints.examples}))
    names = parse_name("my-algo")
    found, bases = {}, {}
    for c in legal_classifications(model_types=model_types):
        ctx = build_context(names, c, hints)
        shape = replace(ctx, state="")
        if shape not in found:
            if ctx.base_example not in bases:
                bases[ctx.base_example] = _load(view.read(ctx.base_example))
            generated = _load(render.render(render.EXAMPLE_TEMPLATE, ctx))
            found[shape] = (ctx, generated, bases[ctx.base_example])
    return tuple(found.values())


def _load(text: str) -> dict:
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _not_carried(generated: dict, base: dict) -> dict[str, dict]:
    """Per section, the base settings the generated example loads differently (real loader)."""
    model = real_model_args(base["model"])
    found = {"model": missing_model_settings(base["model"], model,
                                             real_model_args(generated["model"]))}
    precision = "mixed_precision"
    found["top"] = missing_section_settings({precision: base.get(precision, REAL_MIXED_PRECISION)},
                                            {precision: generated.get(precision,
                                                                      REAL_MIXED_PRECISION)},
                                            {precision})
    # Scheduler keys the real class does not define are model settings (e.g. Wan's flow_shift).
    scheduler = base.get("scheduler") or {}
    found["scheduler"] = missing_section_settings(
        scheduler, generated["scheduler"], set(scheduler) - real_fields(*SCHEDULER_ARGS))
    data = base.get("data") or {}
    if generated["data"]["datasets"][0] == (data.get("datasets") or [None])[0]:
        found["data"] = missing_section_settings(data, generated["data"],
                                                 set(data) - DATA_DECIDED)
    return {section: missing for section, missing in found.items() if missing}


def test_the_real_model_defaults_cover_exactly_the_real_model_fields():
    assert set(REAL_MODEL_DEFAULTS) == real_fields(*MODEL_ARGS)


def test_every_generated_example_loads_the_model_settings_of_its_base():
    checked: set[str] = set()
    count = 0
    for ctx, generated, base in _generated_examples():
        where = (ctx.family, ctx.ownership, ctx.finetune_type, ctx.model_type, ctx.base_example)
        assert _not_carried(generated, base) == {}, where
        if ctx.finetune_type == "lora":  # never the loader's "all": LoRA injection fails on it
            assert real_model_args(generated["model"])["target_modules"] != "all", where
        # Only keys the real class defines, or the base's own extras, are written.
        extras = set(base["model"]) - set(REAL_MODEL_DEFAULTS)
        assert set(generated["model"]) <= set(REAL_MODEL_DEFAULTS) | extras, where
        model = real_model_args(base["model"])
        checked |= needed_model_keys(base["model"], model, ctx.finetune_type)
        checked |= set(base.get("scheduler", {})) - real_fields(*SCHEDULER_ARGS)
        count += 1
    assert count > 50
    # The real configs' settings are among those checked (a LoRA model's target_modules, the
    # SD3.5 precision policy, Wan's scheduler shift).
    assert {"target_modules", "frozen_parameters_dtype", "lora_rank", "lora_alpha",
            "flow_shift", "model_name_or_path"} <= checked


def _grpo_on_sd3_5() -> tuple[dict, dict]:
    for ctx, generated, base in _generated_examples():
        if (ctx.family, ctx.model_type, ctx.finetune_type) == ("grpo", "sd3-5", "lora"):
            return generated, base
    raise AssertionError("no LoRA GRPO example on sd3-5")


def test_a_dropped_or_changed_model_setting_is_found():
    generated, base = _grpo_on_sd3_5()
    assert base["model"]["target_modules"] == "default"
    dropped = {**generated, "model": {k: v for k, v in generated["model"].items()
                                      if k != "target_modules"}}
    assert _not_carried(dropped, base) == {"model": {"target_modules": ("default", "all")}}
    changed = {**generated, "model": {**generated["model"], "lora_alpha": 16}}
    assert _not_carried(changed, base) == {"model": {"lora_alpha": (64, 16)}}
    # bf16 and bfloat16 load as the same dtype: a spelling is no difference.
    spelled = {**generated, "model": {**generated["model"],
                                      "trainable_parameters_dtype": "bfloat16"}}
    assert _not_carried(spelled, base) == {}


def test_lora_settings_carry_between_lora_finetunes_only():
    """A LoRA example keeps its base's rank and leaves its unset alpha unset (the loader then
    gives both 2 * rank); a full finetune writes no LoRA settings at all."""
    for ctx, generated, base in _generated_examples():
        if ctx.model_type != "sd3-5" or ctx.family != "sft":
            continue
        assert base["model"] == {"model_type": "sd3-5", "finetune_type": "lora", "lora_rank": 8}
        lora_keys = {k: v for k, v in generated["model"].items() if k.startswith("lora_")}
        assert lora_keys == ({"lora_rank": 8} if ctx.finetune_type == "lora" else {}), ctx
