"""``torch.inverse`` / ``torch.linalg.inv`` of small matrices, exported as the adjugate over the determinant (TRT338).

The TorchScript exporter has no symbolic for ``aten::linalg_inv`` (torch 2.13, any opset), and
ONNX has no inverse TensorRT parses. A 2x2, 3x3 or 4x4 matrix (kornia's homographies and affine
maps, camera intrinsics, 4x4 poses) has a closed form: each cofactor is a determinant of the
minor, the determinant a row of the matrix times its cofactors, and the inverse the transposed
cofactors over it. ``_trt_inverse`` is ``torch.linalg.inv`` itself everywhere except inside
``torch.onnx.export``, where a real float matrix of one of those sizes (static while tracing)
takes that closed form: elementwise Mul, Sub, Div and a Concat, batch axes dynamic. It rounds
differently from LAPACK's LU factorisation, and a singular matrix gives infinities or NaN where
torch raises. A matrix of 5x5 up to 128x128 (a thin-plate spline's ``(N + 3) x (N + 3)`` system,
kornia's ``get_tps_transform``; a least-squares normal matrix) has no closed form worth writing out:
it takes Gaussian elimination with partial pivoting, LAPACK's own ``getrf``/``getrs`` order,
unrolled over its static size (per column an ArgMax of the magnitudes, a GatherElements for the
pivot row, two Where to swap it with the current one, a Sub of multiples of it; then back
substitution, a MatMul and a Div per row). Larger sizes keep ``torch.linalg.inv`` (the export then
fails as before).

``_trt_det`` and ``_trt_logdet`` (``torch.det``, ``torch.linalg.det``, ``torch.logdet``, which export as
ONNX Det, a node no TensorRT release parses) take the same two paths: the determinant written out for
1x1 to 4x4 matrices, and for 5x5 up to 128x128 the product of the elimination's pivots times the sign
of its row swaps.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_inverse(input):
    """``torch.linalg.inv(input)``; while exporting, for 2x2, 3x3 and 4x4 matrices, the adjugate
    over the determinant."""
    if torch.jit.is_scripting():
        return torch.linalg.inv(input)
    if not isinstance(input, (torch.Tensor, torch.fx.Proxy)) and hasattr(input, "inverse"):
        return input.inverse()
    if _trt_small_matrix(input):
        return _trt_adjugate_inverse(input)
    if _trt_eliminable(input):
        eye = torch.eye(int(input.shape[-1]), dtype=input.dtype, device=input.device)
        return _trt_eliminate(input, eye.expand_as(input))
    return torch.linalg.inv(input)


def _trt_solve(A, B):
    """``torch.linalg.solve(A, B)``; while exporting, for 2x2, 3x3 and 4x4 ``A``, its closed-form
    inverse times ``B`` (``B`` a batch of vectors or of matrices, as torch reads it)."""
    if torch.jit.is_scripting():
        return torch.linalg.solve(A, B)
    if (_trt_small_matrix(A) and isinstance(B, torch.Tensor) and B.dtype == A.dtype and B.dim() >= 1):
        inverse = _trt_adjugate_inverse(A)
        if B.dim() == 1 or (B.dim() == A.dim() - 1 and list(B.shape) == list(A.shape[:-1])):
            return (inverse @ B.unsqueeze(-1)).squeeze(-1)
        return inverse @ B
    if _trt_eliminable(A) and isinstance(B, torch.Tensor) and B.dtype == A.dtype and B.dim() >= 1:
        vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and list(B.shape) == list(A.shape[:-1]))
        right = B.unsqueeze(-1) if vector else B
        left = A
        if right.dim() == 2 and left.dim() > 2:  # one right-hand side for the whole batch, as torch broadcasts
            right = right.expand(list(left.shape[:-2]) + list(right.shape[-2:]))
        if left.dim() == 2 and right.dim() > 2:  # one matrix for a batch of right-hand sides
            left = left.expand(list(right.shape[:-2]) + list(left.shape[-2:]))
        if left.dim() == right.dim() and int(right.shape[-2]) == int(left.shape[-1]):
            batch, other = [int(s) for s in left.shape[:-2]], [int(s) for s in right.shape[:-2]]
            if all(r in (1, b) for b, r in zip(batch, other)):  # a batch of one broadcasts, as in torch
                right = right.expand(list(left.shape[:-2]) + list(right.shape[-2:]))
            elif all(b == 1 for b in batch):
                left = left.expand(list(right.shape[:-2]) + list(left.shape[-2:]))
            else:
                return torch.linalg.solve(A, B)
            solved = _trt_eliminate(left, right)
            return solved[..., 0] if vector else solved  # a Gather: the exporter cannot prove the size 1 here
    return torch.linalg.solve(A, B)


def _trt_det(input):
    """``torch.linalg.det(input)``; while exporting, for 1x1 to 4x4 matrices the determinant written out
    (cofactors along row 0), for 5x5 up to 128x128 the product of the pivots of an elimination with partial
    pivoting times the permutation's sign (LAPACK's ``getrf``, as torch computes it)."""
    if torch.jit.is_scripting():
        return torch.linalg.det(input)
    if not isinstance(input, (torch.Tensor, torch.fx.Proxy)) and hasattr(input, "det"):
        return input.det()
    if _trt_small_matrix(input, smallest=1):
        entries = [[input[..., i, j] for j in range(int(input.shape[-1]))] for i in range(int(input.shape[-1]))]
        if len(entries) <= 3:
            return _trt_small_determinant(entries)
        determinant = entries[0][0] * _trt_cofactor(entries, 0, 0)
        for j in range(1, len(entries)):
            determinant = determinant + entries[0][j] * _trt_cofactor(entries, 0, j)
        return determinant
    if _trt_eliminable(input):
        n = int(input.shape[-1])
        upper, sign = _trt_triangular(input, n)
        determinant = sign
        for i in range(n):  # each pivot a Gather and a Mul (torch.diagonal exports as EyeLike, ReduceProd as int)
            determinant = determinant * upper[..., i, i]
        return determinant
    return torch.linalg.det(input)


def _trt_logdet(input):
    """``torch.logdet(input)``; while exporting, the logarithm of :func:`_trt_det` (NaN for a negative
    determinant and -inf for a zero one, as torch gives them)."""
    if torch.jit.is_scripting():
        return torch.logdet(input)
    if not isinstance(input, (torch.Tensor, torch.fx.Proxy)) and hasattr(input, "logdet"):
        return input.logdet()
    if _trt_small_matrix(input, smallest=1) or _trt_eliminable(input):
        return torch.log(_trt_det(input))
    return torch.logdet(input)


def _trt_small_matrix(input, smallest: int = 2) -> bool:
    """A float32 or float64 tensor of square matrices of ``smallest`` x ``smallest`` up to 4x4 while exporting
    (torch's LU refuses half precision: so does the helper, with torch's error)."""
    return (isinstance(input, torch.Tensor) and input.dim() >= 2 and input.dtype in (torch.float32, torch.float64)
            and int(input.shape[-1]) == int(input.shape[-2]) and smallest <= int(input.shape[-1]) <= 4
            and _trt_onnx_exporting())


def _trt_eliminable(input) -> bool:
    """A float32 or float64 tensor of square matrices of 5x5 up to 128x128 while exporting."""
    return (isinstance(input, torch.Tensor) and input.dim() >= 2 and input.dtype in (torch.float32, torch.float64)
            and int(input.shape[-1]) == int(input.shape[-2]) and 5 <= int(input.shape[-1]) <= 128
            and _trt_onnx_exporting())


@torch.jit.unused
def _trt_eliminate(A, B):
    """``A^-1 B`` by Gaussian elimination with partial pivoting (LAPACK's ``getrf``, then ``getrs``),
    unrolled over the static order ``n`` of ``A``; ``B`` has ``A``'s batch shape and ``n`` rows."""
    n = int(A.shape[-1])
    system, _ = _trt_triangular(torch.cat([A, B], -1), n)
    upper, right = system[..., :n], system[..., n:]
    known = right[..., n - 1:n, :] / upper[..., n - 1:n, n - 1:n]  # rows i + 1 to n - 1 of the solution
    for i in range(n - 2, -1, -1):
        rest = right[..., i:i + 1, :] - upper[..., i:i + 1, i + 1:] @ known
        known = torch.cat([rest / upper[..., i:i + 1, i:i + 1], known], -2)
    return known


@torch.jit.unused
def _trt_triangular(system, n: int):
    """The first ``n`` columns of ``system`` made upper triangular by elimination with partial pivoting
    (LAPACK's ``getrf`` order: per column the first row at or below the diagonal whose entry is largest in
    magnitude), every column carried along; and the sign of the row permutation (+1 or -1 per matrix)."""
    rows = torch.arange(n, device=system.device)
    sign = torch.ones_like(system[..., 0, 0])
    for k in range(n):
        pivot = system[..., k:, k].abs().argmax(-1) + k
        index = pivot.unsqueeze(-1).unsqueeze(-1).expand_as(system[..., :1, :])
        pivot_row = torch.gather(system, -2, index)
        current = system[..., k:k + 1, :]
        is_pivot = (rows == pivot.unsqueeze(-1)).unsqueeze(-1)
        system = torch.where((rows == k).unsqueeze(-1), pivot_row, torch.where(is_pivot, current, system))
        sign = torch.where(pivot == k, sign, -sign)
        if k + 1 < n:
            # A zero pivot means a zero column at and below it: LAPACK skips the step, so the factors are 0.
            pivot_value = system[..., k:k + 1, k:k + 1]
            factors = system[..., k + 1:, k:k + 1] / torch.where(pivot_value == 0, torch.ones_like(pivot_value),
                                                                 pivot_value)
            below = system[..., k + 1:, :] - factors * system[..., k:k + 1, :]
            system = torch.cat([system[..., :k + 1, :], below], -2)
    return system, sign


@torch.jit.unused
def _trt_adjugate_inverse(input):
    """The inverse as the transposed cofactors over the determinant (expanded along row 0)."""
    n = int(input.shape[-1])
    entries = [[input[..., i, j] for j in range(n)] for i in range(n)]
    cofactors = [[_trt_cofactor(entries, i, j) for j in range(n)] for i in range(n)]
    determinant = entries[0][0] * cofactors[0][0]
    for j in range(1, n):
        determinant = determinant + entries[0][j] * cofactors[0][j]
    # Row i of the inverse is column i of the cofactors.
    rows = [torch.stack([cofactors[j][i] for j in range(n)], -1) for i in range(n)]
    return torch.stack(rows, -2) / determinant.unsqueeze(-1).unsqueeze(-1)


@torch.jit.unused
def _trt_cofactor(entries, row: int, column: int):
    """``(-1) ** (row + column)`` times the determinant of ``entries`` without that row and column."""
    minor = [[value for j, value in enumerate(line) if j != column] for i, line in enumerate(entries) if i != row]
    value = _trt_small_determinant(minor)
    return -value if (row + column) % 2 else value


@torch.jit.unused
def _trt_small_determinant(entries):
    """The determinant of a 1x1, 2x2 or 3x3 list of tensors, written out."""
    n = len(entries)
    if n == 1:
        return entries[0][0]
    if n == 2:
        return entries[0][0] * entries[1][1] - entries[0][1] * entries[1][0]
    (a, b, c), (d, e, f), (g, h, i) = entries
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
