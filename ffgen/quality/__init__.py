"""Template quality gates: check-templates over every legal point, and the golden examples."""
