"""Distillation trainers. Modules are imported through the registry."""
