"""The matrix of legal classifications is exactly what the rules allow.

That every legal point plans cleanly on the sandbox, passes the conformance check and leaves
`ffgen verify` with nothing to report is `ffgen check-templates`' job, which CI runs in
tests/core/test_check_templates.py (it writes each point into a sandbox copy and verifies it).
"""

from ffgen.classify.rules import legal_classifications


def test_the_matrix_is_what_the_rules_allow():
    found = list(legal_classifications())
    # dataset: 3 supervisions x 3 dynamics x 2 states x ownership (DPO: snapshots or multi_role,
    # others all 3) x 2 finetune types; generation: grpo (sde only) + awm (3 dynamics) + opd
    # (3 dynamics, snapshots) + dmd (opd's multi_role, 3 dynamics) -- each x 2 states x 2
    # finetune types.
    dataset = (2 + 3 + 3) * 3 * 2 * 2
    generation = (1 * 3 + 3 * 3 + 3 * 2) * 2 * 2
    assert len(found) == dataset + generation
    assert {c.family.value for c in found} == {
        "sft",
        "offline_dpo",
        "record",
        "grpo",
        "awm",
        "opd",
        "dmd",
    }
