"""Accumulating writes the TorchScript exporter writes as plain scatters (TRT341).

``index_add`` exports as a ``ScatterElements`` with no reduction and ``index_put(...,
accumulate=True)`` as a ``ScatterND`` with none: where an index repeats, the graph keeps one write
instead of the sum. The rewrite calls an inserted helper (``trtcodemod/helpers/accumulation.py``)
that is torch's own call outside an export and a scatter-add (``ScatterElements`` with
``reduction="add"``) while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

#: Tensor methods that return a view of their receiver (a write into the result writes into the receiver).
_VIEWS = frozenset({"view", "view_as", "reshape", "select", "narrow", "flatten", "unflatten", "transpose", "permute",
                    "t", "squeeze", "unsqueeze", "expand", "expand_as", "as_strided", "diagonal", "movedim",
                    "swapaxes", "unbind", "split", "chunk", "unfold", "detach"})

#: torch's name -> the helper that takes it, with the tensor as its first argument.
HELPERS = {"index_add": "_trt_index_add", "index_add_": "_trt_index_add_",
           "index_put": "_trt_index_put", "index_put_": "_trt_index_put_"}


class IndexAdd(Rule):
    needs_text = (b"index_add", b"index_put")
    info = RuleInfo(
        id="TRT341",
        name="index-add",
        summary="`index_add` / `index_put(..., accumulate=True)` export as scatters that keep one write where an "
                "index repeats (the sum in torch); scatter-add instead",
        doc="""\
What it finds: `x.index_add(dim, index, source)` and `x.index_add_(...)`, `torch.index_add(x,
...)`, with or without `alpha=`; `x.index_put(indices, values, accumulate)` and
`x.index_put_(...)`, `torch.index_put(x, ...)` / `torch.index_put_(x, ...)`, where `accumulate`
is given and is not a literal `False`. Calls with unpacked arguments are reported without a
fix. Models write this to pool points into voxels or a bird's-eye-view grid, to sum the outputs of
mixture-of-experts layers back into their tokens, and to count or histogram indices.

Why it hurts: the TorchScript exporter (torch 2.13, opset 17) writes `aten::index_add` as a
`ScatterElements` with no reduction and `index_put(..., accumulate=True)` as a `ScatterND` with
none. Where an index repeats, ONNX Runtime and TensorRT keep one of the writes instead of adding
them all, with no error and no warning: `x.index_add(0, tensor([0, 0]), ones(2))` adds 2 to
`x[0]` in torch and 1 in the graph. Where the source has more rows than the target (many points
into few cells) and both are known at export, the export stops instead ("does not support
exporting 'index_add_()' function with duplicated values in 'index'"), and an `alpha` other
than 1 does not export at all ("Unsupported: ONNX export of operator index_add, alpha != 1"). TensorRT does not parse a
`ScatterND` with a reduction either, so exporting `index_put` at a newer opset is no way out.

The rewrite: the call → `_trt_index_add(x, ...)` (`_trt_index_add_`, `_trt_index_put`,
`_trt_index_put_` for the others), an inserted helper that is torch's own call outside
`torch.onnx.export`. While exporting it is a `scatter_add` (`ScatterElements` with `reduction="add"`,
which ONNX Runtime and TensorRT sum): for `index_add`, the index spread over the source's other
axes and the source times `alpha`; for `index_put`, the flat position of each indexed element on
the leading axes the index tensors cover (negative indices counted from the end, as
`index_put` counts them), the values broadcast to the indexed shape. Boolean masks (their count
is data-dependent), `None` in the indices, complex tensors and mixed dtypes keep torch's call
while exporting too. The in-place forms copy the sum into the tensor. An in-place call on a view
written in place (`bev[0].index_put_(...)`, `x.view(-1).index_add_(...)`) is reported without a
fix: the TorchScript exporter keeps a write into a view only where it is made on the view's own
expression, and loses it through a helper's parameter (as it loses the original's write through a
name bound to a view). A call in a function decorated with `@torch.jit.script` is reported without
a fix too: a traced export runs that function as compiled, where the helper is torch's call.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run torch's call itself (values, dtype, gradients, aliasing of the in-place forms,
errors: out-of-range indices raise as before). The exported graph gives torch's values: bit for
bit where `alpha` is 1 in float32, float64 and the integer types (the same additions; ONNX
Runtime adds repeated indices in their order, as torch's CPU kernel does); within a rounding
where `alpha` is not 1 (torch multiplies and adds in one fused step, the graph in two) and for
half and bfloat16 tensors, which the graph sums in float32 and rounds once (ONNX Runtime's CPU
`ScatterElements` adds no half values; torch rounds after each addition).

TensorRT versions: 8.6 and newer parse `ScatterElements` with a reduction (opset 16 and newer, which
the exporter's default opset 17 is).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def pool(points: torch.Tensor, cells: torch.Tensor, grid: torch.Tensor):\n"
                "    return grid.index_add(0, cells, points)\n",
                "def pool(points: torch.Tensor, cells: torch.Tensor, grid: torch.Tensor):\n"
                "    return _trt_index_add(grid, 0, cells, points)\n",
            ),
            Example(
                "def scatter(bev: torch.Tensor, ys: torch.Tensor, xs: torch.Tensor, feats: torch.Tensor):\n"
                "    bev.index_put_((ys, xs), feats, accumulate=True)\n"
                "    return bev\n",
                "def scatter(bev: torch.Tensor, ys: torch.Tensor, xs: torch.Tensor, feats: torch.Tensor):\n"
                "    _trt_index_put_(bev, (ys, xs), feats, accumulate=True)\n"
                "    return bev\n",
            ),
            Example("grid = torch.zeros(2, 5)\ngrid[0].index_add_(0, cells, feats)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.index_add_.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.index_put_.html",
            "https://onnx.ai/onnx/operators/onnx__ScatterElements.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, tuple(HELPERS))
        if found is None:
            return
        name, tensor, first = found
        if name.startswith("index_put"):
            accumulate = argument(node, 2 + first, "accumulate")
            if accumulate is None or (type(accumulate.value) is cst.Name and accumulate.value.value == "False"):
                return
        what = f"`{name}`"
        message = (f"{what} exports as a scatter with no reduction, which keeps one write where an index repeats "
                   "(torch adds them all)")
        if tensor is None or has_star_args(node):
            self.report(node, f"{message}; not rewritten: unpacked or missing arguments")
            return
        if name.endswith("_") and _is_view(tensor.value):
            # The TorchScript exporter keeps an in-place write into a view only where the write is made on the
            # view's own expression (`bev[0].index_put_(...)`); through a helper's parameter it is lost.
            self.report(node, f"{message}; not rewritten: an in-place write into a view (write the sum out of place "
                              f"and assign it: `bev[0] = bev[0].{name[:-1]}(...)`)")
            return
        if _in_scripted_function(self.context.function):
            # A traced export runs a scripted function as compiled, where `torch.jit.is_scripting()` is true:
            # the helper would be torch's call there, and the graph the same.
            self.report(node, f"{message}; not rewritten: in a function compiled with `torch.jit.script`, which a "
                              "traced export runs as compiled (the helper would keep torch's call there); call it "
                              "from unscripted code")
            return
        rest = [arg for arg in node.args if arg is not tensor]
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        receiver = cst.Arg(value=tensor.value, comma=comma if rest else cst.MaybeSentinel.DEFAULT)
        args = [receiver, *rest]
        helper = HELPERS[name]
        self.report(node, f"{message}; `{helper}` adds with a scatter-add while exporting (torch's call otherwise)",
                    Fix({node: cst.Call(func=cst.Name(helper), args=args)}, helpers=(helper,)))


def _in_scripted_function(func: cst.FunctionDef | None) -> bool:
    """Is ``func`` decorated with ``torch.jit.script`` (``@torch.jit.script``, ``@jit.script``)?"""
    return func is not None and any(
        cst.Module([]).code_for_node(d.decorator).endswith("jit.script") for d in func.decorators)


def _is_view(expr: cst.BaseExpression) -> bool:
    """Is ``expr`` written as a view of another tensor: indexed (``bev[0]``) or a view method's result?"""
    if type(expr) is cst.Subscript:
        return True
    if type(expr) is cst.Attribute:
        return expr.attr.value in ("T", "mT", "H", "mH", "real", "imag")
    return (type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in _VIEWS)


RULES = (IndexAdd,)
