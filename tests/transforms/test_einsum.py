"""TRT303 (einsum → matmul, unsafe) and TRT304 (one-operand einsum → permute, safe).

Detection per TensorRT target, look-alikes that must not fire, the rewrite executed on real
tensors (values within the rounding of a dot product, shapes, dtypes, gradients), the
documented assumptions shown to be real, and the exported graphs (Einsum gone, ONNX Runtime
agrees). TRT304's full safety contract is in tests/safety/test_safety_rewrites.py.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import load, onnx_ops, rewrite, rules_found
from trtcodemod.transforms.einsum import (broadcast_form, chain_code, contraction_form, matmul_form,
                                          parse_einops_pattern, parse_equation, permutation)

HEADER = "import torch\n"


# --- the equation analysis ---------------------------------------------------------------

@pytest.mark.parametrize("equation,form", [
    ("ij,jk->ik", (False, False, False)),
    ("bij,bjk->bik", (False, False, False)),
    ("bhqd,bhkd->bhqk", (False, False, True)),
    ("bhqk,bhkd->bhqd", (False, False, False)),
    ("ij,kj->ik", (False, False, True)),
    ("ji,jk->ik", (False, True, False)),
    ("ij,jk->ki", (True, True, True)),
    ("ij,kj->ki", (True, False, True)),
    ("bij,bjk->bki", (True, True, True)),  # B(k, j) @ A(j, i)
    ("...ij,...jk->...ik", (False, False, False)),
    ("ij,jk", (False, False, False)),  # implicit output: ik
    (" b i j , b j k -> b i k ", (False, False, False)),
    # A bare matrix on one side: matmul broadcasts it over the other's batch axes.
    ("bmd,dk->bmk", (False, False, False)),
    ("ij,bjk->bik", (False, False, False)),
    ("bij,kj->bki", (True, False, True)),
    ("...ij,jk->...ik", (False, False, False)),
])
def test_matmul_forms(equation: str, form: tuple[bool, bool, bool]) -> None:
    found = matmul_form(parse_equation(equation))
    assert found is not None
    assert (found.swap_operands, found.transpose_first, found.transpose_second) == form


@pytest.mark.parametrize("equation", [
    "bi,bj->bij",        # outer product: no contracted label
    "bi,bi->b",          # contraction without free labels
    "ij,jk->",           # everything summed
    "bij,bjk->ik",       # batch summed out
    "bij,bk->bik",       # batch label in one operand only, the other not a bare matrix
    "ij,jk->...ik",      # an ellipsis in the output only
    "ibj,bjk->bik",      # batch label not leading in the first operand
    "bij,bjk->ibk",      # batch label not leading in the output
    "...ij,bjk->...ik",  # ellipsis in one operand, batch labels in the other
    "iij,jk->ik",        # diagonal
    "ij,jk,kl->il",      # three operands
    "ijk,jkl->il",       # two contracted labels
    "ij,jk->ik->i",      # malformed
    "i1,1k->ik",         # not letters
])
def test_not_one_matmul(equation: str) -> None:
    eq = parse_equation(equation)
    assert eq is None or matmul_form(eq) is None


def test_permutations() -> None:
    assert permutation(parse_equation("bchw->bhwc")) == (0, 2, 3, 1)
    assert permutation(parse_equation("ij->ji")) == (1, 0)
    assert permutation(parse_equation("ij->ij")) == (0, 1)
    for equation in ("ii->i", "ij->i", "...ij->...ji", "ij,jk->ik", "->", "ij->jk"):
        eq = parse_equation(equation)
        assert eq is None or permutation(eq) is None, equation


# --- detection per target ------------------------------------------------------------------

PLAIN = "def f(q, k):\n    return torch.einsum('bhqd,bhkd->bhqk', q, k)\n"
ELLIPSIS = "def f(a, b):\n    return torch.einsum('...ij,...jk->...ik', a, b)\n"
DIAGONAL = "def f(a):\n    return torch.einsum('bii->bi', a)\n"
COMPUTED = "def f(eq, a, b):\n    return torch.einsum(eq, a, b)\n"
PERMUTE = "def f(x):\n    return torch.einsum('bchw->bhwc', x)\n"


@pytest.mark.parametrize("code,expected", [
    (PLAIN, {"7.1": ["TRT303"], "8.0": ["TRT303"], "8.2": [], "8.6": [], "9.0": [], "9.1": [], "10.x": []}),
    (ELLIPSIS, {"8.0": ["TRT303"], "8.6": ["TRT303"], "9.0": ["TRT303"], "9.1": ["TRT303"], "10.11": ["TRT303"],
                "10.12": [], "10.x": [], "11.2": []}),
    (DIAGONAL, {"8.0": ["TRT303"], "8.6": ["TRT303"], "10.11": ["TRT303"], "10.12": []}),
    (COMPUTED, {"8.0": ["TRT303"], "8.6": [], "10.x": []}),
    (PERMUTE, {"8.0": ["TRT304"], "8.2": [], "8.6": []}),
])
def test_targets(code: str, expected: dict[str, list[str]]) -> None:
    for target, rules in expected.items():
        found = [r for r in rules_found(HEADER + code, target=target) if r in ("TRT303", "TRT304")]
        assert found == rules, (target, found)


@pytest.mark.parametrize("code", [
    "import numpy as np\ndef f(a, b):\n    return np.einsum('ij,jk->ik', a, b)\n",
    "from opt_einsum import contract\ndef f(a, b):\n    return contract('ij,jk->ik', a, b)\n",
    "def einsum(eq, a, b):\n    return a\ndef f(a, b):\n    return einsum('ij,jk->ik', a, b)\n",
    "import torch\ndef f(torch, a, b):\n    return torch.einsum('ij,jk->ik', a, b)\n",
    "import torch\ndef f(a, b):\n    return a.einsum('ij,jk->ik', b)\n",
    "import torch\nlabel = 'ij,jk->ik'\n",
])
def test_look_alikes_do_not_fire(code: str) -> None:
    assert not {"TRT303", "TRT304"} & set(rules_found(code, target="8.0"))


def test_unrewritable_forms_are_reported_without_a_fix() -> None:
    for call in ("torch.einsum('bij,bj->b', a, b)", "torch.einsum('ij,jk->ik', [*args])",
                 "torch.einsum(*args)", "torch.einsum(eq, a, b)", "torch.einsum('ijk,jkl,lm->im', a, b, c)",
                 "torch.einsum('ij,jk,kl,lm->im', a, b)"):
        code = f"import torch\ndef f(a, b, c, eq, args):\n    return {call}\n"
        assert "TRT303" in rules_found(code, target="8.0"), call
        assert rewrite(code, unsafe=True, target="8.0") == code, call


def test_operands_in_a_list_display_are_the_operands() -> None:
    """`torch.einsum(eq, [a, b])` (the older form; CvT, google/unrestricted-adversarial-examples)
    means `torch.einsum(eq, a, b)`: both rules take the display's elements as the operands."""
    code = ("import torch\ndef f(q: torch.Tensor, k: torch.Tensor, x: torch.Tensor):\n"
            "    s = torch.einsum('bhlk,bhtk->bhlt', [q, k])\n"
            "    return s, torch.einsum('chw->hwc', (x,))\n")
    assert rules_found(code, target="8.0") == ["TRT303", "TRT304"]
    assert rewrite(code, unsafe=True, target="8.0") == (
        "import torch\ndef f(q: torch.Tensor, k: torch.Tensor, x: torch.Tensor):\n"
        "    s = torch.matmul(q, k.transpose(-1, -2))\n"
        "    return s, x.permute(1, 2, 0)\n")
    # TRT304's fix stays safe where the listed operand is evidently a tensor.
    assert "x.permute(1, 2, 0)" in rewrite(code, target="8.0")
    q, k, x = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6, 5), torch.randn(3, 4, 5)
    assert torch.equal(torch.einsum("chw->hwc", (x,)), x.permute(1, 2, 0))
    torch.testing.assert_close(torch.einsum("bhlk,bhtk->bhlt", [q, k]), torch.matmul(q, k.transpose(-1, -2)))


def test_equation_in_a_local_name_is_read() -> None:
    """A local assigned a literal once, before the call, is that equation; a parameter, a name
    bound twice or in a branch, a name used before its assignment, a lambda's own parameter and a
    module global are not known statically (reported on TensorRT < 8.2, never rewritten)."""
    code = ("import torch\ndef f(q: torch.Tensor, k: torch.Tensor, x: torch.Tensor):\n"
            "    eq = 'bhqd,bhkd->bhqk'\n    layout = 'b c h w -> b h w c'\n"
            "    for _ in range(2):\n        x = torch.einsum(layout, x)\n"
            "    return torch.einsum(eq, q, k), x\n")
    assert rules_found(code, target="8.0") == ["TRT304", "TRT303"]
    assert rewrite(code, unsafe=True, target="8.0") == code.replace(
        "torch.einsum(layout, x)", "x.permute(0, 2, 3, 1)").replace(
        "torch.einsum(eq, q, k)", "torch.matmul(q, k.transpose(-1, -2))")
    ellipsis = "import torch\ndef f(a, b):\n    eq = '...ij,...jk->...ik'\n    return torch.einsum(eq, a, b)\n"
    assert rules_found(ellipsis, target="8.6") == ["TRT303"]  # refused up to 10.11: named at the default target
    for unknown in (
        "def f(q, k, eq):\n    return torch.einsum(eq, q, k)\n",
        "def f(q, k, flag):\n    eq = 'bij,bjk->bik'\n    if flag:\n        eq = 'bij,bkj->bik'\n"
        "    return torch.einsum(eq, q, k)\n",
        "def f(q, k, flag):\n    if flag:\n        eq = 'bij,bjk->bik'\n    return torch.einsum(eq, q, k)\n",
        "def f(q, k):\n    for i in range(2):\n        if i:\n            return torch.einsum(eq, q, k)\n"
        "        eq = 'bij,bjk->bik'\n",
        "def f(q, k):\n    eq = 'bij,bjk->bik'\n    del eq\n    return torch.einsum(eq, q, k)\n",
        "def f(q, k):\n    eq = 'bij,bjk->bik'\n    g = lambda eq: torch.einsum(eq, q, k)\n    return g('bij,bkj->bik')\n",
        "eq = 'bij,bjk->bik'\ndef f(q, k):\n    return torch.einsum(eq, q, k)\n",
        "class M:\n    eq = 'bij,bjk->bik'\n    def f(self, q, k):\n        return torch.einsum(self.eq, q, k)\n",
    ):
        code = HEADER + unknown
        assert rules_found(code, target="8.0") == ["TRT303"], unknown
        assert rewrite(code, unsafe=True, target="8.0") == code, unknown
        assert rules_found(code, target="8.6") == [], unknown


def test_rewrite_is_unsafe_and_keeps_aliases() -> None:
    code = "import torch as th\ndef f(q, k):\n    return th.einsum('bhqd,bhkd->bhqk', q * 2, k)\n"
    assert rewrite(code, target="8.0") == code
    assert rewrite(code, unsafe=True, target="8.0") == \
        "import torch as th\ndef f(q, k):\n    return th.matmul(q * 2, k.transpose(-1, -2))\n"
    chained = "import torch\ndef f(x: torch.Tensor):\n    return torch.einsum('bchw->bhwc', x + 1).softmax(-1)\n"
    assert rewrite(chained, target="8.0") == \
        "import torch\ndef f(x: torch.Tensor):\n    return (x + 1).permute(0, 2, 3, 1).softmax(-1)\n"


def test_permute_needs_a_tensor_operand_to_be_safe() -> None:
    """`torch.einsum(eq, ops)` takes a list or tuple argument as its operands; `ops.permute` does not."""
    listed = "import torch\ndef f(a):\n    ops = [a]\n    return torch.einsum('nchw->nhwc', ops)\n"
    assert "TRT304" in rules_found(listed, target="8.0")
    assert rewrite(listed, unsafe=True, target="8.0") == listed
    a = torch.randn(1, 2, 3, 4)
    assert torch.equal(torch.einsum("nchw->nhwc", [a]), a.permute(0, 2, 3, 1))  # what the original computes
    with pytest.raises(AttributeError):
        [a].permute(0, 2, 3, 1)  # what a rewrite would have run
    unknown = "import torch\ndef f(ops):\n    return torch.einsum('nchw->nhwc', ops)\n"
    assert rewrite(unknown, target="8.0") == unknown  # unsafe: ops may be a list
    assert "ops.permute(0, 2, 3, 1)" in rewrite(unknown, unsafe=True, target="8.0")
    local = "import torch\ndef f(a):\n    x = torch.relu(a)\n    return torch.einsum('ij->ji', x)\n"
    assert "x.permute(1, 0)" in rewrite(local, target="8.0")  # a torch call's result: safe


# --- einops' einsum: operands first, then a pattern of axis names ---------------------------

@pytest.mark.parametrize("pattern,equation", [
    ("b h i d, b h j d -> b h i j", "abcd,abed->abce"),
    ("... e1 e2, ... e1 d -> ... e2 d", "...ab,...ac->...bc"),  # vit-pytorch's hyper-connections
    ("batch seq dim, dim out -> batch seq out", "abc,cd->abd"),
    ("b c h w -> b h w c", "abcd->acdb"),
    ("b n d, b n e -> b n e d", "abc,abd->abdc"),  # an outer product: read, but not one matrix product
])
def test_einops_patterns_are_read_as_torch_equations(pattern: str, equation: str) -> None:
    assert parse_einops_pattern(pattern) == parse_equation(equation)


@pytest.mark.parametrize("pattern", [
    "b i j, b j k",            # einops requires the arrow
    "b (h d), d k -> b h k",   # composed axes: not in einsum
    "b i 2, b 2 k -> b i k",   # not an identifier
    "b ... i, b i k -> b k",   # an ellipsis that does not lead
    "b i j -> b i -> b",       # two arrows
])
def test_odd_einops_patterns_are_not_read(pattern: str) -> None:
    assert parse_einops_pattern(pattern) is None


EINOPS_SOURCE = """import torch
import einops
from einops import einsum


def mix(alpha, residuals):
    return einsum(alpha, residuals, '... e1 e2, ... e1 d -> ... e2 d')


def attend(q, k, v):
    pattern = 'b h i j, b h j d -> b h i d'
    sim = einops.einsum(q, k, "b h i d, b h j d -> b h i j")
    return einsum(sim.softmax(-1), v, pattern)


def layout(x: torch.Tensor):
    return einsum(x, 'b c h w -> b h w c')


def outer(branch, beta):
    return einsum(branch, beta, "b n d, b n e -> b n e d")
"""


def test_einops_einsum_is_rewritten_like_torch_einsum() -> None:
    """einops' ``einsum(*operands, pattern)`` (lucidrains' repositories: vit-pytorch's hyper-connections
    mix residual streams with ``'... e1 e2, ... e1 d -> ... e2 d'``) runs ``torch.einsum`` on torch tensors
    and exports the same Einsum: both rules read its pattern and operands; the ellipsis is named at the
    default target, everything at 8.0; a user's own ``einsum`` and numpy's stay alone."""
    assert rules_found(EINOPS_SOURCE, target="8.6") == ["TRT303"]
    assert rules_found(EINOPS_SOURCE, target="8.0") == ["TRT303", "TRT303", "TRT303", "TRT304", "TRT303"]
    assert rules_found(rewrite(EINOPS_SOURCE, unsafe=True, target="8.0"), target="8.0") == []
    after = rewrite(EINOPS_SOURCE, unsafe=True, target="8.0")
    assert "return torch.matmul(alpha.transpose(-1, -2), residuals)" in after
    assert 'sim = torch.matmul(q, k.transpose(-1, -2))' in after
    assert "return torch.matmul(sim.softmax(-1), v)" in after
    assert "return x.permute(0, 2, 3, 1)" in after
    assert "return branch[..., None, :] * beta[..., None]" in after  # a broadcast product
    assert rewrite(EINOPS_SOURCE, target="8.0") == EINOPS_SOURCE.replace(
        "einsum(x, 'b c h w -> b h w c')", "x.permute(0, 2, 3, 1)")  # the annotated tensor: safe
    own = "import torch\ndef einsum(*args):\n    return args[0]\ndef f(a, b):\n    return einsum(a, b, 'i j, j k -> i k')\n"
    assert rules_found(own, target="8.0") == []
    for call in ("einsum(*ops, 'i j, j k -> i k')", "einsum(a, b, pattern)", "einsum('i j, j k -> i k')"):
        code = f"from einops import einsum\ndef f(a, b, ops, pattern):\n    return {call}\n"
        assert rules_found(code, target="8.0") == ["TRT303"], call
        assert rewrite(code, unsafe=True, target="8.0") == code, call


def _einops_free(code: str) -> str:
    """The rewritten module without its einops imports (tests do not import einops): every einops call
    that remains is replaced, so the functions run on torch alone."""
    return "\n".join(line for line in code.splitlines() if "import einops" not in line and "from einops" not in line)


def test_einops_rewrites_compute_the_pattern_and_export_without_einsum() -> None:
    """The rewritten functions against ``torch.einsum`` of the same pattern written in letters (what einops
    hands torch), on zeros, negatives, infinities, NaN and empty batches, in eager mode and in ONNX Runtime
    at two batch sizes of one export (no Einsum left)."""
    namespace: dict = {}
    exec(compile(_einops_free(rewrite(EINOPS_SOURCE, unsafe=True, target="8.0")), "einops_after.py", "exec"),
         namespace)
    cases = [
        (namespace["mix"], "...ab,...ac->...bc", lambda n: [(n, 5, 4, 3), (n, 5, 4, 6)]),
        (namespace["layout"], "abcd->acdb", lambda n: [(n, 3, 4, 5)]),
        (namespace["outer"], "abd,abe->abed", lambda n: [(n, 5, 4), (n, 5, 3)]),
    ]
    for number, n in enumerate((0, 1, 3)):
        for special in (False, True):
            for function, equation, shapes in cases:
                operands = [_operand(shape, torch.float32, number * 10 + i, special) for i, shape in enumerate(shapes(n))]
                _within_rounding(torch.einsum(equation, *operands), function(*operands),
                                 2 * 6 * torch.finfo(torch.float32).eps
                                 * torch.einsum(equation, *[o.double().abs() for o in operands]))
            q, k, v = (_operand((n, 2, 4, 8), torch.float32, number + i, special) for i in range(3))
            want = torch.einsum("bhij,bhjd->bhid", torch.einsum("bhid,bhjd->bhij", q, k).softmax(-1), v)
            torch.testing.assert_close(namespace["attend"](q, k, v), want, equal_nan=True)

    class Mix(torch.nn.Module):
        def forward(self, alpha, residuals):
            return namespace["mix"](alpha, residuals)

    example = (torch.randn(2, 5, 4, 3), torch.randn(2, 5, 4, 6))
    ops, data = _graph_ops(Mix(), example, dynamo=False)
    assert "Einsum" not in ops and "MatMul" in ops
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for n in (1, 7):
        alpha, residuals = torch.randn(n, 5, 4, 3) * 3, torch.randn(n, 5, 4, 6)
        feed = {arg.name: value.numpy() for arg, value in zip(session.get_inputs(), (alpha, residuals))}
        torch.testing.assert_close(torch.from_numpy(session.run(None, feed)[0]),
                                   torch.einsum("...ab,...ac->...bc", alpha, residuals), rtol=1e-5, atol=1e-5)


# --- the rewrite on real tensors ------------------------------------------------------------

#: (equation, operand shapes from sizes (i, j, k, b, h)).
EQUATIONS = [
    ("ij,jk->ik", lambda i, j, k, b, h: [(i, j), (j, k)]),
    ("ij,kj->ik", lambda i, j, k, b, h: [(i, j), (k, j)]),
    ("ij,jk->ki", lambda i, j, k, b, h: [(i, j), (j, k)]),
    ("ji,jk->ik", lambda i, j, k, b, h: [(j, i), (j, k)]),
    ("bij,bjk->bik", lambda i, j, k, b, h: [(b, i, j), (b, j, k)]),
    ("bik,bjk->bij", lambda i, j, k, b, h: [(b, i, k), (b, j, k)]),
    ("bhqd,bhkd->bhqk", lambda i, j, k, b, h: [(b, h, i, j), (b, h, k, j)]),
    ("bhqk,bhkd->bhqd", lambda i, j, k, b, h: [(b, h, i, j), (b, h, j, k)]),
    ("...ij,...jk->...ik", lambda i, j, k, b, h: [(h, b, i, j), (b, j, k)]),
    ("bmd,dk->bmk", lambda i, j, k, b, h: [(b, i, j), (j, k)]),
    ("ij,bjk->bik", lambda i, j, k, b, h: [(i, j), (b, j, k)]),
    ("bij,kj->bki", lambda i, j, k, b, h: [(b, i, j), (k, j)]),
    ("...ij,jk->...ik", lambda i, j, k, b, h: [(h, b, i, j), (j, k)]),
]

SIZES = [(3, 4, 5, 2, 3), (1, 7, 1, 1, 2), (0, 3, 2, 2, 1), (2, 0, 3, 1, 1), (5, 33, 6, 3, 2), (2, 1, 3, 2, 2)]


def _operand(shape, dtype, seed: int, special: bool) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    values = torch.randn(shape, generator=generator, dtype=torch.float64) * 3
    if special and values.numel():
        picks = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1.0, -1.0], dtype=torch.float64)
        where = torch.rand(shape, generator=generator) < 0.2
        values = torch.where(where, picks[torch.randint(len(picks), shape, generator=generator)], values)
    return values.to(dtype)


def _within_rounding(expected: torch.Tensor, got: torch.Tensor, bound: torch.Tensor) -> None:
    """Equal shapes/dtypes; finite values within ``bound``; non-finite values identical."""
    assert expected.shape == got.shape and expected.dtype == got.dtype
    e, g = expected.double(), got.double()
    finite = torch.isfinite(e) & torch.isfinite(bound)
    assert torch.equal(torch.isnan(e[~finite]), torch.isnan(g[~finite]))
    assert torch.equal(e[~finite & ~torch.isnan(e)], g[~finite & ~torch.isnan(e)])
    assert bool(((e - g).abs()[finite] <= bound[finite]).all()), ((e - g).abs()[finite] - bound[finite]).max()


@pytest.mark.parametrize("equation,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_rewrite_values_shapes_gradients(equation: str, shapes, dtype: torch.dtype) -> None:
    before_code = f"import torch\ndef f(a, b):\n    return torch.einsum({equation!r}, a, b)\n"
    after_code = rewrite(before_code, unsafe=True, target="8.0")
    assert "matmul" in after_code and "einsum" not in after_code
    before, after = load(before_code, "f"), load(after_code, "f")
    eps = torch.finfo(dtype).eps
    for number, sizes in enumerate(SIZES):
        for special in (False, True):
            sa, sb = shapes(*sizes)
            grads = dtype in (torch.float32, torch.float64) and not special
            a = _operand(sa, dtype, number, special).requires_grad_(grads)
            b = _operand(sb, dtype, number + 100, special).requires_grad_(grads)
            expected, got = before(a, b), after(a, b)
            # The error of a length-K dot product computed in any order: K * eps * sum |a||b|.
            length = sizes[1]
            magnitude = torch.einsum(equation, a.detach().double().abs(), b.detach().double().abs())
            _within_rounding(expected, got, 2 * length * eps * magnitude)
            if grads:
                grad = torch.randn(expected.shape, dtype=torch.float64).to(dtype)
                ga = torch.autograd.grad(expected, (a, b), grad, allow_unused=True)
                gb = torch.autograd.grad(got, (a, b), grad, allow_unused=True)
                # Bound of the gradients: the same contractions on absolute values (float64).
                abs_a = a.detach().double().abs().requires_grad_()
                abs_b = b.detach().double().abs().requires_grad_()
                (torch.einsum(equation, abs_a, abs_b) * grad.double().abs()).sum().backward()
                longest = max(sizes) ** 2
                for x, y, scale in zip(ga, gb, (abs_a.grad, abs_b.grad)):
                    _within_rounding(x.detach(), y.detach(), 2 * longest * eps * scale)


def test_rewrite_is_not_bit_identical_for_2d_float32() -> None:
    """Why TRT303 is unsafe: the 2-D product reaches other kernels than einsum's batched one.

    Which shapes round differently depends on the CPU's BLAS (an 8x3 by 3x3 product differs
    on Intel Xeon, a matrix-vector one on AMD EPYC), so a sweep of shapes must find some.
    """
    differs = []
    for m, k, n in [(8, 3, 3), (2, 16, 1), (5, 33, 1), (8, 16, 9), (64, 128, 1), (17, 1000, 3)]:
        for seed in range(10):
            generator = torch.Generator().manual_seed(seed)
            a, b = torch.randn(m, k, generator=generator), torch.randn(k, n, generator=generator)
            if not torch.equal(torch.einsum("ij,jk->ik", a, b), torch.matmul(a, b)):
                differs.append((m, k, n))
    assert differs


def test_documented_assumptions_are_real() -> None:
    """einsum broadcasts a contracted axis of size 1 and checks ranks; matmul does neither."""
    a, b = torch.randn(2, 1), torch.randn(3, 4)
    assert torch.einsum("ij,jk->ik", a, b).shape == (2, 4)
    with pytest.raises(RuntimeError):
        torch.matmul(a, b)
    x, y = torch.randn(2, 3, 4), torch.randn(4, 5)
    with pytest.raises(RuntimeError):
        torch.einsum("ij,jk->ik", x, y)
    assert torch.matmul(x, y).shape == (2, 3, 5)
    # Strides: with a contracted axis of size 1 einsum returns a transposed view for this output order.
    a, b = torch.randn(5, 1), torch.randn(1, 64)
    assert torch.einsum("ij,jk->ki", a, b).stride() != torch.matmul(b.t(), a.t()).stride()


# --- contractions of one label that are not one plain matrix product ---------------------------

#: Equations from real code (kornia's colour conversions, segmentation and DETR heads, talking-heads attention,
#: Transformer-XL, graph convolutions) with operand shapes: each contracts one label, with the operands' other
#: axes in orders no single matmul takes.
CONTRACTIONS = [
    ("oi, ...ihw -> ...ohw", [(3, 3), (2, 3, 5, 6)], "torch.matmul(a, b.transpose(-3, -2)).transpose(-3, -2)"),
    ("oi, ...ihw -> ...ohw", [(3, 3), (3, 5, 6)], None),
    ("bqc, bchw -> bqhw", [(2, 5, 3), (2, 3, 6, 7)],
     "torch.matmul(a[..., None, :, :], b.transpose(-3, -2)).transpose(-3, -2)"),
    ("bqc, bqhw -> bchw", [(2, 5, 3), (2, 5, 6, 7)], None),
    ("...a,abcd->...bcd", [(2, 3, 4), (4, 5, 6, 7)], None),
    ("in,nhw->ihw", [(3, 4), (4, 5, 6)], None),
    ("b h i j, h g -> b g i j", [(2, 3, 4, 5), (3, 6)], None),
    ("ibh,hnd->ibnd", [(2, 3, 4), (4, 5, 6)], None),
    ("bi,bi->b", [(3, 4), (3, 4)], "torch.matmul(a[..., None, :], b[..., None])[..., 0, 0]"),
    ("...c,...cb->...b", [(3, 4), (2, 3, 4, 5)], None),
    ("bnd,csd->bcns", [(2, 3, 4), (5, 6, 4)], None),
    ("nhw,ixh->nixw", [(2, 3, 4), (5, 6, 3)], None),
    ("bd,bkd->bk", [(2, 3), (2, 4, 3)], None),
    ("bkd,bd->kb", [(2, 4, 3), (2, 3)], None),
    ("buwnh,fnh->bnuwf", [(2, 3, 4, 5, 6), (7, 5, 6)], None),
    ("...hqk,...khd->...qhd", [(2, 3, 4, 5), (2, 5, 3, 6)], None),
    ("oi,...i->...o", [(4, 3), (2, 5, 3)], None),
]


def _sized(shape, sizes: dict[int, int]) -> tuple[int, ...]:
    """``shape`` with some of its axes given other sizes (an empty one, a size of 1)."""
    return tuple(sizes.get(axis, size) for axis, size in enumerate(shape))


@pytest.mark.parametrize("equation,shapes,text", CONTRACTIONS, ids=[f"{e}-{len(s[1])}" for e, s, _ in CONTRACTIONS])
def test_contractions_are_one_matmul(equation: str, shapes, text: str | None) -> None:
    """Rewritten at targets that refuse them, and equal to einsum within the rounding of a dot product, for
    zeros, negatives, infinities and NaN, empty axes and axes of size 1, with gradients."""
    code = f"import torch\ndef f(a, b):\n    return torch.einsum({equation!r}, a, b)\n"
    after = rewrite(code, unsafe=True, target="8.0")
    assert "einsum" not in after and "matmul" in after
    if text is not None:
        assert after == f"import torch\ndef f(a, b):\n    return {text}\n"
    if "..." in equation:
        assert rewrite(code, unsafe=True, target="8.6") == after  # refused with an ellipsis up to 10.11
    before, rewritten = load(code, "f"), load(after, "f")
    eq = parse_equation(equation)
    j = next(label for label in eq.inputs[0] if label in eq.inputs[1] and label not in eq.output)
    for number, (resize_a, resize_b) in enumerate([({}, {}), ({0: 0}, {}), ({-1: 1}, {0: 1}), ({}, {-1: 0})]):
        sa = _sized(shapes[0], {axis % len(shapes[0]): size for axis, size in resize_a.items()})
        sb = _sized(shapes[1], {axis % len(shapes[1]): size for axis, size in resize_b.items()})
        ja = sa[len(sa) - len(eq.inputs[0]) + eq.inputs[0].index(j)]
        jb = sb[len(sb) - len(eq.inputs[1]) + eq.inputs[1].index(j)]
        try:
            expected_shape = torch.einsum(equation, torch.empty(sa), torch.empty(sb)).shape
        except RuntimeError:
            continue  # sizes einsum itself refuses (a resized label the other operand shares)
        if ja != jb:
            continue  # einsum broadcasts a contracted axis of size 1, matmul does not: the rule's assumption
        for special in (False, True):
            grads = not special
            a = _operand(sa, torch.float64, number, special).requires_grad_(grads)
            b = _operand(sb, torch.float64, number + 50, special).requires_grad_(grads)
            expected, got = before(a, b), rewritten(a, b)
            assert expected.shape == expected_shape
            length = max(1, ja)
            magnitude = torch.einsum(equation, a.detach().abs(), b.detach().abs())
            _within_rounding(expected, got, 4 * length * torch.finfo(torch.float64).eps * magnitude)
            if grads and expected.numel():
                grad = torch.randn(expected.shape, dtype=torch.float64)
                for x, y in zip(torch.autograd.grad(expected, (a, b), grad), torch.autograd.grad(got, (a, b), grad)):
                    torch.testing.assert_close(x, y)


def test_random_contractions_are_one_matmul() -> None:
    """Random equations of the accepted form (batch, free and one contracted label in random orders, an
    ellipsis in none, one or both operands): the rewrite computes einsum's values and shape."""
    generator = torch.Generator().manual_seed(3)

    def pick(n: int) -> int:
        return int(torch.randint(n, (1,), generator=generator))

    def shuffled(labels: str) -> str:
        return "".join(labels[i] for i in torch.randperm(len(labels), generator=generator).tolist())

    checked = 0
    for _ in range(300):
        batch, free_a, free_b = "bcd"[:pick(3)], "mno"[:pick(3)], "pqr"[:pick(3)]
        ellipsis = pick(4)  # 0: none, 1: first, 2: second, 3: both
        a, b = shuffled(batch + free_a + "j"), shuffled(batch + free_b + "j")
        out = shuffled(batch + free_a + free_b)
        lead = "..." if ellipsis else ""
        equation = (f"{'...' if ellipsis in (1, 3) else ''}{a},{'...' if ellipsis in (2, 3) else ''}{b}"
                    f"->{lead}{out}")
        eq = parse_equation(equation)
        if matmul_form(eq) is not None:
            continue
        assert contraction_form(eq) is not None, equation
        sizes = {label: 2 + pick(3) for label in "bcdmnopqrj"}
        extra = (2, 3)
        sa = (extra if ellipsis in (1, 3) else ()) + tuple(sizes[label] for label in a)
        sb = ((extra[1:] if ellipsis == 3 else extra) if ellipsis in (2, 3) else ()) + tuple(sizes[x] for x in b)
        x, y = torch.randn(sa, generator=generator, dtype=torch.float64), torch.randn(sb, generator=generator,
                                                                                    dtype=torch.float64)
        code = f"import torch\ndef f(a, b):\n    return torch.einsum({equation!r}, a, b)\n"
        after = rewrite(code, unsafe=True, target="8.0")
        assert "einsum" not in after, equation
        torch.testing.assert_close(load(after, "f")(x, y), torch.einsum(equation, x, y), msg=equation)
        checked += 1
    assert checked > 200


@pytest.mark.parametrize("equation", [
    "bnhv,dhv->bdn",     # two contracted labels
    "bij,bk->bk",        # a label summed in one operand only
    "...ij,jk->ik",      # the ellipsis summed out
    "bii,bi->b",         # diagonal
])
def test_other_equations_are_not_one_contraction(equation: str) -> None:
    assert contraction_form(parse_equation(equation)) is None
    code = f"import torch\ndef f(a, b):\n    return torch.einsum({equation!r}, a, b)\n"
    assert "TRT303" in rules_found(code, target="8.0")
    assert rewrite(code, unsafe=True, target="8.0") == code


# --- the exported graph -----------------------------------------------------------------------


def _module(code: str) -> torch.nn.Module:
    namespace: dict = {}
    exec(compile(code, "snippet.py", "exec"), namespace)
    return namespace["M"]()


def _graph_ops(model: torch.nn.Module, inputs: tuple, dynamo: bool) -> tuple[list[str], bytes]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, inputs, dynamo=True, verbose=False,
                                        dynamic_shapes=tuple({0: torch.export.Dim.AUTO} for _ in inputs))
            data = program.model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            names = [f"input_{i}" for i in range(len(inputs))]
            torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=names,
                              dynamic_axes={name: {0: "n"} for name in names})
            data = buffer.getvalue()
    return [node.op_type for node in onnx.load_from_string(data).graph.node], data


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("equation,shapes", [
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]),
    ("ij,jk->ki", [(4, 3), (3, 5)]),
    ("bchw->bhwc", [(2, 3, 4, 5)]),
])
def test_export_has_no_einsum(equation: str, shapes, dynamo: bool) -> None:
    names = ", ".join(f"x{i}" for i in range(len(shapes)))
    code = (f"import torch\nclass M(torch.nn.Module):\n    def forward(self, {names}):\n"
            f"        return torch.einsum({equation!r}, {names})\n")
    after = rewrite(code, unsafe=True, target="8.0")
    assert after != code
    inputs = tuple(torch.randn(shape) for shape in shapes)
    before_ops, _ = _graph_ops(_module(code), inputs, dynamo)
    after_ops, data = _graph_ops(_module(after), inputs, dynamo)
    assert "Einsum" in before_ops
    assert "Einsum" not in after_ops
    assert ("MatMul" in after_ops) == (len(shapes) == 2)
    # Another batch size than the traced one: the graph is not specialised to it.
    other = tuple(torch.randn((3,) + shape[1:]) for shape in shapes)
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    feed = {arg.name: value.numpy() for arg, value in zip(session.get_inputs(), other)}
    got = torch.from_numpy(np.asarray(session.run(None, feed)[0]))
    torch.testing.assert_close(got, torch.einsum(equation, *other), rtol=1e-5, atol=1e-5)


def test_onnx_ops_helper_agrees() -> None:
    """The shared helper (TorchScript exporter) sees the same change on a 2-D product."""
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b):\n"
            "        return torch.einsum('ij,kj->ik', a, b)\n")
    inputs = (torch.randn(4, 3), torch.randn(5, 3))
    assert "Einsum" in onnx_ops(_module(code), inputs)
    ops = onnx_ops(_module(rewrite(code, unsafe=True, target="7.1")), inputs)
    assert "Einsum" not in ops and "MatMul" in ops


def test_kornia_colour_matrix_exports_without_einsum_at_two_sizes() -> None:
    """kornia's `_apply_linear_transformation` (RGB to XYZ, YUV, Lab, Luv on CPU): `oi,...ihw->...ohw` with an
    ellipsis, which TensorRT 8.6 refuses; after the rewrite the graph has no Einsum and, exported with dynamic
    batch, height and width, computes einsum's values at another size too."""
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, image):\n"
            "        kernel = torch.tensor([[0.4, 0.3, 0.2], [0.2, 0.7, 0.1], [0.0, 0.1, 0.9]])\n"
            "        return torch.einsum('oi, ...ihw -> ...ohw', kernel, image)\n")
    assert rules_found(code, target="8.6") == ["TRT303"]
    after = rewrite(code, unsafe=True, target="8.6")
    assert "torch.matmul(kernel, image.transpose(-3, -2)).transpose(-3, -2)" in after
    axes = {"image": {0: "b", 2: "h", 3: "w"}}
    before_ops = onnx_ops(_module(code), (torch.rand(1, 3, 8, 8),), dynamic_axes=axes, input_names=["image"])
    assert "Einsum" in before_ops
    model = _module(after)
    buffer = io.BytesIO()
    torch.onnx.export(model, (torch.rand(1, 3, 8, 8),), buffer, dynamo=False, opset_version=17,
                      input_names=["image"], dynamic_axes=axes)
    assert "Einsum" not in [node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node]
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for shape in ((1, 3, 8, 8), (3, 3, 13, 7)):
        image = torch.rand(shape) * 4 - 2
        image[0, 0, 0, :2] = torch.tensor([0.0, -0.0])
        got = torch.from_numpy(session.run(None, {"image": image.numpy()})[0])
        torch.testing.assert_close(got, _module(code)(image), rtol=1e-5, atol=1e-6)


# --- broadcast products and three or more operands ---------------------------------------------------------------

@pytest.mark.parametrize("equation,code", [
    ("bi,bj->bij", "{a}[..., None] * {b}[..., None, :]"),
    ("...ne,...n->...ne", "{a} * {b}[..., None]"),
    ("bi,bi->bi", "{a} * {b}"),
    ("ij,i->ij", "{a} * {b}[..., None]"),
    ("ij,j->ij", "{a} * {b}[..., None, :]"),
    ("ji,j->ij", "{a}.transpose(-2, -1) * {b}[..., None, :]"),
    ("i,j->ij", "{a}[..., None] * {b}[..., None, :]"),
    ("...j,i->...ij", "{a}[..., None, :] * {b}[..., None]"),
    ("blq,bhlk->bhlqk", "{a}[..., None, :, :, None] * {b}[..., None, :]"),
    ("i,j,->ij", None),  # three operands: not a pair
    ("bi,bj->bi", None),  # a label summed in one operand
    ("bi,bi->b", None),  # contracted
    ("...i,j->ij", None),  # an ellipsis the output drops
])
def test_broadcast_forms(equation: str, code: str | None) -> None:
    assert broadcast_form(parse_equation(equation)) == code


@pytest.mark.parametrize("equation,code", [
    ("...de,...nd,...n->...ne", "__trt_matmul__({1}, {0}) * {2}[..., None]"),
    ("ij,jk,kl->il", "__trt_matmul__(__trt_matmul__({0}, {1}), {2})"),
    ("bi,bij,bj->bij", "({0}[..., None] * {1}) * {2}[..., None, :]"),
    ("ij,jk,k->i", "__trt_matmul__(__trt_matmul__({0}, {1}), {2}[..., None])[..., 0]"),
    ("ijk,jkl,lm->im", None),  # two labels contracted in the first step
    ("iij,jk,k->i", None),  # diagonal
])
def test_chain_codes(equation: str, code: str | None) -> None:
    assert chain_code(parse_equation(equation)) == code


#: Operand shapes per equation, edge sizes included (a zero-size axis, a size-1 axis, leading axes).
CHAINS = {
    "...de,...nd,...n->...ne": [((2, 3, 4, 5), (2, 3, 7, 4), (2, 3, 7)), ((1, 4, 1), (1, 0, 4), (1, 0)),
                                ((4, 5), (7, 4), (7,))],
    "ij,jk,kl->il": [((3, 4), (4, 5), (5, 2)), ((0, 4), (4, 1), (1, 3))],
    "ij,jk,k->i": [((3, 4), (4, 5), (5,)), ((2, 0), (0, 3), (3,))],
    "bi,bj->bij": [((3, 4), (3, 5)), ((0, 4), (0, 5))],
    "bi,bij,bj->bij": [((2, 3), (2, 3, 4), (2, 4))],
    "...i,...j->...ij": [((2, 3, 4), (2, 3, 5)), ((4,), (2, 3, 5))],
}


@pytest.mark.parametrize("equation", sorted(CHAINS))
def test_chains_and_broadcasts_run_as_einsum(equation: str) -> None:
    """The rewrite of each equation on real tensors (edge values: zeros, negatives, inf and NaN, empty axes): the
    values of einsum to the rounding of a dot product (exactly, where nothing is summed), the same shape and dtype,
    gradients alike."""
    names = ", ".join(f"x{i}" for i in range(equation.split("->")[0].count(",") + 1))
    code = f"import torch\ndef f({names}):\n    return torch.einsum({equation!r}, {names})\n"
    after = rewrite(code, unsafe=True, target="8.0")
    assert "einsum" not in after, after
    original, rewritten = load(code, "f"), load(after, "f")
    summed = "," in equation and chain_code(parse_equation(equation)) is not None and "matmul" in after
    for seed, shapes in enumerate(CHAINS[equation]):
        generator = torch.Generator().manual_seed(seed)
        operands = [torch.randn(*shape, generator=generator, dtype=torch.float64, requires_grad=True)
                    for shape in shapes]
        if not summed and operands[0].numel():
            with torch.no_grad():
                operands[0].view(-1)[0] = float("inf")
                operands[0].view(-1)[-1] = float("nan")
                operands[-1].view(-1)[0] = 0.0
        want, got = original(*operands), rewritten(*operands)
        assert got.shape == want.shape and got.dtype == want.dtype
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
        if want.numel() and summed:
            want.sum().backward()
            grads = [o.grad.clone() for o in operands]
            for o in operands:
                o.grad = None
            got.sum().backward()
            for g, o in zip(grads, operands):
                torch.testing.assert_close(o.grad, g, rtol=1e-12, atol=1e-12)


def test_performer_linear_attention_exports_without_einsum() -> None:
    """torchfcpe's FAVOR+ attention line, rewritten: the TorchScript export holds MatMul and Mul, no Einsum, and
    ONNX Runtime agrees with eager mode at other sequence lengths."""
    code = ("import torch\nclass M(torch.nn.Module):\n"
            "    def forward(self, q, k, v):\n"
            "        k_cumsum = k.sum(dim=-2)\n"
            "        d_inv = 1.0 / (torch.einsum('...nd,...d->...n', q, k_cumsum.type_as(q)) + 1e-8)\n"
            "        context = torch.einsum('...nd,...ne->...de', k, v)\n"
            "        return torch.einsum('...de,...nd,...n->...ne', context, q, d_inv)\n")
    after = rewrite(code, unsafe=True, target="8.6")
    assert "torch.einsum('...de,...nd,...n->...ne'" not in after and "einsum" not in after, after
    original, rewritten = load(code, "M")().eval(), load(after, "M")().eval()
    q, k, v = (torch.rand(2, 4, 9, 8) for _ in range(3))
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(rewritten, (q, k, v), buffer, dynamo=False, opset_version=17, input_names=["q", "k", "v"],
                          dynamic_axes={name: {0: "b", 2: "n"} for name in "qkv"})
    assert "Einsum" not in {node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node}
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for n in (1, 9, 23):
        q, k, v = (torch.rand(3, 4, n, 8) for _ in range(3))
        got = session.run(None, {"q": q.numpy(), "k": k.numpy(), "v": v.numpy()})[0]
        np.testing.assert_allclose(got, original(q, k, v).numpy(), rtol=1e-4, atol=1e-5)
