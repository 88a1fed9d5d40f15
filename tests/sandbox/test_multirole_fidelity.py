"""The sandbox's multi-role modules keep the real names and signatures (static, ``ast``).

``flow_factory.trainers.role_optimization`` and ``flow_factory.models.model_bundle`` are compared
class by class with the facts in ``tests/fixtures/flow_factory_api.json``, by the compatibility
rule of ``test_api_fidelity.py``: every real class exists, every real method (``__init__``
included) exists with a compatible signature, every real data member exists; a public sandbox
member the real class lacks must be named in ``docs/sandbox-api.md``.
"""

from __future__ import annotations

import pytest
from test_api_fidelity import (
    DOC,
    SANDBOX,
    api,
    incompatibility,
    is_compared,
    is_private,
    member_from_text,
    read_module,
)

MODULES = ("flow_factory.trainers.role_optimization", "flow_factory.models.model_bundle")
# Classes the sandbox leaves out (the real one routes PEFT components; the sandbox has one net).
NOT_MODELLED = {("flow_factory.models.model_bundle", "RoutedComponentProxy")}


def _pairs():
    for module in MODULES:
        for name in sorted(api()[module]["classes"]):
            if (module, name) not in NOT_MODELLED:
                yield module, name


@pytest.mark.parametrize(("module", "name"), list(_pairs()))
def test_sandbox_class_fits_the_real_one(module, name):
    facts = read_module(SANDBOX, module)
    assert facts is not None and name in facts.classes, f"sandbox lacks {module}.{name}"
    real = api()[module]["classes"][name]
    ours = facts.classes[name].members()
    problems = []
    for method, text in real["methods"].items():
        if not is_compared(method) and method != "__post_init__":
            continue
        if is_private(method):
            continue  # private helpers are implementation details on both sides
        if method not in ours:
            problems.append(f"missing method {method}")
            continue
        why = incompatibility(ours[method], member_from_text(method, text))
        if why:
            problems.append(f"{method}: {why}")
    for attribute in [*real["class_attributes"], *real["instance_attributes"]]:
        if not is_private(attribute) and attribute not in ours:
            problems.append(f"missing data member {attribute}")
    doc = DOC.read_text(encoding="utf-8")
    known = set(real["methods"]) | set(real["class_attributes"]) | set(real["instance_attributes"])
    for member in sorted(ours):
        if is_private(member) or not is_compared(member) or member in known:
            continue
        if f"`{member}`" not in doc:
            problems.append(f"sandbox-only member {member} is not described in {DOC.name}")
    assert not problems, f"{module}.{name}:\n" + "\n".join(problems)


def test_the_comparison_sees_a_wrong_signature():
    """The rule this file applies would catch a coordinator built without its roles."""
    wrong = member_from_text("__init__", "(self, accelerator, model_bundle, optimizer)")
    real = api()["flow_factory.trainers.role_optimization"]["classes"][
        "RoleOptimizationCoordinator"]["methods"]["__init__"]
    assert incompatibility(wrong, member_from_text("__init__", real)) is not None
