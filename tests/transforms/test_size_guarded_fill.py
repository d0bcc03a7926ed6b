"""TRT717: a pad to a multiple written as a filled tensor with the input in its corner, under a size test.

CascadePSP's ``safe_forward`` (hkchengrex/CascadePSP@481847c8f20d11e036c2b29d0be290aa8fa26071
eval_helper.py:11-30), ViTMatte's ``preprocess_inputs`` (hustvl/ViTMatte@8cd7ef068380977c3962c4cb733cb1fe7f2241a5
modeling/meta_arch/vitmatte.py:72-79) and DiFFMatte's (YihanHu-2022/DiffMatte@12082fdbad2ccc319e411ac4a4f3d208780f2961
modeling/meta_arch/difmodel.py:109-123) pad with ``torch.zeros`` of the padded sizes, a write into
``[:, :, :h, :w]`` and the name rebound, only where a side is not a multiple. The forms below are our own
small functions of that construct. Each rewrite is shown as text; eager mode is compared bit for bit with
the original on sizes that are and are not multiples, with zeros, negatives and inf/NaN; scripted code too;
and the exported graph (dynamic height and width) is compared with eager mode in ONNX Runtime at sizes
where the test flips, where the original's graph keeps the example's branch.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from safety import import_source
from support import assert_same, rewrite, rules_found
from test_size_guarded_resize import HEADER, _values, _Wrap

CASES = {  # name → (original function, a fragment of the rewrite)
    # CascadePSP's form: a tensor padded with -1 (zeros, then - 1), an optional map under a test on None.
    "zeros_and_minus_one": ('''
def f(x: torch.Tensor, extra: torch.Tensor | None = None):
    b, _, ph, pw = x.shape
    if (ph % 8 != 0) or (pw % 8 != 0):
        newW = ((pw//8+1)*8)
        newH = ((ph//8+1)*8)
        if extra is not None:
            p_extra = torch.zeros(b, 1, newH, newW)
            p_extra[:,:,0:ph,0:pw] = extra
            extra = p_extra
        p_x = torch.zeros(b, 3, newH, newW, device=x.device) - 1
        p_x[:,:,0:ph,0:pw] = x
        x = p_x
    return x if extra is None else x * extra
''', "    b, _, ph, pw = x.shape\n"
     "    _trt_size_choice = (ph % 8 != 0) | (pw % 8 != 0)\n"
     "    if _trt_size_taken(_trt_size_choice):\n"
     "        newW = _trt_size_where(_trt_size_choice, (pw//8+1)*8, pw)\n"
     "        newH = _trt_size_where(_trt_size_choice, (ph//8+1)*8, ph)\n"
     "        if extra is not None:\n"),
    # ViTMatte's form: the sizes in a tuple, `.to(...)` after, the input written whole, `del`, and a side that
    # is a multiple grows by a whole 32 when the other is not (the test chooses, not each side's remainder).
    "tuple_to_and_del": ('''
def f(x: torch.Tensor):
    images = x * 2
    B, C, H, W = images.shape
    if images.shape[-1] % 4 != 0 or images.shape[-2] % 4 != 0:
        new_H = (4 - images.shape[-2] % 4) + H
        new_W = (4 - images.shape[-1] % 4) + W
        new_images = torch.zeros((images.shape[0], images.shape[1], new_H, new_W)).to(x.device)
        new_images[:, :, :H, :W] = images[:, :, :, :]
        del images
        images = new_images
    return images
''', "        new_H = _trt_size_where(_trt_size_choice, (4 - images.shape[-2] % 4) + H, H)\n"
     "        new_W = _trt_size_where(_trt_size_choice, (4 - images.shape[-1] % 4) + W, W)\n"
     "        new_images = torch.zeros((images.shape[0], images.shape[1], new_H, new_W)).to(x.device)\n"),
    # `new_full` with the sizes written in place and the corner after `...`: each chosen where it stands.
    "new_full_inline_sizes": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if h % 4 or w % 4:
        out = x.new_full((x.shape[0], x.shape[1], (h + 3) // 4 * 4, (w + 3) // 4 * 4), -2.5)
        out[..., :h, :w] = x
        x = out
    return x
''', "    _trt_size_choice = (h % 4 != 0) | (w % 4 != 0)\n    if _trt_size_taken(_trt_size_choice):\n"
     "        out = x.new_full((x.shape[0], x.shape[1], _trt_size_where(_trt_size_choice, (h + 3) // 4 * 4, h), "
     "_trt_size_where(_trt_size_choice, (w + 3) // 4 * 4, w)), -2.5)\n"),
    # A pad up to a smallest size (not a multiple): `max` of a size (TRT712's, beside), `torch.full` with a list.
    "full_to_a_smallest_size": ('''
def f(x: torch.Tensor):
    b, c, h, w = x.shape
    if h < 8 or w < 8:
        hh = max(h, 8)
        ww = max(w, 8)
        big = torch.full([b, c, hh, ww], 0.5, dtype=x.dtype)
        big[:, :, :h, :w] = x
        x = big
    return x
''', "        hh = _trt_size_where(_trt_size_choice, _trt_size_max(h, 8), h)\n"),
}

#: The rules beside TRT717 a form needs for a graph that follows every size.
RULES = {"full_to_a_smallest_size": ("TRT712", "TRT717")}

#: Shapes whose height and width are both multiples of 8 and 4 (the test false), and shapes that are not.
SHAPES = [(1, 3, 8, 16), (2, 3, 16, 8), (1, 3, 9, 6), (2, 3, 7, 5), (1, 3, 12, 13), (1, 3, 3, 16)]

def _pad(before: str = "", fill: str = "torch.zeros(b, c, new_h, w)", write: str = "big[:, :, :h, :] = x",
         rebind: str = "x = big", more: str = "", test: str = "h % 8 != 0", after: str = "x") -> str:
    """A function padding ``x``'s height to a multiple of 8 through a filled tensor, with one part changed."""
    lines = ["def f(x: torch.Tensor):", "    b, c, h, w = x.shape",
             *(f"    {line}" for line in before.split(";") if line),
             f"    if {test}:", "        new_h = (h // 8 + 1) * 8", f"        big = {fill}", f"        {write}",
             f"        {rebind}", *(f"{line}" for line in more.split(";") if line), f"    return {after}"]
    return "\n".join(lines) + "\n"


LEFT_ALONE = {
    # A mask of ones in the corner: the value written is no input the branch then stands for.
    "a_mask_written": _pad(before="mask = x[:, :1]", fill="torch.zeros(b, 1, new_h, w)", write="big[:, :, :h, :] = 1",
                           rebind="mask = big", after="mask"),
    # Written away from the corner: where the test is false a fill of the input's size cannot hold it there.
    "not_the_corner": _pad(fill="torch.zeros(b, c, new_h + 1, w)", write="big[:, :, 1:h + 1, :] = x"),
    # The filled tensor read after the `if`: where the test is false the original never bound it.
    "filled_read_after": _pad(before="big = x", after="x + big"),
    # The padded size is read for something else too (a crop's bound after the branch).
    "size_read_elsewhere": _pad(before="new_h = h", after="x[:, :, :new_h]"),
    # A body name sizing a whole axis: where the test is false nothing says it is the input's.
    "body_size_on_a_whole_axis": _pad(fill="torch.zeros(b, c + new_h // 8, new_h, w)"),
    # Not rebound to the name written: the original's `x` stays as it was.
    "not_rebound": _pad(before="y = x", rebind="y = big", after="y"),
    # A bound counted from the end.
    "bound_from_the_end": _pad(write="big[:, :, :-1, :] = x[:, :, 1:]"),
    # Other work in the branch.
    "other_work": _pad(more='        print("padded")'),
    # An `else` doing its own work.
    "with_an_else": _pad(more="    else:;        x = x * 2"),
    # A test on values, not sizes (TRT101's).
    "a_value_test": _pad(test="x.sum() > 0"),
}


@pytest.mark.parametrize("name", list(LEFT_ALONE))
def test_left_alone(name: str) -> None:
    compile(HEADER + LEFT_ALONE[name], name, "exec")  # each a valid function, one part away from the form
    assert "TRT717" not in rules_found(HEADER + LEFT_ALONE[name])


def test_the_form_the_left_alone_cases_change_is_found() -> None:
    assert rules_found(HEADER + _pad()).count("TRT717") == 1


def _rewritten(name: str, tmp_path: Path) -> tuple[str, str, Any, Any]:
    code, fragment = CASES[name]
    before = HEADER + code.lstrip("\n")
    assert rules_found(before).count("TRT717") == 1
    after = rewrite(before, unsafe=True, select=RULES.get(name, ("TRT717",)))
    assert fragment in after, after
    return before, after, import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite_and_run(name: str, tmp_path: Path) -> None:
    """Eager mode and scripted code decide as before: the same values, dtype and shape, bit for bit."""
    before, after, f_before, f_after = _rewritten(name, tmp_path)
    # The `if` stays (eager mode takes it as written), its test the choice's.
    assert after.split("\ndef f", 1)[1].count("if ") == before.split("\ndef f", 1)[1].count("if "), after
    try:
        scripted = (torch.jit.script(f_before), torch.jit.script(f_after))
    except RuntimeError:  # `del` of a name read after the `if` (ViTMatte's): TorchScript refuses the original
        assert name == "tuple_to_and_del"
        scripted = None
    for shape in SHAPES:
        for x in _values(shape):
            assert_same(f_before(x), f_after(x))
            if scripted is not None:
                assert_same(scripted[0](x), scripted[1](x))
    if name == "zeros_and_minus_one":
        x, extra = torch.randn(2, 3, 7, 5), torch.randn(2, 1, 7, 5)  # the optional map padded too
        assert_same(f_before(x, extra), f_after(x, extra))
    empty = torch.zeros(1, 3, 0, 5)  # an empty axis is a multiple: nothing to pad in either
    assert_same(f_before(empty), f_after(empty))


def _exported(f: Any, shape: tuple[int, ...], path: Path) -> tuple[Any, int]:
    """The TorchScript export with dynamic batch, height and width, loaded in ONNX Runtime, and how many
    TracerWarnings it raised."""
    import onnxruntime as ort

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(_Wrap(f), (torch.randn(shape),), str(path), dynamo=False, opset_version=17,
                          input_names=["x"], dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
    traced = sum(1 for w in caught if type(w.message).__name__ == "TracerWarning")
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), traced


def _matches(session: Any, f: Any, shape: tuple[int, ...]) -> bool:
    x = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape) + 1))
    want = f(x).numpy()
    try:
        [got] = session.run(None, {"x": x.numpy()})
    except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
        return False
    return got.shape == want.shape and bool((abs(got - want) <= 1e-6).all())


@pytest.mark.parametrize("name, wrong_both_ways", [("zeros_and_minus_one", True), ("tuple_to_and_del", True),
                                                    ("new_full_inline_sizes", False),
                                                    ("full_to_a_smallest_size", True)])
def test_the_graph_follows_every_size(name: str, wrong_both_ways: bool, tmp_path: Path) -> None:
    """Exported where the test holds and where it does not, the rewritten graph (no TracerWarning) equals
    eager mode at every size, the test flipping or not; the original's graph keeps the example's branch:
    exported at a size that does not pad, it pads nothing anywhere; exported at a size that pads, it pads
    sizes that are multiples already where the padded size is one more multiple (CascadePSP's and ViTMatte's
    formulas: a whole 8 or 4 more) or baked (``max(h, 8)``: 8 at every size), not where it rounds up exactly
    (``(h + 3) // 4 * 4``)."""
    _, _, f_before, f_after = _rewritten(name, tmp_path)
    padded, kept = (2, 3, 7, 5), (1, 3, 16, 8)
    others = [(1, 3, 9, 6), (2, 3, 8, 16), (1, 3, 12, 13), (1, 3, 24, 10), (3, 3, 13, 32)]
    for example in (padded, kept):
        session, traced = _exported(f_after, example, tmp_path / "after.onnx")
        assert traced == 0
        assert all(_matches(session, f_before, shape) for shape in [padded, kept, *others]), example
    for example, wrong in ((padded, kept), (kept, padded)):
        session, traced = _exported(f_before, example, tmp_path / "before.onnx")
        assert traced > 0 and _matches(session, f_before, example)
        assert _matches(session, f_before, wrong) is (example == padded and not wrong_both_ways), (example, wrong)


def test_taken_is_the_condition_outside_a_trace() -> None:
    """``_trt_size_taken`` gives the condition itself (the same object) in eager mode, scripted and for a
    tensor outside a trace; while a trace passes a tensor condition it is True, so the branch is recorded."""
    from trtcodemod.helpers.sizes import _trt_size_taken

    for condition in (True, False, 0, 3, torch.tensor(False), torch.tensor([True, False])):
        assert _trt_size_taken(condition) is condition
    scripted = torch.jit.script(_trt_size_taken)
    assert [scripted(c) for c in (True, False)] == [True, False]

    def branch(x: torch.Tensor) -> torch.Tensor:
        if _trt_size_taken(x.shape[0] > 100):
            return x + 1
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(branch, (torch.zeros(3),))
    assert torch.equal(traced(torch.zeros(3)), torch.ones(3))  # taken while tracing, at a size where it is false
    assert torch.equal(branch(torch.zeros(3)), torch.zeros(3))  # eager mode: as the test says
