"""The generated checklist runs on real parts wherever they run on CPU in a test.

The accelerator is a real ``accelerate.Accelerator`` (CPU, one process), so the base trainer's
exact-state checkpoint path meets the members the framework's reads (``distributed_type``,
``project_configuration``, ``process_index``, ...). What stays a stand-in (the one-parameter model,
its scheduler, the multi-role coordinator over it) says in its docstring why it is fake.
"""

from __future__ import annotations

import ast

from _render import legal_contexts

from ffgen.generate import render


def _checklists() -> list[str]:
    """Each distinct render of the checklist over every legal classification."""
    return sorted({render.render(render.CHECKLIST_TEMPLATE, ctx) for ctx in legal_contexts()})


def test_the_checklist_builds_its_trainers_on_a_real_accelerator():
    for text in _checklists():
        assert "FakeAccelerator" not in text
        tree = ast.parse(text)
        imported = {
            (node.module, alias.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert ("accelerate", "Accelerator") in imported
        built = [
            node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "Accelerator"
        ]
        assert [ast.unparse(call) for call in built] == [
            "Accelerator(cpu=True, gradient_accumulation_steps=WINDOW)"
        ]


def test_every_remaining_stand_in_says_why_it_is_fake():
    """A class standing in for a framework part (``Fake*``, or one whose docstring says it stands
    in) gives the reason its real counterpart is not used."""
    for text in _checklists():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ClassDef):
                continue
            doc = " ".join((ast.get_docstring(node) or "").split())
            if "Fake" in node.name or doc.startswith("Stands in"):
                assert "Fake because" in doc, node.name
