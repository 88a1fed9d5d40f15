"""Properties over generated names: add twice == add once, results parse, remove undoes add."""

from __future__ import annotations

import keyword
from collections.abc import Callable

import libcst as cst
from edits_reference import (
    ARGS_INIT,
    ARGS_REGISTRY,
    BUILTINS,
    HPARAMS_INIT,
    OFFLINE_INIT,
    OFFLINE_INIT_PATH,
    TRAINER_REGISTRY,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from ffgen.edits._order import module_key, name_key
from ffgen.edits.registries import (
    EditResult,
    add_args_init_export,
    add_args_registry_entry,
    add_category_reexport,
    add_hparams_reexport,
    add_trainer_registry_entry,
    remove_args_init_export,
    remove_args_registry_entry,
    remove_category_reexport,
    remove_hparams_reexport,
    remove_trainer_registry_entry,
)

TAKEN_KEYS = {key for key, *_ in BUILTINS}
TAKEN_MODULES = {module for _, module, *_ in BUILTINS}
TAKEN_STEMS = {"OfflineDPO", "SFT", "Training", "Evaluation"}

keys = (
    st.from_regex(r"[a-z][a-z0-9]{0,7}(-[a-z0-9]{1,5}){0,2}", fullmatch=True)
    .filter(lambda k: k not in TAKEN_KEYS and k.replace("-", "_") not in TAKEN_MODULES)
    .filter(lambda k: k.replace("-", "_").isidentifier())
    # a module named like a keyword (``as``) cannot be imported; ``new`` refuses such a NAME
    .filter(lambda k: not keyword.iskeyword(k.replace("-", "_")))
)


def stem(key: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in key.split("-"))


Edit = Callable[[str], EditResult]


def check_round_trip(before: str, add: Edit, remove: Edit) -> str:
    once = add(before)
    assert once.status == "changed", once.reason
    cst.parse_module(once.code)
    twice = add(once.code)
    assert twice == EditResult("unchanged", once.code)
    assert remove(once.code) == EditResult("changed", before)
    assert remove(before) == EditResult("unchanged", before)
    return once.code


@settings(max_examples=60, deadline=None)
@given(keys)
def test_args_registry(key: str) -> None:
    names = {"key": key, "module": key.replace("-", "_"), "class_name": stem(key) + "Args"}
    code = check_round_trip(
        ARGS_REGISTRY,
        lambda c: add_args_registry_entry(c, **names),
        lambda c: remove_args_registry_entry(c, **names),
    )
    modules = [line.split()[1][1:] for line in code.splitlines() if line.startswith("from .")]
    assert modules == sorted(modules, key=module_key)
    assert f'    "{key}": {names["class_name"]},\n}}\n' in code


@settings(max_examples=60, deadline=None)
@given(keys)
def test_args_init(key: str) -> None:
    names = {"module": key.replace("-", "_"), "class_name": stem(key) + "TrainingArguments"}
    code = check_round_trip(
        ARGS_INIT,
        lambda c: add_args_init_export(c, **names),
        lambda c: remove_args_init_export(c, **names),
    )
    expected = f'    "OfflineDPOTrainingArguments",\n    "{names["class_name"]}",\n'
    assert expected in code


@settings(max_examples=60, deadline=None)
@given(keys)
def test_hparams_init(key: str) -> None:
    name = stem(key) + "TrainingArguments"
    code = check_round_trip(
        HPARAMS_INIT,
        lambda c: add_hparams_reexport(c, class_name=name),
        lambda c: remove_hparams_reexport(c, class_name=name),
    )
    block = code.split("from .training_args import (\n")[1].split(")")[0]
    names = [line.strip().rstrip(",") for line in block.splitlines()]
    assert names == sorted(names, key=name_key) and name in names
    assert f'    "{name}",\n    "TeacherConfig",\n' in code


@settings(max_examples=60, deadline=None)
@given(keys, st.sampled_from(["rl", "distillation", "offline"]))
def test_trainer_registry(key: str, category: str) -> None:
    dotted = f"flow_factory.trainers.{category}.{key.replace('-', '_')}.{stem(key)}Trainer"
    check_round_trip(
        TRAINER_REGISTRY,
        lambda c: add_trainer_registry_entry(c, key=key, dotted_path=dotted),
        lambda c: remove_trainer_registry_entry(c, key=key, dotted_path=dotted),
    )


@settings(max_examples=60, deadline=None)
@given(keys.filter(lambda k: stem(k) not in TAKEN_STEMS))
def test_category_init(key: str) -> None:
    names = {"module": key.replace("-", "_"), "class_name": stem(key) + "Trainer"}
    code = check_round_trip(
        OFFLINE_INIT,
        lambda c: add_category_reexport(c, **names, path=OFFLINE_INIT_PATH),
        lambda c: remove_category_reexport(c, **names, path=OFFLINE_INIT_PATH),
    )
    exported = cst.parse_module(code).body[-1].body[0].value
    strings = [element.value.evaluated_value for element in exported.elements]
    assert strings == sorted(strings, key=name_key)
