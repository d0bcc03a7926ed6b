"""One model's migration, as the command and the zoo's workers run it: never raises."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

from trtcodemod.report.progress import StatusLine
from trtcodemod.verify.spec import VerifySpec

from .report import error_report


def run_one(spec: VerifySpec, progress: StatusLine, facts_out: Path | None
            ) -> tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]:
    """The model's ``(report, sources)``; an internal error becomes the model's error report."""
    from .run import migrate  # not at import time: keeps `trtcodemod check` fast

    progress.label = spec.label
    try:
        return migrate(spec, progress=progress, facts_out=facts_out)
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop a batch
        report = error_report(spec.label, f"internal error: {type(exc).__name__}: {exc}")
        report["traceback"] = traceback.format_exc()
        return report, {}
