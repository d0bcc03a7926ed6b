"""TRT404 (repeat on a new size-1 axis → expand). TRT406 (comprehensions over tensors) is tested in
test_comprehensions.py, the evidence behind the rules not written (`.T`, chained `squeeze()`) in
test_shapes.py.

Execution on real tensors for TRT404 is in tests/safety/test_safety_rewrites.py; here: what fires,
what must not, and what the exported graphs hold before and after.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import rewrite, rules_found

HEADER = "import torch\nimport numpy as np\nfrom torch import nn\n"


def _module(code: str) -> torch.nn.Module:
    namespace: dict = {}
    exec(compile(code, "snippet.py", "exec"), namespace)
    return namespace["M"]()


# --- TRT404 -------------------------------------------------------------------------------

@pytest.mark.parametrize("before,after", [
    ("y = x.unsqueeze(0).repeat(n, 1, 1)", "y = x.unsqueeze(0).expand(n, -1, -1)"),
    ("y = x.unsqueeze(dim=0).repeat(4, 1)", "y = x.unsqueeze(dim=0).expand(4, -1)"),
    ("y = x[None].repeat(b, 1, 1, 1)", "y = x[None].expand(b, -1, -1, -1)"),
    ("y = x[None, ...].repeat((b, 1))", "y = x[None, ...].expand(b, -1)"),
    ("y = x[..., None].repeat(1, 1, k)", "y = x[..., None].expand(-1, -1, k)"),
    ("y = x.unsqueeze(-1).repeat(1, k)", "y = x.unsqueeze(-1).expand(-1, k)"),
    ("y = x.unsqueeze(-2).repeat(1, k, 1)", "y = x.unsqueeze(-2).expand(-1, k, -1)"),
    ("y = torch.unsqueeze(x, 0).repeat(x.size(0), 1)", "y = torch.unsqueeze(x, 0).expand(x.size(0), -1)"),
    ("y = (a + b).unsqueeze(0).repeat(n, 1)", "y = (a + b).unsqueeze(0).expand(n, -1)"),
    # A positive axis: read with one axis per count (the assumption); fewer axes make expand raise.
    ("y = x.unsqueeze(1).repeat(1, n, 1)", "y = x.unsqueeze(1).expand(-1, n, -1)"),
    ("y = torch.unsqueeze(x, 2).repeat(1, 1, k)", "y = torch.unsqueeze(x, 2).expand(-1, -1, k)"),
    ("y = x[:, None].repeat(1, n, 1)", "y = x[:, None].expand(-1, n, -1)"),
    ("y = x[:, None, None, :].repeat(1, n, 1, 1)", "y = x[:, None, None, :].expand(-1, n, -1, -1)"),
    ("y = x[None, :, None].repeat(1, 1, k)", "y = x[None, :, None].expand(-1, -1, k)"),
    ("y = x[:, ..., None].repeat(1, 1, 1, k)", "y = x[:, ..., None].expand(-1, -1, -1, k)"),
])
def test_trt404_rewrites(before: str, after: str) -> None:
    code = HEADER + f"def f(x, a, b, n, k):\n    {before}\n    return y\n"
    assert rules_found(code, select=("TRT404",)) == ["TRT404"]
    expected = HEADER + f"def f(x, a, b, n, k):\n    {after}\n    return y\n"
    assert rewrite(code, unsafe=True, select=("TRT404",)) == expected
    assert rewrite(code, select=("TRT404",)) == code, "unsafe fix applied without --unsafe"


@pytest.mark.parametrize("line", [
    "y = x.repeat(n, 1, 1)",                       # the axis is not visibly of size 1
    "y = x.unsqueeze(1).repeat(n, 1, 1)",          # the count is not on the new axis (axis 1)
    "y = x[None, None].repeat(n, k, 1)",           # two counts repeat: fewer axes could give other values
    "y = x[1:, None].repeat(1, n, 1)",             # a partial slice: not a plain kept axis
    "y = x[0, None].repeat(n, 1)",                 # an integer index removes an axis
    "y = x[None, ..., ...].repeat(n, 1)",          # two ellipses: an error
    "y = x.unsqueeze(0).repeat(n, 2, 1)",          # another axis repeated too
    "y = x.unsqueeze(0).repeat(1, n, 1)",          # the count is not on the new axis
    "y = x.unsqueeze(0).repeat(1, 1, 1)",          # nothing repeated
    "y = x.unsqueeze(0).repeat(-1, 1)",            # raises either way
    "y = x.unsqueeze(0).repeat(*sizes)",           # counts unknown
    "y = x.unsqueeze(d).repeat(n, 1)",             # computed axis
    "y = x[:, None].repeat(n, 1, 1)",              # the count meets the kept axis
    "y = x[None].repeat(n, 1, repeats=2)",         # not torch's signature
    "y = np.repeat(x[None], n, 0)",                # NumPy's function
    "arr = np.zeros((3, 4))\n    y = arr[None].repeat(n, 1)",   # a NumPy array: repeat(n, axis)
    "y = x.numpy()[None].repeat(n, 1)",            # a NumPy array
    "y = np.ones(3)[None].repeat(n, 1)",           # a NumPy array
    "y = 'ab'.repeat(n)",                          # not a tensor
])
def test_trt404_look_alikes(line: str) -> None:
    code = HEADER + f"def f(x, n, d, sizes):\n    {line}\n    return y\n"
    assert "TRT404" not in rules_found(code, select=("TRT404",))


def test_trt404_needs_torch_and_is_opt_in() -> None:
    code = "def f(x, n):\n    return x[None].repeat(n, 1)\n"
    assert rules_found(code, select=("TRT404",)) == []
    assert "TRT404" not in rules_found(HEADER + code)
    assert rules_found(HEADER + code, select=("TRT4",)).count("TRT404") == 1


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_trt404_export_tile_becomes_expand(dynamo: bool) -> None:
    code = HEADER + ("class M(nn.Module):\n    def forward(self, x, y):\n"
                     "        return x.unsqueeze(0).repeat(y.shape[0], 1, 1) + y\n")
    after = rewrite(code, unsafe=True, select=("TRT404",))
    x, y = torch.randn(3, 5), torch.randn(2, 3, 5)
    before_ops, _ = _export(_module(code), (x, y), dynamo)
    after_ops, data = _export(_module(after), (x, y), dynamo)
    assert "Tile" in before_ops
    assert "Tile" not in after_ops and "Expand" in after_ops
    # The exported graph follows the dynamic batch (4 here, traced with 2).
    y4 = torch.randn(4, 3, 5)
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    feed = {arg.name: value.numpy() for arg, value in zip(session.get_inputs(), (x, y4))}
    got = torch.from_numpy(np.asarray(session.run(None, feed)[0]))
    torch.testing.assert_close(got, x.unsqueeze(0).repeat(4, 1, 1) + y4, rtol=0, atol=0)


def _export(model: torch.nn.Module, inputs: tuple, dynamo: bool) -> tuple[list[str], bytes]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, inputs, dynamo=True, verbose=False,
                                        dynamic_shapes=({}, {0: torch.export.Dim("n", min=2, max=64)}))
            data = program.model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=["x", "y"],
                              dynamic_axes={"y": {0: "n"}})
            data = buffer.getvalue()
    return [node.op_type for node in onnx.load_from_string(data).graph.node], data
