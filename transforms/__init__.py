"""The rules, one module per rule family; the registry is trtcodemod.registry."""
