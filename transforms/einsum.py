"""``torch.einsum`` for TensorRT versions whose ONNX parser lacks or limits ``Einsum`` (TRT303, TRT304).

Facts (onnx-tensorrt ``docs/operators.md`` at each release; see the rule docs):

- TensorRT before 8.2 has no ONNX ``Einsum`` importer at all (the 8.0 parser reports
  "No importer registered for op: Einsum").
- TensorRT 8.2 to 9.0 parse ``Einsum`` for FP32/FP16 only, without ellipsis, without
  diagonals (a label repeated within one operand) and without broadcasting between inputs.
- operators.md stops listing the restriction from 9.1, but the onnx-tensorrt changelog
  adds ellipsis, diagonal and broadcasting support in 10.12 (``versions.FACTS``): 10.12
  is the boundary.

Both exporters of torch 2.13 emit one ONNX ``Einsum`` node for ``torch.einsum`` (opset 12+).

TRT303 rewrites the two-operand equations that are one matrix product
(``bij,bjk->bik``, ``bhqd,bhkd->bhqk``, ``...ij,...jk->...ik``) into ``torch.matmul`` with
``transpose(-1, -2)`` where an operand's last two labels are swapped, and the other
two-operand equations that contract one label (``oi,...ihw->...ohw``, ``bqc,bchw->bqhw``)
into ``torch.matmul`` of the operands with their axes moved; TRT304 rewrites the
one-operand equations that only reorder axes (``bchw->bhwc``) into ``permute``.

Matching goes through the file's imports (``torch.einsum``, ``from torch import einsum``);
the equation must be a string literal, or a local name assigned once from one before the
call, to be understood. The operands may be listed in one list or tuple display
(``torch.einsum(eq, [a, b])``), which torch unpacks. einops' ``einsum(a, b, pattern)`` (the
operands first, axis names of any length separated by spaces) is read too: on torch tensors it
is ``torch.einsum`` of the pattern with one letter per name, and exports the same node.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import has_star_args, parenthesize, visit_readonly, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.scopes import ASSIGN, Bindings
from trtcodemod.transforms._tensor_evidence import TensorEvidence, annotated_tensor_parameter, tensor_expression
from trtcodemod.versions import Version, format_version, since

#: Displays whose value ``torch.einsum`` takes as its list of operands.
_SEQUENCES = (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)

_EINSUM = ("torch.einsum", "torch.functional.einsum")
#: einops' einsum: the operands first, then a pattern of space-separated axis names
#: (``einsum(q, k, 'b h i d, b h j d -> b h i j')``), run as ``torch.einsum`` on torch tensors.
_EINOPS = ("einops.einsum", "einops.einops.einsum")

#: The ONNX parser has no Einsum importer before this version.
EINSUM_SINCE: Version = (8, 2)
#: Ellipsis, diagonals and broadcasting between inputs: onnx-tensorrt's changelog adds them in 10.12.
EINSUM_FULL_SINCE: Version = since("einsum_full")

_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.einsum.html",
    "https://pytorch.org/docs/stable/generated/torch.matmul.html",
    "https://onnx.ai/onnx/operators/onnx__Einsum.html",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/Changelog.md",
    "https://github.com/NVIDIA/TensorRT/issues/1617",
)


# --- the equation ----------------------------------------------------------------------


@dataclass(frozen=True)
class Equation:
    """An einsum equation split into operand terms and the output term.

    ``ellipsis`` records which terms start with ``...``; the terms themselves hold the
    letters only. ``None`` from :func:`parse_equation` means the text is not one we
    understand (then nothing is rewritten).
    """

    inputs: tuple[str, ...]
    output: str
    input_ellipsis: tuple[bool, ...]
    output_ellipsis: bool

    @property
    def has_ellipsis(self) -> bool:
        return any(self.input_ellipsis) or self.output_ellipsis

    @property
    def has_diagonal(self) -> bool:
        return any(len(set(term)) != len(term) for term in self.inputs)


def _split_term(term: str) -> tuple[str, bool] | None:
    """``'...ij'`` → (``'ij'``, True); None when ``...`` is not leading or a character is not a letter."""
    ellipsis = term.startswith("...")
    letters = term[3:] if ellipsis else term
    if not all(ch.isascii() and ch.isalpha() for ch in letters):
        return None
    return letters, ellipsis


def parse_equation(text: str) -> Equation | None:
    """Parse explicit (``ij,jk->ik``) and implicit (``ij,jk``) equations; None for anything odd."""
    text = "".join(text.split())
    if text.count("->") > 1:
        return None
    lhs, arrow, rhs = text.partition("->")
    terms = []
    for term in lhs.split(","):
        split = _split_term(term)
        if split is None:
            return None
        terms.append(split)
    if arrow:
        out = _split_term(rhs)
        if out is None or len(set(out[0])) != len(out[0]):
            return None
        output, output_ellipsis = out
        if any(label not in "".join(t for t, _ in terms) for label in output):
            return None
    else:
        # Implicit mode: the labels seen exactly once, in alphabetical order, after the ellipsis dims.
        letters = "".join(t for t, _ in terms)
        output = "".join(sorted(ch for ch in set(letters) if letters.count(ch) == 1))
        output_ellipsis = any(e for _, e in terms)
    return Equation(tuple(t for t, _ in terms), output, tuple(e for _, e in terms), output_ellipsis)


def parse_einops_pattern(text: str) -> Equation | None:
    """An einops ``einsum`` pattern (``'b h i d, b h j d -> b h i j'``, ``'... e1 e2, ... e1 d -> ... e2 d'``)
    as the equation einops hands ``torch.einsum``: each axis name (an identifier, possibly of several
    characters) becomes one letter. None for anything odd: no arrow (einops requires one), a name that
    is not an identifier, or an ellipsis that does not lead its term."""
    lhs, arrow, rhs = text.partition("->")
    if not arrow or "->" in rhs:
        return None
    letters: dict[str, str] = {}
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def term(part: str) -> str | None:
        out = []
        for position, token in enumerate(part.split()):
            if token == "..." and position == 0:
                out.append("...")
                continue
            if not token.isidentifier() or (token not in letters and len(letters) == len(alphabet)):
                return None
            out.append(letters.setdefault(token, alphabet[len(letters)]))
        return "".join(out)

    terms = [term(part) for part in lhs.split(",")]
    output = term(rhs)
    if output is None or any(t is None for t in terms):
        return None
    return parse_equation(",".join(terms) + "->" + output)  # type: ignore[arg-type]


@dataclass(frozen=True)
class MatmulForm:
    """``a @ b`` after optionally swapping the last two axes of each operand (and the operands)."""

    swap_operands: bool
    transpose_first: bool
    transpose_second: bool


def matmul_form(eq: Equation) -> MatmulForm | None:
    """How a two-operand equation is one (batched) matrix product, or None.

    Accepted: the same leading batch labels, in the same order, in both operands and the
    output (or ``...`` leading all three), then two labels per operand: one contracted
    label ``j`` present in both operands and absent from the output, one free label per
    operand. The output's last two labels are the two free labels in either order. One
    operand may be a bare matrix instead (two labels, no ``...``: ``bmd,dk->bmk``, a weight
    applied to every batch), which ``matmul`` broadcasts over the other's batch axes.
    """
    if len(eq.inputs) != 2 or eq.has_diagonal:
        return None
    (a, b), out = eq.inputs, eq.output
    if len(a) < 2 or len(b) < 2 or len(out) < 2:
        return None
    batch = out[:-2]

    def batched(term: str, ellipsis: bool) -> bool:
        return term[:-2] == batch and ellipsis == eq.output_ellipsis

    def bare(term: str, ellipsis: bool) -> bool:
        return len(term) == 2 and not ellipsis

    operands = tuple(zip(eq.inputs, eq.input_ellipsis))
    if not all(batched(*o) or bare(*o) for o in operands) or not any(batched(*o) for o in operands):
        return None
    tail_a, tail_b, tail_out = a[-2:], b[-2:], out[-2:]
    shared = set(tail_a) & set(tail_b)
    if len(shared) != 1:
        return None
    (j,) = shared
    if j in out or j in batch:
        return None
    (i,) = set(tail_a) - {j}
    (k,) = set(tail_b) - {j}
    if i in batch or k in batch or set(tail_out) != {i, k}:
        return None
    if tail_out == i + k:  # out = A(i, j) @ B(j, k)
        return MatmulForm(False, tail_a != i + j, tail_b != j + k)
    # out = B(k, j) @ A(j, i)
    return MatmulForm(True, tail_b != k + j, tail_a != j + i)


@dataclass(frozen=True)
class Contraction:
    """A two-operand equation with one contracted label, written as one ``torch.matmul``.

    ``first`` and ``second`` are the operands' expressions as code with the placeholders
    ``{a}`` and ``{b}`` (each operand's axes moved, and size-1 axes added, so that matmul's
    batch axes line up), ``result`` the code that takes the product to the output's order.
    """

    first: str
    second: str
    result: str


def _moved(code: str, labels: str, order: str) -> str:
    """``code`` with the axes ``labels`` (the trailing axes, after any ellipsis) put in ``order``.

    Axes are counted from the end, so that any leading (ellipsis) axes stay where they are.
    """
    if labels == order:
        return code
    n = len(labels)
    moving = [label for position, label in enumerate(labels) if order[position] != label]
    source = [labels.index(label) - n for label in moving]
    target = [order.index(label) - n for label in moving]
    if len(moving) == 2 and source == target[::-1]:
        return f"{code}.transpose({source[0]}, {source[1]})"
    return f"{code}.movedim({tuple(source)}, {tuple(target)})"


def _ones(code: str, count: int, trailing: int) -> str:
    """``code`` with ``count`` size-1 axes added before its last ``trailing`` axes."""
    if not count:
        return code
    return f"{code}[..., {', '.join(['None'] * count + [':'] * trailing)}]"


def contraction_form(eq: Equation) -> Contraction | None:
    """How a two-operand equation that is not one plain matrix product is one ``torch.matmul``.

    Accepted: exactly one contracted label (in both operands, not in the output); every other
    label in the output, either in both operands (a batch label) or in one (that operand's
    free label); an ellipsis in both operands and the output (batch axes) or in one operand
    and the output (that operand's leading free axes). The first operand becomes
    ``(..., batch, its free axes but the last, ones, its last free axis, contracted)``, the
    second ``(..., batch, ones, its free axes but the last, contracted, its last free axis)``:
    matmul broadcasts the ones against the other's free axes, and the product's axes are put
    in the output's order. An operand with no free label gets a size-1 axis, taken out of the
    product by index. Examples: kornia's colour conversions ``oi,...ihw->...ohw``,
    segmentation heads ``bqc,bchw->bqhw``, ``...a,abcd->...bcd``.
    """
    if len(eq.inputs) != 2 or eq.has_diagonal:
        return None
    (a, b), out = eq.inputs, eq.output
    ea, eb = eq.input_ellipsis
    if eq.output_ellipsis != (ea or eb):
        return None
    contracted = [label for label in a if label in b and label not in out]
    if len(contracted) != 1 or any(label not in out for label in a + b if label not in contracted):
        return None
    (j,) = contracted
    batch = "".join(label for label in a if label in b and label != j)
    free_a = "".join(label for label in a if label not in b)
    free_b = "".join(label for label in b if label not in a)
    # Batch axes: ellipsis and labels in the first operand's order, in both operands.
    # The first operand: batch, free_a[:-1], ones for free_b[:-1], free_a[-1:] (or a one), j.
    order_a = batch + free_a + j
    code_a = _moved("{a}", a, order_a)
    lead_a = bool(ea or batch or free_a[:-1])
    ones_a = (len(free_b) - 1 if free_b and lead_a else 0) + (0 if free_a else 1)
    code_a = _ones(code_a, ones_a, 1 + len(free_a[-1:]))
    # The second operand: batch, ones for free_a[:-1], free_b[:-1], j, free_b[-1:] (or a one).
    order_b = batch + free_b[:-1] + j + free_b[-1:]
    code_b = _moved("{b}", b, order_b)
    if not free_b:
        code_b = _ones(code_b, 1, 0)
    lead_b = bool(eb or batch)
    code_b = _ones(code_b, len(free_a) - 1 if free_a and lead_b else 0, len(free_b[:-1]) + 2 if free_b else 2)
    # The product: batch, free_a[:-1], free_b[:-1], free_a[-1] (or a one), free_b[-1] (or a one).
    result = "{p}" + {(True, True): "", (False, True): "[..., 0, :]", (True, False): "[..., 0]",
                      (False, False): "[..., 0, 0]"}[bool(free_a), bool(free_b)]
    product = batch + free_a[:-1] + free_b[:-1] + free_a[-1:] + free_b[-1:]
    result = _moved(result, product, out)
    return Contraction(code_a, code_b, result)


def broadcast_form(eq: Equation) -> str | None:
    """How a two-operand equation that contracts nothing is one broadcast product, as code with the placeholders
    ``{a}`` and ``{b}``, or None.

    Accepted: every label of each operand in the output, no label contracted or summed, no diagonal, and an
    ellipsis in the output exactly where one leads an operand. Each operand's axes are put in the output's order
    and given a size-1 axis (``[..., :, None]``) for each output label it lacks, counted from the end so that
    ellipsis axes broadcast as einsum broadcasts them: ``bi,bj->bij`` is ``{a}[..., None] * {b}[..., None, :]``,
    Performer's ``...ne,...n->...ne`` (the normaliser) ``{a} * {b}[..., None]``.
    """
    if len(eq.inputs) != 2 or eq.has_diagonal or eq.output_ellipsis != any(eq.input_ellipsis):
        return None
    (a, b), out = eq.inputs, eq.output
    if any(label not in out for label in a + b):
        return None
    codes = []
    for placeholder, term in (("{a}", a), ("{b}", b)):
        order = "".join(label for label in out if label in term)
        code = _moved(placeholder, term, order)
        index = [":" if label in term else "None" for label in out]
        while index and index[0] == ":":  # the ellipsis stands for the leading axes
            index.pop(0)
        if index:
            code = f"{code}[..., {', '.join(index)}]"
        codes.append(code)
    return f"{codes[0]} * {codes[1]}"


def _matmul_code(form: MatmulForm) -> str:
    """A ``MatmulForm`` as code with the placeholders ``{a}``, ``{b}`` and ``__trt_matmul__``."""
    first, second = ("{b}", "{a}") if form.swap_operands else ("{a}", "{b}")
    if form.transpose_first:
        first += ".transpose(-1, -2)"
    if form.transpose_second:
        second += ".transpose(-1, -2)"
    return f"__trt_matmul__({first}, {second})"


def pair_code(eq: Equation) -> str | None:
    """A two-operand equation as code with the placeholders ``{a}``, ``{b}`` and ``__trt_matmul__``: one matrix
    product, one contraction of moved axes, or one broadcast product; None for anything else."""
    form = matmul_form(eq)
    if form is not None:
        return _matmul_code(form)
    contraction = contraction_form(eq)
    if contraction is not None:
        return contraction.result.format(p=f"__trt_matmul__({contraction.first}, {contraction.second})")
    return broadcast_form(eq)


def chain_code(eq: Equation) -> str | None:
    """An equation of three or more operands as nested two-operand steps, left to right (torch's own order
    without opt_einsum), each a matrix product, a contraction or a broadcast product; as code with the
    placeholders ``{0}``, ``{1}``... for the operands and ``__trt_matmul__``, or None where a step is none of them.

    Each step keeps the labels a later operand or the output still needs (the output's in its order first, then
    the others as they appear) and contracts the rest: Performer's ``...de,...nd,...n->...ne`` (FAVOR+ linear
    attention: context, queries, normaliser) is ``__trt_matmul__({1}, {0}) * {2}[..., None]``.
    """
    if len(eq.inputs) < 3 or eq.has_diagonal or eq.output_ellipsis != any(eq.input_ellipsis):
        return None
    term, ellipsis, code = eq.inputs[0], eq.input_ellipsis[0], "{0}"
    for position in range(1, len(eq.inputs)):
        right, right_ellipsis = eq.inputs[position], eq.input_ellipsis[position]
        later = set("".join(eq.inputs[position + 1:])) | set(eq.output)
        if position == len(eq.inputs) - 1:
            kept, kept_ellipsis = eq.output, eq.output_ellipsis
        else:
            seen = term + "".join(label for label in right if label not in term)
            kept = "".join(label for label in eq.output if label in seen)
            kept += "".join(label for label in seen if label in later and label not in kept)
            kept_ellipsis = ellipsis or right_ellipsis
        step = pair_code(Equation((term, right), kept, (ellipsis, right_ellipsis), kept_ellipsis))
        if step is None:
            return None
        left = f"({code})" if " * " in code else code  # a product taken further must be one operand
        code = step.replace("{a}", left).replace("{b}", "{" + str(position) + "}")
        term, ellipsis = kept, kept_ellipsis
    return code


def permutation(eq: Equation) -> tuple[int, ...] | None:
    """The axis order of a one-operand equation that only reorders its axes, or None."""
    if len(eq.inputs) != 1 or eq.has_ellipsis or eq.has_diagonal:
        return None
    (term,) = eq.inputs
    if not term or len(eq.output) != len(term) or set(eq.output) != set(term):
        return None
    return tuple(term.index(label) for label in eq.output)


# --- call matching ------------------------------------------------------------------------


def _string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal (no f-string, no implicit concatenation of f-strings)."""
    if type(node) is cst.SimpleString:
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if type(node) is cst.ConcatenatedString:
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


@dataclass
class _EinsumCall:
    equation: Equation | None  # None: not a literal or not understood
    text: str | None  # the literal's value
    operands: list[cst.BaseExpression] | None  # None: passed as a list, unpacked...


def _match(rule: Rule, node: cst.Call) -> _EinsumCall | None:
    qualified = rule.context.refers_to(node.func, *_EINSUM, *_EINOPS)
    if qualified is None:
        return None
    if has_star_args(node) or any(arg.keyword is not None for arg in node.args) or not node.args:
        return _EinsumCall(None, None, None)
    if qualified in _EINOPS:  # the pattern last, every other argument an operand
        text = _equation_text(rule, node.args[-1].value)
        equation = parse_einops_pattern(text) if text is not None else None
        return _EinsumCall(equation, text, [arg.value for arg in node.args[:-1]] if len(node.args) > 1 else None)
    text = _equation_text(rule, node.args[0].value)
    equation = parse_equation(text) if text is not None else None
    return _EinsumCall(equation, text, _operands([arg.value for arg in node.args[1:]]))


def _equation_text(rule: Rule, value: cst.BaseExpression) -> str | None:
    """The equation's text: a string literal, or a local name of the function that one of its
    body's statements assigns a string literal before the statement that calls einsum, and that
    nothing else binds (``eq = 'bhqd,bhkd->bhqk'`` before ``torch.einsum(eq, q, k)``).

    A parameter, a name bound twice (a branch, a loop, ``+=``, ``del``, ``global``), one a lambda
    of the function takes as its own parameter, and an attribute (``self.equation``, which may
    be set anywhere) are not known statically.
    """
    text = _string_value(value)
    func = rule.context.function
    if text is not None or type(value) is not cst.Name or func is None or \
            type(func.body) is not cst.IndentedBlock:
        return text
    name = value.value
    collector = Bindings()
    collector.bind_params(func.params)
    visit_readonly(func.body, collector)
    sites = collector.sites.get(name, [])
    if len(sites) != 1 or sites[0][0] != ASSIGN or sites[0][1] is None:
        return None
    if any(type(node) is cst.Lambda and any(p.name.value == name for p in node.params.params)
           for node in walk(func)):
        return None
    assigned = sites[0][1]
    for statement in func.body.body:
        if any(node is value for node in walk(statement)):
            return None  # the call comes first: the name is unbound there
        if type(statement) is cst.SimpleStatementLine and any(
                type(small) is cst.Assign and small.value is assigned for small in statement.body):
            return _string_value(assigned)
    return None


def _operands(values: list[cst.BaseExpression]) -> list[cst.BaseExpression] | None:
    """The operands of ``torch.einsum(eq, *values)``; None where the code does not show them.

    One list or tuple display is the older form ``torch.einsum(eq, [a, b])``: torch takes its
    elements as the operands, so they are. A starred element hides how many there are.
    """
    if len(values) != 1 or type(values[0]) not in (cst.List, cst.Tuple):
        return values
    elements = values[0].elements
    if any(type(element) is cst.StarredElement for element in elements):
        return None
    return [element.value for element in elements]


def _transposed(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node.transpose(-1, -2)``."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(
        func=cst.Attribute(value=parenthesize(node), attr=cst.Name("transpose")),
        args=[cst.Arg(cst.parse_expression("-1"), comma=comma), cst.Arg(cst.parse_expression("-2"))],
    )


# --- TRT303 ----------------------------------------------------------------------------------


class EinsumMatmul(Rule):
    needs_text = spelled(*_EINSUM, *_EINOPS)
    info = RuleInfo(
        id="TRT303",
        name="einsum-matmul",
        summary="`torch.einsum` exports as ONNX `Einsum`, which TensorRT < 8.2 lacks and < 10.12 limits; "
        "write matrix products with `torch.matmul`",
        doc="""\
What it finds: `torch.einsum(equation, ...)` calls, and einops' `einsum(*operands, pattern)`
(`einsum(q, k, 'b h i d, b h j d -> b h i j')`: axis names of any length, which einops hands
`torch.einsum` as one letter each), whose exported `Einsum` node the target TensorRT cannot
build:
- TensorRT before 8.2: every call (its ONNX parser has no Einsum importer). Calls whose
  equation is not known statically are reported too. Known: a string literal, or a local
  name that one statement of the function assigns a literal before the call and nothing
  else binds (`eq = 'bij,bjk->bik'`); not a parameter, an attribute (`self.equation`) or a
  name assigned in a branch.
- TensorRT 8.2 to 10.11: literal equations using an ellipsis (`...ij,...jk->...ik`) or a
  diagonal (a label repeated within one operand, `ii->i`); these versions also reject
  broadcasting between inputs and non-float types, which the code does not show.
- TensorRT 10.12 and later: nothing.
One-operand equations that only reorder axes are TRT304's.

Why it hurts: with torch 2.13 both the TorchScript exporter (opset 12 or later) and the
dynamo exporter emit a single ONNX `Einsum` node. The ONNX-TensorRT support table (docs/
operators.md) lists Einsum as unsupported up to the 8.0 release, then supported for FP32
and FP16 "without ellipsis, diagonal operations or broadcasting between inputs" from 8.2
to 9.0; from 9.1 it lists no restriction, but the onnx-tensorrt changelog adds "support for
ellipses, diagonal, and broadcasting in Einsum operations" only in 10.12 (the date we use).

The rewrite (two-operand equations that are one matrix product): the leading labels are
shared batch labels in the same order in both operands and the output (or `...` leads all
three); each operand then ends in one contracted label and one free label. The call
becomes `torch.matmul`, with `.transpose(-1, -2)` on an operand whose last two labels are
the other way round, and the operands swapped when the output lists the second operand's
free label first:
`einsum('bij,bjk->bik', a, b)` → `torch.matmul(a, b)`,
`einsum('bhqd,bhkd->bhqk', q, k)` → `torch.matmul(q, k.transpose(-1, -2))`,
`einsum('ij,kj->ik', x, w)` → `torch.matmul(x, w.transpose(-1, -2))`. One operand may be
a bare matrix that the other's batch axes share (`einsum('bmd,dk->bmk', x, w)` →
`torch.matmul(x, w)`: matmul broadcasts it); operands listed in one list or tuple
display (`einsum('bij,bjk->bik', [a, b])`, the older form) are those operands. einops'
form is rewritten the same way: vit-pytorch's hyper-connections mix their residual streams
with `einsum(alpha, residuals, '... e1 e2, ... e1 d -> ... e2 d')`, refused for its ellipsis
up to TensorRT 10.11, which becomes `torch.matmul(alpha.transpose(-1, -2), residuals)`.
Any other two-operand equation that contracts exactly one label is one matmul too, once
each operand's axes are moved: every other label is in the output, either in both operands
(a batch label) or in one (that operand's free label), and an ellipsis leads both operands
and the output (batch axes) or one operand and the output (that operand's leading axes).
The first operand's axes go to (batch, its free axes, contracted), the second's to (batch,
its free axes but the last, contracted, its last free axis), size-1 axes added (`[..., None,
:, :]`) where the other operand's free axes must broadcast, an operand with no free axis
given one of size 1 (taken out of the product by index), and the product's axes moved to
the output's order. Axes are counted from the end (`movedim`, `transpose` with negative
axes), so that leading ellipsis axes of any number stay where they are:
`einsum('oi,...ihw->...ohw', k, x)` (kornia's RGB to XYZ, YUV, Lab and Luv) →
`torch.matmul(k, x.transpose(-3, -2)).transpose(-3, -2)`, `einsum('bqc,bchw->bqhw', q, m)`
(segmentation heads) → `torch.matmul(q[..., None, :, :], m.transpose(-3, -2)).transpose(-3,
-2)`, `einsum('bi,bi->b', a, b)` → `torch.matmul(a[..., None, :], b[..., None])[..., 0, 0]`.
The graph then holds MatMul, Transpose, Unsqueeze and Gather, parsed by every TensorRT
version. A two-operand equation that contracts nothing (every label of both operands in the
output) is one broadcast product: each operand's axes put in the output's order, a size-1
axis where it lacks an output label: `einsum('bi,bj->bij', u, v)` → `u[..., None] * v[...,
None, :]`. Three or more operands are taken two at a time, left to right as torch does
without opt_einsum, each step keeping the labels a later operand or the output needs and
written as one of the forms above: the FAVOR+ linear attention of Performer-style code
(torchfcpe's `einsum('...de,...nd,...n->...ne', context, q, d_inv)`) becomes
`torch.matmul(q, context) * d_inv[..., None]`. Other equations (two or more contracted
labels in one step, a label summed in one operand, diagonals) are reported without a fix:
write them with `matmul`, `permute`, `reshape`, `sum` and broadcasting by hand.

Fix safety: unsafe. What changes:
- Values: einsum and matmul reach different CPU kernels (einsum always goes through a
  batched product after its own reshapes; matmul uses the 2-D kernel for 2-D operands), so
  results can differ in the last bits: measured with torch 2.13 on CPU for float32 and
  float64, never more than the rounding of a dot product of that length (K * eps * sum of
  |a||b|); 3-D and 4-D float32/16 products were bit-identical in our runs except with a
  contracted axis of size 1.
- Shapes einsum accepts and matmul does not: einsum broadcasts any label of size 1 against
  the other operand (a contracted axis of size 1 is summed out first); matmul broadcasts
  only batch axes and raises on a contracted-size mismatch. The rewrite assumes the
  contracted sizes match.
- Ranks: einsum raises when an operand's rank differs from its term; matmul accepts other
  ranks (for example 3-D operands for `ij,jk->ik`). The rewrite assumes the ranks the
  equation states.
- Strides: with a contracted or free axis of size 1, einsum sometimes returns a permuted
  view (seen for `ij,jk->ki` and `bji,bjk->bik`); the matmul result is contiguous.
- Operand types (einops' form): einops takes NumPy arrays and other frameworks' tensors as
  well; `torch.matmul` takes torch tensors only. The rewrite assumes torch tensors (an
  exported Einsum proves them at that line).
Gradients agree to the same rounding.

TensorRT versions: before 10.12 (see above); from 8.2 only for ellipsis and diagonal
equations.""",
        fix=Safety.UNSAFE,
        assumption=(
            "matmul and `*` accept the operands' shapes as einsum did (and, for einops' einsum, they are torch "
            "tensors), "
            "and results may differ from einsum's in the last bits"),
        needed_before=EINSUM_FULL_SINCE,
        examples=(
            Example(
                "attn = torch.einsum('bhqd,bhkd->bhqk', q, k)\n",
                "attn = torch.matmul(q, k.transpose(-1, -2))\n",
                unsafe=True,
            ),
            Example("y = torch.einsum('bij,bjk->bik', a, b)\n", "y = torch.matmul(a, b)\n", unsafe=True),
            Example("y = torch.einsum('...ij,...jk->...ik', a, b)\n", "y = torch.matmul(a, b)\n", unsafe=True),
            Example("y = torch.einsum('oi,...ihw->...ohw', k, x)\n",
                    "y = torch.matmul(k, x.transpose(-3, -2)).transpose(-3, -2)\n", unsafe=True),
            Example("outer = torch.einsum('bi,bj->bij', u, v)\n", "outer = u[..., None] * v[..., None, :]\n",
                    unsafe=True),
            Example("out = torch.einsum('...de,...nd,...n->...ne', context, q, d_inv)\n",
                    "out = torch.matmul(q, context) * d_inv[..., None]\n", unsafe=True),
            Example("y = torch.einsum('bijk,bjkl->bil', a, b)\n"),
        ),
        references=_REFERENCES,
    )

    def visit_Call(self, node: cst.Call) -> None:
        call = _match(self, node)
        if call is None:
            return
        target = self.context.target
        eq = call.equation
        if eq is not None and permutation(eq) is not None:
            return  # TRT304
        version = format_version(target)
        if target < EINSUM_SINCE:
            why = f"TensorRT {version} has no ONNX Einsum importer (added in 8.2)"
        elif eq is not None and (eq.has_ellipsis or eq.has_diagonal):
            what = " and ".join(
                part for part, used in (("an ellipsis", eq.has_ellipsis), ("a diagonal", eq.has_diagonal)) if used
            )
            why = f"TensorRT {version} does not support Einsum with {what} (supported from {format_version(EINSUM_FULL_SINCE)})"
        else:
            return  # a plain equation TensorRT 8.2+ parses, or one we cannot read on 8.2+
        if call.text is None or call.operands is None:
            self.report(node, f"einsum exports as ONNX Einsum: {why}; write it with matmul/permute/reshape "
                        "(not rewritten: the equation or the operands are not literal)")
            return
        form = matmul_form(eq) if eq is not None else None
        contraction = contraction_form(eq) if eq is not None and form is None else None
        if form is None and contraction is None and eq is not None and len(call.operands) == len(eq.inputs):
            # A broadcast product of two operands, or three or more operands taken two at a time.
            steps = broadcast_form(eq) if len(eq.inputs) == 2 else chain_code(eq)
            if steps is not None:
                steps = steps.replace("{a}", "{0}").replace("{b}", "{1}")
                self.report(
                    node,
                    f"einsum {call.text!r} exports as ONNX Einsum: {why}; it is "
                    + ("a broadcast product" if len(eq.inputs) == 2 else
                       f"{len(eq.inputs)} operands taken two at a time, each a matrix product or a broadcast "
                       "product")
                    + ", use torch.matmul and `*` on the operands with their axes moved (assumes the operands' "
                    "ranks match the equation and their shared sizes match)",
                    Fix({node: self._steps(steps, call.operands)}, safety=Safety.UNSAFE),
                )
                return
        if (form is None and contraction is None) or len(call.operands) != 2:
            self.report(node, f"einsum {call.text!r} exports as ONNX Einsum: {why}; write it with "
                        "matmul/permute/reshape/sum by hand (not one contraction of one label)")
            return
        if contraction is not None:
            self.report(
                node,
                f"einsum {call.text!r} exports as ONNX Einsum: {why}; it contracts one label, use torch.matmul "
                "on the operands with their axes moved (assumes the operands' ranks match the equation and "
                "their contracted sizes match)",
                Fix({node: self._contraction(contraction, *call.operands)}, safety=Safety.UNSAFE),
            )
            return
        first, second = call.operands
        if form.swap_operands:
            first, second = second, first
        if form.transpose_first:
            first = _transposed(first)
        if form.transpose_second:
            second = _transposed(second)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        replacement = cst.Call(
            func=self.context.torch_attr("matmul"),
            args=[cst.Arg(first, comma=comma), cst.Arg(second)],
        )
        self.report(
            node,
            f"einsum {call.text!r} exports as ONNX Einsum: {why}; it is one matrix product, use torch.matmul "
            "(assumes the operands' ranks match the equation and their contracted sizes match)",
            Fix({node: replacement}, safety=Safety.UNSAFE),
        )


    def _contraction(self, plan: Contraction, first: cst.BaseExpression,
                     second: cst.BaseExpression) -> cst.BaseExpression:
        """``plan``'s code with the two operands in place of its placeholders."""
        text = plan.result.format(p=f"__trt_matmul__({plan.first}, {plan.second})".format(
            a="__trt_first__", b="__trt_second__"))
        values = {"__trt_first__": parenthesize(first), "__trt_second__": parenthesize(second),
                  "__trt_matmul__": self.context.torch_attr("matmul")}
        return cst.parse_expression(text).visit(_Placeholders(values))


    def _steps(self, code: str, operands: list[cst.BaseExpression]) -> cst.BaseExpression:
        """``code`` (placeholders ``{0}``, ``{1}``... and ``__trt_matmul__``) with the operands in place."""
        for position in range(len(operands)):
            code = code.replace("{" + str(position) + "}", f"__trt_op{position}__")
        values: dict[str, cst.BaseExpression] = {
            f"__trt_op{position}__": parenthesize(operand) for position, operand in enumerate(operands)}
        values["__trt_matmul__"] = self.context.torch_attr("matmul")
        return cst.parse_expression(code).visit(_Placeholders(values))


class _Placeholders(cst.CSTTransformer):
    """Puts expressions in place of the placeholder names of a generated expression."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.values = values

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.values.get(original_node.value, updated_node)


# --- TRT304 ----------------------------------------------------------------------------------


class EinsumPermute(Rule):
    requires = (TensorEvidence,)
    needs_text = spelled(*_EINSUM, *_EINOPS)
    info = RuleInfo(
        id="TRT304",
        name="einsum-permute",
        summary="one-operand `torch.einsum` that only reorders axes: TensorRT < 8.2 has no Einsum; use `permute`",
        doc="""\
What it finds: `torch.einsum(equation, x)`, or einops' `einsum(x, pattern)`, with a literal
equation (or a local name assigned one once before the call, as TRT303 reads it) that names every axis
of `x` once, no ellipsis, and lists the same labels in another (or the same) order on the
right (`'bchw->bhwc'`, `'ij->ji'`).

Why it hurts: both torch 2.13 exporters emit it as an ONNX `Einsum` node, and TensorRT's
ONNX parser has no Einsum importer before 8.2. From 8.2 on, such an equation (no ellipsis,
no diagonal, one input) is parsed, so the rule is quiet for those targets.

The rewrite: `torch.einsum('bchw->bhwc', x)` → `x.permute(0, 2, 3, 1)`, which exports as
an ONNX `Transpose`; the older form with the operand in a list or tuple display,
`torch.einsum('chw->hwc', [x])`, becomes `x.permute(1, 2, 0)` alike.

Fix safety: safe where `x` is evidently a tensor (a parameter annotated `torch.Tensor`, a
local assigned only from torch calls or tensor arithmetic, such an expression itself);
unsafe otherwise. torch's einsum computes a one-operand pure reordering as that very
`permute`: the result is the same view of `x` (values, dtype, shape, strides, aliasing,
`PermuteBackward` gradients), and an operand of another rank raises a RuntimeError in both
forms. The method call works wherever the function call did (TorchScript, fx, compile,
export). The unsafe case's assumption: `x` is a tensor. `torch.einsum(eq, ops)` with one
list or tuple argument takes it as the list of operands, and `ops.permute` raises
AttributeError; a name assigned a list or tuple display, a comprehension, `list(...)` or
`tuple(...)` in the function is reported without a fix.

TensorRT versions: before 8.2.""",
        fix=Safety.SAFE,  # unsafe where the operand may not be a tensor (see the doc)
        assumption="the einsum's one operand is a tensor, not a list or tuple of operands "
        "(which `.permute` would not take)",
        needed_before=EINSUM_SINCE,
        examples=(
            Example("def f(x: torch.Tensor):\n    return torch.einsum('bchw->bhwc', x)\n",
                    "def f(x: torch.Tensor):\n    return x.permute(0, 2, 3, 1)\n"),
            Example("wt = torch.einsum('ij -> ji', w)\n", "wt = w.permute(1, 0)\n", unsafe=True),
            Example("def f(a, b):\n    ops = [a * b]\n    return torch.einsum('ij->ji', ops)\n"),
        ),
        references=_REFERENCES,
    )

    def _operand_kind(self, operand: cst.BaseExpression) -> bool | None:
        """True: a tensor; False: may be a list or tuple of operands; None: unknown.

        ``torch.einsum(eq, ops)`` with one argument that is a list or tuple takes it as the
        operand list, which ``ops.permute`` would not.
        """
        if type(operand) is not cst.Name:
            return True if tensor_expression(operand, self._torch_function, self._annotated_tensor) else None
        values = self.provider(TensorEvidence).bindings().get(operand.value)
        if not values:
            return None  # a global or a name from outside: unknown
        kinds = []
        for value in values:
            if value is None:
                kinds.append(True if annotated_tensor_parameter(self.context, operand.value) else None)
            elif type(value) in _SEQUENCES or (type(value) is cst.Call and type(value.func) is cst.Name
                                               and value.func.value in ("list", "tuple")):
                return False
            else:
                kinds.append(True if tensor_expression(value, self._torch_function, self._annotated_tensor) else None)
        return True if all(kinds) else None

    def _torch_function(self, func: cst.BaseExpression) -> str | None:
        return next((q for q in self.context.qualified_names(func) if q.startswith("torch.")), None)

    def _annotated_tensor(self, name: str) -> bool:
        """An annotated ``torch.Tensor`` parameter that nothing in the function rebinds."""
        bindings = self.provider(TensorEvidence).bindings().get(name, ())
        return annotated_tensor_parameter(self.context, name) and len(bindings) == 1

    def visit_Call(self, node: cst.Call) -> None:
        call = _match(self, node)
        if call is None or call.equation is None or call.operands is None or len(call.operands) != 1:
            return
        order = permutation(call.equation)
        if order is None or not self.info.applies_to(self.context.target):
            return
        kind = self._operand_kind(call.operands[0])
        message = (f"einsum {call.text!r} only reorders axes and exports as ONNX Einsum, which TensorRT "
                   f"{format_version(self.context.target)} lacks (added in 8.2); use permute")
        if kind is False:
            self.report(node, message + " (not rewritten: the operand may be a list of operands, which "
                        "`.permute` would not take)")
            return
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(cst.Integer(str(axis)), comma=comma) for axis in order]
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        replacement = cst.Call(
            func=cst.Attribute(value=parenthesize(call.operands[0]), attr=cst.Name("permute")), args=args
        )
        self.report(node, message, Fix({node: replacement}, safety=Safety.SAFE if kind else Safety.UNSAFE))


RULES = (EinsumMatmul, EinsumPermute)
