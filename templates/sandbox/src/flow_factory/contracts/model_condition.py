"""Reserved condition keys that never reach the model forward."""

from __future__ import annotations

#: Bookkeeping keys carried beside model conditions (text, ids, metadata).
CONDITION_METADATA_KEYS = frozenset({"prompt", "negative_prompt", "metadata", "record_id"})
#: Keys owned by the training runtime (samples, rewards, advantages).
RUNTIME_SAMPLE_KEYS = frozenset({"reward", "rewards", "advantage", "source", "extra_kwargs"})
#: Union: keys an output forward context may never bind into a model condition.
NON_MODEL_CONDITION_KEYS = CONDITION_METADATA_KEYS | RUNTIME_SAMPLE_KEYS

__all__ = ["CONDITION_METADATA_KEYS", "RUNTIME_SAMPLE_KEYS", "NON_MODEL_CONDITION_KEYS"]
