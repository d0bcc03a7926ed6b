"""Real code goes through check and apply without internal errors, and still compiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtcodemod.engine import Options, check_source, fix_source

TRICKY = '''\
from __future__ import annotations
import torch as th
from torch import nn
import torch.nn.functional as F


@th.no_grad()
def decorated(x: th.Tensor, *, k: int = 1) -> th.Tensor:
    return (y := x.squeeze(1)) + k


async def coroutine(x):
    async with ctx() as c:
        return [v.unsqueeze(0) for v in x if v is not None]


class Net(nn.Module):
    def forward(self, x, *args, **kwargs):
        global G
        match x.dim():
            case 2:
                y = x.squeeze(-1)
            case _:
                y = lambda t: t.unsqueeze(0)
        f = f"{x.squeeze(0)!r:>10}"
        z = th.squeeze(*args)
        w = th.squeeze(x, **kwargs)
        try:
            pass
        except* ValueError:
            pass
        return x[..., None].unsqueeze(1), y, f, z, w
'''


def test_tricky_syntax_survives() -> None:
    source = TRICKY.encode()
    check_source(source, "tricky.py", Options())
    result = fix_source(source, "tricky.py", Options(unsafe=True))
    compile(result.source, "tricky.py", "exec")
    assert b"th.squeeze(*args)" in result.source and b"th.squeeze(x, **kwargs)" in result.source
    assert not fix_source(result.source, "tricky.py", Options(unsafe=True)).changed


def _torch_sources() -> list[Path]:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent / "nn"
    return sorted((root / "modules").glob("*.py")) + [root / "functional.py"]


def test_torch_nn_sources_rewrite_and_compile() -> None:
    """torch.nn's own modules: large, real, full of squeeze/pad/where. Nothing may break."""
    files = _torch_sources()
    assert len(files) > 20
    rewritten = 0
    for path in files:
        source = path.read_bytes()
        result = fix_source(source, str(path), Options(unsafe=True))
        if result.changed:
            rewritten += 1
            compile(result.source, str(path), "exec")
            again = fix_source(result.source, str(path), Options(unsafe=True))
            assert not again.changed, f"{path}: second apply changed the file"
    assert rewritten > 0
