"""Online RL trainers (generation acquisition). Modules are imported through the registry."""
