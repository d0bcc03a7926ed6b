"""``trtcodemod verify --contract contract.json``: one model config, its wrapper, verified over frames.

The model file, the model and its inputs function come from the verify spec (CLI or config
table), as for ``verify``; the wrapper is the contract's ``wrapper`` ("path.py:Class", relative
to the contract file, else to the model file), built with the model when its constructor takes
an argument. Runs in this process: the reference keeps state across calls, which a worker per
backend would not share. Imports torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trtcodemod.verify.rewrite import locate
from trtcodemod.verify.spec import VerifySpec

from .contract import DeploymentContract
from .wrapper import build_wrapper


def _wrapper_file(contract: DeploymentContract, contract_path: Path, model_file: Path) -> tuple[Path, str]:
    path, sep, name = contract.wrapper.rpartition(":")
    if not sep or not path or not name:
        raise ValueError(f"contract wrapper {contract.wrapper!r}: expected 'path/to/model_export.py:ClassName'")
    for base in (contract_path.parent, model_file.parent, Path.cwd()):
        candidate = (base / path).resolve()
        if candidate.is_file():
            return candidate, name
    raise FileNotFoundError(f"contract wrapper {path!r}: not found next to {contract_path} or {model_file}")


def verify_frames(spec: VerifySpec, contract_path: Path, frames: int) -> dict[str, Any]:
    """The frame-sequence report for one spec (exit code 2 with ``error`` when it cannot start)."""
    import torch

    from trtcodemod.verify.worker import build_model, import_user_module

    from .frames import make_frame_plan
    from .sequence import verify_sequence

    contract = DeploymentContract.read_json(contract_path)
    layout = locate(spec.model_file)
    module = import_user_module(str(spec.model_file), str(layout.import_root), layout.module, [])
    torch.manual_seed(spec.seed)
    model = build_model(module, spec.model, spec.model_args, dict(spec.model_kwargs))
    wrapper_path, wrapper_name = _wrapper_file(contract, contract_path, spec.model_file)
    wrapper_module = import_user_module(str(wrapper_path), str(wrapper_path.parent), wrapper_path.stem, [])
    wrapper = build_wrapper(getattr(wrapper_module, wrapper_name), model)
    axes = {k: dict(v) for k, v in spec.dynamic_axes.items()}
    plan = make_frame_plan(module, spec.inputs, model, contract, axes, seed=spec.seed, frames=frames)
    backends = tuple(b for b in ("onnxruntime-cpu", "tensorrt") if b in spec.backends)
    return verify_sequence(model, wrapper, contract, plan, dynamic_axes=axes, exporters=spec.exporters,
                           backends=backends, atol=spec.atol, rtol=spec.rtol, opset=spec.opset,
                           workdir=spec.save_dir, name=spec.label)
