"""``torch.nn.utils.rnn.pad_sequence`` (TRT378): the TorchScript exporter has no symbolic for it.

``torch.nn.utils.rnn.pad_sequence(items, batch_first=True, padding_value=v)`` (also ``nn.utils.rnn.pad_sequence``
or the imported name): the per-utterance length regulator of FastSpeech 2 pads the list of upsampled items
(speechbrain 1.1.2 ``lobes/models/FastSpeech2.py:853``), as do packed-sequence models and CTC heads. The TorchScript
exporter stops at ``aten::pad_sequence``. The rewrite calls an inserted helper
(``trtcodemod/helpers/sequences.py``) that is torch's call outside the TorchScript exporter's trace and, while it
traces, gathers the same tensor from the concatenated items with fixed operators, the lengths kept as traced sizes.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args, helper_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_pad_sequence"
RULE = "TRT378"
QUALIFIED = ("torch.nn.utils.rnn.pad_sequence",)


class PadSequence(Rule):
    needs_text = spelled("pad_sequence")
    info = RuleInfo(
        id=RULE,
        name="pad-sequence",
        summary="`torch.nn.utils.rnn.pad_sequence(items, ...)` (a length regulator's padded batch) has no "
                "TorchScript symbolic, so the export stops; gather the padded tensor from the concatenated items "
                "while exporting",
        doc="""\
What it finds: `torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value)` however the file imports it
(`nn.utils.rnn.pad_sequence`, `from torch.nn.utils.rnn import pad_sequence`), its arguments by position or keyword.
speechbrain 1.1.2's FastSpeech 2 `upsample` pads the items it repeated by their durations
(`lobes/models/FastSpeech2.py:853`: `torch.nn.utils.rnn.pad_sequence(upsampled_mels, batch_first=True,
padding_value=padding_value)`). Not taken: a call with `padding_side=` (torch 2.6+) or unpacked arguments.

Why it hurts: the TorchScript exporter has no symbolic for `aten::pad_sequence` ("Exporting the operator
'aten::pad_sequence' to ONNX opset version 17 is not supported"), so no ONNX file is written at all.

The rewrite: `torch.nn.utils.rnn.pad_sequence(mels, batch_first=True, padding_value=0.0)` →
`_trt_pad_sequence(mels, True, 0.0)` (the defaults `False` and `0.0` written out where omitted), an inserted
helper. Outside the TorchScript exporter's trace (eager mode, `torch.jit.trace` alone, `torch.fx`, `torch.compile`,
`torch.export` and the dynamo exporter) it is torch's `pad_sequence` itself; scripted, the same call. While
`torch.onnx.export` traces a non-empty list or tuple of floating-point tensors of one dtype, device and rank with a
bool `batch_first` and a Python number for `padding_value`, it first runs torch's call on the example (its result
feeds nothing, so the exporter drops its nodes; it refuses trailing sizes that differ) and then computes, with no
Python decision on a traced size (no TracerWarning, nothing of the example's baked): the items concatenated along
their first axis with one row of the padding value after them (Concat, Pad: `flat`, `total + 1` rows); each item's
length its traced size (`torch._shape_as_tensor(item)[0]`, so the graph follows the lengths it is given); each
item's start the sum of the lengths before it (a triangle of ones, summed in int64); for item `i` and position
`p < max(lengths)` the row `flat[start_i + p]` where `p < length_i`, else the padding row; transposed for
`batch_first=False`. Anything else (integer items, mixed dtypes or ranks, an empty list) takes torch's
call, which the export stops at as before.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run torch's call
(values, dtype, shape, gradients and exceptions the original's). The export runs torch's call on the example
first, so it stops where the original's would have (mismatched trailing sizes). The exported graph holds, for every
set of item lengths, the rows torch writes: the items' own values copied (a gather, exact for NaN and infinities
and -0.0), the padding value converted to the items' dtype by Pad as `fill_` converts it, the longest length the
number of rows (0 where every item is empty). The number of items is the list's, as in the original's trace: a
list built by a Python loop over the batch still has the example's number of items (see TRT358 and TRT704 for the
loops). Cost: `len(items)` × `max(lengths)` index entries and one Gather.

TensorRT versions: all (Concat, Pad, Range, Less, Where, ReduceMax, ReduceSum and Gather are parsed from 8.4).""",
        fix=Safety.SAFE,
        examples=(
            Example("import torch\n"
                    "mels = torch.nn.utils.rnn.pad_sequence(upsampled_mels, batch_first=True, padding_value=pad)\n",
                    "import torch\nmels = _trt_pad_sequence(upsampled_mels, True, pad)\n"),
            Example("from torch.nn.utils.rnn import pad_sequence\nys = pad_sequence(ys)\n",
                    "from torch.nn.utils.rnn import pad_sequence\nys = _trt_pad_sequence(ys, False, 0.0)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.pad_sequence.html",
            "https://github.com/speechbrain/speechbrain/blob/v1.1.2/speechbrain/lobes/models/FastSpeech2.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or self.context.refers_to(node.func, *QUALIFIED) is None:
            return
        if has_star_args(node) or len(node.args) > 3:
            return
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        if keywords - {"sequences", "batch_first", "padding_value"}:
            return  # `padding_side=`: left padding is another layout
        sequences = argument(node, 0, "sequences")
        if sequences is None:
            return
        batch_first = argument(node, 1, "batch_first")
        padding_value = argument(node, 2, "padding_value")
        call = helper_call(HELPER, as_argument(sequences.value),
                           as_argument(batch_first.value) if batch_first else cst.Name("False"),
                           as_argument(padding_value.value) if padding_value else cst.Float("0.0"))
        self.report(node, "`pad_sequence` has no TorchScript ONNX symbolic, so the export stops here; "
                    "`_trt_pad_sequence` gathers the same padded tensor from the concatenated items while exporting",
                    Fix({node: call}, helpers=(HELPER,)))


RULES = (PadSequence,)
