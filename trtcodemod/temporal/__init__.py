"""Temporal models: per-frame state lifted out of the module, its deployment contract, and
verification over frame sequences."""
