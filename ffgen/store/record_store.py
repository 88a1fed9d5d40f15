"""Where a record's pristine texts live: compressed, next to the readable answers.

A record (``.ffgen/answers/<key>.yml``) stays small, readable YAML: the answers, and for every file
ffgen created its path and sha256. The pristine texts themselves (the base of ``update``'s
three-way merge: what ffgen rendered, which today's templates may no longer render) cannot be
re-derived once ffgen changes, so they are kept, but out of the way:

- ``.ffgen/base/<key>.b85``: the algorithm's own texts (its files and docs section), one JSON
  object ``{sha256: text}``, zlib-compressed, base85 in lines of 100 (read it with
  ``ffgen.store.record_store.decode``);
- ``.ffgen/base/shared/<sha256>.b85``: a text several algorithms share (the checklist every
  generated suite imports), stored once however many records list it, and deleted with the last;
  the same JSON, compressed the same way;
- ``.ffgen/base/.gitattributes``: ``-diff`` and ``linguist-generated``, so reviews and
  ``git diff`` show a changed base as one line, not pages of base85.

One algorithm then costs about 11 KB (2 KB of YAML, 9 KB of base: its ~21 KB of texts); the
checklist's ~23 KB once per checkout. Encoding is deterministic (sorted keys, fixed settings),
and a base that decodes to the same texts counts as unchanged, so another zlib build (or a base
an older ffgen compressed with xz) never shows a change.

Why zlib (level 6): xz would make a base 3-6% smaller in ten times the time (9.7 ms against
0.7 ms for an offline DPO's texts, a fiftieth of ``new``). Bases an older ffgen wrote with xz
still read: ``decode`` tells the two apart by xz's magic bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import zlib

from ffgen.errors import RefusedError

BASE_DIR = ".ffgen/base"
SHARED_DIR = f"{BASE_DIR}/shared"
ATTRIBUTES = f"{BASE_DIR}/.gitattributes"
ATTRIBUTES_TEXT = (
    "# ffgen's merge bases (see .ffgen/answers): compressed, not for review\n"
    "*.b85 -diff linguist-generated=true\n"
)


EXTENSION = ".b85"
LINE = 100  # characters per line of a base file
_ZLIB_LEVEL = 6  # zlib's default: its smallest (9) saves 0.4% here, for half again the time
_XZ_MAGIC = b"\xfd7zXZ\x00"  # every xz stream starts so; a zlib stream never does


def sha256(text: str) -> str:
    """The hex sha256 of ``text`` in UTF-8: how records, merge bases and stored renders name a
    text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def pack_path(key: str) -> str:
    return f"{BASE_DIR}/{key}{EXTENSION}"


def blob_path(digest: str) -> str:
    return f"{SHARED_DIR}/{digest}{EXTENSION}"


def encode(texts: list[str]) -> str:
    """The texts, keyed by their sha256, as base85 of zlib-compressed JSON (an algorithm's own
    base and a shared text alike)."""
    data = json.dumps({sha256(t): t for t in texts}, sort_keys=True, ensure_ascii=False)
    packed = base64.b85encode(zlib.compress(data.encode("utf-8"), _ZLIB_LEVEL)).decode()
    return "".join(packed[i : i + LINE] + "\n" for i in range(0, len(packed), LINE))


def decode(text: str, where: str) -> dict[str, str]:
    """``{sha256: text}`` of a base file; a damaged one is refused naming it."""
    try:
        packed = base64.b85decode("".join(text.split()).encode("ascii"))
        data = json.loads(_decompress(packed))
    except (ValueError, zlib.error, EOFError, UnicodeError):
        raise RefusedError(
            f"{where} is damaged (not ffgen's base85 of compressed JSON); restore it from "
            "version control"
        ) from None
    if not isinstance(data, dict) or not all(
        isinstance(v, str) and sha256(v) == k for k, v in data.items()
    ):
        raise RefusedError(f"{where}: a text does not match its sha256; restore it from version "
                           "control")
    return data


def _decompress(packed: bytes) -> bytes:
    """zlib, or xz (what an older ffgen wrote), told apart by xz's magic bytes."""
    if not packed.startswith(_XZ_MAGIC):
        return zlib.decompress(packed)
    import lzma  # only for a base an older ffgen wrote

    try:
        return lzma.decompress(packed, format=lzma.FORMAT_XZ)
    except lzma.LZMAError as exc:
        raise ValueError(str(exc)) from None


def unchanged(old: str | None, texts: list[str]) -> bool:
    """Whether the base file ``old`` already holds exactly ``texts``."""
    if old is None:
        return False
    try:
        return decode(old, "base") == {sha256(t): t for t in texts}
    except RefusedError:
        return False


class Texts:
    """The pristine texts a record names, read from its base files on first use."""

    def __init__(self, read, key: str) -> None:
        self._read = read  # relative path -> text or None (a CheckoutView's read)
        self._key = key
        self._loaded: dict[str, dict[str, str]] = {}

    def get(self, digest: str, shared: bool, label: str) -> str:
        path = blob_path(digest) if shared else pack_path(self._key)
        texts = self._file(path)
        if digest not in texts:
            raise RefusedError(
                f"{path} lacks the pristine text of {label} (sha256 {digest[:12]}...); restore "
                "it from version control"
            )
        return texts[digest]

    def _file(self, path: str) -> dict[str, str]:
        if path not in self._loaded:
            text = self._read(path)
            if text is None:
                raise RefusedError(
                    f"{path} is missing: it holds the pristine texts `ffgen update` merges from; "
                    "restore it from version control"
                )
            self._loaded[path] = decode(text, path)
        return self._loaded[path]


# -- the record's YAML data, without and with its texts ----------------------------------------

_KEY_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_DIGEST_RE = re.compile(r"^[0-9a-f]{64}$")


def externalize(data: dict) -> tuple[list[str], list[str]]:
    """Take the texts out of a record's data (in place): files and source texts keep their
    sha256, the docs section becomes one; returns (own texts, shared texts)."""
    own: list[str] = []
    shared: list[str] = []
    for entry in data.get("files", []):
        (shared if entry.get("shared") else own).append(entry.pop("pristine"))
        if not entry.get("shared"):
            entry.pop("shared", None)
    docs = data.get("docs")
    if docs is not None:
        section = docs.pop("section")
        docs["sha256"] = sha256(section)
        own.append(section)
    for entry in (data.get("source") or {}).get("texts", []):
        own.append(entry.pop("pristine"))
    return own, shared


def base_files(key: str, own: list[str], shared: list[str]) -> dict[str, str]:
    """The base files holding a record's texts (see the module docstring)."""
    files = {pack_path(key): encode(own)}
    files.update((blob_path(sha256(text)), encode([text])) for text in shared)
    files[ATTRIBUTES] = ATTRIBUTES_TEXT
    return files


def shared_digests(data: object) -> set[str]:
    """The shared texts a record's data names (format 3), for collecting unused blobs."""
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return set()
    return {e["sha256"] for e in files if isinstance(e, dict) and e.get("shared") is True
            and isinstance(e.get("sha256"), str)}


def internalize(data: dict, read, where: str) -> dict:
    """A format-3 record's data with its texts put back from its base files (``read``: a view's
    reader); without ``read`` the texts are dropped, leaving what replays the answers."""
    key = data.get("key")
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise RefusedError(f"{where}: key {key!r} is not a registry key; restore the record")
    if read is None:
        return {k: v for k, v in data.items() if k not in ("docs", "source")} | {"files": []}
    texts = Texts(read, key)
    for entry in _entries(data.get("files")):
        _put(entry, "pristine", texts, entry.get("shared") is True, where, "files")
    docs = data.get("docs")
    if isinstance(docs, dict) and "section" not in docs:
        _put(docs, "section", texts, False, where, "docs")
    source = data.get("source")
    for entry in _entries(source.get("texts") if isinstance(source, dict) else None):
        _put(entry, "pristine", texts, False, where, "source.texts")
    return data


def _entries(items: object) -> list[dict]:
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _put(entry: dict, name: str, texts: Texts, shared: bool, where: str, field: str) -> None:
    """Fill ``entry[name]`` with the text its sha256 names (which the entry then drops when it
    is the docs section, whose sha256 is not a field of its own)."""
    label = f"{field}[{entry.get('path')}]"
    digest = entry.get("sha256")
    if not isinstance(digest, str) or not _DIGEST_RE.match(digest):
        raise RefusedError(f"{where}: {label}.sha256 must be a sha256, got {digest!r}")
    entry[name] = texts.get(digest, shared, label)
    if name == "section":
        del entry["sha256"]


# -- which base files go ---------------------------------------------------------------------


def same_base(old: str | None, new: str) -> bool:
    """Whether two base files hold the same texts (their bytes may differ across zlib builds)."""
    if old is None:
        return False
    if old == new:
        return True
    try:
        return decode(old, "base") == decode(new, "base")
    except RefusedError:
        return False


def unused_blobs(view, keep: set[str], except_record: str) -> list[str]:
    """Shared blobs no record but ``except_record`` names, less ``keep`` (paths). Nothing when a
    record cannot be read: a blob it may need is never collected on a guess."""
    import yaml

    named = set(keep)
    for path in view.files(".ffgen/answers/*.yml"):
        if path == except_record:
            continue
        try:
            data = yaml.safe_load(view.read(path) or "")
        except yaml.YAMLError:
            return []
        if not isinstance(data, dict):
            return []
        named |= {blob_path(d) for d in shared_digests(data)}
    return [p for p in view.files(f"{SHARED_DIR}/*{EXTENSION}") if p not in named]


def released(view, key: str, record_path: str) -> list[str]:
    """The base files that go with the record of ``key``: its pack, the shared blobs only it
    named, and the attributes file once no base is left."""
    gone = [p for p in (pack_path(key),) if view.exists(p)]
    gone += unused_blobs(view, set(), record_path)
    left = [p for p in view.files(f"{BASE_DIR}/**/*{EXTENSION}") if p not in gone]
    if not left and view.read(ATTRIBUTES) == ATTRIBUTES_TEXT:
        gone.append(ATTRIBUTES)
    return gone
