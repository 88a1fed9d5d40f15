"""Acceleration argument group (``acceleration:`` in YAML). The toy model has nothing to
accelerate: the group only keeps the keys it is given (in ``extra_kwargs``)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC


@dataclass
class AccelerationArguments(ArgABC):
    """No fields: every key lands in ``extra_kwargs``."""


__all__ = ["AccelerationArguments"]
