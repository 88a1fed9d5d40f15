"""``ffgen new NAME --like KEY`` / ``--extends KEY``: start from an algorithm of the checkout
(:mod:`ffgen.generate.like.inputs` is where ``new`` comes in)."""
