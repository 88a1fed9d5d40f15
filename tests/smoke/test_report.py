"""The comparison's reading of two runs: figures step by step, and the settings in which the two
examples differ (a reason for different figures that the table alone does not show)."""

from __future__ import annotations

from types import SimpleNamespace

from ffgen.smoke import report


def run(key: str, train: dict, losses: list[float]) -> SimpleNamespace:
    config = {"model": {"model_type": "sd3-5", "model_name_or_path": "/m"},
              "train": {"trainer_type": key, **train}, "log": {"run_name": key}}
    steps = tuple({"step": i, "time": 0.1, "figures": {"train/loss": loss, "train/grad_norm": 1.0}}
                  for i, loss in enumerate(losses))
    plan = SimpleNamespace(key=key, config=config, example=f"examples/{key}.yaml",
                           model_type="sd3-5", data_kind="prompts", overrides=())
    return SimpleNamespace(plan=plan, steps=steps, weights=None, error=None, returncode=0)


def test_equal_figures_with_equal_settings_are_equal_and_name_no_setting():
    a = run("mine", {"beta": 0.1, "clip_range": [-0.2, 0.2]}, [1.0, 0.5])
    b = run("grpo", {"beta": 0.1, "clip_range": [-0.2, 0.2]}, [1.0, 0.5])
    assert report.setting_differences(a, b) == []
    assert report.compare_verdict(a, b) is None
    assert report.as_json([a, b])["compare"]["verdict"] == "equal"


def test_different_figures_name_the_settings_the_examples_differ_in():
    a = run("mine", {"kl_beta": 0.0, "clip_range": [-0.2, 0.2], "seed": 1}, [1.0, 0.5])
    b = run("grpo", {"kl_beta": 0.01, "clip_range": 0.2, "kl_type": "v-based", "seed": 1},
            [1.0, 0.4])
    assert report.setting_differences(a, b) == [
        {"key": "train.clip_range", "a": [-0.2, 0.2], "b": 0.2},
        {"key": "train.kl_beta", "a": 0.0, "b": 0.01},
        {"key": "train.kl_type", "a": None, "b": "v-based"},
    ]  # trainer_type and the run's name are the algorithms' own, not settings
    verdict = report.compare_verdict(a, b)
    assert verdict.startswith("1 figures differ between mine and grpo, first loss at step 1")
    assert ("differ in 3 setting(s) (train.clip_range, train.kl_beta, train.kl_type): give "
            "both the same settings") in verdict
    assert report.as_json([a, b])["compare"]["settings_differ"][1]["key"] == "train.kl_beta"


def test_a_nested_setting_is_named_by_its_dotted_path():
    a = run("mine", {"teachers": {"main": {"path": "/t", "device": "cpu"}}}, [1.0])
    b = run("opd", {"teachers": {"main": {"path": "/t", "device": "cuda"}}}, [1.0])
    assert report.setting_differences(a, b) == [
        {"key": "train.teachers.main.device", "a": "cpu", "b": "cuda"}]


def test_settings_as_the_checkout_parsed_them_win_over_the_yaml_spelling():
    """The driver reports each run's parsed settings (defaults filled in, a scalar clip range
    widened to its pair): two spellings of one value are one setting, and a default one example
    leaves out is still compared."""
    a = run("mine", {"clip_range": 0.2}, [1.0, 0.5])
    b = run("grpo", {"clip_range": [-0.2, 0.2], "kl_beta": 0.0}, [1.0, 0.4])
    a.settings = {"train": {"trainer_type": "mine", "clip_range": [-0.2, 0.2], "kl_beta": 0.01}}
    b.settings = {"train": {"trainer_type": "grpo", "clip_range": [-0.2, 0.2], "kl_beta": 0.0}}
    assert report.setting_differences(a, b) == [{"key": "train.kl_beta", "a": 0.01, "b": 0.0}]
    b.settings = None  # a run that failed before its trainer was built: the configs, as spelled
    assert [d["key"] for d in report.setting_differences(a, b)] == [
        "train.clip_range", "train.kl_beta"]


def test_a_setting_only_one_algorithm_has_is_named_as_such(capsys):
    a = run("mine", {}, [1.0])
    b = run("grpo", {"kl_type": "v-based"}, [2.0])
    a.settings, b.settings = {"train": {}}, {"train": {"kl_type": "v-based"}}
    report.print_compare(a, b)
    assert "train.kl_type: (not a setting of mine) vs v-based\n" in capsys.readouterr().out
    assert ("1 setting(s) only one of them has (train.kl_type): where it has a neutral value"
            in report.compare_verdict(a, b))
    assert "give both the same settings" not in report.compare_verdict(a, b)
    # from the YAML alone (a run that failed early) an absent key may be a default: no claim
    a.settings = None
    assert report.setting_differences(a, b) == [{"key": "train.kl_type", "a": None,
                                                 "b": "v-based"}]
