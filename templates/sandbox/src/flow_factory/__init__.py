"""Flow-Factory sandbox: a miniature, CPU-only checkout with the real module layout.

Only the names ffgen-generated trainers touch exist here; the model is a tiny toy velocity MLP.
"""

__version__ = "0.0.0+sandbox"
