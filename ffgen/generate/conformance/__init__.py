"""Conformance: whether rendered files use only what the user's Flow-Factory checkout has (the
rules and their limits: ``check``)."""

from ffgen.generate.conformance.check import check_conformance, conformance_findings
from ffgen.generate.conformance.findings import HINT, Finding

__all__ = ["HINT", "Finding", "check_conformance", "conformance_findings"]
