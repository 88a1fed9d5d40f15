"""The process ``ffgen smoke`` starts in the checkout's environment: ``python driver.py PLAN``.

Needs only the standard library, torch, diffusers/transformers and the checkout's own
``flow_factory`` (its ``src`` comes first on ``PYTHONPATH``); ffgen itself is not imported.
It builds (or reuses) the tiny models, writes the tiny data, trains through the checkout's
config loader, trainer loader and ``BaseTrainer.start()``, and prints one JSON object per line
prefixed with :data:`PREFIX`: ``{"event": "settings", ...}`` once the trainer is built,
``{"event": "step", ...}`` per optimizer step, then ``{"event": "weights", ...}``, or
``{"event": "error", ...}`` when training raised.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import sys
import time
import traceback
from pathlib import Path
from typing import Any

PREFIX = "FFGEN-SMOKE "
# The config sections ``--compare`` sets side by side, and the attribute of the parsed
# ``Arguments`` that holds each.
SETTING_GROUPS = {"model": "model_args", "scheduler": "scheduler_args", "train": "training_args"}
PROMPTS = ("a red fox", "a blue whale", "a green tree", "a small house", "a tall tower",
           "an old car", "a white cat", "a dark lake")
_real_stdout = sys.stdout


def emit(event: str, **fields: Any) -> None:
    _real_stdout.write(PREFIX + json.dumps({"event": event, **fields}) + "\n")
    _real_stdout.flush()


# ---------------------------------------------------------------------------- data
def _is_sandbox() -> bool:
    import importlib.util

    return importlib.util.find_spec("flow_factory.sandbox_support") is not None


def _media(folder: Path, name: str, seed: int, resolution: int) -> str:
    """One target "image": 8 floats in the sandbox (its toy media), else a small PNG."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    folder.mkdir(parents=True, exist_ok=True)
    if _is_sandbox():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(torch.randn(8, generator=generator).tolist()))
    else:
        from PIL import Image

        pixels = torch.randint(0, 256, (resolution, resolution, 3), generator=generator)
        path = folder / f"{name}.png"
        Image.fromarray(pixels.to(torch.uint8).numpy()).save(path)
    return str(path)


def _record(index: int, prompt: str, supervision: dict, metadata: dict) -> dict:
    return {"schema_version": 2, "id": f"smoke-{index:03d}",
            "input": {"prompt": prompt, "media": []}, "supervision": supervision,
            "metadata": {"index": index, **metadata}}


def _field_value(annotation: str, index: int) -> Any:
    kinds = {"int": index, "float": 0.5 + index, "bool": index % 2 == 0, "str": f"smoke {index}"}
    return kinds.get(annotation.split("|")[0].strip(), f"smoke {index}")


def make_data(data: dict, seed: int, resolution: int) -> None:
    folder = Path(data["dir"])
    folder.mkdir(parents=True, exist_ok=True)
    kind, count = data["kind"], int(data["count"])
    prompts = [PROMPTS[i % len(PROMPTS)] for i in range(count)]
    if kind == "prompts":
        lines = [{"prompt": p} for p in prompts]
        (folder / "train.txt").write_text("".join(p + "\n" for p in prompts))
    else:
        lines = []
        for i, prompt in enumerate(prompts):
            media = lambda tag, j=i: [{"type": "image", "path": _media(  # noqa: E731
                folder / "media", f"{j:03d}{tag}", seed * 1000 + j * 2 + (tag == "_r"),
                resolution)}]
            if kind == "preference_pairs":
                sup = {"type": "preference", "chosen": {"media": media("_c")},
                       "rejected": {"media": media("_r")}}
            else:
                sup = {"type": "demonstration", "target": {"media": media("")}}
            fields = {name: _field_value(ann, i) for name, ann in data.get("fields", ())}
            lines.append(_record(i, prompt, sup, fields))
    (folder / "train.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


# ---------------------------------------------------------------------------- weights
def _walk(name: str, value: Any, out: dict[str, tuple[bool | None, Any]], seen: set[int],
          depth: int = 0) -> None:
    """Every tensor reachable from ``value``: module parameters with their ``requires_grad``
    (trainable or frozen), other tensors (snapshots: reference, teacher, EMA) with None.
    A pipeline is walked through its ``components``; containers two levels deep."""
    import torch
    from torch import nn

    if isinstance(value, nn.Module):
        for param_name, param in value.named_parameters():
            if id(param) not in seen:
                seen.add(id(param))
                out[f"{name}.{param_name}"] = (param.requires_grad, param)
    elif isinstance(value, torch.Tensor):
        if id(value) not in seen:
            seen.add(id(value))
            out[name] = (None, value)
    elif depth < 3:
        components = getattr(value, "components", None)
        items = (value.items() if isinstance(value, dict) else
                 enumerate(value) if isinstance(value, (list, tuple)) else
                 components.items() if isinstance(components, dict) else ())
        for key, item in items:
            _walk(f"{name}.{key}", item, out, seen, depth + 1)


def _tensors(trainer: Any) -> dict[str, tuple[bool | None, Any]]:
    """The adapter's tensors (its own attributes first), then the trainer's modules."""
    from torch import nn

    out: dict[str, tuple[bool | None, Any]] = {}
    seen: set[int] = set()
    for name, value in vars(trainer.adapter).items():
        _walk(name, value, out, seen)
    for name, value in vars(trainer).items():
        if isinstance(value, nn.Module):
            _walk(f"trainer.{name}", value, out, seen)
    return out


def _snapshot(trainer: Any) -> dict[str, tuple[bool | None, Any]]:
    return {n: (flag, t.detach().clone()) for n, (flag, t) in _tensors(trainer).items()}


def _group(name: str) -> str:
    """A snapshot tensor's group: its path without the per-tensor index."""
    return name.rsplit(".", 1)[0] if name.rsplit(".", 1)[-1].isdigit() else name


def weights_report(before: dict, trainer: Any) -> dict:
    import torch

    live = {n: t for n, (_, t) in _tensors(trainer).items()}
    moved = {name for name, (_, old) in before.items() if name in live and (
        live[name].shape != old.shape or not torch.equal(old, live[name].detach().to(old.device)))}
    trainable = [n for n, (flag, _) in before.items() if flag is True]
    frozen = [n for n, (flag, _) in before.items() if flag is False]
    others = [n for n, (flag, _) in before.items() if flag is None]
    return {
        "trainable": len(trainable),
        "trainable_moved": sum(n in moved for n in trainable),
        "frozen": len(frozen),
        "frozen_moved": sorted(n for n in frozen if n in moved)[:10],
        "snapshots": sorted({_group(n) for n in others}),
        "snapshots_moved": sorted({_group(n) for n in others if n in moved}),
    }


# ---------------------------------------------------------------------------- training
def _number(value: Any) -> float | None:
    try:
        number = float(value.detach().float().mean()) if hasattr(value, "detach") else float(value)
    except (TypeError, ValueError):
        return None
    return number


def _capture(trainer: Any) -> list[dict]:
    """Wrap the trainer's ``log_data``: each call with a loss or grad norm is one step."""
    steps: list[dict] = []
    original = trainer.log_data
    clock = {"last": time.perf_counter()}
    pending: dict[str, float] = {}  # figures logged before the step (rewards of the rollout)

    def log_data(data: Any, step: int, *args: Any, **kwargs: Any) -> Any:
        figures = {str(k): _number(v) for k, v in dict(data).items()}
        pending.update({k: v for k, v in figures.items() if v is not None})
        if any(k.endswith(("loss", "grad_norm")) for k in figures):
            now = time.perf_counter()
            row = {"step": int(step), "time": now - clock["last"], "figures": dict(pending)}
            clock["last"] = now
            pending.clear()
            steps.append(row)
            emit("step", **row)
        return original(data, step, *args, **kwargs)

    trainer.log_data = log_data
    return steps


def _load_trainer(config_path: str) -> Any:
    """The checkout's own path from a YAML file to a built trainer; then the settings it reads."""
    from flow_factory.hparams import Arguments
    from flow_factory.trainers.loader import load_trainer

    args = Arguments.load_from_yaml(config_path)
    trainer = load_trainer(args)
    groups = {section: getattr(args, attr, None) for section, attr in SETTING_GROUPS.items()}
    emit("settings", **{s: _plain(g) for s, g in groups.items() if dataclasses.is_dataclass(g)})
    return trainer


def _plain(value: Any, depth: int = 0) -> Any:
    """A parsed setting as JSON: the arguments classes fill in defaults and widen spellings (a
    scalar ``clip_range`` becomes its pair), so two examples are compared as their trainers read
    them, not as their YAML spells them."""
    if depth > 8:
        return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)
                 if not f.name.startswith("_")}
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, enum.Enum):
        return _plain(value.value, depth + 1)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def train(plan: dict) -> int:
    import torch

    if plan["device"] == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda: this interpreter's torch sees no CUDA device")
    seed = int(plan["seed"])
    torch.manual_seed(seed)
    trainer = _load_trainer(plan["config"])
    before = _snapshot(trainer)
    steps = _capture(trainer)
    sys.stdout = sys.stderr  # the trainer's own prints stay out of the JSON stream
    try:
        trainer.start()
    finally:
        sys.stdout = _real_stdout
    emit("weights", **weights_report(before, trainer))
    bad = [s for s in steps for v in s["figures"].values() if not math.isfinite(v)]
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    plan = json.loads(Path(argv[1]).read_text())
    sys.path.insert(0, plan["src"])
    try:
        import tiny_models

        for model in plan["models"]:
            tiny_models.build(model["type"], Path(model["dir"]), int(model["seed"]))
        make_data(plan["data"], int(plan["seed"]), int(plan["resolution"]))
        return train(plan)
    except BaseException as exc:  # noqa: BLE001 - reported as one line to ffgen, traceback here
        traceback.print_exc(file=sys.stderr)
        message = str(exc).strip().splitlines()
        emit("error", type=type(exc).__name__, message=message[-1] if message else "")
        return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
