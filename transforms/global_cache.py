"""A module-level tensor rebuilt only for a new input size: a global or a table keyed by size (TRT729).

``if pixel_coords is None or pixel_coords.size(2) < h: set_id_grid(depth)`` in a function that
declares ``global pixel_coords`` is a memo in the module's namespace: a grid built for one size
and sliced to each later input. A trace decides the test once on the example; when the global
already holds a grid big enough (any earlier call), the graph keeps it as a constant, and a larger
input reads past its end. The fix makes the memo miss while a tracer records the model, so the
grid is built from the traced sizes. The same form as TRT726's caches on ``self``
(:mod:`trtcodemod.transforms.shape_cache`), kept in a global.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, children, short_code, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule

HELPER = TRACING_HELPER

#: Comparisons that say "the cached value does not fit this input" (``<`` a size, ``!=`` a shape).
_MISSES = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.NotEqual)


def _declared_globals(function: cst.FunctionDef) -> set[str]:
    """The names ``function`` declares ``global`` in its own body (nested functions aside)."""
    return {item.name.value for node in _own_nodes(function.body) if type(node) is cst.Global for item in node.names}


def _own_nodes(body: cst.CSTNode):
    """Every node of ``body``, without entering nested functions, classes or lambdas."""
    stack = [body]
    while stack:
        node = stack.pop()
        yield node
        for child in children(node):  # LibCST's own ``.children`` rebuilds the node: 20x slower
            if type(child) not in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                stack.append(child)


def _assigns(body: cst.CSTNode, name: str) -> bool:
    """Does ``body`` bind ``name`` (an assignment, augmented or annotated, a ``for`` or ``with`` target)?"""
    for node in _own_nodes(body):
        if type(node) is cst.Assign and any(name in bound_names(t.target) for t in node.targets):
            return True
        if type(node) in (cst.AnnAssign, cst.AugAssign, cst.For) and name in bound_names(node.target):
            return True
    return False


def _disjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an ``or`` chain, parentheses or not (the test itself when it is no ``or``)."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
        return [*_disjuncts(test.left), *_disjuncts(test.right)]
    return [test]


def _reads_size_of(node: cst.BaseExpression, name: str) -> bool:
    """``name.size(...)``, ``name.shape...``, ``len(name)`` and their indexes: a size of the global."""
    for n in walk(node):
        if type(n) is cst.Attribute and n.attr.value in ("size", "shape") and type(n.value) is cst.Name \
                and n.value.value == name:
            return True
        if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == "len" and n.args \
                and type(n.args[0].value) is cst.Name and n.args[0].value.value == name:
            return True
    return False


def _empty_dict(value: cst.BaseExpression) -> bool:
    """``{}`` or ``dict()``."""
    return (type(value) is cst.Dict and not value.elements) or (
        type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict" and not value.args)


def _reads_a_size(node: cst.CSTNode) -> bool:
    """Does ``node`` read a tensor's size (``.shape``, ``.size(...)``)?"""
    return any(type(n) is cst.Attribute and n.attr.value in ("shape", "size") for n in walk(node))


def _sized_locals(function: cst.FunctionDef) -> set[str]:
    """Local names the function binds to an expression that reads a size (``k = (str(t.device), str(t.size()))``),
    or a name so bound (``h, w = t.shape[-2:]`` then ``key = str((h, w, d))``)."""
    assigns = [node for node in _own_nodes(function.body) if type(node) is cst.Assign]
    found: set[str] = set()
    while True:
        more = {name for node in assigns
                if _reads_a_size(node.value) or any(type(n) is cst.Name and n.value in found for n in walk(node.value))
                for target in node.targets for name in bound_names(target.target)}
        if more <= found:
            return found
        found |= more


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in walk(node))


def _size_miss(disjunct: cst.BaseExpression, name: str) -> bool:
    """``G.size(2) < h``, ``G.shape[-2:] != x.shape[-2:]``: one side a size of the global, the other not the global."""
    if type(disjunct) is not cst.Comparison or len(disjunct.comparisons) != 1:
        return False
    target = disjunct.comparisons[0]
    if type(target.operator) not in _MISSES:
        return False
    sides = (disjunct.left, target.comparator)
    return any(_reads_size_of(a, name) and not _mentions(b, name) for a, b in (sides, sides[::-1]))


def _is_none_test(disjunct: cst.BaseExpression, name: str) -> bool:
    return (type(disjunct) is cst.Comparison and len(disjunct.comparisons) == 1
            and type(disjunct.comparisons[0].operator) is cst.Is and type(disjunct.left) is cst.Name
            and disjunct.left.value == name and type(disjunct.comparisons[0].comparator) is cst.Name
            and disjunct.comparisons[0].comparator.value == "None")


def _is_membership(test: cst.BaseExpression) -> bool:
    """``key in table`` or ``key in table.keys()``: one ``in`` comparison."""
    return type(test) is cst.Comparison and len(test.comparisons) == 1 \
        and type(test.comparisons[0].operator) is cst.In


class GlobalShapeCache(RuntimeScopeRule):
    scope = "runtime"
    needs_text = (b"global", b"not in", b" in ")
    info = RuleInfo(
        id="TRT729",
        name="global-shape-cache",
        summary="a tensor rebuilt only for a new input size (`global grid; if grid is None or grid.size(2) < h: "
                "...`, `if str(x.size()) not in grids: ...`, a hit `if key in cache: v = cache[key]`): a traced export "
                "bakes the cached tensor",
        doc="""\
What it finds, in run-time code: an `if` with no `else` in a function that declares `global G`,
whose test is a size miss on `G` (a comparison `<`, `>`, `<=`, `>=` or `!=` with a size of `G` on
one side, `G.size(i)`, `G.shape[...]` or `len(G)`, and no `G` on the other), alone or in an `or`
chain (with `G is None` or other operands), and whose body rebuilds `G`: it assigns `G`, or calls a
function of the same file that declares `global G` and assigns it. ClementPinard's SfmLearner
(`inverse_warp.py`, copied into many depth and odometry repositories) keeps its pixel grid so:
```
def pixel2cam(depth, intrinsics_inv):
    global pixel_coords
    b, h, w = depth.size()
    if (pixel_coords is None) or pixel_coords.size(2) < h:
        set_id_grid(depth)
    current_pixel_coords = pixel_coords[..., :h, :w].expand(b, 3, h, w).reshape(b, 3, -1)
```

It also finds the same memo kept in a module-level table (a name the module binds to `{}` or
`dict()`, which the function does not bind itself): an `if` with no `else` whose test is (or has,
in an `or` chain) `key not in table`, the key reading a size (`str(flow.size())`, or a local name
bound to such an expression before), and whose body writes `table[...] = ...`. The backward warp of
RIFE and of many video-interpolation and optical-flow repositories after sniklaus' PWC-Net:
```
backwarp_tenGrid = {}

def warp(tenInput, tenFlow):
    k = (str(tenFlow.device), str(tenFlow.size()))
    if k not in backwarp_tenGrid:
        ...
        backwarp_tenGrid[k] = torch.cat([tenHorizontal, tenVertical], 1)
```

It also finds the hit of such a memo in any dict, a module's, an argument or a model's: an `if`
with no `else` whose test is `key in table` or `key in table.keys()`, the key reading a size (or a
local name bound from one: `(h, w) = t.shape[-2:]`, then `key = str((h, w, d))`), and whose body reads
`table[...]`. CellDetection's contour proposal networks take each pixel's offset from a dict the
model keeps and passes in (`celldetection/ops/cpn.py`):
```
if cache is not None:
    key = str((h, w, d))
    if key in cache.keys():
        offset = cache[key]
if offset is None:
    offset = ...  # computed from h and w
```
A tracer's sizes are tensors, so such a key made while tracing is its own (`(tensor(4), tensor(5),
...)`): the first trace fills the table, and a second trace in the same process (an export tried
again, `migrate`'s exports after its observation) hits it and keeps the cached tensor as a constant.
Its rewrite is `if not _trt_tracing() and <test>:`: while tracing the hit is not taken, so the
value is computed from the traced sizes.

Why it hurts: a traced export decides the test once, on the example. Where the global already
holds a grid at least that large (an earlier call: the model's own warm-up, a test, the
observation `migrate` runs), the test is false, and the graph keeps the grid as a constant sliced
to the traced sizes' shape ops: at an input larger than any seen before the export, the slice is
shorter than the input and the graph fails or computes other values. The exporter warns at the
`if` ("Converting a tensor to a Python boolean"); TRT713 names it with no automatic fix.

The rewrite: `if _trt_tracing() or <test>:`. While a tracer records the model the memo misses,
so the grid is built from the traced sizes (the graph computes it from the input's shape);
everywhere else the test decides as before.

Fix safety: unsafe. It assumes the rebuild computes, for the input's sizes, the values the cache
would have given (a memo of a function of the sizes, dtype and device only). A cache whose refill
depends on anything else (a counter, values of an earlier input) changes what the traced graph
computes. After an export the global holds the grid built while tracing (for the traced sizes),
which later calls slice or rebuild as before. `migrate` applies it where the export's bake is at
the `if` and the rewritten model proves equivalent on every observed input set. TensorRT versions:
all (the problem is the exported graph).""",
        fix=Safety.UNSAFE,
        assumption=("the rebuild computes, for the input's sizes, the values the cache would have given (the memo is "
                    "a function of the sizes, dtype and device only)"),
        examples=(
            Example(
                "grid = None\n\n\n"
                "def make_grid(depth):\n"
                "    global grid\n"
                "    h, w = depth.shape[-2:]\n"
                "    grid = torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij'))\n\n\n"
                "def lift(depth):\n"
                "    global grid\n"
                "    h, w = depth.shape[-2:]\n"
                "    if grid is None or grid.size(1) < h or grid.size(2) < w:\n"
                "        make_grid(depth)\n"
                "    return grid[:, :h, :w] * depth\n",
                "grid = None\n\n\n"
                "def make_grid(depth):\n"
                "    global grid\n"
                "    h, w = depth.shape[-2:]\n"
                "    grid = torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij'))\n\n\n"
                "def lift(depth):\n"
                "    global grid\n"
                "    h, w = depth.shape[-2:]\n"
                "    if _trt_tracing() or grid is None or grid.size(1) < h or grid.size(2) < w:\n"
                "        make_grid(depth)\n"
                "    return grid[:, :h, :w] * depth\n",
                unsafe=True,
            ),
            Example(
                "grids = {}\n\n\n"
                "def warp(image, flow):\n"
                "    key = str(flow.size())\n"
                "    if key not in grids:\n"
                "        grids[key] = torch.stack(torch.meshgrid(torch.linspace(-1, 1, flow.shape[2]), "
                "torch.linspace(-1, 1, flow.shape[3]), indexing='ij'))\n"
                "    return image + grids[key]\n",
                "grids = {}\n\n\n"
                "def warp(image, flow):\n"
                "    key = str(flow.size())\n"
                "    if _trt_tracing() or key not in grids:\n"
                "        grids[key] = torch.stack(torch.meshgrid(torch.linspace(-1, 1, flow.shape[2]), "
                "torch.linspace(-1, 1, flow.shape[3]), indexing='ij'))\n"
                "    return image + grids[key]\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
            "https://github.com/ClementPinard/SfmLearner-Pytorch/blob/master/inverse_warp.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: The module's functions that rebuild a global: function name -> globals it declares and assigns.
        self._fillers: dict[str, set[str]] = {}
        #: Module-level names bound to an empty dict: caches written by key, no `global` needed.
        self._tables: set[str] = set()

    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if type(statement) is cst.FunctionDef:
                self._fillers[statement.name.value] = {g for g in _declared_globals(statement)
                                                       if _assigns(statement.body, g)}
            elif type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) is cst.Assign and _empty_dict(small.value):
                        self._tables.update(n for t in small.targets for n in bound_names(t.target))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._torch:
            return
        declared = _declared_globals(node)
        # A table is the module's unless this function binds the name itself.
        tables = {t for t in self._tables if t in declared or not _assigns(node.body, t)}
        memos = [inner for inner in _own_nodes(node.body) if type(inner) is cst.If and inner.orelse is None
                 and (declared or tables or _is_membership(inner.test))]
        sized = _sized_locals(node) if memos else set()
        for inner in memos:
            if declared or tables:
                self._check(inner, declared, tables, sized)
            self._hit(inner, sized)

    def _hit(self, node: cst.If, sized: set[str]) -> None:
        """``if key in cache.keys(): offset = cache[key]`` (CellDetection's ``ops/cpn.py`` on a table passed in):
        a hit on any dict keyed by size, whose body reads the table; made to miss while tracing."""
        test = node.test
        if not _is_membership(test):
            return
        table = test.comparisons[0].comparator
        if type(table) is cst.Call and type(table.func) is cst.Attribute and table.func.attr.value == "keys" \
                and not table.args:
            table = table.func.value
        if type(table) is not cst.Name:
            return
        if not (_reads_a_size(test.left) or any(type(n) is cst.Name and n.value in sized for n in walk(test.left))):
            return  # a key that is no size: not a shape memo
        if not any(type(n) is cst.Subscript and type(n.value) is cst.Name and n.value.value == table.value
                   for n in _own_nodes(node.body)):
            return  # the body does not take the cached value
        replacement = cst.BooleanOperation(
            left=cst.UnaryOperation(operator=cst.Not(), expression=cst.Call(func=cst.Name(HELPER))),
            operator=cst.And(), right=test)
        self.found(node, f"`{short_code(test, 60)}` takes the tensor cached in `{table.value}` for an input of the same "
                         "size: a traced export decides the test once on the example, and a hit bakes the cached "
                         f"tensor into the graph for every input size; `not {HELPER}()` makes it miss while tracing",
                   Fix({test: replacement}, safety=Safety.UNSAFE, helpers=(HELPER,)))

    def _rebuilds(self, body: cst.BaseSuite, name: str) -> bool:
        if _assigns(body, name):
            return True
        return any(type(n) is cst.Call and type(n.func) is cst.Name and name in self._fillers.get(n.func.value, ())
                   for n in _own_nodes(body))

    def _check(self, node: cst.If, declared: set[str], tables: set[str], sized: set[str]) -> None:
        test = node.test
        if any(type(n) is cst.NamedExpr for n in walk(test)):
            return  # skipped while tracing, the name would be unbound after the `if`
        disjuncts = _disjuncts(test)
        if any(type(d) is cst.Call and type(d.func) is cst.Name and d.func.value == HELPER for d in disjuncts):
            return  # already refreshed
        found = self._global_memo(node, disjuncts, declared) or self._table_memo(node, disjuncts, tables, sized)
        if found is None:
            return
        name, what = found
        grouped = (type(test) is cst.BooleanOperation and type(test.operator) is cst.And) \
            or type(test) in (cst.IfExp, cst.Lambda)
        right = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if grouped else test
        replacement = cst.BooleanOperation(left=cst.Call(func=cst.Name(HELPER)), operator=cst.Or(), right=right)
        self.found(node, f"`{short_code(test, 60)}` {what} `{name}` only when an input of a new size comes: a traced "
                         "export decides the test once on the example, and a hit bakes the cached tensor into the "
                         f"graph for every input size; {HELPER}() makes it miss while tracing",
                   Fix({test: replacement}, safety=Safety.UNSAFE, helpers=(HELPER,)))

    def _global_memo(self, node: cst.If, disjuncts: list[cst.BaseExpression],
                     declared: set[str]) -> tuple[str, str] | None:
        """``global G`` ... ``if G is None or G.size(2) < h: <rebuild G>``."""
        for name in sorted(declared):
            if not any(_size_miss(d, name) for d in disjuncts):
                continue
            if not all(_size_miss(d, name) or _is_none_test(d, name) or not _mentions(d, name) for d in disjuncts):
                continue  # another test of the global (its values) decides too: no plain memo
            if self._rebuilds(node.body, name):
                return name, "rebuilds the module-level"
        return None

    def _table_memo(self, node: cst.If, disjuncts: list[cst.BaseExpression], tables: set[str],
                    sized: set[str]) -> tuple[str, str] | None:
        """``if str(flow.shape) not in grids: grids[str(flow.shape)] = ...`` on a module-level dict."""
        for d in disjuncts:
            if type(d) is not cst.Comparison or len(d.comparisons) != 1 \
                    or type(d.comparisons[0].operator) is not cst.NotIn:
                continue
            table = d.comparisons[0].comparator
            if type(table) is not cst.Name or table.value not in tables:
                continue
            if not (_reads_a_size(d.left) or any(type(n) is cst.Name and n.value in sized for n in walk(d.left))):
                continue  # a key that is no size: not a shape memo
            if any(type(n) is cst.Assign and any(type(t.target) is cst.Subscript and type(t.target.value) is cst.Name
                                                 and t.target.value.value == table.value for t in n.targets)
                   for n in _own_nodes(node.body)):
                return table.value, "fills the module-level table"
        return None

RULES = (GlobalShapeCache,)
