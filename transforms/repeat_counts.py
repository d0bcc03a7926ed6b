"""``repeat_interleave`` by a tensor of counts (TRT376): a length regulator the TorchScript export loops over sequences.

``torch.repeat_interleave(x, durations, dim=2)`` (also ``x.repeat_interleave(durations, dim=d)``, the axis by
position or keyword) where ``durations`` is a tensor: the per-token frame counts of a TTS length regulator
(speechbrain's unit HiFi-GAN, FastSpeech 2, FastPitch). The TorchScript exporter's symbolic for a tensor of counts
splits the input into a sequence and concatenates the repeated pieces in a loop (SplitToSequence, SequenceEmpty,
SequenceAt, SequenceInsert, ConcatFromSequence), none of which any TensorRT release parses. The rewrite calls an
inserted helper (``trtcodemod/helpers/interleave.py``) that is torch's call outside the TorchScript exporter's trace
and, while it traces, gathers the same rows by an index computed from the counts with Range, Mul, LessOrEqual,
ReduceSum and Gather.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args, helper_call, int_value, parenthesize
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import torch_operator_call
from trtcodemod.transforms._tensor_evidence import TensorEvidence

HELPER = "_trt_repeat_counts"
RULE = "TRT376"


class RepeatCounts(Rule):
    needs_text = spelled("repeat_interleave")
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id=RULE,
        name="repeat-counts",
        summary="`torch.repeat_interleave(x, durations, dim=d)` with a tensor of counts (a TTS length regulator) "
                "exports as a loop over ONNX sequences, which TensorRT never parses; gather by an index computed "
                "from the counts while exporting",
        doc="""\
What it finds: `torch.repeat_interleave(x, repeats, dim=d)` and `x.repeat_interleave(repeats, dim=d)` (the axis by
position or keyword) where `repeats` is a tensor: the code shows it (a cast such as `.long()`, a `.view(-1)` of a
tensor, a torch function's result, a local name assigned one of those), or, with a recorded run (`migrate`,
`check --facts`), the graph check located a sequence node at the call's lines. speechbrain 1.1.2's unit HiFi-GAN
writes `x = torch.repeat_interleave(x, dur_out.view(-1), dim=2)` (`lobes/models/HifiGAN.py:878`); FastSpeech 2's
`upsample` repeats each item's features by its durations (`lobes/models/FastSpeech2.py:848`). A call without an
axis (or `dim=None`) repeats the flattened input, and becomes the helper's call on `x.flatten()` along axis 0
(Kokoro's `torch.repeat_interleave(torch.arange(n), pred_dur)`, frame-to-token indices). Not taken: a count that is
an integer literal, `torch.repeat_interleave(repeats)` alone, a call with `output_size=` or unpacked arguments, and a
receiver that calls something (evaluated once either way, but left to the reader).

Why it hurts: the TorchScript exporter's `repeat_interleave` symbolic, for a tensor of counts whose values are not
constant, splits the input along the axis into an ONNX sequence and builds the output in a loop (SplitToSequence,
SequenceEmpty, SequenceAt, SequenceInsert, ConcatFromSequence). No TensorRT release parses a sequence operator, so
the engine does not build at the length regulator of every duration-based TTS model.

The rewrite: `torch.repeat_interleave(x, dur_out.view(-1), dim=2)` → `_trt_repeat_counts(x, dur_out.view(-1), 2)`,
an inserted helper. Outside the TorchScript exporter's trace (eager mode, `torch.jit.trace` alone, `torch.fx`,
`torch.compile`, `torch.export` and the dynamo exporter) it is `torch.repeat_interleave(x, repeats, dim=d)` itself;
scripted, the same call. While `torch.onnx.export` traces a 1-D integer tensor of counts along an axis within the
input's rank, it first runs torch's own call on the example (its result feeds nothing, so the exporter drops its
nodes) and then computes: `ends[j]`, the sum of the counts up to `j` (a triangle of ones times the counts, summed in
int64: TensorRT's CumSum takes floats only), and for each output position `p < repeats.sum()` the element
`index[p] = #{j : ends[j] <= p}`; the output is `x.index_select(d, index)`. Zeros among the counts skip their
element, counts that are all 0 give an empty axis, one element repeats alone, a single count repeats every element
(torch broadcasts it; the helper expands it over the axis), a negative axis is passed to `index_select` as it is.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run torch's call
(values, dtype, shape, gradients and exceptions the original's); anything but a 1-D integer tensor of counts (an
int, a float or 0-d tensor, an axis out of range) takes torch's call in the export too. The export runs torch's call
on the example first, so it stops where the original's stops (negative counts: "repeats can not be negative"; a
count per element that does not match the axis). The exported graph computes, for every input, the rows torch
computes for the same counts: the index is integer arithmetic, exact in int64 (a sum of counts that overflows int64
wraps in both). What an exported graph cannot do, neither graph does: raise at run time on negative counts or on a
count tensor whose length differs from the axis. Cost: the graph holds `len(repeats)`² and
`repeats.sum() * len(repeats)` comparisons (tokens by frames: a few million for a minute of speech).

TensorRT versions: all (Range, LessOrEqual, ReduceSum, Gather and Cast are parsed from 8.4).""",
        fix=Safety.SAFE,
        examples=(
            Example("dur_out = torch.clamp(torch.round(log_dur.exp() - 1), min=0).long()\n"
                    "x = torch.repeat_interleave(x, dur_out.view(-1), dim=2)\n",
                    "dur_out = torch.clamp(torch.round(log_dur.exp() - 1), min=0).long()\n"
                    "x = _trt_repeat_counts(x, dur_out.view(-1), 2)\n"),
            Example("mel = feats[i].repeat_interleave((pace * durs[i]).long(), dim=0)\n",
                    "mel = _trt_repeat_counts(feats[i], (pace * durs[i]).long(), 0)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.repeat_interleave.html",
            "https://github.com/speechbrain/speechbrain/blob/v1.1.2/speechbrain/lobes/models/HifiGAN.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._evidence: TensorEvidence = self.provider(TensorEvidence)
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("repeat_interleave",))
        if found is None or has_star_args(node):
            return
        _, tensor, first = found
        repeats = argument(node, first, "repeats")
        dim = argument(node, first + 1, "dim")
        if tensor is None or repeats is None:
            return  # `torch.repeat_interleave(repeats)`
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        if keywords - {"input", "repeats", "dim"} or len(node.args) > first + 2:
            return  # `output_size=`: torch then trusts the caller's total
        if int_value(repeats.value) is not None:
            return
        if type(tensor.value) is cst.Call and first == 0:
            return  # a receiver that calls something: left to the reader
        if not (self._evidence.evident(repeats.value) or self._observed.located(node, RULE)):
            return
        if dim is None or type(dim.value) is cst.Name and dim.value.value == "None":
            # No axis: torch repeats the flattened input (Kokoro's `torch.repeat_interleave(torch.arange(n), d)`).
            flat = cst.Call(func=cst.Attribute(value=parenthesize(as_argument(tensor.value)), attr=cst.Name("flatten")))
            call = helper_call(HELPER, flat, as_argument(repeats.value), cst.Integer("0"))
        else:
            call = helper_call(HELPER, as_argument(tensor.value), as_argument(repeats.value), as_argument(dim.value))
        self.report(node, "`repeat_interleave` by a tensor of counts exports as a loop over ONNX sequences "
                    "(SplitToSequence, ConcatFromSequence...), which TensorRT does not parse; `_trt_repeat_counts` "
                    "gathers the same rows by an index computed from the counts while exporting",
                    Fix({node: call}, helpers=(HELPER,)))


RULES = (RepeatCounts,)
