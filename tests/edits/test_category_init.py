"""add/remove_category_reexport on ``trainers/<category>/__init__.py``."""

from __future__ import annotations

from edits_reference import OFFLINE_INIT, OFFLINE_INIT_PATH, RL_INIT, RL_INIT_PATH

from ffgen.edits.registries import EditResult, add_category_reexport, remove_category_reexport

NEW = {"module": "my_algo", "class_name": "MyAlgoTrainer"}

OFFLINE_AFTER = '''"""Offline trainers: learn from a fixed dataset, no runtime reward."""

from .my_algo import MyAlgoTrainer
from .offline_dpo import OfflineDPOTrainer
from .sft import SFTTrainer

__all__ = ["MyAlgoTrainer", "OfflineDPOTrainer", "SFTTrainer"]
'''


def add(code: str, path: str = OFFLINE_INIT_PATH, **kw: str) -> EditResult:
    return add_category_reexport(code, **{**NEW, **kw}, path=path)


def test_add_to_offline_init() -> None:
    assert add(OFFLINE_INIT) == EditResult("changed", OFFLINE_AFTER)


def test_noop() -> None:
    assert add(OFFLINE_AFTER) == EditResult("unchanged", OFFLINE_AFTER)


def test_sorted_in_the_middle_and_at_the_end() -> None:
    result = add(OFFLINE_INIT, module="preference", class_name="PreferenceTrainer")
    assert result.code.endswith(
        "from .offline_dpo import OfflineDPOTrainer\nfrom .preference import PreferenceTrainer\n"
        "from .sft import SFTTrainer\n\n"
        '__all__ = ["OfflineDPOTrainer", "PreferenceTrainer", "SFTTrainer"]\n'
    )
    result = add(OFFLINE_INIT, module="zeta", class_name="ZetaTrainer")
    assert result.code.endswith(
        "from .zeta import ZetaTrainer\n\n"
        '__all__ = ["OfflineDPOTrainer", "SFTTrainer", "ZetaTrainer"]\n'
    )


def test_docstring_only_is_skipped() -> None:
    result = add(RL_INIT, path=RL_INIT_PATH)
    assert result.status == "skipped"
    assert result.code == RL_INIT
    assert result.reason.startswith(f"{RL_INIT_PATH}: the category package does not re-export")


def test_imports_without_all() -> None:
    before = '"""Doc."""\n\nfrom .sft import SFTTrainer\n'
    result = add(before)
    assert result == EditResult(
        "changed", '"""Doc."""\n\nfrom .my_algo import MyAlgoTrainer\nfrom .sft import SFTTrainer\n'
    )


def test_all_without_imports() -> None:
    before = '"""Doc."""\n\n__all__ = []\n'
    result = add(before)
    assert remove_category_reexport(result.code, **NEW, path=OFFLINE_INIT_PATH).code == before
    assert result == EditResult(
        "changed",
        '"""Doc."""\n\nfrom .my_algo import MyAlgoTrainer\n\n__all__ = ["MyAlgoTrainer"]\n',
    )


def test_partial() -> None:
    before = OFFLINE_AFTER.replace('"MyAlgoTrainer", ', "")
    assert add(before) == EditResult("changed", OFFLINE_AFTER)


def test_conflict() -> None:
    result = add(OFFLINE_INIT, class_name="SFTTrainer")
    assert result.status == "failed"
    assert result.reason.startswith(OFFLINE_INIT_PATH + ": `SFTTrainer` is already imported")


def test_unparsable() -> None:
    assert add("from . import (\n").status == "failed"


def test_remove_undoes_add() -> None:
    removed = remove_category_reexport(OFFLINE_AFTER, **NEW, path=OFFLINE_INIT_PATH)
    assert removed == EditResult("changed", OFFLINE_INIT)
    again = remove_category_reexport(OFFLINE_INIT, **NEW, path=OFFLINE_INIT_PATH)
    assert again == EditResult("unchanged", OFFLINE_INIT)
    skipped = remove_category_reexport(RL_INIT, **NEW, path=RL_INIT_PATH)
    assert skipped.status == "skipped"
