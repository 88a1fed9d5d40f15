"""``ModelBundle``: the one prepared root holding every trainable role's network."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torch import nn


class ModelBundle(nn.Module):
    """Every trainable member under one module, so ``accelerator.prepare`` sees one root."""

    def __init__(self, members: Mapping[str, nn.Module]) -> None:
        super().__init__()
        self.members = nn.ModuleDict(dict(members))

    @property
    def _no_split_modules(self) -> list[str]:
        return []

    def forward(self, component_name: str, *args: Any, **kwargs: Any) -> Any:
        """Run member ``component_name``."""
        return self.members[component_name](*args, **kwargs)


__all__ = ["ModelBundle"]
