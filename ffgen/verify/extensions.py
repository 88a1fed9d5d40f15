"""The strict extensions Flow-Factory sanctions, and whether a trainer documents being one.

A checkout declares them in its algorithm skill (``.agents/skills/ff-new-algorithm/SKILL.md``:
"the existing sanctioned strict extensions are GRPO-Guard/DPPO from GRPO and TDM-R1 from TDM");
ffgen reads that sentence where the checkout has it, else it takes the known list
(``SANCTIONED_EXTENSIONS``). A trainer that inherits another trainer is a documented strict
extension when its class docstring says "strict extension" and names its parent (the parent's
key or trainer class).
"""

from __future__ import annotations

import ast
import re

from ffgen.checkout.view import CheckoutView
from ffgen.verify.catalogue import SANCTIONED_EXTENSIONS

SKILL_PATH = ".agents/skills/ff-new-algorithm/SKILL.md"
_SENTENCE = re.compile(
    r"sanctioned\s+strict\s+extensions?\s+(?:are|is)\s+(?P<list>.+?)\.(?:\s|$)",
    re.IGNORECASE | re.DOTALL,
)
_PAIR = re.compile(r"(?P<children>[A-Za-z0-9][\w/-]*)\s+from\s+(?P<parent>[A-Za-z0-9][\w-]*)")


def sanctioned_extensions(view: CheckoutView) -> dict[str, str]:
    """Child key -> parent key, from the checkout's own declaration when it has one."""
    text = view.read(SKILL_PATH)
    match = _SENTENCE.search(text) if text else None
    if match is None:
        return dict(SANCTIONED_EXTENSIONS)
    found: dict[str, str] = {}
    for pair in _PAIR.finditer(" ".join(match.group("list").split())):
        parent = pair.group("parent").lower()
        for child in pair.group("children").split("/"):
            found[child.lower()] = parent
    return found or dict(SANCTIONED_EXTENSIONS)


def sanctioned_parents(view: CheckoutView) -> tuple[str, ...]:
    """The keys whose trainers may be extended, in the order the declaration names them."""
    return tuple(dict.fromkeys(sanctioned_extensions(view).values()))


def documents_extension(docstring: str | None, parent_key: str, parent_class: str) -> bool:
    """The docstring says it is a strict extension and names the parent."""
    if not docstring or "strict extension" not in " ".join(docstring.lower().split()):
        return False
    words = set(re.findall(r"[A-Za-z0-9_-]+", docstring))
    lowered = {w.lower() for w in words}
    return parent_class in words or parent_key.lower() in lowered


def class_docstring(node: ast.ClassDef | None) -> str | None:
    return ast.get_docstring(node) if node is not None else None
