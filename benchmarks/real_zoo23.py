"""A twenty-third real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo23.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-second zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the twenty-second zoo's libraries and pins and three more libraries
by other authors, whose code no earlier zoo or sweep ran (``PINS23``: unpacked wheels like the others, never
pip-installed): landmarker 0.4.1 (Jef Jonkers' toolkit for anatomical landmark detection: hourglass, Cholesky hourglass
and spatial configuration networks, most on MONAI's blocks, and heatmap decoders by argmax, soft-argmax, local
soft-argmax, weighted spatial means with covariances, enlarged heatmaps and peak picking; its package imports nothing at
import, its models import MONAI (pinned since zoo 2) and its decoders SciPy; its metadata asks for pydicom, rarfile and
pyzmq too, of which only a dataset module imports one, rarfile), torchsr 1.0.4 (Gabriel Gouvine's super-resolution
networks: NinaSR, EDSR, RCAN, RDN, CARN and VDSR; it imports torch, torchvision, NumPy and Pillow) and craft-detector
0.2.1 (a packaging of NAVER Clova's CRAFT text detector and its link refiner on torchvision's VGG16-BN; the two model
modules import torch and torchvision, its post-processing OpenCV, SciPy and scikit-image, which no wrapper imports).
Nothing new in the ``bench`` extra. All 24 models come from the three new libraries. Considered and dropped before any
model was chosen (by the wheel's files, metadata and a first import): face-alignment 1.5.0 (its package imports its api,
whose utils import the compiled numba and scikit-image at package import), distinanet 1.0.1 (a RetinaNet with a distance
head; its model imports the package's utils, whose trainer imports ``torch.utils.tensorboard``, hence tensorboard with
grpcio and protobuf, at import), ezcrowdcount 1.0.0 (its network module imports the compiled h5py), yolox 0.3.0 (no
wheel in this index); the libraries zoos 15 to 22 dropped, as they found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 22 or in
the library sweeps (benchmarks/sweep_*.py), 18 of them of the kinds that most often need work for an ONNX or TensorRT
deployment (fourteen landmark models decoding heatmaps into coordinates, one picking every peak into rows; NinaSR's
attention cut back to its input's size when the shapes differ; three text detectors whose decoders resize to each skip's
size, one behind its resizing pre-processing). Landmarks, from landmarker, random weights, any size unless said: a
Hourglass (residual units 16-32-64-128) decoded by argmax, two stacked hourglasses by soft-argmax, a Hourglass by local
soft-argmax (the argmax's 5x5 window gathered through a mask written element by element), a Hourglass whose heatmaps are
enlarged 4 times before the argmax, a Hourglass's soft-argmax means with weighted sample covariances, a Hourglass's
peaks by the library's non-maximum suppression (9x9 blocks, unique positions; every image's peaks as rows of y, x,
score, image and class), a CoordConv layer (coordinate and radial channels from aranges) before a Hourglass with the
sigmoid-weighted spatial mean, all at 64 px in RGB; on grayscale 64 px images the Spatial Configuration Network (MONAI
UNet, configuration branch pooled and upsampled by 8) by soft-argmax, the same without the image in its configuration
branch with heatmaps enlarged to twice their shape's size, the probabilistic SCN (logits added, pooled by 16) by
soft-argmax, the original SCN by argmax, the original SCN in 3D on 32-voxel volumes by a 3D argmax (batch, depth, height
and width dynamic); the Cholesky hourglass (its covariance estimator a fully connected layer on the flattened
bottleneck, fixed to 64 px: batch alone dynamic) with argmax coordinates and covariances, and two stacked Cholesky
hourglasses (the same) with the last stack's soft-argmax. Super-resolution, from torchsr, random weights, 32 px
(NinaSR-B0 at 40 px, so that its attention's pooled and upsampled map is larger than its input): NinaSR-B0 x2, NinaSR-B1
x4, EDSR x3 (4 blocks, 32 features), RCAN x2 (2 groups of 2 blocks, 32 features), RDN x4 (3 blocks of 3 layers, growth
16), CARN-M x3 and VDSR x2 (6 convolutions, 16 features), any size. Text, from craft-detector, random weights, any size:
CRAFT's region and affinity score maps at 64 px; CRAFT with RefineNet's refined affinity map at 64 px; CRAFT behind its
inference pre-processing written in torch as a deploying user would (magnified 1.5 times, the width rounded up to a
multiple of 32 and the height following the ratio, bicubic, ImageNet-normalised) at 64x80 px.

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any size
(and depth for the 3D SCN); batch alone for the Cholesky hourglasses. Machinery, table and counts are real_zoo2.py's.
The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs) at two
sizes (the spec's, and a batch of two, 32 px larger where height and width are dynamic) before the first migrate run:
with one thread on the shared two cores (loaded by other sessions), a forward at the spec's size took 0.008 to 0.18 s,
and 0.019 to 0.71 s at the larger size; builds (imports included) took 1.9 to 17.4 s, over two full runs. Nothing was
changed after the first eager runs: every wrapper built and ran as first written."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo22 import PINS22

#: The twenty-second zoo's pins and three libraries by other authors, unpacked wheels like the others (never
#: pip-installed): landmarker (Jef Jonkers' anatomical landmark toolkit: hourglass and spatial configuration networks
#: on MONAI blocks, heatmap decoders by argmax, soft-argmax, local soft-argmax, weighted means with covariances and
#: peak picking; its package imports nothing at import, its models MONAI, its decoders SciPy), torchsr (Gabriel
#: Gouvine's super-resolution networks: NinaSR, EDSR, RCAN, RDN, CARN, VDSR; it imports torch, torchvision, NumPy and
#: Pillow) and craft-detector (a packaging of NAVER's CRAFT text detector and its link refiner on torchvision's
#: VGG16-BN; the models import torch and torchvision).
PINS23 = {**PINS22, "landmarker": "0.4.1", "torchsr": "1.0.4", "craft_detector": "0.2.1"}

_LM_MODELS = "from landmarker.models import {}"
_LM_DECODE = "from landmarker.heatmap.decoder import {}"
#: Grayscale volumes (N, 1, D, H, W): batch, depth, height and width.
_DYNAMIC_BDHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: Every image's peaks as rows (y, x, score, image, landmark): the decoder returns nested lists of points and floats.
_PEAK_ROWS = "\n        ".join([
    "coords, scores = heatmap_to_multiple_coord(torch.sigmoid(self.m(x)), window=9)",
    "rows = []",
    "for b, per_image in enumerate(coords):",
    "    for c, points in enumerate(per_image):",
    "        for point, score in zip(points, scores[b][c]):",
    "            rows.append(torch.cat([point, torch.tensor([score, b, c], dtype=point.dtype)]))",
    "return torch.stack(rows) if rows else x.new_zeros((0, 5))"])
_SR = "from torchsr.models import {}"
_CRAFT = "from craft_detector.craft import CRAFT"
#: CRAFT's inference pre-processing in torch, as its imgproc does it in OpenCV: magnified 1.5 times with the width
#: rounded up to a multiple of 32 (the height follows the ratio), ImageNet-normalised from 0-255 pixels.
_CRAFT_RESIZED = ("h, w = x.shape[2:]\n        target_w = int(w * 1.5)\n        if target_w % 32 != 0:\n"
                  "            target_w = target_w + (32 - target_w % 32)\n        ratio = target_w / w\n        "
                  "img = torch.nn.functional.interpolate(x, size=(int(h * ratio), target_w), mode='bicubic', "
                  "align_corners=False)\n        mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)\n"
                  "        std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)\n        "
                  "y, _ = self.m((img - mean) / std)\n        return y[..., 0], y[..., 1]")


def _lm(name: str, what: str, model: str, construct: str, forward: str, shape: str = "1, 3, 64, 64",
        config: str = DYNAMIC_BHW, decoders: str = "heatmap_to_coord", **kw: str) -> Spec:
    imports = f"{_LM_MODELS.format(model)}\n{_LM_DECODE.format(decoders)}"
    return Spec(f"landmarker_{name}", f"landmarker {what}", imports, construct, forward, shape, config,
                calibrate=kw.pop("calibrate", "self.m(xb)"), **kw)


def _sr(name: str, what: str, imports: str, construct: str, shape: str = "1, 3, 32, 32", **kw: str) -> Spec:
    return Spec(f"torchsr_{name}", f"torchsr {what}", imports, construct, "return self.m(x)", shape, DYNAMIC_BHW, **kw)


_HG = "Hourglass(spatial_dims=2, in_channels=3, out_channels=4, channels=[16, 32, 64, 128])"
_SCN = ("SpatialConfigurationNet(spatial_dims=2, in_channels=1, out_channels=4, la_channels=(16, 16, 16, 16), "
        "la_strides=(2, 2, 2), sp_channels=16, sp_kernel_size=5, sp_downsample=8{})")

MODELS23 = [
    # landmarker: heatmap regression and its decoders (coordinates of each landmark's peak).
    _lm("hourglass_argmax", "Hourglass (residual units 16-32-64-128, nearest upsampling) with 4 landmarks decoded "
        "by argmax (flat index divided and taken modulo the heatmap's width)", "Hourglass", _HG,
        "return heatmap_to_coord(self.m(x), method='argmax')"),
    _lm("stacked_hourglass_soft_argmax", "two stacked hourglasses (the second fed the image plus the first's "
        "heatmaps mapped back) with 3 landmarks decoded by soft-argmax (the exponentiated heatmap normalised, its "
        "mean over an arange meshgrid)", "StackedHourglass",
        "StackedHourglass(2, spatial_dims=2, in_channels=3, out_channels=3, channels=[16, 32, 64])",
        "return heatmap_to_coord(self.m(x)[-1], method='soft_argmax')"),
    _lm("hourglass_local_soft_argmax", "Hourglass (16-32-64) with 2 landmarks decoded by local soft-argmax (the "
        "argmax's 5x5 window of the padded heatmap gathered by a mask written element by element, soft-argmax "
        "within it)", "Hourglass",
        "Hourglass(spatial_dims=2, in_channels=3, out_channels=2, channels=[16, 32, 64])",
        "return heatmap_to_coord(self.m(x), method='local_soft_argmax')"),
    _lm("hourglass_enlarge_argmax", "Hourglass (16-32-64-128, bilinear upsampling) whose heatmaps are enlarged 4 "
        "times before the argmax, coordinates divided back", "Hourglass",
        "Hourglass(spatial_dims=2, in_channels=3, out_channels=4, channels=[16, 32, 64, 128], "
        "up_sample_mode='bilinear')",
        "return heatmap_to_coord_enlarge(self.m(x), method='argmax', enlarge_factor=4)",
        decoders="heatmap_to_coord_enlarge"),
    _lm("hourglass_soft_argmax_cov", "Hourglass (16-32-64, max pooling) with 3 landmarks: the soft-argmax mean and "
        "the weighted sample covariance of each heatmap (meshgrids from aranges, distances flattened, a batched "
        "matrix product)", "Hourglass",
        "Hourglass(spatial_dims=2, in_channels=3, out_channels=3, channels=[16, 32, 64])",
        "return heatmap_to_coord_cov(self.m(x), method='soft_argmax', require_grad=False)",
        decoders="heatmap_to_coord_cov"),
    _lm("hourglass_peaks_nms", "Hourglass (16-32-64) with 2 landmark classes and several instances each: peak picking "
        "(the library's non-maximum suppression: 9x9 blocks' maxima kept where they top their neighbourhood, unique "
        "positions); every image's peaks as rows (y, x, score, image, class)", "Hourglass",
        "Hourglass(spatial_dims=2, in_channels=3, out_channels=2, channels=[16, 32, 64])", _PEAK_ROWS,
        decoders="heatmap_to_multiple_coord"),
    _lm("coordconv_hourglass", "a CoordConv layer (y, x and radial channels from aranges of the input's size) before "
        "a Hourglass (16-32-64), 3 landmarks decoded by the sigmoid-weighted spatial mean", "CoordConvLayer, Hourglass",
        "torch.nn.Sequential(CoordConvLayer(2, 3, 16, radial_channel=True), "
        "Hourglass(spatial_dims=2, in_channels=16, out_channels=3, channels=[16, 32, 64]))",
        "return heatmap_to_coord(self.m(x), method='weighted_spatial_mean_sigmoid')"),
    _lm("scn_soft_argmax", "Spatial Configuration Network (MONAI UNet local appearance, the image and its heatmaps "
        "average-pooled by 8, spatial configuration convolutions, bicubic upsampling by 8, tanh, multiplied), "
        "grayscale, 4 landmarks decoded by soft-argmax", "SpatialConfigurationNet", _SCN.format(""),
        "return heatmap_to_coord(self.m(x), method='soft_argmax')", "1, 1, 64, 64"),
    _lm("scn_enlarge_to_size", "Spatial Configuration Network without the image in its configuration branch, "
        "grayscale, 4 landmarks: heatmaps enlarged to twice their size (a size from the heatmap's shape, the "
        "coordinates divided by tensors of both sizes) and decoded by the sigmoid-weighted spatial mean",
        "SpatialConfigurationNet", _SCN.format(", sp_image_input=False"),
        "hm = self.m(x)\n        return heatmap_to_coord_enlarge(hm, method='weighted_spatial_mean_sigmoid', "
        "enlarge_dim=tuple(2 * s for s in hm.shape[2:]))", "1, 1, 64, 64", decoders="heatmap_to_coord_enlarge"),
    _lm("prob_scn_soft_argmax", "probabilistic Spatial Configuration Network (MONAI UNet with 4 strides, the "
        "configuration branch's logits added, pooled and upsampled by 16), grayscale, 3 landmarks decoded by "
        "soft-argmax", "ProbSpatialConfigurationNet",
        "ProbSpatialConfigurationNet(spatial_dims=2, in_channels=1, out_channels=3, la_channels=(16, 16, 16, 16, 16), "
        "sp_channels=16, sp_kernel_size=5)",
        "return heatmap_to_coord(self.m(x), method='soft_argmax')", "1, 1, 64, 64", calibrate=""),
    _lm("original_scn_argmax", "the original Spatial Configuration Network (average-pooled U-Net of depth 3, 16 "
        "wide, bilinear upsampling added to each skip, the configuration branch pooled and upsampled by 8), "
        "grayscale, 3 landmarks decoded by argmax", "OriginalSpatialConfigurationNet",
        "OriginalSpatialConfigurationNet(in_channels=1, out_channels=3, la_channels=16, la_depth=3, sp_channels=16, "
        "sp_kernel_size=5, sp_downsample=8)",
        "return heatmap_to_coord(self.m(x), method='argmax')", "1, 1, 64, 64", calibrate=""),
    _lm("original_scn3d_argmax", "the original Spatial Configuration Network in 3D (depth 2, 8 wide, trilinear "
        "upsampling, pooled by 4) on grayscale volumes, 2 landmarks decoded by a 3D argmax (flat index split by "
        "the volume's height and width)", "OriginalSpatialConfigurationNet3d",
        "OriginalSpatialConfigurationNet3d(in_channels=1, out_channels=2, la_channels=8, la_depth=2, sp_channels=8, "
        "sp_kernel_size=3, sp_downsample=4)",
        "return heatmap_to_coord(self.m(x), method='argmax', spatial_dims=3)", "1, 1, 32, 32, 32", _DYNAMIC_BDHW,
        calibrate=""),
    _lm("cholesky_hourglass", "Cholesky hourglass (UGLLI: a Hourglass 16-32-64 whose bottleneck, flattened for a "
        "fully connected estimator fixed to 64 px, gives each landmark's Cholesky factor written into a zero "
        "matrix, and its covariance), 4 landmarks: argmax coordinates and covariances", "CholeskyHourglass",
        "CholeskyHourglass(img_size=(64, 64), in_channels=3, out_channels=4, channels=[16, 32, 64])",
        "heatmaps, cov = self.m(x)\n        return heatmap_to_coord(heatmaps, method='argmax'), cov",
        config=DYNAMIC_B, calibrate="self.m(xb)"),
    _lm("stacked_cholesky_hourglass", "two stacked Cholesky hourglasses (fixed to 64 px), 3 landmarks: the last "
        "stack's soft-argmax coordinates and covariances", "StackedCholeskyHourglass",
        "StackedCholeskyHourglass(2, (64, 64), 3, 3, channels=[16, 32, 64])",
        "heatmaps, covs = self.m(x)\n        return heatmap_to_coord(heatmaps[-1], method='soft_argmax'), covs[-1]",
        config=DYNAMIC_B),
    # torchsr: super-resolution, random weights, small configurations.
    _sr("ninasr_b0_x2", "NinaSR-B0 x2 (10 blocks, 16 features; local squeeze-excite attention pooled by 16 with "
        "padding, upsampled by 16 and cut back to the input's size when the shapes differ; pixel shuffle)",
        _SR.format("ninasr_b0"), "ninasr_b0(2, pretrained=False)", "1, 3, 40, 40"),
    _sr("ninasr_b1_x4", "NinaSR-B1 x4 (26 blocks, 32 features)", _SR.format("ninasr_b1"),
        "ninasr_b1(4, pretrained=False)"),
    _sr("edsr_small_x3", "EDSR x3 (4 residual blocks, 32 features, mean shift on 0-255 pixels, pixel shuffle by 3)",
        "from torchsr.models.edsr import EDSR", "EDSR(4, 32, 3, 1.0)"),
    _sr("rcan_small_x2", "RCAN x2 (2 residual groups of 2 channel-attention blocks, 32 features, reduction 8)",
        "from torchsr.models.rcan import RCAN", "RCAN(2, 2, 32, 8, 2)"),
    _sr("rdn_small_x4", "RDN x4 (3 residual dense blocks of 3 layers, growth 16; two pixel shuffles by 2)",
        "from torchsr.models.rdn import RDN", "RDN(4, G0=16, D=3, C=3, G=16)"),
    _sr("carn_m_x3", "CARN-M x3 (cascading grouped residual blocks, the multi-scale upsampler's x3 branch chosen "
        "by the scale)", _SR.format("carn_m"), "carn_m(3, pretrained=False)"),
    _sr("vdsr_small_x2", "VDSR x2 (the input upsampled bicubically by the scale factor, 6 convolutions, global "
        "residual, mean shift)", "from torchsr.models.vdsr import VDSR", "VDSR(6, 16, 2, False)"),
    # craft-detector: CRAFT text detection on VGG16-BN (random weights).
    Spec("craft_scores", "craft-detector CRAFT (VGG16-BN body, U-Net decoder resized to each skip's size): the "
         "character region and affinity score maps at half the input's size, any size", _CRAFT,
         "CRAFT(pretrained=False)", "y, feature = self.m(x)\n        return y[..., 0], y[..., 1]", "1, 3, 64, 64",
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("craft_refined_links", "craft-detector CRAFT with its RefineNet (the score maps and the last decoder "
         "feature concatenated, dilated ASPP-like branches summed): the refined affinity map, any size",
         f"{_CRAFT}\nfrom craft_detector.refinenet import RefineNet",
         "torch.nn.ModuleDict({'craft': CRAFT(pretrained=False), 'refine': RefineNet()})",
         "y, feature = self.m['craft'](x)\n        return y[..., 0], self.m['refine'](y, feature)[..., 0]",
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m['refine'](*self.m['craft'](xb))"),
    Spec("craft_resized", "craft-detector CRAFT behind its inference pre-processing written in torch (magnified 1.5 "
         "times, the width rounded up to a multiple of 32 and the height following the ratio, bicubic, ImageNet "
         "normalisation): both score maps, any size", _CRAFT, "CRAFT(pretrained=False)", _CRAFT_RESIZED,
         "1, 3, 64, 80", DYNAMIC_BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS23, "real_zoo23", PINS23)
