"""A thirty-eighth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo38.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on 3-D and depth: the thirty-first zoo's pins and three more libraries by
three other authors, whose code no earlier zoo or sweep ran (``PINS38``: unpacked wheels like the others, never
pip-installed): depth-estimation 0.1.3 (shriarul5273's "Transformers-style" monocular depth library: its own Depth
Anything v2 code (DINOv2 with position embeddings interpolated to the input's patch grid, a DPT head), Depth Anything v3
(DINOv2 with RoPE, QK-norm and alternating local and global attention, a dual DPT head giving depth and confidence; its
head imports addict in the forward) and MoGe-2 (inlined DINOv2 and a utils3d shim: a token grid from the image's aspect
ratio, view-plane uv maps per level, point, mask and metric-scale heads, and an ``infer`` that recovers focal length and
shift by a Gauss-Newton solve in NumPy, image by image); torch, einops, NumPy, addict), cpd-pytorch 1.0.0 (Yuliang
(Chris) Xiao's Coherent Point Drift point set registration: rigid, affine and deformable EM loops in Python until the
objective's change is under a tolerance, batched pairs frozen as each converges; torch and NumPy; its classes are not
modules, so the user wraps them) and pyniftireg 0.1.1 (Chung Tin Lo's NiftyReg-style registration: stationary velocity
fields exponentiated by scaling and squaring with the step count computed in Python from the field's largest norm, cubic
B-spline control points evaluated by weight matrices built for the size, pull-back warps by grid_sample on meshgrid
identity maps, a fixed-point inverse with an early exit, Jacobian determinants, NMI by Parzen histograms and LNCC by
Gaussian kernels; torch and NumPy). New in the ``bench`` extra: addict (pure Python). Considered and dropped before any
model was chosen (by the wheel's files, metadata and a first look at its code, or a first import): det3d 0.0.4 (Tao
Xiang's CenterPoint for Livox LiDAR: ``CenterHead.__init__`` calls ``.cuda()``, its NMS module imports a compiled
``iou3d_nms_cuda`` at import; pins torch 1.8), torchdrive 0.0.1 (Tristan Rice's BEV perception: its detection and
semantic models import mmcv, mmdet and mmseg, its ray marcher pytorch3d), pointtorch 1.1.0 (point cloud I/O and NumPy
operations; h5py, laspy, lazrs, tables and scikit-learn), hf-deepali 0.6.5 (registration, but dacite, deprecation and
ruamel.yaml at import, none in the venv), torch-fps 0.6.0 (Felix Yu's farthest point sampling: on CPU it compiles C++
kernels just in time on first use and on CUDA it runs Triton, so the code a deploying user runs depends on the machine;
pure PyTorch only as a fallback), pyniftireg's ``TorchReg`` (an optimiser loop with autograd, not a deployable forward),
cpd-pytorch's constrained deformable registration (known correspondences as index inputs; four cpd models were enough);
within depth-estimation, Depth Anything v1 (its constructor fetches DINOv2 through torch.hub), MiDaS and ZoeDepth
(transformers pipelines; transformers' DPT is zooed), Marigold-DC (diffusers), VGGT, OmniVGGT, Depth Pro and
Pixel-Perfect Depth (ViT-L-sized or larger networks with no small configuration); the libraries zoos 15 to 36 dropped or
used, as they found. Zoo 37 (built at the same time, tracking, pose, face, OCR and 2-D detection) picks none of these.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 36 or
in the library sweeps (benchmarks/sweep_*.py), all 20 from the three new libraries and at least 17 of the kinds that
most often need work for an ONNX or TensorRT deployment (position embeddings interpolated to a patch grid from the
input's size with Python ints, RoPE positions from the grid, refinement resized to each skip's size, meshgrid pixel
grids and intrinsics from the map's size, a per-image Python loop with ``.cpu().numpy()`` and a Gauss-Newton solve whose
result comes back by ``torch.tensor``, an fp16 autocast on CPU, ``torch.where`` with ``inf``, EM loops whose iteration
count depends on the data (8 to 18 iterations on the check inputs, 40 for the outlier variant), ``bool(tensor.any())``
loop conditions, SVD with a determinant sign fix, linear solves, a low-rank eigendecomposition, ``float(tensor.max())``
and ``math.log2`` deciding the number of squarings, ``torch.tensor`` of Python scales, weight matrices built in Python
for the size, a fixed-point loop with a ``float`` tolerance test and ``break``). Monocular depth, from depth-estimation,
random weights, sizes multiples of 14: Depth Anything v2 ViT-S (depth; and with the user's back-projection of the depth
to a (batch, h*w, 3) point cloud), Depth Anything v3 small (depth; depth and confidence from ``_forward_full``; the
back-projection), MoGe-2 with a small configuration of its classes (ViT-S/14 encoder, 12 tokens, five levels of 64 to 32
channels, point, mask and scale heads): ``MoGeModel.forward`` (the loop over images, ``infer`` with its focal and shift
recovery, non-finite depths zeroed) and ``infer`` with a known field of view (only the shift solved) giving depth and
mask. Point set registration, from cpd-pytorch, in the user's module, on a (target, source) pair of 3-D point sets (the
check's source: the target rotated 0.3 rad about x, shifted by 0.2, with a little noise): rigid (moved points), rigid
without scale with its scale, rotation and translation, rigid with outlier weight 0.2 and normalised units, rigid on a
batch of pairs, affine with its matrix and translation, deformable (Gaussian kernel, linear solves) and deformable with
a 16-eigenpair low-rank kernel. Learned registration, from pyniftireg, in the user's module (a two-convolution network
from the fixed and moving images to a field): a 2-D velocity field with automatic squarings and the warp, a 3-D one with
5 squarings and a trilinear warp, ``exp(-v)`` with automatic squarings scored by LNCC, cubic B-spline control points
every 8 pixels (their count from the size) and a border warp, the same at spacing 10 with NMI, and a displacement field
inverted by ``flow.invert``.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (and depth for
the volumes); points for a pair of point sets, pairs and points for the batched registration. Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs) at two sizes (the spec's, and one more image or pair and 14 px more on each image axis for the
depth models, 16 more voxels or points for the others) before the first migrate run: with one thread on the shared two
cores (loaded by other sessions: times moved by up to 2x between runs), each in its own process, a forward at the spec's
size took 0.23 to 0.30 s for the Depth Anything models, 0.26 to 0.45 s for MoGe-2 (its fp16 autocast on CPU), 0.01 to
0.10 s for the cpd models and 0.001 to 0.13 s for the pyniftireg models; at most 0.68 s at the larger size (MoGe-2
through its forward on two 62 x 78 images); builds (imports included) took 3.8 to 16.3 s. The cpd wrappers were also run
on the zoo's own inputs (uniform, so two unrelated point sets: more EM iterations): deterministic and finite, 0.04 to
0.22 s a forward. Changed after the first eager runs, before any migrate run: Depth Anything v2 ViT-B and v3 base were
dropped (0.47 to 0.63 s and 0.40 to 0.46 s at 70 x 84), so were a v2 min-max display normalisation and pyniftireg's
Jacobian determinant (to keep 20); MoGe-2 went from 48 to 96 tokens with a normal head (0.7 to 3.5 s in a first trial)
to 24 tokens without it (0.37 to 0.47 s) and then 12 (0.26 to 0.45 s); MoGe's ``infer`` with a field of view passes
``apply_mask=False`` (its masked depth is ``inf`` outside the mask); the pair models' dynamic axis was corrected from 2
to 1 (the points axis)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): depth_estimation (shriarul5273's monocular depth models: Depth Anything v2 and v3 with their own
#: DINOv2 and DPT code; torch, einops, NumPy, addict), cpd_pytorch (Yuliang Xiao's Coherent Point Drift point set
#: registration: EM loops until convergence; torch and NumPy) and pyniftireg (Chung Tin Lo's NiftyReg-style
#: registration: velocity fields integrated by scaling and squaring, cubic B-splines, warps by grid_sample,
#: Jacobians; torch and NumPy).
PINS38 = {**PINS31, "depth_estimation": "0.1.3", "cpd_pytorch": "1.0.0", "pyniftireg": "0.1.1"}

_UNORDERED = '\nunordered = ["output"]'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# depth_estimation: monocular depth, random weights (the models' own initialisation; from_pretrained downloads).
_DA2 = ("from depth_estimation.models.depth_anything_v2.modeling_depth_anything_v2 import (DepthAnythingV2Model, "
        "DepthAnythingV2Config)")
_DA3 = ("from depth_estimation.models.depth_anything_v3.modeling_depth_anything_v3 import (DepthAnythingV3Model, "
        "DepthAnythingV3Config)")


def _da2(backbone: str) -> str:
    return f'DepthAnythingV2Model(DepthAnythingV2Config(backbone="{backbone}"))'


def _da3(backbone: str) -> str:
    return f'DepthAnythingV3Model(DepthAnythingV3Config(backbone="{backbone}"))'


#: MoGe-2 with random weights: the library builds its network from the checkpoint's config, so the user gives a small
#: one of the same classes (a DINOv2 ViT-S/14 encoder, 12 tokens, a five-level neck with view-plane uv maps,
#: point, mask and metric-scale heads).
_MOGE = """from depth_estimation.models.moge.modeling_moge import MoGeModel, _MoGeModelV2
from depth_estimation.models.moge.configuration_moge import MoGeConfig


def moge():
    dims = [64, 32, 32, 32, 32]
    stack = dict(dim_in=dims, dim_res_blocks=dims, resamplers=["conv_transpose"] * 4, num_res_blocks=1)
    net = _MoGeModelV2(encoder=dict(backbone="dinov2_vits14", intermediate_layers=4, dim_out=64),
                       neck=dict(stack, dim_in=[66, 2, 2, 2, 2], dim_out=[None] * 5),
                       points_head=dict(stack, dim_out=[None] * 4 + [3]),
                       mask_head=dict(stack, dim_out=[None] * 4 + [1]),
                       scale_head=dict(dims=[384, 128, 1]), remap_output="exp", num_tokens_range=(12, 12))
    model = MoGeModel(MoGeConfig.from_variant("moge-v2-vits-normal"))
    model._net = net
    return model"""
_DEPTH = "return self.m(x)"
#: MoGe's infer with a known horizontal field of view (60 degrees): only the shift is solved, the focal length
#: comes from the fov and the aspect ratio; depth (unmasked) and the mask.
_MOGE_FOV = ('out = self.m._net.infer(x, num_tokens=12, fov_x=60.0, use_fp16=False, apply_mask=False)\n        '
             'return out["depth"], out["mask"]')
#: The user's back-projection: the depth map as a camera-frame point cloud, with pinhole intrinsics made from the
#: image's size (focal length the width, principal point the centre) and pixel coordinates from a meshgrid.
_POINTS = ("depth = self.m(x)\n        "
           "b, h, w = depth.shape\n        "
           "v, u = torch.meshgrid(torch.arange(h, dtype=x.dtype), torch.arange(w, dtype=x.dtype), indexing=\"ij\")\n"
           "        "
           "f = float(w)\n        "
           "px = (u - (w - 1) / 2) / f * depth\n        "
           "py = (v - (h - 1) / 2) / f * depth\n        "
           "return torch.stack([px, py, depth], -1).reshape(b, h * w, 3)")
#: Depth Anything v3's full output: depth and its confidence from the dual DPT head.
_DA3_FULL = ('out = self.m.net._forward_full(x)\n        '
             'return out["depth"].squeeze(1), out["depth_conf"].squeeze(1)')

# ---------------------------------------------------------------------------------------------------------------
# cpd_pytorch: point set registration in the user's module (the library's classes are not modules).
_CPD = """from cpd_pytorch import (RigidRegistration, AffineRegistration, DeformableRegistration,
                         ConstrainedDeformableRegistration)


class CPD(torch.nn.Module):
    \"\"\"Register the source points x[1] to the target points x[0] with a cpd_pytorch method and its options.\"\"\"

    def __init__(self, method, params=False, **options):
        super().__init__()
        self.method = method
        self.params = params
        self.options = options

    def forward(self, x):
        reg = self.method(X=x[0], Y=x[1], **self.options)
        ty, params = reg.register()
        if self.params:
            return (ty,) + tuple(torch.as_tensor(p) for p in params)
        return ty


class BatchCPD(CPD):
    \"\"\"A batch of pairs (B, 2, N, D): every pair registered at once, each frozen once it converges.\"\"\"

    def forward(self, x):
        reg = self.method(X=x[:, 0], Y=x[:, 1], **self.options)
        ty, params = reg.register()
        return ty
"""
_PAIR = 'dynamic_axes = { x = { 1 = "points" } }'
_BPAIR = 'dynamic_axes = { x = { 0 = "pairs", 2 = "points" } }'
_CPD_FWD = "return self.m(x)"

# ---------------------------------------------------------------------------------------------------------------
# pyniftireg: the user's learned registration: a small network predicts a field from the fixed and moving images
# (channels 0 and 1), the library integrates, interpolates and applies it.
_PN = """import torch.nn.functional as F
from pyniftireg import bspline, flow, grid, jacobian
from pyniftireg.registration import nmi, lncc


class FieldNet(torch.nn.Module):
    \"\"\"Two convolutions from the (fixed, moving) pair to a d-component field at the image's size, scaled.\"\"\"

    def __init__(self, d, scale):
        super().__init__()
        conv = torch.nn.Conv2d if d == 2 else torch.nn.Conv3d
        self.body = torch.nn.Sequential(conv(2, 8, 3, padding=1), torch.nn.LeakyReLU(0.2), conv(8, d, 3, padding=1))
        self.scale = scale

    def forward(self, x):
        return self.body(x) * self.scale


class SVFReg(torch.nn.Module):
    \"\"\"A stationary velocity field, exponentiated by scaling and squaring, warps the moving image.\"\"\"

    def __init__(self, d, scale=4.0, steps="auto", out="warped"):
        super().__init__()
        self.net = FieldNet(d, scale)
        self.steps = steps
        self.out = out

    def forward(self, x):
        v = self.net(x)
        u = flow.exp(v, steps=self.steps)
        if self.out == "jacobian":
            return jacobian.det(u)
        if self.out == "inverse":
            return flow.exp(-v, steps=self.steps)
        return grid.warp(x[:, 1:2], u)


class BSplineReg(torch.nn.Module):
    \"\"\"Control points every ``spacing`` pixels, pooled from the field, evaluated densely; the warp and NMI.\"\"\"

    def __init__(self, spacing=8, metric=False):
        super().__init__()
        self.net = FieldNet(2, 2.0)
        self.spacing = spacing
        self.metric = metric

    def forward(self, x):
        h, w = x.shape[2:]
        field = self.net(x)
        cp_shape = [bspline.num_control_points(n, self.spacing) for n in (h, w)]
        cp = F.adaptive_avg_pool2d(field, cp_shape)
        disp = bspline.to_dense(cp, (h, w), self.spacing)
        warped = grid.warp(x[:, 1:2], disp, padding_mode="border")
        if self.metric:
            return warped, nmi(warped, x[:, :1])
        return warped


class InvertReg(torch.nn.Module):
    \"\"\"A displacement field from the network, inverted by the library's fixed-point loop (early exit on tol).\"\"\"

    def __init__(self):
        super().__init__()
        self.net = FieldNet(2, 1.0)

    def forward(self, x):
        u = self.net(x)
        return flow.invert(u, iters=30, tol=1e-4)
"""
_PN_FWD = "return self.m(x)"
_PN_LNCC = ("u = self.m(x)\n        "
            "return lncc(grid.warp(x[:, :1], u), x[:, 1:2], None, 2.0)")
_BDHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'

MODELS38 = [
    # depth_estimation: monocular depth (random weights; sizes multiples of the 14-pixel patch).
    Spec("de_dav2_vits_depth", "depth_estimation Depth Anything v2 ViT-S (DINOv2 with its position embedding "
         "interpolated to the patch grid of the input's size, four intermediate layers reshaped to the grid, a DPT "
         "head with refinement resized to each skip's size, depth at the input's size)", _DA2, _da2("vits"),
         _DEPTH, "1, 3, 98, 126", _BHW),
    Spec("de_dav2_vits_points", "depth_estimation Depth Anything v2 ViT-S with the user's back-projection (pixel "
         "grid by meshgrid of the depth map's size, intrinsics from the width) to (batch, h*w, 3) points", _DA2,
         _da2("vits"), _POINTS, "1, 3, 84, 112", _BHW),
    Spec("de_dav3_small_depth", "depth_estimation Depth Anything v3 small (DINOv2 with RoPE from a position grid, "
         "QK-norm and alternating local and global attention from a start layer, a dual DPT head; depth)", _DA3,
         _da3("small"), _DEPTH, "1, 3, 98, 126", _BHW),
    Spec("de_dav3_small_conf", "depth_estimation Depth Anything v3 small's full head output: depth and its "
         "confidence", _DA3, _da3("small"), _DA3_FULL, "1, 3, 84, 112", _BHW),
    Spec("de_dav3_small_points", "depth_estimation Depth Anything v3 small with the user's back-projection to "
         "points", _DA3, _da3("small"), _POINTS, "1, 3, 70, 98", _BHW),
    Spec("de_moge2_depth", "depth_estimation MoGe-2 (a small config of its classes) through MoGeModel.forward: "
         "a Python loop over the images, each inferred with the token grid from its aspect ratio, the image "
         "resized to it, view-plane uv maps per level, points, mask and metric scale resized back, the focal "
         "length and shift recovered by a Gauss-Newton solve in NumPy on a 64x64 nearest downsample of the masked "
         "points, depth set to inf outside the mask, then non-finite depths zeroed", _MOGE, "moge()", _DEPTH,
         "1, 3, 48, 64", _BHW),
    Spec("de_moge2_fov", "depth_estimation MoGe-2's infer on a batch with a known field of view (the focal length "
         "from tan of the fov, only the shift solved per image in NumPy): depth and the boolean mask", _MOGE,
         "moge()", _MOGE_FOV, "1, 3, 48, 64", _BHW),
    # cpd_pytorch: Coherent Point Drift on a (target, source) pair of 3-D point sets, as many points each.
    Spec("cpd_rigid", "cpd_pytorch RigidRegistration (EM: Gaussian posteriors over all point pairs, a rotation by "
         "SVD with a determinant correction, scale and translation, variance floored; a Python loop until the "
         "objective's change is under the tolerance or 50 iterations): the moved source points", _CPD,
         "CPD(RigidRegistration, max_iterations=50)", _CPD_FWD, "2, 64, 3", _PAIR),
    Spec("cpd_rigid_params", "cpd_pytorch RigidRegistration without scale, its parameters too (moved points, "
         "scale, rotation, translation)", _CPD, "CPD(RigidRegistration, params=True, scale=False, max_iterations=40)",
         _CPD_FWD, "2, 48, 3", _PAIR),
    Spec("cpd_rigid_outliers", "cpd_pytorch RigidRegistration with a uniform outlier weight 0.2 and normalised "
         "units (centred on centroids, divided by the pooled RMS radius, mapped back)", _CPD,
         "CPD(RigidRegistration, w=0.2, normalize=True, max_iterations=40)", _CPD_FWD, "2, 64, 3", _PAIR),
    Spec("cpd_rigid_batch", "cpd_pytorch RigidRegistration on a batch of pairs (each pair's state frozen once it "
         "converges, the loop run while any is active)", _CPD, "BatchCPD(RigidRegistration, max_iterations=40)",
         _CPD_FWD, "2, 2, 48, 3", _BPAIR),
    Spec("cpd_affine", "cpd_pytorch AffineRegistration (an affine matrix by a linear solve per M-step)", _CPD,
         "CPD(AffineRegistration, params=True, max_iterations=40)", _CPD_FWD, "2, 64, 3", _PAIR),
    Spec("cpd_deformable", "cpd_pytorch DeformableRegistration (a Gaussian kernel over the source points, "
         "coefficients by a linear solve each M-step, convergence on the variance's change)", _CPD,
         "CPD(DeformableRegistration, alpha=2.0, beta=2.0, max_iterations=30)", _CPD_FWD, "2, 48, 3", _PAIR),
    Spec("cpd_deformable_lowrank", "cpd_pytorch DeformableRegistration with the kernel's 16 leading eigenpairs "
         "(low rank)", _CPD, "CPD(DeformableRegistration, low_rank=True, num_eig=16, max_iterations=30)", _CPD_FWD,
         "2, 64, 3", _PAIR),
    # pyniftireg: learned 2-D and 3-D registration with the library's fields (random weights).
    Spec("pn_svf_auto", "pyniftireg flow.exp with steps='auto' (the number of squarings from the field's largest "
         "norm, in Python through float and math.log2) of the user's velocity field, composed by grid_sample on an "
         "identity grid from meshgrid; the moving image warped", _PN, "SVFReg(2)", _PN_FWD, "1, 2, 64, 80", _BHW),
    Spec("pn_svf_3d", "pyniftireg 3-D flow.exp with 5 squarings and a trilinear warp of the moving volume", _PN,
         'SVFReg(3, scale=2.0, steps=5)', _PN_FWD, "1, 2, 24, 32, 32", _BDHW),
    Spec("pn_svf_inverse_lncc", "pyniftireg exp(-v) with auto steps, the inverse field's warp scored by the "
         "library's local normalised cross-correlation (Gaussian smoothing kernels from sigma)", _PN,
         'SVFReg(2, scale=3.0, out="inverse")', _PN_LNCC, "1, 2, 64, 64", _BHW),
    Spec("pn_bspline", "pyniftireg cubic B-spline: control points every 8 pixels (their count from the size), "
         "B-spline weight matrices per axis built for the size, the dense displacement, a border warp", _PN,
         "BSplineReg()", _PN_FWD, "1, 2, 64, 96", _BHW),
    Spec("pn_bspline_nmi", "pyniftireg cubic B-spline warp scored by the library's normalised mutual information "
         "(Parzen histograms of 64 bins)", _PN, "BSplineReg(spacing=10, metric=True)", _PN_FWD, "2, 2, 60, 80",
         _BHW),
    Spec("pn_invert", "pyniftireg flow.invert: a fixed-point loop of warps with an early exit when the change is "
         "under the tolerance (a float of the max) or after 30 iterations", _PN, "InvertReg()", _PN_FWD,
         "1, 2, 48, 64", _BHW),
]

if __name__ == "__main__":
    main(MODELS38, "real_zoo38", PINS38)
