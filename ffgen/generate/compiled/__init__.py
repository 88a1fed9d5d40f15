"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules (through ffgen.generate.template_runtime) only while STAMP matches the
template sources.
"""

COMPILED_BY = 'jinja2 3.1.6'
STAMP = 'templates sha256 9cfd53b562a54c8ae917fb9b7df4f3ee56cdd4c92a11453eff7d5a22dbf0b13c'
