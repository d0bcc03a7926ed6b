"""Plan: which findings of the static check to apply, and the proof for each.

A finding is applied only where a located problem is: a hostile node, a baked value or an
exporter failure on its lines (or an exporter failure that names its rule). A fix that is
unsafe in general is applied without ``--unsafe`` when an observed fact covers its
assumption, and the proof names the fact; when no observation can speak to its assumption,
it is a candidate, kept only if the verification finds the rewritten model equivalent on
every input set. Everything else is information, or what remains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from trtcodemod.evidence.facts import Facts, Span, norm
from .locate import (CHECK_CALL_NOTE, CONFIGURATION_NOTE, CONSTANT_DATA_NOTE, CONSTANT_NOTE, FAILS_TO_RUN, GUARD_NOTE,
                     INPUT_FREE_NOTE, REFUSED_INPUT_MADE_AT, REFUSED_INPUT_TYPED_AT, SCRATCH_TAIL, STEADY,
                     WARN_GUARD_NOTE, WRONG_VALUES, Problem, raise_guard)
from trtcodemod.evidence.proofs import NO_DETACH, Observation, prove, prover_of
from .retrace import RETRACED_GRAPH

#: Rules whose fix removes a value baked in by the export (a value read at the line). TRT363: `as_strided`'s
#: strides read from `x.stride()` are the example's numbers, with no TracerWarning; the second trace locates the
#: bake at the call (lhotse's batched Kaldi frames: the batch stride is the padded length).
BAKED_RULES = frozenset({
    "TRT101", "TRT105", "TRT104", "TRT106", "TRT702", "TRT704", "TRT711", "TRT712", "TRT713", "TRT716", "TRT717", "TRT718", "TRT721", "TRT722", "TRT726", "TRT728", "TRT803", "TRT316", "TRT331", "TRT336",
    "TRT322", "TRT348", "TRT349", "TRT351", "TRT353", "TRT358", "TRT360", "TRT361", "TRT363", "TRT364", "TRT729",
    "TRT393",  # a per-image list padded and stacked: its loop unrolls with the batch, as TRT361's does
    "TRT366",  # a comprehension over a tensor: the trace warns "Iterating over a tensor" at its line
    "TRT735",  # slice writes with per-element bounds: the second trace finds the loop unrolled another number of times
    "TRT381",  # einx reads the sizes into Python: the trace warns at the einx call, the innermost line of the user
    "TRT389",  # a whole-or-chunked test on a size: the trace warns at the test
    "TRT396",  # chunks mapped and concatenated: the graph unrolls the example's chunks at the comprehension's line
    "TRT394",  # a tensor's values through NumPy and back: the trace warns at `.numpy()` and records the array
    # A size's `//` with a negative side, beside the bake that warned at its line (geffnet's TF-style padding,
    # `max((-(i // -s) - 1) * s + ..., 0)`): kept traced by TRT712, the pad is still one short where the stride does
    # not divide the size, so the graph differs at other sizes until the division floors too.
    "TRT339",
    "TRT397",  # a greedy NMS loop: the trace reads its emptiness test into Python at the `while`
    "TRT738",  # NMS class by class: the loop over `unique` unrolls at its `for` with the example's classes
    "TRT736",  # a comprehension over a range made a tensor: the trace warns at the constructor (a constant)
    "TRT737",  # each image's rows picked by an image column, sorted and capped: the loop unrolls at its `for`
})

#: Alternative fixes of one test, in the order they are tried: each is held back while an earlier one at the same test
#: is planned and not taken back. A decision on a size the trace bakes: the whole computation where the other branch
#: only chunks it (TRT389), both branches computed and selected (TRT713, where its rewrite applies), then the `if`
#: branch taken while tracing (TRT390), then the other (TRT391).
CHOICES = ("TRT389", "TRT713", "TRT390", "TRT391")
#: Rules whose fix only picks a branch while tracing: tried for a decision the second trace found baked (an error),
#: never for a warning the graph does not show.
TRACED_BRANCH_RULES = frozenset({"TRT390", "TRT391"})
#: Why a :data:`TRACED_BRANCH_RULES` fix waits: nothing in the code says which branch holds at every size, so it is an
#: experiment, tried only where the other fixes leave the model unfaithful (and forgotten where it fails too).
LAST_RESORT = "tried last, only where the other fixes leave the graph unfaithful"

#: The graph check's rule for a hostile node -> other rules whose fix at the node's line removes it: a float64
#: Cast (TRT701's) that the TorchScript exporter makes for a traced size in arithmetic with a float literal,
#: which TRT350 keeps in float32 (easydetect's `scores + (point_coords.shape[1] - 2.5) * reweight`); or one made
#: at a write into part of a tensor, whose type the exporter loses over the in-place write, so that a Python number
#: in the written value comes out float64 (DaD's `offsets[..., 0] = offsets[..., 0] * nms_size / W` before an
#: `einsum`): TRT203 builds the tensor anew instead, typed float32.
ALSO_REMOVED_BY = {"TRT701": ("TRT350", "TRT203"), "TRT706": ("TRT382",), "TRT302": ("TRT738",)}

#: The rule an export failure names -> other rules whose fix at the failing line takes the failing call: the
#: adaptive pooling (TRT601's) that `F.interpolate(mode="area")` pools with stops the TorchScript export on an
#: output size computed from a traced scale factor, which TRT362's resize by the traced factor computes as exact
#: bins (Torchelie's perceptual loss: `s = 224 / min(y.shape[-2:])`, then an area resize by `s`).
ALSO_FIXED_BY = {"TRT601": ("TRT362",), "TRT706": ("TRT382",)}

#: Rules that replace a torch module built in ``__init__`` whose own code is what the export
#: gets wrong: torch's frames are not the user's, so the problem is located at the line that
#: calls the module, and the finding at the construction (:mod:`.module_calls` links them).
#: TRT727: an ``nn.Upsample(mode="bicubic")`` inside a Sequential whose call holds the cubic Resize
#: (landmarker's spatial configuration net, zoo 23).
#: TRT386: a submodule built as `torch.jit.script(Module(...))`, which the TorchScript exporter stops at where forward
#: calls it (rl-games' `self.running_mean_std(observation)` in `norm_obs`).
CALLED_MODULE_RULES = frozenset({"TRT316", "TRT603", "TRT340", "TRT357", "TRT727", "TRT386"})
#: Of those, the rules an export failure names whose finding must also be the construction of the module called at the
#: failing line: every scripted submodule of the file is a finding, and only the one the failing call calls is the
#: failure's (the others, if forward calls them, stop the export again at their own calls).
CALLED_AT_FAILURE_RULES = frozenset({"TRT386"})

#: rule -> the rules whose findings inside its applied fix's span stop being problems: the
#: writes to `self` in a cache that TRT726 refreshes while tracing are the cache's own fill (and the size test of
#: a module-level cache TRT729 makes miss while tracing decides nothing then); the
#: size test of a pad, crop or resize that TRT717 made one computation decides nothing any more; nor
#: does the value test of an extra pad that TRT331 made one computation, nor the loop TRT336 made a search, nor
#: the `int()` reads, `if`s and writes of a loop TRT348 computes at once while tracing (eager code keeps the loop), nor
#: the sizes read by `range`, the numbers and the tensor made of them in a list TRT364 computes at once while tracing;
#: the writes of shifted columns TRT369 made whole-plane writes are no empty ScatterND any more; nor is the
#: comprehension over chunks that TRT396 maps at once while tracing (TRT406's detection there) unrolled any more.
SUPERSEDES = {"TRT726": ("TRT703",), "TRT729": ("TRT713",), "TRT717": ("TRT713",), "TRT331": ("TRT101",), "TRT336": ("TRT104",), "TRT397": ("TRT104", "TRT702", "TRT713", "TRT101", "TRT103", "TRT801"),
              "TRT736": ("TRT702", "TRT712", "TRT716", "TRT713"),
              "TRT348": ("TRT702", "TRT713", "TRT101", "TRT104", "TRT202", "TRT203"),
              "TRT364": ("TRT702", "TRT712", "TRT713", "TRT716", "TRT104"),
              "TRT369": ("TRT203",), "TRT394": ("TRT702",), "TRT396": ("TRT406",),
              "TRT738": ("TRT104", "TRT702", "TRT713", "TRT101", "TRT302")}
#: rule -> the rules whose findings at the first line of its applied fix (the `if` it rewrote) stop being
#: problems: the `self.cache is not None` TRT721 reports at the test of a cache TRT726 makes miss while
#: tracing is not even evaluated then (`not _trt_tracing() and ...` short-circuits; DeAOT's local attention).
#: Only that line: a test of state nested in the cache's fill still runs while tracing.
SUPERSEDES_AT_TEST = {"TRT726": ("TRT721",), "TRT389": ("TRT713",), "TRT390": ("TRT713",), "TRT391": ("TRT713",)}
#: Why, for each rule of :data:`SUPERSEDES`.
SUPERSEDED_BECAUSE = {"TRT726": "a cache refreshed while tracing",
                      "TRT729": "a module-level cache rebuilt while tracing",
                      "TRT717": "the size test it made part of one computation",
                      "TRT331": "the test of a pad it made part of one computation",
                      "TRT336": "the loop it made a search in the graph",
                      "TRT397": "the NMS loop it runs as one NMS node while tracing, kept for eager code only",
                      "TRT736": "the comprehension it evaluates on a range at once while tracing, kept for eager code only",
                      "TRT394": "the `.numpy()` whose NumPy steps it took in torch",
                      "TRT348": "the loop it computes at once while tracing, kept for eager code only",
                      "TRT364": "the list it computes at once while tracing, kept for eager code only",
                      "TRT369": "the cost volume whose planes it writes whole, at full width",
                      "TRT389": "the size test it decides while tracing: the whole computation",
                      "TRT396": "the chunks it maps at once while tracing, kept for eager code only",
                      "TRT738": "the loop over the classes it runs as one NMS call while tracing, kept for eager code "
                                "only",
                      "TRT390": "the size test it decides while tracing: the `if` branch",
                      "TRT391": "the size test it decides while tracing: the other branch"}

#: Rules whose construct exports without error but computes other values (``atan2``'s edges) or
#: values of another type (TRT323: ``masks.gt_(0.5)`` exported as a bool comparison, YOLOv5's mask
#: decoding): the suspects when a graph differs from its model even on the inputs it was traced with.
#: TRT342: a whole-window pooling whose sizes are read through ``x.data`` (mamaheux's and the DeepStream exercise's
#: ``GlobalAvgPool2d``) exports without a warning, its window baked at the traced size.
#: TRT352: a sum of bool tensors exports as an Add of bools, which ONNX Runtime refuses when it loads the graph,
#: naming the node (`/Add_19`) but no line (CenterNet's `multi_pose_decode`).
#: TRT355: a write through a subscript holding `None` leaves no node at all (monodepth2's `T[:, :3, 3, None] = t`):
#: the graph computes with the tensor as it was before the write.
#: TRT375 (detect only): an in-place write through a reshaping view (`Xa = X.view(...)`, then `Xa[:, 1].add_(v)`) is
#: lost for the tensor viewed, with no warning (mambapy's parallel scan): named where the graph's values differ.
#: TRT387: two in-place calls chained on a subscripted view (`idx[:, a:b].copy_(x).add_(5)`, l5kit's Urban Driver)
#: export as writes to the whole base or lose the second call, with no warning.
#: TRT354 (values read through `.data`): the trace records no read, so the graph computes with the example's values
#: from there on, with no warning (pytorch-ood's Mahalanobis scores `features.data - mu`, zoo 90): the graph matches its
#: model on the traced set only.
WRONG_VALUE_RULES = frozenset({"TRT301", "TRT728", "TRT330", "TRT339", "TRT341", "TRT342", "TRT323", "TRT352",
                               "TRT354", "TRT355", "TRT375", "TRT387"})
#: Safe wrong-value rules that are suspects also where ONNX Runtime refuses the same graph at a node elsewhere on
#: another input set, when the graph differs even on its traced inputs (the verifier's detail says so): l5kit's
#: Urban Driver differs on its traced set through TRT387's chain and is refused at a Reshape its input code bakes.
TRACED_WRONG_VALUE_RULES = frozenset({"TRT387"})
#: The verifier's words for a graph whose values differ on the inputs it was traced with.
_TRACED_DIFFERENCE = "differs from eager even on the traced inputs"

#: Rules whose every finding stops the TorchScript export the same way once one does, with an error that names
#: no operator ("Failed to export a node '%5 : Long(device=cpu) = onnx::Gather[axis=0](%2, %4), scope: ...' (in
#: list node ...) because it is not constant": a size gathered from a traced shape, in a list argument that must be
#: constant; a located message keeps its first 300 characters, which may end within the scope): the exporter stops
#: at the first, so a model with five such calls takes five rounds. When the export stops so at one of the rule's
#: findings, the rule's findings in that file are applied together (boxmot's HACNN pools `x.size()[2:]` at four
#: lines of one file; TRT353: a `torch.roll` by a negated shift computed from a size, "onnx::Neg(...)", GMFlow's
#: shifted-window attention rolls its queries, keys and values at three lines).
#: TRT203: an integer position among index tensors in a write (`coords_max[b, c, 0, d, h, w] = ...`, then `1`
#: and `2` on the next lines, kornia's ConvQuadInterp3d), which the exporter refuses at the first write.
#: TRT324: a convolution whose kernel's shape the trace computes from a size ("convolution for kernel of unknown
#: shape"): SSIM convolves the images, their squares and their product with one window at five lines of one
#: function (piq's `_ssim_per_channel`), which took a round each and ran past the round limit.
#: TRT709: every `torch.fft` transform the TorchScript exporter reaches stops it ("Exporting the operator
#: 'aten::fft_fft2' ... is not supported"), and TRT709 may name one function's transforms in separate findings (piq's
#: FSIM: the spectrum's product at fsim.py:238 and the filters' rebound inverse at :239), a round each.
STOPS_AT_EVERY_CALL = {
    "TRT342": re.compile(r"Failed to export a node '%[\w.]+ : Long\([^)]*\) = onnx::Gather\["),
    "TRT353": re.compile(r"Failed to export a node '%[\w.]+ : Long\([^)]*\) = onnx::Neg\("),
    "TRT203": re.compile(r"Only consecutive 1-d tensor indices are supported in exporting aten::index_put"),
    "TRT324": re.compile(r"ONNX export of convolution for kernel of unknown shape"),
    "TRT709": re.compile(r"operator 'aten::fft_\w+'"),
}

#: Of those, the rules whose findings, where the export does not stop, bake the same way with no warning: the
#: TorchScript exporter cuts every `torch.roll` by a positive shift computed from a size at the example's shift.
#: A second trace at other sizes locates the first such roll only (its Slice is the graph's first difference), so
#: when it locates one, the rule's findings in that file are applied together (PARADIS's pole padding rolls the
#: rows next to each pole by half the width at two lines).
BAKES_AT_EVERY_CALL = frozenset({"TRT353"})

#: Of those, the rules whose findings stop the export so only where their fix inserts one of these helpers
#: (TRT203's other findings are slice writes, which export): an integer position among index tensors, and index
#: tensors a `:` stands between (`final[b, :, z, x, y] = x`, lift-splat-shoot's voxel pooling). TRT324's kernel
#: wrapper answers the unknown kernel shape; its batch-in-the-groups convolution is another fix for another failure.
STOPS_WITH_HELPER = {"TRT203": ("_trt_index_position", "_trt_index_put_sliced", "_trt_slice_fill"),
                     "TRT324": ("_trt_conv_kernel",)}

#: Of those helpers, the ones whose findings stop the export with an error of their own instead of the rule's:
#: a number written into a slice that is empty at constant sizes (Swin's `img_mask[:, h, w, :] = cnt` where the
#: padded size equals the window) stops the TorchScript exporter in the index_put's shape inference. A write
#: whose other slices are empty is the next to stop, so they are applied together, apart from the rule's others.
HELPER_STOPS = {"_trt_slice_fill": re.compile(r"minus_one_pos != -1 INTERNAL ASSERT FAILED")}

#: Fixes (rule, the helper the fix inserts) whose every finding makes a graph ONNX Runtime refuses at other sizes
#: once one does: TRT203's value broadcast into a slice, which the trace expands to the example's sizes
#: (`coords_max[:, :, 0] = torch.arange(D).view(D, 1, 1)`, then `[:, :, 1]` and `[:, :, 2]` on the next lines
#: in kornia's ConvQuadInterp3d): ONNX Runtime stops at the first, so each round would locate one more.
#: The value is the node ONNX Runtime refuses for them (an Expand to the example's shape): a refusal of another node
#: at such a line (a Gather out of bounds, whose indices another rule's fix corrects) is not theirs.
FAILS_AT_EVERY_WRITE = {("TRT203", "_trt_slice_value"): "Expand"}


def _helper_of(finding: Any, helper: str | None) -> bool:
    return helper is not None and finding.edit is not None and helper in finding.edit.helpers


def _stops_every_call(finding: Any) -> re.Pattern[str] | None:
    """The error with which ``finding`` stops the export as every finding like it does, if it is such a finding."""
    helpers = STOPS_WITH_HELPER.get(finding.rule)
    if helpers is not None:
        helper = next((h for h in helpers if _helper_of(finding, h)), None)
        if helper is None:
            return None
        if helper in HELPER_STOPS:
            return HELPER_STOPS[helper]
    return STOPS_AT_EVERY_CALL.get(finding.rule)


def _own_stop(finding: Any) -> str:
    """The helper of ``finding``'s fix where it stops the export with an error of its own (:data:`HELPER_STOPS`)."""
    return next((helper for helper in HELPER_STOPS if _helper_of(finding, helper)), "")


def _fails_at_every_write(finding: Any) -> str | None:
    """The helper of ``finding``'s fix where it is one of :data:`FAILS_AT_EVERY_WRITE`."""
    helpers = [helper for rule, helper in FAILS_AT_EVERY_WRITE if rule == finding.rule]
    return next((helper for helper in helpers if _helper_of(finding, helper)), None)


def _refused_for(problem: Problem, finding: Any, helper: str) -> bool:
    """Does ``problem`` say ONNX Runtime refuses, at ``finding``'s line, the node that ``helper``'s fix addresses?"""
    op = FAILS_AT_EVERY_WRITE[(finding.rule, helper)]
    return problem.kind == "unfaithful" and problem.op == FAILS_TO_RUN and _at(problem, finding) \
        and f"refuses the {op} node" in (problem.message or "")


def _stop_key(finding: Any) -> tuple[str, str, str] | None:
    """The findings whose located stops count for one another: one rule, one file, one kind of fix."""
    if _stops_every_call(finding) is not None:
        return finding.rule, _span(finding).path, _own_stop(finding)
    helper = _fails_at_every_write(finding)
    return (finding.rule, _span(finding).path, helper) if helper else None

#: Of those, the rules whose wrong values may be indices, so the graph fails where they are read, at a
#: line of the same file other than the construct's (TRT728: kornia's CLAHE builds LUT indices with
#: `torch.tensor` then `+=`; the graph loses the update and a Gather several lines below fails), and the
#: rules whose wrong values have the wrong shape (TRT330: PatchTST's windows on the wrong axis meet the
#: positional encoding's shape in an Add further on, which ONNX Runtime refuses at load; TRT339: a ceiling
#: `-(-k_len // block)` one short gives a block count whose indices a ScatterElements further on refuses,
#: as in MiniMax-M3-VL's block indexer), and TRT323, whose bool comparison meets a float in an Add further
#: on, which ONNX Runtime refuses at load; TRT716, whose sizes copied into a constant may be indices
#: of the example's length (kornia's DeFMO: `times[list(range(times.shape[0])), ki]` keeps one row at
#: batch 2, and the `torch.cat` with the latent two lines below refuses the mismatched batch); TRT349, whose
#: typed legacy constructors and `x.new(sizes)` bake the example's sizes without a TracerWarning (only
#: `torch.Tensor(sizes)` warns), so the `torch.cat` or mask assignment that meets the tensor refuses it; TRT359,
#: whose blocks of a range's index keep the example's count without a TracerWarning (lift-splat-shoot's batch-index
#: column: the `torch.cat` with the voxel coordinates on the next line refuses the other batch's rows).
#: TRT368: `torch.linspace` of a run-time count is NaN at one step in the graph, cast to the most negative int64 by
#: `.long()` and refused by a Gather some lines below (stereo_matching's S2M2 relative positions).
WRONG_INDEX_RULES = frozenset({"TRT728", "TRT330", "TRT339", "TRT323", "TRT716", "TRT349", "TRT359", "TRT368"})

#: Rules that rewrite a module where it is built (``nn.LocalResponseNorm(...)`` in ``__init__``)
#: while the graph check names them from a node's stack, made where forward calls the module: a
#: hostile node tagged with such a rule is addressed by the rule's findings wherever they are.
#: TRT340: a MaxPool whose Indices output is used, made inside `nn.MaxPool2d(return_indices=True)` built in one
#: module and called in another's forward.
BUILT_MODULE_RULES = frozenset({"TRT405", "TRT340"})

#: Rules whose construct leaves the TorchScript exporter typing its result with the traced example's sizes,
#: dynamic axes included (TRT345: `unflatten`), so that a size read from it or from anything computed from it
#: downstream is folded to the example's number: the symptom lies at another line, often in another file (the
#: second trace's first difference, a node that fails to run or computes other values at another size), and
#: the construct that erased the sizes ran before it (a zoo model's `unfold(...).unflatten(2, f.shape[2:])`,
#: baked at the `view` of transformers' Perceiver `space_to_depth`). Their fixes are safe, and verified.
#: TRT346 (`x.shape[1:].numel()`) joins them: the count is read into a Python int with no TracerWarning, and the
#: constant lands on the line that uses it (a `Reshape`, a comparison), often a few lines below.
#: TRT354 (`x.data.size()`): `.data` leaves the trace, so its sizes are the example's ints, silently.
#: TRT356: a transposed convolution called with `output_size=` records the output padding worked out from it as
#: the example's number, with no warning at the call; the next Add or Concat fails at another size (ENet's decoder).
#: TRT358: the loop (or comprehension) a trace unrolls stacks the example's batch of rows, with no warning at the
#: stack; a `view` by the batch read elsewhere fails at another batch (SpERT's relation pairs, `batch_index`).
SIZE_ERASING_RULES = frozenset({"TRT345", "TRT346", "TRT354", "TRT356", "TRT358"})

#: Rules whose construct may bake a size with no TracerWarning at its own line, so that only a second trace
#: at other sizes shows it: :data:`SIZE_ERASING_RULES`, and TRT353, a `torch.roll` by a positive shift computed
#: from a size, whose slices the TorchScript exporter cuts at the traced example's shift (CREDIT's earth padding
#: rolls the longitude by `x.shape[-1] // 2`: the verifier's larger size, one more, has the same half for an even
#: width). Where one has a finding and nothing else located an error, migrate traces again.
SILENT_BAKE_RULES = SIZE_ERASING_RULES | {"TRT353"}

#: Rules whose fix changes the test of a validation on sizes (TRT712's `_trt_size_is_int`): an export that stops at
#: the validation's `raise` is theirs where their finding stands in the `if`'s test.
SIZE_TEST_RULES = frozenset({"TRT712"})

APPLY, REMAINS, INFO = "apply", "remains", "info"

#: rule -> the rule whose applied fix it goes with where nothing is located at its own lines: TRT361's rewrite of
#: a caller takes the rows only from the list TRT360's rewrite made while tracing (alone it keeps its loop), and a
#: caller written as a comprehension (zoo 19's YOLOv7 wrappers, `torch.cat([... for i, d in enumerate(out)])`)
#: is no `for` statement the second trace names: without it, TRT360's rewrite alone stays unfaithful.
#: TRT395's pooling takes the window TRT712's `_trt_size_int` keeps traced (PSPNet's pyramid pooling: `int(h / p)`
#: is located as a bake at its own line, the pooling that then stops the export at none): alone, each leaves the
#: graph wrong or the export stopped.
COMPANION_OF = {"TRT361": "TRT360", "TRT393": "TRT360", "TRT395": "TRT712"}
#: (rule, helper) -> the (rule, helper) pairs of the applied fix it goes with, as :data:`COMPANION_OF` says, for
#: rules whose findings come in halves told apart by their helper: TRT366's stack of a sequence a function is handed
#: (`_trt_restack`, oriented_det's `extract_backbone_features`: `torch.stack(images, dim=0)`) takes the batch whole
#: only from the rows a caller's `_trt_unbound` or `_trt_listed` kept (the export wrapper's `torch.unbind(images,
#: dim=0)`, in another file); the split the trace records is located at the caller's line, nothing at the stack's.
HELPER_COMPANION_OF = {("TRT366", "_trt_restack"): (("TRT366", "_trt_unbound"), ("TRT366", "_trt_listed"))}
#: Rules whose unlocated findings go with an applied fix of the same rule in the same file: TRT701's float64
#: sites of one computation. The graph locates a float64 node only where it depends on the input (PaddleOCR's
#: TPS: the grid ranges from the image's size, `torch.ones((n, 1), dtype=torch.float64)` of its point count);
#: the float64 constants the same code builds (the fiducial points, the spline's system) are folded into
#: initializers, located nowhere, and once the located sites are float32 their float64 values promote them
#: back (a Cast to float64 where they meet). Narrowed together, the computation is float32 throughout.
SAME_FILE_COMPANIONS = frozenset({"TRT701"})


def _lead_of(decision: Decision, made: list[Decision], applied: list[Decision]) -> Decision | None:
    """The applied fix that ``decision``'s finding goes with (:data:`COMPANION_OF`, :data:`HELPER_COMPANION_OF`)."""
    finding = decision.finding
    if finding.rule in SAME_FILE_COMPANIONS and "float64" in finding.message:
        return next((d for d in [*made, *applied] if d.action == APPLY and d.finding.rule == finding.rule
                     and d.problems and norm(d.finding.path) == norm(finding.path)
                     and "float64" in d.finding.message), None)
    lead_rule = COMPANION_OF.get(finding.rule)
    if lead_rule is not None:
        return next((d for d in [*made, *applied] if d.action == APPLY and d.finding.rule == lead_rule), None)
    leads = next((leads for (rule, helper), leads in HELPER_COMPANION_OF.items()
                  if rule == finding.rule and _helper_of(finding, helper)), ())
    return next((d for d in [*made, *applied] if d.action == APPLY
                 and any(d.finding.rule == rule and _helper_of(d.finding, helper) for rule, helper in leads)), None)


@dataclass
class Decision:
    """What the plan does with one finding, and why."""

    finding: Any  # trtcodemod.rules.Finding
    action: str  # apply | remains | info
    proof: str = ""
    reason: str = ""
    problems: list[Problem] = field(default_factory=list)
    #: An unsafe fix whose assumption no observation can cover, tried because a problem is
    #: located at it: kept only when the verification shows the rewrite equivalent.
    candidate: bool = False
    #: A fix of code another fix wrote (TRT101's ``torch.where`` below TensorRT 8.4): its
    #: finding exists only in the rewritten file, at the line the first fix replaced.
    follow_up: bool = False

    @property
    def key(self) -> tuple[str, str, int, int]:
        f = self.finding
        return norm(f.path), f.rule, f.line, f.column

    def to_json(self) -> dict[str, Any]:
        f = self.finding
        return {"rule": f.rule, "path": f.path, "line": f.line, "column": f.column, "message": f.message,
                "fix": f.fix.value, "action": self.action, "proof": self.proof, "reason": self.reason}


# --- proofs from facts ---------------------------------------------------------------------


def _span(finding: Any) -> Span:
    return Span(norm(finding.path), finding.line, finding.column, finding.end_line, finding.end_column)


# --- matching findings with problems -------------------------------------------------------


def _rules_of_op(op: str) -> tuple[str, ...]:
    from trtcodemod.trt.check import RULES

    return RULES.get(op, ())


def _shape_loss_rules(message: str) -> tuple[str, ...]:
    """The rules whose fixes keep a static shape the exporter lost, when ``message`` says an
    operator stopped on an input of unknown sizes (:data:`trtcodemod.trt.check.SHAPE_LOSS`)."""
    from trtcodemod.trt.check import SHAPE_LOSS, SHAPE_LOSS_RULES

    return SHAPE_LOSS_RULES if SHAPE_LOSS.search(message) else ()


def _at(problem: Problem, finding: Any) -> bool:
    """Is ``problem`` at ``finding``'s lines, or, for a module-replacing rule, at a line that
    calls the module built at them?"""
    if problem.path is None:
        return False
    span = _span(finding)
    if span.has_line(problem.path, problem.line or 0):
        return True
    if finding.rule not in CALLED_MODULE_RULES or not problem.line:
        return False
    # The run saw the module called here built by the finding's call (a factory's `class_(k)`, anywhere).
    if any(b.path == span.path and b.line <= span.end_line and span.line <= b.end_line for b in problem.built):
        return True
    if span.path != problem.path:
        return False
    from .module_calls import construction_lines

    return any(first <= span.line and span.end_line <= last
               for first, last in construction_lines(problem.path, problem.line))


#: The TorchScript exporter's error at a call of a ScriptModule, naming its class (``__torch__.<module>.<Class>``).
_NOT_IN_TRACE = re.compile(r"Tried to trace <__torch__\.([\w.]+) object")


def _scripted_class_named(problem: Problem, finding: Any) -> bool:
    """Does the export error name the class of the module ``finding`` scripts? A call of it from another file (SAM 2's
    ``self.predictor._transforms.transforms(x)`` in the user's wrapper) records no construction line: the
    ScriptModule's own call is not observed; the class, in the error and in the finding's message, links the two."""
    named = _NOT_IN_TRACE.search(problem.message or "")
    if named is None:
        return False
    cls = named.group(1).rsplit(".", 1)[-1]
    return re.search(rf"\b{re.escape(cls)}\(", getattr(finding, "message", "") or "") is not None


def matches(problem: Problem, finding: Any) -> bool:
    """Does fixing ``finding`` address ``problem``?"""
    if finding.rule in EMPTY_SLICE_RULES:
        # The full-width planes fix a node ONNX Runtime refuses inside the loop (a zero-size Reshape or ScatterND of
        # an empty slice); matched to a hostile ScatterND or to anything else at the loop it would rewrite a volume
        # that is never empty.
        return problem.kind == "unfaithful" and problem.op == FAILS_TO_RUN and problem.path is not None \
            and _at(problem, finding)
    if finding.rule in STATE_DICT_RULES:
        return problem.kind == "export_failure" and NO_DETACH in (problem.message or "")
    if finding.rule in COMPILED_RULES:
        return problem.kind == "export_failure" and _DYNAMO_OPTIMIZED in (problem.message or "")
    if finding.rule in PYTHON_OP_RULES:
        return problem.kind == "export_failure" and _PYTHON_OPERATOR in (problem.message or "")
    if finding.rule in SHARED_CONSTANT_RULES:
        # Its rewrite changes only the axis constant of the call while exporting; the nodes the in-place write broke
        # lie wherever the graph used the same value, so any refused node or first differing line may be its.
        return problem.kind == "unfaithful" and problem.op in (FAILS_TO_RUN, WRONG_VALUES)
    if finding.rule in PERMUTATION_RULES:
        if problem.kind != "unfaithful" or problem.op != FAILS_TO_RUN or problem.path is None:
            return False
        return _at(problem, finding) or (_span(finding).path == problem.path
                                          and _INVALID_PERMUTATION in (problem.message or ""))
    if finding.rule in DISTANCE_RULES:
        return problem.kind == "unfaithful" and problem.op == WRONG_VALUES and problem.path is not None \
            and _at(problem, finding)
    if finding.rule in PROMOTION_RULES:
        # Its rewrite casts the operands of an einsum or outer while exporting: it fixes an Einsum of two types that
        # ONNX Runtime refuses at load, or an outer whose values first differ, made at its own line, and nothing else.
        # Or a node ONNX Runtime refuses for an integer input made at its line: the TorchScript exporter writes
        # `outer` in the first operand's type, so an int32 voxel coordinate times float frequencies reaches the
        # `Sin`/`Cos` of the next line as an int32 product (TRELLIS's position embedder).
        if problem.kind != "unfaithful" or problem.path is None:
            return False
        if problem.op == FAILS_TO_RUN and _integer_input_made_in(problem, _span(finding)):
            return True
        if not _at(problem, finding):
            return False
        return (problem.op == FAILS_TO_RUN and _MIXED_TYPES in (problem.message or "")) or problem.op == WRONG_VALUES
    if finding.rule in NARROW_RULES:
        # Their rewrites fix one kind of refused node only; matched to anything else at the line or in the file they
        # would be applied beside every other rule's fix there (a linspace or a view that was never the problem).
        if problem.kind != "unfaithful" or problem.path is None:
            return False
        if finding.rule in ZERO_SIZE_RULES:
            return problem.op == FAILS_TO_RUN and _at(problem, finding) and _zero_size_refusal(problem.message or "")
        message = problem.message or ""
        if problem.op == FAILS_TO_RUN:
            # A linspace's NaN reaches a Gather lines below as the index NaN casts to (int64's least value).
            return _at(problem, finding) or (_span(finding).path == problem.path and _NAN_INDEX in message)
        # Or it reaches the output as values: NaN where eager mode is finite (Deformable DETR's reference points on a
        # level of one row, timm's Fourier grid on a map of one row), at the line where the values first differ.
        return problem.op == WRONG_VALUES and _span(finding).path == problem.path and _NAN_WHERE_FINITE in message
    if finding.rule in TRACED_BRANCH_RULES:
        return problem.kind == "baked" and problem.severity == "error" and _at(problem, finding)
    if finding.rule in FILL_DTYPE_RULES:
        # The float tensor its call exported is refused where it is used (an embedding's Gather lines below).
        return problem.kind == "unfaithful" and problem.op == FAILS_TO_RUN and problem.path is not None \
            and (_at(problem, finding) or _integer_input_made_in(problem, _span(finding), _FLOAT_INPUT_MADE_AT)
                 or _integer_input_made_in(problem, _span(finding), _FLOAT_INPUT_TYPED_AT))
    if finding.rule in CALLER_SIZE_RULES:
        # The in-place update changes the caller's traced size: what breaks lies after the call, in the caller or
        # further on (Demucs v3's convolution three lines below `self.valid_length(length)`), in the same file.
        return problem.kind in ("export_failure", "baked", "unfaithful") and problem.path is not None \
            and _span(finding).path == problem.path
    if finding.rule in SCRIPTED_RULES and problem.kind == "hostile" and problem.op == "If":
        # A scripted function's `If` that TensorRT refuses (arms of two ranks) lies in the function's span; one it
        # builds (a warning: a conditional layer) is no reason to trace the function instead.
        return problem.severity == "error" and _at(problem, finding)
    if finding.rule in SIZE_ERASING_RULES and (problem.op == RETRACED_GRAPH or problem.op == FAILS_TO_RUN):
        return True
    if problem.kind == "unfaithful":
        if problem.op == FAILS_TO_RUN and problem.path is not None:
            if finding.rule in TRACED_WRONG_VALUE_RULES and _TRACED_DIFFERENCE in (problem.message or ""):
                return True
            every_write = _fails_at_every_write(finding)
            if every_write is not None:
                return _refused_for(problem, finding, every_write)  # only the node the fix addresses
            if finding.rule in ZERO_SIZE_RULES:
                # Only a Reshape refused over a run-time 0: elsewhere its rewrite of a view at the line fixes nothing
                # (examples/guidance/len_batch.py: `x.reshape(n, -1)` of a baked `n = len(x)` is TRT704's).
                return _at(problem, finding) and _zero_size_refusal(problem.message or "")
            if finding.rule in BROADCAST_WRITE_RULES:
                # Its rewrite changes only the Reshape or Expand the broadcast makes: a Gather refused at the same
                # line is an index's (kornia's CLAHE mapping, whose index tensors TRT728 fixes).
                return _at(problem, finding) and bool(_BROADCAST_REFUSAL.search(problem.message or ""))
            # ONNX Runtime refused a node made at this line: any fix of the line may remove it.
            return _at(problem, finding) or (finding.rule in WRONG_INDEX_RULES
                                              and _span(finding).path == problem.path)
        return finding.rule in WRONG_VALUE_RULES
    if problem.kind == "export_failure" and problem.rule:
        if finding.rule in ALSO_FIXED_BY.get(problem.rule, ()) and _at(problem, finding):
            return True
        if finding.rule in CALLED_AT_FAILURE_RULES:
            return problem.rule == finding.rule and (_at(problem, finding) or _scripted_class_named(problem, finding))
        # The error names the op: a module built in __init__ fails where forward calls it,
        # so the rule, not the line, says which finding fixes it.
        return problem.rule == finding.rule
    if problem.kind == "hostile" and problem.rule in BUILT_MODULE_RULES and finding.rule == problem.rule:
        # The node is made inside torch's code of a module built in __init__ and called from forward:
        # the stack, not the line, says which construct made it (kornia's SOSNet: `self.desc_norm =
        # nn.Sequential(nn.LocalResponseNorm(...))`, called as `self.desc_norm(descr + eps)`).
        return True
    if problem.kind == "export_failure" and problem.path is not None and problem.line is not None \
            and _span(finding).path == norm(problem.path) and finding.rule in SIZE_TEST_RULES:
        # A validation that raised only while tracing (owndet's `isinstance(value, int)` of a traced size): the
        # failure is at the `raise`, the test a fix changes at the `if` above it.
        guard = raise_guard(problem.path, problem.line)
        if guard is not None and guard[0] <= finding.line <= guard[1]:
            return True
    if problem.kind == "export_failure" and finding.rule in _shape_loss_rules(problem.message):
        # An operator stopped on an input whose static shape was lost upstream: the line that
        # fails only shows the loss, and the construct that erased it ran elsewhere.
        return True
    if not _at(problem, finding):
        return False
    if problem.kind == "baked":
        if finding.rule in BROADCAST_WRITE_RULES:
            # The second trace finds the graph differing first at the Reshape or Expand the write's broadcast made
            # at its line (ONNX Runtime's refusal may name a node it fused, which has no line: diffusers' mask).
            return problem.op == RETRACED_GRAPH and bool(_BROADCAST_NODE.search(problem.message or ""))
        return finding.rule in BAKED_RULES
    if problem.kind == "state":
        return finding.rule == problem.rule
    if problem.kind == "undefined":
        return finding.rule == problem.rule and _at(problem, finding)
    if problem.kind == "export_failure":
        return problem.rule in (None, finding.rule)
    # A hostile node: its rule, another rule that removes the same op, or any rule when untagged.
    return problem.rule is None or finding.rule == problem.rule or finding.rule in _rules_of_op(problem.op) \
        or finding.rule in ALSO_REMOVED_BY.get(problem.rule, ())


#: ONNX Runtime's words where a ``Reshape`` is given a 0 past its input's rank (``allowzero=0`` reads it as "copy").
_ZERO_COPY = "dimension with value zero exceeds the dimension size of the input tensor"
#: ... and where a 0 within the rank copied a size and the element counts then disagree.
_ZERO_REQUESTED = re.compile(r"requested shape:\s*\{[^}]*(?<![0-9])0(?![0-9])")

#: Rules whose rewrite expands a value broadcast into a subscript write to the written part's run-time shape
#: (TRT388): matched to a bake only where the second trace finds the graph differing first at a Reshape or Expand
#: node from its line; any other bake there is not the broadcast's.
BROADCAST_WRITE_RULES = frozenset({"TRT388"})
_BROADCAST_NODE = re.compile(r"differs first at an? (Reshape|Expand) node")
#: ONNX Runtime's words where it refuses one of those nodes.
_BROADCAST_REFUSAL = re.compile(r"running (Reshape|Expand) node")
#: Rules whose rewrite writes out the int64 dtype of a `torch.full` the TorchScript exporter makes float (TRT734):
#: matched to a node ONNX Runtime refuses for a float input made at the call (Chronos-Bolt's `[REG]` ids, whose
#: embedding `Gather` is refused five lines below).
FILL_DTYPE_RULES = frozenset({"TRT734"})
#: Rules whose rewrite rebinds a size parameter that an augmented assignment updated in place (TRT730): while
#: tracing that update wrote into the caller's size, so the export fails, or the graph bakes or differs, anywhere
#: after the call.
CALLER_SIZE_RULES = frozenset({"TRT730"})
#: Rules whose rewrite drops a scripting decorator (TRT105), so that a trace records the function as Python: matched
#: to an ``If`` TensorRT refuses inside the function (asteroid-filterbanks' ``multishape_conv1d``, whose arms give
#: tensors of rank 3 and 4), besides the ``Loop`` and ``Sequence*`` nodes its rule is tagged with.
SCRIPTED_RULES = frozenset({"TRT105"})
#: Rules whose rewrite fixes only a ``Reshape`` given a size that is 0 at run time (TRT367).
ZERO_SIZE_RULES = frozenset({"TRT367"})
#: Rules matched only to a node ONNX Runtime refuses: TRT367's zero-size Reshape, TRT368's linspace of one step (NaN
#: cast to an index that a Gather some lines below refuses: S2M2's relative positions; or, for TRT368, values that are
#: NaN where eager mode's are finite, in the same file: Deformable DETR's reference points).
NARROW_RULES = ZERO_SIZE_RULES | {"TRT368"}
#: Rules whose rewrite fixes only a graph that fails to run on an empty slice in a loop over shifted columns
#: (TRT369's cost volume: every plane at full width).
EMPTY_SLICE_RULES = frozenset({"TRT369"})
#: Rules matched only to a node of operands of two dtypes made at their line (TRT370: an `Einsum` ONNX Runtime refuses
#: to load, timesformer-pytorch's rotary `einsum` of an int64 range and float frequencies; an `outer` whose values
#: first differ, or whose integer product a node refuses, TRELLIS's voxel `outer` at the `Cos` below it).
PROMOTION_RULES = frozenset({"TRT370"})
#: Rules matched only to values that first differ at their own line (TRT379: the exported `cdist` takes the
#: matrix-product form where eager mode computes the differences; e3nn's `radius_graph`, whose `Sqrt` differs at the
#: `torch.cdist` line, 3e-4 where identical points are 0 apart in eager mode).
DISTANCE_RULES = frozenset({"TRT379"})
#: Rules whose rewrite keeps the TorchScript exporter from rewriting a constant the whole graph shares (TRT373: a
#: `repeat_interleave` along a negative axis adds the rank to its axis constant in place, so every other `-1` of the
#: graph changes): the node refused, or the line whose values first differ, is any that used the constant, in any
#: file (snac's snake `reshape(b, c, -1)` and rotary `cat(dim=-1)`, lines and files away from its quantizer's
#: `repeat_interleave(self.stride, dim=-1)`).
SHARED_CONSTANT_RULES = frozenset({"TRT373"})
#: Rules whose finding is a ``state_dict`` override that adds a value that is no tensor (TRT377): the TorchScript
#: exporter calls ``state_dict(keep_vars=True)`` itself and fails detaching that value after the override returned,
#: so its ``AttributeError: '<type>' object has no attribute 'detach'`` names no line of the model (neuraloperator's
#: ``BaseModel.state_dict``); matched to that failure wherever it is, and run by the export, not the forward.
STATE_DICT_RULES = frozenset({"TRT377"})
#: Rules whose finding makes a compiled function (TRT392's `torch.compile`): the TorchScript exporter stops where the
#: model calls it, in any file, with torch's words below; the compile may have run at import (a decorator) or once,
#: on the first call (AudioSeal's moshi `torch_compile_lazy`), not in every observed forward.
COMPILED_RULES = frozenset({"TRT392"})
_DYNAMO_OPTIMIZED = "dynamo-optimized function"
#: Rules whose finding is an autograd Function the TorchScript exporter cannot inline (TRT398's, whose `forward` calls
#: a scripted function): the export stops where the model first applies one, in any file (geffnet's activations,
#: called from a block of the user's network), with torch's words below; each such class of the file is its own
#: finding, matched to the failure wherever its `forward` ran in the observed run.
PYTHON_OP_RULES = frozenset({"TRT398"})
_PYTHON_OPERATOR = "Couldn't export Python operator"

#: Rules matched only to a node ONNX Runtime refuses: TRT371's negative axis in a ``Transpose`` permutation, at its
#: line or, where ONNX Runtime names a permutation it refuses, anywhere in the same file: ONNX Runtime's optimizer
#: merges consecutive transposes and names the merged node after the later one (pyniftireg's ``gaussian_smooth``:
#: the ``movedim(-1, 2 + axis)`` at ``filters.py:44`` merged with the next axis' ``movedim(2 + axis, -1)`` at ``:40``).
PERMUTATION_RULES = frozenset({"TRT371"})
_INVALID_PERMUTATION = "Invalid attribute perm"
#: ONNX Runtime's words where one node's type parameter is bound to two of its operands' types.
_MIXED_TYPES = "bound to different types"
#: ONNX Runtime's words where a node takes no integer input (``Type 'tensor(int32)' of input parameter (...) of
#: operator (Cos)``), and migrate's, after them, where that input was made.
_INTEGER_INPUT_MADE_AT = re.compile(r"Type 'tensor\(u?int\d+\)' of input parameter .*?; "
                                    + re.escape(REFUSED_INPUT_MADE_AT))
#: ... and where the refused input is a float one (TRT734's `torch.full` exported as a float `ConstantOfShape`).
_FLOAT_INPUT_MADE_AT = re.compile(r"Type 'tensor\((float|double|float16|bfloat16)\)' of input parameter .*?; "
                                  + re.escape(REFUSED_INPUT_MADE_AT))
#: ... where that float input passed through nodes that keep its type (a clamp, an index) after the line that
#: typed it (fairseq MMPT's `torch.full(inputs.shape, -100)` labels, clamped before a ``GatherElements``).
_FLOAT_INPUT_TYPED_AT = re.compile(r"Type 'tensor\((float|double|float16|bfloat16)\)' of input parameter .*?; "
                                   + re.escape(REFUSED_INPUT_TYPED_AT))
#: What a NaN becomes when cast to int64, as ONNX Runtime prints the index it refuses.
_NAN_INDEX = "-9223372036854775808"
#: The verifier's words where the graph's output is NaN and eager mode's is not (``verify/compare.py``).
_NAN_WHERE_FINITE = "position(s) where the original is finite"


def _integer_input_made_in(problem: Problem, span: Span, pattern: re.Pattern[str] | None = None) -> bool:
    """Is ``problem`` a node ONNX Runtime refuses for an integer input (or one ``pattern`` describes) that was made
    within ``span``?"""
    message = problem.message or ""
    made = (pattern or _INTEGER_INPUT_MADE_AT).search(message)
    if made is None:
        return False
    at = re.match(r"(?P<path>.*?):(?P<line>\d+)", message[made.end():])
    return at is not None and span.has_line(norm(at["path"]), int(at["line"]))


def _zero_size_refusal(message: str) -> bool:
    """Does ONNX Runtime's refusal say that a ``Reshape`` met a run-time 0 it read as "copy"?"""
    return _ZERO_COPY in message or ("Reshape" in message and _ZERO_REQUESTED.search(message) is not None)


def _empty_axis(problems: list[Problem]) -> str:
    """What a graph refused at a ``Reshape`` given a run-time 0 means, for a finding that has no fix there."""
    if not any(p.kind == "unfaithful" and p.op == FAILS_TO_RUN and _ZERO_COPY in (p.message or "") for p in problems):
        return ""
    return ("; the refused node is a Reshape given a size that is 0 at run time, which ONNX reads as \"copy the "
            "input's size\" (allowzero=0): the tensor this line views or writes is empty at some input sizes (a "
            "slice past the end of an axis); do it so that nothing is empty there (compute each part at its full "
            "size, zero what lies outside with a mask and `torch.stack`/`torch.cat` the parts; TRT369 does this for "
            "a cost volume written over shifted columns), or declare the axis static")


def describe(problems: list[Problem], path: str | None = None) -> str:
    """The located problems in a few words; where ``path`` (the fix's file) is given, a problem in another file is
    placed by file and line (TRT373's shared constant breaks nodes in files other than its own)."""
    parts: list[str] = []
    for p in problems:
        where = f" at line {p.line}" if p.line else ""
        if where and path is not None and p.path is not None and norm(p.path) != norm(path):
            where = f" at {Path(p.path).name}:{p.line}"
        if p.kind == "hostile":
            parts.append(f"{p.op} node{where} ({p.severity})")
        elif p.kind == "baked" and p.message.endswith((GUARD_NOTE, WARN_GUARD_NOTE, CHECK_CALL_NOTE)):
            parts.append(f"value read in a check{where}, which the exported graph drops (warning)")
        elif p.kind == "baked" and p.message.endswith(CONSTANT_NOTE):
            parts.append(f"value of the model's own state read{where}, the same for every input (warning)")
        elif p.kind == "baked" and p.message.endswith(INPUT_FREE_NOTE):
            parts.append(f"value computed from no input read{where}, the same for every input (warning)")
        elif p.kind == "baked" and p.message.endswith(CONSTANT_DATA_NOTE):
            parts.append(f"constant tensor of literals or the model's own values built{where}, the same for every "
                         "input (warning)")
        elif p.kind == "baked" and p.message.endswith(CONFIGURATION_NOTE):
            parts.append(f"value of a tensor built from configuration read{where}, the same for every input (warning)")
        elif p.kind == "baked":
            parts.append(f"value baked in{where}")
        elif p.kind == "state":
            parts.append(f"{p.message}{where}")
        elif p.kind == "undefined":
            parts.append(f"a write that read memory it overwrote in the recorded run{where} ({p.severity}): eager "
                         "PyTorch leaves its result undefined, and the graph writes the source as it was")
        elif p.kind == "unfaithful" and p.op == FAILS_TO_RUN and p.line:
            parts.append(f"the {p.exporter or ''} graph fails to run{where}".replace("  ", " "))
        elif p.kind == "unfaithful":
            parts.append(f"the {p.exporter or ''} graph computes other values than the model".replace("  ", " "))
        else:
            parts.append(f"{p.exporter or 'the'} export failed{where}")
    unique = list(dict.fromkeys(parts))
    return "; ".join(unique[:3]) + ("; ..." if len(unique) > 3 else "")


def assumption(rule: str) -> str:
    """What ``rule``'s unsafe fix assumes, in its metadata's words, and where the ways it can
    fail are listed: a proof that rests on the assumption states it."""
    from trtcodemod.registry import rule_by_id

    info = rule_by_id(rule)
    text = info.assumption if info is not None else ""
    return f"{text} (how it can fail: `trtcodemod explain {rule}`)" if text else f"see `trtcodemod explain {rule}`"


def decide(finding: Any, problems: Iterable[Problem], facts: Facts, unsafe: bool,
           also: Iterable[Problem] = ()) -> Decision:
    """One finding's decision, with the located problems it addresses (and ``also``: those a finding of the same
    rule in the same file addresses, where the rule stops the export at every call) and the proof."""
    from trtcodemod.registry import rule_by_id

    hits = [p for p in problems if matches(p, finding)]
    hits += [p for p in also if not any(p is h for h in hits)]
    if finding.rule not in STATE_DICT_RULES | COMPILED_RULES and not facts.ran(finding.path, finding.line,
                                                                                finding.end_line):
        # The eager run never reached it; a node of the exported graph made at its lines, or the
        # export failing there, says the export did (code behind `torch.jit.is_tracing()` or
        # `torch.onnx.is_in_onnx_export()`: kornia's, torchvision's and smp's export-only branches):
        # it is on the exported path after all. So does a TracerWarning the trace raised at the finding's
        # own lines (the DETR family's `_onnx_nested_tensor_from_tensor_list`, called only while tracing,
        # iterating its batch tensor).
        hits = [p for p in hits if p.path is not None and (
            p.kind == "hostile" or p.kind == "export_failure" and _span(finding).has_line(p.path, p.line or 0)
            or p.op == "(traced constant)" and p.exporter is not None
            and _span(finding).has_line(p.path, p.line or 0))]
        if not hits:
            return Decision(finding, INFO, reason="never ran in the observed forwards (not on the exported path)")
    if not hits:
        return Decision(finding, INFO, reason="no hostile node, baked value or export failure comes from this line")
    located = describe(hits, finding.path if finding.rule in SHARED_CONSTANT_RULES else None)
    if finding.rule in STATE_DICT_RULES:
        # The failure names no line: the override that added the value is where it comes from.
        located += f" (detaching the value the `state_dict` override stores at {finding.path}:{finding.line})"
    if all(p.kind == "state" and SCRATCH_TAIL in p.message for p in hits):
        # Scratch state (TRT703): every observed call wrote the attribute before it read it, so the graph bakes
        # nothing of it across calls; information, the graph's real cause (if any) is located elsewhere.
        return Decision(finding, INFO, reason=located, problems=hits)
    safety = finding.fix.value
    if safety == "none":
        # A construct that only shows where the values first differ (TRT375's write through a view, lines above the
        # node that differs) is named at its own line too: that is where the manual step is taken.
        at = "" if finding.rule not in WRONG_VALUE_RULES or all(p.path is None or _span(finding).has_line(norm(p.path), p.line or 0) for p in hits) else \
            f" (at {finding.path}:{finding.line})"
        return Decision(finding, REMAINS,
                        reason=f"{located}; no automatic fix{at}: {finding.message}{_empty_axis(hits)}", problems=hits)
    # What the rule's own analysis adds (TRT704: whether the call graph lets an observation
    # speak for every caller, or why the fix keeps the original for what the run never saw).
    evidence = getattr(finding.edit, "evidence", "")
    if safety == "safe":
        return Decision(finding, APPLY, proof=f"safe fix{f' ({evidence})' if evidence else ''}; fixes {located}",
                        problems=hits)
    info = rule_by_id(finding.rule)
    fact = prove(info, Observation(facts, _span(finding), hits), finding.edit)
    if fact:
        return Decision(finding, APPLY, proof=f"{fact}{f', and {evidence}' if evidence else ''}; fixes {located}",
                        problems=hits)
    if unsafe:
        return Decision(finding, APPLY, proof=f"--unsafe (assumption not observed: {assumption(finding.rule)}); "
                                              f"fixes {located}", problems=hits)
    if all(p.kind == "baked" and p.severity == "warning" and STEADY in p.message for p in hits):
        # The trace baked the same numbers at two sizes while its graph changed elsewhere (a class
        # count): nothing here follows the sizes, so no assumption is worth a verification. (A bake
        # only judged by the same graph is still tried: two points are weaker evidence than that.)
        return Decision(finding, INFO, reason=f"{located}: a warning only, the same number at every traced size",
                        problems=hits)
    if prover_of(info, finding.edit) is None:
        # Nothing observable decides the assumption, but the verification can test it on every
        # input set: a candidate, reverted (and named) when the rewritten model differs.
        return Decision(finding, APPLY, proof=f"candidate: kept only if verified equivalent (its assumption cannot "
                                              f"be observed: {assumption(finding.rule)}); fixes {located}",
                        problems=hits, candidate=True)
    # A form of a fix with its own prover says in its message what would prove it (and the manual step).
    own = f": {finding.message}" if getattr(finding.edit, "proof", None) is not None else ""
    return Decision(finding, REMAINS, reason=f"{located}; unsafe fix not applied (no observation covers its "
                                             f"assumption; --unsafe applies it){own}", problems=hits)


def _with_companions(made: list[Decision], applied: list[Decision], facts: Facts, unsafe: bool) -> list[Decision]:
    """``made``, each finding of a :data:`COMPANION_OF` rule that ran and addresses nothing located planned with
    its companion's applied fix (the first such), as that fix's candidate is: verified together."""
    out = []
    for decision in made:
        lead = _lead_of(decision, made, applied)
        finding = decision.finding
        if lead is None or decision.action != INFO or decision.problems or finding.fix.value == "none" \
                or not facts.ran(finding.path, finding.line, finding.end_line):
            out.append(decision)
            continue
        where = f"{lead.finding.rule} at {Path(lead.finding.path).name}:{lead.finding.line}"
        if finding.fix.value == "safe":
            out.append(Decision(finding, APPLY, proof=f"safe fix; goes with {where}", problems=list(lead.problems)))
            continue
        proof = (f"--unsafe (assumption not observed: {assumption(finding.rule)}); goes with {where}" if unsafe else
                 f"candidate: kept only if verified equivalent, with {where} (its assumption cannot be observed: "
                 f"{assumption(finding.rule)})")
        out.append(Decision(finding, APPLY, proof=proof, problems=list(lead.problems), candidate=not unsafe))
    return out


#: rule -> the rule whose unlocated findings in the same function go with its applied fix: a pooling TRT395 takes
#: needs every `int()` of a size its window and stride are made of kept traced (PSPNet's `k_sizes` and `strides`,
#: two lines of `int(h / p)`; the trace warns at one), or the graph pools a traced window at a baked stride.
PULLS_IN = {"TRT395": "TRT712"}


def _pulled_in(made: list[Decision], facts: Facts, unsafe: bool) -> list[Decision]:
    """``made``, each unlocated finding of a :data:`PULLS_IN` rule planned with the applied fix of the rule that
    pulls it in, in the same function (verified together)."""
    out = list(made)
    for lead in made:
        pulled = PULLS_IN.get(lead.finding.rule)
        if pulled is None or lead.action != APPLY:
            continue
        from .module_calls import function_lines

        span = function_lines(lead.finding.path, lead.finding.line)
        if span is None:
            continue
        where = f"{lead.finding.rule} at {Path(lead.finding.path).name}:{lead.finding.line}"
        for i, decision in enumerate(out):
            finding = decision.finding
            if finding.rule != pulled or decision.action != INFO or decision.problems \
                    or finding.fix.value == "none" or norm(finding.path) != norm(lead.finding.path) \
                    or not span[0] <= finding.line <= span[1] or not facts.ran(finding.path, finding.line,
                                                                                finding.end_line):
                continue
            if finding.fix.value == "safe":
                out[i] = Decision(finding, APPLY, proof=f"safe fix; goes with {where}", problems=list(lead.problems))
                continue
            proof = (f"--unsafe (assumption not observed: {assumption(finding.rule)}); goes with {where}" if unsafe
                     else f"candidate: kept only if verified equivalent, with {where} (its assumption cannot be "
                          f"observed: {assumption(finding.rule)})")
            out[i] = Decision(finding, APPLY, proof=proof, problems=list(lead.problems), candidate=not unsafe)
    return out


def _stopped_by_rule(findings: list[Any], problems: list[Problem]) -> dict[tuple[str, str, str], list[Problem]]:
    """:func:`_stop_key` -> the export failures one of the rule's findings in that file is at, for the rules of
    :data:`STOPS_AT_EVERY_CALL` whose error the failure gives (or, for :data:`BAKES_AT_EVERY_CALL`, whose bake the
    second trace locates), and the graphs ONNX Runtime refuses at a finding of :data:`FAILS_AT_EVERY_WRITE`."""
    out: dict[tuple[str, str, str], list[Problem]] = {}
    for finding in findings:
        key = _stop_key(finding)
        if key is None:
            continue
        pattern = _stops_every_call(finding)
        for p in problems:
            if not _at(p, finding):
                continue
            if pattern is not None:
                hit = p.kind == "export_failure" and p.rule is None and pattern.search(p.message or "") \
                    or finding.rule in BAKES_AT_EVERY_CALL and p.op == RETRACED_GRAPH
            else:
                hit = _refused_for(p, finding, key[2])
            if hit:
                found = out.setdefault(key, [])
                if not any(p is q for q in found):
                    found.append(p)
    return out


def _hold_back_candidates(decisions: list[Decision], applied: list[Decision]) -> list[Decision]:
    """``decisions``, with each candidate held back (information) whose problems are

    * addressed by a safe fix decided with it: the safe fix goes first (a NonZero at ``a[m] =
      b[m]`` is TRT201's and TRT202's), and the candidate is tried in a later round only if its
      problems are still located there;
    * or warnings at the lines of a safe fix a round already applied (``applied``): what that
      fix's own code brings (TRT201's helper keeps a NonZero, on a float mask) is its stated cost.
    """
    done = {d.key for d in applied}
    safe = [d for d in decisions if d.action == APPLY and not d.candidate and d.finding.fix.value == "safe"
            and d.key not in done]
    applied_safe = [d for d in applied if d.finding.fix.value == "safe"]
    out = []
    for d in decisions:
        if d.action == APPLY and d.candidate and d.problems:
            # A safe fix that needs this one (PULLS_IN: TRT395's pooling of TRT712's traced window) goes with it.
            first = [{s.finding.rule for s in safe if any(p is q for q in s.problems)
                      and PULLS_IN.get(s.finding.rule) != d.finding.rule} for p in d.problems]
            brought = [_safe_fixes_at(p, applied_safe) for p in d.problems]
            if all(first):
                why = f"the safe fix of {', '.join(sorted(set().union(*first)))} addresses it first"
            elif all(brought):
                why = f"a warning the applied safe fix of {', '.join(sorted(set().union(*brought)))} brings at its own line"
            else:
                why = ""
            if why:
                d = replace(d, action=INFO, candidate=False, reason=f"{describe(d.problems)}: {why}")
        out.append(d)
    return out


def _second_choices_held(decisions: list[Decision], reverted: dict[tuple[str, str, int, int], str]) -> list[Decision]:
    """``decisions``, with each of :data:`CHOICES` held back (information) while an earlier one at the same test is
    planned and not taken back: they are alternatives, tried one after the other."""
    planned: dict[tuple[str, int, int], list[Decision]] = {}
    for d in decisions:
        if d.action == APPLY and d.finding.rule in CHOICES and d.key not in reverted:
            planned.setdefault((d.key[0], d.key[2], d.key[3]), []).append(d)
    out = []
    for d in decisions:
        rivals = planned.get((d.key[0], d.key[2], d.key[3]), []) if d.finding.rule in CHOICES else []
        lead = min(rivals, key=lambda r: CHOICES.index(r.finding.rule), default=None)
        if d.action == APPLY and lead is not None and lead is not d:
            d = replace(d, action=INFO, candidate=False,
                        reason=f"{describe(d.problems)}: tried only if {lead.finding.rule}'s fix at the same test is "
                               "taken back")
        elif d.action == APPLY and d.finding.rule in TRACED_BRANCH_RULES:
            d = replace(d, action=INFO, candidate=False, reason=f"{describe(d.problems)}: {LAST_RESORT}")
        out.append(d)
    return out


def _safe_fixes_at(problem: Problem, fixes: list[Decision]) -> set[str]:
    """The rules of ``fixes`` whose span holds ``problem``, a warning (nothing for an error)."""
    if problem.severity == "error" or problem.path is None or problem.line is None:
        return set()
    return {d.finding.rule for d in fixes if _span(d.finding).has_line(problem.path, problem.line)}


def _superseding(finding: Any, fixes: list[Decision]) -> Decision | None:
    """The fix of ``fixes`` whose span holds ``finding`` and makes it no problem (:data:`SUPERSEDES`)."""
    return next((d for d in fixes if finding.rule in SUPERSEDES.get(d.finding.rule, ())
                 and _span(d.finding).has_line(norm(finding.path), finding.line)
                 or finding.rule in SUPERSEDES_AT_TEST.get(d.finding.rule, ())
                 and norm(finding.path) == norm(d.finding.path) and finding.line == d.finding.line), None)


@dataclass
class Plan:
    """Decisions for every finding, and the fixes reverted because they broke equivalence."""

    decisions: dict[tuple[str, str, int, int], Decision] = field(default_factory=dict)
    reverted: dict[tuple[str, str, int, int], str] = field(default_factory=dict)
    #: Alternatives of :data:`CHOICES` held back behind an earlier one at the same test, as they were decided.
    held: dict[tuple[str, str, int, int], Decision] = field(default_factory=dict)
    #: Whether the :data:`TRACED_BRANCH_RULES` fixes may be tried (:meth:`try_last_resort`).
    last_resort: bool = False

    def update(self, findings: Iterable[Any], problems: list[Problem], facts: Facts, unsafe: bool) -> bool:
        """Decide again with more located problems; True when a new fix is planned."""
        changed = False
        rank = {INFO: 0, REMAINS: 1, APPLY: 2}
        findings = list(findings)
        follow_ups = self._follow_ups(findings, problems)
        stopped = _stopped_by_rule(findings, problems)
        made = []
        for finding in [*findings, *follow_ups]:
            key = _stop_key(finding)
            also = stopped.get(key, ()) if key is not None else ()
            decision = decide(finding, problems, facts, unsafe, also)
            decision.follow_up = any(finding is f for f in follow_ups)
            made.append(decision)
        made = _pulled_in(_with_companions(made, self.applied, facts, unsafe), facts, unsafe)
        held = _second_choices_held(made, self.reverted)
        self.held.update({d.key: d for d, h in zip(made, held) if h is not d and d.key not in self.decisions})
        made = held
        for decision in _hold_back_candidates(made, self.applied):
            if decision.key in self.reverted:
                continue
            old = self.decisions.get(decision.key)
            if old is not None and rank[old.action] >= rank[decision.action]:
                continue  # an applied fix stays applied; what a later round no longer sees stays known
            self.decisions[decision.key] = decision
            changed = changed or decision.action == APPLY
        return changed

    def _follow_ups(self, findings: list[Any], problems: list[Problem]) -> list[Any]:
        """Findings for hostile nodes located in code a planned fix wrote, which no finding
        of the original file addresses, or only findings already applied: the rule the graph
        check names, at that line."""
        from trtcodemod.registry import rule_by_id
        from trtcodemod.rules import Finding

        out: list[Any] = []
        for problem in problems:
            if problem.kind != "hostile" or problem.severity != "error" or not problem.rule or problem.path is None \
                    or problem.line is None:
                continue  # a warning the fix's own code brings (its NonZero) is the fix's stated cost
            matched = [f for f in findings if matches(problem, f)]
            applied = {d.key for d in self.applied}
            if any((norm(f.path), f.rule, f.line, f.column) not in applied for f in matched):
                continue
            # Every finding that addresses it is applied and the node is still there: the code a fix wrote on the
            # line brings it back (TRT711's float64 NumPy row, made a tensor, beside the range TRT701 made float32:
            # a Cast where they meet). The rule the graph check names takes it in the rewritten code.
            owner = next((d for d in self.applied if not d.follow_up
                          and _span(d.finding).has_line(problem.path, problem.line)), None)
            info = rule_by_id(problem.rule)
            if owner is None or info is None or info.fix.value == "none":
                continue
            message = (f"{problem.op} in the code that {owner.finding.rule}'s fix wrote at this line: "
                       f"{info.summary}")
            out.append(Finding(info.id, info.name, message, owner.finding.path, problem.line, 0, problem.line, 0,
                               info.fix))
        return out

    def leading_alternatives(self) -> list[Decision]:
        """The applied fixes an alternative of :data:`CHOICES` is held back behind (at the same test)."""
        places = {(key[0], key[2], key[3]) for key in self.held}
        return [d for d in self.applied if d.finding.rule in CHOICES and (d.key[0], d.key[2], d.key[3]) in places]

    def try_last_resort(self) -> bool:
        """Let the :data:`TRACED_BRANCH_RULES` fixes in (the run's other fixes left the model unfaithful); True when
        one is planned."""
        self.last_resort = True
        return self.release_held()

    def release_held(self) -> bool:
        """Plan each held alternative whose earlier choices at its test are all taken back (a
        :data:`TRACED_BRANCH_RULES` one only once :meth:`try_last_resort` let them in); True when one is."""
        released = False
        for key, decision in list(self.held.items()):
            if decision.finding.rule in TRACED_BRANCH_RULES and not self.last_resort:
                continue
            place = (key[0], key[2], key[3])
            earlier = CHOICES[:CHOICES.index(decision.finding.rule)]
            if any((d.key[0], d.key[2], d.key[3]) == place and d.finding.rule in earlier and d.action == APPLY
                   and d.key not in self.reverted for d in self.decisions.values()):
                continue
            del self.held[key]
            if key not in self.reverted:
                self.decisions[key] = decision
                released = True
        return released

    @property
    def applied(self) -> list[Decision]:
        """The fixes to write: each planned fix not reverted, less one inside another planned fix that makes
        it no problem (:data:`SUPERSEDES`: a safe TRT203 at a line of the loop TRT348 computes at once while
        tracing, planned for a node the loop's unrolled graph refuses on a smaller input). Where that other
        fix is reverted, the one inside it is written again."""
        live = [d for d in self.decisions.values() if d.action == APPLY and d.key not in self.reverted]
        return [d for d in live if _superseding(d.finding, live) is None]

    def by_action(self, action: str) -> list[Decision]:
        live = [d for d in self.decisions.values() if d.key not in self.reverted]
        covered = {d.key: owner for d in live if d.action in (REMAINS, APPLY)
                   for owner in [self.superseded_by(d.finding)] if owner is not None}
        out = [d for d in live if d.action == action and d.key not in covered]
        if action == INFO:
            out += [replace(d, action=INFO, reason=f"inside the {owner.finding.rule} fix at line {owner.finding.line}"
                                                   f" ({SUPERSEDED_BECAUSE[owner.finding.rule]}): no longer a problem")
                    for d in live for owner in [covered.get(d.key)] if owner is not None]
        return out

    def superseded_by(self, finding: Any) -> Decision | None:
        """The applied fix whose span holds ``finding`` and makes it no problem (:data:`SUPERSEDES`)."""
        return _superseding(finding, self.applied)

    def revert(self, rules: Iterable[str], why: str) -> bool:
        """Take back every applied fix of ``rules``; True when something was taken back."""
        wanted = set(rules)
        hit = [d for d in self.applied if d.finding.rule in wanted]
        for d in hit:
            self.reverted[d.key] = why
        return bool(hit)

    def allows(self) -> Callable[[Any], bool]:
        """The engine's ``Options.allow``: exactly the planned fixes (first-pass positions)."""
        keys = {d.key for d in self.applied}
        return lambda f: (norm(f.path), f.rule, f.line, f.column) in keys

    def follow_ups(self) -> Callable[[Any], bool]:
        """The engine's ``Options.follow_up``: the planned fixes of code other fixes wrote, by the
        line of the original file the rewritten code stands at."""
        lines = {d.key[:3] for d in self.applied if d.follow_up}
        return lambda f: any((norm(f.path), f.rule, line) in lines for line in range(f.line, f.end_line + 1))
