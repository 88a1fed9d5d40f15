# Copyright 2026 The ffgen authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""``ArgABC``: dataclass base for argument groups; keeps unknown keys in ``extra_kwargs``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class ArgABC:
    """Base of every argument group.

    Unknown keys given to :meth:`from_dict` land in ``extra_kwargs`` (read them there: attribute
    access does not fall back to them). ``keys()`` and ``[key]`` make ``{**training_args}``
    work, as in the real framework; the object is no full mapping (no ``len``/``in``/``get``).
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

    def keys(self) -> list[str]:
        """Mapping protocol: field names (without ``extra_kwargs``) then extra keys."""
        return list(self.to_dict().keys())

    def __getitem__(self, key: str) -> Any:
        data = self.to_dict()
        if key not in data:
            raise KeyError(key)
        return data[key]
