"""Load example configs with a checkout's own argument classes (run with its ``src`` on the path).

Usage: ``python _load_examples.py PAIRS_JSON OUT_JSON``; ``PAIRS_JSON`` maps a name to
``{"generated": path, "base": path}``. Each generated example is parsed whole with
``Arguments.from_dict``; each base example's ``model:`` block with ``ModelArguments.from_dict``,
which is what ``Arguments.from_dict`` applies to that section. Writes name -> ``{"generated":
model args as a dict, "base": model args as a dict}``, or ``{"error": why}`` when parsing raised.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml


def _load(path: str) -> dict:
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def _plain(value: object) -> object:
    """JSON-safe copy (dtypes and other objects as their text)."""
    return json.loads(json.dumps(value, default=str))


def _one(pair: dict) -> dict:
    from flow_factory.hparams import Arguments, ModelArguments

    try:
        generated = Arguments.from_dict(_load(pair["generated"])).model_args.to_dict()
        base = ModelArguments.from_dict(_load(pair["base"])["model"]).to_dict()
    except Exception as exc:  # noqa: BLE001 (reported to the test, which names the example)
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"generated": _plain(generated), "base": _plain(base)}


def main(pairs_json: str, out_json: str) -> None:
    pairs = json.loads(Path(pairs_json).read_text(encoding="utf-8"))
    results = {name: _one(pair) for name, pair in pairs.items()}
    Path(out_json).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
