"""Conformance: whether rendered files use only what the user's Flow-Factory checkout has (the
rules and their limits: ``check``)."""
