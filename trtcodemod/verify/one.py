"""One model's verification, as the command and the zoo's workers run it: never raises."""

from __future__ import annotations

import traceback
from typing import Any

from trtcodemod.report.progress import StatusLine

from .report import error_report
from .spec import VerifySpec


def run_one(spec: VerifySpec, progress: StatusLine) -> dict[str, Any]:
    """The model's report; an internal error becomes the model's error report, with its traceback."""
    from .run import verify  # not at import time: keeps `trtcodemod check` fast

    progress.label = spec.label
    try:
        return verify(spec, progress=progress)
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop a batch
        report = error_report(spec.label, f"internal error: {type(exc).__name__}: {exc}")
        report["traceback"] = traceback.format_exc()
        return report
