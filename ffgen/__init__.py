"""ffgen: generate and verify Flow-Factory training algorithms."""

__version__ = "0.1.0"
