"""``ffgen smoke``: train an algorithm of a checkout on a tiny local model and report.

``driver.py``, ``tiny_models.py`` and ``smoke_reward.py`` run in the checkout's interpreter
(torch, diffusers, transformers); ``plan``, ``command`` and ``report`` are ffgen's torch-free side.
"""
