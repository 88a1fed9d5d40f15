"""Generated suites and examples for a real model type (``sd3-5``), not only the toy one.

A sandbox copy is given what a checkout with SD3.5 has: the real registry key ``sd3-5`` (with
the real adapter path, never loaded: the suites' fakes replace the model, and ``model_type`` is
not checked when arguments are parsed, in the real framework as in the sandbox) and SD3.5
example configs (the faithful fixture's: the real GRPO one and the SFT and offline-DPO ones).
``ffgen new ... --model-type sd3-5`` then writes one algorithm per family; their generated
suites run as children of the session's ``suite_server`` (``_suite_runner.py``) and must pass,
and each generated example must parse with the copy's ``Arguments.from_dict`` and load every
setting its base example's ``model:`` block needs with the base's value.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _checkout import FAMILY_FLAGS, copy_sandbox
from _render import REPO, family_context
from typer.testing import CliRunner

from ffgen.cli import app
from tests.example_loading import missing_model_settings

MODEL_TYPE = "sd3-5"
# The real model registry's entry for SD3.5 (key and adapter class path).
REAL_ENTRY = ("sd3-5", "flow_factory.models.stable_diffusion.sd3_5.SD3_5Adapter")
REGISTRY = "src/flow_factory/models/registry.py"
FIXTURE_EXAMPLES = REPO / "tests" / "fixtures" / "faithful_checkout" / "examples"
BASE_EXAMPLES = (
    "grpo/lora/sd3_5/hpsv3_2x8_medium.yaml",
    "sft/lora/sd3_5/default.yaml",
    "offline_dpo/lora/sd3_5/default.yaml",
)
NON_TOY_CASES = ("sft", "offline_dpo", "record", "grpo", "awm", "opd", "opd_multi_role", "dmd")
LOADER = Path(__file__).with_name("_load_examples.py")
# CPU time of one clean suite run, as for the toy suites (torch already imported).
CLEAN_RUN_CPU_SECONDS = 10.0


def _register_real_entry(root: Path) -> None:
    """Give the copy's model registry (its one ``str -> str`` dict) the real ``sd3-5`` entry in
    place of the sandbox's own (a tiny real transformer smoke builds)."""
    path = root / REGISTRY
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'^    "sd3-5": .*\n', "", text, flags=re.MULTILINE)
    opening = re.compile(r"^_\w+: [dD]ict\[str, str\] = \{\n", re.MULTILINE)
    assert len(opening.findall(text)) == 1, "the sandbox registry is not one str -> str dict"
    key, target = REAL_ENTRY
    path.write_text(opening.sub(lambda m: f'{m.group(0)}    "{key}": "{target}",\n', text),
                    encoding="utf-8")


def _copy_examples(root: Path) -> None:
    for rel in BASE_EXAMPLES:
        dest = root / "examples" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURE_EXAMPLES / rel, dest)


def _new(root: Path, name: str, case: str) -> None:
    args = ["new", name, "--checkout", str(root), "--yes", "--model-type", MODEL_TYPE,
            "--finetune-type", "lora", *FAMILY_FLAGS[case]]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> tuple[Path, dict]:
    """The sd3-5 copy with every case generated: (root, case -> render context)."""
    root = copy_sandbox(tmp_path_factory.mktemp("sd3_5") / "checkout")
    _register_real_entry(root)
    _copy_examples(root)
    contexts = {}
    for case in NON_TOY_CASES:
        name = f"gen-{case.replace('_', '-')}"
        _new(root, name, case)
        contexts[case] = family_context(case, name, model_type=MODEL_TYPE)
    return root, contexts


def _run(root: Path, script: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, str(script), *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_generated_suites_pass_for_sd3_5(checkout, suite_server):
    root, contexts = checkout
    jobs = [{"name": case, "tests": [ctx.args_test_path, ctx.test_path], "mutants": {}}
            for case, ctx in contexts.items()]
    results = suite_server.run_jobs(root, jobs, root.parent)
    failed = {case: outcome[""] for case, outcome in results.items()
              if (outcome[""]["exit"], outcome[""]["failed"]) != (0, [])}
    assert not failed, (failed, f"the runs' output: {root.parent / 'results.logs'}")
    slow = {case: outcome[""]["cpu_seconds"] for case, outcome in results.items()
            if outcome[""]["cpu_seconds"] >= CLEAN_RUN_CPU_SECONDS}
    assert not slow, slow


def _base(root: Path, ctx) -> str:
    """The example the generated one names as its start (its header comment)."""
    text = (root / ctx.example_path).read_text(encoding="utf-8")
    match = re.search(r"^# Model.* settings start from (\S+)\.$", text, re.MULTILINE)
    assert match, f"{ctx.example_path} names no base example"
    return match.group(1)


def test_generated_examples_load_the_model_settings_of_their_base(checkout):
    root, contexts = checkout
    pairs = {case: {"generated": str(root / ctx.example_path),
                    "base": str(root / _base(root, ctx))} for case, ctx in contexts.items()}
    spec, out = root.parent / "pairs.json", root.parent / "loaded.json"
    spec.write_text(json.dumps(pairs), encoding="utf-8")
    result = _run(root, LOADER, str(spec), str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = json.loads(out.read_text(encoding="utf-8"))
    for case, pair in pairs.items():
        assert "error" not in loaded[case], (case, loaded[case])
        block = yaml.safe_load(Path(pair["base"]).read_text(encoding="utf-8"))["model"]
        missing = missing_model_settings(block, loaded[case]["base"], loaded[case]["generated"])
        assert missing == {}, (case, pair)
    # The generation families start from the real GRPO config: its LoRA targets are carried.
    assert loaded["grpo"]["generated"]["target_modules"] == "default"
