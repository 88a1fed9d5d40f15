"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules (through ffgen.generate.template_runtime) only while STAMP matches the
template sources.
"""

COMPILED_BY = 'jinja2 3.1.6'
STAMP = 'templates sha256 7a731131d765be08e42be00e0413594a13bf3d80d47b8f16c7eb935f3e69a0da'
