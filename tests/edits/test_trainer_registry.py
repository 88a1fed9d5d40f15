"""add/remove_trainer_registry_entry on ``trainers/registry.py``."""

from __future__ import annotations

import pytest
from edits_reference import BUILTINS, TRAINER_REGISTRY, TRAINER_REGISTRY_PATH, splice

from ffgen.edits.registries import (
    EditResult,
    add_trainer_registry_entry,
    remove_trainer_registry_entry,
)

DOTTED = "flow_factory.trainers.offline.my_algo.MyAlgoTrainer"

AFTER = splice(
    TRAINER_REGISTRY,
    '    "offline-dpo": "flow_factory.trainers.offline.offline_dpo.OfflineDPOTrainer",\n}\n',
    '    "offline-dpo": "flow_factory.trainers.offline.offline_dpo.OfflineDPOTrainer",\n'
    '    "my-algo": "flow_factory.trainers.offline.my_algo.MyAlgoTrainer",\n'
    "}\n",
)

SMALL_BEFORE = """_TRAINER_REGISTRY = {
    'grpo': 'flow_factory.trainers.rl.grpo.GRPOTrainer',  # first
}
"""

SMALL_AFTER = """_TRAINER_REGISTRY = {
    'grpo': 'flow_factory.trainers.rl.grpo.GRPOTrainer',  # first
    'my-algo': 'flow_factory.trainers.offline.my_algo.MyAlgoTrainer',
}
"""


def add(code: str, key: str = "my-algo", dotted: str = DOTTED) -> EditResult:
    return add_trainer_registry_entry(code, key=key, dotted_path=dotted)


def test_add_to_reference_layout() -> None:
    assert add(TRAINER_REGISTRY) == EditResult("changed", AFTER)


def test_noop() -> None:
    assert add(AFTER) == EditResult("unchanged", AFTER)


@pytest.mark.parametrize(("key", "_", "__", "dotted"), BUILTINS)
def test_builtins_present(key: str, _: str, __: str, dotted: str) -> None:
    assert add(TRAINER_REGISTRY, key, dotted) == EditResult("unchanged", TRAINER_REGISTRY)


def test_single_quotes_and_trailing_comment_kept() -> None:
    assert add(SMALL_BEFORE) == EditResult("changed", SMALL_AFTER)


def test_conflicting_path_fails() -> None:
    result = add(TRAINER_REGISTRY, key="sft")
    assert result.status == "failed"
    assert result.reason == (
        f'{TRAINER_REGISTRY_PATH}: `"sft"` in `_TRAINER_REGISTRY` already maps to '
        f"`flow_factory.trainers.offline.sft.SFTTrainer`, not `{DOTTED}`; "
        "pick another key or remove the existing entry first"
    )


def test_missing_anchor_fails() -> None:
    result = add("REGISTRY = {}\n")
    assert result == EditResult(
        "failed",
        "REGISTRY = {}\n",
        f"{TRAINER_REGISTRY_PATH}: no `_TRAINER_REGISTRY = {{...}}` dict literal found; "
        "add the entry by hand or restore the registry",
    )


def test_unparsable() -> None:
    result = add("def (:\n")
    assert result.status == "failed" and result.reason.startswith(TRAINER_REGISTRY_PATH)


def test_remove_undoes_add() -> None:
    assert remove_trainer_registry_entry(AFTER, key="my-algo", dotted_path=DOTTED) == EditResult(
        "changed", TRAINER_REGISTRY
    )
    again = remove_trainer_registry_entry(TRAINER_REGISTRY, key="my-algo", dotted_path=DOTTED)
    assert again == EditResult("unchanged", TRAINER_REGISTRY)
    small = remove_trainer_registry_entry(SMALL_AFTER, key="my-algo", dotted_path=DOTTED)
    assert small == EditResult("changed", SMALL_BEFORE)


def test_remove_refuses_other_path() -> None:
    result = remove_trainer_registry_entry(TRAINER_REGISTRY, key="sft", dotted_path=DOTTED)
    assert result.status == "failed"
