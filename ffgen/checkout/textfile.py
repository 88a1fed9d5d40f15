"""Text files as users have them: read the way Python reads source, written back the same way.

ffgen plans on plain text (``str`` with ``\\n`` line ends). Reading, a ``.py`` file is decoded as
Python decodes it (a UTF-8 BOM, or a PEP 263 coding line); any other file as UTF-8 with an
optional BOM; ``\\r\\n`` and ``\\r`` become ``\\n`` (as :func:`open` does). Writing over an existing
file, :func:`encode_like` puts back what reading took away: the BOM, the encoding, and each
line's own ending (an unchanged line keeps its ``\\r\\n`` or ``\\n``; an added line takes the file's
most common ending), so an edit of a CRLF checkout stays CRLF and ``remove`` after ``new`` is
byte-identical. A file ffgen creates is UTF-8 with ``\\n``.
"""

from __future__ import annotations

import re
from collections import Counter

from ffgen.errors import RefusedError

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def encoding_of(data: bytes, rel: str) -> str:
    """The codec that reads ``data`` (``utf-8-sig`` when it starts with a BOM)."""
    bom = data.startswith(b"\xef\xbb\xbf")
    if not rel.endswith(".py") or b"coding" not in b"\n".join(data.split(b"\n", 2)[:2]):
        # no coding line can be there (PEP 263 looks at the first two lines only): what
        # tokenize would say, without importing it for every file of a checkout
        return "utf-8-sig" if bom else "utf-8"
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if str(exc.args[0]).startswith("invalid or missing"):
            return "utf-8"  # not UTF-8 and no coding line: the decode error names the byte
        # an unknown codec, or a coding line that contradicts a BOM
        raise RefusedError(f"{rel}: {exc.args[0]}; fix its coding line and re-run") from None
    return encoding


def decode(data: bytes, rel: str) -> str:
    """The text ffgen plans on; a :class:`UnicodeDecodeError` is left to the caller."""
    text = data.decode(encoding_of(data, rel))
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def encode_like(old: bytes, new: str, rel: str) -> bytes:
    """``new`` in the encoding, BOM and line endings of ``old`` (the file it replaces).

    Raises :class:`RefusedError` when ``new`` has a character the file's encoding cannot hold.
    """
    encoding = encoding_of(old, rel)
    raw = old.decode(encoding)
    text = _with_endings(raw, new) if "\r" in raw else new
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise RefusedError(
            f"{rel}: the planned text has {exc.object[exc.start]!r}, which its encoding "
            f"{encoding} cannot hold; nothing was written"
        ) from None


def _split(text: str) -> tuple[list[str], list[str]]:
    """Lines without their endings, and the endings (``""`` for a last line without one)."""
    bodies, ends = [], []
    for match in _LINE.finditer(text):
        line = match.group()
        body = line.rstrip("\r\n")
        bodies.append(body)
        ends.append(line[len(body):])
    return bodies, ends


def _with_endings(raw: str, new: str) -> str:
    old_bodies, old_ends = _split(raw)
    new_bodies, new_ends = _split(new)
    counts = Counter(e for e in old_ends if e)
    common = min(counts, key=lambda e: (-counts[e], e)) if counts else "\n"
    ends = [common if e else "" for e in new_ends]
    import difflib

    matcher = difflib.SequenceMatcher(None, old_bodies, new_bodies, autojunk=False)
    for tag, i1, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(j2 - j1):
                if new_ends[j1 + offset] and old_ends[i1 + offset]:
                    ends[j1 + offset] = old_ends[i1 + offset]
    return "".join(body + end for body, end in zip(new_bodies, ends, strict=True))
