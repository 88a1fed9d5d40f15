"""sha256 and sha1 without starting OpenSSL.

``hashlib`` loads OpenSSL's library to offer its digests: about 3 ms of every command that hashes
anything, several times what ffgen's hashing itself costs (a few hundred KB per ``new``, which
CPython's own implementations hash in about a millisecond). Where those built-in modules are
missing (another Python), hashlib serves. The digests are the same either way.
"""

from __future__ import annotations

try:
    from _sha2 import sha256  # CPython 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # CPython 3.11 and earlier
    except ImportError:
        from hashlib import sha256
try:
    from _sha1 import sha1
except ImportError:
    from hashlib import sha1

__all__ = ["sha1", "sha256", "text_sha256"]


def text_sha256(text: str) -> str:
    """The hex sha256 of ``text`` in UTF-8: how records, merge bases and stored renders name a
    text."""
    return sha256(text.encode("utf-8")).hexdigest()
