import sys, io, warnings, math
sys.path.insert(0, "/tmp/aa725zoo")
import torch, torch.nn.functional as F
_rad2deg = torch.rad2deg
def rad2deg(x):
    return x * (180.0 / math.pi)
torch.rad2deg = rad2deg
def affine_grid(theta, size, align_corners=None):
    N, C, H, W = size
    def lin(n):
        r = torch.linspace(-1, 1, n, dtype=theta.dtype)
        return r if align_corners else r * (n - 1) / n
    base = torch.ones(H, W, 3, dtype=theta.dtype)
    base = torch.stack([lin(W).unsqueeze(0).expand(H, W), lin(H).unsqueeze(1).expand(H, W), torch.ones(H, W, dtype=theta.dtype)], -1)
    grid = base.view(1, H * W, 3).matmul(theta.transpose(1, 2))
    return grid.view(-1, H, W, 2)
F.affine_grid = affine_grid
import kornia_sift_feature as m
model = m.build()
x = m.inputs(torch.Generator().manual_seed(0))[0]
warnings.simplefilter("ignore")
buf = io.BytesIO()
try:
    torch.onnx.export(model, (x,), buf, dynamo=False, opset_version=17, input_names=["x"], dynamic_axes={"x": {2: "h", 3: "w"}})
    print("EXPORTED", len(buf.getvalue()))
except Exception as e:
    print("FAIL", type(e).__name__, str(e)[:600])
