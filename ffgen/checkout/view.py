"""Read-only access to a checkout, optionally overlaid with planned, unwritten changes.

``verify`` runs on a :class:`CheckoutView`, so ``new`` can check the tree it is *about* to write
without writing it (an :class:`Overlay`).
"""

from __future__ import annotations

import ast
import errno
import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ffgen.checkout import layout, textfile
from ffgen.errors import RefusedError, UsageError


class CheckoutView:
    """Relative-path, text-only view of a checkout on disk."""

    def __init__(self, root: Path, *, share_parses_with: CheckoutView | None = None) -> None:
        self.root = Path(root)
        # (kind, path, text) -> what ``parse`` made of the text: one parse per file per command.
        # Keyed by content, so views of copies of one checkout may share it.
        self._parsed: dict[tuple[str, str, str], object] = (
            {} if share_parses_with is None else share_parses_with.parse_cache()
        )

    def parse_cache(self) -> dict[tuple[str, str, str], object]:
        return self._parsed

    def parsed(self, kind: str, rel: str, text: str, parse: Callable[[str, str], object]):
        """``parse(text, rel)``, made once per file content and kind for this view and every
        overlay on it (an overlay's changed file is a different text, so a different entry).
        Callers share the result: they must not change it. An exception is not kept."""
        key = (kind, rel, text)
        if key not in self._parsed:
            self._parsed[key] = parse(text, rel)
        return self._parsed[key]

    def forget(self, rel: str) -> None:
        """Drop every parse of ``rel`` (its trees are no longer needed by this command)."""
        for key in [k for k in self._parsed if k[1] == rel]:
            del self._parsed[key]

    def python_tree(self, rel: str, text: str) -> ast.Module:
        """``ast.parse(text, filename=rel)``, shared (see :meth:`parsed`); raises like it."""
        return self.parsed("ast", rel, text, _parse_python)

    def read(self, rel: str) -> str | None:
        try:
            # O_NONBLOCK: a FIFO (or device) in a file's place opens at once and is refused
            # below, instead of waiting forever for a writer.
            fd = os.open(os.path.join(self.root, rel), os.O_RDONLY | os.O_NONBLOCK)
            with open(fd, "rb") as file:  # no Path per read: verify reads a hundred files
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise RefusedError(f"{rel} is not a regular file (a FIFO, socket or device); "
                                       "put the file back and re-run")
                data = file.read()
            # Decoded as Python reads source (BOM, PEP 263); apply writes it back the same way.
            return textfile.decode(data, rel)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, UnicodeEncodeError):
            return None  # UnicodeEncodeError: a name the file system's encoding cannot hold
        except UnicodeDecodeError as exc:
            raise RefusedError(
                f"{rel} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
                f"{exc.start}); save it as UTF-8 and re-run"
            ) from None
        except PermissionError:
            raise RefusedError(
                f"{rel} cannot be read (permission denied); make it readable and re-run"
            ) from None
        except OSError as exc:  # a name too long for the file system (a 300-character key)
            if exc.errno == errno.ENAMETOOLONG:
                return None
            raise

    def exists(self, rel: str) -> bool:
        try:
            return (self.root / rel).exists()
        except (UnicodeEncodeError, OSError):  # an unencodable or too long name: not there
            return False

    def is_dir(self, rel: str) -> bool:
        try:
            return (self.root / rel).is_dir()
        except (UnicodeEncodeError, OSError):
            return False

    def files(self, pattern: str) -> list[str]:
        """Relative paths of files matching a glob (``**`` allowed), sorted: what
        ``Path.glob`` finds (``**`` does not descend into linked folders), read with
        ``os.scandir``, several times faster on a checkout's trees."""
        found: set[str] = set()
        _glob(str(self.root), "", pattern.split("/"), found, {})
        return sorted(found)


class Overlay(CheckoutView):
    """A view in which ``changes`` (relative path -> new text) replace what is on disk."""

    def __init__(self, base: CheckoutView, changes: Mapping[str, str] | None = None) -> None:
        self.base = base
        self.changes: Mapping[str, str] = {} if changes is None else changes
        self.root = base.root

    def parsed(self, kind: str, rel: str, text: str, parse: Callable[[str, str], object]):
        return self.base.parsed(kind, rel, text, parse)

    def parse_cache(self) -> dict[tuple[str, str, str], object]:
        return self.base.parse_cache()

    def forget(self, rel: str) -> None:
        self.base.forget(rel)

    def read(self, rel: str) -> str | None:
        if rel in self.changes:
            return self.changes[rel]
        return self.base.read(rel)

    def exists(self, rel: str) -> bool:
        return rel in self.changes or self.base.exists(rel)

    def is_dir(self, rel: str) -> bool:
        prefix = rel.rstrip("/") + "/"
        return self.base.is_dir(rel) or any(p.startswith(prefix) for p in self.changes)

    def files(self, pattern: str) -> list[str]:
        extra = [p for p in self.changes if _glob_match(p, pattern)]
        return sorted(set(self.base.files(pattern)) | set(extra))


def _glob(root: str, rel: str, parts: list[str], found: set[str],
          listed: dict[str, list[tuple[str, bool, bool, bool]]]) -> None:
    """Add to ``found`` the files under ``root/rel`` that match the glob segments ``parts``
    (``listed``: the folders this search has read, since ``**`` comes back to each)."""
    part, rest = parts[0], parts[1:]
    if part == "**":
        if rest:
            _glob(root, rel, rest, found, listed)  # ``**`` matches no folder too
        for name, is_dir, is_link, _ in _entries(root, rel, listed):
            if is_dir and not is_link:
                _glob(root, f"{rel}{name}/", parts, found, listed)
        return
    for name, is_dir, _, is_file in _entries(root, rel, listed):
        if part != "*" and not fnmatch.fnmatchcase(name, part):
            continue
        if not rest:
            if is_file:
                found.add(rel + name)
        elif is_dir:
            _glob(root, f"{rel}{name}/", rest, found, listed)


def _entries(root: str, rel: str, listed: dict) -> list[tuple[str, bool, bool, bool]]:
    """(name, is a folder, is a link, is a file) for each entry, links followed as
    ``os.path.isdir``/``isfile`` follow them; none when unreadable. Read once per search."""
    if rel in listed:
        return listed[rel]
    out = []
    try:
        with os.scandir(os.path.join(root, rel) if rel else root) as entries:
            for entry in entries:
                try:
                    out.append((entry.name, entry.is_dir(), entry.is_symlink(), entry.is_file()))
                except OSError:
                    continue
    except (OSError, UnicodeEncodeError):
        out = []
    listed[rel] = out
    return out


def _parse_python(text: str, rel: str) -> ast.Module:
    tree = ast.parse(text, filename=rel)
    _RECENT[(rel, text)] = tree
    if len(_RECENT) > _RECENT_SIZE:
        del _RECENT[next(iter(_RECENT))]  # the oldest: a dict keeps insertion order
    return tree


# The last parses of this process, for apply's compile check of the texts it writes: the
# conformance check parsed each rendered module moments before, and compiling that tree costs
# two thirds of compiling the text again. Bounded, so a long-lived process does not grow.
_RECENT: dict[tuple[str, str], ast.Module] = {}
_RECENT_SIZE = 64


def recent_tree(rel: str, text: str) -> ast.Module | None:
    """The tree a view parsed from exactly ``text`` at ``rel`` lately, if any (do not change it)."""
    return _RECENT.get((rel, text))


def _glob_match(path: str, pattern: str) -> bool:
    return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern.replace("**/", ""))


def _has_markers(root: Path, markers: Iterable[str]) -> bool:
    return all((root / m).exists() for m in markers)


def find_root(explicit: Path | None, start: Path | None = None) -> Path:
    """The checkout root: ``explicit`` if given, else the nearest parent that looks like one.

    Raises a :class:`RefusedError` for an older layout and a :class:`UsageError` when no
    checkout is found.
    """
    if explicit is not None:
        root = Path(explicit).resolve()
        if root.exists() and not root.is_dir():
            raise UsageError(f"--checkout {explicit} is a file, not a folder; pass the checkout's "
                             "root folder")
        if not root.is_dir():
            raise UsageError(f"--checkout {explicit}: no such directory; pass a checkout root")
        check_layout(root)
        return root
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / layout.PKG).is_dir():
            check_layout(candidate)
            return candidate
    raise UsageError(
        f"no Flow-Factory checkout found at or above {here}; "
        "run inside one or pass --checkout DIR (try `ffgen sandbox DIR` for a practice checkout)"
    )


def check_layout(root: Path) -> None:
    """Refuse anything that is not a recent-layout Flow-Factory checkout, saying why."""
    if not (root / layout.PKG).is_dir():
        raise UsageError(
            f"{root} is not a Flow-Factory checkout: {layout.PKG}/ is missing; "
            "pass the repository root with --checkout"
        )
    if (root / layout.OLD_TRAINING_ARGS_MODULE).is_file() or not (
        root / layout.CONTRACTS_EXECUTION
    ).is_file():
        missing = [
            m for m in (layout.CONTRACTS_EXECUTION, layout.ARGS_REGISTRY) if not (root / m).exists()
        ]
        raise RefusedError(
            f"{root} has an older Flow-Factory layout (missing {', '.join(missing) or 'the'}"
            f"{'' if missing else ' training_args package'}); ffgen needs the execution-contract "
            "layout with hparams/training_args/ as a package: update the checkout first"
        )
    missing = [m for m in layout.RECENT_LAYOUT_MARKERS if not (root / m).exists()]
    if missing:
        raise RefusedError(
            f"{root} is not a complete Flow-Factory checkout: missing {', '.join(missing)}"
        )
