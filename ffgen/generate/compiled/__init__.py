"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules (through ffgen.generate.template_runtime) only while STAMP matches the
template sources.
"""

COMPILED_BY = 'jinja2 3.1.6'
STAMP = 'templates sha256 211a13442d23152741d0a9f063129af70f0665d3da63c7dca6d0fb9428e6fadb'
