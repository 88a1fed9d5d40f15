"""The tiny-model recipes build pipelines diffusers itself loads and runs, with no download; and
ffgen's own side of ``smoke`` never imports torch."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from ffgen.smoke import tiny_models
from ffgen.smoke.report import judge


def test_each_recipe_builds_a_pipeline_its_diffusers_class_loads_and_runs(tmp_path):
    script = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        sys.path.insert(0, {str(tiny_models.__file__.rsplit('/', 1)[0])!r})
        import diffusers, tiny_models
        out = {{}}
        for model_type in tiny_models.SUPPORTED:
            folder = tiny_models.build(model_type, Path({str(tmp_path)!r}) / model_type, seed=0)
            assert tiny_models.build(model_type, folder) == folder  # cached: no rebuild
            index = json.loads((folder / "model_index.json").read_text())
            pipe = getattr(diffusers, index["_class_name"]).from_pretrained(folder)
            images = pipe(prompt="a red fox", height=16, width=16, num_inference_steps=2,
                          guidance_scale=1.0, output_type="np").images
            out[model_type] = [index["_class_name"], list(images.shape)]
        print(json.dumps(out))
    """)
    env = {"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == (
        '{"sd3-5": ["StableDiffusion3Pipeline", [1, 16, 16, 3]], '
        '"flux1": ["FluxPipeline", [1, 16, 16, 3]]}'
    )
    sizes = {p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
             for p in tmp_path.iterdir()}
    assert all(size < 4_000_000 for size in sizes.values()), sizes


def test_ffgen_s_side_of_smoke_imports_no_torch():
    code = ("import sys, ffgen.smoke.command, ffgen.smoke.plan, ffgen.smoke.report, "
            "ffgen.smoke.tiny_models; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('torch', 'diffusers', 'transformers')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_judgements():
    assert judge(1.5, 1.5) == "equal"
    assert judge(1.0, 1.0 + 1e-9) == "within tolerance"
    assert judge(1.0, 1.1) == "different"
    assert judge(None, None) == "equal" and judge(None, 1.0) == "different"
