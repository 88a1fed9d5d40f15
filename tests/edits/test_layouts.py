"""Layout variants the reference does not show but real checkouts may: CRLF, tuples, annotations."""

from __future__ import annotations

from ffgen.edits.registries import (
    EditResult,
    add_args_init_export,
    add_args_registry_entry,
    add_category_reexport,
    add_trainer_registry_entry,
    remove_args_init_export,
    remove_trainer_registry_entry,
)


def test_crlf_newlines_are_kept() -> None:
    before = '_TRAINER_REGISTRY = {\r\n    "a": "x.A",\r\n}\r\n'
    result = add_trainer_registry_entry(before, key="b", dotted_path="x.B")
    assert result == EditResult(
        "changed", '_TRAINER_REGISTRY = {\r\n    "a": "x.A",\r\n    "b": "x.B",\r\n}\r\n'
    )


def test_annotated_tuple_all() -> None:
    before = (
        "from ._base import T\n\n"
        '__all__: tuple[str, ...] = (\n    "T",\n    "ATrainingArguments",\n)\n'
    )
    result = add_args_init_export(before, module="b", class_name="BTrainingArguments")
    assert result == EditResult(
        "changed",
        "from ._base import T\nfrom .b import BTrainingArguments\n\n"
        '__all__: tuple[str, ...] = (\n    "T",\n    "ATrainingArguments",\n'
        '    "BTrainingArguments",\n)\n',
    )
    removed = remove_args_init_export(result.code, module="b", class_name="BTrainingArguments")
    assert removed == EditResult("changed", before)


def test_one_element_tuple_keeps_its_comma_on_remove() -> None:
    before = 'from ._base import T\nfrom .a import A\n\n__all__ = ("T", "A")\n'
    result = remove_args_init_export(before, module="a", class_name="A")
    assert result.code == 'from ._base import T\n\n__all__ = ("T",)\n'


def test_all_that_is_not_a_literal_fails() -> None:
    before = "from ._base import T\n\n__all__ = sorted(NAMES)\n"
    result = add_args_init_export(before, module="b", class_name="B", path="f.py")
    assert result.status == "failed"
    assert result.reason == "f.py: `__all__` is not a list or tuple literal; edit it by hand"


def test_empty_registry_gets_its_first_entry() -> None:
    before = "_TRAINER_REGISTRY: dict = {}\n"
    result = add_trainer_registry_entry(before, key="a", dotted_path="x.A")
    assert result == EditResult("changed", '_TRAINER_REGISTRY: dict = {"a": "x.A"}\n')
    removed = remove_trainer_registry_entry(result.code, key="a", dotted_path="x.A")
    assert removed == EditResult("changed", before)


def test_last_assignment_wins() -> None:
    before = "from ._base import T\n_TRAINING_ARGS_REGISTRY = {}\n_TRAINING_ARGS_REGISTRY = {\n}\n"
    result = add_args_registry_entry(before, key="a", module="a", class_name="A")
    assert result.status == "changed"
    assert result.code.startswith(
        "from ._base import T\nfrom .a import A\n_TRAINING_ARGS_REGISTRY = {}\n"
    )


def test_multi_line_parenthesised_category_import() -> None:
    before = 'from .a import (\n    ATrainer,\n)\n\n__all__ = [\n    "ATrainer",\n]\n'
    result = add_category_reexport(before, module="a", class_name="AHelperTrainer", path="i.py")
    assert result == EditResult(
        "changed",
        "from .a import (\n    AHelperTrainer,\n    ATrainer,\n)\n\n"
        '__all__ = [\n    "AHelperTrainer",\n    "ATrainer",\n]\n',
    )
