"""``trtcodemod lift-state``: the lift without migrate. Imports torch only when it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer


def lift_state_command(
    model_file: Annotated[Path, typer.Argument(help="The model's Python file.", metavar="model_file")],
    cls: Annotated[str, typer.Option("--cls", help="The module class whose state to lift.")],
    model: Annotated[str, typer.Option("--model", help="Function or class in the file that builds the model.")],
    inputs: Annotated[str, typer.Option("--inputs", help="Function in the file returning one frame's inputs "
                                                          "(called with a seeded torch.Generator).")],
    state: Annotated[Optional[str], typer.Option("--state", help="Attributes to lift, comma-separated "
                                                                 "(default: what forward writes and reads).")] = None,
    frames: Annotated[int, typer.Option("--frames", min=2, help="Frames to observe and check on.")] = 4,
    write: Annotated[bool, typer.Option("--write", help="Write the rewritten model, the wrapper and the "
                                                        "contract.")] = False,
) -> None:
    """Lift per-frame state on `self` into inputs and outputs: forward_step, an adapter forward, an export
    wrapper and a deployment contract (docs/temporal.md). Runs your model in this process."""
    from trtcodemod.report.diff import unified_diff
    from trtcodemod.verify.inputs import make_input_sets
    from trtcodemod.verify.spec import InputsSpec
    from trtcodemod.verify.rewrite import locate
    from trtcodemod.verify.worker import build_model, import_user_module

    from .apply import lift_model
    from .observe import state_attributes
    from .reach import frames_to_reach
    from .wrapper import write_files

    layout = locate(model_file)
    module = import_user_module(str(layout.model_file), str(layout.import_root), layout.module, [])
    built = build_model(module, model)
    states = [s.strip() for s in state.split(",") if s.strip()] if state else None
    source = Path(layout.model_file).read_text(encoding="utf-8")
    attributes = states or state_attributes(source, cls)
    # At least enough frames to cross every number the code compares the state with.
    reach = frames_to_reach(source, cls, {a: getattr(built, a, None) for a in attributes}, frames, built)
    made = make_input_sets(module, InputsSpec(function=inputs), built, {}, 0, count=reach.frames)
    outcome = lift_model(Path(layout.model_file), cls, lambda rewritten: build_model(rewritten or module, model),
                         made.sets, states=states)
    if not outcome.ok:
        reasons = [str(r) for r in outcome.refusals] or [outcome.mismatch or "no per-frame state found"]
        for reason in reasons:
            typer.echo(f"{model_file}: not lifted: {reason}", err=True)
        raise typer.Exit(1)
    for path, text in sorted(outcome.files.items()):
        old = Path(path).read_bytes() if Path(path).exists() else b""
        typer.echo(unified_diff(path, old, text.encode("utf-8")), nl=False)
    if write:
        write_files(outcome.files)
    typer.echo(f"lifted {', '.join('self.' + s for s in outcome.states)} of {cls}: equal to the original on "
               f"{outcome.frames_checked} frames" + ("" if write else " (dry run: --write writes the files)"))
