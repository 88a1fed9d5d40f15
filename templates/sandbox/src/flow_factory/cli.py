"""Console script ``ff-train CONFIG``."""

from __future__ import annotations

import sys

from .train import main


def train_cli() -> None:
    """Entry point of the ``ff-train`` script."""
    sys.exit(main())


__all__ = ["train_cli"]
