"""Writing: the all-or-nothing apply, its journal, the checkout lock and path safety."""
