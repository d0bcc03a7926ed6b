"""Functions that assemble an image's instance masks from its mask prototypes, recognized by what they do with them.

YOLACT-style segmentation heads (YOLOv5/v7/v8/v9-seg) end in a function of one image's prototypes ``(c, mh, mw)``
and its rows' mask coefficients ``(n, c)``: ``c, mh, mw = protos.shape`` then ``masks_in @ protos.float().view(c,
-1)``, then work on each row's mask (sigmoid, crop to its box, resize, threshold). Called image by image (``for i,
det in enumerate(pred): process_mask(proto[i], det[:, 6:], det[:, :4], ...)``), a trace unrolls the loop. On every
image's rows at once, the function takes every image's channels one after another (``(batch * c, mh, mw)``) and each
row's coefficients at its own image's block of columns, zeros elsewhere: the product sums each row's own image's
channels, so the function needs no change. What it does with the prototypes decides whether that holds, so the
function's body is read (its own module's, or one imported from a file of the checkout) and taken only where the
prototypes and the coefficients are read nowhere but in that shape and that product.
"""

from __future__ import annotations

import ast
from pathlib import Path

from trtcodemod.context import FileContext
from trtcodemod.module_files import imported_function, module_attribute_function, module_function

#: Helpers (trtcodemod/helpers/per_image.py): the images' channels one after another, each row's coefficients at its
#: image's block.
CHANNELS_HELPER, BLOCKS_HELPER = "_trt_image_channels", "_trt_image_blocks"


def _function(context: FileContext, called: str) -> ast.FunctionDef | None:
    """The function ``called`` names: ``name`` (this module's, or one it imports) or ``module.name`` (a module it
    imports: ultralytics' ``ops.process_mask``)."""
    source = context.source if context.source is not None else context.module.code.encode()
    path = getattr(context, "path", None)
    alias, _, name = called.rpartition(".")
    if path and alias:
        return module_attribute_function(Path(path), alias, name, source)
    if path:
        return imported_function(Path(path), name, source)
    return None if alias else module_function(source, name)


def _stripped(node: ast.expr, name: str) -> bool:
    """Is ``node`` the name ``name``, or ``name.float()`` (a copy of the same values in float32)?"""
    if isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "float":
        node = node.func.value
    return isinstance(node, ast.Name) and node.id == name


def _flattened_channels(node: ast.expr, protos: str, channels: str) -> bool:
    """Is ``node`` ``protos[.float()].view(c, -1)`` (or ``.reshape``): each channel one row?"""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("view", "reshape") and not node.keywords and len(node.args) == 2 \
        and _stripped(node.func.value, protos) \
        and isinstance(node.args[0], ast.Name) and node.args[0].id == channels \
        and isinstance(node.args[1], ast.UnaryOp) and isinstance(node.args[1].op, ast.USub) \
        and isinstance(node.args[1].operand, ast.Constant) and node.args[1].operand.value == 1


def prototype_masks(function: ast.FunctionDef) -> bool:
    """Does ``function`` (``protos, masks_in, ...``) read its prototypes only as ``c, mh, mw = protos.shape`` and in
    one product ``masks_in[.float()] @ protos[.float()].view(c, -1)``, its coefficients only there (and in one early
    return where there are no rows, ``if masks_in.shape[0] == 0: return ...``; the ``device`` and ``dtype`` of
    either anywhere), and ``c`` only in that view? Then a row's masks depend on its own image's prototypes through
    that product alone. No nested function, no rebinding of those names."""
    arguments = function.args
    if arguments.posonlyargs or len(arguments.args) < 2 or arguments.vararg is not None:
        return False
    protos, coefficients = arguments.args[0].arg, arguments.args[1].arg
    nodes = [n for statement in function.body for n in ast.walk(statement)]
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global,
                          ast.Nonlocal)) for n in nodes):
        return False
    shapes = [s for s in function.body if isinstance(s, ast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Tuple) and len(s.targets[0].elts) == 3
              and all(isinstance(e, ast.Name) for e in s.targets[0].elts)
              and isinstance(s.value, ast.Attribute) and s.value.attr == "shape"
              and isinstance(s.value.value, ast.Name) and s.value.value.id == protos]
    if len(shapes) != 1:
        return False
    channels = shapes[0].targets[0].elts[0].id
    products = [n for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult)
                and _stripped(n.left, coefficients) and _flattened_channels(n.right, protos, channels)]
    if len(products) != 1:
        return False
    # ultralytics' `if masks_in.shape[0] == 0: return torch.zeros(...)`: no rows, an empty result (on every image's
    # rows at once, where no image has any; an image without rows adds nothing either way)
    guards = [s for s in function.body if isinstance(s, ast.If) and not s.orelse and len(s.body) == 1
              and isinstance(s.body[0], ast.Return) and _no_rows(s.test, coefficients)]
    # `masks_in.device`, `protos.dtype`, `proto.new_zeros(...)`: the same of the images' channels and the rows' blocks
    placed = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)
              and n.attr in ("device", "dtype", "new_zeros", "new_empty", "new_ones", "new_full")}
    reads = {name: [n for n in nodes if isinstance(n, ast.Name) and n.id == name and id(n) not in placed]
             for name in (protos, coefficients, channels)}
    if any(isinstance(n.ctx, ast.Store) for named in reads.values() for n in named if n.id != channels) \
            or sum(isinstance(n.ctx, ast.Store) for n in reads[channels]) != 1:
        return False  # rebound somewhere: the product may not read the parameters
    return len(reads[protos]) == 2 and len(guards) <= 1 and len(reads[coefficients]) == 1 + len(guards) \
        and len(reads[channels]) == 2


def _no_rows(test: ast.expr, coefficients: str) -> bool:
    """Is ``test`` ``<coefficients>.shape[0] == 0`` (or ``len(...)``, ``.size(0)``, ``.numel()``; ``not ...``): no row
    at all, the only read of the coefficients it makes?"""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        count = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0:
        count = test.left
    else:
        return False
    # `numel()` too (CoreYOLO's): zero for an image exactly where its rows or its channels are none, and so for the
    # rows' blocks, whose columns are the images' channels
    return ast.unparse(count) in (f"{coefficients}.shape[0]", f"len({coefficients})", f"{coefficients}.size(0)",
                                  f"{coefficients}.numel()")


def is_prototype_masks(context: FileContext, called: str) -> bool:
    """Is ``called`` (``name``: this module's function, or one it imports from a file of the checkout; or
    ``module.name`` of a module it imports) such a function?"""
    function = _function(context, called)
    return isinstance(function, ast.FunctionDef) and prototype_masks(function)
