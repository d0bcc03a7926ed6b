"""What an observed run of the model says: facts (lines that ran, values read, sizes seen) and the
proofs an unsafe fix's assumption can rest on.

Standard library only, on the floor below the core: the rules' context and providers read it,
``migrate`` writes it (the observer), and ``check``/``apply --facts`` load it from a file.
"""
