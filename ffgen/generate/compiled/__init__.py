"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules only while STAMP matches the template sources and the Jinja version.
"""

STAMP = 'jinja2 3.1.6, templates sha256 b71ee225848262e3976a6e89c1861a58898b482b7f073a6be8c3a418019612bf'
