"""A fresh render must equal the reviewed goldens.

Regenerate them with ``python -m ffgen.quality.golden --write``.
"""

import pytest

from ffgen.quality.golden import EXAMPLES, read_golden, render_example


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_fresh_render_matches_golden(example, tmp_path):
    golden = read_golden(example)
    assert golden, (
        f"generated_examples/{example} is missing; run python -m ffgen.quality.golden --write"
    )
    fresh = render_example(example, tmp_path)
    assert sorted(fresh) == sorted(golden)
    for path, text in fresh.items():
        assert text == golden[path], f"{example}/{path} differs from the golden copy"
