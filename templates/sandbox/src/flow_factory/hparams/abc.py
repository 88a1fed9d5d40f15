"""``ArgABC``: dataclass base for argument groups that keeps unknown keys and acts as a mapping."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class ArgABC:
    """Base of every argument group.

    Unknown keys given to :meth:`from_dict` land in ``extra_kwargs``; attribute access falls back to
    them, and the object is a read-only mapping so trainers can write ``{**training_args}``.
    """

    extra_kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, args_dict: Mapping[str, Any]) -> ArgABC:
        """Build from a mapping; keys that are not init fields go to ``extra_kwargs``."""
        if not isinstance(args_dict, Mapping):
            raise TypeError(f"{cls.__name__}.from_dict expects a mapping, got {type(args_dict)!r}")
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        known = {k: v for k, v in args_dict.items() if k in names and k != "extra_kwargs"}
        extra = dict(args_dict.get("extra_kwargs") or {})
        extra.update({k: v for k, v in args_dict.items() if k not in names})
        return cls(**known, extra_kwargs=extra)

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a flat dict, with ``extra_kwargs`` merged in."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        extra = data.pop("extra_kwargs", {}) or {}
        return {**data, **extra}

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails; read ``__dict__`` directly to avoid recursion.
        extra = self.__dict__.get("extra_kwargs") or {}
        if name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def keys(self) -> list[str]:
        """Mapping protocol: field names (without ``extra_kwargs``) then extra keys."""
        return list(self.to_dict().keys())

    def __getitem__(self, key: str) -> Any:
        data = self.to_dict()
        if key not in data:
            raise KeyError(key)
        return data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __contains__(self, key: object) -> bool:
        return key in self.to_dict()

    def __len__(self) -> int:
        return len(self.to_dict())

    def get(self, key: str, default: Any = None) -> Any:
        """Mapping ``get``."""
        return self.to_dict().get(key, default)
