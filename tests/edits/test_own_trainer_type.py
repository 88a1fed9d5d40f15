"""The copy step that gives a ``--like`` copy's arguments class its own ``trainer_type``.

Each case is a small module as a copy leaves it; the edit declares the field (first among the
fields) and the refusal (after ``super().__post_init__()``), adds the imports they need, keeps
what the class already has, is idempotent, and is loud when its anchors are missing. The edited
class is run: its default is the key and a foreign key is refused.
"""

from __future__ import annotations

import dataclasses

import pytest

from ffgen.errors import RefusedError
from ffgen.generate.like.trainer_type import own_trainer_type

BASE = '''
class TrainingArguments:
    trainer_type: str = "grpo"

    def __post_init__(self) -> None:
        self.checked = True
'''

INHERITING = '''from dataclasses import dataclass

from ._base import TrainingArguments


@dataclass
class MyArgs(TrainingArguments):
    """My arguments."""

    # trainer_type is inherited, not redeclared here.
    beta: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.beta = float(self.beta)

    def helper(self) -> int:
        return 1
'''


def edit(text: str, key: str = "my-x") -> str:
    return own_trainer_type(text, "MyArgs", key, "src/flow_factory/hparams/training_args/my_x.py")


def run_class(text: str) -> type:
    """The edited module executed over a stand-in ``TrainingArguments`` dataclass."""
    namespace: dict = {}
    exec(  # noqa: S102 - the module under test, built from the literals above
        "from dataclasses import dataclass\n"
        + "@dataclass\n"
        + BASE.strip()
        + "\n"
        + text.replace("from ._base import TrainingArguments\n", ""),
        namespace,
    )
    return namespace["MyArgs"]


def test_an_inheriting_class_declares_and_checks_its_own_key():
    out = edit(INHERITING)
    assert "from dataclasses import dataclass, field\nfrom typing import Literal\n" in out
    assert '    """My arguments."""\n\n    trainer_type: Literal["my-x"] = field(' in out
    assert "not redeclared" not in out  # the comment that is no longer true
    assert (
        '        super().__post_init__()\n        if self.trainer_type != "my-x":\n' in out
    )
    assert out.index("self.trainer_type !=") < out.index("self.beta = float(self.beta)")
    cls = run_class(out)
    assert cls().trainer_type == "my-x" and cls().checked
    assert [f.name for f in dataclasses.fields(cls)] == ["trainer_type", "beta"]
    with pytest.raises(ValueError, match="trainer_type='my-x', got 'grpo'"):
        cls(trainer_type="grpo")


def test_the_edit_is_idempotent_and_leaves_a_declaring_class_alone():
    once = edit(INHERITING)
    assert edit(once) == once
    declaring = once.replace("requires train.trainer_type", "wants trainer_type")
    assert edit(declaring) == declaring


def test_a_class_without_post_init_gets_one_calling_super_before_its_methods():
    text = INHERITING.replace(
        "    def __post_init__(self) -> None:\n"
        "        super().__post_init__()\n"
        "        self.beta = float(self.beta)\n\n",
        "",
    )
    out = edit(text)
    assert (
        "    beta: float = 1.0\n\n    def __post_init__(self) -> None:\n"
        "        super().__post_init__()\n"
        '        if self.trainer_type != "my-x":\n'
    ) in out
    assert out.index("def __post_init__") < out.index("def helper")
    cls = run_class(out)
    assert cls().checked
    with pytest.raises(ValueError, match="trainer_type"):
        cls(trainer_type="other")


def test_a_post_init_without_super_gets_the_check_first_and_keeps_its_body():
    text = INHERITING.replace("        super().__post_init__()\n", '        """Own checks."""\n')
    out = edit(text)
    assert '        """Own checks."""\n        if self.trainer_type != "my-x":\n' in out
    assert "self.beta = float(self.beta)" in out and "super()" not in out


def test_a_declared_field_without_a_check_gets_only_the_check():
    text = INHERITING.replace(
        "    beta: float = 1.0\n", '    trainer_type: str = "my-x"\n    beta: float = 1.0\n'
    )
    out = edit(text)
    assert out.count("trainer_type:") == 1 and "Literal" not in out
    assert 'if self.trainer_type != "my-x":' in out


def test_existing_imports_are_extended_not_duplicated():
    text = INHERITING.replace(
        "from dataclasses import dataclass\n",
        "from dataclasses import dataclass, field\nfrom typing import Any\n",
    )
    out = edit(text)
    assert "from dataclasses import dataclass, field\nfrom typing import Any, Literal\n" in out
    assert out.count("import field") == 0 and out.count("from typing") == 1


def test_a_long_key_wraps_within_the_line_limit():
    out = edit(INHERITING, key="a-rather-long-registry-key-for-an-algorithm")
    assert max(len(line) for line in out.splitlines()) <= 100


def test_missing_anchors_are_loud():
    with pytest.raises(RefusedError, match="no top-level class MyArgs"):
        edit(INHERITING.replace("class MyArgs", "class Other"))
    no_dataclasses = INHERITING.replace("from dataclasses import dataclass\n", "")
    with pytest.raises(RefusedError, match="no `from dataclasses import ...` line"):
        edit(no_dataclasses)
