"""Zoo runs: ``migrate --config`` and ``verify --config`` over many models.

The per-model entry points (``migrate.one.run_one``, ``verify.one.run_one``, never the
commands) stay as they are; this package runs them side by side (:mod:`.local`, :mod:`.cluster`), reuses results
whose inputs did not change (:mod:`.cache`) and reports a batch for CI (:mod:`.reports`).
:func:`.batch.run_zoo` ties them together.
"""
