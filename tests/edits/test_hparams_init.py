"""add/remove_hparams_reexport on ``hparams/__init__.py``."""

from __future__ import annotations

import pytest
from edits_reference import HPARAMS_BLOCK, HPARAMS_INIT, HPARAMS_INIT_PATH, splice

from ffgen.edits._order import name_key
from ffgen.edits.registries import EditResult, add_hparams_reexport, remove_hparams_reexport

AFTER = splice(
    splice(
        HPARAMS_INIT,
        "    GRPOTrainingArguments,\n    NFTTrainingArguments,\n",
        "    GRPOTrainingArguments,\n    MyAlgoTrainingArguments,\n    NFTTrainingArguments,\n",
    ),
    '    "OfflineDPOTrainingArguments",\n    "TeacherConfig",\n',
    '    "OfflineDPOTrainingArguments",\n    "MyAlgoTrainingArguments",\n    "TeacherConfig",\n',
)


def add(code: str, name: str = "MyAlgoTrainingArguments") -> EditResult:
    return add_hparams_reexport(code, class_name=name)


def test_name_key_reproduces_the_reference_order() -> None:
    assert sorted(HPARAMS_BLOCK, key=name_key) == HPARAMS_BLOCK


def test_add_to_reference_layout() -> None:
    assert add(HPARAMS_INIT) == EditResult("changed", AFTER)


def test_noop_when_present() -> None:
    assert add(AFTER) == EditResult("unchanged", AFTER)


@pytest.mark.parametrize("name", [n for n in HPARAMS_BLOCK if n.endswith("Arguments")])
def test_isort_position_of_every_builtin(name: str) -> None:
    # Take one name out of the block; adding it back must put it exactly where isort has it.
    before = splice(HPARAMS_INIT, f"    {name},\n    ", "    ")
    assert add(before, name) == EditResult("changed", HPARAMS_INIT)


def test_dmd2_sorts_after_diffusion_opd() -> None:
    before = splice(HPARAMS_INIT, "    DMD2TrainingArguments,\n", "")
    result = add(before, "DMD2TrainingArguments")
    assert "    DiffusionOPDTrainingArguments,\n    DMD2TrainingArguments,\n" in result.code


@pytest.mark.parametrize(
    ("name", "after"),
    [
        ("ABCTrainingArguments", "from .training_args import (\n    ABCTrainingArguments,\n"),
        (
            "ZedTrainingArguments",
            "    TrainingArguments,\n    ZedTrainingArguments,\n    get_training_args_class,\n",
        ),
        ("TDMR2TrainingArguments", "    TDMR1TrainingArguments,\n    TDMR2TrainingArguments,\n"),
    ],
)
def test_edges_of_the_block(name: str, after: str) -> None:
    result = add(HPARAMS_INIT, name)
    assert result.status == "changed"
    assert after in result.code
    block = result.code.split("from .training_args import (\n")[1].split(")")[0]
    names = [line.strip().rstrip(",") for line in block.splitlines() if line.strip()]
    assert names == sorted(names, key=name_key)
    assert f"    {name},\n" in block


def test_all_without_teacher_config_goes_after_last_training_arguments() -> None:
    before = HPARAMS_INIT.replace('    "TeacherConfig",\n', "")
    result = add(before)
    assert '    "OfflineDPOTrainingArguments",\n    "MyAlgoTrainingArguments",\n' in result.code


def test_partial_only_all_missing() -> None:
    before = splice(AFTER, '    "MyAlgoTrainingArguments",\n', "")
    assert add(before) == EditResult("changed", AFTER)


def test_partial_only_import_missing() -> None:
    before = splice(AFTER, "    MyAlgoTrainingArguments,\n", "")
    assert add(before) == EditResult("changed", AFTER)


def test_missing_block_fails() -> None:
    before = HPARAMS_INIT.replace("from .training_args import", "from .train_args import")
    result = add(before)
    assert result.status == "failed"
    assert result.reason == (
        f"{HPARAMS_INIT_PATH}: no `from .training_args import (...)` block found; "
        "add the re-export by hand or restore it"
    )


def test_conflicting_import_fails() -> None:
    before = splice(HPARAMS_INIT, "from .log_args import LogArguments", "from .log_args import X")
    result = add(before, "X")
    assert result.status == "failed"
    assert "`X` is already imported from `.log_args`" in result.reason


def test_unparsable() -> None:
    result = add("from .training_args import (\n")
    assert result.status == "failed"
    assert result.reason.startswith(HPARAMS_INIT_PATH)


def test_remove_undoes_add() -> None:
    name = "MyAlgoTrainingArguments"
    assert remove_hparams_reexport(AFTER, class_name=name) == EditResult("changed", HPARAMS_INIT)
    assert remove_hparams_reexport(HPARAMS_INIT, class_name=name).status == "unchanged"
