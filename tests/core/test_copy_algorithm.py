"""``ffgen.edits.copy_algorithm``: copy one algorithm out of a module, renaming symbol-aware.

The module below is ffgen's own stand-in for a module that holds two algorithms (the real
``rl/grpo.py`` holds GRPO and GRPO-Guard): a key ``grpo`` next to a key ``grpo-guard``, a helper
called ``grpo_advantages`` and names that merely contain the source's names.
"""

from __future__ import annotations

import ast

from ffgen.edits._rename import Renames, absolute_module, relative_to
from ffgen.edits.copy_algorithm import CopySpec, copy_module, imports_for

TWO_ALGORITHMS = '''"""Two algorithms in one module."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...hparams.training_args.grpo import GRPOTrainingArguments
from ..abc import BaseTrainer
from ..common.unused import never_used

if TYPE_CHECKING:
    from ..role_optimization import RoleUpdatePlan

CLIP = 0.2  # the grpo clip; grpo-guard and grpo_advantages keep their names
GUARD_ONLY = 3


def grpo_advantages(values):
    """Advantages for grpo (grpo-guard reuses them)."""
    return [v * _scale() for v in values]


def _scale():
    return math.sqrt(CLIP)


def guard_helper():
    return GUARD_ONLY


class GRPOTrainer(BaseTrainer):
    """GRPO; ``GRPOGuardTrainer`` extends it. Not GRPOTrainerMixin."""

    trainer_key = "grpo"
    other_key = "grpo-guard"

    def optimize(self, samples: Any) -> None:
        args: GRPOTrainingArguments = self.training_args
        if args.trainer_type != "grpo":
            raise ValueError(f"expected 'grpo' (not grpo-guard), got {args.trainer_type!r}")
        self.grpo_advantages = grpo_advantages(samples)
        self.log(source="grpo policy", metric="grpo/loss", module="trainers.rl.grpo")

    def plan(self) -> "RoleUpdatePlan":
        from ...hparams.training_args.grpo import GRPO_DEFAULTS

        return GRPO_DEFAULTS


class GRPOGuardTrainer(GRPOTrainer):
    """GRPO-Guard: a strict extension of GRPOTrainer."""

    def optimize(self, samples: Any) -> None:
        super().optimize(samples)
        guard_helper()


__all__ = ["GRPOGuardTrainer", "GRPOTrainer", "grpo_advantages"]
'''

SOURCE = "flow_factory.trainers.rl.grpo"
ARGS_SOURCE = "flow_factory.hparams.training_args.grpo"
ARGS_TARGET = "flow_factory.hparams.training_args.my_algo"


def renames(target_package: str = "flow_factory.trainers.rl") -> Renames:
    return Renames(
        names={"GRPOTrainer": "MyAlgoTrainer", "GRPOTrainingArguments": "MyAlgoTrainingArguments"},
        keys={"grpo": "my-algo"},
        modules={ARGS_SOURCE: ARGS_TARGET, SOURCE: f"{target_package}.my_algo"},
        source_package="flow_factory.trainers.rl",
        target_package=target_package,
    )


def copy_grpo(target_package: str = "flow_factory.trainers.rl") -> str:
    spec = CopySpec(
        roots=("GRPOTrainer",),
        renames=renames(target_package),
        source_module=SOURCE,
        external=frozenset({"GRPOGuardTrainer"}),
        docstring="A copy.",
    )
    return copy_module(TWO_ALGORITHMS, spec).text


def top_level_names(text: str) -> set[str]:
    tree = ast.parse(text)
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def test_overlapping_names_are_untouched_only_the_source_s_are_renamed():
    """Rule: a key ``grpo`` among ``grpo-guard`` and ``grpo_advantages``: only what is bound to
    ``grpo`` changes: its class, its exact key literal and its key as a whole token in text."""
    text = copy_grpo()
    assert "class MyAlgoTrainer(BaseTrainer):" in text
    assert 'trainer_key = "my-algo"' in text
    assert 'other_key = "grpo-guard"' in text  # a key containing "grpo": untouched
    assert 'if args.trainer_type != "my-algo":' in text
    assert "f\"expected 'my-algo' (not grpo-guard), got" in text
    assert "def grpo_advantages(values):" in text  # a helper containing "grpo": kept as is
    assert "self.grpo_advantages = grpo_advantages(samples)" in text
    assert "``GRPOGuardTrainer`` extends it. Not GRPOTrainerMixin." in text
    assert '"""Advantages for my-algo (grpo-guard reuses them)."""' in text
    assert "# the my-algo clip; grpo-guard and grpo_advantages keep their names" in text
    # dotted and slashed names are paths, not the key
    assert 'metric="grpo/loss", module="trainers.rl.grpo"' in text
    assert 'source="my-algo policy"' in text
    assert "GRPOTrainer" not in text.replace("GRPOGuardTrainer", "").replace("GRPOTrainerMixin", "")


def test_only_the_named_class_and_the_helpers_it_uses_are_copied():
    """Rule: the named class and its helpers, transitively (``grpo_advantages`` -> ``_scale`` ->
    ``CLIP``); the neighbour algorithm and what only it uses stay behind."""
    names = top_level_names(copy_grpo())
    assert names == {"MyAlgoTrainer", "grpo_advantages", "_scale", "CLIP", "__all__"}


def test_imports_are_pruned_and_re_based_to_the_new_module():
    """Rule: imports the copy does not use go; relative imports point where they pointed from
    the new module's place; the source's arguments module becomes the new arguments module
    (also inside a function)."""
    text = copy_grpo("flow_factory.trainers.newcat.sub")
    assert "never_used" not in text
    assert "from ....hparams.training_args.my_algo import MyAlgoTrainingArguments" in text
    assert "from ...abc import BaseTrainer" in text
    assert "from ....hparams.training_args.my_algo import GRPO_DEFAULTS" in text
    assert "import math" in text and "from typing import TYPE_CHECKING, Any" in text
    # the annotation-only import under TYPE_CHECKING stays (the copy names it in a string)
    assert "from ...role_optimization import RoleUpdatePlan" in text
    compile(text, "copy.py", "exec")


def test_all_lists_the_copied_public_names_and_the_docstring_is_replaced():
    text = copy_grpo()
    tree = ast.parse(text)
    assert ast.get_docstring(tree) == "A copy."
    all_value = next(
        n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"
    )
    assert ast.literal_eval(all_value) == ["MyAlgoTrainer", "grpo_advantages"]


def test_a_class_of_another_algorithm_is_imported_from_the_source_not_copied():
    """Rule: copying GRPO-Guard keeps its base ``GRPOTrainer`` where it is: imported from the
    source module, never duplicated."""
    spec = CopySpec(
        roots=("GRPOGuardTrainer",),
        renames=Renames(
            {"GRPOGuardTrainer": "MyGuardTrainer"},
            {"grpo-guard": "my-guard"},
            {},
            "flow_factory.trainers.rl",
            "flow_factory.trainers.rl",
        ),
        source_module=SOURCE,
        external=frozenset({"GRPOTrainer"}),
    )
    copied = copy_module(TWO_ALGORITHMS, spec)
    assert copied.imported == ("GRPOTrainer",)
    assert "from .grpo import GRPOTrainer" in copied.text
    assert top_level_names(copied.text) == {
        "MyGuardTrainer",
        "guard_helper",
        "GUARD_ONLY",
        "__all__",
    }
    assert "class MyGuardTrainer(GRPOTrainer):" in copied.text
    assert '"""GRPO-Guard: a strict extension of GRPOTrainer."""' in copied.text


def test_a_parenthesised_import_keeps_its_form_when_pruned():
    source = (
        "from ..common import (\n    alpha,\n    beta,\n    gamma,\n)\nfrom ..x import a, b\n\n\n"
        "class T:\n    def f(self):\n        return alpha, gamma, a\n"
    )
    spec = CopySpec(("T",), Renames({"T": "U"}, {}, {}, "p.q", "p.q"), "p.q.m")
    text = copy_module(source, spec).text
    assert "from ..common import (\n    alpha,\n    gamma,\n)\n" in text
    assert "from ..x import a\n" in text


def test_relative_module_arithmetic():
    assert absolute_module("flow_factory.trainers.rl", 2, "abc") == "flow_factory.trainers.abc"
    assert absolute_module("flow_factory.trainers.rl", 1, None) == "flow_factory.trainers.rl"
    assert relative_to("flow_factory.trainers.rl", "flow_factory.samples") == (3, "samples")
    assert relative_to("flow_factory.trainers.rl", "flow_factory.trainers.rl.grpo") == (1, "grpo")
    assert relative_to("flow_factory.trainers.a.b", "flow_factory.trainers") == (3, None)


def test_imports_for_keeps_only_the_lines_binding_the_names():
    lines = imports_for(TWO_ALGORITHMS, renames(), {"Any", "BaseTrainer"})
    assert lines == ["from typing import Any\n", "from ..abc import BaseTrainer\n"]
