"""A pad, crop, resize or repeat done only when a size asks for it: the export keeps the example's choice (TRT717).

Window and patch models pad the input to a multiple of the window only when it is not one
already, crop the padding off only when there was some, or resize only when the size
changed (monai's patch embedding and Swin blocks, timm's MobileViT, Swin-Transformer). The
`if` reads sizes, so the TorchScript export keeps the branch the example took. The rule
drops the `if` and does the resize every time, in a form that leaves the tensor as it is
where the condition was false. An `if` that only sets numbers (Swin's window shrunk to a small
feature map) becomes a choice the trace keeps (``_trt_size_where``), and a ``while`` that steps a size to a
multiple (``while h % 64: h += 1``) the loop's end in closed form while tracing (``_trt_size_stepped``). What a
size is comes from
:mod:`trtcodemod.transforms._size_facts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from trtcodemod.astutil import (argument, bound_names, code_of, helper_call, int_value, mentions_name, method_call, walk,
                                short_code)
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._branch_building import comments_inside
from trtcodemod.transforms._runtime_scope import TRACING_HELPER
from trtcodemod.transforms._numpy_torch import configuration
from trtcodemod.transforms._size_facts import TS_PITFALLS, SizeRule
from trtcodemod.transforms.while_scan import _step

_PAD = ("torch.nn.functional.pad",)
#: torch's padding modules whose amounts ``_trt_pad_where`` chooses (not a circular one: its ONNX symbolic takes
#: constant amounts only).
_PAD_MODULES = tuple(f"torch.nn.{kind}Pad{rank}d" for kind in ("Constant", "Zero", "Reflection", "Replication")
                     for rank in (1, 2, 3))
_PAD_WHERE = "_trt_pad_where"
_INTERPOLATE = ("torch.nn.functional.interpolate",)
SIZE_WHERE_HELPER = "_trt_size_where"
#: The size a `while` on a divisibility test steps to, the loop eagerly and its closed form traced.
STEPPED_HELPER = "_trt_size_stepped"
#: ``math.ceil``/``math.floor`` in a chosen number, and the size helpers that keep them traced.
_ROUNDING_HELPERS = {"math.ceil": "_trt_size_ceil", "math.floor": "_trt_size_floor"}
#: The local holding the test, evaluated once as the ``if`` did (reserved prefix: no user's name).
CHOICE = "_trt_size_choice"
#: What each kind of resize did to the tensor, for the messages.
_DONE = {"pads": "padded", "crops": "cropped", "trims": "trimmed", "resizes": "resized", "expands": "broadcast"}
_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


class SizeGuardedResize(SizeRule):
    needs_text = (b"if ", b"while ")
    info = RuleInfo(
        id="TRT717",
        name="size-guarded-resize",
        summary="a pad, crop, resize, broadcast or repeat done only when a size asks for it: the export keeps the "
                "example's branch",
        doc="""\
What it finds, in forward code: an `if` (with no `else`, or an `else` that only takes the
input as it is: `else: x_pad = x`) whose condition compares sizes
(`if w % p != 0:`, `if pad_r > 0 or pad_b > 0:`, `if new_h != H or new_w != W:`; what a size
is as for TRT711-TRT716, and a size of an object not shown to be a tensor where the observed
export warned at the `if`, as for sizes a caller handed down) and whose body is one assignment that resizes the same name
(also written on the `if`'s own line: Real-CUGAN's `if (w0 != pw or h0 != ph): x = x[:, :, :h0 * 4, :w0 * 4]`):
- `x = F.pad(x, (...))` with the amounts written out (monai's `PatchEmbed`: pad to the next
  multiple of the patch only when the size is not one);
- `x = x[:, :H, :W]` or `x = x[:, :H, :W].contiguous()`: a crop from the start of each axis
  (Swin's "remove the padding" after the window attention);
- `x = x[..., a:-e]`, a trim of either end or both, each index `:`, `...`, `a:`, `:-e` or `a:-e`
  (no step, no end written positive): EnCodec's `if pad > 0: frame = frame[..., :-pad]`, Demucs'
  `center_trim`, `if delta: tensor = tensor[..., delta // 2:-(delta - delta // 2)]`; the test also
  a number's truth;
- `x = F.interpolate(x, size=...)` (timm's MobileViT: resize to a multiple of the patch
  only when needed), the size also as the second positional argument, the test also comparing
  whole shapes or slices of them (holocron's U-Net decoder: `if downfeat.shape[-2:] !=
  upfeat_.shape[-2:]: upfeat_ = F.interpolate(upfeat_, downfeat.shape[-2:], mode="nearest")`);
- `x = x.expand(...)` or `x = x.expand_as(y)`: a broadcast done only when a size differs
  (ultralytics' `WorldModel.predict`: `if txt_feats.shape[0] != x.shape[0] or
  self.model[-1].export: txt_feats = txt_feats.expand(x.shape[0], -1, -1)`); for a crop, a
  resize or a broadcast, whose rewrite does not read the test, the test may also `or`/`and`
  attributes that are not tensors (a configuration flag such as `self.model[-1].export`);
- with, around that assignment, a local holding a pad's amounts (`pad_values = (0, p - w % p)`
  then `x = F.pad(x, pad_values)`: transformers' Swin), or one amount a local (`pad_r = (ws - W_ %
  ws) % ws` then `x = F.pad(x, (0, pad_r, 0, pad_b))`: YOLOv7's Swin layers) that the pad's tuple
  reads and whose computing raises nothing where the test is false (as for the numbers below; also
  an attribute the test reads, and `%`/`//` by a divisor the test divides by: not 0 where it ran),
  read only after an assignment of it in
  its own block and never in a block around the `if`, and flags set to `True`/`False` beside
  the resize (`interpolate = True`: transformers' MobileViT, whose caller resizes back when
  the flag is set);
- or `x = self.pad(x)` alone, where a method of the class builds `self.pad` as one of torch's padding
  modules (`nn.ConstantPad1d/2d/3d`, `ZeroPad`, `ReflectionPad`, `ReplicationPad`; braindecode's U-Sleep
  encoder, `if x.shape[-1] % 2: x = self.pad(x)` before a pooling of 2): the `if` stays for eager mode
  and scripting, and while tracing a branch before it calls `_trt_pad_where(self.pad, x, <test>)`, the
  module's amounts each chosen by the test (a circular pad is left: its ONNX symbolic takes constant
  amounts only);
- or the branch returns it, `return F.pad(x, (...))` (also with the amounts' local before it),
  `return x[:, :H, :W]` or `return F.interpolate(x, size=...)`, and the code after the `if`
  returns the tensor as it is: the line right after it is `return x`, or the `if` has `else:
  return x` (spandrel's `pad_to_multiple`, which SwinIR, HAT and SCUNet pad with: `if pad_h or
  pad_w: return F.pad(tensor, (0, pad_w, 0, pad_h), mode, value)` then `return tensor`);
- the test may read a number's truth (`if pad_h or pad_w:`, `if w % 4:`): a number computed from
  sizes stands for `pad_h != 0`, the same truth for any number;
- the test may be held in a flag bound on the line just before the `if` and read nowhere else
  (`was_padded = pad_values[3] > 0 or pad_values[5] > 0`, then `if was_padded:` and the crop:
  transformers' Swin V2, Swin2SR, Donut Swin, DiNAT, CLAP and MaskFormer-Swin); the flag's line
  goes with the `if`, so no Python `or` of traced sizes is left to bake;
- or only assignments of integers, `t = v` or `t[i] = v` (also under an `if` without `else`
  on `x is None`, `x is not None` or a plain name), where each `v` is an integer literal, a
  size, or an operand of the test itself: the Swin window that shrinks to a small feature map
  (Video Swin's, monai's and SwiFT's `get_window_size`: `if x_size[i] <= window_size[i]:
  use_window_size[i] = x_size[i]` and the shift 0; torchvision's `if window_size[0] >= pad_H:
  shift_size[0] = 0`);
- or, with an `else` (not an `elif`), the same names set to integers in both branches, where
  computing either number raises nothing: literals, sizes, names bound before the `if` or
  read by its test, `+ - *`, `//` and `%` by a non-zero literal or as the test computes them
  (`h % s`), `min`/`max` of those, and no number reading a name the branches set (TensorFlow's
  "SAME" padding in transformers' MobileNet: `if in_height % stride_height == 0: pad = max(k -
  stride_height, 0)` / `else: pad = max(k - (in_height % stride_height), 0)`), also written as one
  expression, `w_up = w if w % 32 == 0 else 32 * (w // 32 + 1)` (mmagic's SPyNet rounding its input
  up to a multiple of 32), with the same conditions on both numbers, or as two lists (or tuples) of
  such numbers of one length (pixseg's ENet padding to even sizes, `to_pad = [0, 0] if size % 2 == 0
  else [0, 1]`, `size` a loop variable over `x.shape[-1:1:-1]`: a loop over a tensor's shape gives
  sizes), each element that differs chosen on its own;
- or a repeat of the name it assigns, `x = x.repeat(n, 1, ...)`, `x = x.repeat_interleave(n, d)` or
  `x = torch.repeat_interleave(x, n, dim=d)` (an axis given), also with an `else` that takes the
  input as it is (`else: src = image`: segment-anything's per-mask expansion) and in an `if`/`elif`
  chain of such repeats with no `else` (transformers' SAM-HQ mask decoder: `if hq.shape[0] == 1:
  hq = hq.repeat(b * p, 1, 1, 1)` / `elif hq.shape[0] == b and b * p != b: hq =
  hq.repeat_interleave(p, 0)`; SAM 3's `if text.shape[0] == 1 and geo.shape[0] > 1: text =
  text.repeat(geo.shape[0], 1, 1)`), where each count (not written `1`) raises nothing where the
  test is false (as for the numbers below: literals, sizes, names bound before the `if`, `+ - *`);
- or several crops from the start, each of the name it assigns (`masks = masks[:, :n, :n]`,
  `ids = ids[:, :n]`: transformers' Grounding DINO cutting the text to the longest it takes), or
  several pads (with such crops), each of the name it assigns, each name once (S2M2's stereo pair:
  `if pad_h > 0 or pad_w > 0:` then `left = F.pad(left, [0, pad_w, 0, pad_h], mode="replicate")` and
  the same for `right`): each rewritten as that one line alone would be;
- or a pad written into a filled tensor (CascadePSP's `safe_forward`, ViTMatte's and DiffMatte's
  preprocessing: `if (ph % 8 != 0) or (pw % 8 != 0):`): the branch binds sizes (`newH = (ph // 8 + 1) *
  8`), fills tensors of them (`torch.zeros/ones/empty/full(...)` or `x.new_zeros/new_ones/new_empty/
  new_full(...)`, the sizes also a tuple or a list, then `.to(...)` and `+ c` or `- c` by a number:
  `torch.zeros(b, 1, newH, newW) - 1`), writes each input into the leading corner of its filled tensor
  (`p_im[:, :, 0:ph, 0:pw] = im`, `out[..., :h, :w] = x`, also `= x[:, :, :, :]`), may `del` the input,
  and rebinds the input's name to it (`im = p_im`), also under an `if` on configuration (`if inter_s8 is
  not None:`); a size name is read only as a filled tensor's size at a written axis, a filled tensor only
  by its write and the rebinding, and a size at a whole axis (`:`) reads no size the branch binds;
- or the other way round, a shortcut: an `if` without `else` whose test compares a size for
  equality (not with 0: emptiness is TRT713's) and whose body only returns a name or an
  attribute, also under nested `if`s, where the code after it reads what it returns (DINOv2's,
  DINO's and many ViTs' `if npatch == N and w == h: return self.pos_embed`, timm's
  `resample_abs_pos_embed`: return the position embedding as it is when the grid already
  matches, resize it otherwise). Not one whose test already asks for the trace
  (`if not torch.jit.is_tracing() and ...`, transformers' form).

And a pad to a fixed count that returns early where a size already reaches it (lucid_yolo's
`pad_detections` and `pad_anchor_indices`, its detections padded to `max_det` rows: `kept =
x.shape[-2]`, `if kept >= max_det: return x`, also `>`, `max_det <= kept`): the `if`'s body only
returns a name, and every statement after it in the function is one step of a pad of that name by
`max_det - kept`: `shape = list(x.shape)`, `shape[a] = max_det - kept`, a fill of `shape` in `x`'s
dtype and device (`x.new_zeros(shape)`, `new_ones`, `new_full`, `new_empty`, or `torch.zeros`/`full`/
`ones`/`empty` with `dtype=x.dtype, device=x.device`) and `return torch.cat((x, fill), dim=a)` (either
order, along the axis the amount is at), or `return F.pad(x, (...))` whose amounts are 0 or `max_det -
kept`. The `if` goes and each amount becomes `_trt_size_where(kept < max_det, max_det - kept, 0)`: 0
exactly where the `if` returned early, where the pad adds no row and the result holds `x`'s values
(a new tensor, not `x` itself), so the traced graph pads to the count at every number of rows.
The same pad written as the `if`'s own assignment, done only below the count (effdet's
`generate_detections`: `if num_det < max_det_per_image: detections = torch.cat([detections,
torch.zeros((max_det_per_image - num_det, 6), device=detections.device, dtype=detections.dtype)],
dim=0)`; also `<=`, `max_det > num_det`): a `torch.cat` of the name and a fill of a written shape in its
dtype and device, whose element at the `cat`'s axis is the amount and whose others do not read the
name. The `if` goes, its assignment stays with the amount chosen the same way; where the test was
false the fill has no row (its other sizes are assumed the tensor's own, as where the test holds).

And a `while` loop (no `else`) that steps a size by one until a divisibility test passes: a round
up (or down) to a multiple. Its body is one step, `v += 1`, `v -= 1` or `v = v + 1`, and its test
`E % k != 0` or `E % k` (its truth), `E` being `v`, `v * s`, `s * v`, `v + c` or `v - c`, or
`(v // k) * k != v` (the same test for integers); `k`, `s` and `c` are no tensors and do not read
`v`. ccvfi's `resize` (RIFE's frames grown until each side times the flow scale is a multiple of
64): `while _h * _scale % 64 != 0: _h += 1`. Also `while True:` whose body is the test that ends
it, returning the size, then the step (Grad-TTS's `fix_len_compatibility`: `if length %
(2**num_downsamplings_in_unet) == 0: return length` then `length += 1`). `v` is a size, or the
observed export warned at the test (a size handed down, a pad counted from 0).

Why it hurts: under the TorchScript exporter each size is a traced tensor and the `if`
turns it into a Python bool (a `TracerWarning`): the graph keeps the branch the example
took. An example whose sizes are multiples of the window exports with no pad at all, and
the engine is wrong (or fails in a reshape) at any other size; the other way round, it pads
by the example's amount at every size.

The rewrite: the `if` goes, its assignment stays and runs every time. A pad's amounts are
multiplied by the condition (`(p - w % p) * (w % p != 0)`, with `or`/`and`/`not c` written `|`/`&`/`(c) == 0`
so the condition stays a traced value): they are 0 where the condition was false, and a pad
by 0 is the tensor as it was. An amount the trace does not see (a literal, a module's
configuration: SpyNet's `if up.size(2) != ref.size(2): up = F.pad(up, [0, 0, 0, 1], mode="replicate")`,
a row added where the upsampled flow is short) is chosen by the test instead,
`_trt_size_where(up.size(2) != ref.size(2), 1, 0)`: times the traced bool it exports as a bool (the
exporter casts the number to the bool's type), and ONNX Runtime refuses to load the pads' `Concat`
of bool and int64 (measured with torch 2.13); the choice is an int64 `Where`. A number's truth is written `!= 0` there (`(pad_h != 0) |
(pad_w != 0)`): `pad_h | pad_w` would be a bitwise or of integers, which the exporter has no
ONNX op for at opset 17. A crop, a resize or a broadcast is kept as written. A trim's start and
end amounts are multiplied by the condition as a pad's are, and an end written negative is counted
from the start, `x[..., (delta // 2) * (delta != 0):x.size(-1) - (delta - delta // 2) * (delta !=
0)]`: `:-0` takes nothing, so the traced `:-e` gave an empty tensor wherever `e` is 0 (measured:
Demucs' trim exported at a length where `delta` is 1 returns shape `(1, 1, 0)` at 68 and 100, the
lengths its strides take whole; the rewritten graph matches eager mode there). An early return
becomes the return of the resize, every time, and the `return x` after the `if` (or its
`else`) goes. A repeat's counts are chosen by the test, `_trt_size_choice = <test>`
then `x = x.repeat(_trt_size_where(_trt_size_choice, n, 1), 1, ...)`: 1 where the test is false, and
a repeat by 1 is the tensor's values as they are; an `elif`'s count is 1 where a test before it
holds (`_trt_size_where(_trt_size_choice, 1, _trt_size_where(<its test>, n, 1))`), so every test
of the chain is evaluated every time (comparisons of sizes) and at most one repeat counts. Traced at
a batch of 1, SAM-HQ's `hq.shape[0] == 1` holds and the original graph repeats the features by the
batch at every batch (3 images give 9 rows, and the add beside it fails); the rewritten graph
chooses the count by the traced test (`Where`, then `Tile`). A local holding a pad's amounts is
bound every time, its amounts multiplied by the condition; a local holding one amount is bound
every time as written, and the pad's tuple multiplies it; a flag beside the resize is set
every time, as the resize now is. A choice between
numbers becomes `_trt_size_choice = <test>` (evaluated once, where the `if` evaluated it) and
`t = _trt_size_where(_trt_size_choice, v, t)` for each assignment (an expression's choice, `t = a if c
else b`, becomes `t = _trt_size_where(c, a, b)`): in eager mode (and scripted)
`v if _trt_size_choice else t`, the same number, and only while a trace passes the test as a
0-d tensor a traced `where`, so the window stays a traced size (`Where` in the graph). An `if`/`else`
whose branches set the same names takes each number only where computing it raises nothing: literals,
sizes, names bound before, an element by a literal index that the function read before
(`stride[0]`), `+ - *`, `//`/`%` by a literal, `min`/`max`, and `math.ceil`/`math.floor` of those or of
their true division by a non-zero literal. A chained assignment sets each of its names, and each gets
its own choice, with `math.ceil`/`math.floor` written `_trt_size_ceil`/`_trt_size_floor` (traced while
tracing, the same int in eager mode): kornia's `compute_padding` (`extract_tensor_patches` and
`combine_tensor_patches` with automatic padding), `if vertical_padding % 2 == 0: top_padding =
bottom_padding = vertical_padding // 2` / `else: ... bottom_padding = ceil(vertical_padding / 2)`,
becomes `top_padding = _trt_size_where(_trt_size_choice, vertical_padding // 2, vertical_padding //
2)` and `bottom_padding = _trt_size_where(_trt_size_choice, vertical_padding // 2,
_trt_size_ceil(vertical_padding / 2))` (measured: exported at 56x72, where both amounts are even, the
original graph split an odd amount evenly and the tiles no longer covered the image; the rewritten
graph matches eager mode at 57x73 and 113x145). Still left alone: a branch that reads a name it set
(`top_pad = math.floor(vertical_pad / 2)`, `bottom_pad = top_pad + 1`, a pad-to-shape utility), and
branches that set different names (the common pad to a multiple of 64, `max_h` set only where
`h % 64 > 0`, `top_pad = bottom_pad = 0` in the `else`). What
reads it next must take a traced size (a view, a pad, arithmetic, a slice bound do); where it
meets Python again (`if sum(shift_size) > 0:`, `torch.roll(shifts=...)`, which the TorchScript
exporter needs constant) the bake moves there or the export fails, and `migrate` takes the
candidate back. A pad written into a filled tensor keeps its `if`, the test evaluated once before it
(`_trt_size_choice = <test>`) and read through `_trt_size_taken(_trt_size_choice)`: the test itself
(eager mode, scripted, `torch.compile`, `torch.export` decide as written), True only while a trace passes
it as a tensor, so the trace records the branch. Each filled size at a written axis is chosen by the test, `newH =
_trt_size_where(_trt_size_choice, (ph // 8 + 1) * 8, ph)` (a size written in place is wrapped where it
stands): where the test is false it is the corner's bound, the input's own size, so the write covers the
whole filled tensor and the name holds a copy of the input. Only the test chooses: CascadePSP's `(ph // 8
+ 1) * 8` would add a whole 8 to a side that is a multiple already (measured: exported at 60x70 the original
graph pads 64x72 to 72x80, exported at 64x72 it pads nothing at 60x70; the rewritten graph, exported at
either, matches eager mode at both, with `ScatterND` for the write).
A shortcut is skipped while tracing: `if not _trt_tracing() and (<test>):`
(the helper TRT726 inserts, true while `torch.jit.trace` or `torch.export` records the
model), so the trace records the general path, and eager mode returns early as before.
A `while` that steps a size to a multiple becomes `v = _trt_size_stepped(v, step, k, s, c)` (or
`return ...` for the `while True:` form): in eager mode (and scripted) the same loop; while a trace
passes a traced size, the loop's end in closed form, `((v + c + m - 1) // m) * m - c` up,
`((v + c) // m) * m - c` down, where `m` is the test's period: the smallest `m` whose multiples
`v + c` are exactly where `(v + c) * s % k == 0`, `k * q / gcd(k * q, p)` for the scale `s = p / q`
as a float holds it exactly (64 for a scale of 1.0, 32 for 2.0, 128 for 0.5). A test without a scale
passes 1.0 (the helper's `scale: float` for a scripted caller; `n * 1.0 % k` has the truth of `n % k`
for every integer below 2**53). Where no such period can be taken (a scale of 0, inf or NaN, a tensor,
a period over 2**16 such as a scale of 0.1's) the trace runs the loop, as the original did.

Fix safety: unsafe. It assumes that where the condition is false the crop is to the
tensor's own size and the resize or the broadcast to its own size (then a broadcast is a view of
the same values, a crop takes every element and a
`bilinear`, `nearest` or `bicubic` resize to the same size gives the same values), which
the code does not say. The result is a new tensor where the original kept or returned the input itself
(aliasing, `is`, in-place writes through it), with the strides of a fresh copy: where the
original's tensor kept another layout (a zero pad of a transposed view), a later matrix product
may sum in another order, so values agree to float rounding, not always bit for bit (timm's
Twins: 1 ulp). A repeat assumes the tensor has as many axes as the counts (`repeat(1, 1)` of a 1-D tensor adds an
axis, where the original left it as it was) and, where the test is false, gives a contiguous copy
of the values. A resize to the tensor's own size reads each value's neighbour with weight 0,
so an inf or NaN next to a value makes it NaN (0 * inf): where it resizes, the rewrite assumes
finite values. And the work is done every time (a pad by 0 or a crop of everything is a copy). `trtcodemod migrate` tries
it as a candidate where the export warned at the `if`, and keeps it only when the
verification finds the rewritten model equivalent, on input sets where the condition is
true and where it is false. A choice between numbers also assumes that `t` holds a value
before the `if` (the rewrite reads it where the test is false: a name not bound yet raises
`NameError`, an index past a list's end `IndexError`, where the original assigned nothing), and
a flag set beside a resize is set where the test is false too (the assumption: what reads it
does work that leaves the tensor as it is there, as a resize back to the same size does), and
reads `v` where the test is false (a literal, a size or an operand the test read already, so
it raises nothing new); with an `else`, both numbers are computed every time (each raises
nothing, by the forms above); the `if`'s local `_trt_size_choice` is new. A shortcut's rewrite changes nothing in eager mode
(and nothing scripted); traced, it assumes that where the sizes match the code after it computes
what it returns (a resize of the embedding to its own grid, which holds for finite values), and
that work is then done every time in the graph. A stepped size's closed form assumes the products
`(v + c) * s` the loop meets are exact in floating point (true for a scale that is a short binary
fraction, 0.5, 1.5, 2.0, at sizes below 2**40): where a product rounds, the loop may stop elsewhere
(or never), and the traced graph then differs from eager mode; eager mode runs the loop as written. A
pad written into a filled tensor changes nothing in eager mode or scripted; its traced graph, where the
test is false, holds a copy of the input where the original kept the input itself: it assumes the input
has the filled tensor's dtype and device (a `torch.zeros` without `dtype=` is float32) and the corner's
sizes (where it has others the write raises where the test holds too), and the write is done every time.
A trim assumes that where the test holds each end's amount `e` is between 1 and the axis's length (then
`-e` and `size - e` are one end; `e` of 0 would take nothing there, `e` past the length nothing, where
`size - e` counts back from the end), and where the test is false its amounts are whatever they are: they
are multiplied by 0.""",
        fix=Safety.UNSAFE,
        assumption=("where the condition is false, the crop or resize is to the tensor's own size (a pad's amounts are "
                    "multiplied by the condition, a repeat's counts are 1 there, on a tensor with as many axes as "
                    "counts), a resized tensor holds finite values, nothing relies on getting "
                    "the same tensor object back, a number the `if` sets already holds a value, a flag set beside "
                    "a resize guards only work that leaves the tensor as it is where the test is false, and where a "
                    "shortcut's sizes match, the code after it computes what it returns, a `while` stepping a size "
                    "to a multiple meets only products of the size and the scale that are exact in floating point, "
                    "an input written into a filled tensor has its dtype and device and the corner's sizes, "
                    "and a trim's end amount written negative is between 1 and the axis's length where the test "
                    "holds"),
        examples=(
            Example(
                "class Embed(nn.Module):\n"
                "    def forward(self, x):\n"
                "        _, _, h, w = x.shape\n"
                "        if w % 4 != 0:\n"
                "            x = F.pad(x, (0, 4 - w % 4))\n"
                "        return x\n",
                "class Embed(nn.Module):\n"
                "    def forward(self, x):\n"
                "        _, _, h, w = x.shape\n"
                "        x = F.pad(x, (0, (4 - w % 4) * (w % 4 != 0)))\n"
                "        return x\n",
                unsafe=True,
            ),
            Example(
                "class Block(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b, h, w, c = x.shape\n"
                "        pad_r = (4 - w % 4) % 4\n"
                "        y = self.attn(F.pad(x, (0, 0, 0, pad_r)))\n"
                "        if pad_r > 0:\n"
                "            y = y[:, :h, :w, :].contiguous()\n"
                "        return y\n",
                "class Block(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b, h, w, c = x.shape\n"
                "        pad_r = (4 - w % 4) % 4\n"
                "        y = self.attn(F.pad(x, (0, 0, 0, pad_r)))\n"
                "        y = y[:, :h, :w, :].contiguous()\n"
                "        return y\n",
                unsafe=True,
            ),
            Example(
                "class Stage(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        window = 7\n"
                "        if h <= window:\n"
                "            window = h\n"
                "        return x.reshape(x.shape[0], x.shape[1], -1, window, x.shape[3])\n",
                "class Stage(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        window = 7\n"
                "        _trt_size_choice = h <= window\n"
                "        window = _trt_size_where(_trt_size_choice, h, window)\n"
                "        return x.reshape(x.shape[0], x.shape[1], -1, window, x.shape[3])\n",
                unsafe=True,
            ),
            Example(
                "def pad_to_multiple(x: torch.Tensor, multiple: int) -> torch.Tensor:\n"
                "    _, _, h, w = x.size()\n"
                "    pad_h = (multiple - h % multiple) % multiple\n"
                "    pad_w = (multiple - w % multiple) % multiple\n"
                "    if pad_h or pad_w:\n"
                "        return F.pad(x, (0, pad_w, 0, pad_h), mode=\"reflect\")\n"
                "    return x\n",
                "def pad_to_multiple(x: torch.Tensor, multiple: int) -> torch.Tensor:\n"
                "    _, _, h, w = x.size()\n"
                "    pad_h = (multiple - h % multiple) % multiple\n"
                "    pad_w = (multiple - w % multiple) % multiple\n"
                "    return F.pad(x, (0, (pad_w) * ((pad_h != 0) | (pad_w != 0)), 0, (pad_h) * ((pad_h != 0) | "
                "(pad_w != 0))), mode=\"reflect\")\n",
                unsafe=True,
            ),
            Example(
                "class Decoder(nn.Module):\n"
                "    def forward(self, x, hq):\n"
                "        b = x.shape[0]\n"
                "        if hq.shape[0] == 1:\n"
                "            hq = hq.repeat(b, 1, 1, 1)\n"
                "        return torch.cat([x, hq], dim=1)\n",
                "class Decoder(nn.Module):\n"
                "    def forward(self, x, hq):\n"
                "        b = x.shape[0]\n"
                "        _trt_size_choice = hq.shape[0] == 1\n"
                "        hq = hq.repeat(_trt_size_where(_trt_size_choice, b, 1), 1, 1, 1)\n"
                "        return torch.cat([x, hq], dim=1)\n",
                unsafe=True,
            ),
            Example(
                "class Pad(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        while h % 8 != 0:\n"
                "            h += 1\n"
                "        return F.pad(x, (0, 0, 0, h - x.shape[2]))\n",
                "class Pad(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        h = _trt_size_stepped(h, 1, 8, 1.0, 0)\n"
                "        return F.pad(x, (0, 0, 0, h - x.shape[2]))\n",
                unsafe=True,
            ),
            Example(
                "class Refine(nn.Module):\n"
                "    def forward(self, im, seg):\n"
                "        b, _, h, w = seg.shape\n"
                "        if h % 8 != 0 or w % 8 != 0:\n"
                "            new_h = (h // 8 + 1) * 8\n"
                "            new_w = (w // 8 + 1) * 8\n"
                "            padded = torch.zeros(b, 1, new_h, new_w) - 1\n"
                "            padded[:, :, :h, :w] = seg\n"
                "            seg = padded\n"
                "        return self.net(im, seg)[:, :, :h, :w]\n",
                "class Refine(nn.Module):\n"
                "    def forward(self, im, seg):\n"
                "        b, _, h, w = seg.shape\n"
                "        _trt_size_choice = (h % 8 != 0) | (w % 8 != 0)\n"
                "        if _trt_size_taken(_trt_size_choice):\n"
                "            new_h = _trt_size_where(_trt_size_choice, (h // 8 + 1) * 8, h)\n"
                "            new_w = _trt_size_where(_trt_size_choice, (w // 8 + 1) * 8, w)\n"
                "            padded = torch.zeros(b, 1, new_h, new_w) - 1\n"
                "            padded[:, :, :h, :w] = seg\n"
                "            seg = padded\n"
                "        return self.net(im, seg)[:, :, :h, :w]\n",
                unsafe=True,
            ),
        ),
        references=(TS_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html",
                    "https://pytorch.org/docs/stable/generated/torch.where.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._elifs: set[cst.If] = set()
        #: ``if``s inside a shortcut already reported: the outer one's fix covers them.
        self._inside_shortcut: set[cst.If] = set()
        #: An ``if`` whose test is a flag bound on the line just before it, with that line and its value.
        self._flags: dict[cst.If, tuple[cst.SimpleStatementLine, cst.BaseExpression]] = {}
        #: The functions being visited, innermost last: where a branch's local is read.
        self._functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)
        super().visit_FunctionDef(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._functions.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        # ``was_padded = pad_values[3] > 0 or pad_values[5] > 0`` then ``if was_padded:`` (transformers'
        # Swin V2, Swin2SR, Donut Swin, DiNAT, CLAP and MaskFormer-Swin): the test held in a flag.
        for before, after in zip(node.body, node.body[1:]):
            if type(after) is cst.If and type(after.test) is cst.Name and type(before) is cst.SimpleStatementLine \
                    and len(before.body) == 1 and type(before.body[0]) is cst.Assign:
                assign = before.body[0]
                if len(assign.targets) == 1 and type(assign.targets[0].target) is cst.Name \
                        and assign.targets[0].target.value == after.test.value:
                    self._flags[after] = (before, assign.value)

    def _flag(self, node: cst.If) -> tuple[cst.SimpleStatementLine, cst.BaseExpression] | None:
        """The flag's line and value, where the ``if`` is the only place that reads it."""
        held = self._flags.get(node)
        function = self._functions[-1] if self._functions else None
        if held is None or function is None:
            return None
        name = node.test.value  # type: ignore[attr-defined]
        uses = sum(1 for n in walk(function) if type(n) is cst.Name and n.value == name)
        return held if uses == 2 else None  # its assignment and this test

    def visit_If(self, node: cst.If) -> None:
        if type(node.orelse) is cst.If:
            self._elifs.add(node.orelse)  # an `elif` is part of its chain's decision, not an `if` of its own
        if node in self._elifs or node in self._inside_shortcut or not self._frames or not self.active():
            return
        if self._repeats(node):
            return
        if node.orelse is None and (self._padded_to_count(node) or self._padded_up_to_count(node)
                                    or self._shortcut(node) or self._choice(node) or self._filled(node)
                                    or self._module_pad(node)) \
                or type(node.orelse) is cst.Else and self._either(node):
            return
        flag = self._flag(node) if node.orelse is None else None
        test = flag[1] if flag is not None else node.test
        if node.orelse is None and flag is None and self._crops(node):
            return
        if self._early_return(node, test, flag):
            return
        branch = self._branch(node)
        if branch is None or not self._sized(node, test, flags_too=True):
            return
        assignment, locals_, flags = branch
        target = assignment.targets[0].target.value  # type: ignore[attr-defined]
        source = _unchanged_in_else(node, target) if not locals_ and not flags else \
            (target if node.orelse is None else None)
        if source is None:
            return
        explicit = self._explicit(test)
        numbers = [a for a in locals_ if type(a.value) not in (cst.Tuple, cst.List)]
        if numbers and not all(self._harmless(a.value, _computed_in(explicit), self._bound_before(node))
                               for a in numbers):
            return  # an amount now computed where the test is false must raise nothing there
        kind, new_value, scaled = self._resize(assignment.value, source, explicit, locals_)
        if kind is None or kind in ("pads", "trims") and _comparisons(explicit) is None:
            return  # a pad's or trim's amounts are scaled by the test, which must then be comparisons only
        also = "".join(f"; `{short_code(f.targets[0].target)}` is set every time, as the {kind[:-1]} is done"
                       for f in flags)
        if flag is not None:
            also += f"; the flag `{short_code(node.test)}`, read only here, goes with it"
        self.found(test, f"`if {short_code(test)}:` {kind} `{target}` only when a size asks for it: a "
                   "traced export keeps the branch the example took; do it every time, in a form that is the "
                   f"tensor itself where the condition is false{also}",
                   Fix(self._unconditional(node, flag, assignment, new_value, scaled), safety=Safety.UNSAFE,
                       helpers=_where_used(new_value, scaled)))

    def _module_pad(self, node: cst.If) -> bool:
        """``if x.shape[-1] % 2: x = self.pad(x)`` where the class builds ``self.pad`` as one of torch's padding
        modules (braindecode's U-Sleep encoder: a ``nn.ConstantPad1d(1)`` before a pooling of 2 on odd lengths):
        while tracing the module's amounts are chosen by the test (``_trt_pad_where``); the ``if`` stays for eager
        mode and scripting, behind it."""
        lines = _body_lines(node)
        if lines is None or len(lines) != 1 or type(lines[0]) is not cst.SimpleStatementLine \
                or len(lines[0].body) != 1 or type(lines[0].body[0]) is not cst.Assign:
            return False
        assign = lines[0].body[0]
        target, call = assign.targets[0].target, assign.value
        if len(assign.targets) != 1 or type(target) is not cst.Name or type(call) is not cst.Call \
                or len(call.args) != 1 or call.args[0].keyword or call.args[0].star \
                or type(call.args[0].value) is not cst.Name or call.args[0].value.value != target.value:
            return False
        func = call.func
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value != "self" \
                or not self._builds_pad(func.attr.value) or not self._sized(node, node.test):
            return False
        explicit = self._explicit(node.test)
        if _comparisons(explicit) is None:
            return False
        chosen = cst.Assign(targets=[cst.AssignTarget(target)],
                            value=helper_call(_PAD_WHERE, func, target, _as_traced(explicit)))
        tracing = cst.BooleanOperation(
            left=cst.UnaryOperation(cst.Not(), cst.Call(self.context.torch_attr("jit.is_scripting"))),
            operator=cst.And(), right=cst.Call(cst.Name(TRACING_HELPER)))
        new = cst.If(test=tracing, body=cst.IndentedBlock([cst.SimpleStatementLine([chosen])]),
                     leading_lines=node.leading_lines, orelse=node.with_changes(leading_lines=()))
        self.found(node.test, f"`if {short_code(node.test)}:` pads `{target.value}` with `self.{func.attr.value}` only "
                   "when a size asks for it: a traced export keeps the branch the example took; while tracing, the "
                   "module's amounts are chosen by the test, 0 where it is false (eager mode keeps the `if`)",
                   Fix({node: new}, safety=Safety.UNSAFE, helpers=(TRACING_HELPER, _PAD_WHERE)))
        return True

    def _builds_pad(self, attribute: str) -> bool:
        """Does a method of the enclosing class assign ``self.<attribute>`` one of torch's padding modules?"""
        cls = self.context.enclosing_class
        if cls is None:
            return False
        for node in walk(cls):
            if type(node) is cst.Assign and len(node.targets) == 1 and type(node.value) is cst.Call:
                target = node.targets[0].target
                if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self" \
                        and target.attr.value == attribute \
                        and self.context.refers_to(node.value.func, *_PAD_MODULES) is not None:
                    return True
        return False

    def _unconditional(self, node: cst.If, flag: tuple[cst.SimpleStatementLine, cst.BaseExpression] | None,
                       small: cst.Assign | cst.Return, new_value: cst.BaseExpression,
                       scaled: tuple[cst.Assign, cst.BaseExpression] | None,
                       after: cst.SimpleStatementLine | None = None
                       ) -> dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel]:
        """The replacements that do the branch's lines every time: ``small`` (the resize, or the
        ``return`` of one) with ``new_value`` as its value, the pad's
        local as ``scaled``; the ``if``'s comments above them, its flag's line and ``after`` (the
        ``return x`` an early return skipped) removed, their comments kept."""
        lines = _body_lines(node) or []
        # The if's comments (its header's, the branch's) stay, above the statements that are left.
        owns = {line.trailing_whitespace.comment.value for line in lines
                if type(line) is cst.SimpleStatementLine and line.trailing_whitespace.comment is not None}
        # A comment above a later line of the branch stays there, with its line (the first line's go on top).
        owns |= {empty.comment.value for line in lines[1:] for empty in line.leading_lines if empty.comment}
        comments = [c for c in comments_inside(node) if c.comment.value not in owns]
        if after is not None:
            comments += [cst.EmptyLine(comment=line.comment) for line in after.leading_lines if line.comment]
            if after.trailing_whitespace.comment is not None:
                comments.append(cst.EmptyLine(comment=after.trailing_whitespace.comment))
        unconditional = []
        for line in lines:
            first = line.body[0]  # type: ignore[attr-defined]
            if first is small:
                line = line.with_changes(body=[small.with_changes(value=new_value)])
            elif scaled is not None and first is scaled[0]:
                line = line.with_changes(body=[first.with_changes(value=scaled[1])])
            above = [*flag[0].leading_lines] if flag is not None else []
            unconditional.append(line.with_changes(leading_lines=[*above, *node.leading_lines, *comments])
                                 if not unconditional else line)
        replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel] = {
            node: unconditional[0] if len(unconditional) == 1 else cst.FlattenSentinel(unconditional)}
        if flag is not None:
            replacements[flag[0]] = cst.RemovalSentinel.REMOVE
        if after is not None:
            replacements[after] = cst.RemovalSentinel.REMOVE
        return replacements

    # -- an early return of the resized tensor -------------------------------------------

    def _early_return(self, node: cst.If, test: cst.BaseExpression,
                      flag: tuple[cst.SimpleStatementLine, cst.BaseExpression] | None) -> bool:
        """``if pad_h or pad_w: return F.pad(x, (0, pad_w, 0, pad_h), mode)`` directly followed by
        ``return x`` (spandrel's ``pad_to_multiple``), or with ``else: return x``: the branch returns
        a pad, crop, resize or broadcast of ``x``, the code after it ``x`` as it is. The resize is
        returned every time (a pad's amounts times the test); True when found (reported)."""
        if type(node.body) is not cst.IndentedBlock or not node.body.body:
            return False
        lines = list(node.body.body)
        if not all(type(line) is cst.SimpleStatementLine and len(line.body) == 1 for line in lines):
            return False
        returned = lines[-1].body[0]  # type: ignore[attr-defined]
        if type(returned) is not cst.Return or returned.value is None:
            return False
        function = self._functions[-1] if self._functions else None
        locals_ = [line.body[0] for line in lines[:-1]]  # type: ignore[attr-defined]
        for local in locals_:  # ``pad_values = (...)`` before ``return F.pad(x, pad_values)``
            if type(local) is not cst.Assign or len(local.targets) != 1 \
                    or type(local.targets[0].target) is not cst.Name \
                    or type(local.value) not in (cst.Tuple, cst.List) or function is None \
                    or not _fresh_local(function, node, local.targets[0].target.value):
                return False
        after = None
        if node.orelse is None:
            after = _next_line(function, node) if function is not None else None
            otherwise = _returned_name(after)
        elif type(node.orelse) is cst.Else and type(node.orelse.body) is cst.IndentedBlock \
                and len(node.orelse.body.body) == 1:
            otherwise = _returned_name(node.orelse.body.body[0])
        else:
            return False  # an elif chain is another decision
        if otherwise is None or not self._sized(node, test, flags_too=True):
            return False
        explicit = self._explicit(test)
        kind, new_value, scaled = self._resize(returned.value, otherwise, explicit, locals_)  # type: ignore[arg-type]
        if kind is None or kind in ("pads", "trims") and _comparisons(explicit) is None:
            return False
        also = f"; the flag `{short_code(node.test)}`, read only here, goes with it" if flag is not None else ""
        self.found(test, f"`if {short_code(test)}:` returns `{otherwise}` {_DONE[kind]} only when a size asks for "
                   f"it, and `{otherwise}` as it is otherwise: a traced export keeps the branch the example took; "
                   f"return the {kind[:-1]} every time, in a form that is the tensor itself where the condition is "
                   f"false{also}",
                   Fix(self._unconditional(node, flag, returned, new_value, scaled, after), safety=Safety.UNSAFE,
                       helpers=_where_used(new_value, scaled)))
        return True

    def _scaled_amount(self, amount: cst.BaseExpression, test: cst.BaseExpression) -> cst.BaseExpression:
        """A pad's amount where the test holds, 0 where not. An amount computed from sizes is a traced
        integer: times the traced test it stays one. A number the trace does not see (a literal, a module's
        configuration: SpyNet's `pad=[0, 0, 0, 1]` when the upsampled flow is a row short) times the traced
        bool exports as a bool (the exporter casts the number to the tensor's type), and the pads' Concat
        mixes bool and int64: ONNX Runtime refuses to load the graph. There the test chooses between the
        amount and 0, ``_trt_size_where``: the same int in eager mode, a traced ``Where`` of int64."""
        if int_value(amount) is not None or configuration(amount):
            return helper_call(SIZE_WHERE_HELPER, _as_traced(test), amount.with_changes(lpar=[], rpar=[]),
                               cst.Integer("0"))
        return _times(amount, _as_traced(test))

    def _explicit(self, test: cst.BaseExpression) -> cst.BaseExpression:
        """``test`` with each ``and``/``or``/``not`` operand that is a number computed from sizes
        (``if pad_h or pad_w:``, a bare int's truth) written ``pad_h != 0``: the same truth for any
        number, and a comparison the rewrite can keep traced (``|`` of two ints is a bitwise or,
        with no ONNX op at opset 17)."""
        if type(test) is cst.BooleanOperation:
            return test.with_changes(left=self._explicit(test.left), right=self._explicit(test.right))
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return test.with_changes(expression=self._explicit(test.expression))
        if type(test) is cst.Comparison or self.is_tensor(test) or self.is_value(test) or not self.size_derived(test):
            return test
        return cst.Comparison(test, [cst.ComparisonTarget(cst.NotEqual(), cst.Integer("0"))])

    def _branch(self, node: cst.If) -> tuple[cst.Assign, list[cst.Assign], list[cst.Assign]] | None:
        """The body as (the resize ``x = ...``, the locals it reads, the flags it sets), one small
        statement a line: ``pad_values = (0, p - w % p)`` before ``x = F.pad(x, pad_values)`` (a local
        read nowhere else before it is bound again: transformers' Swin), ``interpolate = True`` beside
        the resize (a flag recording that it was done: transformers' MobileViT). None otherwise."""
        lines = _body_lines(node)
        if lines is None:
            return None
        assigns = []
        for line in lines:
            if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Assign:
                return None
            assign = line.body[0]
            if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
                return None
            assigns.append(assign)
        flags = [a for a in assigns if type(a.value) is cst.Name and a.value.value in ("True", "False")]
        rest = [a for a in assigns if a not in flags]
        if not rest:
            return None
        resize, locals_ = rest[-1], rest[:-1]
        function = self._functions[-1] if self._functions else None
        for local in locals_:
            name = local.targets[0].target.value  # type: ignore[attr-defined]
            if function is None or not _fresh_local(function, node, name):
                return None
        return resize, locals_, flags

    # -- several crops or pads, each of its own name -----------------------------------------

    def _crops(self, node: cst.If) -> bool:
        """``if masks.shape[1] > max_len:`` then ``masks = masks[:, :max_len, :max_len]``, ``ids =
        ids[:, :max_len]``... (transformers' Grounding DINO: the text cut to the longest it takes), or
        ``if pad_h > 0 or pad_w > 0:`` then ``left = F.pad(left, [0, pad_w, 0, pad_h])``, ``right =
        F.pad(right, [0, pad_w, 0, pad_h])`` (S2M2's stereo pair padded to a multiple of 32): every line a
        crop from the start, or a pad, of the name it assigns, each name once. Each is done every time, each
        exactly as one such line alone would be (a pad's amounts times the test: 0 where it is false); True
        when found (reported)."""
        lines = node.body.body if type(node.body) is cst.IndentedBlock else []
        explicit = self._explicit(node.test)
        targets: list[str] = []
        kinds: set[str] = set()
        rewritten: dict[cst.Assign, cst.BaseExpression] = {}
        for line in lines:
            if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Assign:
                return False
            assign = line.body[0]
            if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
                return False
            target = assign.targets[0].target.value
            kind, value, scaled = self._resize(assign.value, target, explicit, [])
            if kind not in ("crops", "trims", "pads") or scaled is not None or target in targets:
                return False
            targets.append(target)
            kinds.add(kind)
            rewritten[assign] = value
        if len(targets) < 2 or not self._sized(node, node.test, flags_too="pads" in kinds):
            return False
        if kinds & {"pads", "trims"} and _comparisons(explicit) is None:
            return False  # a pad's or trim's amounts are scaled by the test, which must then be comparisons only
        comments = comments_inside(node)
        unconditional = [line.with_changes(body=[line.body[0].with_changes(value=rewritten[line.body[0]])])
                         for line in lines]  # type: ignore[attr-defined]
        unconditional = [line.with_changes(leading_lines=[*node.leading_lines, *comments]) if k == 0 else line
                         for k, line in enumerate(unconditional)]
        names = ", ".join(f"`{t}`" for t in targets)
        done = " and ".join(sorted(kinds))
        why = "a crop past a tensor's end is the tensor itself" if kinds == {"crops"} else \
            "each pad's or trim's amounts are 0 where the condition is false, and a pad or trim by 0 is the tensor " \
            "itself" if kinds & {"pads", "trims"} else ""
        helpers = tuple(sorted({h for v in rewritten.values() for h in _where_used(v, None)}))
        self.found(node.test, f"`if {short_code(node.test)}:` {done} {names} only when a size asks for it: a "
                   f"traced export keeps the branch the example took; do each every time ({why})",
                   Fix({node: cst.FlattenSentinel(unconditional)}, safety=Safety.UNSAFE, helpers=helpers))
        return True

    # -- a pad to a count, skipped where the size already reaches it ----------------------

    def _padded_to_count(self, node: cst.If) -> bool:
        """``if kept >= max_det: return x`` then a pad of ``x`` by ``max_det - kept`` rows (lucid_yolo's
        ``pad_detections``: a fixed-length detection output). The ``if`` goes; the amount becomes
        ``_trt_size_where(kept < max_det, max_det - kept, 0)``, 0 exactly where the ``if`` returned early,
        and a pad by 0 is ``x``'s values. True when found (reported)."""
        function = self._functions[-1] if self._functions else None
        if function is None or type(function.body) is not cst.IndentedBlock or node not in function.body.body:
            return False
        body = node.body
        if type(body) is not cst.IndentedBlock or len(body.body) != 1 or type(body.body[0]) is not cst.SimpleStatementLine \
                or len(body.body[0].body) != 1 or type(body.body[0].body[0]) is not cst.Return:
            return False
        returned = body.body[0].body[0].value
        test = node.test
        if type(returned) is not cst.Name or type(test) is not cst.Comparison or len(test.comparisons) != 1:
            return False
        compared = self._size_and_count(test, reached=True)
        if compared is None:
            return False
        size, count = compared
        amounts = _pad_to_count(_statements_after(function, node), returned.value, code_of(count).strip(),
                                code_of(size).strip())
        if not amounts:
            return False
        fixes: dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel] = {node: cst.RemovalSentinel.REMOVE}
        for amount in amounts:
            fixes[amount] = helper_call(SIZE_WHERE_HELPER, cst.Comparison(
                size.deep_clone(), [cst.ComparisonTarget(cst.LessThan(), count.deep_clone())]),
                amount.deep_clone(), cst.Integer("0"))
        self.found(test, f"`if {short_code(test)}: return {returned.value}` skips a pad to `{short_code(count)}` "
                   "where the size already reaches it: a traced export keeps the branch the example took (at a "
                   "size on the other side it pads by the example's amount, or by none); pad every time, by "
                   f"`{short_code(count)} - {short_code(size)}` where it is positive and by 0 (the tensor's values "
                   "as they are) where the `if` returned early",
                   Fix(fixes, safety=Safety.UNSAFE, helpers=(SIZE_WHERE_HELPER,)))
        return True

    def _padded_up_to_count(self, node: cst.If) -> bool:
        """``if num_det < max_det: x = torch.cat([x, torch.zeros((max_det - num_det, 6), dtype=x.dtype,
        device=x.device)], dim=0)`` (effdet's ``generate_detections``): the pad done only below the count. The
        ``if`` goes, its assignment stays, the amount ``_trt_size_where(num_det < max_det, max_det - num_det, 0)``.
        True when found (reported)."""
        body = node.body
        test = node.test
        if type(body) is not cst.IndentedBlock or len(body.body) != 1 or type(body.body[0]) is not cst.SimpleStatementLine \
                or len(body.body[0].body) != 1 or type(body.body[0].body[0]) is not cst.Assign \
                or type(test) is not cst.Comparison or len(test.comparisons) != 1:
            return False
        assign = body.body[0].body[0]
        if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
            return False
        source = assign.targets[0].target.value
        compared = self._size_and_count(test, reached=False)
        if compared is None:
            return False
        size, count = compared
        amount = _filled_cat(assign.value, source, code_of(count).strip(), code_of(size).strip())
        if amount is None:
            return False
        where = helper_call(SIZE_WHERE_HELPER, cst.Comparison(
            size.deep_clone(), [cst.ComparisonTarget(cst.LessThan(), count.deep_clone())]),
            amount.deep_clone(), cst.Integer("0"))
        kept = body.body[0].with_changes(body=[assign.with_changes(value=assign.value.deep_replace(amount, where))],
                                         leading_lines=node.leading_lines)
        self.found(test, f"`if {short_code(test)}:` pads `{source}` to `{short_code(count)}` rows only below it: a "
                   "traced export keeps the branch the example took (at a count on the other side it pads by "
                   "the example's amount, or by none); pad every time, by "
                   f"`{short_code(count)} - {short_code(size)}` where it is positive and by 0 (the tensor's values "
                   "as they are) elsewhere",
                   Fix({node: kept}, safety=Safety.UNSAFE, helpers=(SIZE_WHERE_HELPER,)))
        return True

    def _size_and_count(self, test: cst.Comparison, reached: bool
                        ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """``(size, count)`` of ``size >= count`` (``>``, or written the other way round) where ``reached``, of
        ``size < count`` (``<=``, or the other way round) otherwise: a size (or a test the export warned at)
        against a number, no tensor's values."""
        operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
        at_least, below = (cst.GreaterThanEqual, cst.GreaterThan), (cst.LessThanEqual, cst.LessThan)
        if type(operator) in (at_least if reached else below):
            size, count = test.left, right
        elif type(operator) in (below if reached else at_least):
            size, count = right, test.left
        else:
            return None
        if any(self.is_tensor(o) or self.is_value(o) for o in (size, count)) \
                or not (self.size_derived(size) or self.traced_at(test)):
            return None
        return size, count

    # -- a shortcut when the sizes already match -----------------------------------------

    def _shortcut(self, node: cst.If) -> bool:
        """``if npatch == N and w == h: return self.pos_embed`` (DINOv2's, timm's and many ViTs'
        position embeddings): return early, as is, when sizes already match what the code after the
        ``if`` would resize to. Skipped while tracing, so the trace records that general path; True
        when found (reported)."""
        if self._value_when_exporting(node.test) is False:
            return False  # never taken while exporting: written for the trace already (RF-DETR's), or fixed
        inner: set[cst.If] = set()
        returned = _early_returns(node.body, inner)
        if not returned or not self._matching_sizes(node.test):
            return False
        function = self._functions[-1] if self._functions else None
        after = _statements_after(function, node) if function is not None else []
        if not any(_reads(line, value) for line in after for value in returned):
            return False  # nothing after the `if` works on what it returns: not a shortcut of that work
        self._inside_shortcut |= inner
        test = cst.BooleanOperation(
            cst.UnaryOperation(cst.Not(), cst.Call(cst.Name(TRACING_HELPER))), cst.And(), _paren(node.test))
        what = ", ".join(dict.fromkeys(f"`{short_code(v)}`" for v in returned))
        self.found(node.test, f"`if {short_code(node.test)}:` returns {what} as it is when sizes match: a traced "
                   "export keeps the example's shortcut, so the graph is right at the traced size only; skip it "
                   f"while tracing ({TRACING_HELPER}()), so the trace records the general path (a resize to the "
                   "same size where they match)",
                   Fix({node.test: test}, safety=Safety.UNSAFE, helpers=(TRACING_HELPER,)))
        return True

    def _matching_sizes(self, test: cst.BaseExpression) -> bool:
        """A test with a size compared for equality with another (not with 0: an emptiness test is
        TRT713's), among other conjuncts (``not is_exporting() and n == m``)."""
        for comparison in _leaf_comparisons(test):
            for left, target in zip([comparison.left, *(c.comparator for c in comparison.comparisons)],
                                    comparison.comparisons):
                right = target.comparator
                if type(target.operator) is not cst.Equal or _is_zero(left) or _is_zero(right):
                    continue
                if any(self.is_tensor(o) or self.is_value(o) for o in (left, right)):
                    return False
                if (self.size_derived(left) or self.size_derived(right)) or self.traced_at(test):
                    return True
        return False

    # -- a pad written into a filled tensor ------------------------------------------------

    def _filled(self, node: cst.If) -> bool:
        """``if (ph % 8 != 0) or (pw % 8 != 0):`` then ``newH = (ph // 8 + 1) * 8``, ``p_im =
        torch.zeros(b, 3, newH, newW)``, ``p_im[:, :, 0:ph, 0:pw] = im``, ``im = p_im`` (CascadePSP's
        ``safe_forward``, ViTMatte's ``preprocess_inputs``): a pad to a multiple written as a filled tensor
        with the input in its leading corner. The ``if`` stays (eager mode decides as before) but is taken
        every time while tracing (``_trt_size_taken``), each size of the filled tensor at a written axis
        chosen by the test, ``_trt_size_where(choice, newH, ph)``: where the test is false the filled
        tensor has the corner's own sizes and the write makes it a copy of the input. True when found."""
        explicit = self._explicit(node.test)
        function = self._functions[-1] if self._functions else None
        if function is None or _comparisons(explicit) is None or not self._sized(node, node.test):
            return False
        found = self._filling(node.body, _Filling())
        if found is None or not found.fills or set(found.writes) != set(found.fills) \
                or set(found.deleted) - set(found.rebound) \
                or sorted(found.rebound.values()) != sorted(found.fills) \
                or any(found.rebound.get(source) != filled for filled, (source, _) in found.writes.items()):
            return False  # each filled tensor written once, with the name it then stands for
        computed, bound = _computed_in(explicit), self._bound_before(node)
        choice = cst.Name(CHOICE)
        corners: dict[str, str] = {}  # a size name -> the corner's bound at the axes it sizes
        replaced: dict[cst.CSTNode, cst.BaseExpression] = {}
        for filled, sizes in found.fills.items():
            bounds = _corner(found.writes[filled][1], len(sizes))
            if bounds is None:
                return False
            for axis, size in enumerate(sizes):
                own = bounds.get(axis)
                if own is None:  # a whole axis: the input's own size already, as the write needs
                    if any(mentions_name(size, name) for name in found.sizes):
                        return False
                    continue
                if not self._harmless(own, computed, bound):
                    return False
                if type(size) is cst.Name and size.value in found.sizes:
                    if corners.setdefault(size.value, _bare(own)) != _bare(own):
                        return False  # one name sizing axes of different corners
                    replaced.setdefault(found.sizes[size.value].value, helper_call(
                        SIZE_WHERE_HELPER, choice, found.sizes[size.value].value.with_changes(lpar=[], rpar=[]),
                        own.deep_clone()))
                    continue
                if any(mentions_name(size, name) for name in found.sizes) \
                        or not self._harmless(size, computed, bound):
                    return False
                replaced[size] = helper_call(SIZE_WHERE_HELPER, choice, size.with_changes(lpar=[], rpar=[]),
                                             own.deep_clone())
        # The branch's own names are read only where it reads them: a size only as a filled tensor's, a
        # filled tensor only by its write and the name it becomes (elsewhere the trace would see them bound
        # where the original left them unbound).
        uses = {name: 0 for name in [*found.sizes, *found.fills]}
        for part in walk(function):
            if type(part) is cst.Name and part.value in uses:
                uses[part.value] += 1
        for name, assign in found.sizes.items():
            readers = sum(1 for sizes in found.fills.values() for s in sizes if type(s) is cst.Name and s.value == name)
            if name not in corners or uses[name] != 1 + readers or not self._harmless(assign.value, computed, bound) \
                    or any(mentions_name(assign.value, other) for other in found.sizes):
                return False
        if any(uses[name] != 3 for name in found.fills):
            return False
        body = node.body.visit(_Substituted(replaced))  # every size at once: a rebuilt tree has new nodes
        taken = node.with_changes(test=helper_call(TAKEN_HELPER, choice), body=body, leading_lines=[])
        test = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(choice)], value=_as_traced(explicit))],
            leading_lines=node.leading_lines)
        names = ", ".join(f"`{source}`" for source in found.rebound)
        self.found(node.test, f"`if {short_code(node.test)}:` pads {names} only when a size asks for it (written "
                   "into the corner of a filled tensor): a traced export keeps the branch the example took; while "
                   f"tracing take the branch every time ({TAKEN_HELPER}), each padded size chosen by the test "
                   f"({SIZE_WHERE_HELPER}: the input's own where it is false, and the write a copy); eager mode "
                   "decides as before",
                   Fix({node: cst.FlattenSentinel([test, taken])}, safety=Safety.UNSAFE,
                       helpers=(SIZE_WHERE_HELPER, TAKEN_HELPER)))
        return True

    def _filling(self, body: cst.BaseSuite, found: _Filling) -> _Filling | None:
        """The branch's lines as a pad written into filled tensors (added to ``found``): sizes ``n = ...``,
        filled tensors ``p = torch.zeros(...)``, writes ``p[..., :h, :w] = x`` (or ``= x[:, :]``), ``del x``
        and ``x = p``, also under an ``if`` on configuration (``if extra is not None:``); None for anything else."""
        if type(body) is not cst.IndentedBlock:
            return None
        for line in body.body:
            if type(line) is cst.If:
                if line.orelse is not None or not _static_test(line.test) or self._filling(line.body, found) is None:
                    return None
                continue
            if type(line) is not cst.SimpleStatementLine:
                return None
            for small in line.body:
                if type(small) is cst.Del:
                    if type(small.target) is not cst.Name or small.target.value in found.names():
                        return None
                    found.deleted.append(small.target.value)
                    continue
                if type(small) is not cst.Assign or len(small.targets) != 1:
                    return None
                target, value = small.targets[0].target, small.value
                if type(target) is cst.Subscript:
                    filled = target.value
                    source = _written_name(value)
                    if type(filled) is not cst.Name or filled.value not in found.fills or filled.value in found.writes \
                            or source is None:
                        return None
                    found.writes[filled.value] = (source, target)
                    continue
                if type(target) is not cst.Name or target.value in found.names() or target.value in found.rebound:
                    return None
                if type(value) is cst.Name and value.value in found.writes:
                    found.rebound[target.value] = value.value
                    continue
                sizes = self._fill_sizes(value)
                if sizes is not None:
                    found.fills[target.value] = sizes
                elif type(value) is not cst.Name or value.value not in found.fills:
                    found.sizes[target.value] = small
                else:
                    return None
        return found

    def _fill_sizes(self, value: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """The sizes of a filled tensor: ``torch.zeros/ones/empty(b, c, h, w)`` (or a tuple or list of
        them), ``torch.full((b, c, h, w), v)``, ``x.new_zeros/new_ones/new_empty(...)``, ``x.new_full(...)``,
        then ``.to(...)`` and ``+ c`` or ``- c`` by a number (CascadePSP's mask filled with -1)."""
        if type(value) is cst.BinaryOperation and type(value.operator) in (cst.Add, cst.Subtract) \
                and _number(value.right):
            value = value.left
        while type(value) is cst.Call and (method_call(value) or ("", ""))[1] == "to" \
                and not self.context.qualified_names(value.func):
            value = value.func.value  # type: ignore[attr-defined]
        if type(value) is not cst.Call or any(a.star for a in value.args):
            return None
        parts = method_call(value)
        if self.context.refers_to(value.func, *_FILLS):
            full = bool(self.context.refers_to(value.func, "torch.full"))
        elif parts is not None and parts[1] in _NEW_FILLS and not self.context.qualified_names(parts[0]):
            full = parts[1] == "new_full"
        else:
            return None
        if any(a.keyword is not None and a.keyword.value not in _FILL_KEYWORDS for a in value.args):
            return None  # ``size=``, ``out=``: not the plain form
        positional = [a.value for a in value.args if a.keyword is None]
        if full and len(positional) not in (1, 2) or not positional:
            return None
        if full or len(positional) == 1 and type(positional[0]) in (cst.Tuple, cst.List):
            shape = positional[0]
            elements = shape.elements if type(shape) in (cst.Tuple, cst.List) else None  # type: ignore[attr-defined]
            if elements is None or any(type(e) is not cst.Element for e in elements):
                return None
            return [e.value for e in elements]
        return positional

    # -- a repeat done only when a size asks for it ------------------------------------------

    def _repeats(self, node: cst.If) -> bool:
        """``if hq.shape[0] == 1: hq = hq.repeat(b * p, 1, 1, 1)`` / ``elif hq.shape[0] == b and ...:
        hq = hq.repeat_interleave(p, 0)`` (transformers' SAM-HQ mask decoder, SAM 3's text features,
        CLVP's text and audio): each branch repeats a name, only when a size asks for it. A repeat by
        1 is the tensor's values as they are, so each repeat is done every time, by the counts the
        tests choose: ``_trt_size_where(_trt_size_choice, n, 1)``, and for an ``elif`` the count where
        every test before it is false. True when found (reported)."""
        branches: list[tuple[cst.If, cst.Assign, list[cst.BaseExpression]]] = []
        current: cst.If | cst.Else | None = node
        while type(current) is cst.If:
            assign = _single_assignment(current.body)
            if assign is None or not self._sized(current, current.test):
                return False
            target = assign.targets[0].target.value  # type: ignore[attr-defined]
            # With an ``else`` (one ``if``, no ``elif``): ``else: y = x`` keeps ``x`` as it is.
            source = _unchanged_in_else(current, target) if current is node and type(current.orelse) is cst.Else \
                else target
            counts = self._repeat_counts(assign.value, source) if source is not None else None
            if counts is None:
                return False
            branches.append((current, assign, counts))
            current = current.orelse if type(current.orelse) is cst.If else None
            if current is None and type(branches[-1][0].orelse) is cst.Else and len(branches) > 1:
                return False  # an elif chain ending in an else: its else does other work
        computed = set().union(*(_computed_in(b.test) for b, _, _ in branches))
        bound = self._bound_before(node)
        if not all(self._harmless(c, computed, bound) for _, _, counts in branches for c in counts):
            return False  # a count computed where the test is false must raise nothing there
        choice = cst.Name(CHOICE)
        lines = []
        for k, (branch, assign, counts) in enumerate(branches):
            replaced: dict[cst.CSTNode, cst.BaseExpression] = {}
            for count in counts:
                chosen = helper_call(SIZE_WHERE_HELPER, _as_traced(branch.test) if k else choice, count,
                                     cst.Integer("1"))
                if k:  # an elif's count: 1 where a test before it is true
                    for earlier in reversed(branches[1:k]):
                        chosen = helper_call(SIZE_WHERE_HELPER, _as_traced(earlier[0].test), cst.Integer("1"), chosen)
                    chosen = helper_call(SIZE_WHERE_HELPER, choice, cst.Integer("1"), chosen)
                replaced[count] = chosen
            line = branch.body.body[0]  # type: ignore[attr-defined]
            lines.append(line.with_changes(body=[_replaced(assign, replaced)], leading_lines=[]))
        # The chain's comments go above it, but those that end a line kept stay on it.
        owns = {line.trailing_whitespace.comment.value for line in lines if line.trailing_whitespace.comment}
        test = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(choice)], value=_as_traced(node.test))],
            leading_lines=[*node.leading_lines, *(c for c in comments_inside(node) if c.comment.value not in owns)])
        names = ", ".join(dict.fromkeys(f"`{code_of(a.targets[0].target)}`" for _, a, _ in branches))
        chain = " (and its `elif`s)" if len(branches) > 1 else ""
        self.found(node.test, f"`if {short_code(node.test)}:`{chain} repeats {names} only when a size asks for it: "
                   "a traced export keeps the branch the example took (at a batch of 1, `shape[0] == 1` holds "
                   f"and the graph repeats at every batch); repeat every time, by counts {SIZE_WHERE_HELPER} "
                   "chooses from the test (1 where it is false: the tensor's values as they are)",
                   Fix({node: cst.FlattenSentinel([test, *lines])}, safety=Safety.UNSAFE, helpers=(SIZE_WHERE_HELPER,)))
        return True

    def _repeat_counts(self, value: cst.BaseExpression, source: str) -> list[cst.BaseExpression] | None:
        """The counts of ``source.repeat(n, 1, ...)`` (each count not written ``1``), of
        ``source.repeat_interleave(n, dim)`` or ``torch.repeat_interleave(source, n, dim=d)`` (``n``,
        with an axis given: without one the result is flat, not the tensor where ``n`` is 1); None
        for anything else."""
        if type(value) is not cst.Call or any(a.star for a in value.args):
            return None
        if self.context.refers_to(value.func, "torch.repeat_interleave"):
            if not _first_is(value, source):
                return None
            repeats, dim, rest = argument(value, 1, "repeats"), argument(value, 2, "dim"), 3
        else:
            parts = method_call(value)
            if parts is None or type(parts[0]) is not cst.Name or parts[0].value != source:
                return None
            if parts[1] == "repeat":
                if not value.args or any(a.keyword is not None for a in value.args):
                    return None
                return [a.value for a in value.args if int_value(a.value) != 1]
            if parts[1] != "repeat_interleave":
                return None
            repeats, dim, rest = argument(value, 0, "repeats"), argument(value, 1, "dim"), 2
        if repeats is None or dim is None or int_value(dim.value) is None:
            return None
        given = {id(repeats), id(dim)} | ({id(value.args[0])} if rest == 3 else set())
        if any(id(a) not in given for a in value.args):
            return None  # ``output_size=`` or anything else: not a plain repeat
        return [repeats.value]

    # -- a size stepped to a multiple -----------------------------------------------------

    def visit_While(self, node: cst.While) -> None:
        """``while _h * _scale % 64 != 0: _h += 1`` (ccvfi's ``resize``): a size stepped by one until a
        divisibility test passes is a round up (or down) to a multiple of the test's period. It becomes
        ``_h = _trt_size_stepped(_h, 1, 64, _scale, 0)``: the same loop in eager mode, the closed form
        on the traced size while tracing."""
        super_visit = getattr(super(), "visit_While", None)
        if super_visit is not None:
            super_visit(node)
        if node.orelse is not None or not self._frames or not self.active():
            return
        found = _stepped_loop(node)
        if found is None:
            return
        name, sign, test, returns, where = found
        period, scale, offset = test
        if any(self.is_tensor(e) or self.is_value(e) for e in (period, scale, offset)):
            return
        if not (self.size_derived(cst.Name(name)) or self.traced_at(where)):
            return
        call = helper_call(STEPPED_HELPER, cst.Name(name), _signed(sign),
                           *(e.with_changes(lpar=[], rpar=[]) for e in (period, scale, offset)))
        small = cst.Return(value=call) if returns else \
            cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=call)
        line = cst.SimpleStatementLine(body=[small], leading_lines=[*node.leading_lines, *comments_inside(node)])
        way = "up" if sign > 0 else "down"
        shown = f"while {short_code(node.test)}:" + (" ... return" if returns else "")
        self.found(where, f"`{shown}` steps `{name}` {way} to a multiple in Python: a traced export unrolls "
                   "the loop as many times as the example ran it; "
                   f"{STEPPED_HELPER} rounds {way} to the test's period in the graph while tracing (the loop in "
                   "eager mode)", Fix({node: line}, safety=Safety.UNSAFE, helpers=(STEPPED_HELPER,)))

    # -- a choice between numbers ---------------------------------------------------------

    def _choice(self, node: cst.If) -> bool:
        """``if x_size[i] <= window_size[i]: use_window_size[i] = x_size[i]``: an ``if`` on sizes whose
        body only assigns numbers. Each becomes ``_trt_size_where(choice, new, old)`` after the test
        is evaluated once into ``_trt_size_choice``; True when found (reported)."""
        assignments = self._number_assignments(node.body, node.test)
        if not assignments or not self._sized(node, node.test):
            return False
        targets = ", ".join(f"`{short_code(a.targets[0].target)}`" for a in assignments)
        self._found_choice(node, {a: a.targets[0].target.deep_clone() for a in assignments},
                           f"sets {targets} only when a size asks for it", "")
        return True

    def _found_choice(self, node: cst.If, others: dict[cst.Assign, cst.BaseExpression], what: str, more: str) -> None:
        """Report ``node`` with its fix: the test evaluated once into ``_trt_size_choice``, then the
        body's lines with each assignment's value ``v`` as ``_trt_size_where(choice, v, others[a])``."""
        choice = cst.Name(CHOICE)
        replaced = {a.value: helper_call(SIZE_WHERE_HELPER, choice, a.value, other) for a, other in others.items()}
        lines = [_replaced(line, replaced) for line in node.body.body]  # type: ignore[attr-defined]
        test = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(choice)], value=_as_traced(self._explicit(node.test)))],
            leading_lines=[*node.leading_lines, *comments_inside(node)])
        self.found(node.test, f"`if {short_code(node.test)}:` {what}: a traced export keeps the example's choice; "
                   f"{SIZE_WHERE_HELPER} keeps the choice in the graph while tracing (the same number in eager "
                   f"mode{more})",
                   Fix({node: cst.FlattenSentinel([test, *lines])}, safety=Safety.UNSAFE,
                       helpers=(SIZE_WHERE_HELPER,)))

    def visit_Assign(self, node: cst.Assign) -> None:
        super_visit = getattr(super(), "visit_Assign", None)
        if super_visit is not None:
            super_visit(node)
        self._either_expression(node)

    def _either_expression(self, node: cst.Assign) -> None:
        """``w_up = w if w % 32 == 0 else 32 * (w // 32 + 1)`` (mmagic's SPyNet): the ``if``/``else`` of
        :meth:`_either` written as one expression, a number or another by a size. It becomes
        ``_trt_size_where(<test>, then, else)``, both numbers computed every time (only where computing
        them raises nothing: :meth:`_harmless`)."""
        value = node.value
        if type(value) is not cst.IfExp or len(node.targets) != 1 or not self._frames or not self.active():
            return
        if self._value_when_exporting(value.test) is not None or not self._sized(value, value.test):  # type: ignore[arg-type]
            return
        computed = _computed_in(value.test)
        bound = self._bound_before(node)  # type: ignore[arg-type]
        names = set(bound_names(node.targets[0].target))
        pairs = _element_pairs(value.body, value.orelse)
        for branch in [e for pair in pairs for e in pair] if pairs else (value.body, value.orelse):
            if any(mentions_name(branch, name) for name in names - bound) or not self._harmless(branch, computed, bound):
                return
        if pairs:
            self._either_sequence(value, pairs)
            return
        chosen = helper_call(SIZE_WHERE_HELPER, _as_traced(self._explicit(value.test)),
                             value.body.with_changes(lpar=[], rpar=[]), value.orelse.with_changes(lpar=[], rpar=[]))
        self.found(value.test, f"`{short_code(value)}` chooses a number by a size in Python: a traced export keeps "
                   f"the example's choice; {SIZE_WHERE_HELPER} keeps the choice in the graph while tracing (the "
                   "same number in eager mode, both numbers computed every time)",
                   Fix({value: chosen.with_changes(lpar=value.lpar, rpar=value.rpar)}, safety=Safety.UNSAFE,
                       helpers=(SIZE_WHERE_HELPER,)))

    def _either_sequence(self, value: cst.IfExp,
                         pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> None:
        """``to_pad = [0, 0] if size % 2 == 0 else [0, 1]`` (pixseg's ENet padding to even sizes): two
        lists (or tuples) of numbers of one length, chosen by a size. It becomes one list whose elements
        that differ are each ``_trt_size_where(<test>, then, else)`` (the test, comparisons of sizes,
        computed once per element), the elements the branches share as written."""
        test = _as_traced(self._explicit(value.test))
        elements = [cst.Element(then.deep_clone() if code_of(then) == code_of(other) else
                                helper_call(SIZE_WHERE_HELPER, test.deep_clone(), then.with_changes(lpar=[], rpar=[]),
                                            other.with_changes(lpar=[], rpar=[])))
                    for then, other in pairs]
        sequence = value.body.with_changes(elements=elements)  # the then-branch's own brackets
        self.found(value.test, f"`{short_code(value)}` chooses numbers by a size in Python: a traced export keeps "
                   f"the example's choice; {SIZE_WHERE_HELPER} keeps each differing element's choice in the graph "
                   "while tracing (the same numbers in eager mode, both computed every time)",
                   Fix({value: sequence.with_changes(lpar=value.lpar, rpar=value.rpar)}, safety=Safety.UNSAFE,
                       helpers=(SIZE_WHERE_HELPER,)))

    def _either(self, node: cst.If) -> bool:
        """``if h % s == 0: pad = max(k - s, 0)`` / ``else: pad = max(k - h % s, 0)`` (TensorFlow's
        "SAME" padding in transformers): both branches only set the same names to numbers whose
        computing raises nothing. Each becomes ``_trt_size_where(choice, then, else)``, so both
        numbers are computed every time; True when found (reported). A chained assignment in a branch
        (kornia's ``if padding % 2 == 0: top = bottom = padding // 2`` / ``else: top = padding // 2;
        bottom = ceil(padding / 2)``) sets each of its names, and each gets its own choice."""
        then, other = _plain_assignments(node.body, chained=True), _plain_assignments(node.orelse.body, chained=True)  # type: ignore[union-attr]
        if not then or other is None or not self._sized(node, node.test):
            return False
        pairs = [(target.target, a.value) for a in then for target in a.targets]
        keys = [code_of(target) for target, _ in pairs]
        otherwise = {code_of(target.target): a.value for a in other for target in a.targets}
        if len(set(keys)) != len(keys) or set(keys) != set(otherwise) or len(otherwise) != len(keys):
            return False
        # A number may not read what the branches set (the order of the assignments would matter).
        names = {_base_name(target) for target, _ in pairs}
        computed = _computed_in(node.test)
        bound = self._bound_before(node)
        for value in [value for _, value in pairs] + list(otherwise.values()):
            if any(mentions_name(value, name) for name in names) or not self._harmless(value, computed, bound):
                return False
        targets = ", ".join(f"`{key}`" for key in keys)
        what, more = f"sets {targets} to one number or another by a size", ", both numbers computed every time"
        if all(len(a.targets) == 1 for a in then + other) and not self._rounds(node):
            self._found_choice(node, {a: otherwise[key] for a, key in zip(then, keys)}, what, more)
            return True
        # One assignment per name, each value's `math.ceil`/`math.floor` the size helper's (a traced
        # rounding while tracing, the same int in eager mode).
        choice = cst.Name(CHOICE)
        test = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(choice)], value=_as_traced(self._explicit(node.test)))],
            leading_lines=[*node.leading_lines, *comments_inside(node)])
        lines = [cst.SimpleStatementLine(body=[cst.Assign(
            targets=[cst.AssignTarget(target.deep_clone())],
            value=helper_call(SIZE_WHERE_HELPER, choice, self._traced_rounding(value),
                              self._traced_rounding(otherwise[key])))]) for (target, value), key in zip(pairs, keys)]
        helpers = (SIZE_WHERE_HELPER, *_ROUNDING_HELPERS.values())
        self.found(node.test, f"`if {short_code(node.test)}:` {what}: a traced export keeps the example's choice; "
                   f"{SIZE_WHERE_HELPER} keeps the choice in the graph while tracing (the same number in eager "
                   f"mode{more})", Fix({node: cst.FlattenSentinel([test, *lines])}, safety=Safety.UNSAFE,
                                       helpers=helpers))
        return True

    def _rounding(self, value: cst.BaseExpression) -> str | None:
        """``math.ceil``/``math.floor`` (as the module refers to it) called on one positional argument."""
        if type(value) is not cst.Call or len(value.args) != 1 or value.args[0].keyword is not None \
                or value.args[0].star:
            return None
        return self.context.refers_to(value.func, *_ROUNDING_HELPERS)

    def _rounds(self, node: cst.If) -> bool:
        """Whether a branch's value calls ``math.ceil``/``math.floor``."""
        return any(self._rounding(part) is not None for part in walk(node)
                   if isinstance(part, cst.BaseExpression))

    def _traced_rounding(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """``value`` with each ``math.ceil(E)``/``math.floor(E)`` as ``_trt_size_ceil(E)``/``_trt_size_floor(E)``."""
        rule = self

        class _Rounding(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                name = rule._rounding(original)
                if name is None:
                    return updated
                return helper_call(_ROUNDING_HELPERS[name], updated.args[0].value).with_changes(
                    lpar=updated.lpar, rpar=updated.rpar)

        return value.visit(_Rounding())

    def _harmless(self, value: cst.BaseExpression, computed: set[str], bound: set[str]) -> bool:
        """An integer whose computing raises nothing where the test would have skipped it: literals,
        sizes, names bound before the ``if`` or read by its test, ``+ - *``, ``//`` and ``%`` by a
        non-zero literal or as the test computes them already, ``min``/``max`` of those."""
        if self.is_tensor(value) or self.is_value(value):
            return False
        if type(value) is cst.Integer or self.size_of(value) is not None or self.int_parameter(value):
            return True
        if type(value) is cst.Name:
            return value.value in bound or value.value in computed
        if type(value) is cst.Subscript:  # `stride[0]`: an element the function read before, or the test reads
            return _bare(value) in bound or _bare(value) in computed
        if type(value) is cst.Attribute:  # `self.window_size`: read by the test already, so reading it raises nothing
            return _bare(value) in computed
        if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
            return self._harmless(value.expression, computed, bound)
        if type(value) is cst.BinaryOperation:
            if not (self._harmless(value.left, computed, bound) and self._harmless(value.right, computed, bound)):
                return False
            if type(value.operator) in (cst.Add, cst.Subtract, cst.Multiply):
                return True
            if type(value.operator) in (cst.FloorDivide, cst.Modulo):
                divisor = int_value(value.right)
                # `% self.window_size` where the test computes `W % self.window_size`: it was not 0 there
                return bool(divisor) or _bare(value) in computed or f"{_DIVISOR}{_bare(value.right)}" in computed
            return False
        if self._rounding(value) is not None:  # `math.ceil(p / 2)`: a rounding of a number raises nothing
            return self._harmless_quotient(value.args[0].value, computed, bound)  # type: ignore[attr-defined]
        if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("min", "max") \
                and not self.context.resolver.binds(value.func.value):
            return len(value.args) >= 2 and all(a.keyword is None and not a.star and
                                                self._harmless(a.value, computed, bound) for a in value.args)
        return False

    def _harmless_quotient(self, value: cst.BaseExpression, computed: set[str], bound: set[str]) -> bool:
        """A harmless integer, or one divided (``/``) by a non-zero integer literal."""
        if type(value) is cst.BinaryOperation and type(value.operator) is cst.Divide:
            return bool(int_value(value.right)) and self._harmless(value.left, computed, bound)
        return self._harmless(value, computed, bound)

    def _bound_before(self, node: cst.If) -> set[str]:
        """Names the enclosing function binds in its own block before the statement holding ``node``,
        and the elements of a name by a literal index (``stride[0]``, as code) read there: reading
        them again raises nothing."""
        function = self._functions[-1] if self._functions else None
        if function is None or type(function.body) is not cst.IndentedBlock:
            return set()
        bound: set[str] = set()
        for line in function.body.body:
            if _contains(line, node):
                break
            if type(line) is cst.SimpleStatementLine:
                for small in line.body:
                    if type(small) is cst.Assign:
                        for target in small.targets:
                            bound.update(bound_names(target.target))
                        bound.update(_bare(part) for part in walk(small.value) if type(part) is cst.Subscript
                                     and type(part.value) is cst.Name and len(part.slice) == 1
                                     and type(part.slice[0].slice) is cst.Index
                                     and int_value(part.slice[0].slice.value) is not None)
        return bound

    def _number_assignments(self, body: cst.BaseSuite, test: cst.BaseExpression) -> list[cst.Assign] | None:
        """The body's assignments, when it holds nothing else: ``t = v`` or ``t[i] = v`` (one target) of
        a number ``v``, also under an ``if`` without ``else`` on no size (``if shift_size is not None:``)."""
        if type(body) is not cst.IndentedBlock:
            return None
        found: list[cst.Assign] = []
        for line in body.body:
            if type(line) is cst.SimpleStatementLine:
                for small in line.body:
                    if type(small) is not cst.Assign or len(small.targets) != 1 \
                            or not _choice_target(small.targets[0].target) or not self._chosen(small.value, test):
                        return None
                    found.append(small)
            elif type(line) is cst.If and line.orelse is None and _static_test(line.test):
                inner = self._number_assignments(line.body, test)
                if inner is None:
                    return None
                found.extend(inner)
            else:
                return None
        return found

    def _chosen(self, value: cst.BaseExpression, test: cst.BaseExpression) -> bool:
        """An integer the choice may take: a literal, a size, or an operand of the test itself
        (``x_size[i]``: evaluated there already, so reading it where the test is false raises nothing)."""
        if self.is_tensor(value) or self.is_value(value):
            return False
        if self.integer_size(value):
            return True
        comparisons = _comparisons(test) or []
        operands = [o for c in comparisons for o in (c.left, *(t.comparator for t in c.comparisons))]
        text = code_of(value)
        return type(value) in (cst.Name, cst.Subscript) and any(code_of(o) == text for o in operands)

    # -- the condition -------------------------------------------------------------------

    def _sized(self, node: cst.If, test: cst.BaseExpression, flags_too: bool = False) -> bool:
        """A test of comparisons (``and``/``or``/``not`` of them) of which one reads a size; with
        ``flags_too``, also ``or``/``and`` with attributes that are not tensors (ultralytics' ``if
        txt_feats.shape[0] != x.shape[0] or self.model[-1].export:``), for a body done every time
        whatever the test says."""
        explicit = self._explicit(test)
        comparisons = _comparisons(explicit)
        if comparisons is None and flags_too:
            comparisons, others = _leaf_comparisons(explicit), _non_comparisons(explicit)
            if not comparisons or any(type(o) is not cst.Attribute or self.is_tensor(o) or self.is_value(o)
                                      for o in others):
                return False
        if comparisons is None:
            return False
        operands = [o for c in comparisons for o in (c.left, *(t.comparator for t in c.comparisons))]
        if any(self.is_tensor(o) or self.is_value(o) for o in operands):
            return False  # a test of tensor values is TRT101's
        # Sizes handed down by a caller (`H, W = size`) are known only where the export warned: at the
        # test, or, for a test held in a flag, at the `if` that reads it (``or`` of a traced comparison
        # and another hands the second on, which the `if` turns into a Python bool: Swin's PatchMerging,
        # ``pad_input = (H % 2 == 1) or (W % 2 == 1)`` then ``if pad_input:``).
        # A whole shape or a slice of one (`downfeat.shape[-2:] != up.shape[-2:]`, holocron's U-Net) is sizes too.
        return any(self.size_derived(o) or self._is_shape_tuple(o) for o in operands) or self.traced_at(test) \
            or (test is not node.test and self.traced_at(node.test))

    # -- the body ------------------------------------------------------------------------

    def _resize(self, value: cst.BaseExpression, target: str, test: cst.BaseExpression, locals_: list[cst.Assign]
                ) -> tuple[str | None, cst.BaseExpression, tuple[cst.Assign, cst.BaseExpression] | None]:
        """What the body does to ``target`` (``pads``/``crops``/``resizes``), its unconditional form, and
        the local holding a pad's amounts with its amounts scaled (``pad_values = (...)``), if any.
        (``target``: the name the branch resizes.)"""
        if type(value) is cst.Call and self.context.refers_to(value.func, *_PAD) and _first_is(value, target):
            pads = argument(value, 1, "pad")
            amounts = pads.value if pads is not None else None
            local = None
            # One amount each (`pad_r = (ws - W % ws) % ws`): bound every time as written, read by the pad's
            # tuple, whose amounts are scaled (the caller checks that computing them raises nothing).
            numbers = [a for a in locals_ if type(a.value) not in (cst.Tuple, cst.List)]
            if type(amounts) is cst.Name:  # the amounts in a local the branch bound just before
                local = next((a for a in locals_ if a.targets[0].target.value == amounts.value), None)  # type: ignore[attr-defined]
                amounts = local.value if local is not None else None
            if amounts is None or type(amounts) not in (cst.Tuple, cst.List) or local in numbers \
                    or len(locals_) - len(numbers) > (local is not None) \
                    or not all(mentions_name(amounts, n.targets[0].target.value) for n in numbers):  # type: ignore[attr-defined]
                return None, value, None
            scaled = amounts.with_changes(elements=[
                e if _is_zero(e.value) else e.with_changes(value=self._scaled_amount(e.value, test))
                for e in amounts.elements])  # type: ignore[attr-defined]
            if local is not None:
                return "pads", value, (local, scaled)
            return "pads", value.deep_replace(pads.value, scaled), None  # type: ignore[union-attr]
        if locals_:
            return None, value, None
        if type(value) is cst.Call and self.context.refers_to(value.func, *_INTERPOLATE) and _first_is(value, target):
            # `size` by keyword or as the second positional argument (holocron's U-Net decoder:
            # `F.interpolate(upfeat_, downfeat.shape[-2:], mode="nearest")`).
            if argument(value, 1, "size") is not None and argument(value, 2, "scale_factor") is None:
                return "resizes", value, None
            return None, value, None
        parts = method_call(value) if type(value) is cst.Call else None
        if parts is not None and parts[1] in ("expand", "expand_as") and type(parts[0]) is cst.Name \
                and parts[0].value == target and value.args and not any(a.star for a in value.args):  # type: ignore[attr-defined]
            return "expands", value, None  # broadcast to a size: the tensor's own size where the test is false
        crop = value
        if parts is not None and parts[1] == "contiguous" and not value.args:  # type: ignore[attr-defined]
            crop = parts[0]
        if type(crop) is cst.Subscript and type(crop.value) is cst.Name and crop.value.value == target \
                and _prefix_crop(crop):
            return "crops", value, None
        if type(crop) is cst.Subscript and type(crop.value) is cst.Name and crop.value.value == target:
            trimmed = self._trimmed(crop, test)
            if trimmed is not None:
                return "trims", value.deep_replace(crop, trimmed) if crop is not value else trimmed, None
        return None, value, None

    def _trimmed(self, crop: cst.Subscript, test: cst.BaseExpression) -> cst.Subscript | None:
        """``x[..., a:-e]`` (Demucs' ``center_trim``: ``if delta: tensor = tensor[..., delta // 2:-(delta - delta
        // 2)]``; EnCodec's ``if pad > 0: frame = frame[..., :-pad]``) as a trim that is the whole axis where the
        test is false: each start ``a`` and each end's amount ``e`` times the test, the end counted from the
        start, ``x.size(axis) - e`` (``:-0`` would take nothing). Where the test holds, ``-e`` and ``size - e``
        are one end when ``e`` is between 1 and the axis's length: the assumption of this form. None when the
        subscript is not such a trim (a step, an index, an end written positive beside a start)."""
        elements = list(crop.slice)
        ellipsis = [k for k, e in enumerate(elements) if type(e.slice) is cst.Index
                    and type(e.slice.value) is cst.Ellipsis]
        if len(ellipsis) > 1:
            return None
        rewritten = []
        trims = False
        for k, element in enumerate(elements):
            index = element.slice
            if type(index) is cst.Index:
                if type(index.value) is not cst.Ellipsis:
                    return None
                rewritten.append(element)
                continue
            if type(index) is not cst.Slice or index.step is not None:
                return None
            negative = type(index.upper) is cst.UnaryOperation and type(index.upper.operator) is cst.Minus
            start = index.lower is not None and not _is_zero(index.lower)
            if index.upper is not None and not negative:
                return None  # an end counted from the start: the prefix crop's form, not mixed in here
            if not (start or negative):
                rewritten.append(element)
                continue
            if any(self.is_tensor(b) or self.is_value(b) for b in (index.lower, index.upper) if b is not None):
                return None  # a bound read from tensor values is TRT715's
            axis = k if not ellipsis or k < ellipsis[0] else k - len(elements)
            lower = self._scaled_amount(index.lower, test) if start else index.lower
            upper = index.upper
            if negative:
                size = cst.Call(cst.Attribute(crop.value, cst.Name("size")), [cst.Arg(_signed(axis))])
                upper = cst.BinaryOperation(size, cst.Subtract(),
                                            self._scaled_amount(index.upper.expression, test))  # type: ignore[union-attr]
            rewritten.append(element.with_changes(slice=index.with_changes(lower=lower, upper=upper)))
            trims = True
        return crop.with_changes(slice=rewritten) if trims else None


def _element_pairs(then: cst.BaseExpression, other: cst.BaseExpression
                   ) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
    """The elements of two list (or two tuple) displays of one length, side by side, where some differ;
    None for anything else (a starred element, other kinds, other lengths, the same elements)."""
    if type(then) not in (cst.List, cst.Tuple) or type(other) is not type(then):
        return None
    left, right = then.elements, other.elements  # type: ignore[attr-defined]
    if not left or len(left) != len(right) or any(type(e) is not cst.Element for e in (*left, *right)):
        return None
    pairs = [(a.value, b.value) for a, b in zip(left, right)]
    return pairs if any(code_of(a) != code_of(b) for a, b in pairs) else None


def _fresh_local(function: cst.FunctionDef, branch: cst.If, name: str) -> bool:
    """Every read of ``name`` in ``function`` follows an assignment of it in its own block, and
    none is in a block around ``branch`` (where it could see the branch's binding): binding it
    every time, where the branch stood, changes no read."""
    return not _free_read(function.body, name, branch)


def _free_read(node: cst.CSTNode, name: str, branch: cst.If) -> bool:
    """``name`` read under ``node`` with no assignment before it in its own block, or in a block
    that holds ``branch``."""
    if isinstance(node, cst.IndentedBlock):
        around = _contains(node, branch)
        bound = False
        for line in node.body:
            if (not bound or around) and _free_read(line, name, branch):
                return True
            bound = bound or _assigns(line, name)
        return False
    if type(node) is cst.SimpleStatementLine:
        return any(mentions_name(small.value if type(small) is cst.Assign else small, name) for small in node.body)
    if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        return mentions_name(node, name)  # a closure reads it whenever it is called
    return any(_free_read(child, name, branch) for child in node.children)


def _assigns(line: cst.CSTNode, name: str) -> bool:
    """``name = ...`` as the line's own statement (not nested in a branch or a loop)."""
    return type(line) is cst.SimpleStatementLine and any(
        type(small) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name for t in small.targets)
        for small in line.body)


def _choice_target(target: cst.BaseExpression) -> bool:
    """``name`` or ``name[i]`` (one index): what a choice between numbers may assign."""
    if type(target) is cst.Subscript:
        return type(target.value) is cst.Name and len(target.slice) == 1 and type(target.slice[0].slice) is cst.Index
    return type(target) is cst.Name and target.value != CHOICE


def _static_test(test: cst.BaseExpression) -> bool:
    """``x is None``, ``x is not None``, a plain name: a test on configuration, not on sizes."""
    if type(test) is cst.Comparison:
        return all(type(c.operator) in (cst.Is, cst.IsNot) and type(c.comparator) is cst.Name
                   and c.comparator.value == "None" for c in test.comparisons) and type(test.left) is cst.Name
    return type(test) is cst.Name


def _replaced(line: cst.CSTNode, values: dict[cst.CSTNode, cst.BaseExpression]) -> cst.CSTNode:
    """``line`` with each of ``values``' nodes (by identity) replaced."""
    for old, new in values.items():
        if _contains(line, old):
            line = line.deep_replace(old, new)
    return line


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(current.children)
    return False


def _single_assignment(body: cst.BaseSuite) -> cst.Assign | None:
    """The body's one statement, ``name = value``; None otherwise."""
    if type(body) is not cst.IndentedBlock or len(body.body) != 1:
        return None
    line = body.body[0]
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Assign:
        return None
    assign = line.body[0]
    if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
        return None
    return assign


def _body_lines(node: cst.If) -> list[cst.BaseStatement] | None:
    """The branch's statements, one a line: an indented block's, or the one statement written on the
    ``if``'s own line (Real-CUGAN's ``if (w0 != pw or h0 != ph): x = x[:, :, :h0 * 4, :w0 * 4]``) as a
    line of its own, its comment kept at its end. None for several statements on that line."""
    if type(node.body) is cst.IndentedBlock:
        return list(node.body.body)
    suite = node.body
    if type(suite) is not cst.SimpleStatementSuite or len(suite.body) != 1:
        return None
    return [cst.SimpleStatementLine(body=[suite.body[0]], trailing_whitespace=suite.trailing_whitespace)]


def _unchanged_in_else(node: cst.If, target: str) -> str | None:
    """The name the branch resizes: ``target`` itself with no ``else``, or ``s`` where the ``else``
    is ``target = s`` (``if ...: x_pad = F.pad(x, ...)`` / ``else: x_pad = x``); None otherwise."""
    if node.orelse is None:
        return target
    if type(node.orelse) is not cst.Else:
        return None  # an elif chain is another decision
    other = _single_assignment(node.orelse.body)
    if other is None or other.targets[0].target.value != target or type(other.value) is not cst.Name:  # type: ignore[attr-defined]
        return None
    return other.value.value


def _next_line(function: cst.FunctionDef, node: cst.If) -> cst.CSTNode | None:
    """The statement right after ``node`` in the block that holds it; None at a block's end."""
    for block in walk(function):
        if type(block) is cst.IndentedBlock:
            for index, line in enumerate(block.body):
                if line is node:
                    return block.body[index + 1] if index + 1 < len(block.body) else None
    return None


def _returned_name(line: cst.CSTNode | None) -> str | None:
    """``x`` where ``line`` is ``return x`` alone; None otherwise."""
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Return:
        return None
    value = line.body[0].value
    return value.value if type(value) is cst.Name else None


def _first_is(call: cst.Call, name: str) -> bool:
    first = argument(call, 0, "input")
    return first is not None and type(first.value) is cst.Name and first.value.value == name


def _comparisons(test: cst.BaseExpression) -> list[cst.Comparison] | None:
    """The comparisons a test of ``and``/``or``/``not`` is made of; None if it has anything else."""
    if type(test) is cst.Comparison:
        ok = all(type(c.operator) in _COMPARISONS for c in test.comparisons)
        return [test] if ok else None
    if type(test) is cst.BooleanOperation:
        left, right = _comparisons(test.left), _comparisons(test.right)
        return None if left is None or right is None else left + right
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _comparisons(test.expression)
    return None


def _leaf_comparisons(test: cst.BaseExpression) -> list[cst.Comparison]:
    """The comparisons among the ``and``/``or``/``not`` operands of ``test`` (other operands skipped)."""
    if type(test) is cst.Comparison:
        return [test]
    if type(test) is cst.BooleanOperation:
        return _leaf_comparisons(test.left) + _leaf_comparisons(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _leaf_comparisons(test.expression)
    return []


def _non_comparisons(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of ``test``'s ``and``/``or``/``not`` that are not comparisons."""
    if type(test) is cst.Comparison:
        return []
    if type(test) is cst.BooleanOperation:
        return _non_comparisons(test.left) + _non_comparisons(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _non_comparisons(test.expression)
    return [test]


def _is_amount(node: cst.CSTNode, count: str, size: str) -> bool:
    """Is ``node`` ``count - size`` (the rows a pad to ``count`` adds)?"""
    return type(node) is cst.BinaryOperation and type(node.operator) is cst.Subtract \
        and code_of(node.left).strip() == count and code_of(node.right).strip() == size


def _axis_text(call: cst.Call, position: int) -> str | None:
    """The text of a call's ``dim`` (by keyword or at ``position``); ``0`` where it is not given."""
    given = argument(call, position, "dim")
    return code_of(given.value).strip() if given is not None else "0"


#: Fills of a given shape in the padded tensor's dtype and device: ``x.new_zeros(shape)`` and its kin.
_NEW_FILLS = frozenset({"new_zeros", "new_ones", "new_full", "new_empty"})
_TORCH_FILLS = ("torch.zeros", "torch.ones", "torch.full", "torch.empty")


def _same_kind_fill(fill: cst.Call, source: str) -> bool:
    """Is ``fill`` a fill in ``source``'s dtype and device: ``source.new_zeros(shape)`` (``new_ones``/``new_full``/
    ``new_empty``), or ``torch.zeros(shape, dtype=source.dtype, device=source.device)`` and its kin?"""
    func = fill.func
    keywords = {a.keyword.value: code_of(a.value).strip() for a in fill.args if a.keyword is not None}
    if keywords.keys() - {"dtype", "device", "fill_value"}:
        return False
    if type(func) is cst.Attribute and code_of(func.value).strip() == source and func.attr.value in _NEW_FILLS:
        return not keywords.keys() & {"dtype", "device"}
    return code_of(func).strip() in _TORCH_FILLS and keywords.get("dtype") == f"{source}.dtype" \
        and keywords.get("device") == f"{source}.device"


def _pad_to_count(after: list[cst.CSTNode], source: str, count: str, size: str) -> list[cst.BaseExpression]:
    """The amounts ``count - size`` in ``after`` where it only pads ``source`` by them and returns it, else ``[]``.

    Every statement is one of: ``shape = list(source.shape)`` (``source.size()``), ``shape[a] = count - size``,
    ``padding = source.new_zeros(shape)`` (``new_ones``/``new_full``/``new_empty``, or ``torch.zeros``/
    ``torch.full``... of ``shape`` with ``dtype=source.dtype`` and ``device=source.device``), and last
    ``return torch.cat((source, padding), dim=a)`` (either order, the axis the shape's amount is at), or
    ``return F.pad(source, (...))`` whose amounts are 0 or ``count - size``. So where the amount is 0 the
    result holds ``source``'s values in its dtype, and nothing before it raises."""
    shapes: dict[str, str | None] = {}
    fills: dict[str, str] = {}
    amounts: list[cst.BaseExpression] = []
    for at, line in enumerate(after):
        if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
            return []
        small = line.body[0]
        if type(small) is cst.Return:
            if at != len(after) - 1 or small.value is None or type(small.value) is not cst.Call:
                return []
            call = small.value
            if code_of(call.func).strip() in ("torch.cat", "torch.concat", "torch.concatenate") and call.args \
                    and type(call.args[0].value) in (cst.Tuple, cst.List) and call.args[0].keyword is None:
                parts = [code_of(e.value).strip() for e in call.args[0].value.elements]
                if len(parts) != 2 or source not in parts or any(type(e) is not cst.Element
                                                                 for e in call.args[0].value.elements):
                    return []
                padding = parts[1] if parts[0] == source else parts[0]
                axis = _axis_text(call, 1)
                if padding not in fills or fills[padding] not in shapes or shapes[fills[padding]] != axis:
                    return []
                return amounts
            if code_of(call.func).strip() in ("F.pad", "torch.nn.functional.pad") and len(call.args) >= 2 \
                    and code_of(call.args[0].value).strip() == source and call.args[0].keyword is None \
                    and type(call.args[1].value) in (cst.Tuple, cst.List) and not shapes and not fills:
                found = []
                for element in call.args[1].value.elements:
                    if _is_amount(element.value, count, size):
                        found.append(element.value)
                    elif not _is_zero(element.value):
                        return []
                return found if found else []
            return []
        if type(small) is not cst.Assign or len(small.targets) != 1:
            return []
        target, value = small.targets[0].target, small.value
        if type(target) is cst.Name and target.value != source:
            name = target.value
            if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("list", "tuple") \
                    and len(value.args) == 1 and code_of(value.args[0].value).strip() in \
                    (f"{source}.shape", f"{source}.size()"):
                shapes[name] = None
                continue
            if type(value) is cst.Call and value.args and code_of(value.args[0].value).strip() in shapes:
                if _same_kind_fill(value, source):
                    fills[name] = code_of(value.args[0].value).strip()
                    continue
            return []
        if type(target) is cst.Subscript and type(target.value) is cst.Name and target.value.value in shapes \
                and len(target.slice) == 1 and type(target.slice[0].slice) is cst.Index \
                and _is_amount(value, count, size) and shapes[target.value.value] is None:
            shapes[target.value.value] = code_of(target.slice[0].slice.value).strip()
            amounts.append(value)
            continue
        return []
    return []


def _filled_cat(value: cst.BaseExpression, source: str, count: str, size: str) -> cst.BaseExpression | None:
    """The amount ``count - size`` of ``torch.cat([source, fill], dim=a)`` (either order), the fill of a written
    shape (a tuple or list whose element ``a`` is the amount, no other reading ``source``) in ``source``'s dtype
    and device (``source.new_zeros(shape)`` and its kin, or ``torch.zeros(shape, dtype=source.dtype,
    device=source.device)`` and its kin); else None."""
    if type(value) is not cst.Call or code_of(value.func).strip() not in ("torch.cat", "torch.concat") \
            or not value.args or value.args[0].keyword is not None \
            or type(value.args[0].value) not in (cst.Tuple, cst.List):
        return None
    parts = value.args[0].value.elements
    if len(parts) != 2 or any(type(e) is not cst.Element for e in parts):
        return None
    texts = [code_of(e.value).strip() for e in parts]
    if source not in texts:
        return None
    fill = parts[1].value if texts[0] == source else parts[0].value
    axis = int_value(_axis_value(value))
    if type(fill) is not cst.Call or not fill.args or axis is None \
            or type(fill.args[0].value) not in (cst.Tuple, cst.List) or fill.args[0].keyword is not None:
        return None
    if not _same_kind_fill(fill, source):
        return None
    shape = [e.value for e in fill.args[0].value.elements]
    index = axis if axis >= 0 else len(shape) + axis
    if not 0 <= index < len(shape) or not _is_amount(shape[index], count, size) \
            or any(mentions_name(e, source) for at, e in enumerate(shape) if at != index):
        return None
    return shape[index]


def _axis_value(call: cst.Call) -> cst.BaseExpression:
    given = argument(call, 1, "dim")
    return given.value if given is not None else cst.Integer("0")


def _early_returns(body: cst.BaseSuite, inner: set[cst.If]) -> list[cst.BaseExpression] | None:
    """What a block returns, when it only returns a name or an attribute (``return posemb``,
    ``return self.pos_embed``), also under ``if``s without ``else`` (collected in ``inner``); None
    otherwise."""
    if type(body) is not cst.IndentedBlock:
        return None
    returned: list[cst.BaseExpression] = []
    for line in body.body:
        if type(line) is cst.SimpleStatementLine and len(line.body) == 1 and type(line.body[0]) is cst.Return:
            value = line.body[0].value
            if value is None or not _dotted(value):
                return None
            returned.append(value)
        elif type(line) is cst.If and line.orelse is None:
            nested = _early_returns(line.body, inner)
            if not nested:
                return None
            inner.add(line)
            returned.extend(nested)
        else:
            return None
    return returned or None


def _dotted(expr: cst.BaseExpression) -> bool:
    while type(expr) is cst.Attribute:
        expr = expr.value
    return type(expr) is cst.Name


def _reads(node: cst.CSTNode, value: cst.BaseExpression) -> bool:
    """Whether ``node`` reads the name or the attribute chain ``value``."""
    if type(value) is cst.Name:
        return mentions_name(node, value.value)
    text = code_of(value)
    return any(type(n) is cst.Attribute and code_of(n) == text for n in walk(node))


def _statements_after(function: cst.FunctionDef, node: cst.If) -> list[cst.CSTNode]:
    """The statements of ``function``'s own block after the one that holds ``node``."""
    if type(function.body) is not cst.IndentedBlock:
        return []
    lines = list(function.body.body)
    for index, line in enumerate(lines):
        if _contains(line, node):
            return lines[index + 1:]
    return []


def _prefix_crop(subscript: cst.Subscript) -> bool:
    """Every index a slice from the start (``:h``, ``0:h``, ``:``) or ``...``; at least one bound, none
    written negative: ``:-n`` counts from the end, so where ``n`` is 0 (EnCodec's ``if pad > 0:
    frame = frame[..., :-pad]``) it takes nothing, not the whole axis."""
    bounded = False
    for element in subscript.slice:
        index = element.slice
        if type(index) is cst.Index:
            if type(index.value) is not cst.Ellipsis:
                return False
            continue
        if type(index) is not cst.Slice or index.step is not None:
            return False
        if index.lower is not None and not _is_zero(index.lower):
            return False
        if type(index.upper) is cst.UnaryOperation and type(index.upper.operator) is cst.Minus:
            return False
        bounded = bounded or index.upper is not None
    return bounded


def _signed(axis: int) -> cst.BaseExpression:
    """``axis`` as code: ``2`` or ``-1``."""
    return cst.Integer(str(axis)) if axis >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-axis)))


def _is_zero(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Integer and expr.evaluated_value == 0


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if expr.lpar:  # type: ignore[attr-defined]
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _as_traced(test: cst.BaseExpression) -> cst.BaseExpression:
    """The test with ``and``/``or``/``not`` as ``&``/``|``/``== 0``: a bool in eager mode, a traced
    bool tensor while tracing (``or`` would turn the traced comparison into a Python bool). ``not c``
    is ``(c) == 0``: the tracer has no ``__xor__`` or ``eq`` of a tensor with a Python bool (``^ True``
    and ``== False`` stop the export), and with an integer it has."""
    if type(test) is cst.BooleanOperation:
        operator = cst.BitOr() if type(test.operator) is cst.Or else cst.BitAnd()
        return cst.BinaryOperation(_paren(_as_traced(test.left)), operator, _paren(_as_traced(test.right)))
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return cst.Comparison(_paren(_as_traced(test.expression)),
                              [cst.ComparisonTarget(cst.Equal(), cst.Integer("0"))])
    return test.with_changes(lpar=[], rpar=[])


def _where_used(value: cst.BaseExpression, scaled: tuple[cst.Assign, cst.BaseExpression] | None) -> tuple[str, ...]:
    """``(SIZE_WHERE_HELPER,)`` where a pad's amounts (in ``value`` or the local ``scaled``) call it."""
    parts = [value] + ([scaled[1]] if scaled is not None else [])
    return (SIZE_WHERE_HELPER,) if any(SIZE_WHERE_HELPER in code_of(p) for p in parts) else ()


def _times(amount: cst.BaseExpression, test: cst.BaseExpression) -> cst.BaseExpression:
    return cst.BinaryOperation(_paren(amount), cst.Multiply(), _paren(test))


def _plain_assignments(body: cst.BaseSuite, chained: bool = False) -> list[cst.Assign] | None:
    """The body's assignments ``t = v`` / ``t[i] = v`` (one target each; with ``chained``, also
    ``a = b = v``), when it holds nothing else."""
    if type(body) is not cst.IndentedBlock:
        return None
    found = []
    for line in body.body:
        if type(line) is not cst.SimpleStatementLine:
            return None
        for small in line.body:
            if type(small) is not cst.Assign or not (len(small.targets) == 1 or chained) \
                    or not all(_choice_target(t.target) for t in small.targets):
                return None
            found.append(small)
    return found


def _base_name(target: cst.BaseExpression) -> str:
    """``t`` for ``t`` and ``t[i]``."""
    return target.value.value if type(target) is cst.Subscript else target.value  # type: ignore[attr-defined,union-attr]


def _bare(expr: cst.BaseExpression) -> str:
    """The code of ``expr`` without its own parentheses."""
    return code_of(expr.with_changes(lpar=[], rpar=[]))


#: Marks, in :func:`_computed_in`, a divisor the test divides by (`W % s` holds `<divisor>s`).
_DIVISOR = "<divisor>"


def _computed_in(test: cst.BaseExpression) -> set[str]:
    """The names, attributes, elements (``x.shape[-1]``) and arithmetic (``h % s``) the test evaluates, as code
    without parentheses, and each divisor of a ``%`` or ``//`` in it marked :data:`_DIVISOR` (it was not 0 where
    the test ran)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [test]
    while stack:
        current = stack.pop()
        if type(current) in (cst.BinaryOperation, cst.Name, cst.Attribute, cst.Subscript):
            found.add(_bare(current))  # type: ignore[arg-type]
        if type(current) is cst.BinaryOperation and type(current.operator) in (cst.Modulo, cst.FloorDivide):
            found.add(_DIVISOR + _bare(current.right))
        if type(current) is cst.Call:
            stack.extend(a.value for a in current.args)  # not the function's own name: reading it calls nothing
            continue
        stack.extend(current.children)
    return found


RULES = (SizeGuardedResize,)


def _signed(value: int) -> cst.BaseExpression:
    return cst.Integer(str(value)) if value >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))


#: The scale of a test that has none: a float, as the helper's ``scale: float`` asks of a scripted caller
#: (``n * 1.0 % k`` has the truth of ``n % k`` for every integer below 2**53).
_UNSCALED = cst.Float("1.0")


def _divisibility(test: cst.BaseExpression, name: str, stop: bool = False
                  ) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None:
    """``(period, scale, offset)`` for a test that holds while ``(name + offset) * scale % period != 0``:
    ``E % k != 0`` or ``E % k`` (its truth), ``E`` being ``name``, ``name * s``, ``s * name``, ``name + c``
    or ``name - c``, and ``(name // k) * k != name`` (the same test for integers: ``n == (n // k) * k + n % k``).
    With ``stop``, the test that ends the loop instead: ``E % k == 0``, ``not E % k``, ``(name // k) * k ==
    name``. The period, scale and offset may not read ``name``."""
    wanted = cst.Equal if stop else cst.NotEqual
    if stop and type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test = test.expression
    elif type(test) is cst.Comparison and len(test.comparisons) == 1 \
            and type(test.comparisons[0].operator) is wanted:
        left, right = test.left, test.comparisons[0].comparator
        if int_value(right) == 0 and _modulo(left):
            test = left
        else:
            for product, other in ((left, right), (right, left)):
                k = _whole_multiple(product, name)
                if k is not None and type(other) is cst.Name and other.value == name and not other.lpar:
                    return _free_of(name, k, _UNSCALED, cst.Integer("0"))
            return None
    elif stop:
        return None
    if not _modulo(test):
        return None
    shifted, period = test.left, test.right  # type: ignore[attr-defined]
    scale: cst.BaseExpression = _UNSCALED
    offset: cst.BaseExpression = cst.Integer("0")
    if type(shifted) is cst.Name and shifted.value == name:
        return _free_of(name, period, scale, offset)
    if type(shifted) is not cst.BinaryOperation:
        return None
    left, right = shifted.left, shifted.right
    is_name = lambda e: type(e) is cst.Name and e.value == name and not e.lpar  # noqa: E731
    if type(shifted.operator) is cst.Multiply and (is_name(left) or is_name(right)):
        scale = right if is_name(left) else left
    elif type(shifted.operator) is cst.Add and (is_name(left) or is_name(right)):
        offset = right if is_name(left) else left
    elif type(shifted.operator) is cst.Subtract and is_name(left):
        offset = cst.UnaryOperation(cst.Minus(), _parenthesized(right))
    else:
        return None
    return _free_of(name, period, scale.with_changes(lpar=[], rpar=[]), offset)


def _stepped_loop(node: cst.While
                  ) -> tuple[str, int, tuple[cst.BaseExpression, ...], bool, cst.BaseExpression] | None:
    """``(name, step, (period, scale, offset), returns, test)`` for ``while <divisibility test>: name += 1`` (or
    ``-= 1``, ``name = name + 1``), or for ``while True:`` whose body is ``if <the test that ends it>: return
    name`` then the step (Grad-TTS's ``fix_len_compatibility``; ``returns``: the loop returns the size)."""
    if node.orelse is not None:
        return None
    if type(node.test) is cst.Name and node.test.value == "True":
        lines = node.body.body if type(node.body) is cst.IndentedBlock else ()
        if len(lines) != 2 or type(lines[0]) is not cst.If or lines[0].orelse is not None:
            return None
        check = lines[0]
        step = _step(cst.IndentedBlock(body=[lines[1]]))
        inner = check.body.body if type(check.body) is cst.IndentedBlock else ()
        if step is None or len(inner) != 1 or type(inner[0]) is not cst.SimpleStatementLine \
                or len(inner[0].body) != 1 or type(inner[0].body[0]) is not cst.Return:
            return None
        returned = inner[0].body[0].value
        if type(returned) is not cst.Name or returned.value != step[0]:
            return None
        test = _divisibility(check.test, step[0], stop=True)
        return (step[0], step[1], test, True, check.test) if test is not None else None
    step = _step(node.body)
    if step is None:
        return None
    test = _divisibility(node.test, step[0])
    return (step[0], step[1], test, False, node.test) if test is not None else None


def _modulo(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Modulo


def _whole_multiple(expr: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """``k`` for ``(name // k) * k`` or ``k * (name // k)``, ``k`` written the same both times."""
    if type(expr) is not cst.BinaryOperation or type(expr.operator) is not cst.Multiply:
        return None
    for quotient, k in ((expr.left, expr.right), (expr.right, expr.left)):
        if type(quotient) is cst.BinaryOperation and type(quotient.operator) is cst.FloorDivide \
                and type(quotient.left) is cst.Name and quotient.left.value == name \
                and code_of(quotient.right.with_changes(lpar=[], rpar=[])) == code_of(k.with_changes(lpar=[], rpar=[])):
            return k.with_changes(lpar=[], rpar=[])
    return None


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` ready to follow a unary minus: an atom as it is, anything else in parentheses."""
    return expr if type(expr) in (cst.Name, cst.Integer, cst.Attribute, cst.Float) else _paren(expr)


def _free_of(name: str, *parts: cst.BaseExpression) -> tuple[cst.BaseExpression, ...] | None:
    """``parts`` when none reads ``name`` (the loop changes it: the period must hold still)."""
    return None if any(mentions_name(p, name) for p in parts) else tuple(parts)  # type: ignore[return-value]


#: The test of a branch that pads by writing into a filled tensor: taken every time while tracing.
TAKEN_HELPER = "_trt_size_taken"
_FILLS = ("torch.zeros", "torch.ones", "torch.empty", "torch.full")
_NEW_FILLS = ("new_zeros", "new_ones", "new_empty", "new_full")
#: Keywords a filled tensor may be given: where it lives and what it holds, not its size.
_FILL_KEYWORDS = ("device", "dtype", "layout", "requires_grad", "pin_memory", "fill_value")


@dataclass
class _Filling:
    """A branch that pads by writing into filled tensors, as :meth:`SizeGuardedResize._filling` reads it."""

    sizes: dict[str, cst.Assign] = field(default_factory=dict)  # a size's name -> its assignment
    fills: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)  # a filled name -> its sizes
    writes: dict[str, tuple[str, cst.Subscript]] = field(default_factory=dict)  # filled -> (input, the corner)
    rebound: dict[str, str] = field(default_factory=dict)  # an input -> the filled tensor it becomes
    deleted: list[str] = field(default_factory=list)

    def names(self) -> set[str]:
        return {*self.sizes, *self.fills}


def _number(expr: cst.BaseExpression) -> bool:
    """An integer or float literal, also negative."""
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        expr = expr.expression
    return type(expr) in (cst.Integer, cst.Float)


def _written_name(value: cst.BaseExpression) -> str | None:
    """``x`` for ``x`` or ``x[:, :, :, :]`` (every axis whole: the same values); None otherwise."""
    if type(value) is cst.Subscript and type(value.value) is cst.Name and all(
            type(e.slice) is cst.Slice and e.slice.lower is None and e.slice.upper is None and e.slice.step is None
            or type(e.slice) is cst.Index and type(e.slice.value) is cst.Ellipsis for e in value.slice):
        value = value.value
    return value.value if type(value) is cst.Name else None


def _corner(target: cst.Subscript, rank: int) -> dict[int, cst.BaseExpression] | None:
    """Axis -> upper bound of a write into the leading corner of a tensor of ``rank`` axes
    (``[:, :, 0:h, 0:w]``, ``[..., :h, :w]``: every index a slice from the start or whole, or one
    ``...``); None for anything else, or with no bound."""
    elements = list(target.slice)
    ellipses = [k for k, e in enumerate(elements)
                if type(e.slice) is cst.Index and type(e.slice.value) is cst.Ellipsis]
    if len(ellipses) > 1 or len(elements) - len(ellipses) > rank:
        return None
    if ellipses:
        before, after = elements[:ellipses[0]], elements[ellipses[0] + 1:]
        placed = list(zip(range(len(before)), before)) + list(zip(range(rank - len(after), rank), after))
    else:
        placed = list(enumerate(elements))
    bounds: dict[int, cst.BaseExpression] = {}
    for axis, element in placed:
        index = element.slice
        if type(index) is not cst.Slice or index.step is not None \
                or index.lower is not None and not _is_zero(index.lower):
            return None
        if index.upper is None:
            continue
        if int_value(index.upper) is not None and int_value(index.upper) < 0 \
                or type(index.upper) is cst.UnaryOperation and type(index.upper.operator) is cst.Minus:
            return None  # counted from the end
        bounds[axis] = index.upper
    return bounds or None


class _Substituted(cst.CSTTransformer):
    """Each of ``replacements``' nodes (by identity) replaced, in one pass."""

    def __init__(self, replacements: dict[cst.CSTNode, cst.BaseExpression]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        return self.replacements.get(original_node, updated_node)
