"""The templates of ``ffgen.templates``, compiled by Jinja (generated: do not edit).

Regenerate with ``python -m ffgen.generate.render --write``; ffgen.generate.render uses
these modules (through ffgen.generate.template_runtime) only while STAMP matches the
template sources.
"""

COMPILED_BY = 'jinja2 3.1.6'
STAMP = 'templates sha256 5b062b3d9aeb507317b1391ca7b4777eac4d59269452568e917939ecdeb47917'
