"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules only while STAMP matches the template sources and the Jinja version.
"""

STAMP = 'jinja2 3.1.6, templates sha256 580e353eb1dd2b6a3e51ced648f7c7391e046d803dbca59e7b7ad671c6c4785e'
