"""Tables and verdicts of ``ffgen smoke`` (plain text: read in terminals and CI logs alike)."""

from __future__ import annotations

import math
import statistics
from typing import Any

# Equal: the same float. Within tolerance: |a - b| <= ATOL + RTOL * |b| (float noise of a
# different summation order). Anything else: different.
RTOL, ATOL = 1e-5, 1e-7


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def print_plan(plan) -> None:
    print(f"smoke {plan.key}: {plan.example} (model type {plan.model_type}, "
          f"{plan.acquisition}, data: {plan.data_kind})")
    print(f"  overrides ({len(plan.overrides)}):")
    for o in plan.overrides:
        print(f"    {o.key}: {_short(o.old)} -> {_short(o.new)}")


def headline(step: dict) -> dict[str, float | None]:
    """The figures of one step the table shows: loss, reward (where any), grad norm."""
    figures = step["figures"]

    def pick(*suffixes: str) -> float | None:
        for suffix in suffixes:
            for name, value in figures.items():
                if name.endswith(suffix):
                    return value
        return None

    # the aggregate reward, else (per-reward aggregation) the first reward's mean
    reward = pick("reward_mean")
    if reward is None:
        reward = next((v for n, v in figures.items()
                       if n.rsplit("/", 1)[-1].startswith("reward_") and n.endswith("_mean")),
                      None)
    return {"loss": pick("train/loss", "loss", "loss_mean"), "reward": reward,
            "grad_norm": pick("grad_norm")}


def role_of(step: dict) -> str:
    """The role a multi-role step updated (its figures are ``train/<role>_grad_norm``...)."""
    for name in step["figures"]:
        leaf = name.rsplit("/", 1)[-1]
        if leaf.endswith("_grad_norm"):
            return leaf.removesuffix("_grad_norm")
    return ""


def median_time(run) -> float | None:
    times = [s["time"] for s in run.steps]
    return statistics.median(times) if times else None


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


def print_run(run) -> None:
    print(f"\n{run.plan.key}: {len(run.steps)} optimizer steps")
    width = max([len(role_of(s)) for s in run.steps] + [0])
    role = (lambda s: f"  {role_of(s):<{width}}") if width else (lambda s: "")  # noqa: E731
    if run.steps:
        title = f"  {'role':<{width}}" if width else ""
        print(f"  {'step':>4}{title}  {'loss':>12}  {'reward':>12}  {'grad_norm':>12}  "
              f"{'time_s':>8}")
    for s in run.steps:
        h = headline(s)
        print(f"  {s['step']:>4}{role(s)}  {_fmt(h['loss']):>12}  {_fmt(h['reward']):>12}  "
              f"{_fmt(h['grad_norm']):>12}  {s['time']:>8.3f}")
    median = median_time(run)
    if median is not None:
        print(f"  median step time: {median:.3f} s")
    w = run.weights
    if w:
        print(f"  trainable weights moved: {w['trainable_moved']} of {w['trainable']} tensors; "
              f"frozen changed: {len(w['frozen_moved'])} of {w['frozen']}")
        if w["snapshots"]:
            print(f"  snapshots: {', '.join(w['snapshots'])}; moved: "
                  f"{', '.join(w['snapshots_moved']) or 'none'}")


def verdict(run) -> str | None:
    """Why this run failed, in one line, or None."""
    key = run.plan.key
    if run.error:
        return f"{key}: training failed: {run.error}"
    bad = [(s["step"], n) for s in run.steps for n, v in s["figures"].items()
           if not math.isfinite(v)]
    if bad:
        return f"{key}: {bad[0][1]} is not finite at step {bad[0][0]}"
    if not run.steps:
        return f"{key}: nothing trained: no optimizer step was logged"
    w = run.weights or {}
    if not w.get("trainable_moved"):
        return f"{key}: nothing trained: no trainable weight moved"
    if w.get("frozen_moved"):
        return f"{key}: frozen weights changed: {', '.join(w['frozen_moved'][:3])}"
    frozen_snaps = [s for s in w.get("snapshots_moved", ()) if _is_frozen_snapshot(s)]
    if frozen_snaps:
        return f"{key}: frozen snapshot changed: {', '.join(frozen_snaps)}"
    return None


def _is_frozen_snapshot(name: str) -> bool:
    return any(word in name.lower() for word in ("ref", "teacher"))


def judge(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return "equal" if a is b else "different"
    if a == b:
        return "equal"
    return "within tolerance" if abs(a - b) <= ATOL + RTOL * abs(b) else "different"


def comparison(a, b) -> list[dict]:
    """Per step and shown figure: both values and the judgement."""
    rows = []
    for sa, sb in zip(a.steps, b.steps, strict=False):
        ha, hb = headline(sa), headline(sb)
        for name in ha:
            if ha[name] is None and hb[name] is None:
                continue
            rows.append({"step": sa["step"], "figure": name, "a": ha[name], "b": hb[name],
                         "judgement": judge(ha[name], hb[name])})
    return rows


def time_ratio(a, b) -> float | None:
    ta, tb = median_time(a), median_time(b)
    return ta / tb if ta and tb else None


# The config sections whose settings shape the figures; trainer_type names the algorithm itself.
SETTING_SECTIONS = ("model", "scheduler", "train")
NAMING = frozenset({"train.trainer_type"})


def setting_differences(a, b) -> list[dict]:
    """The settings in which the two runs differ: a different ``kl_beta`` or ``clip_range`` in
    the two examples is reason enough for different figures, and the table alone cannot say so.
    As the checkout's arguments classes parsed them when both runs got that far (defaults filled
    in, ``0.2`` and ``[-0.2, 0.2]`` one clip range), else as the configs (after the smoke
    overrides) spell them."""
    parsed = getattr(a, "settings", None), getattr(b, "settings", None)
    both_parsed = parsed[0] is not None and parsed[1] is not None
    if both_parsed:
        fa, fb = _settings(parsed[0]), _settings(parsed[1])
    else:
        fa, fb = _settings(a.plan.config), _settings(b.plan.config)
    out = []
    for k in sorted(fa.keys() | fb.keys()):
        if k in NAMING or (k in fa and k in fb and fa[k] == fb[k]):
            continue
        row = {"key": k, "a": fa.get(k), "b": fb.get(k)}
        # parsed, a key one side lacks is a setting its class does not have; in the YAML it
        # may only be left to its default
        if both_parsed and (k not in fa or k not in fb):
            row["only_in"] = "a" if k in fa else "b"
        out.append(row)
    return out


def _settings(config: dict) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                walk(f"{prefix}.{name}", item)
        else:
            out[prefix] = value

    for section in SETTING_SECTIONS:
        if isinstance(config.get(section), dict):
            walk(section, config[section])
    return out


def print_compare(a, b) -> None:
    print(f"\ncompare {a.plan.key} with {b.plan.key} (same seed, data and tiny model):")
    print(f"  {'step':>4}  {'figure':<10}  {a.plan.key[:14]:>14}  {b.plan.key[:14]:>14}  judgement")
    for r in comparison(a, b):
        print(f"  {r['step']:>4}  {r['figure']:<10}  {_fmt(r['a']):>14}  {_fmt(r['b']):>14}  "
              f"{r['judgement']}")
    if len(a.steps) != len(b.steps):
        print(f"  steps: {len(a.steps)} vs {len(b.steps)}")
    ratio = time_ratio(a, b)
    if ratio is not None:
        print(f"  median step time ratio {a.plan.key}/{b.plan.key}: {ratio:.2f}")
    settings = setting_differences(a, b)
    if settings:
        print(f"  settings that differ between the two examples ({len(settings)}):")
        for d in settings:
            sides = [f"(not a setting of {run.plan.key})" if d.get("only_in") not in (None, side)
                     else _short(d[side]) for side, run in (("a", a), ("b", b))]
            print(f"    {d['key']}: {sides[0]} vs {sides[1]}")


def compare_verdict(a, b) -> str | None:
    if len(a.steps) != len(b.steps):
        return (f"{a.plan.key} took {len(a.steps)} optimizer steps, {b.plan.key} "
                f"{len(b.steps)}: not comparable step by step")
    differ = [r for r in comparison(a, b) if r["judgement"] == "different"]
    if not differ:
        return None
    r = differ[0]
    message = (f"{len(differ)} figures differ between {a.plan.key} and {b.plan.key}, first "
               f"{r['figure']} at step {r['step']} ({_fmt(r['a'])} vs {_fmt(r['b'])})")
    settings = setting_differences(a, b)
    shared = [d for d in settings if "only_in" not in d]
    own = [d for d in settings if "only_in" in d]
    if shared:
        message += (f"; their examples also differ in {len(shared)} setting(s) "
                    f"({_names(shared)}): give both the same settings to compare the objectives "
                    "alone")
    if own:
        message += (f"; {len(own)} setting(s) only one of them has ({_names(own)}): where "
                    "it has a neutral value (a weight of 0), set it to that to compare the rest")
    return message


def _names(rows: list[dict]) -> str:
    return ", ".join(d["key"] for d in rows[:3]) + (", ..." if len(rows) > 3 else "")


def _run_json(run) -> dict:
    return {
        "key": run.plan.key, "example": run.plan.example, "model_type": run.plan.model_type,
        "data": run.plan.data_kind,
        "overrides": [{"key": o.key, "old": o.old, "new": o.new} for o in run.plan.overrides],
        "steps": [{**s, **headline(s), "role": role_of(s) or None} for s in run.steps],
        "median_step_time": median_time(run), "weights": run.weights, "error": run.error,
        "verdict": verdict(run) or "trained",
    }


def as_json(runs: list) -> dict:
    out: dict[str, Any] = {"runs": [_run_json(r) for r in runs]}
    if len(runs) == 2:
        out["compare"] = {"rows": comparison(*runs), "time_ratio": time_ratio(*runs),
                          "settings_differ": setting_differences(*runs),
                          "verdict": compare_verdict(*runs) or "equal"}
    return out
