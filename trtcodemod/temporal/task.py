"""The lift as a worker task (``python -m trtcodemod.temporal.task FOLDER``), for ``migrate``.

Like the observer, it runs the user's model in its own process: it builds the model, makes
``FRAMES`` frames from the model's inputs function (one set per seed, the same shapes), lifts
the state of the model's own class, checks the rewrite frame by frame, and returns the files
to write, the contract and the refusals as plain data.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from trtcodemod.verify.worker import Checkpoint, build_model, import_user_module, worker_main

LIFT_TASK = "lift"
#: Frames the lift is checked on at least (the issue asks for four); more where the code compares
#: the state with a number further away (``reach.frames_to_reach``).
FRAMES = 4


def _lift_task(req: dict[str, Any], cp: Checkpoint) -> None:
    import inspect

    import torch

    from trtcodemod.verify.inputs import make_input_sets
    from trtcodemod.versions import DEFAULT_TARGET

    from .apply import lift_model
    from .observe import state_attributes
    from .reach import frames_to_reach

    cp.data["lift"] = None
    cp.stage("import")
    module = import_user_module(req["model_file"], req["import_root"], req["module"], req.get("extra_paths", []))
    args, kwargs = tuple(req.get("model_args", ())), dict(req.get("model_kwargs", {}))

    def build(rewritten: Any) -> Any:
        return build_model(rewritten or module, req["model"], args, kwargs)

    cp.stage("build")
    torch.manual_seed(req["seed"])
    model = build(None)
    cls = type(model)
    path = Path(inspect.getsourcefile(cls) or "")
    if path.resolve() != Path(req["model_file"]).resolve():
        cp.data["lift"] = {"class": cls.__name__, "states": [], "optional": [], "files": {}, "refusals": [
            f"`{cls.__name__}` is defined in {path}, not in the model file: the lift rebuilds the model from the "
            "rewritten model file only"], "contract": None, "contract_md": None, "frames": 0, "mismatch": None}
        return
    cp.stage("inputs")
    # Enough frames to cross every number the code compares the state with (`self.frame > 10`).
    source = path.read_text(encoding="utf-8")
    attributes = req.get("states") or state_attributes(source, cls.__name__)
    reach = frames_to_reach(source, cls.__name__, {a: getattr(model, a, None) for a in attributes}, FRAMES, model)
    made = make_input_sets(module, req["inputs"], model, {}, req["seed"], count=reach.frames)
    cp.stage("lift")
    outcome = lift_model(path, cls.__name__, build, made.sets, states=req.get("states"),
                         target=req.get("target") or DEFAULT_TARGET)
    contract = outcome.contract
    cp.data["lift"] = {
        "class": cls.__name__, "states": outcome.states, "optional": outcome.optional,
        "files": outcome.files if outcome.ok else {},
        "refusals": [str(r) for r in outcome.refusals], "frames": outcome.frames_checked,
        "mismatch": outcome.mismatch, "contract": contract.to_dict() if contract else None,
        "contract_md": contract.to_markdown() if contract else None, "proof": None,
        "step": [{"rule": f.rule, "line": f.original_line, "code": f.code, "fixed": f.fixed, "said": f.describe(),
                  "refusal": None if f.fixed else str(f.refusal())}
                 for f in outcome.step_findings],
        "reach": {"frames": reach.frames, "compared": [f"line {c.line}: `{c.code}`" for c in reach.comparisons],
                  "beyond": [{"line": c.line, "note": note} for c, note in zip(reach.beyond, reach.notes())]},
    }
    if outcome.ok and req.get("exporters"):
        cp.stage("prove")
        from .prove import prove_wrapper, summary

        axes = {name: {int(axis): dim for axis, dim in dims.items()} for name, dims in req["dynamic_axes"].items()}
        try:
            report = prove_wrapper(path, module, build, outcome, req["inputs"], seed=req["seed"], dynamic_axes=axes,
                                   exporters=req["exporters"], target=req["target"], scene=reach.frames)
            cp.data["lift"]["proof"] = summary(report)
        except Exception as exc:  # noqa: BLE001 - an unproved wrapper is reported; migrate does not write the lift
            cp.data["lift"]["proof"] = {"equivalent": False, "error": f"{type(exc).__name__}: {exc}", "frames": [],
                                        "runs": [], "trt_errors": {}, "notes": []}


def main(argv: list[str] | None = None) -> int:
    return worker_main({LIFT_TASK: _lift_task}, argv)


if __name__ == "__main__":
    sys.exit(main())
