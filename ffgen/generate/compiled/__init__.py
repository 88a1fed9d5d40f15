"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules (through ffgen.generate.template_runtime) only while STAMP matches the
template sources.
"""

COMPILED_BY = 'jinja2 3.1.6'
STAMP = 'templates sha256 aa3bac3026e37333d35406fd828ba427b0942e18f998e3908a126d18f7fcd771'
