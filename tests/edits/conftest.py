"""Every edit these tests run also holds ``code_after`` (the text made by writing out only the
replaced statements) to libcst writing out the whole edited module."""

import pytest

from ffgen.edits import base


@pytest.fixture(autouse=True)
def _spliced_text_is_the_whole_module_s(monkeypatch):
    spliced = base.code_after
    calls = []

    def checked(old, new, text):
        made = spliced(old, new, text)
        assert made == new.code, "code_after differs from the edited module's code"
        calls.append(made)
        return made

    monkeypatch.setattr(base, "code_after", checked)
    yield calls
