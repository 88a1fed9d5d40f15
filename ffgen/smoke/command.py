"""``ffgen smoke KEY``: train an algorithm for two cycles on a tiny model, report, compare.

Stages: resolve the plan (read-only), write the run's config under ``.ffgen/cache/`` (the only
writes, all inside the checkout), start the driver in the checkout's interpreter, read its JSON
lines, judge. ffgen never imports torch here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

from ffgen.errors import EXIT_OK, UsageError
from ffgen.smoke import report
from ffgen.smoke.plan import CACHE_DIR, DATA_COUNT, RESOLUTION, Settings, SmokePlan, resolve

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.py"
PREFIX = "FFGEN-SMOKE "
DEVICES = ("cpu", "cuda")
EXIT_FAILED = 1
OWN_CACHES = {"TMPDIR": "tmp", "TORCHINDUCTOR_CACHE_DIR": "torchinductor",
              "TRITON_CACHE_DIR": "triton", "XDG_CACHE_HOME": "xdg", "MPLCONFIGDIR": "matplotlib"}


@dataclasses.dataclass(frozen=True, slots=True)
class Run:
    plan: SmokePlan
    steps: tuple[dict, ...]
    weights: dict | None
    error: str | None
    returncode: int
    settings: dict | None = None  # the compared sections as the checkout parsed them


def run_smoke(checkout: Path | None, key: str, *, compare: str | None, device: str,
              cycles: int, seed: int | None, python: str | None, fmt_json: bool) -> int:
    from ffgen.checkout.view import CheckoutView, find_root
    from ffgen.smoke.tiny_models import SUPPORTED

    if device not in DEVICES:
        raise UsageError(f"--device {device!r} is not valid; choose cpu or cuda")
    if cycles < 1:
        raise UsageError(f"--cycles {cycles} is not valid; give 1 or more")
    interpreter = python or sys.executable
    if not Path(interpreter).is_file():
        raise UsageError(f"--python {interpreter} does not exist; give the checkout's python")
    root = find_root(checkout)
    view = CheckoutView(root)
    settings = Settings(cycles=cycles, seed=seed, device=device)
    plans = [resolve(view, k, settings, SUPPORTED) for k in (key, *([compare] if compare else []))]
    if len(plans) == 2 and plans[0].model_type != plans[1].model_type:
        raise UsageError(
            f"--compare needs one model type: {key} trains {plans[0].model_type}, {compare} "
            f"{plans[1].model_type}; compare with an algorithm whose example uses "
            f"{plans[0].model_type}"
        )
    runs = []
    for plan in plans:
        if not fmt_json:
            report.print_plan(plan)
        runs.append(_execute(root, plan, settings, interpreter))
    if fmt_json:
        print(json.dumps(report.as_json(runs), indent=2))
    else:
        for run in runs:
            report.print_run(run)
        if len(runs) == 2:
            report.print_compare(*runs)
    verdicts = [report.verdict(r) for r in runs]
    if len(runs) == 2 and not any(verdicts):
        verdicts.append(report.compare_verdict(*runs))
    failure = next((v for v in verdicts if v), None)
    if failure:
        print(f"error: {failure}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _prepare(root: Path, plan: SmokePlan, settings: Settings) -> Path:
    """Write the config and the driver's plan under the checkout's cache folder."""
    import yaml

    cache = root / CACHE_DIR
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# ffgen smoke's tiny models and runs: never committed\n*\n")
    run_dir = root / plan.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    config = run_dir / "config.yaml"
    config.write_text(yaml.safe_dump(plan.config, sort_keys=False))
    seed = settings.seed if settings.seed is not None else 0
    models = []
    if plan.model_dir:
        models.append({"type": plan.model_type, "dir": str(root / plan.model_dir), "seed": seed})
    if plan.teacher_dir:
        models.append({"type": plan.model_type, "dir": str(root / plan.teacher_dir),
                       "seed": seed + 1})
    driver_plan = {
        "src": str(root / "src"), "config": str(config), "models": models, "seed": seed,
        "device": settings.device,
        "resolution": RESOLUTION,
        "data": {"dir": str(run_dir / "data"), "kind": plan.data_kind, "count": DATA_COUNT,
                 "fields": [list(f) for f in plan.record_fields]},
    }
    path = run_dir / "plan.json"
    path.write_text(json.dumps(driver_plan, indent=2))
    return path


def _execute(root: Path, plan: SmokePlan, settings: Settings, interpreter: str) -> Run:
    plan_path = _prepare(root, plan, settings)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("HF_HUB_OFFLINE", "1")  # the tiny models are local; never reach a hub
    # Nothing written outside the checkout, and the installed libraries' own bytecode still
    # read: no bytecode is written at all (a PYTHONPYCACHEPREFIX would instead make Python
    # ignore torch's, diffusers' and transformers' compiled modules and compile them from source
    # on every run, about 10 s of CPU); any Hugging Face cache goes under the checkout's cache.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONPYCACHEPREFIX", None)
    env["HF_HOME"] = str(root / CACHE_DIR / "huggingface")
    # What the libraries write for themselves (torch's inductor and triton caches, temporary
    # files, matplotlib's config, XDG caches) goes under the checkout's cache too, never to
    # $TMPDIR or $HOME: smoke writes nothing outside the checkout.
    for name, folder in OWN_CACHES.items():
        (root / CACHE_DIR / folder).mkdir(parents=True, exist_ok=True)
        env[name] = str(root / CACHE_DIR / folder)
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    if settings.device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    log = root / plan.run_dir / "driver.log"
    with open(log, "w") as err:
        proc = subprocess.run([interpreter, str(DRIVER), str(plan_path)], cwd=root, env=env,
                              stdout=subprocess.PIPE, stderr=err, text=True)
    events = [json.loads(line[len(PREFIX):]) for line in proc.stdout.splitlines()
              if line.startswith(PREFIX)]
    steps = tuple(e for e in events if e["event"] == "step")
    weights = next((e for e in events if e["event"] == "weights"), None)
    settings = next(({k: v for k, v in e.items() if k != "event"} for e in events
                     if e["event"] == "settings"), None)
    error = next((f"{e['type']}: {e['message']}" for e in events if e["event"] == "error"), None)
    if error is None and proc.returncode and weights is None:
        error = f"the driver exited {proc.returncode} (see {log.relative_to(root)})"
    return Run(plan, steps, weights, error, proc.returncode, settings)
