"""add/remove_args_registry_entry on ``hparams/training_args/_registry.py``."""

from __future__ import annotations

import libcst as cst
import pytest
from edits_reference import ARGS_REGISTRY, ARGS_REGISTRY_PATH, BUILTINS, splice

from ffgen.edits.registries import EditResult, add_args_registry_entry, remove_args_registry_entry

NEW = {"key": "my-algo", "module": "my_algo", "class_name": "MyAlgoTrainingArguments"}

AFTER = splice(
    splice(
        ARGS_REGISTRY,
        "from .grpo import GRPOTrainingArguments\nfrom .nft import NFTTrainingArguments\n",
        "from .grpo import GRPOTrainingArguments\n"
        "from .my_algo import MyAlgoTrainingArguments\n"
        "from .nft import NFTTrainingArguments\n",
    ),
    '    "offline-dpo": OfflineDPOTrainingArguments,\n}\n',
    '    "offline-dpo": OfflineDPOTrainingArguments,\n    "my-algo": MyAlgoTrainingArguments,\n}\n',
)

SMALL_BEFORE = """from typing import Dict, Type

from ._base import TrainingArguments
from .grpo import GRPOTrainingArguments  # the first algorithm
from .sft import SFTTrainingArguments

# =====
# Registry
# =====
_TRAINING_ARGS_REGISTRY = {
    "grpo": GRPOTrainingArguments,
    # offline
    "sft": SFTTrainingArguments,  # demonstrations
    # add new algorithms above this line
}
"""

SMALL_AFTER = """from typing import Dict, Type

from ._base import TrainingArguments
from .grpo import GRPOTrainingArguments  # the first algorithm
from .my_algo import MyAlgoTrainingArguments
from .sft import SFTTrainingArguments

# =====
# Registry
# =====
_TRAINING_ARGS_REGISTRY = {
    "grpo": GRPOTrainingArguments,
    # offline
    "sft": SFTTrainingArguments,  # demonstrations
    "my-algo": MyAlgoTrainingArguments,
    # add new algorithms above this line
}
"""


def add(code: str, **overrides: str) -> EditResult:
    return add_args_registry_entry(code, **{**NEW, **overrides})


def test_add_to_reference_layout() -> None:
    assert add(ARGS_REGISTRY) == EditResult("changed", AFTER)


def test_add_is_a_noop_when_present() -> None:
    result = add(AFTER)
    assert result == EditResult("unchanged", AFTER)


@pytest.mark.parametrize(("key", "module", "class_name", "_"), BUILTINS)
def test_every_builtin_is_already_present(key: str, module: str, class_name: str, _: str) -> None:
    result = add_args_registry_entry(ARGS_REGISTRY, key=key, module=module, class_name=class_name)
    assert result == EditResult("unchanged", ARGS_REGISTRY)


def test_plain_assignment_keeps_comments_and_banner() -> None:
    assert add(SMALL_BEFORE) == EditResult("changed", SMALL_AFTER)
    assert add(SMALL_AFTER).status == "unchanged"


def test_partial_import_present_adds_only_entry() -> None:
    before = splice(
        ARGS_REGISTRY,
        "from .nft import",
        "from .my_algo import MyAlgoTrainingArguments\nfrom .nft import",
    )
    assert add(before) == EditResult("changed", AFTER)


def test_partial_entry_present_adds_only_import() -> None:
    before = splice(AFTER, "from .my_algo import MyAlgoTrainingArguments\n", "")
    assert add(before) == EditResult("changed", AFTER)


def test_second_key_for_an_existing_class_adds_only_the_entry() -> None:
    result = add_args_registry_entry(
        ARGS_REGISTRY, key="grpo-lite", module="grpo", class_name="GRPOTrainingArguments"
    )
    expected = splice(
        ARGS_REGISTRY,
        '    "offline-dpo": OfflineDPOTrainingArguments,\n',
        '    "offline-dpo": OfflineDPOTrainingArguments,\n'
        '    "grpo-lite": GRPOTrainingArguments,\n',
    )
    assert result == EditResult("changed", expected)


@pytest.mark.parametrize(("key", "module", "class_name", "_"), BUILTINS)
def test_missing_builtin_import_goes_back_in_module_order(
    key: str, module: str, class_name: str, _: str
) -> None:
    before = splice(ARGS_REGISTRY, f"from .{module} import {class_name}\n", "")
    result = add_args_registry_entry(before, key=key, module=module, class_name=class_name)
    assert result == EditResult("changed", ARGS_REGISTRY)


def test_single_quotes_and_no_trailing_comma_are_followed() -> None:
    before = "from ._base import T\nfrom .grpo import G\n\nR = {\n    'grpo': G\n}\n"
    result = add_args_registry_entry(before, key="x", module="x", class_name="X")
    # `R` is not the registry name: the anchor is missing.
    assert result.status == "failed"
    before = before.replace("R = ", "_TRAINING_ARGS_REGISTRY = ")
    result = add_args_registry_entry(before, key="x-y", module="x_y", class_name="XY")
    assert result == EditResult(
        "changed",
        "from ._base import T\nfrom .grpo import G\nfrom .x_y import XY\n\n"
        "_TRAINING_ARGS_REGISTRY = {\n    'grpo': G,\n    'x-y': XY\n}\n",
    )


def test_one_line_dict() -> None:
    before = 'from ._base import T\n_TRAINING_ARGS_REGISTRY = {"a": A}\n'
    result = add_args_registry_entry(before, key="b", module="b", class_name="B")
    assert (
        result.code
        == 'from ._base import T\nfrom .b import B\n_TRAINING_ARGS_REGISTRY = {"a": A, "b": B}\n'
    )


def test_missing_registry_fails_naming_file_and_anchor() -> None:
    before = ARGS_REGISTRY.replace("_TRAINING_ARGS_REGISTRY", "_REGISTRY")
    result = add(before)
    assert result.status == "failed"
    assert result.code == before
    assert result.reason == (
        f"{ARGS_REGISTRY_PATH}: no `_TRAINING_ARGS_REGISTRY = {{...}}` dict literal found; "
        "add the entry by hand or restore the registry"
    )
    assert "\n" not in result.reason


def test_registry_built_by_a_call_is_not_a_literal() -> None:
    before = "from ._base import T\n_TRAINING_ARGS_REGISTRY = dict(grpo=T)\n"
    result = add(before, path="x/_registry.py")
    assert result.status == "failed"
    assert result.reason.startswith("x/_registry.py: no `_TRAINING_ARGS_REGISTRY")


def test_no_sibling_imports_fails() -> None:
    result = add("_TRAINING_ARGS_REGISTRY = {}\n")
    assert result.status == "failed"
    assert "no `from .<module> import ...` lines" in result.reason
    assert result.reason.startswith(ARGS_REGISTRY_PATH + ": ")


def test_conflicting_key_fails() -> None:
    result = add(ARGS_REGISTRY, key="sft")
    assert result.status == "failed"
    assert result.code == ARGS_REGISTRY
    assert '`"sft"`' in result.reason and "SFTTrainingArguments" in result.reason
    assert result.reason.startswith(ARGS_REGISTRY_PATH)


def test_same_class_name_from_another_module_fails() -> None:
    result = add(ARGS_REGISTRY, class_name="SFTTrainingArguments")
    assert result.status == "failed"
    assert "`SFTTrainingArguments` is already imported from `.sft`" in result.reason


def test_unparsable_source_fails_naming_file() -> None:
    result = add("_TRAINING_ARGS_REGISTRY = {\n")
    assert result.status == "failed"
    assert result.reason.startswith(f"{ARGS_REGISTRY_PATH}: does not parse as Python")


def test_remove_undoes_add() -> None:
    assert remove_args_registry_entry(AFTER, **NEW) == EditResult("changed", ARGS_REGISTRY)
    assert remove_args_registry_entry(ARGS_REGISTRY, **NEW) == EditResult(
        "unchanged", ARGS_REGISTRY
    )
    removed = remove_args_registry_entry(SMALL_AFTER, **NEW)
    assert removed == EditResult("changed", SMALL_BEFORE)


def test_remove_keeps_an_import_another_key_uses() -> None:
    result = remove_args_registry_entry(
        ARGS_REGISTRY, key="grpo-guard", module="grpo", class_name="GRPOTrainingArguments"
    )
    assert result.code == splice(ARGS_REGISTRY, '    "grpo-guard": GRPOTrainingArguments,\n', "")


def test_remove_refuses_a_key_mapped_elsewhere() -> None:
    result = remove_args_registry_entry(
        ARGS_REGISTRY, key="sft", module="my_algo", class_name="MyAlgoTrainingArguments"
    )
    assert result.status == "failed"


def test_result_parses() -> None:
    cst.parse_module(add(ARGS_REGISTRY).code)
