"""The guidance's manual step for what ``migrate`` leaves: every remaining error says what to do by hand.

A rule that names a construct without fixing it says its manual step in its message ("no
automatic fix: ... ; move the decision out of the graph ..."). What else remains did not: a fix
the verification reverted ("fix reverted: breaks equivalence"), a TracerWarning no rule claims,
a line the second trace found baked, an export that fails, a graph that fails to load. Each kind
gets the step the guidance documents give for it (their topics named, so the reader can look it
up), in our words; a rule's own construct gets its family's step and ``trtcodemod explain``.
"""

from __future__ import annotations

import ast
from typing import Any

#: Statements holding others: the one a line is in is the innermost simple statement.
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef)

#: A value computed in Python from an input size (guidance: "Dynamic shape input", "Shape tensors
#: and execution tensors").
SIZE_STEP = ("compute the value in the graph from the traced size (tensor arithmetic on `x.shape[i]`, which "
             "the trace keeps; a Python `int`, `min` or NumPy value of it does not), or, where the model runs "
             "at one size only, declare this axis static and export at the deployed size "
             "(guidance: Dynamic shape input; Shape tensors and execution tensors)")
#: A decision on tensor values (guidance: "Dynamic if-else", "Tracing vs scripting").
VALUE_STEP = ("keep the decision in the graph: compute both branches and select with `torch.where`, pass an "
              "indicator tensor as an input and decide outside the graph, or script this part with "
              "`torch.jit.script` (guidance: Dynamic if-else; Tracing vs scripting)")
#: A tensor's value turned into a Python number (guidance: "Python built-ins and dtypes").
NUMBER_STEP = ("keep the number a tensor: torch functions and tensor arithmetic (`torch.exp(t)`, `t * k`) instead "
               "of `.item()`, `float()`, `.tolist()` or `math.*` on it (guidance: Python built-ins and dtypes)")
#: A tensor's value read from the data in eager mode and baked by the trace: a number that scales values can stay a
#: tensor; a count (how many times a loop runs) has no fixed-shape graph that follows it.
DATA_STEP = ("where the value comes from the tensor's data, no exported graph follows it: where it scales values, "
             + NUMBER_STEP + "; where it is a count (how many times a loop runs: a number of steps or iterations "
             "computed from the data, as scaling and squaring's `ceil(log2(max |v|))` squarings), no graph of fixed "
             "shape computes it: export with a fixed count (a constant number of steps, enough for the inputs you "
             "deploy on, e.g. `steps=7` instead of `steps='auto'`), or run that part outside the engine "
             "(guidance: For loops: parallelizable, static, dynamic)")
#: A tensor's values taken out of torch as a NumPy array or a Python list: what code does with them is mostly
#: shapes (indices, sizes, a count). torch-timeseries' TimesNet (`FFT_for_Period`): the top-k frequencies of the
#: input's FFT read with `.cpu().numpy()`, the periods `T // top_list` then pad and reshape each branch: its shapes
#: follow the data, which no graph of fixed shapes, and no faithful rewrite, reproduces.
DATA_SHAPE_STEP = ("where the values size or pick tensors (a reshape, a padding, a slice, a loop count: TimesNet's "
                   "periods from its FFT peaks), the shapes follow the data: no graph of fixed shapes computes every "
                   "input's, and no faithful rewrite exists: fix the values offline (compute them once from "
                   "representative data and write them as constants, e.g. the periods), export one engine per "
                   "value, or keep this step outside the engine (guidance: Dynamic shape input; Tracing vs "
                   "scripting)")
#: What a report's message says of a value taken out as a NumPy array or a Python list (the facts' method names, the
#: tracer's warnings).
_OUT_OF_TORCH = ("numpy", "tolist")
#: A loop over a tensor's rows (guidance: "For loops").
LOOP_STEP = ("vectorize the loop over the tensor, or loop over a fixed `range` of a known size "
             "(guidance: For loops: parallelizable, static, dynamic)")
#: A Python loop whose count follows a dynamic axis (a second trace unrolled it another number of times).
UNROLLED_STEP = ("the graph holds the example's number of iterations at every size: loop a fixed number of times "
                 "with a mask (a fixed maximum), move the loop into a `torch.jit.script` function (an ONNX "
                 "`Loop`), run it outside the exported graph (export its body, the state passed in and out), or "
                 "declare the axis static and export at the deployed size (guidance: For loops: parallelizable, "
                 "static, dynamic; Dynamic shape input)")
#: A loop over the batch running NMS image by image that TRT360 could not carry over (a list per image, a `continue`,
#: an `if` decided image by image, a library's method).
PER_IMAGE_NMS_STEP = ("run NMS once on every image's candidates: flatten the batch with an image-index column and call "
                      "`batched_nms` with ids that combine the image and the class (kept rows ordered by image), or "
                      "export the candidates and run NMS after the engine (TensorRT's EfficientNMS plugin); a "
                      "per-image cap (`[:max_det]`) as each kept row's rank within its image (a cumulative count "
                      "over the rows sorted by image) under the cap (guidance: For loops: dynamic)")
#: A loop over the batch that appends each image's rows with its index and runs no NMS (zoo 29's `od_*_rows`
#: wrappers: `yolo_obb_decode_pre_nms` of each image, whose rows a score threshold and a size test select): the guidance's
#: parallelizable loop, whose iterations do not read one another's results.
PER_IMAGE_ROWS_STEP = ("compute every image's rows at once: the per-image work along the batch axis (a top-k along the "
                       "candidates' axis of each `[B, N, ...]` tensor, the threshold and size tests as one `[B, K]` "
                       "mask), then the kept rows as `rows[mask]` of the `[B, K, C]` rows with the image index from "
                       "`mask.nonzero()[:, 0]` (each image's rows in order, images in order); or keep K rows per "
                       "image with the mask as a score column, or run the selection after the engine (guidance: "
                       "For loops: parallelizable)")
#: What TRT360's finding says of such a loop (`transforms.per_image_nms.ROWS_NOT_REWRITTEN`).
_ROWS_LOOP = "each image's number of rows is its own data's"
#: A `squeeze()` with no axis whose fix the verification reverted: the model's own output drops a batch of 1 (eager
#: mode returns `(k,)` at batch 1 and `(n, k)` above), which no graph with a batch axis reproduces.
SQUEEZE_STEP = ("name the axes the squeeze means (`x.flatten(1)`, or `x[:, :, 0, 0]` after a global pool): the model "
                "then keeps a batch of 1 as it keeps any other batch, which TensorRT needs (a Squeeze without axes "
                "on a dynamic batch does not parse); what it returns at a batch of 1 gains that axis, so check its "
                "callers; or export with a static batch (guidance: Dynamic shape input)")
#: A write that read memory it overwrote (TRT740): eager mode's result is undefined, the graph's the source as it was.
OVERLAP_STEP = ("decide what the write means: where it is the shift the graph computes, copy the source first "
                "(`t[..., 1:] = t[..., :-1].clone()`; `trtcodemod apply --unsafe --select TRT740` writes it, given "
                "`--facts` from `migrate --save-facts` where the code does not show the tensor) or build the shifted "
                "tensor out of place (`torch.cat((t[..., :1], t[..., :-1]), -1)`), then migrate again; no export can "
                "be verified against eager outputs the copy order decides (guidance: Tracing export)")
#: An operator or pattern TensorRT or the exporter does not take.
OP_STEP = ("rewrite this call with operators the exporter and TensorRT take, as `trtcodemod explain {rule}` "
           "describes, or keep this part out of the engine (a TensorRT plugin, or the step done before or after it)")
#: An export that fails at a line no rule claims (guidance: "Tracing export").
#: An export stopped on a Python complex number the trace kept as a constant (vocos' ``mag * (x + 1j * y)``).
COMPLEX_CONSTANT_STEP = ("the TorchScript exporter stops on the Python complex number this line multiplies a tensor by "
                         "(`1j * y`): no ONNX graph holds a complex value. Carry the real and imaginary parts as two "
                         "real tensors instead (`re, im = mag * x, mag * y`) through what follows, and compute the "
                         "inverse transform from them: `torch.complex(re, im)` given to `torch.fft.irfft` in the same "
                         "function is rewritten by TRT709; across modules, pass the parts (guidance: Unsupported "
                         "Operators)")
EXPORT_STEP = ("the exporter stops at this line: rewrite it with operators the exporter supports (the error "
               "names the one it could not convert), try the other exporter (`--exporters dynamo`), or keep "
               "this step out of the graph (guidance: Tracing export)")
#: An export stopped by a tensor attribute that requires grad but is neither a parameter nor a buffer: the tracer
#: would have to freeze it into the graph as a constant and refuses (zoo 33's dblur FNAFNet: `self.complex_weight1 =
#: torch.complex(nn.Parameter(...), nn.Parameter(...))` in `__init__`, read in forward).
GRAD_CONSTANT_STEP = ("the module reads a tensor here that requires grad but is neither a parameter nor a buffer (one "
                      "built from parameters in `__init__`, as `torch.complex(nn.Parameter(a), nn.Parameter(b))`), "
                      "which the trace cannot freeze as a constant: build it from the parameters in `forward`, register "
                      "it as an `nn.Parameter` or a buffer, or detach it when the model is for inference only "
                      "(guidance: Tracing export)")
#: An export stopped inside a derivative the forward takes (torch-struct's marginals: `torch.autograd.grad` of the
#: log-partition in `forward`, zoo 43): the trace records the backward operators, which have no ONNX form
#: (`aten::select_backward`, `aten::_index_put_impl`), or refuses the graph's own tensors that require grad.
AUTOGRAD_STEP = ("the forward differentiates here (`torch.autograd.grad`, `.backward()`): an export records no "
                 "derivative, only the operators autograd ran, and their backward forms have no ONNX operator: "
                 "write the derivative as forward code (for a CRF's marginals, the forward-backward recursion), "
                 "export the function whose derivative is taken and differentiate outside the engine, or keep "
                 "this step out of the graph (guidance: Tracing export)")
#: A graph that ONNX Runtime refuses to load (guidance: "Dynamic shape input").
LOAD_STEP = ("the graph's shapes at this line disagree with themselves: a size the export kept as the "
             "example's constant meets a dynamic one; build the size from the traced shape here, or export with "
             "this axis static (guidance: Dynamic shape input)")
#: A Split the trace made with the example's number of pieces, refused at another size: a tensor split into
#: one piece per row of a dynamic axis (zoo 29's oriented_det RetinaNet export wrapper: `torch.unbind(images,
#: dim=0)`, the images stacked back into a batch in the function it calls).
SPLIT_STEP = ("the graph splits a dynamic axis into the example's number of pieces here (`torch.unbind(x, 0)`, "
              "`x.split(1)`, `x.chunk(n)`, iterating a tensor, a list of one tensor per image), and ONNX Runtime refuses "
              "the Split at any other size: keep the axis whole (where the pieces are stacked back into a batch, as "
              "`torch.stack(torch.unbind(x, 0))` across functions, pass the tensor itself), compute the rows in one "
              "batched call, or declare the axis static and export at the deployed size (guidance: Dynamic shape "
              "input; For loops: parallelizable, static, dynamic)")
#: A graph whose node lost an input in the export (the ONNX checker's "marked single but has an empty string").
EMPTY_INPUT_STEP = ("the exporter wrote a node at this line with an input missing, so no runtime loads the graph: "
                    "an in-place write through an index list after an Ellipsis (`x[..., [0, 2]] -= v`) does this "
                    "under the TorchScript exporter (TRT344 rewrites a literal list in steps: `trtcodemod explain TRT344`); "
                    "write the index as a slice (`x[..., 0:3:2]`), or name the axes before it (`x[:, :, [0, 2]]`) "
                    "(guidance: Tracing export)")
#: A graph with an operator ONNX Runtime has no kernel for (at that type): not a shape problem.
MISSING_KERNEL_STEP = ("ONNX Runtime has no kernel for the operator it names (at this data type), so the graph "
                       "cannot be checked there: find the torch call that exports it (`torch.eye(n, dtype=torch.bool)` "
                       "gives a boolean EyeLike) and write it with operators both runtimes take (`torch.arange(n)[:, "
                       "None] == torch.arange(n)`), or cast around it (guidance: Data type support)")
#: A node whose operands have two dtypes, which eager mode promotes and ONNX's type check refuses at load:
#: TimeSformer's rotary `einsum('i, j -> i j', torch.arange(n), inv_freqs)`.
MIXED_TYPES_STEP = ("the exported node takes operands of two dtypes (an integer `torch.arange` and float frequencies "
                    "in one `einsum`), which eager mode promotes and ONNX forbids: cast the operands to one dtype "
                    "before the call (`torch.promote_types(a.dtype, b.dtype)`, as eager `einsum` promotes them), or "
                    "apply TRT370 (`trtcodemod explain TRT370`)")
#: A graph holding an operator that is no ONNX operator: a custom op (guidance: "ONNX Custom Operators and
#: TensorRT Plugins"). BiSeNet's `CustomArgMax.apply(logits, 1)`, a Function whose `symbolic` emits its own op.
CUSTOM_OP_STEP = ("the graph holds an operator that is not in ONNX: a custom op, as the `symbolic` of a "
                  "`torch.autograd.Function` or a `register_custom_op_symbolic` emits one; TensorRT parses it only "
                  "with a plugin of that name loaded when the engine is built, and ONNX Runtime runs it only with a "
                  "custom-op library, so register that plugin, or, where the operation has a form in standard "
                  "operators (the Function's `forward`), call that form instead while exporting "
                  "(guidance: ONNX Custom Operators and TensorRT Plugins)")
#: A graph that loads but computes other values (guidance: "Tracing vs scripting").
OTHER_VALUES_STEP = ("the graph computes other values than eager mode: the usual cause is a value the trace kept "
                     "as the example's constant, at the lines named beside this one; fix those lines, or export "
                     "with the axes whose change exposes it static (guidance: Tracing vs scripting)")

#: A graph on input sets where eager float32 is no reference (``locate.NO_REFERENCE``).
NO_REFERENCE_STEP = ("eager float32 is too far from the model's own float64 values on those input sets to judge any "
                     "graph there (a random-weight or badly calibrated network amplifies rounding at those sizes): "
                     "check the graph at those sizes with the trained weights, or on inputs that the network computes "
                     "stably in float32, before deploying it there")

#: Rules whose construct is a value computed from a size.
_SIZE_RULES = frozenset({"TRT704", "TRT711", "TRT712", "TRT716", "TRT717", "TRT718", "TRT726", "TRT729"})
#: Rules whose construct is a decision on, or a size from, tensor values.
_VALUE_RULES = frozenset({"TRT101", "TRT102", "TRT103", "TRT201", "TRT202", "TRT203", "TRT204", "TRT713", "TRT714",
                          "TRT715", "TRT721"})
_NUMBER_RULES = frozenset({"TRT702"})
_LOOP_RULES = frozenset({"TRT104", "TRT105", "TRT106", "TRT406"})

#: What TRT706's message says of an operation TensorRT has no path for: the problem, not what to do.
_NO_PATH = "has no TensorRT path"
#: Text that shows a message already carries a manual step.
#: Begins :data:`~.locate.DATA_READ_NOTE`.
DATA_READ_MARK = "only because they all gave the value read here alike"
_HAS_STEP = ("no automatic fix", "build it in the graph instead", "lift it by hand", "guidance:")


def _onnx_operator(op: str) -> bool:
    """Is ``op`` (a node's op type, ``domain::type`` where the domain is not ONNX's) an operator of ONNX's
    default or ML domain, at any opset?"""
    import onnx.defs

    domain, _, name = op.rpartition("::")
    return domain in ("", "ai.onnx", "ai.onnx.ml") and onnx.defs.has(name, domain if domain != "ai.onnx" else "")


def _for_rule(rule: str) -> str:
    if rule in _SIZE_RULES:
        return SIZE_STEP
    if rule in _VALUE_RULES:
        return VALUE_STEP
    if rule in _NUMBER_RULES:
        return NUMBER_STEP
    if rule in _LOOP_RULES:
        return LOOP_STEP
    if rule == "TRT403":
        return SQUEEZE_STEP  # a squeeze() whose fix changed what the model returns at a batch of 1
    if rule == "TRT740":
        return OVERLAP_STEP
    if rule in ("TRT360", "TRT361", "TRT393"):
        return PER_IMAGE_NMS_STEP  # a per-image NMS loop, or the caller flattening its list: NMS on every image at once
    return OP_STEP.format(rule=rule)


def manual_step(entry: dict[str, Any]) -> str | None:
    """The manual step for one entry of the report's ``remaining`` (None: a warning, or one its
    message already gives)."""
    message = str(entry.get("message", ""))
    rule, op, kind = entry.get("rule"), str(entry.get("op", "")), entry.get("kind")
    if rule == "TRT360" and _ROWS_LOOP in message:
        return PER_IMAGE_ROWS_STEP  # a loop of each image's rows with no NMS in it
    if rule == "TRT360" and "not rewritten" in message:
        return PER_IMAGE_NMS_STEP  # the rule's message ends with it, past what a report line shows
    if entry.get("severity") == "error" and rule and _NO_PATH in message and "guidance:" not in message:
        return _for_rule(rule)  # TRT706 names what TensorRT lacks ("no automatic fix" there is no step)
    if entry.get("severity") != "error" or any(text in message for text in _HAS_STEP):
        return None
    if rule and (message.startswith("fix reverted") or kind != "hostile"):
        return _for_rule(rule)
    if rule:
        return None  # a rule's hostile node: its message is the rule's own advice
    if kind == "export_failure":
        if _differentiates(entry.get("source")):
            return AUTOGRAD_STEP
        if "Unknown number type: complex" in message:
            return COMPLEX_CONSTANT_STEP
        return GRAD_CONSTANT_STEP if "Cannot insert a Tensor that requires grad as a constant" in message else EXPORT_STEP
    if kind == "unfaithful":
        if op == "(no float32 reference)":
            return NO_REFERENCE_STEP
        if op != "(graph fails to run)":
            return OTHER_VALUES_STEP
        if "Could not find an implementation for" in message:
            return MISSING_KERNEL_STEP
        if "No Op registered for" in message:  # an operator ONNX Runtime does not know: no shape problem
            return CUSTOM_OP_STEP
        if "bound to different types" in message:  # a type check at load, not a shape that disagrees
            return MIXED_TYPES_STEP
        if "Cannot split using values in 'split' attribute" in message:
            return SPLIT_STEP  # the example's count of pieces, not a size that meets another
        return EMPTY_INPUT_STEP if "has an empty string in the graph" in message else LOAD_STEP
    if kind == "hostile" and not op.startswith("(") and not _onnx_operator(op):
        return CUSTOM_OP_STEP
    if op == "(unrolled loop)" or "repeats with the dynamic axes, as an unrolled loop does" in message:
        return UNROLLED_STEP
    if "Iterating over a tensor" in message:
        return LOOP_STEP
    if "(retraced graph)" in op or "from a size" in message or "input size" in message:
        return SIZE_STEP
    out_of_torch = any(text in message.lower() for text in _OUT_OF_TORCH)
    if kind == "baked" and (op == "(baked value)" or DATA_READ_MARK in message) and "Python boolean" not in message \
            and "__bool__" not in message:
        # Read from a tensor in eager mode: a number, a count no fixed-shape graph follows, or a size kept in a tensor.
        step = f"{DATA_STEP}; where it comes from an input size only: {SIZE_STEP}"
        return f"{step}; {DATA_SHAPE_STEP}" if out_of_torch else step
    if kind == "baked":
        data = VALUE_STEP if "Python boolean" in message or "__bool__" in message else NUMBER_STEP
        step = f"where the value comes from the data: {data}; where it comes from an input size only: {SIZE_STEP}"
        if out_of_torch:
            step += f"; {DATA_SHAPE_STEP}"
        return step
    return None


def _differentiates(source: Any) -> bool:
    """Does the statement at ``source`` (``path:line``) take a derivative: ``torch.autograd.grad(...)``,
    ``autograd.grad(...)`` or ``<tensor>.backward(...)``?"""
    path, _, line = str(source or "").rpartition(":")
    if not path or not line.isdigit():
        return False
    tree = _parsed(path)
    if tree is None:
        return False
    number = int(line)
    around = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(n, _COMPOUND)
              and n.lineno <= number <= (n.end_lineno or n.lineno)]
    for statement in around:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            func = node.func
            if func.attr == "backward" or (func.attr == "grad" and isinstance(func.value, (ast.Attribute, ast.Name))
                                           and getattr(func.value, "attr", getattr(func.value, "id", None))
                                           == "autograd"):
                return True
    return False


def _parsed(path: str) -> ast.Module | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


def add_manual_steps(remaining: list[dict[str, Any]]) -> None:
    """Give each remaining error without one its manual step (``manual_step``), in place."""
    for entry in remaining:
        step = manual_step(entry)
        if step is not None:
            entry["manual_step"] = step
