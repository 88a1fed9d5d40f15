"""Rules over the optimizers and distributed backends of multi-role examples (FF605-FF609)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ffgen.verify.catalogue import finding
from ffgen.verify.facts import Facts
from ffgen.verify.model import Finding

# --- optimizers and distributed backends of multi-role examples (FF605-FF609) ----------------
# torch.optim.Muon first shipped in PyTorch 2.9.
MUON_TORCH = (2, 9)


@dataclasses.dataclass(frozen=True, slots=True)
class _Backend:
    """The distributed plan an example's ``config_file`` selects (None: unknown)."""

    kind: str | None  # "deepspeed" | "fsdp" | "ddp" | None
    zero_stage: int | None = None
    fsdp_version: int | None = None
    use_orig_params: bool | None = None
    source: str = ""


def check_backends(facts: Facts) -> Iterator[Finding]:
    """FF605 Muon where it cannot run; FF606/FF607 multi-role on an unsupported backend."""
    view = facts.index.view
    torch_cap = _torch_upper_bound(view)
    for ex, alg, roles in _multirole_examples(facts, any_roles=True):
        multi = roles is not None and len(roles) > 1
        muon = [(keys, entry) for keys, entry in _optimizer_entries(ex)
                if str(entry.get("optimizer", "adamw")).lower() == "muon"]
        if not muon and not multi:
            continue  # nothing here depends on the backend: its config is not read
        backend = _backend(view, ex)
        for keys, entry in muon:
            name = entry.get("name", "default")
            fsdp1 = backend.kind == "fsdp" and backend.fsdp_version == 1
            if backend.kind == "deepspeed" or fsdp1:
                plan = "FSDP1" if fsdp1 else "DeepSpeed"
                yield finding("FF605", ex.path, ex.line(*keys, "optimizer"), alg.key,
                              f"optimizers ({name}) uses muon on {plan} ({backend.source})")
            elif torch_cap is not None and torch_cap < MUON_TORCH:
                yield finding("FF605", ex.path, ex.line(*keys, "optimizer"), alg.key,
                              f"optimizers ({name}) uses muon but the checkout pins torch below "
                              f"{'.'.join(map(str, MUON_TORCH))} (no torch.optim.Muon)")
        if not multi:
            continue
        where = ex.line("config_file")
        if backend.kind == "deepspeed" and backend.zero_stage not in (None, 1, 2):
            yield finding("FF606", ex.path, where, alg.key,
                          f"{alg.key} trains roles {list(roles)} on DeepSpeed ZeRO-"
                          f"{backend.zero_stage} ({backend.source}); several roles need ZeRO-1/2")
        fsdp2 = backend.kind == "fsdp" and backend.fsdp_version == 2
        if fsdp2 and backend.use_orig_params is False:
            yield finding("FF607", ex.path, where, alg.key,
                          f"{alg.key} trains roles {list(roles)} on FSDP2 with "
                          f"use_orig_params false ({backend.source})")


def check_role_optimizers(facts: Facts) -> Iterator[Finding]:
    """FF608 a role without an ``optimizers:`` entry; FF609 an entry that names no role."""
    for ex, alg, roles in _multirole_examples(facts, any_roles=False):
        entries = list(_optimizer_entries(ex))
        if not entries:
            continue  # no list: every role takes the algorithm's defaults (FF505 asks for one)
        names = [e.get("name", "default") for _, e in entries]
        for role in roles:
            if role not in names:
                yield finding("FF608", ex.path, ex.line("optimizers"), alg.key,
                              f"role {role!r} of {alg.key} has no optimizers entry "
                              f"(entries: {names})",
                              f"add `- name: {role}` with max_grad_norm to optimizers")
        for keys, entry in entries:
            name = entry.get("name", "default")
            if name not in roles:
                yield finding("FF609", ex.path, ex.line(*keys, "name"), alg.key,
                              f"optimizers entry {name!r} names no role of {alg.key} "
                              f"(roles: {list(roles)})",
                              f"rename it to one of {', '.join(roles)} or remove it")


def _multirole_examples(facts: Facts, *, any_roles: bool):
    for ex in facts.examples:
        if not isinstance(ex.data, dict):
            continue
        alg = facts.algorithm(ex.trainer_type)
        if alg is None or alg.args_cls is None:
            continue
        roles, _ = facts.roles(alg.args_cls)
        if any_roles or (roles is not None and len(roles) > 1):
            yield ex, alg, roles


def _optimizer_entries(ex) -> Iterator[tuple[tuple, dict]]:
    opts = ex.data.get("optimizers")
    if isinstance(opts, dict):
        yield ("optimizers",), opts
    elif isinstance(opts, list):
        for i, entry in enumerate(opts):
            if isinstance(entry, dict):
                yield ("optimizers", i), entry


def _backend(view, ex) -> _Backend:
    """Read the accelerate config an example names; else guess from its file name."""
    path = ex.data.get("config_file")
    if not isinstance(path, str) or not path:
        return _Backend(None)
    text = view.read(path)
    if text is None:
        return _backend_from_name(path)
    import yaml

    try:  # libyaml's loader where PyYAML has it, as for the example configs
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return _Backend(None, source=path)
    if not isinstance(data, dict):
        return _Backend(None, source=path)
    kind = str(data.get("distributed_type", "")).upper()
    if kind == "DEEPSPEED":
        ds = data.get("deepspeed_config") if isinstance(data.get("deepspeed_config"), dict) else {}
        stage = ds.get("zero_stage")
        if stage is None and isinstance(ds.get("deepspeed_config_file"), str):
            stage = _json_zero_stage(view, ds["deepspeed_config_file"])
        return _Backend("deepspeed", zero_stage=_int(stage), source=path)
    if kind == "FSDP":
        fsdp = data.get("fsdp_config") if isinstance(data.get("fsdp_config"), dict) else {}
        orig = fsdp.get("fsdp_use_orig_params")
        return _Backend("fsdp", fsdp_version=_int(fsdp.get("fsdp_version", 1)),
                        use_orig_params=orig if isinstance(orig, bool) else None, source=path)
    if kind in ("MULTI_GPU", "NO", ""):
        return _Backend("ddp" if kind == "MULTI_GPU" else None, source=path)
    return _Backend(None, source=path)


def _backend_from_name(path: str) -> _Backend:
    name = path.lower().rsplit("/", 1)[-1]
    if "deepspeed" in path.lower() or "zero" in name:
        stage = next((s for s in (3, 2, 1) if f"zero{s}" in name or f"zero_{s}" in name
                      or f"stage{s}" in name), None)
        return _Backend("deepspeed", zero_stage=stage, source=path)
    if "fsdp" in name:
        return _Backend("fsdp", fsdp_version=2 if "fsdp2" in name else None, source=path)
    return _Backend(None, source=path)


def _json_zero_stage(view, path: str) -> int | None:
    import json

    text = view.read(path)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    zero = data.get("zero_optimization") if isinstance(data, dict) else None
    return _int(zero.get("stage")) if isinstance(zero, dict) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _torch_upper_bound(view) -> tuple[int, int] | None:
    """The highest torch (major, minor) the checkout's pyproject allows, when it caps it."""
    import re

    text = view.read("pyproject.toml") or ""
    caps = []
    for spec in re.findall(r"""["']torch\s*([<=~][^"';]*)["']""", text):
        for op, major, minor in re.findall(r"(==|<=|<|~=)\s*(\d+)\.(\d+)", spec):
            version = (int(major), int(minor))
            # "<2.9" allows at most 2.8; "==", "<=" and "~=" (within a minor) allow that minor
            caps.append((version[0], version[1] - 1) if op == "<" else version)
    return min(caps) if caps else None


RULES = (check_backends, check_role_optimizers)
