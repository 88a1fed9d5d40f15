"""ffgen.digests gives hashlib's digests, from whichever implementation it found."""

import hashlib

import pytest

from ffgen import digests


@pytest.mark.parametrize("data", [b"", b"abc", bytes(range(256)) * 300])
def test_the_digests_are_hashlib_s(data):
    assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert digests.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()
    grown = digests.sha256()
    grown.update(data[:7])
    grown.update(data[7:])
    assert grown.hexdigest() == hashlib.sha256(data).hexdigest()
