"""Eager cost of the lifted CenterTrack video loop (examples/tracking/centertrack_stream.py).

``python benchmarks/tracking_lift.py``: lifts it in a temporary folder (with the network it
imports) and times 200 frames of the original and of the adapter (median of 7, one thread),
as benchmarks/temporal_lift.py does for examples/temporal.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import torch

from trtcodemod.temporal.apply import lift_model, load_source

sys.path.insert(0, str(Path(__file__).resolve().parent))
from temporal_lift import _time  # noqa: E402

TRACKING = Path(__file__).resolve().parent.parent / "examples" / "tracking"


def main(repeat: int = 200) -> None:
    torch.set_num_threads(1)
    folder = Path(tempfile.mkdtemp())
    try:
        for name in ("centertrack.py", "centertrack_stream.py"):
            shutil.copy(TRACKING / name, folder / name)
        sys.path.insert(0, str(folder))
        path = folder / "centertrack_stream.py"
        original = load_source(path.read_text(), path, "_bench_centertrack_stream")
        g = torch.Generator().manual_seed(0)
        frames = [original.inputs(g) for _ in range(repeat)]
        outcome = lift_model(path, "CenterTrackStream", lambda m: (m or original).build(),
                             [{"images": f[0]} for f in frames[:4]])
        lifted = load_source(outcome.files[str(path)], path, "_bench_lifted_centertrack_stream")
        torch.manual_seed(0)
        before = original.build()
        after = lifted.build()
        after.load_state_dict(before.state_dict())
        print(f"centertrack_stream: {_time(before, frames):.0f} -> {_time(after, frames):.0f} us/frame")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
