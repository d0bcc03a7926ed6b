"""``F.local_response_norm`` / ``nn.LocalResponseNorm`` → a helper without the squeeze ``If`` (TRT405).

torch's ``local_response_norm`` pools the squared input over a window of channels on an added
axis of size 1 and drops that axis with ``squeeze(1)``. After the pooling the TorchScript exporter
no longer knows the axis is 1, so the squeeze becomes an ONNX ``If`` whose branches differ in rank:
TensorRT refuses the graph. The squeeze is inside torch, so TRT401 cannot reach it; this rule
rewrites the call (or the module) into ``_trt_local_response_norm``
(``trtcodemod/helpers/normalization.py``), ``F.local_response_norm`` itself outside an export.

Matching goes through the file's imports (``F.local_response_norm``,
``torch.nn.functional.local_response_norm``, ``from torch.nn import LocalResponseNorm as LRN``);
a project's own ``local_response_norm`` never matches.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_local_response_norm"
MODULE_HELPER = "_TrtLocalResponseNorm"

_FUNCTION = ("torch.nn.functional.local_response_norm",)
_MODULES = ("torch.nn.LocalResponseNorm", "torch.nn.modules.LocalResponseNorm",
            "torch.nn.modules.normalization.LocalResponseNorm")


class LocalResponseNorm(Rule):
    needs_text = (b"local_response_norm", b"LocalResponseNorm")
    info = RuleInfo(
        id="TRT405",
        name="local-response-norm",
        summary="`F.local_response_norm` / `nn.LocalResponseNorm` export a squeeze of their pooled axis as an ONNX "
                "`If` TensorRT refuses; take the axis by index",
        doc="""\
What it finds: calls of `F.local_response_norm(x, size, alpha, beta, k)` and constructions of
`nn.LocalResponseNorm(size, alpha, beta, k)`, under any import alias (descriptor networks
normalise their output with it: kornia's SOSNet and HyNet, `nn.LocalResponseNorm(256,
alpha=256.0, beta=0.5, k=0.0)`, an L2 normalisation; AlexNet-style classifiers).

Why it hurts: torch computes the window average with `avg_pool2d`/`avg_pool3d` on an added axis
of size 1 and drops that axis with `squeeze(1)`. After the pooling the TorchScript exporter does
not know the axis is 1 (its shape inference loses it), so the squeeze exports as an ONNX `If`
that tests the axis at run time: a Squeeze in one branch, an Identity in the other, outputs of
different rank. TensorRT needs both branches of an `If` to give the same rank and rejects the
graph. It happens for every input rank (3-D too) and with a static shape as well. The squeeze is
in torch's code, so rewriting the user's `squeeze` calls (TRT401) cannot reach it; `migrate`
places the `If` at the user's call (or, for the module, where forward calls it) and names this
rule from the node's stack. torch also reads `input.numel() == 0` as a Python bool there (a
TracerWarning, the branch baked). The dynamo exporter emits a plain `Squeeze` (no `If`).

The rewrite: `F.local_response_norm(...)` → `_trt_local_response_norm(...)`, the arguments
unchanged (the helper has torch's signature). Outside `torch.onnx.export` the helper is
`F.local_response_norm` itself. While exporting a plain tensor of three or more axes it runs
torch's steps with two changes that leave every value as it was: the pooled axis, of size 1, is
taken with `[:, 0]` (a Gather of a constant index, the same rank in every case), and emptiness
is read from `input.nbytes` (a Python int while tracing) instead of `numel()` (a traced value),
so no TracerWarning either; an empty input is returned itself, as torch returns it. The module
`nn.LocalResponseNorm(...)` → `_TrtLocalResponseNorm(...)`, a subclass (same constructor,
attributes `size`/`alpha`/`beta`/`k`, repr, no parameters or buffers, so `state_dict` and
`nn.Sequential` indices are unchanged) whose forward calls the helper.

Fix safety: safe for `F.local_response_norm`: eager mode, `torch.jit.script`, `torch.fx`,
`torch.compile` and `torch.export` run `F.local_response_norm` itself (the same values, dtype,
strides, gradients, errors, `__torch_function__` overrides, the input itself returned when
empty), for one Python call and a few flag checks more; the exported graph computes torch's
operations with an index in place of the squeeze, the same values (NaN/inf, zeros, negative
inputs), without the `If`. Unsafe for `nn.LocalResponseNorm`, as for TRT501's padding module:
nothing tells the two classes apart except that `type(m) is nn.LocalResponseNorm` is false, the
model prints `_TrtLocalResponseNorm(...)`, and `torch.fx` no longer keeps the module as one leaf
(torch's own modules are leaves; a class of the user's file is traced into), so code that
matches modules by type, repr or fx graph sees another model. `migrate` tries it as a candidate
and keeps it only when the rewritten model is equivalent on every input set.""",
        fix=Safety.SAFE,
        assumption="nothing in the program tells `nn.LocalResponseNorm` from its subclass "
                   "`_TrtLocalResponseNorm` (by `type(m) is`, the repr or an fx graph's leaf modules)",
        fails_when=(
            "code compares `type(module) is nn.LocalResponseNorm` or a module's class name",
            "an fx-traced graph is expected to keep the module as one `call_module` node",
        ),
        examples=(
            Example("y = F.local_response_norm(x, 5, alpha=1e-4, beta=0.75, k=2.0)\n",
                    "y = _trt_local_response_norm(x, 5, alpha=1e-4, beta=0.75, k=2.0)\n"),
            Example("self.desc_norm = nn.LocalResponseNorm(256, alpha=256.0, beta=0.5, k=0.0)\n",
                    "self.desc_norm = _TrtLocalResponseNorm(256, alpha=256.0, beta=0.5, k=0.0)\n", unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.local_response_norm.html",
            "https://pytorch.org/docs/stable/generated/torch.nn.LocalResponseNorm.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, *_FUNCTION):
            self.report(node, "F.local_response_norm squeezes its pooled channel axis, which the TorchScript export "
                              "turns into an ONNX `If` of two ranks that TensorRT rejects; "
                              f"`{HELPER}` takes that axis by index while exporting",
                        Fix({node: node.with_changes(func=cst.Name(HELPER))}, helpers=(HELPER,)))
        elif self.context.refers_to(node.func, *_MODULES):
            self.report(node, "nn.LocalResponseNorm squeezes its pooled channel axis, which the TorchScript export "
                              "turns into an ONNX `If` of two ranks that TensorRT rejects where forward calls it; "
                              f"`{MODULE_HELPER}` takes that axis by index while exporting",
                        Fix({node: node.with_changes(func=cst.Name(MODULE_HELPER))}, helpers=(MODULE_HELPER,),
                            safety=Safety.UNSAFE))


RULES = (LocalResponseNorm,)
