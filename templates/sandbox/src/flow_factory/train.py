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

"""``python -m flow_factory.train CONFIG``: YAML -> Arguments -> load_trainer -> start()."""

from __future__ import annotations

import sys
from typing import Any

from .hparams import Arguments
from .trainers.loader import load_trainer


def load_config(path: str) -> Arguments:
    """Parse a YAML config file into ``Arguments``."""
    return Arguments.load_from_yaml(path)


def train(config_path: str) -> Any:
    """Train from a config file; returns the trainer (``sandbox_support.cycle_history`` reads
    its cycle metrics)."""
    trainer = load_trainer(load_config(config_path))
    trainer.start()
    return trainer


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: exactly one argument, the YAML config path."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m flow_factory.train CONFIG.yaml", file=sys.stderr)
        return 2
    train(argv[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
