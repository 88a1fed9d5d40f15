"""Files as users have them: CRLF or mixed line endings, a UTF-8 BOM, a PEP 263 coding line.
`new` edits them keeping their form, `verify` reads them as Python does, and `remove` after
`new` gives back the very same bytes."""

from __future__ import annotations

import pytest

from ffgen.checkout.textfile import decode, encode_like
from ffgen.cli import app
from tests.helpers import SPECS, tree

ARGS_REGISTRY = "src/flow_factory/hparams/training_args/_registry.py"
TRAINER_REGISTRY = "src/flow_factory/trainers/registry.py"
ARGS_INIT = "src/flow_factory/hparams/training_args/__init__.py"
HPARAMS_INIT = "src/flow_factory/hparams/__init__.py"
GUIDE = "guidance/algorithms.md"
EDITED = (ARGS_REGISTRY, TRAINER_REGISTRY, ARGS_INIT, HPARAMS_INIT, GUIDE)


def crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def mixed(data: bytes) -> bytes:
    """Every other line CRLF."""
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    return b"".join(
        line + (b"" if i == len(lines) - 1 else (b"\r\n" if i % 2 else b"\n"))
        for i, line in enumerate(lines)
    )


def bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def latin1(data: bytes) -> bytes:
    return b"# -*- coding: latin-1 -*-\n# Caf\xe9 des algorithmes\n" + data


def reshape(root, shape, paths=EDITED) -> None:
    for rel in paths:
        path = root / rel
        path.write_bytes(shape(path.read_bytes()))


def new_then_remove(runner, root):
    args = ["new", "my-algo", "--checkout", str(root), "--yes", "--model-type", "toy",
            *SPECS["sft"]]
    created = runner.invoke(app, args)
    assert created.exit_code == 0, created.output
    verified = runner.invoke(app, ["verify", "--checkout", str(root)])
    assert verified.exit_code == 0, verified.output
    middle = tree(root)
    removed = runner.invoke(app, ["remove", "my-algo", "--checkout", str(root)])
    assert removed.exit_code == 0, removed.output
    return middle


@pytest.mark.parametrize("shape", [crlf, mixed], ids=["crlf", "mixed"])
def test_line_endings_are_kept_and_remove_is_byte_identical(runner, sandbox, shape):
    reshape(sandbox, shape)
    before = tree(sandbox)
    middle = new_then_remove(runner, sandbox)
    for rel in EDITED:
        edited, original = middle[rel], before[rel]
        assert edited != original, rel
        if shape is crlf:  # every line of an edited CRLF file ends in CRLF, added ones too
            assert edited.count(b"\n") == edited.count(b"\r\n"), rel
        else:  # the lines that were there keep their own endings
            assert edited.count(b"\r\n") >= original.count(b"\r\n"), rel
            assert edited.replace(b"\r\n", b"\n").count(b"\n") > original.count(b"\r\n"), rel
    assert tree(sandbox) == before


@pytest.mark.parametrize("shape", [bom, latin1], ids=["bom", "pep263"])
def test_bom_and_coding_lines_are_read_like_python_and_kept(runner, sandbox, shape):
    reshape(sandbox, shape, (ARGS_REGISTRY, TRAINER_REGISTRY, ARGS_INIT, HPARAMS_INIT))
    before = tree(sandbox)
    middle = new_then_remove(runner, sandbox)
    for rel in (ARGS_REGISTRY, TRAINER_REGISTRY):
        assert middle[rel].startswith(shape(b"")), rel
        assert b"my_algo" in middle[rel] or b"my-algo" in middle[rel], rel
    assert tree(sandbox) == before


def test_encode_like_keeps_each_lines_ending():
    old = b"a\r\nb\nc\r\n"
    assert encode_like(old, "a\nb\nX\nc\n", "f.py") == b"a\r\nb\nX\r\nc\r\n"
    assert encode_like(b"\xef\xbb\xbfa\n", "a\nb\n", "f.md") == b"\xef\xbb\xbfa\nb\n"
    assert decode(b"\xef\xbb\xbfa\r\nb", "f.py") == "a\nb"


def test_a_character_the_coding_line_cannot_hold_is_refused(runner, sandbox):
    from ffgen.errors import RefusedError

    old = b"# -*- coding: latin-1 -*-\nX = 1\n"
    with pytest.raises(RefusedError, match="cannot hold"):
        encode_like(old, "# -*- coding: latin-1 -*-\nX = '\u2192'\n", "f.py")
