"""``ffgen verify``: a static consistency check of every training algorithm in a checkout.

Reads the checkout with ``ast`` and PyYAML only (never imports checkout code or torch) and runs
on a :class:`~ffgen.checkout.view.CheckoutView`, so ``ffgen new`` can verify an :class:`Overlay` of
the files it is about to write. Rules are listed, as data, in :mod:`ffgen.verify.catalogue`.
Run it with :func:`ffgen.verify.engine.run_verify`.
"""
