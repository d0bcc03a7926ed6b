"""Transposed convolutions called with ``output_size=`` (TRT356): the size the trace bakes kept in the graph.

``self.up = nn.ConvTranspose2d(...)`` called as ``self.up(x, output_size=skip.size())`` works out
an ``output_padding`` from the sizes in Python, which the TorchScript trace records as the
example's number. The construction becomes the helper subclass of
``trtcodemod/helpers/transposed.py`` (same constructor, state and repr), whose forward slices the
largest output to ``output_size`` while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_DIMS = (1, 2, 3)
#: qualified class -> helper subclass
_MODULES = {f"{prefix}.ConvTranspose{n}d": f"_TrtConvTranspose{n}d"
            for n in _DIMS for prefix in ("torch.nn", "torch.nn.modules.conv")}


def _sized_calls(module: cst.Module) -> set[str]:
    """Attributes ``X`` the file calls as ``self.X(x, output_size=...)`` or ``self.X(x, size)``."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if type(node) is not cst.Call or type(node.func) is not cst.Attribute:
            continue
        owner = node.func.value
        if type(owner) is not cst.Name or owner.value != "self":
            continue
        keyword = any(a.keyword is not None and a.keyword.value == "output_size" for a in node.args)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if keyword or len(positional) == 2:
            found.add(node.func.attr.value)
    return found


class TransposedOutputSize(Rule):
    needs_text = (b"output_size",)
    info = RuleInfo(
        id="TRT356",
        name="transposed-output-size",
        summary="`nn.ConvTranspose2d` called with `output_size=` exports with the traced example's output "
                "padding (TorchScript exporter); the size kept in the graph while exporting",
        doc="""\
What it finds: a transposed convolution module, `nn.ConvTranspose1d`, `nn.ConvTranspose2d` or
`nn.ConvTranspose3d`, built and stored as `self.X` where the same file calls `self.X(x,
output_size=...)` (or `self.X(x, size)`): decoders that upsample to the size of the encoder's map,
as ENet's upsampling bottleneck (`ext = self.ext_tconv1(ext, output_size=output_size)`) and its
last layer (`self.transposed_conv(x, output_size=input_size)`), davidtvs/PyTorch-ENet's
`models/enet.py`.

Why it hurts: the module's forward turns `output_size` into an `output_padding` in Python
(`_output_padding`: the size less the smallest output the input gives). The TorchScript exporter
(torch 2.13) records that number as the traced example's, with no warning at the call (only the
size check inside torch warns), so the graph's output has the example's padding at every size: at
a size where the padding differs (an odd map after a stride-2 layer) the output is a row short or
long, and the next Add or Concat with the skip branch fails in ONNX Runtime (ENet: "Attempting to
broadcast an axis by a dimension other than 1. 48 by 49"). The dynamo exporter keeps the size.

The rewrite: `nn.ConvTranspose2d(...)` → `_TrtConvTranspose2d(...)`, a subclass (same
constructor, parameters, state dict and repr). Its forward is torch's own, except while exporting
with an `output_size`: the transposed convolution with `output_padding = stride - 1` (the largest
`_output_padding` allows), narrowed on each spatial axis to the size `output_size` gives, a traced
value. A transposed convolution's output is a window of its full result that starts at `padding`;
a larger `output_padding` only extends the window at its end, so the first positions are the same
values (the graph's sum may round otherwise where the runtime orders it otherwise).

Fix safety: safe. Outside an export the forward runs torch's code (the same `_output_padding`,
its `ValueError` for a size out of range, the same `conv_transpose`), in eager mode, `torch.compile`,
`torch.export` and under `torch.jit.script`; `torch.fx` records the module as one call, as it
records torch's (the instance names torch's module as its `__module__`, which is what fx's leaf
test reads; the class, which pickling records, is the subclass).
`isinstance(m, nn.ConvTranspose2d)` holds; `type(m)` is the subclass. While
exporting, an `output_size` out of range, which torch refuses, gives a graph all the same (a
traced graph has no error to raise). Reported without a fix: nothing (every form found is
rewritten); a module built otherwise (in an `nn.Sequential`, a list) is not found, as only
`self.X(...)` passes an `output_size`.

TensorRT versions: all (the problem is the exported graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Up(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1)\n\n"
                "    def forward(self, x, skip):\n"
                "        return self.up(x, output_size=skip.size()) + skip\n",
                "class Up(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.up = _TrtConvTranspose2d(8, 4, 3, stride=2, padding=1)\n\n"
                "    def forward(self, x, skip):\n"
                "        return self.up(x, output_size=skip.size()) + skip\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose2d.html",
            "https://github.com/davidtvs/PyTorch-ENet/blob/master/models/enet.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._sized: set[str] | None = None

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if type(value) is not cst.Call or in_inserted_helper(self):
            return
        qualified = self.context.refers_to(value.func, *_MODULES)
        if qualified not in _MODULES:
            return
        names = [t.target.attr.value for t in node.targets
                 if type(t.target) is cst.Attribute and type(t.target.value) is cst.Name
                 and t.target.value.value == "self"]
        if self._sized is None:
            self._sized = _sized_calls(self.context.module)
        if not any(name in self._sized for name in names):
            return
        helper = _MODULES[qualified]
        self.report(value, f"`self.{names[0]}` is a transposed convolution the file calls with an `output_size`: the "
                           "TorchScript exporter records the output padding worked out from it as the traced "
                           f"example's number; build `{helper}`, whose forward keeps the size in the graph while "
                           "exporting",
                    Fix({value.func: cst.Name(helper)}, safety=Safety.SAFE, helpers=(helper,)))


RULES = (TransposedOutputSize,)
