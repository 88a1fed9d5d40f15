"""add/remove_args_init_export on ``hparams/training_args/__init__.py``."""

from __future__ import annotations

import pytest
from edits_reference import ARGS_INIT, ARGS_INIT_PATH, BUILTINS, splice

from ffgen.edits.registries import EditResult, add_args_init_export, remove_args_init_export

NEW = {"module": "my_algo", "class_name": "MyAlgoTrainingArguments"}

AFTER = splice(
    splice(
        ARGS_INIT,
        "from .grpo import GRPOTrainingArguments\n",
        "from .grpo import GRPOTrainingArguments\nfrom .my_algo import MyAlgoTrainingArguments\n",
    ),
    '    "OfflineDPOTrainingArguments",\n    "TeacherConfig",\n',
    '    "OfflineDPOTrainingArguments",\n    "MyAlgoTrainingArguments",\n    "TeacherConfig",\n',
)

SMALL_BEFORE = '''"""Training arguments."""

from ._base import EvaluationArguments, TrainingArguments
from ._registry import get_training_args_class
from .sft import SFTTrainingArguments

__all__ = [
    "EvaluationArguments",
    "TrainingArguments",
    "SFTTrainingArguments",  # offline
    # helpers
    "get_training_args_class",
]
'''

SMALL_AFTER = '''"""Training arguments."""

from ._base import EvaluationArguments, TrainingArguments
from ._registry import get_training_args_class
from .aaa import AaaTrainingArguments
from .sft import SFTTrainingArguments

__all__ = [
    "EvaluationArguments",
    "TrainingArguments",
    "SFTTrainingArguments",  # offline
    "AaaTrainingArguments",
    # helpers
    "get_training_args_class",
]
'''


def test_add_to_reference_layout() -> None:
    assert add_args_init_export(ARGS_INIT, **NEW) == EditResult("changed", AFTER)


def test_noop_when_present() -> None:
    assert add_args_init_export(AFTER, **NEW) == EditResult("unchanged", AFTER)


@pytest.mark.parametrize(("_", "module", "class_name", "__"), BUILTINS)
def test_builtins_are_present(_: str, module: str, class_name: str, __: str) -> None:
    result = add_args_init_export(ARGS_INIT, module=module, class_name=class_name)
    assert result == EditResult("unchanged", ARGS_INIT)


def test_without_teacher_config_and_with_comments() -> None:
    result = add_args_init_export(SMALL_BEFORE, module="aaa", class_name="AaaTrainingArguments")
    assert result == EditResult("changed", SMALL_AFTER)


def test_second_class_joins_an_existing_module_import() -> None:
    result = add_args_init_export(ARGS_INIT, module="opd", class_name="StudentConfig")
    assert result.status == "changed"
    assert "from .opd import DiffusionOPDTrainingArguments, StudentConfig, TeacherConfig\n" in (
        result.code
    )


def test_partial_all_entry_missing() -> None:
    before = splice(AFTER, '    "MyAlgoTrainingArguments",\n', "")
    assert add_args_init_export(before, **NEW) == EditResult("changed", AFTER)


def test_partial_import_missing() -> None:
    before = splice(AFTER, "from .my_algo import MyAlgoTrainingArguments\n", "")
    assert add_args_init_export(before, **NEW) == EditResult("changed", AFTER)


def test_missing_all_fails() -> None:
    before = ARGS_INIT[: ARGS_INIT.index("__all__")]
    result = add_args_init_export(before, **NEW)
    assert result.status == "failed"
    assert result.reason == (
        f"{ARGS_INIT_PATH}: no `__all__ = [...]` list found; add the name by hand or restore it"
    )


def test_conflicting_import_fails() -> None:
    before = splice(
        ARGS_INIT,
        "from .nft import",
        "from .other import MyAlgoTrainingArguments\nfrom .nft import",
    )
    result = add_args_init_export(before, **NEW)
    assert result.status == "failed"
    assert "already imported from `.other`" in result.reason
    assert result.code == before


def test_unparsable() -> None:
    result = add_args_init_export("__all__ = [\n", **NEW, path="p/__init__.py")
    assert result.status == "failed"
    assert result.reason.startswith("p/__init__.py: does not parse")


def test_remove_undoes_add() -> None:
    assert remove_args_init_export(AFTER, **NEW) == EditResult("changed", ARGS_INIT)
    assert remove_args_init_export(ARGS_INIT, **NEW) == EditResult("unchanged", ARGS_INIT)
    small = remove_args_init_export(SMALL_AFTER, module="aaa", class_name="AaaTrainingArguments")
    assert small == EditResult("changed", SMALL_BEFORE)
