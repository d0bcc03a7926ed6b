"""Sizes bound by iteration: a loop or comprehension over a tensor's shape gives one size each turn.

`[int(round(s / self.scale)) for s in x.shape[2:]]` is per-axis size arithmetic as real code writes
it (pyramids, padding to multiples, crop sizes). Traced, each `s` is a 0-d tensor as `x.shape[i]`
is, so `round(s / k)` raises ("type Tensor doesn't define __round__") and `int(s * p)` bakes the
example's value. The shared size provenance (:mod:`trtcodemod.transforms._size_facts`) takes the
target of such a loop or comprehension as a size, for every rule that asks (TRT712, TRT716...).

The reduced model is torchreg 0.1.3's pyramid level as a user wraps it (our own re-writing): the
volume resized to 1/scale of its size by `F.interpolate(x, shape, mode="trilinear",
align_corners=True)`, then smoothed with sigmas `sigma * 200 / torch.tensor(shape).int()`
(torchreg/syn.py:113-119 `gauss_smoothing`, and SyNRegistration's pyramid in the same file).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from snippets import export_checked_session as export_session, ort_matches
from support import assert_same, load, migrate_json, rewrite
from trtcodemod.engine import Options, check_source

HEAD = "import math\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


def _found(code: str, rule: str = "TRT712") -> list[int]:
    return [f.line for f in check_source(code.encode(), "m.py", Options(select=(rule,)))]


def _forward(body: str) -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return HEAD + f"class M(nn.Module):\n    scale = 2\n\n    def forward(self, x):\n{lines}"


# Each form binds `s` to one size each turn; line 9 holds the rounding.
@pytest.mark.parametrize("body", [
    "shape = [int(round(s / self.scale)) for s in x.shape[2:]]\nreturn shape",
    "shape = [round(s / 2) for s in x.size()[2:]]\nreturn shape",
    "shape = [round(s / 2) for s in x.shape]\nreturn shape",
    "shape = [round(s * f) for s, f in zip(x.shape[2:], (0.5, 0.25))]\nreturn shape",
    "shape = [round(f * s) for f, s in zip((0.5, 0.25), x.shape[2:], strict=True)]\nreturn shape",
    "shape = [round(s / 2) for i, s in enumerate(x.shape)]\nreturn shape",
    "shape = [round(s / 2) for i, (s, f) in enumerate(zip(x.shape[2:], (1, 2)))]\nreturn shape",
    "shape = tuple(round(s / 2) for s in x.shape[2:])\nreturn shape",
    "shape = torch.Size(math.ceil(s / 2) for s in reversed(x.shape[2:]))\nreturn shape",
    "shape = [math.floor(s / 2) for s in list(x.shape[-2:])]\nreturn shape",
    "sizes = x.shape[2:]\nshape = [round(s / 2) for s in sizes]",
    "out = []\nfor s in x.shape[2:]:\n    out.append(round(s / 2))",
    "out = []\nfor i, s in enumerate(x.shape):\n    out.append(int(s * 0.5))",
    "out = []\nfor s, f in zip(x.shape[2:], (2, 3)):\n    out.append(round(s / f))",
])
def test_a_target_bound_to_each_size_of_a_shape_is_a_size(body: str) -> None:
    code = _forward(body)
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "round(" in text or "int(s" in text
                or "ceil(" in text or "floor(" in text)
    assert _found(code) == [line], code


@pytest.mark.parametrize("body", [
    "return [round(s / 2) for s in self.scales]",  # not a shape
    "return [round(s / 2) for s in (x.shape[2], 3.0)]",  # a display: its items are not all sizes
    "s = x.shape[2]\nreturn [round(s / 2) for s in self.scales]",  # the target hides the outer size
    "return [round(f / 2) for s, f in zip(x.shape[2:], self.factors)]",  # the other element of the pair
    "return [round(i / 2) for i, s in enumerate(x.shape)]",  # the index enumerate counts
    "return [round(s / 2) for s, s in zip(x.shape[2:], self.factors)]",  # rebound in the target itself
    "return [round(s / 2) for t in x.shape[2:] for s in self.factors]",  # a later `for` rebinds
    "return [(lambda s: round(s / 2))(3.0) for s in x.shape[2:]]",  # the lambda's own parameter
    "return [round(s / 2) for s in zip(x.shape[2:], self.factors)]",  # a pair, not one size
    "for s in x.shape[2:]:\n    s = self.k\nreturn round(s / 2)",  # rebound in the body
    "for s in self.scales:\n    pass\nreturn round(s / 2)",
])
def test_other_targets_are_not_sizes(body: str) -> None:
    assert _found(_forward(body)) == []


def test_a_target_outside_its_comprehension_is_the_functions_name() -> None:
    """Python 3 comprehensions have their own scope: the outer `s` after one is not its target."""
    code = _forward("a = [round(s / 2) for s in x.shape[2:]]\ns = self.k\nreturn round(s / 2)")
    assert _found(code) == [10]


# torchreg 0.1.3 pyramid level (see the module docstring), the user's wrapper line:
# `shape = [int(round(s / self.scale)) for s in x.shape[2:]]`.
PYRAMID = HEAD + '''
class Pyramid(nn.Module):
    def __init__(self, scale=2, sigma=0.2):
        super().__init__()
        self.scale, self.sigma = scale, sigma

    def forward(self, x):
        shape = [int(round(s / self.scale)) for s in x.shape[2:]]
        small = F.interpolate(x, shape, mode="trilinear", align_corners=True)
        return small, self.sigma * 200 / torch.tensor(shape).int()
'''


def test_the_pyramid_is_rewritten_as_a_rounding_and_a_tensor_of_sizes() -> None:
    assert _found(PYRAMID) == [13]
    assert _found(PYRAMID, "TRT716") == [15]
    new = rewrite(PYRAMID, unsafe=True, select=("TRT712", "TRT716"))
    assert "shape = [_trt_size_int(_trt_size_round(s / self.scale)) for s in x.shape[2:]]" in new
    assert "self.sigma * 200 / _trt_sizes_tensor(shape).int()" in new


@pytest.mark.parametrize("size", [(1, 1, 1), (2, 3, 5), (5, 6, 7), (3, 10, 11), (4, 4, 9)])
def test_the_rewritten_pyramid_runs_as_the_original(size: tuple[int, ...]) -> None:
    """Eager mode, bit for bit: odd sizes (2.5 rounds to 2, 3.5 to 4: halves to even), size 1 (0.5
    rounds to 0: the original's `F.interpolate` raises, the rewrite too), zeros, negatives, inf."""
    before = load(PYRAMID, "Pyramid")()
    after = load(rewrite(PYRAMID, unsafe=True, select=("TRT712", "TRT716")), "Pyramid")()
    base = torch.randn(1, 2, *size)
    for x in (base, torch.zeros_like(base), -base, torch.full_like(base, float("inf"))):
        try:
            expected = before(x)
        except Exception as error:  # noqa: BLE001 - the rewrite raises the same
            with pytest.raises(type(error)):
                after(x)
            continue
        assert_same(expected, after(x))


def test_the_original_pyramid_does_not_export_and_the_rewrite_follows_the_size() -> None:
    before = load(PYRAMID, "Pyramid")()
    after = load(rewrite(PYRAMID, unsafe=True, select=("TRT712", "TRT716")), "Pyramid")()
    example, other = torch.rand(1, 2, 16, 20, 24), torch.rand(2, 2, 33, 41, 49)
    axes = {"x": {0: "b", 2: "d", 3: "h", 4: "w"}}
    with pytest.raises(TypeError, match="__round__"):
        export_session(before, (example,), ["x"], axes)
    session = export_session(after, (example,), ["x"], axes)
    for x in (example, other, torch.rand(1, 2, 9, 7, 5)):  # 16.5, 20.5, 24.5, 4.5, 3.5: halves to even
        expected = before(x)
        assert_same(expected, after(x))
        got = session.run(None, {"x": x.numpy()})
        for e, g in zip(expected, got):  # trilinear weights computed in float32 by both: a few ulps apart
            assert tuple(e.shape) == g.shape and np.allclose(e.numpy(), g, rtol=1e-5, atol=1e-5)


# A rounding without a TypeError bakes the example's value: `int(s * p)` keeps the traced number.
SCALED = HEAD + '''
class Scaled(nn.Module):
    def forward(self, x):
        size = [int(s * 0.5) for s in x.shape[2:]]
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)
'''


def test_int_of_an_iterated_size_is_baked_and_the_rewrite_follows_the_input() -> None:
    before = load(SCALED, "Scaled")()
    after = load(rewrite(SCALED, unsafe=True, select=("TRT712",)), "Scaled")()
    example, other = torch.rand(1, 3, 16, 20), torch.rand(1, 3, 27, 13)
    axes = {"x": {2: "h", 3: "w"}}
    assert not ort_matches(export_session(before, (example,), ["x"], axes), before, other)
    assert ort_matches(export_session(after, (example,), ["x"], axes), after, other)
    for x in (other, torch.zeros(1, 3, 2, 3), -other, torch.rand(1, 3, 5, 7)):
        assert_same(before(x), after(x))


def test_migrate_fixes_the_pyramid_that_stopped_the_export(tmp_path) -> None:
    """First contact (zoo 35's reg_pyramid_smooth): the export stopped at `round` of the comprehension
    target and nothing was applied. Now TRT712 takes the rounding and TRT716 the tensor of the new sizes:
    exit 0, exports faithful and equivalent."""
    path = tmp_path / "pyramid.py"
    path.write_text(PYRAMID + '''

def build():
    return Pyramid().eval()


def inputs(generator):
    return (torch.rand(1, 2, 16, 20, 24, generator=generator),)
''')
    report = migrate_json(path, '{"x": {"0": "batch", "2": "depth", "3": "height", "4": "width"}}')
    assert report["before"]["exported"] is False
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT712", 13), ("TRT716", 15)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True
