"""Every legal classification plans cleanly on the sandbox and the result passes `ffgen verify`.

``build_plan`` checks the imported symbols against the checkout as it would be, and
``check_plan_verifies`` runs the verify rules on that overlay; either raises on a problem.
"""

import pytest

from ffgen.checkout import CheckoutView, Overlay
from ffgen.classify import legal_classifications
from ffgen.context import build_context
from ffgen.facts import read_facts
from ffgen.names import parse_name
from ffgen.plan import build_plan, check_plan_verifies
from ffgen.verify import run_verify


def test_the_matrix_is_what_the_rules_allow():
    found = list(legal_classifications())
    # dataset: 3 supervisions x 3 dynamics x 2 states x ownership (DPO: snapshots or multi_role,
    # others all 3) x 2 finetune types; generation: grpo (sde only) + awm (3 dynamics) + opd
    # (3 dynamics, snapshots or multi_role) -- each x 2 states x 2 finetune types.
    dataset = (2 + 3 + 3) * 3 * 2 * 2
    generation = (1 * 3 + 3 * 3 + 3 * 2) * 2 * 2
    assert len(found) == dataset + generation
    assert {c.family.value for c in found} == {"sft", "offline_dpo", "record", "grpo", "awm",
                                                "opd"}


@pytest.fixture(scope="module")
def sandbox_view(tmp_path_factory):
    from ffgen.sandbox import create_sandbox

    return CheckoutView(create_sandbox(tmp_path_factory.mktemp("matrix") / "checkout"))


def test_every_legal_classification_plans_and_verifies(sandbox_view):
    facts = read_facts(sandbox_view)
    names = parse_name("my-algo")
    families = set()
    for c in legal_classifications():
        ctx = build_context(names, c)
        plan = build_plan(sandbox_view, facts, names, c, ctx)
        check_plan_verifies(sandbox_view, plan)  # raises RefusedError on any new finding
        after = Overlay(base=sandbox_view, changes={ch.path: ch.new for ch in plan.changes})
        report = run_verify(after, algorithm="my-algo")
        assert not report.errors, (c.answers, report.errors[:3])
        families.add(c.family)
    assert len(families) == 6
