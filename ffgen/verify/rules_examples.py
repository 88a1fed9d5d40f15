"""Rules over example YAML configs (FF002, FF501-FF507)."""

from __future__ import annotations

from collections.abc import Generator, Iterator

from ffgen.verify.catalogue import DEFAULT_OPTIMIZER, DEFAULT_OPTIMIZER_NAME, SDE_DYNAMICS, finding
from ffgen.verify.examples import Example
from ffgen.verify.facts import Algorithm, Facts
from ffgen.verify.model import Finding


def check_examples(facts: Facts, examples: tuple[Example, ...]) -> Iterator[Finding]:
    for ex in examples:
        if ex.error is not None:
            yield finding("FF002", ex.path, ex.error[0], None, f"YAML error: {ex.error[1]}")
            continue
        if not isinstance(ex.data, dict):
            continue
        alg = facts.algorithm(ex.trainer_type)
        if alg is None:
            yield finding(
                "FF501", ex.path, ex.line("train", "trainer_type"), None,
                f"train.trainer_type {ex.trainer_type!r} is not a registered key",
            )
            continue
        for check in EXAMPLE_CHECKS:
            yield from check(facts, alg, ex)


def _dynamics(facts: Facts, alg: Algorithm, ex: Example) -> Iterator[Finding]:
    if facts.paradigm(alg.trainer_cls) != "coupled":
        return
    sched = ex.data.get("scheduler")
    dyn = sched.get("dynamics_type") if isinstance(sched, dict) else None
    if dyn not in SDE_DYNAMICS:
        yield finding(
            "FF502", ex.path, ex.line("scheduler", "dynamics_type"), alg.key,
            f"{alg.key} is coupled but scheduler.dynamics_type is {dyn!r}",
        )


def _dataset(facts: Facts, alg: Algorithm, ex: Example) -> Iterator[Finding]:
    if facts.acquisition(alg.args_cls) != "dataset":
        return
    data = ex.data.get("data") if isinstance(ex.data.get("data"), dict) else {}
    for i, src in enumerate(data.get("datasets") or []):
        train = src.get("train") if isinstance(src, dict) else None
        if isinstance(train, dict) and "weight" in train and train["weight"] != 1:
            yield _ds(ex, alg, ("data", "datasets", i, "train", "weight"),
                      f"dataset source {i} has train.weight {train['weight']!r}; must be 1")
    if data.get("sampler_type") != "auto":
        yield _ds(ex, alg, ("data", "sampler_type"),
                  f"data.sampler_type is {data.get('sampler_type')!r}; dataset needs 'auto'")
    train = ex.train
    if not _exact_int(train.get("max_epochs")):
        yield _ds(ex, alg, ("train", "max_epochs"),
                  f"train.max_epochs is {train.get('max_epochs')!r}; set an integer >= 1")
    gas = train.get("gradient_accumulation_steps")
    if not _exact_int(gas):
        yield _ds(ex, alg, ("train", "gradient_accumulation_steps"),
                  f"train.gradient_accumulation_steps is {gas!r}; dataset needs an explicit int")


def _ds(ex: Example, alg: Algorithm, keys: tuple, message: str) -> Finding:
    return finding("FF503", ex.path, ex.line(*keys), alg.key, message)


def _exact_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _rewards(facts: Facts, alg: Algorithm, ex: Example) -> Iterator[Finding]:
    if facts.feedback(alg.args_cls) == "none" and _entries(ex.data.get("rewards")):
        yield finding(
            "FF504", ex.path, ex.line("rewards"), alg.key,
            f"{alg.key} has no runtime_reward feedback but the config lists training `rewards:`",
        )


def _entries(value: object) -> list[tuple[tuple, object]]:
    """``rewards:`` / ``optimizers:`` as (key path below the section, entry) pairs: a list, or
    one mapping (the single-entry shorthand both from_dict methods accept)."""
    if isinstance(value, list):
        return [((i,), v) for i, v in enumerate(value)]
    if isinstance(value, dict) and value:
        return [((), value)]
    return []


def _contract(facts: Facts, alg: Algorithm, ex: Example) -> Iterator[Finding]:
    for keys in (("train", "execution_contract"), ("execution_contract",)):
        parent = ex.train if len(keys) == 2 else ex.data
        if "execution_contract" in parent:
            yield finding(
                "FF506", ex.path, ex.line(*keys), alg.key,
                f"{'.'.join(keys)} is configured; trainer_type selects the contract",
            )


def _optimizers(facts: Facts, alg: Algorithm, ex: Example) -> Iterator[Finding]:
    roles, _ = facts.roles(alg.args_cls)
    multi = bool(roles) and len(roles) > 1
    opts = ex.data.get("optimizers")
    if opts is None:
        rule = "FF505" if multi else "FF507"
        msg = f"no `optimizers:` list; {alg.key} trains roles {list(roles)}" if multi else (
            "no `optimizers:` list (one entry is synthesised from train)")
        yield finding(rule, ex.path, 1, alg.key, msg)
        return
    if not isinstance(opts, list | dict):
        yield _opt(ex, alg, ("optimizers",), "`optimizers:` is neither a list nor a mapping")
        return
    entries = _entries(opts)
    yield from _entry_findings(facts, ex, alg, entries)
    # Entries of a multi-role algorithm that miss or name no role are FF608 / FF609.
    if not multi and len(entries) != 1:
        yield _opt(ex, alg, ("optimizers",),
                   f"{len(entries)} optimizer entries for a single-role algorithm; expected 1")


def _entry_findings(
    facts: Facts, ex: Example, alg: Algorithm, entries: list[tuple[tuple, object]]
) -> Generator[Finding, None, list[object]]:
    """Check each entry; return the role names they configure (unnamed = ``default``)."""
    kinds = facts.optimizer_kinds
    names: list[object] = []
    for sub, o in entries:
        keys = ("optimizers", *sub)
        where = f"optimizers[{sub[0]}]" if sub else "optimizers"
        if not isinstance(o, dict):
            yield _opt(ex, alg, keys, f"{where} is not a mapping")
            continue
        name = o.get("name", DEFAULT_OPTIMIZER_NAME)
        label = f"{where} ({name})"
        if not isinstance(name, str) or not name:
            yield _opt(ex, alg, (*keys, "name"), f"{where} has an empty or non-string name")
            continue
        if name in names:
            yield _opt(ex, alg, (*keys, "name"), f"{label} repeats a name")
        names.append(name)
        if "max_grad_norm" not in o:
            yield _opt(ex, alg, keys, f"{label} has no max_grad_norm")
        kind = o.get("optimizer", DEFAULT_OPTIMIZER)  # absent: OptimizerArguments' adamw
        if not isinstance(kind, str) or kind.lower() not in kinds:
            yield _opt(ex, alg, (*keys, "optimizer"),
                       f"{label} optimizer is {kind!r}; registered: {', '.join(kinds)}")
    return names


def _opt(ex: Example, alg: Algorithm, keys: tuple, message: str) -> Finding:
    return finding("FF505", ex.path, ex.line(*keys), alg.key, message)


EXAMPLE_CHECKS = (_dynamics, _dataset, _rewards, _contract, _optimizers)
