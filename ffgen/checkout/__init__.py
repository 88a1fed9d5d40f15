"""Reading the checkout: its files, layout, facts and hints, statically (no checkout code runs)."""
