"""(being written)."""
RULES: tuple = ()
