"""A twenty-fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo24.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-third zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the twenty-third zoo's libraries and pins and four more libraries by three
other authors, whose code no earlier zoo or sweep ran (``PINS24``: unpacked wheels like the others, never
pip-installed): ccrestoration 0.2.2 and ccvfi 0.0.3 (TensoRaws' model zoos for image and video restoration and for video
frame interpolation, made for VapourSynth pipelines: their architectures are copies of the upstream networks, their
model classes load weights and run the library's tiling or resizing around them; their packages import tenacity,
pydantic, OpenCV and NumPy at package import, ccrestoration's einops too, and only their ``vs`` modules, which no
wrapper imports, import VapourSynth, and ccvfi imports CuPy only for its CUDA splatting), carvekit 4.1.2 (Nikita Selin's
background removal: U^2-Net, BASNet, Tracer-B7 and FBA matting; its model modules import torch and torchvision, its
metadata's FastAPI, uvicorn and loguru only its web modules) and unet 0.8.1 (Fernando Perez-Garcia's configurable 1D, 2D
and 3D U-Nets; torch alone). New in the ``bench`` extra: tenacity (pure Python), which ccrestoration's and ccvfi's
cache_models modules import at package import. All 24 models come from the four new libraries. Considered and dropped
before any model was chosen (by the wheel's files, metadata and a first import): lightnet 4.0.0 and 3.1.0 (EAVISE's
Darknet-style detectors with their anchor decoding and NMS: its package imports ``lightnet.util._anchors``, which
imports brambox, whose only wheels carry compiled extensions that the zoo's unpacking drops and a pure-Python ``bench``
extra cannot hold), transparent-background 1.3.4 (its package imports its Remover, which imports albumentations, gdown
and easydict at import), cellpose 4.2.1.1 (its one network, CPSAM, is SAM's ViT-L image encoder, about 300M parameters
at any configuration, and its dynamics import the compiled fastremap); ccrestoration's EDVR and IconVSR (torchvision's
deformable convolution, whose compiled kernel the stand-in does not provide); the libraries zoos 15 to 23 dropped, as
they found.

24 models, chosen by family before any migrate run (nine of them after the first eager runs, as said below), none of
them (library, architecture and variant) in zoos 1 to 23 or in the library sweeps (benchmarks/sweep_*.py), 18 of them of
the kinds that most often need work for an ONNX or TensorRT deployment (flows and warps by grid_sample, forward
splatting, tiling loops whose count comes from the input's size, padding and crops computed from the size, upsampling to
sizes halved by ceil, skips cropped by a crop computed as a tensor from two shapes). Restoration, from ccrestoration,
random weights, any size: BasicVSR x4 (16 features, SpyNet flows, the state warped by each flow) run by the library's
tile_vsr on 2 frames (48 px tiles with 8 px of context, each replication-padded, stitched into a zero sequence) at 40x56
px; MSRSWVSR x4 (AnimeSR's recurrent sliding window: frames padded to multiples of 4, the previous output
pixel-unshuffled into the state, cropped back) on 3 frames at 34 px; HAT x2 (24 features, 1 group of 2 blocks, squeeze
factor 6) run by the library's tile_sr (its default inference path; 32 px tiles) at 64 px; Real-CUGAN (UpCunet:
reflection padding by 18 px and up to even, two or three U-Nets, the first's output cropped by negative padding, cropped
back) x2 at 36x45, x3 pro (alpha 0.8) at 40 and x4 at 32x36, and x2 (alpha 0.9) run by tile_sr at 56x64; SRCNN x3 on
luma (bilinear upsampling, RGB to YUV and back) at 32 px. Frame interpolation, from ccvfi, random weights: RIFE v4's
IFNet (a shared head, 5 blocks from 1/16 to full scale, both frames and features warped by grid_sample on a linspace
grid cached in a module-level dict by the flow's size) on two frames as 6 channels at 64 px (its flow pyramid needs
sizes that are multiples of 64: batch alone dynamic); IFNet behind the library's RIFE inference (frames resized up to
multiples of 64 over the scale, resized back) at t = 0.25 (48x80 px), at flow scale 2 (40x56) and with a per-pixel
timestep map as a seventh channel (48x64); DRBA behind the library's inference (three frames resized up to multiples of
64; the middle frame's flows to both neighbours reversed by forward splatting in torch, an autograd function under
inference mode as the library runs it; frames at t = -0.5, 0 and 0.5) at 48x56. Background removal, from carvekit,
random weights, any size, 64 px: U^2-Net full (decoder stages upsampled to sizes from ceil halvings of the input's; 7
sigmoid maps), U^2-Net with the lite widths at 72x90 px, BASNet (ResNet-34 encoder, refinement U-Net; 8 maps), Tracer-B7
(EfficientNet-B7 with static same padding computed for 600 px, object attention, three maps averaged), FBA matting with
the group-norm and with the batch-norm ResNet-50 (image, normalised image and a trimap thresholded from two more input
channels, its six distance channels stood in for by the trimap repeated: carvekit computes them with OpenCV). U-Nets,
from unet, random weights: a valid (unpadded) UNet2D at 92 px whose skips are centre-cropped by a crop computed as a
tensor from both shapes and passed through ``tolist()`` to F.pad (the output 52 px), a residual UNet2D with batch norm
and bilinear upsampling, a pre-activation UNet2D with average pooling, PReLU and reflection padding (both 64 px, sizes
multiples of 8 or 4), a UNet3D with instance norm on 32-voxel volumes and a UNet1D on two-channel signals of 96 samples.

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any size
(and depth for the 3D U-Net, length for the 1D one; the frame count of the video models stays fixed: it bounds a Python
loop); batch alone for the bare IFNet. Machinery, table and counts are real_zoo2.py's. The wrappers were checked only
for building and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and a batch
of two, 32 px larger where height and width are dynamic) before the first migrate run: with one thread on the shared two
cores (loaded by other sessions), a forward at the spec's size took 0.011 to 2.2 s, and 0.023 to 7.3 s at the larger
size; builds (imports included) took 1.9 to 13.7 s, over two full runs (BasicVSR tiled's two in its final form run after
them, alone). Changed after the first eager runs, before any migrate run: ccrestoration's copies of SwinIR, HAT, DAT,
SCUNet, RRDBNet, SRVGGNetCompact, SpyNet and BasicVSR run bare were dropped (nine models: their architectures, from the
same BasicSR code, were in zoo 13 through spandrel or in benchmarks/sweep_sr.py through basicsr) and replaced by the
library's tiled runs, Real-CUGAN x2 tiled, SRCNN, IFNet with a timestep map, FBA with batch norm and the five U-Nets
(unet was added then); BasicVSR tiled went from 3 frames at 64x80 with 48 px tiles (2.6 s a forward) to 2 frames at
40x56 with 32 px tiles, then (3.3 s at the spec's size, 18 s at the larger) with 48 px tiles (1.3 to 1.4 s, and 6.4 to
6.7 s; BasicVSR fails under 33 px: SpyNet's pyramid of a 32 px frame reaches 0 px); HAT's squeeze factor went from the
default 30 (no channels left at 24 features) to 6; the bare IFNet went from batch, height and width to batch alone (it
fails at 96 px); DRBA went from bare to behind the library's resizing (it fails at 96 px, as IFNet) and under inference
mode (its splatting runs under ``torch.inference_mode``, and the in-place hole filling that follows fails outside
it)."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo23 import PINS23

#: The twenty-third zoo's pins and four libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): ccrestoration and ccvfi (TensoRaws' restoration and frame-interpolation model zoos; their packages
#: import tenacity, pydantic, OpenCV and NumPy at package import, ccrestoration's einops too), carvekit (Nikita
#: Selin's background removal: U^2-Net, BASNet, Tracer-B7, FBA matting; its model modules import torch and
#: torchvision) and unet (Fernando Perez-Garcia's 1D, 2D and 3D U-Nets; torch alone).
PINS24 = {**PINS23, "ccrestoration": "0.2.2", "ccvfi": "0.0.3", "carvekit": "4.1.2", "unet": "0.8.1"}

#: Frame sequences (N, T, C, H, W): batch, height and width (the number of frames is a loop's bound in the model).
_DYNAMIC_BTHW = 'dynamic_axes = { x = { 0 = "batch", 3 = "height", 4 = "width" } }'
_CCR = "from ccrestoration.arch.{} import {}"
#: SpyNet's ImageNet normalisation, registered as ccrestoration's model/spynet_model.py does after building it (the
#: architecture's own buffers are commented out).
_SPYNET_BUFFERS = ("{0}.register_buffer('mean', torch.Tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))\n        "
                   "{0}.register_buffer('std', torch.Tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))")
_IFNET = "from ccvfi.arch.ifnet_arch import IFNet"
#: ccvfi's RIFE inference (model/rife_model.py): both frames resized so that height and width times the scale are
#: multiples of 64, the flow pyramid's scales divided by it, the middle frame resized back.
_RIFE_RESIZED = ("_, _, h, w = x.shape\n        i0 = resize(x[:, :3], {scale})\n"
                 "        i1 = resize(x[:, 3:], {scale})\n        s = {scale}\n"
                 "        out = self.m(torch.cat([i0, i1], 1), {t}, [16 / s, 8 / s, 4 / s, 2 / s, 1 / s])\n"
                 "        return de_resize(out, h, w)")
_CK = "from carvekit.ml.arch.{} import {}"
#: FBA's four inputs from a five-channel input: the image, a two-channel trimap (foreground, background) thresholded
#: from the last two channels, the image normalised as carvekit's groupnorm_normalise_image does, and the six
#: distance channels of carvekit's trimap_transform (OpenCV distance transforms) stood in for by the trimap repeated.
_FBA_FORWARD = ("img = x[:, :3]\n        trimap = (x[:, 3:5] > 0.5).to(x.dtype)\n"
                "        mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)\n"
                "        std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)\n"
                "        return self.m(img, trimap, (img - mean) / std, trimap.repeat(1, 3, 1, 1))")
_UNET = "from unet import {}"
#: Volumes (N, C, D, H, W): batch, depth, height and width.
_DYNAMIC_BDHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: A small U^2-Net (the U^2-Net-lite stage widths: 16 middle, 64 out) in carvekit's dict form.
_U2NET_LITE = ('{"stage1": ["En_1", (7, 3, 16, 64), -1], "stage2": ["En_2", (6, 64, 16, 64), -1], '
               '"stage3": ["En_3", (5, 64, 16, 64), -1], "stage4": ["En_4", (4, 64, 16, 64), -1], '
               '"stage5": ["En_5", (4, 64, 16, 64, True), -1], "stage6": ["En_6", (4, 64, 16, 64, True), 64], '
               '"stage5d": ["De_5", (4, 128, 16, 64, True), 64], "stage4d": ["De_4", (4, 128, 16, 64), 64], '
               '"stage3d": ["De_3", (5, 128, 16, 64), 64], "stage2d": ["De_2", (6, 128, 16, 64), 64], '
               '"stage1d": ["De_1", (7, 128, 16, 64), 64]}')


def _ccr(name: str, what: str, module: str, cls: str, construct: str, shape: str = "1, 3, 32, 32",
         forward: str = "return self.m(x)", config: str = DYNAMIC_BHW, **kw: str) -> Spec:
    return Spec(f"ccr_{name}", f"ccrestoration {what}", _CCR.format(module, cls), construct, forward, shape, config,
                **kw)


MODELS24 = [
    # ccrestoration: super-resolution, video super-resolution and optical flow (random weights, small configs).
    Spec("ccr_basicvsr_tiled", "ccrestoration BasicVSR x4 (16 features, 2 residual blocks per branch; SpyNet "
         "flows between neighbours, backward and forward propagation warping the state by each flow) run by the "
         "library's tile_vsr on 2 frames: 48x48 tiles with 8 px of context, each padded by replication to the padded "
         "tile size, every frame's output stitched into a zero sequence (the tile count from the input's size)",
         "from ccrestoration.arch.basicvsr_arch import BasicVSR\nfrom ccrestoration.arch.spynet_arch import SpyNet\n"
         "from ccrestoration.model.tile import tile_vsr", "BasicVSR(num_feat=16, num_block=2, spynet=SpyNet())",
         "return tile_vsr(self.m, 4, x, tile=(48, 48), tile_pad=8)", "1, 2, 3, 40, 56", _DYNAMIC_BTHW,
         init=_SPYNET_BUFFERS.format("self.m.spynet")),
    _ccr("msrswvsr", "MSRSWVSR x4 (multi-scale unidirectional recurrent sliding window: frames padded by "
         "replication to multiples of 4, previous output pixel-unshuffled into the state, 16 features, blocks "
         "(2, 1, 1)) on 3 frames, cropped back", "msrswvsr_arch", "MSRSWVSR",
         "MSRSWVSR(num_feat=16, num_block=(2, 1, 1), netscale=4)", "1, 3, 3, 34, 34", config=_DYNAMIC_BTHW),
    Spec("ccr_hat_tiled", "ccrestoration HAT x2 (hybrid attention transformer: 8x8 windows with a shift mask "
         "computed from each tile's size, overlapping cross-attention, channel attention; 24 features, 1 group of 2 "
         "blocks) run by the library's tile_sr (its default inference path, here with smaller tiles): 32x32 tiles "
         "with 8 px of context, each padded by replication to the padded tile size, the output stitched into a zero "
         "image (the tile count from the input's size)",
         "from ccrestoration.arch.hat_arch import HAT\nfrom ccrestoration.model.tile import tile_sr",
         "HAT(img_size=48, embed_dim=24, depth=(2,), num_heads=(2,), window_size=8, squeeze_factor=6, upscale=2, "
         "upsampler='pixelshuffle')", "return tile_sr(self.m, 2, x, tile=(32, 32), tile_pad=8)", "1, 3, 64, 64",
         DYNAMIC_BHW),
    _ccr("realcugan_x2", "Real-CUGAN x2 (UpCunet: padded by reflection, 18 px plus up to even, two U-Nets with "
         "squeeze-excite, the first's output cropped by negative padding and added, cropped back when odd)",
         "upcunet_arch", "UpCunet", "UpCunet(scale=2)", "1, 3, 36, 45"),
    _ccr("realcugan_x3_pro", "Real-CUGAN x3 pro (UpCunet x3, pro input mapping x * 0.7 + 0.15 and back, "
         "alpha 0.8 on the second U-Net's residual)", "upcunet_arch", "UpCunet",
         "UpCunet(scale=3, alpha=0.8, pro=True)", "1, 3, 40, 40"),
    _ccr("realcugan_x4", "Real-CUGAN x4 (UpCunet x4: padded by reflection, three U-Nets' stages, pixel shuffle "
         "by 2 and cropped)", "upcunet_arch", "UpCunet", "UpCunet(scale=4)", "1, 3, 32, 36"),
    Spec("ccr_realcugan_x2_tiled", "ccrestoration Real-CUGAN x2 (UpCunet, reflection padding and crops as above) "
         "run by the library's tile_sr: 32x32 tiles with 8 px of context, replication-padded to the padded tile "
         "size, stitched into a zero image", "from ccrestoration.arch.upcunet_arch import UpCunet\n"
         "from ccrestoration.model.tile import tile_sr", "UpCunet(scale=2, alpha=0.9)",
         "return tile_sr(self.m, 2, x, tile=(32, 32), tile_pad=8)", "1, 3, 56, 64", DYNAMIC_BHW),
    _ccr("srcnn_y_x3", "SRCNN x3 on luma (bilinear upsampling by 3, RGB to YUV, the three convolutions on Y, "
         "back to RGB)", "srcnn_arch", "SRCNN", "SRCNN(num_channels=1, scale=3)"),
    # ccvfi: video frame interpolation (RIFE's IFNet and DRBA), the two frames (or three) in the channels.
    Spec("ccvfi_ifnet", "ccvfi IFNet (RIFE v4: a shared head's features, 5 blocks from 1/16 to full scale, each "
         "warping both frames and features by its flow through grid_sample on a linspace grid cached by the flow's "
         "size, a sigmoid mask merging the warped frames), the middle frame, at 64 px", _IFNET, "IFNet()",
         "return self.m(x)", "1, 6, 64, 64", DYNAMIC_B),
    Spec("ccvfi_ifnet_resized", "ccvfi IFNet behind the library's RIFE inference (both frames resized up so that "
         "height and width are multiples of 64, the frame at t = 0.25, resized back)",
         f"{_IFNET}\nfrom ccvfi.util.misc import de_resize, resize", "IFNet()",
         _RIFE_RESIZED.format(scale="1.0", t="0.25"), "1, 6, 48, 80", DYNAMIC_BHW),
    Spec("ccvfi_ifnet_scale2", "ccvfi IFNet behind the library's RIFE inference at flow scale 2 (frames resized so "
         "that twice each side is a multiple of 64, the pyramid's scales halved: 8 down to 1/2)",
         f"{_IFNET}\nfrom ccvfi.util.misc import de_resize, resize", "IFNet()",
         _RIFE_RESIZED.format(scale="2.0", t="0.5"), "1, 6, 40, 56", DYNAMIC_BHW),
    Spec("ccvfi_ifnet_timestep_map", "ccvfi IFNet with a per-pixel timestep map (a seventh input channel) behind "
         "the library's resizing: both frames and the map resized up to multiples of 64, the middle frame resized "
         "back", f"{_IFNET}\nfrom ccvfi.util.misc import de_resize, resize", "IFNet()",
         "_, _, h, w = x.shape\n        frames = torch.cat([resize(x[:, :3], 1.0), resize(x[:, 3:6], 1.0)], 1)\n"
         "        out = self.m(frames, resize(x[:, 6:], 1.0), [16, 8, 4, 2, 1])\n        return de_resize(out, h, w)",
         "1, 7, 48, 64", DYNAMIC_BHW),
    Spec("ccvfi_drba", "ccvfi DRBA behind the library's inference (the three frames resized up to multiples of "
         "64; distance-ratio-based adjustment on RIFE: flows of the middle frame to both neighbours, reversed by "
         "forward splatting in torch under inference mode (an autograd function's index_add of bilinear weights), "
         "holes filled, the distance ratio map splatted again and scaling each timestep; frames at t = -0.5, 0 and "
         "0.5 resized back and stacked)", "from ccvfi.arch.drba_arch import DRBA\n"
         "from ccvfi.util.misc import de_resize, resize", "DRBA()",
         "_, _, h, w = x.shape\n        frames = torch.stack([resize(x[:, 3 * i:3 * i + 3], 1.0) for i in range(3)], 1)"
         "\n        with torch.inference_mode():\n            out, _ = self.m(frames, [-0.5], [0], [0.5], False, "
         "False, 1.0)\n        return torch.stack([de_resize(o, h, w) for o in out], 1)", "1, 9, 48, 56", DYNAMIC_BHW),
    # carvekit: salient-object segmentation and matting for background removal (random weights).
    Spec("carvekit_u2net", "carvekit U^2-Net (full: residual U-blocks of heights 7 to 4, ceil-mode max pooling, "
         "each decoder stage upsampled bilinearly to the size its encoder had, computed from the input's size by "
         "ceil halvings; 7 sigmoid saliency maps)", _CK.format("u2net.u2net", "U2NETArchitecture"),
         "U2NETArchitecture('full', 1)", "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("carvekit_u2net_lite", "carvekit U^2-Net with the lite widths (16 middle, 64 out channels) in its dict "
         "configuration, at an odd size (the ceil halvings and upsampling sizes differ from halving)",
         _CK.format("u2net.u2net", "U2NETArchitecture"), f"U2NETArchitecture({_U2NET_LITE}, 1)",
         "return self.m(x)[0]", "1, 3, 72, 90", DYNAMIC_BHW),
    Spec("carvekit_basnet", "carvekit BASNet (torchvision ResNet-34 encoder, bridge with dilated convolutions, "
         "decoder with bilinear upsampling by fixed factors, the residual refinement U-Net; the refined and 7 side "
         "maps)", _CK.format("basnet.basnet", "BASNet"), "BASNet(3, 1)", "return self.m(x)", "1, 3, 64, 64",
         DYNAMIC_BHW),
    Spec("carvekit_tracer_b7", "carvekit Tracer-B7 (EfficientNet-B7 encoder with static same padding computed for "
         "600 px, receptive field blocks, aggregation, object attention with edge maps; three bilinear maps "
         "averaged, sigmoid)", "from carvekit.ml.arch.tracerb7.tracer import TracerDecoder\n"
         "from carvekit.ml.arch.tracerb7.efficientnet import EfficientEncoderB7",
         "TracerDecoder(EfficientEncoderB7())", "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("carvekit_fba", "carvekit FBA matting (ResNet-50 with group norm and weight standardisation, dilated, max "
         "pooling indices kept; pyramid pooling resized to the bottleneck's size; foreground, background and alpha "
         "fused): the image, its ImageNet-normalised copy and a trimap from two input channels (six distance "
         "channels as the trimap itself, repeated)", _CK.format("fba_matting.models", "FBA"),
         "FBA('resnet50_GN_WS')",
         _FBA_FORWARD,
         "1, 5, 64, 64", DYNAMIC_BHW),
    Spec("carvekit_fba_bn", "carvekit FBA matting with the batch-norm encoder (dilated ResNet-50 with BatchNorm, "
         "max pooling indices kept; the same decoder and fusion): image, normalised image and a trimap from two "
         "input channels as above", _CK.format("fba_matting.models", "FBA"), "FBA('resnet50_BN')", _FBA_FORWARD,
         "1, 5, 64, 64", DYNAMIC_BHW),
    # unet: Fernando Perez-Garcia's configurable U-Nets in 1D, 2D and 3D (random weights).
    Spec("unet_valid_2d", "unet UNet2D without padding (valid convolutions, 3 encoding blocks from 8 channels, max "
         "pooling, transposed-convolution upsampling; each skip centre-cropped to the upsampled size, the crop "
         "computed as a tensor from both shapes and passed to F.pad as negative padding), grayscale, 2 classes, "
         "the output smaller than the input", _UNET.format("UNet2D"),
         "UNet2D(in_channels=1, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=8)",
         "return self.m(x)", "1, 1, 92, 92", DYNAMIC_BHW),
    Spec("unet_residual_bn_2d", "unet UNet2D with residual blocks (padding forced to 1), batch norm, bilinear "
         "upsampling, 4 encoding blocks from 8 channels, RGB, 3 classes (skips cropped by zero)",
         _UNET.format("UNet2D"),
         "UNet2D(in_channels=3, out_classes=3, num_encoding_blocks=4, out_channels_first_layer=8, "
         "normalization='batch', residual=True, upsampling_type='linear')", "return self.m(x)", "1, 3, 64, 64",
         DYNAMIC_BHW),
    Spec("unet_preact_avg_2d", "unet UNet2D with pre-activation blocks (batch norm and PReLU before each "
         "convolution), average pooling, reflection padding, transposed-convolution upsampling, 3 encoding blocks "
         "from 8 channels, RGB, 2 classes", _UNET.format("UNet2D"),
         "UNet2D(in_channels=3, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=8, "
         "preactivation=True, pooling_type='avg', activation='PReLU', normalization='batch', padding=1, "
         "padding_mode='reflect')", "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("unet_3d", "unet UNet3D (padded, instance norm, 3 encoding blocks from 4 channels, "
         "transposed-convolution upsampling) on grayscale 32-voxel volumes, 2 classes", _UNET.format("UNet3D"),
         "UNet3D(in_channels=1, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=4, padding=1, "
         "normalization='instance')", "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_BDHW),
    Spec("unet_1d", "unet UNet1D (padded, 3 encoding blocks from 8 channels, transposed-convolution upsampling) on "
         "two-channel signals of 96 samples, 3 classes", _UNET.format("UNet1D"),
         "UNet1D(in_channels=2, out_classes=3, num_encoding_blocks=3, out_channels_first_layer=8, padding=1)",
         "return self.m(x)", "1, 2, 96", 'dynamic_axes = { x = { 0 = "batch", 2 = "length" } }'),
]

if __name__ == "__main__":
    main(MODELS24, "real_zoo24", PINS24)
