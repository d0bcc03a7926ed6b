"""A twenty-fifth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo25.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-fourth zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the twenty-fourth zoo's libraries and pins and four more libraries
by four other authors, whose code no earlier zoo or sweep ran (``PINS25``: unpacked wheels like the others, never
pip-installed): monodepth2 1.0.0 (AdityaNG's packaging of Niantic's self-supervised depth and ego-motion networks: its
modules ``networks``, ``layers``, ``utils`` and the training scripts sit at the top level of the checkout; the model
modules import torch, torchvision and NumPy), segmentation-refinement 0.6 (Ho Kei Cheng's CascadePSP: a ResNet-50 PSP
refinement module and the global and local inference steps of its Refiner; torch alone, requests only to download
weights), piq 0.8.0 (photosynthesis-team's image quality metrics, as loss modules; torch and torchvision) and lpips
0.1.4 (Richard Zhang's learned perceptual similarity on torchvision trunks; its package imports SciPy and tqdm). Nothing
new in the ``bench`` extra: everything they import is there. Considered and dropped before any model was chosen (by the
wheel's files, metadata and a first import): lama-cleaner 1.2.5 and IOPaint 1.6.0 (Sanster's inpainting: MAT, FcF and
LaMa's FFCs in Python, but their model package imports loguru and diffusers at import, and LaMa, ZITS and Manga load
TorchScript files), simple-lama-inpainting 0.1.2 (a TorchScript LaMa only), pytorch3dunet 1.9.6 (its model module
imports its utils, which import scikit-image, compiled), midas 0.8.1 (a Modbus driver of that name, not the depth
model), motrackers 0.1.1 (NumPy trackers, its detectors OpenCV's DNN), rtmlib 0.0.16 (ONNX Runtime only), codeformer-pip
0.0.4 (no wheel in this index); the libraries zoos 15 to 24 dropped, as they found.

24 models, chosen by family before any migrate run (three of them changed after the first eager runs, as said below),
none of them (library, architecture and variant) in zoos 1 to 24 or in the library sweeps (benchmarks/sweep_*.py), 18 of
them of the kinds that most often need work for an ONNX or TensorRT deployment (a resize to the input's own size, grids
from a pixel mesh and grid_sample, in-place writes into zero tensors, padding up to multiples written by index and
cropped back, scale factors and tile loops computed from the size, a branch on the mask's values, adaptive pooling to
sizes that need not divide, FFTs, sorts with a count from the size, padding by the size's parity). One of them reaches
code a recipe variant was reduced from: md2_view_synthesis builds its transform with monodepth2's
``transformation_from_parameters``, whose in-place translation write (``T[:, :3, 3, None] = t``) rule TRT355's variant
(tests/recipe_variants/trt355/monodepth2_pose_transform.py) restates; its warp (BackprojectDepth, Project3D,
grid_sample) is new. Depth and pose, from monodepth2, random weights: ResnetEncoder-18 and DepthDecoder with 4 scales at
64x96 (sides multiples of 32), ResnetEncoder-50 behind the library's inference (resized to a 64x96 feed size, the
disparity resized back to the input's size, disp_to_depth) at 50x70, ResnetEncoder-34 with a skipless two-channel
decoder at 64, the separate pose network (ResnetEncoder-18 on two frames and PoseDecoder) at 64, the trainer's view
synthesis (depth, PoseCNN's pose, BackprojectDepth and Project3D built for batch 1 at 64x96, the source frame warped by
grid_sample; no dynamic axis, the batch and size are the layers') and its auto-masked reprojection error (SSIM and L1,
the per-pixel minimum and its index) at 48x64. Segmentation refinement, from segmentation-refinement, random weights:
the bare RefinementModule on an ImageNet-normalised image and a thresholded mask at 64 px, safe_forward at 60x70 (padded
to multiples of 8 by writes into constant tensors, cropped back), process_im_single_pass with L = 96 at 56x72 and
process_high_res_im with L = 96 at 100x104 (the global step, then 96 px crops on a stride from the size, shifted,
deduplicated and skipped when the mask is almost all in or out, stitched and averaged: 4 crops at this size, 16 at
132x136; the module's last bias is moved by the median of the global step's output on a fixed random input of the spec's
size, since the untouched random module predicts one side of one half everywhere and the local step then skips every
crop). Image quality, from piq, two images in [0, 1] side by side in the channels, per-image scores: SSIM, MS-SSIM (3x3
windows), GMSD at 63x75, chromatic multi-scale GMSD at 66x70, HaarPSI at 62x70, VSI, chromatic FSIM, SR-SIM, DSS at
68x76, VIF and MDSI (64 px unless said). Perceptual similarity, from lpips, random trunks and linear layers, two images
in [0, 1]: AlexNet at 64 px, VGG-16 spatial (distance maps upsampled to the input's size) at 48x56, SqueezeNet 1.1
without linear layers, each layer's distance too, at 64 px.

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any size
(every model but one); none for the view synthesis, whose layers are built for one batch and size. Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs) at two sizes (the spec's, and a batch of two 32 px larger) before the first migrate run: with
one thread on the shared two cores (loaded by other sessions), a forward at the spec's size took 0.006 to 1.7 s, and
0.007 to 3.5 s at the larger size, but for process_high_res_im (7.8 s with its 4 crops and 44 s with its 16, batch 2, at
a load average of 5); builds (imports included) took 1.9 to 14 s. Changed after the first eager runs, before any migrate
run: the separate pose network returns its axis-angle and translation instead of the transform from
``transformation_from_parameters`` (the function TRT355's variant restates, see above), and monodepth2's PoseCNN with
the inverted transform was replaced by piq's single-scale GMSD, for the same reason; process_high_res_im went from L =
128 at 136x144 with the untouched module (the local step skipped every crop: only the global step ran, 2.8 s) to the
centred bias (4 crops, 10 s), then to L = 96 at 100x104 (its crops' step, L // 2 - 32, is 16 px)."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo24 import PINS24

#: The twenty-fourth zoo's pins and four libraries by four other authors, unpacked wheels like the others (never
#: pip-installed): monodepth2 (Niantic's self-supervised depth and pose networks with their view-synthesis layers, as
#: top-level modules ``networks``, ``layers`` and ``utils``), segmentation_refinement (CascadePSP's refinement module
#: and its global and local inference steps), piq (photosynthesis-team's image quality metrics) and lpips (Richard
#: Zhang's learned perceptual similarity); all import torch, torchvision and NumPy, lpips SciPy and tqdm.
PINS25 = {**PINS24, "monodepth2": "1.0.0", "segmentation_refinement": "0.6", "piq": "0.8.0", "lpips": "0.1.4"}

#: The KITTI intrinsics monodepth2's datasets use (normalised by the image's size), scaled to the 64x96 frames, and
#: their inverse, as its KITTIDataset computes them (numpy's pinv) before the trainer sees them.
_MD2_K = ("k = np.array([[0.58 * 96, 0, 0.5 * 96, 0], [0, 1.92 * 64, 0.5 * 64, 0], [0, 0, 1, 0], [0, 0, 0, 1]], "
          "dtype=np.float32)\n        self.register_buffer('K', torch.from_numpy(k)[None])\n        "
          "self.register_buffer('inv_K', torch.from_numpy(np.linalg.pinv(k))[None])")
_MD2 = "import numpy as np\nimport networks\nfrom layers import {}"
#: A depth decoder on the encoder's features (monodepth2 builds the two side by side, as its trainer and its
#: ``monodepth2`` class do).
_MD2_DECODER = "self.dec = networks.DepthDecoder(self.m.num_ch_enc, scales={}).eval()"
#: CascadePSP's inputs from a four-channel input: the image normalised as Refiner.refine does (ImageNet statistics)
#: and the mask thresholded at one half and mapped to -1 and 1 (its seg_transform).
_CPSP_INPUTS = ("mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)\n"
                "        std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)\n"
                "        im = (x[:, :3] - mean) / std\n        seg = (x[:, 3:] > 0.5).to(x.dtype) * 2 - 1\n        ")
#: The refinement's last bias moved by the median of its global step's output (resized by area to L = 96, as
#: process_high_res_im does) on a fixed random image and mask of the spec's size, so that random weights predict a map
#: with both sides of one half, as trained weights do: the local step skips every crop whose mask is almost all in or
#: out, and the untouched random module, whose map is on one side everywhere, skips them all.
_CPSP_CENTRED = ("with torch.no_grad():\n            g = torch.Generator().manual_seed(1)\n"
                 "            x = torch.rand(1, 4, 100, 104, generator=g)\n            "
                 + _CPSP_INPUTS.replace("\n        ", "\n            ")
                 + "out = safe_forward(self.m, resize_max_side(im, 96, 'area'), resize_max_side(seg, 96, 'area'))\n"
                 "            self.m.final_21.bias -= torch.logit(out['pred_224'].median())")
_CPSP = "from segmentation_refinement.models.psp.pspnet import RefinementModule\n{}"
_PIQ = "from piq import {}"
#: Two RGB images in [0, 1] side by side in the channels, compared by the metric (a per-image score).
_PAIR = "return self.m(x[:, :3], x[:, 3:])"
_LPIPS = "import lpips"


def _piq(name: str, what: str, cls: str, construct: str, shape: str = "1, 6, 64, 64", **kw: str) -> Spec:
    return Spec(f"piq_{name}", f"piq {what}", _PIQ.format(cls), construct, _PAIR, shape, DYNAMIC_BHW, **kw)


MODELS25 = [
    # monodepth2: self-supervised monocular depth and ego-motion (random weights).
    Spec("md2_depth_r18_multiscale", "monodepth2 ResnetEncoder-18 and DepthDecoder (reflection-padded 3x3 "
         "convolutions, nearest upsampling by 2, skips; sigmoid disparities at 4 scales)", _MD2.format("disp_to_depth"),
         "networks.ResnetEncoder(18, False)",
         "out = self.dec(self.m(x))\n        return tuple(out[('disp', s)] for s in range(4))", "1, 3, 64, 96",
         DYNAMIC_BHW, init=_MD2_DECODER.format("range(4)")),
    Spec("md2_depth_r50_resized", "monodepth2 ResnetEncoder-50 and DepthDecoder behind the library's inference "
         "(the image resized to the 64x96 feed size, the disparity resized back bilinearly to the input's size, "
         "then disp_to_depth between 0.1 and 100)", _MD2.format("disp_to_depth"), "networks.ResnetEncoder(50, False)",
         "h, w = x.shape[2:]\n        feed = torch.nn.functional.interpolate(x, (64, 96), mode='bilinear', "
         "align_corners=False)\n        disp = self.dec(self.m(feed))[('disp', 0)]\n        disp = "
         "torch.nn.functional.interpolate(disp, (h, w), mode='bilinear', align_corners=False)\n        "
         "return disp_to_depth(disp, 0.1, 100.0)", "1, 3, 50, 70", DYNAMIC_BHW, init=_MD2_DECODER.format("[0]")),
    Spec("md2_pose_separate", "monodepth2 pose network, separate: ResnetEncoder-18 on two frames (6 input "
         "channels) and PoseDecoder (squeeze, three convolutions, mean over space, scaled by 0.01 and viewed as one "
         "axis-angle and translation per predicted frame) for two frames", "import networks",
         "networks.ResnetEncoder(18, False, num_input_images=2)", "return self.pose([self.m(x)])", "1, 6, 64, 64",
         DYNAMIC_BHW, init="self.pose = networks.PoseDecoder(self.m.num_ch_enc, 1, 2).eval()"),
    Spec("md2_view_synthesis", "monodepth2's view synthesis as its trainer runs it: the target frame's depth "
         "(ResnetEncoder-18, DepthDecoder, disp_to_depth), the pose from both frames (PoseCNN), BackprojectDepth "
         "and Project3D built for batch 1 at 64x96 (pixel grid and ones as parameters), the source frame warped by "
         "grid_sample with border padding", _MD2.format("BackprojectDepth, Project3D, disp_to_depth, "
                                                      "transformation_from_parameters"),
         "networks.ResnetEncoder(18, False)",
         "target, source = x[:, :3], x[:, 3:]\n        disp = self.dec(self.m(target))[('disp', 0)]\n        "
         "_, depth = disp_to_depth(disp, 0.1, 100.0)\n        axisangle, translation = self.pose(x)\n        "
         "T = transformation_from_parameters(axisangle[:, 0], translation[:, 0], invert=True)\n        "
         "points = self.backproject(depth, self.inv_K)\n        pix = self.project(points, self.K, T)\n        "
         "return torch.nn.functional.grid_sample(source, pix, padding_mode='border', align_corners=True)",
         "1, 6, 64, 96", "",
         init=(_MD2_DECODER.format("[0]") + "\n        self.pose = networks.PoseCNN(2).eval()\n        "
               "self.backproject = BackprojectDepth(1, 64, 96)\n        self.project = Project3D(1, 64, 96)\n        "
               + _MD2_K)),
    Spec("md2_reprojection_automask", "monodepth2's photometric reprojection error with auto-masking, as its "
         "trainer computes it: 0.85 SSIM (reflection padding, 3x3 average pools) plus 0.15 L1, for the warped "
         "frame and for the unwarped source (with a small deterministic offset standing in for the trainer's "
         "random tie-breaking noise), the per-pixel minimum and its index",
         _MD2.format("SSIM"), "SSIM()",
         "target, warped, source = x[:, :3], x[:, 3:6], x[:, 6:]\n        losses = []\n        "
         "for pred in (warped, source):\n            l1 = (target - pred).abs().mean(1, True)\n            "
         "losses.append(0.85 * self.m(pred, target).mean(1, True) + 0.15 * l1)\n        "
         "losses[1] = losses[1] + 1e-5\n        "
         "return torch.min(torch.cat(losses[::-1], 1), dim=1)", "1, 9, 48, 64", DYNAMIC_BHW),
    Spec("md2_depth_r34_noskip", "monodepth2 ResnetEncoder-34 and DepthDecoder without skips, two output channels, "
         "the full-scale disparities to depth", _MD2.format("disp_to_depth"), "networks.ResnetEncoder(34, False)",
         "return disp_to_depth(self.dec(self.m(x))[('disp', 0)], 0.1, 100.0)[1]", "1, 3, 64, 64", DYNAMIC_BHW,
         init="self.dec = networks.DepthDecoder(self.m.num_ch_enc, [0], 2, use_skips=False).eval()"),
    # segmentation_refinement: CascadePSP (random weights; ResNet-50 PSP refinement in three cascaded passes).
    Spec("cpsp_refine_bare", "segmentation_refinement RefinementModule (CascadePSP: ResNet-50 with a PSP module, "
         "three cascaded passes on the image, the mask and the previous passes' outputs upsampled by fixed "
         "factors; the 3 sigmoid maps) on a normalised image and a thresholded mask", _CPSP.format(""),
         "RefinementModule()",
         _CPSP_INPUTS + "out = self.m(im, seg)\n        return out['pred_224'], out['pred_28_3'], out['pred_56_2']",
         "1, 4, 64, 64", DYNAMIC_BHW),
    Spec("cpsp_safe_forward", "segmentation_refinement safe_forward (the image and mask written into zero and -1 "
         "tensors padded up to multiples of 8 when a side is not, RefinementModule, the maps cropped back) at an "
         "odd size", _CPSP.format("from segmentation_refinement.eval_helper import safe_forward"),
         "RefinementModule()",
         _CPSP_INPUTS + "out = safe_forward(self.m, im, seg)\n        "
         "return out['pred_224'], out['pred_28_3'], out['pred_56_2']", "1, 4, 60, 70", DYNAMIC_BHW),
    Spec("cpsp_single_pass", "segmentation_refinement process_im_single_pass (Refiner's fast mode: image and mask "
         "resized by the ratio of L = 96 to the longer side, bicubic and bilinear, safe_forward, the map resized "
         "back to the input's size by area)",
         _CPSP.format("from segmentation_refinement.eval_helper import process_im_single_pass"), "RefinementModule()",
         _CPSP_INPUTS + "return process_im_single_pass(self.m, im, seg, L=96)", "1, 4, 56, 72", DYNAMIC_BHW),
    Spec("cpsp_high_res", "segmentation_refinement process_high_res_im (Refiner's default mode: the global step "
         "at L = 96, then the local step's 96 px crops on a stride from the size, shifted and deduplicated, "
         "crops whose mask is almost all in or out skipped, each refined with the global step's maps, stitched "
         "with 16 px margins and averaged, the global map where no crop landed)",
         _CPSP.format("from segmentation_refinement.eval_helper import process_high_res_im, resize_max_side, "
                      "safe_forward"), "RefinementModule()",
         _CPSP_INPUTS + "return process_high_res_im(self.m, im, seg, L=96)", "1, 4, 100, 104", DYNAMIC_BHW,
         init=_CPSP_CENTRED),
    # piq: full-reference image quality metrics as loss modules (per-image scores, reduction 'none').
    _piq("ssim", "SSIMLoss (inputs average-pooled by a factor from the size, Gaussian 11x11 windows, per-image "
         "1 - SSIM)", "SSIMLoss", "SSIMLoss(reduction='none')"),
    _piq("ms_ssim", "MultiScaleSSIMLoss (5 scales by average pooling with padding computed from each scale's odd "
         "size, 3x3 Gaussian windows)", "MultiScaleSSIMLoss", "MultiScaleSSIMLoss(kernel_size=3, reduction='none')"),
    _piq("ms_gmsd_chromatic", "MultiScaleGMSDLoss, chromatic (RGB to YIQ, 4 scales of Prewitt gradient magnitude "
         "deviation with odd sizes padded, chroma similarity)", "MultiScaleGMSDLoss",
         "MultiScaleGMSDLoss(chromatic=True, reduction='none')", "1, 6, 66, 70"),
    _piq("gmsd", "GMSDLoss (luma, 2x2 average pooling with padding by the size's parity, Prewitt gradient "
         "magnitudes, the deviation of their similarity map)", "GMSDLoss", "GMSDLoss(reduction='none')",
         "1, 6, 63, 75"),
    _piq("haarpsi", "HaarPSILoss (luma subsampled by a 2x2 average, Haar wavelet filters at 3 scales by "
         "convolution with size-dependent padding, logistic similarity)", "HaarPSILoss",
         "HaarPSILoss(reduction='none')", "1, 6, 62, 70"),
    _piq("vsi", "VSILoss (visual saliency by SDSP: the image resized to 256 px, FFT log-Gabor filtering and "
         "inverse FFT, resized back; gradient and chroma similarities)", "VSILoss", "VSILoss(reduction='none')"),
    _piq("fsim_chromatic", "FSIMLoss, chromatic (images downsampled by a factor from the size, phase congruency "
         "from log-Gabor filters built on a grid from the size, FFT and inverse FFT, 4 scales by 4 orientations)",
         "FSIMLoss", "FSIMLoss(chromatic=True, reduction='none')"),
    _piq("srsim", "SRSIMLoss (spectral residual saliency: luma resized by 0.25, FFT log amplitude minus its "
         "average, inverse FFT, Gaussian blur, resized back; gradient similarity)", "SRSIMLoss",
         "SRSIMLoss(reduction='none')"),
    _piq("dss", "DSSLoss (DCT subband similarity: luma cropped to multiples of 8, 8x8 block DCT by a DCT matrix, "
         "subband weights, percentile pooling)", "DSSLoss", "DSSLoss(reduction='none')", "1, 6, 68, 76"),
    _piq("vif", "VIFLoss (visual information fidelity in the pixel domain: luma, 4 scales of Gaussian windows "
         "with the images downsampled by 2 between them, variances clamped, log ratios)", "VIFLoss",
         "VIFLoss(reduction='none')"),
    _piq("mdsi", "MDSILoss (mean deviation similarity: luma and chroma, gradient maps of both images and their "
         "average, chromaticity similarity, deviation pooling)", "MDSILoss", "MDSILoss(reduction='none')"),
    # lpips: learned perceptual image patch similarity (random trunk and random linear layers).
    Spec("lpips_alex", "lpips LPIPS with AlexNet (scaling layer, 5 feature slices unit-normalised over channels, "
         "squared differences, 1x1 linear layers, spatial means summed) on images in [0, 1]", _LPIPS,
         "lpips.LPIPS(pretrained=False, net='alex', pnet_rand=True, verbose=False)",
         "return self.m(x[:, :3], x[:, 3:], normalize=True)", "1, 6, 64, 64", DYNAMIC_BHW),
    Spec("lpips_vgg_spatial", "lpips LPIPS with VGG-16, spatial (each layer's distance map upsampled bilinearly "
         "to the input's size, summed)", _LPIPS,
         "lpips.LPIPS(pretrained=False, net='vgg', spatial=True, pnet_rand=True, verbose=False)",
         "return self.m(x[:, :3], x[:, 3:], normalize=True)", "1, 6, 48, 56", DYNAMIC_BHW),
    Spec("lpips_squeeze_layers", "lpips with SqueezeNet 1.1, no linear layers (channel sums of the 7 slices' "
         "squared differences averaged over space), the total and each layer's distance", _LPIPS,
         "lpips.LPIPS(pretrained=False, net='squeeze', lpips=False, pnet_rand=True, verbose=False)",
         "total, layers = self.m(x[:, :3], x[:, 3:], retPerLayer=True, normalize=True)\n        "
         "return (total, *layers)", "1, 6, 64, 64", DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS25, "real_zoo25", PINS25)
