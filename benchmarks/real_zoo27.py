"""A twenty-seventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo27.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-sixth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the twenty-sixth zoo's libraries and pins and three more libraries by
three other authors, whose code no earlier zoo or sweep ran (``PINS27``: unpacked wheels like the others, never
pip-installed): facexlib 0.3.0 (Xintao Wang's face library: RetinaFace detection, BiSeNet and ParseNet parsing, MODNet
matting, HopeNet head pose, HyperIQA quality, ArcFace's MobileFaceNet; its package imports every subpackage, but only
the tracking module's own files import numba and filterpy, which nothing here imports), retinaface-pytorch 0.0.8
(Vladimir Iglovikov's RetinaFace on a ResNet-50; its network, prior and box modules need torch and torchvision alone,
its prediction and training modules albumentations and more, unused) and torchdiffeq 0.2.5 (Ricky Chen's ODE solvers;
torch alone, SciPy only for its scipy_solver method, unused). Nothing new in the ``bench`` extra: everything they import
is there. Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): effdet
0.4.1 as a new library (it has been in ``PINS`` since the first zoo, with d0, q0, lite0, mobiledetv3, cspresdext50pan,
v2_dt and more zooed; two uses of its bench no zoo made are taken below instead), python-doctr 1.1.0 (OCR detectors and
recognisers: imports shapely and pyclipper, compiled, and anyascii), batch-face 1.5.4 (its package imports facer,
scikit-image and onnxruntime), yolort 0.6.3 (a YOLOv5 runtime: imports thop, pycocotools, requests, tensorrt hooks;
YOLOv5 was found unusable in stop 49); face-detection 0.2.2 (an sdist, no wheel); facexlib's FAN alignment (CoordConv
channels for a fixed 256 px face, hourglasses of 256 channels: too large for the shared cores); the libraries zoos 15 to
26 dropped, as they found.

18 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 26 or
in the library sweeps (benchmarks/sweep_*.py), 16 of them from the three new libraries and at least 15 of the kinds that
most often need work for an ONNX or TensorRT deployment (priors built in Python loops from the image size, boxes scaled
by tensors of the size, scores picked by torch.where and NMS, interpolation to sizes read from the input and by scale
factors, grouped convolutions with one group per image and weights computed from the image, squeezes of the batch, ODE
solvers whose step loops run on fixed grids from the times or adaptively on the error norm, soft-NMS loops). Faces, from
facexlib, random weights: RetinaFace on MobileNet-0.25 with the torch half of its batched_detect_faces (means
subtracted, PriorBox for the size, batched decoding, pixels) at 96x112, MODNet matting at 64x96, BiSeNet parsing at
64x80, ParseNet (32 base channels, 4 body blocks) at 128x96, HopeNet head pose (one bottleneck a stage) at its 224 px,
HyperIQA at its 224 px, MobileFaceNet at its 112 px. Faces, from retinaface-pytorch, random weights: the network alone
at 96x128, with the library's decoding for the batch at 112x144, and with its whole post-processing per image (threshold
by torch.where, torchvision NMS, rows with the image index concatenated) at 96x96. ODE-Nets, from torchdiffeq (a strided
stem, dynamics of two convolutions, a pooled head; random weights): RK4 with step 0.25 at 64 px, Euler with step 0.1
returning the state at 5 times at 48x64, midpoint with step 1/3 on time-dependent dynamics (a channel filled with t) at
56 px, explicit Adams-Bashforth with step 0.125 (RK4 to start, a history of derivatives dotted with float64
coefficients) at 64x48, adaptive Dormand-Prince at 48 px, adaptive Bogacki-Shampine with the state at 4 times at 40x56.
Detectors, from effdet (already pinned), random weights and BatchNorm statistics from a calibration batch as the earlier
zoos' effdet models: efficientdet_d0's predict bench with soft-NMS, and given the image info (a scale and an image size
built from the input's shape), at 128 px, 20 rows an image whose order is not compared.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the fully convolutional
models and the detectors that build their priors from the size, the batch alone where the size is part of the model
(effdet's anchors, HopeNet's 7x7 pool, HyperIQA's 7x7 hyper features, MobileFaceNet's 7x7 depthwise convolution).
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs) at two sizes (the spec's, and a batch of two 32 px larger; a batch of
two at the spec's size where the batch alone is dynamic) before the first migrate run: with one thread on the shared two
cores, a forward at the spec's size took 0.002 to 0.07 s but for effdet's benches (0.3 and 0.6 s with soft-NMS) and
HyperIQA (0.12 s), and at most 0.22 s at the larger size but for effdet (0.55 and 0.85 s); builds (imports included)
took under 3 s but for the first effdet one (5 s). Changed after the first eager runs, before any migrate run:
HyperIQA's score gets its batch axis back (the library squeezes it: a scalar for one image, a vector for more), and
effdet was moved from the new libraries to the pinned ones once the held-out test found it pinned (six effdet models
dropped, their architectures zooed: d0, tf_lite0, q0, mobiledetv3_large, cspresdext50pan, efficientdetv2_dt; soft-NMS
and the image info kept, given the earlier effdet models' calibration and 20 rows, with facexlib in effdet's place)."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo26 import PINS26

#: The twenty-sixth zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): facexlib (Xintao Wang's face library: RetinaFace detection with priors and batched decoding, BiSeNet
#: and ParseNet parsing, MODNet matting, HopeNet head pose, HyperIQA quality, ArcFace recognition; torch, torchvision,
#: NumPy, OpenCV, SciPy, Pillow; its tracking module's numba and filterpy are imported only by that module's files),
#: retinaface_pytorch (Vladimir Iglovikov's RetinaFace: a ResNet-50 FPN with SSH context modules, priors built in Python
#: from the image size; its network, prior and box modules import torch and torchvision alone, the rest albumentations)
#: and torchdiffeq (Ricky Chen's ODE solvers: fixed-grid Euler, midpoint and RK4, adaptive Runge-Kutta pairs with a
#: step-size loop on the error norm; torch alone).
PINS27 = {**PINS26, "facexlib": "0.3.0", "retinaface_pytorch": "0.0.8", "torchdiffeq": "0.2.5"}

#: effdet's predict bench at 128 px (anchors for that size, so the batch alone is dynamic): rows whose order is not
#: compared and BatchNorm statistics from a calibration batch, as the earlier zoos' effdet models.
_EFFDET = "from effdet import create_model"
_EFFDET_D0 = ('create_model("efficientdet_d0", bench_task="predict", pretrained=False, pretrained_backbone=False, '
              "num_classes=4, image_size=(128, 128), max_det_per_image=20{})")
_EFFDET_CONFIG = DYNAMIC_B + '\nunordered = ["output"]'

_FX = "from facexlib.{} import {}"
#: facexlib's RetinaFace on MobileNet-0.25 (random weights) and the torch half of its batched_detect_faces: the BGR
#: means subtracted, priors for the size, boxes and landmarks decoded for the whole batch and scaled to pixels.
_FX_DETECT = (
    "frames = x * 255 - self.m.mean_tensor\n        loc, conf, land = self.m(frames)\n        "
    "h, w = frames.shape[2:]\n        priors = PriorBox(self.m.cfg, image_size=(h, w)).forward()[None]\n        "
    "scale = torch.tensor([w, h], dtype=torch.float32)\n        "
    "boxes = batched_decode(loc, priors, self.m.cfg['variance']) * scale.repeat(2)\n        "
    "landmarks = batched_decode_landm(land, priors, self.m.cfg['variance']) * scale.repeat(5)\n        "
    "return torch.cat([boxes, conf[:, :, 1:]], 2), landmarks")

_RETINA = ("from retinaface.network import RetinaFace\nfrom retinaface.prior_box import priorbox\n"
           "from retinaface.box_utils import decode, decode_landm\nimport torchvision")


def _retina_net(out_channels: int) -> str:
    """RetinaFace on torchvision's ResNet-50 (stages 2 to 4) with ``out_channels`` in the FPN and heads."""
    return ('RetinaFace(name="Resnet50", pretrained=False, in_channels=256, return_layers={"layer2": 1, '
            f'"layer3": 2, "layer4": 3}}, out_channels={out_channels})')

#: The library's own post-processing (retinaface/predict_single.py) in torch: priors for the image size, boxes and
#: landmarks decoded and scaled to pixels, scores softmaxed.
_RETINA_DECODE = (
    "loc, conf, land = self.m(x)\n        h, w = x.shape[2:]\n        "
    "priors = priorbox(min_sizes=[[16, 32], [64, 128], [256, 512]], steps=[8, 16, 32], clip=False, "
    "image_size=(h, w))\n        scale = torch.tensor([w, h], dtype=x.dtype)\n        ")

_ODE = "from torchdiffeq import odeint"


def _ode_net(width: int, func: str) -> str:
    """An ODE-Net for images (the torchdiffeq example's shape): a strided stem, an ODE function, a pooled head."""
    return (f"torch.nn.ModuleDict(dict(stem=torch.nn.Sequential(torch.nn.Conv2d(3, {width}, 3, stride=2, padding=1), "
            f"torch.nn.GroupNorm(4, {width}), torch.nn.ReLU()), f={func}, "
            f"head=torch.nn.Sequential(torch.nn.GroupNorm(4, {width}), torch.nn.ReLU(), "
            f"torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear({width}, 10))))")


def _ode_func(width: int, extra: int = 0) -> str:
    """The dynamics: two 3x3 convolutions (``extra`` more input channels for the time)."""
    return (f"torch.nn.Sequential(torch.nn.Conv2d({width + extra}, {width}, 3, padding=1), torch.nn.Tanh(), "
            f"torch.nn.Conv2d({width}, {width}, 3, padding=1))")


_ODE_F = "f = lambda t, y: self.m['f'](y)\n        y0 = self.m['stem'](x)\n        "

MODELS27 = [
    # effdet (already pinned): two uses of its predict bench no earlier zoo made (random weights).
    Spec("effdet_d0_soft_nms", "effdet efficientdet_d0 predict bench with soft-NMS (the library's batched_soft_nms: "
         "a loop per image that takes the best box, decays the others' scores by their IoU with it and drops those "
         "under the threshold)", _EFFDET, _EFFDET_D0.format(", soft_nms=True"), "return self.m(x)", "1, 3, 128, 128",
         _EFFDET_CONFIG, calibrate="self.m(xb)"),
    Spec("effdet_d0_img_info", "effdet efficientdet_d0 predict bench given the image info (boxes scaled by a "
         "per-image scale and clipped to the image size, both tensors built from the input's shape)", _EFFDET,
         _EFFDET_D0.format(""), "n, _, h, w = x.shape\n        info = dict(img_scale=torch.full((n,), 2.0), "
         "img_size=torch.tensor([[w * 2, h * 2]]).expand(n, 2))\n        return self.m(x, img_info=info)",
         "1, 3, 128, 128", _EFFDET_CONFIG, calibrate="self.m(xb)"),
    # facexlib: face models (random weights, nothing downloaded).
    Spec("fx_retinaface_mnet", "facexlib RetinaFace (MobileNet-0.25, FPN, SSH, softmaxed classes) and its batched "
         "decoding (priors from the size in Python loops, boxes and landmarks scaled by the size)",
         _FX.format("detection.retinaface", "RetinaFace") + "\n" + _FX.format(
             "detection.retinaface_utils", "PriorBox, batched_decode, batched_decode_landm"),
         "RetinaFace(network_name='mobile0.25', device=torch.device('cpu'))", _FX_DETECT, "1, 3, 96, 112",
         DYNAMIC_BHW),
    Spec("fx_modnet", "facexlib MODNet matting (MobileNetV2 encoder, the image interpolated by scale factors 1/2 and "
         "1/4, low- and high-resolution branches upsampled by 2 and fused; inference mode)",
         _FX.format("matting", "MODNet"), "MODNet(backbone_pretrained=False)", "return self.m(x, True)[2]",
         "1, 3, 64, 96", DYNAMIC_BHW),
    Spec("fx_bisenet", "facexlib BiSeNet face parsing (its own ResNet-18 context path, global average upsampled to the "
         "feature sizes by nearest interpolation, attention refinement, fusion, three outputs interpolated to the "
         "input's size with aligned corners)", _FX.format("parsing", "BiSeNet"), "BiSeNet(num_class=19)",
         "return self.m(x)", "1, 3, 64, 80", DYNAMIC_BHW),
    Spec("fx_parsenet", "facexlib ParseNet face parsing and restoration (residual encoder and decoder, nearest "
         "upsampling by 2, LeakyReLU, a parsing mask and an image out), 32 base channels and 4 body blocks",
         _FX.format("parsing", "ParseNet"), "ParseNet(in_size=128, out_size=128, base_ch=32, res_depth=4)",
         "return self.m(x)", "1, 3, 128, 96", DYNAMIC_BHW),
    Spec("fx_hopenet", "facexlib HopeNet head pose (ResNet bottlenecks, 7x7 average pool for a 224 px face, yaw, "
         "pitch and roll as the softmax expectation over 66 bins of 3 degrees)", _FX.format("headpose", "HopeNet"),
         "HopeNet('resnet', [1, 1, 1, 1], 66)", "return torch.stack(self.m(x), 1)", "1, 3, 224, 224", DYNAMIC_B),
    Spec("fx_hyperiqa", "facexlib HyperIQA face quality (a ResNet-50 hyper network whose convolutions produce a target "
         "network's weights per image; the target layers run as grouped convolutions with one group per image; "
         "the score squeezed, here given its batch axis back)", _FX.format("assessment", "HyperIQA"),
         "HyperIQA(16, 112, 224, 112, 56, 28, 14, 7)", "return self.m(x).reshape(-1)", "1, 3, 224, 224", DYNAMIC_B),
    Spec("fx_mobilefacenet", "facexlib MobileFaceNet (ArcFace recognition: depthwise residual blocks, a 7x7 global "
         "depthwise convolution, a 128-d embedding for a 112 px face)", _FX.format("recognition.arcface_arch",
                                                                                   "MobileFaceNet"),
         "MobileFaceNet(128)", "return self.m(x)", "1, 3, 112, 112", DYNAMIC_B),
    # retinaface: the network (random weights, no torchvision weights) and the library's decoding.
    Spec("retinaface_raw", "retinaface_pytorch RetinaFace (ResNet-50, FPN merging by nearest interpolation to the "
         "lateral's size, SSH, box, class and landmark heads flattened per anchor)", _RETINA,
         _retina_net(64), "return self.m(x)", "1, 3, 96, 128", DYNAMIC_BHW),
    Spec("retinaface_decode", "retinaface_pytorch RetinaFace and predict_single's decoding for the batch: priors "
         "built in Python loops from the image size (ceil of size / step), boxes and landmarks decoded by the "
         "priors and scaled to pixels by the size, softmax scores", _RETINA, _retina_net(32),
         _RETINA_DECODE + "boxes = torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc]) * scale.repeat(2)\n"
         "        landmarks = torch.stack([decode_landm(l, priors, [0.1, 0.2]) for l in land]) * scale.repeat(5)\n"
         "        return boxes, landmarks, conf.softmax(-1)[..., 1]", "1, 3, 112, 144", DYNAMIC_BHW),
    Spec("retinaface_nms", "retinaface_pytorch RetinaFace and predict_single's whole post-processing per image: "
         "decoding, scores over a threshold picked by torch.where, torchvision NMS at 0.4, the kept rows (box, "
         "score, landmarks, image index) concatenated", _RETINA, _retina_net(32),
         _RETINA_DECODE + "rows = []\n        for i in range(x.shape[0]):\n            "
         "boxes = decode(loc[i], priors, [0.1, 0.2]) * scale.repeat(2)\n            "
         "landmarks = decode_landm(land[i], priors, [0.1, 0.2]) * scale.repeat(5)\n            "
         "scores = conf[i].softmax(-1)[:, 1]\n            valid = torch.where(scores > 0.5)[0]\n            "
         "boxes, landmarks, scores = boxes[valid], landmarks[valid], scores[valid]\n            "
         "keep = torchvision.ops.nms(boxes, scores, 0.4)\n            "
         "rows.append(torch.cat([boxes[keep], scores[keep, None], landmarks[keep], "
         "torch.full_like(scores[keep, None], i)], 1))\n        return torch.cat(rows)", "1, 3, 96, 96",
         DYNAMIC_BHW),
    # torchdiffeq: ODE-Nets on images (random weights) with fixed-grid and adaptive solvers.
    Spec("ode_rk4", "torchdiffeq odeint, RK4 on a fixed grid of step 0.25 from 0 to 1 (the grid built from the "
         "times and the step), an ODE block between a strided stem and a pooled head", _ODE,
         _ode_net(16, _ode_func(16)), _ODE_F + "t = torch.tensor([0.0, 1.0])\n        "
         "y = odeint(f, y0, t, method='rk4', options=dict(step_size=0.25))[-1]\n        return self.m['head'](y)",
         "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("ode_euler_trajectory", "torchdiffeq odeint, Euler with step 0.1 and the state at 5 times (linearly "
         "interpolated between grid points), the whole trajectory returned", _ODE, _ode_net(8, _ode_func(8)),
         _ODE_F + "t = torch.linspace(0, 1, 5)\n        "
         "ys = odeint(f, y0, t, method='euler', options=dict(step_size=0.1))\n        return ys.transpose(0, 1)",
         "1, 3, 48, 64", DYNAMIC_BHW),
    Spec("ode_midpoint_time", "torchdiffeq odeint, midpoint with step 1/3 on dynamics that see the time (the ODE-Net "
         "example's ConcatConv2d: a channel filled with t)", _ODE, _ode_net(8, _ode_func(8, 1)),
         "f = lambda t, y: self.m['f'](torch.cat([y, torch.ones_like(y[:, :1]) * t], 1))\n        "
         "y0 = self.m['stem'](x)\n        t = torch.tensor([0.0, 1.0])\n        "
         "y = odeint(f, y0, t, method='midpoint', options=dict(step_size=1 / 3))[-1]\n        "
         "return self.m['head'](y)", "1, 3, 56, 56", DYNAMIC_BHW),
    Spec("ode_explicit_adams", "torchdiffeq odeint, explicit Adams-Bashforth with step 0.125 (RK4 for the first "
         "steps, then a history of up to 3 derivatives in a deque dotted with float64 coefficients cast back)", _ODE,
         _ode_net(8, _ode_func(8)), _ODE_F + "t = torch.tensor([0.0, 1.0])\n        "
         "y = odeint(f, y0, t, method='explicit_adams', options=dict(step_size=0.125))[-1]\n        "
         "return self.m['head'](y)", "1, 3, 64, 48", DYNAMIC_BHW),
    Spec("ode_dopri5", "torchdiffeq odeint, adaptive Dormand-Prince 5(4) at rtol 1e-3, atol 1e-4 (the first step "
         "chosen from the state's norms, steps accepted or shrunk in a loop on the error ratio)", _ODE,
         _ode_net(8, _ode_func(8)), _ODE_F + "t = torch.tensor([0.0, 1.0])\n        "
         "y = odeint(f, y0, t, rtol=1e-3, atol=1e-4, method='dopri5')[-1]\n        return self.m['head'](y)",
         "1, 3, 48, 48", DYNAMIC_BHW),
    Spec("ode_bosh3_times", "torchdiffeq odeint, adaptive Bogacki-Shampine 3(2) at rtol 1e-2, atol 1e-3 with the "
         "state asked at 4 times (each from the accepted steps by interpolation), the pooled features at each",
         _ODE, _ode_net(8, _ode_func(8)), _ODE_F + "t = torch.linspace(0, 1, 4)\n        "
         "ys = odeint(f, y0, t, rtol=1e-2, atol=1e-3, method='bosh3')\n        "
         "return ys.mean((3, 4)).transpose(0, 1)", "1, 3, 40, 56", DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS27, "real_zoo27", PINS27)
