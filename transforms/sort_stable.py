"""Sorts the TorchScript exporter refuses: a ``stable=`` argument, and ``torch.msort`` (TRT343).

A call of ``torch.sort`` or ``torch.argsort`` that passes ``stable=`` (``False`` too) takes the
``sort.stable`` overload, which has no symbolic ("Unsupported: ONNX export of operator Sort, Out
parameter is not supported"); ``aten::msort`` has none either. ``stable=False`` (or ``None``) is
dropped: torch's ``sort(x, dim, descending)`` is ``sort(x, stable=False, dim, descending)`` and
``argsort`` and ``msort`` call it (ATen's ``Sorting.cpp``), so the call without it runs the same
kernel with the same arguments. ``msort(x)`` becomes ``sort(x, dim=0).values``, which is how ATen
writes it. Any other ``stable`` calls an inserted helper (``trtcodemod/helpers/sorting.py``) that is
torch's call outside an export and a stable order built from two plain sorts while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

#: torch's name -> the helper that takes it, with the tensor as its first argument.
HELPERS = {"sort": "_trt_sort", "argsort": "_trt_argsort"}
#: What a ``stable=`` literal means when it asks for torch's default, unstable sort.
_DEFAULT = frozenset({"False", "None"})


class SortStable(Rule):
    needs_text = (b"stable", b"msort")
    info = RuleInfo(
        id="TRT343",
        name="sort-stable",
        summary="`torch.sort`/`torch.argsort` with `stable=` and `torch.msort` do not export; the call without "
                "`stable=False`, `sort(dim=0).values`, or a stable order from two plain sorts while exporting",
        doc="""\
What it finds: `torch.sort(x, stable=...)`, `x.sort(stable=...)`, `torch.argsort(x, stable=...)` and
`x.argsort(stable=...)`, with `stable=` written (`False`, `True` or any expression); `torch.msort(x)`
and `x.msort()`. Calls with unpacked arguments, an `out=`, or a positional argument after the tensor
(which torch refuses next to `stable=`) are reported without a fix. Models sort with `stable=` to
group tokens by a category and keep the groups in a fixed order (spandrel's ATD sorts its tokens'
categories with `stable=False`), to rank boxes or points, and to order a permutation.

Why it hurts: a call that passes `stable=` takes the `sort.stable` overload, for which the TorchScript
exporter (torch 2.13) has no symbolic: the export stops with "Unsupported: ONNX export of operator
Sort, Out parameter is not supported", whatever the value of `stable`. `torch.msort` stops it too
("Exporting the operator 'aten::msort' to ONNX ... is not supported").

The rewrite: `stable=False` (or `stable=None`) is removed. In ATen `sort(x, dim, descending)` is
`sort(x, stable=False, dim, descending)` on every device, and `argsort(x, dim, descending)` is its
indices, so the call without the argument runs the same kernel with the same arguments: the same
values and indices, ties included, on CPU and CUDA (measured: bit for bit on 160 tie-heavy cases of
ten dtypes, up to 100000 elements, on CPU and on an H200 with torch 2.11). It exports as ONNX `TopK`, whose order among
equal values is its own (ONNX Runtime keeps them by position, TensorRT promises no order); torch's
unstable CPU sort keeps no order among equal values either (beyond 16 elements it differs from
a stable one), so a model whose output depends on that order differs in the graph as it may
between torch releases and devices (spandrel's ATD groups tokens by a sorted category: its graph
differs from eager mode, and `migrate` reverts the fix; written `stable=True`, it is exact).
`msort(x)` → `sort(x, dim=0).values` (ATen's own definition).
Any other `stable` → `_trt_sort(x, ...)` / `_trt_argsort(x, ...)` with the same keywords, an
inserted helper that is torch's own call outside `torch.onnx.export`. While exporting with
`stable` true it sorts twice: first keys that order as the values (bool and narrow integers as
int32, half and bfloat16 as float32, NaN as +inf), which groups equal values; a running count of
the places where the sorted value changes numbers the groups (summed in float32, as TensorRT's
`CumSum` takes it: exact below 2**24 elements along the axis); then the int64 key `(group * 2 +
nan) * n + position`, all different, so any `TopK` gives the one order: equal values by position,
NaN after +inf ascending and before it descending, as torch orders them. The values are the input's
at those indices. A 0-d tensor, complex and unsigned types wider than 8 bits keep torch's call.

Fix safety: safe. Removing `stable=False` calls the same kernel. The helper is torch's call in
eager mode, under `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` (values, the
`(values, indices)` named tuple, gradients, errors). The exported graph's indices are torch's stable
indices exactly while `2 * n * n` fits in int64 (fewer than 2**31 elements along the axis) and the
count of groups in float32 (fewer than 2**24); its values are the input's elements there, bit for
bit (`-0.0` and `0.0` keep their places, as ties).

TensorRT versions: each sort is a `TopK` whose K is the axis's length, as for any sort the exporter
writes: K computed at run time from a dynamic axis needs TensorRT 8.6 or newer, and TensorRT's TopK
takes K below 3840 (a longer axis fails there, sorted stably or not). Before TensorRT 9.0 the parser
casts int64 to int32: the second sort's key `2 * n * n` then stays exact below 32768 elements along
the axis.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def group(tk_id: torch.Tensor):\n"
                "    return torch.sort(tk_id, dim=-1, stable=False)\n",
                "def group(tk_id: torch.Tensor):\n"
                "    return torch.sort(tk_id, dim=-1)\n",
            ),
            Example(
                "def rank(scores: torch.Tensor):\n"
                "    return scores.argsort(dim=1, descending=True, stable=True)\n",
                "def rank(scores: torch.Tensor):\n"
                "    return _trt_argsort(scores, dim=1, descending=True, stable=True)\n",
            ),
            Example(
                "def median_rows(x: torch.Tensor):\n"
                "    return torch.msort(x)[x.shape[0] // 2]\n",
                "def median_rows(x: torch.Tensor):\n"
                "    return torch.sort(x, dim=0).values[x.shape[0] // 2]\n",
            ),
            Example("def f(x: torch.Tensor, args):\n    return torch.sort(x, *args, stable=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.sort.html",
            "https://pytorch.org/docs/stable/generated/torch.argsort.html",
            "https://pytorch.org/docs/stable/generated/torch.msort.html",
            "https://onnx.ai/onnx/operators/onnx__TopK.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("sort", "argsort", "msort"))
        if found is None:
            return
        name, tensor, first = found
        if name == "msort":
            self._msort(node, tensor, first)
            return
        stable = argument(node, None, "stable")
        if stable is None:
            return
        message = (f"`{name}` with `stable=` does not export (the TorchScript exporter has no symbolic for "
                   "`sort.stable`)")
        positional = [arg for arg in node.args if arg.keyword is None]
        if tensor is None or has_star_args(node) or argument(node, None, "out") is not None \
                or len(positional) > (1 if first and tensor.keyword is None else 0):
            self.report(node, f"{message}; not rewritten: unpacked, missing, `out=` or positional arguments after "
                              "the tensor")
            return
        if type(stable.value) is cst.Name and stable.value.value in _DEFAULT:
            args = [arg for arg in node.args if arg is not stable]
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            self.report(node, f"{message}; without `stable={stable.value.value}` it is the same call (torch's "
                              "default sort is the unstable one); the graph's order among equal values is its own, "
                              "as torch's is: where the output depends on it, `stable=True` fixes one order",
                        Fix({node: node.with_changes(args=args)}))
            return
        helper = HELPERS[name]
        args = list(node.args)  # torch.sort(x, stable=True, ...): the helper takes the same arguments
        if not first:  # x.sort(stable=True, ...): the receiver first
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            args = [cst.Arg(value=tensor.value, comma=comma), *args]
        self.report(node, f"{message}; `{helper}` builds the stable order from two plain sorts while exporting "
                          "(torch's call otherwise)",
                    Fix({node: cst.Call(func=cst.Name(helper), args=args)}, helpers=(helper,)))

    def _msort(self, node: cst.Call, tensor: cst.Arg | None, first: int) -> None:
        message = "`msort` does not export (the TorchScript exporter has no symbolic for it)"
        if tensor is None or has_star_args(node) or len(node.args) != first:
            self.report(node, f"{message}; not rewritten: unpacked, missing or further arguments")
            return
        dim = cst.Arg(value=cst.Integer("0"), keyword=cst.Name("dim"),
                      equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                            whitespace_after=cst.SimpleWhitespace("")))
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        if first:  # torch.msort(x) -> torch.sort(x, dim=0).values
            func = node.func.with_changes(attr=cst.Name("sort")) if type(node.func) is cst.Attribute else None
            if func is None:  # `from torch import msort`: spelled as torch.sort only where `torch` is imported
                self.report(node, f"{message}; not rewritten: imported by name (write `torch.msort`)")
                return
            call = cst.Call(func=func, args=[node.args[0].with_changes(comma=comma), dim])
        else:  # x.msort() -> x.sort(dim=0).values
            sort = node.func.with_changes(attr=cst.Name("sort"))  # type: ignore[attr-defined]
            call = node.with_changes(func=sort, args=[dim])
        self.report(node, f"{message}; `sort(dim=0).values` is the same call (ATen's msort)",
                    Fix({node: cst.Attribute(value=call, attr=cst.Name("values"))}))


RULES = (SortStable,)
