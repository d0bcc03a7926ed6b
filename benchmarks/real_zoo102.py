"""A hundred-and-second real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo102.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to hundred-and-first, every model keeps the library's own tensor pre- and post-processing or
control flow inside the wrapper's forward: torchdrive's camera-to-BEV detection (per-camera RegNet encoders with
positional encodings, a cross-attention BEV transformer, a DETR-style query decoder with ``sigmoid`` boxes; once on one
frame and once with two frames merged by ``BEVMerger``), saldet's salient-object detectors (PFAN, whose VGG-16
features reach the head through forward hooks writing module-level globals; PGNet, a Swin and ResNet pyramid grafting
network that resizes its input to 224 for the Swin branch; U2-Net lite, a recursive closure over its stages that
appends side outputs to a list and fuses them), findcrack's crack segmentation with its four-way test-time
augmentation (flips and ``rot90``, averaged sigmoids) in a per-image loop, and diffpose-video's 2D-to-3D human pose
lifting (MixSTE with the flip augmentation and the left/right joint swap by index lists; then DiffPose's GCN
diffusion refinement, DDIM steps over ``compute_alpha`` of the library's beta schedule, root-relative output). The
thirty-first zoo's pins (torchvision, timm and transformers among them) and four libraries no earlier zoo or sweep
unpacked (``PINS102``: unpacked wheels like the others, never pip-installed):

- torchdrive 0.0.1 (Tristan Rice, github.com/d4l3k/torchdrive, BSD-3-Clause: "PyTorch library for BEV style
  perception models": ``CamBEVEncoder``, ``CamBEVTransformer``, ``BEVMerger``, ``DetBEVDecoder``).
- saldet 0.6.1 (Riccardo Musmeci, github.com/riccardomusmeci/saldet, MIT: "Saliency Detection library (models, loss,
  utils) with PyTorch": PFAN, PGNet, U2-Net full and lite).
- findcrack 0.1.8 (StrikerEurika, github.com/StrikerEurika/findcrack, MIT: "A deep learning crack detection package
  supporting U-Net and DeepCrack models with PyTorch and ONNX backends": its fallback ``UNet`` and ``tta_forward``).
- diffpose-video 0.3.0 (packaged by github.com/mtaimooradil/diffpose-video from DiffPose, Gong, Foo, Fan, Ke,
  Rahmani and Liu, github.com/GONGJIA0208/Diffpose; MIT: "3D human pose estimation from video using DiffPose +
  MixSTE": ``MixSTE2``, ``GCNdiff``, the beta schedule and the inference utilities).

What the packages import beyond their networks, and what is stubbed: torchdrive's ``models.det`` (where
``DetBEVDecoder`` lives) imports mmcv and mmdet at module level for its ``BDD100KDet`` helper, which is not built:
empty modules holding None for ``revert_sync_batchnorm``, ``load_checkpoint``, ``wrap_fp16_model``,
``build_detector`` and ``TwoStageDetector``; ``transforms.img`` imports matplotlib (present); ``attention`` tries
xformers and flash-attn (absent: its naive attention runs). torchdrive's ``RegNetEncoder`` calls its trunk with
``pretrained=True`` and saldet's PFAN builds ``vgg16(weights=VGG16_Weights.DEFAULT)``: both would download weights,
so while the model is built the named torchvision constructor (``regnet_x_400mf``, ``vgg16``) is replaced on
``torchvision.models`` by one that builds it with ``weights=None`` (the same function object passed as the trunk, so
that RegNetEncoder's identity checks on ``models.regnet_x_400mf`` choose its channel table), then restored. saldet's
package ``__init__`` and ``saldet.models``' ``__init__`` import its Lightning module (pytorch-lightning,
lightning-bolts, albumentations: not installed): both registered without running them; ``saldet.models.models``
imports cv2, timm and torchvision (present). findcrack's ``__init__``, ``models``' and ``inference``' ``__init__``
import its pipeline, ONNX Runtime wrapper and preprocessing (albumentations, onnxruntime, scikit-image: not
installed): registered without running them; ``models.unet`` imports torch and ``inference.tta`` NumPy and
``findcrack.utils`` (which tries segmentation-models-pytorch and falls back without it). diffpose-video's
``__init__`` holds its version and ``configs_dir``; its model and common modules import einops, timm, SciPy and
NumPy (present); nothing is stubbed. No weights are downloaded or loaded; nothing writes under the user's home.
Nothing new in the ``bench`` extra.

Written in the wrapper and why: diffpose-video's ``generalized_steps`` (``common/utils_diff.py``, the DDIM loop its
``scripts/infer.py`` ``lift_to_3d`` calls) builds its timesteps with ``.cuda()`` and cannot run on a CPU: the
wrapper runs the same loop (``compute_alpha`` from the library, ``eta`` 0, the final sample) on the input's device.
The flip augmentation and the uv-plus-xyz concatenation follow ``lift_to_3d``; the 243-frame windowing
(``build_windows``, NumPy in) and ``stitch_windows`` (NumPy) are left out: the wrapper takes windows. The config is
the wheel's ``human36m_diffpose_uvxyz_cpn.yml`` (GCNdiff: 96 hidden, 5 layers, 4 heads; 51-step linear beta schedule;
``test_num_diffusion_timesteps`` 6, ``test_timesteps`` 1: one DDIM step), read as its ``load_config`` reads it. MixSTE
is reduced from the inference script's 243 frames, 512 dimensions and depth 8 to fit the time limit on this CPU.

Considered and dropped (by the package index's list, the wheels' files and a first reading of the code):
kraken 7.1.1 (VGSL recognition and BLLA segmentation: its model module imports Lightning Fabric and coremltools at
module level, its segmentation post-processing is SciPy, scikit-image and Shapely); flat-bug 1.2.0 (its pyramid tiled
predictor wraps an ultralytics ``YOLO`` loaded from weights, pinned to ultralytics up to 8.4.90, contours by OpenCV);
tracktors 2.6.0.dev3 (its tensor trackers import supervision's fork and Triton kernels; state across frames);
meyelens 2.0.2 (its network ships as a saved ``.pt``); acaua 0.1.0.dev0 (adapters over transformers' RT-DETR and
Mask2Former, earlier zoos' networks); torchdrive's ``BDD100KDet`` and ``BDD100KSemSeg`` (mmdet and mmseg with
checkpoints); findcrack's patch extraction and blending (NumPy) and its smp and ultralytics loaders (earlier zoos'
libraries); saldet's U2-Net full (the lite variant is taken; U2-Net's architecture may have appeared in an earlier
zoo through another library: the weaker test here); no wheel on the index for anime-face-detector 0.1.0,
ellipse-rcnn 0.2.2, earsegmentationai 2.0.0, glip-object-detection 0.1.0, yogo 1.0.0 or keymorph 2.0.1.

8 models, chosen by family before any migrate run, of the kinds that often need work for an ONNX or TensorRT
deployment:

torchdrive (BEV detection from cameras): "td_bev_det": two cameras (96x128), each through its own ``RegNetEncoder``
(torchvision's RegNetX-400MF, random weights, features at stride 16 with a 6-channel positional encoding, 48
dimensions), ``CamBEVTransformer`` (an 8x8 BEV grid of queries from max-pooled context and positional encoding,
cross-attention over both cameras' features), ``ConvPEBlock``, then ``DetBEVDecoder`` (20 queries, cross-attention over
the BEV grid, a ``ConvMLP`` box head with ``sigmoid`` and class logits for 10 classes and no-object); outputs the logits
(B, 20, 11) and boxes (B, 20, 9). "td_bev_temporal_det": the same encoder on two frames, ``BEVMerger`` over the two
BEV grids, the decoder. BatchNorm calibrated. Batch dynamic (positional encodings fix the image size).

saldet (salient-object detection): "saldet_pfan": ``PFAN`` (VGG-16 features through hooks, CPFE dilated blocks,
channel and spatial attention, the saliency map by ``sigmoid``); "saldet_pgnet": ``PGNet`` (``pretrained=False``:
timm's ResNet-18 on the input, the library's Swin-B at 224 on the resized input, the grafting decoder; outputs its four
maps); "saldet_u2net_lite": ``U2NET_lite`` (the seven sigmoid maps, fused first). BatchNorm calibrated. Batch, height
and width dynamic (PFAN: multiples of 16).

findcrack (crack segmentation): "findcrack_unet_tta": ``UNet(3, 1)`` through ``tta_forward`` per image (original,
horizontal and vertical flips, ``rot90`` and back; sigmoids averaged; ``squeeze``), stacked: (B, H, W). BatchNorm
calibrated. Batch, height and width dynamic (multiples of 16).

diffpose-video (3D human pose lifting from 2D keypoints): "dpv_mixste_flip": ``MixSTE2`` (81 frames, 17 joints, 128
dimensions, depth 4) on the window and on its mirror (x negated, left and right joints swapped by index lists), the
mirror's prediction un-flipped and the two averaged: (B, 81, 17, 3). "dpv_diffpose_lift": the same first stage
(27 frames, 64 dimensions, depth 4), then ``GCNdiff`` over the H36M skeleton's adjacency (``adj_mx_from_edges``) on
the (B*F, 17, 5) uv-and-xyz poses through the DDIM loop; outputs MixSTE's estimate and the refined root-relative
joints (B, 27, 17, 3). Batch dynamic (the temporal position embedding fixes the frames).

Inputs: (2, 2, 3, 96, 128) cameras for td_bev_det, (1, 2, 2, 3, 96, 128) frames of cameras for td_bev_temporal_det,
(2, 3, 128, 128) for PFAN and U2-Net lite, (1, 3, 224, 224) for PGNet, (2, 3, 64, 64) for findcrack, (2, 81, 17, 2)
and (2, 27, 17, 2) keypoints in [0, 1) for diffpose-video.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs)
before any migrate run, with a source tree unpacked by ``fetch_sources`` and ``make_zoo``, each model in its own
process with one thread, one at a time on a two-core machine beside other work: at the spec's size, one more in the
batch and, where height and width are dynamic, a larger size. Imports 2.4 to 4.9 s, builds 0.0 to 7.9 s with
calibration. Forwards at the spec's size (two runs), one more in the batch, the larger size: td_bev_det 0.02 to
0.03 s (0.05 s for three), td_bev_temporal_det 0.05 to 0.06 s (0.07 s for two), saldet_pfan 0.42 to 0.47 s (0.71 s;
0.91 s at 160x192), saldet_pgnet 0.86 to 0.96 s (1.82 s for two; 1.05 s at 256x288), saldet_u2net_lite 0.35 to
0.39 s (0.62 s; 0.82 s at 160x192), findcrack_unet_tta 0.85 to 0.88 s (1.53 s; 1.86 s at 80x96), dpv_mixste_flip
0.40 to 0.48 s (0.72 s), dpv_diffpose_lift 0.08 to 0.10 s (0.13 to 0.14 s). After that check only the config
reader's one-line conditional was split over three lines for the line length (the same code; re-checked).

Odd, left as the libraries have them: PFAN's hooks write module-level globals that its forward reads back;
PGNet resizes to a fixed 224 for the Swin branch and its two weight maps to a fixed 28x28; U2-Net's forward is a
recursive closure appending to a list; ``tta_forward`` runs under ``torch.no_grad`` and squeezes its result;
torchdrive's attention dispatcher picks a backend by what is installed (the naive one here) and ignores
``num_heads`` in it; DetBEVDecoder enters torchdrive's ``autocast`` (a no-op without CUDA); MixSTE's flip is done by
in-place index assignment on a clone; the DDIM step draws ``randn_like`` scaled by zero (``eta`` 0)."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision: the RegNet and VGG trunks; timm: PGNet's ResNet and layers, MixSTE's
#: DropPath) and four libraries no earlier zoo or sweep unpacked, unpacked wheels like the others (never
#: pip-installed): torchdrive (BEV detection), saldet (salient-object detection), findcrack (crack segmentation with
#: test-time augmentation) and diffpose-video (3D human pose lifting).
PINS102 = {**PINS31, "torchdrive": "0.0.1", "saldet": "0.6.1", "findcrack": "0.1.8", "diffpose_video": "0.3.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

_SHARED = STAND_INS + '''
import contextlib


@contextlib.contextmanager
def _random_weights(module, name):
    """While a library builds its model, ``module.name`` builds the torchvision network with ``weights=None``
    (``pretrained`` dropped): the library would download weights."""
    original = getattr(module, name)

    def constructor(*args, pretrained=False, weights=None, **kwargs):
        return original(*args, weights=None, **kwargs)

    setattr(module, name, constructor)
    try:
        yield constructor
    finally:
        setattr(module, name, original)'''

# ---------------------------------------------------------------------------------------------------------------
# torchdrive: ``models.det`` imports mmcv and mmdet for a helper that is not built.
_TORCHDRIVE = _SHARED + '''
import functools
import torchvision
for _name in ["mmcv", "mmcv.cnn", "mmcv.cnn.utils", "mmcv.cnn.utils.sync_bn", "mmcv.runner", "mmdet", "mmdet.models",
              "mmdet.models.detectors"]:
    _not_installed(_name)
sys.modules["mmcv.cnn.utils.sync_bn"].revert_sync_batchnorm = None
sys.modules["mmcv.runner"].load_checkpoint = sys.modules["mmcv.runner"].wrap_fp16_model = None
sys.modules["mmdet.models"].build_detector = None
sys.modules["mmdet.models.detectors"].TwoStageDetector = None
from torchdrive.models.bev import BEVMerger, CamBEVEncoder
from torchdrive.models.det import DetBEVDecoder
from torchdrive.models.regnet import RegNetEncoder


class BevDetection(torch.nn.Module):
    """torchdrive's camera-to-BEV detection: ``CamBEVEncoder`` (a ``RegNetEncoder`` per camera on RegNetX-400MF,
    ``CamBEVTransformer``, ``ConvPEBlock``) on each frame of (B, T, C, 3, H, W), ``BEVMerger`` over the T grids when
    T > 1, then ``DetBEVDecoder``: class logits (B, Q, 11) and sigmoid boxes (B, Q, 9)."""

    def __init__(self, cameras=("front", "left"), frames=1, cam_shape=(96, 128), bev_shape=(8, 8), dim=48,
                 queries=20):
        super().__init__()
        self.cameras, self.frames = list(cameras), frames
        with _random_weights(torchvision.models, "regnet_x_400mf") as trunk:
            self.encoder = CamBEVEncoder(self.cameras, bev_shape=bev_shape, cam_shape=cam_shape, dim=dim,
                                         cam_encoder=functools.partial(RegNetEncoder, trunk=trunk))
        self.merger = BEVMerger(num_frames=frames, bev_shape=bev_shape, dim=dim) if frames > 1 else None
        self.decoder = DetBEVDecoder(bev_shape=bev_shape, dim=dim, num_queries=queries, num_heads=4)

    def forward(self, x):
        if self.merger is None:
            bev = self.encoder({cam: x[:, i] for i, cam in enumerate(self.cameras)})
        else:
            bev = self.merger([self.encoder({cam: x[:, t, i] for i, cam in enumerate(self.cameras)})
                               for t in range(self.frames)])
        return self.decoder(bev)'''

# ---------------------------------------------------------------------------------------------------------------
# saldet: the package's and ``saldet.models``' ``__init__`` import its Lightning module.
_SALDET = _SHARED + '''
import torchvision
_without_init("saldet")
_without_init("saldet.models")
from saldet.models.models import PFAN, PGNet, U2NET_lite


def pfan():
    with _random_weights(torchvision.models, "vgg16"):
        return PFAN()


class Maps(torch.nn.Module):
    """A saldet network whose forward returns a list or tuple of maps, returned as a tuple."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return tuple(self.net(x))'''

# ---------------------------------------------------------------------------------------------------------------
# findcrack: the package's, ``models``' and ``inference``' ``__init__`` import its pipeline and ONNX wrapper.
_FINDCRACK = _SHARED + '''
_without_init("findcrack")
_without_init("findcrack.models")
_without_init("findcrack.inference")
from findcrack.inference.tta import tta_forward
from findcrack.models.unet import UNet


class CrackTta(torch.nn.Module):
    """findcrack's ``UNet(3, 1)`` (BatchNorm, calibrated; random weights) through ``tta_forward`` for each image of
    the batch, as its pipeline calls it per patch with ``use_tta``: sigmoid of the original, of the horizontal and
    vertical flips and of ``rot90``, each turned back, averaged and squeezed. Output (B, H, W)."""

    def __init__(self):
        super().__init__()
        self.net = UNet(n_channels=3, n_classes=1)

    def forward(self, images):
        return torch.stack([tta_forward(self.net, image) for image in images])'''

# ---------------------------------------------------------------------------------------------------------------
# diffpose-video: nothing stubbed.
_DIFFPOSE = _SHARED + '''
import types
import yaml
import diffpose_video
from diffpose_video.common.infer_utils import H36M_EDGES, JOINTS_LEFT, JOINTS_RIGHT
from diffpose_video.common.utils_diff import compute_alpha, get_beta_schedule
from diffpose_video.models.gcndiff import GCNdiff, adj_mx_from_edges
from diffpose_video.models.mixste import MixSTE2


def _config():
    """The wheel's config, nested dicts as namespaces (as ``scripts/infer.py``'s ``load_config`` reads it)."""
    def namespace(value):
        if isinstance(value, dict):
            return types.SimpleNamespace(**{k: namespace(v) for k, v in value.items()})
        return value
    with open(diffpose_video.configs_dir() / "human36m_diffpose_uvxyz_cpn.yml") as f:
        return namespace(yaml.safe_load(f))


def _mirror(poses):
    """``lift_to_3d``'s flip: x negated, left and right joints swapped (on a clone)."""
    poses = poses.clone()
    poses[:, :, :, 0] *= -1
    poses[:, :, JOINTS_LEFT + JOINTS_RIGHT, :] = poses[:, :, JOINTS_RIGHT + JOINTS_LEFT, :]
    return poses


class MixsteFlip(torch.nn.Module):
    """diffpose-video's first stage: ``MixSTE2`` on a window (B, F, 17, 2) and on its mirror, the mirror's estimate
    flipped back and the two averaged. Output (B, F, 17, 3)."""

    def __init__(self, frames=81, dim=128, depth=4):
        super().__init__()
        self.pose = MixSTE2(num_frame=frames, num_joints=17, in_chans=2, embed_dim_ratio=dim, depth=depth, num_heads=8,
                            mlp_ratio=2.0, qkv_bias=True, qk_scale=None, drop_path_rate=0)

    def forward(self, windows):
        pred = self.pose(windows)
        pred_flip = self.pose(_mirror(windows))
        pred_flip[:, :, :, 0] *= -1
        pred_flip[:, :, JOINTS_LEFT + JOINTS_RIGHT, :] = pred_flip[:, :, JOINTS_RIGHT + JOINTS_LEFT, :]
        return (pred + pred_flip) / 2


class DiffposeLift(torch.nn.Module):
    """``lift_to_3d`` on windows (B, F, 17, 2): the MixSTE stage with its flip, then ``GCNdiff`` over the H36M
    adjacency on the (B*F, 17, 5) uv-and-xyz poses through ``generalized_steps``' DDIM loop (written here: the
    library's builds its timesteps with ``.cuda()``), ``eta`` 0, the final sample made root-relative. Outputs
    MixSTE's estimate and the refined joints, (B, F, 17, 3) each."""

    def __init__(self, frames=27):
        super().__init__()
        config = _config()
        self.first = MixsteFlip(frames=frames, dim=64, depth=4)
        self.diff = GCNdiff(adj_mx_from_edges(num_pts=17, edges=H36M_EDGES, sparse=False), config)
        betas = get_beta_schedule(beta_schedule=config.diffusion.beta_schedule, beta_start=config.diffusion.beta_start,
                                  beta_end=config.diffusion.beta_end,
                                  num_diffusion_timesteps=config.diffusion.num_diffusion_timesteps)
        self.register_buffer("betas", torch.from_numpy(betas).float())
        self.register_buffer("src_mask", torch.tensor([[[True] * 17]], dtype=torch.bool))
        skip = config.testing.test_num_diffusion_timesteps // config.testing.test_timesteps
        self.seq = list(range(0, config.testing.test_num_diffusion_timesteps, skip))

    def forward(self, windows):
        pred_3d = self.first(windows)
        B, F, J, _ = pred_3d.shape
        x = torch.cat([windows.reshape(B * F, J, 2), pred_3d.reshape(B * F, J, 3)], dim=2)
        n = x.size(0)
        seq_next = [-1] + self.seq[:-1]
        xt = x
        for i, j in zip(reversed(self.seq), reversed(seq_next)):
            t = torch.ones(n, device=x.device) * i
            next_t = torch.ones(n, device=x.device) * j
            at = compute_alpha(self.betas, t.long())
            at_next = compute_alpha(self.betas, next_t.long())
            et = self.diff(xt, self.src_mask, t.float(), 0)
            x0_t = (xt - et * (1 - at).sqrt()) / at.sqrt()
            c1 = 0.0 * ((1 - at / at_next) * (1 - at_next) / (1 - at)).sqrt()
            c2 = ((1 - at_next) - c1 ** 2).sqrt()
            xt = at_next.sqrt() * x0_t + c1 * torch.randn_like(x) + c2 * et
        xyz = xt[:, :, 2:]
        xyz = xyz - xyz[:, :1, :]
        return pred_3d, xyz.reshape(B, F, J, 3)'''


MODELS102 = [
    # torchdrive: camera-to-BEV detection.
    Spec("td_bev_det", "torchdrive CamBEVEncoder (two cameras, RegNetX-400MF) and DetBEVDecoder", _TORCHDRIVE,
         "BevDetection()", "return self.m(x)", "2, 2, 3, 96, 128", _B, calibrate="self.m(xb)"),
    Spec("td_bev_temporal_det", "torchdrive CamBEVEncoder on two frames, BEVMerger and DetBEVDecoder", _TORCHDRIVE,
         "BevDetection(frames=2)", "return self.m(x)", "1, 2, 2, 3, 96, 128", _B, calibrate="self.m(xb)"),
    # saldet: salient-object detection.
    Spec("saldet_pfan", "saldet PFAN (VGG-16 through hooks, CPFE, channel and spatial attention)", _SALDET, "pfan()",
         "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("saldet_pgnet", "saldet PGNet (ResNet-18 and Swin-B at 224, pyramid grafting)", _SALDET,
         "Maps(PGNet(input_size=224, pretrained=False))", "return self.m(x)", "1, 3, 224, 224", _BHW,
         calibrate="self.m(xb)"),
    Spec("saldet_u2net_lite", "saldet U2NET_lite (recursive stages, seven sigmoid maps)", _SALDET,
         "Maps(U2NET_lite())", "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    # findcrack: crack segmentation with test-time augmentation.
    Spec("findcrack_unet_tta", "findcrack UNet through tta_forward (flips, rot90) per image", _FINDCRACK, "CrackTta()",
         "return self.m(x)", "2, 3, 64, 64", _BHW, calibrate="self.m(xb)"),
    # diffpose-video: 2D-to-3D human pose lifting.
    Spec("dpv_mixste_flip", "diffpose-video MixSTE2 with flip augmentation (81 frames)", _DIFFPOSE, "MixsteFlip()",
         "return self.m(x)", "2, 81, 17, 2", _B),
    Spec("dpv_diffpose_lift", "diffpose-video MixSTE2 and GCNdiff DDIM refinement (27 frames)", _DIFFPOSE,
         "DiffposeLift()", "return self.m(x)", "2, 27, 17, 2", _B),
]

if __name__ == "__main__":
    main(MODELS102, "real_zoo102", PINS102)
