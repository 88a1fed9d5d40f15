"""Generation: the render context, manifest of edit points, plan, templates and conformance."""
