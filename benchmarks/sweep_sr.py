"""A sweep of XPixel's BasicSR 1.4.2 (and Real-ESRGAN 0.3.0's arch) through migrate: many of its models, none in a zoo.

    python benchmarks/sweep_sr.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Not a held-out zoo but a sweep: the aim is to find which idioms of the super-resolution library stop migrate most
often, and fix those classes in general. BasicSR 1.4.2 is published on PyPI as a source archive only: its wheel is
built once from that archive, without build isolation and without its CUDA extensions (``BASICSR_EXT`` unset:
pure Python), and unpacked like the other pins (``PINS_SR``). Real-ESRGAN 0.3.0 is a wheel (its archs import
BasicSR). Its package imports ``torchvision.transforms.functional_tensor``, which torchvision removed in 0.17: every
wrapper first maps that name to ``torchvision.transforms.functional``, as users of BasicSR do; nothing else of the
library is changed. Models were chosen across ``basicsr/archs``: the image restorers (EDSR, RCAN, RRDBNet at its
three scales, MSRResNet, SRVGGNetCompact, ECBSR, SwinIR with each of its upsamplers, RIDNet), video and flow
(SpyNet, BasicVSR, TOFlow, DUF, EDVR's TSA fusion and predeblur parts, and ``arch_util``'s ``resize_flow`` and
``flow_warp`` as a flow model's post-processing calls them), HiFaceGAN (a SPADE generator). Left out: StyleGAN2's
generator (its fused activation is a compiled op, absent here), the models needing deformable convolution (EDVR,
IconVSR, BasicVSR++: torchvision's compiled op is absent here), DFDNet (it loads a dictionary file), the VGG feature
extractor, the Inception network of the FID metric and the discriminators (not deployment models); GFPGAN's archs
(its package imports facexlib, which is not installed). Small configs, random weights, 32 to 64 px; dynamic batch,
height and width, frames fixed where the model loops over them in Python (BasicVSR) or its layers are built for a
number of frames (DUF, TOFlow, TSA); batch alone for HiFaceGAN (its crop size is part of the model).

Each model was built and run eagerly before migrate ran (finite outputs; forwards of 1.5 s at most here, BasicVSR's
three 64 px frames; changed then: BasicVSR at 64 px, SpyNet's six-level pyramid is empty at 32; Real-ESRGAN's
activation is ``leakyrelu``). Results (``--jobs 1``, 2 cores shared, load 3 to 7), by what stops each model, at the
library's line:

Clean at first contact (exit 0, nothing to fix): 18 models (EDSR x2/x3/x4, RCAN x2/x3, RRDBNet x1/x2/x4, MSRResNet
x3/x4, both SRVGGNetCompact, ECBSR, RIDNet, DUF, TSA fusion, predeblur, HiFaceGAN).
Fixed by migrate at first contact (exit 0): the four SwinIR (TRT712: the batch of ``window_reverse``,
``int(windows.shape[0] / (h * w / window_size / window_size))``, basicsr/archs/swinir_arch.py:89), TOFlow (TRT712:
``max(w - 1, 1)`` in ``flow_warp``, basicsr/archs/arch_util.py:142-143). Warnings left (exit 0): SwinIR's
``self.mean = self.mean.type_as(x)`` (TRT703, swinir_arch.py:892), RRDBNet's pixel-unshuffle ``assert``
(arch_util.py:202), HiFaceGAN's sizes read in its SPADE blocks (batch alone is dynamic there). Added after the
fixes, run on main's code and on this branch's (the same result): sr_resize_flow (TRT712: ``int(flow_h * sizes[0])``,
arch_util.py:172) and sr_flow_warp (TRT712, as TOFlow), fixed at first contact.
Exit 1 at first contact, exit 0 after the fixes of this sweep: sr_spynet and sr_basicvsr (its SpyNet), at
basicsr/archs/spynet_arch.py: the input resized to a multiple of 32 with ``math.floor(math.ceil(w / 32.0) * 32.0)``
(:85-86; only the inner ``ceil`` was rewritten, the outer ``floor`` read the traced size again), the pyramid's start
``int(math.floor(ref[0].size(2) / 2.0))`` of a list's element (:61-62, no fix), the flow scaled back by
``float(w) / float(w_floor)`` (:93-94, no fix), and the row or column added where the upsampled flow is short,
``if upsampled_flow.size(2) != ref[level].size(2): F.pad(..., pad=[0, 0, 0, 1], mode='replicate')`` (:67, 69):
TRT717's ``(1) * (test)`` exported as a bool, and ONNX Runtime refused the pads' Concat of bool and int64. Each fix
alone left the graph unfaithful, so migrate reverted all; with the four, 12 fixes are kept together (TRT712x10,
TRT717x2), faithful and equivalent.

27 models: 18 clean before; 9 need work; migrate fixed 7 of the 9 at first contact, 9 after the fixes. No
regression in models fixed before: spandrel_swinir, spandrel_hat, spandrel_dat (zoo 13), monai_swinunetr_3d,
kornia_tiny_vit and kornia_extract_patches (sweep_kornia_monai) still exit 0.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo14 import PINS14

PINS_SR = {**PINS14, "basicsr": "1.4.2", "realesrgan": "0.3.0"}

#: BasicSR 1.4.2's package imports a torchvision module removed in torchvision 0.17: the usual user fix.
_SHIM = ("import torchvision.transforms.functional as _tvf\n"
         "sys.modules.setdefault('torchvision.transforms.functional_tensor', _tvf)")


def _arch(module: str, names: str) -> str:
    return f"{_SHIM}\nfrom basicsr.archs.{module} import {names}"


_SMALL = "1, 3, 64, 64"
_TINY = "1, 3, 32, 32"
#: Video as (batch, frames, channels, height, width): frames are part of the model.
_DYNAMIC_VIDEO = 'dynamic_axes = { x = { 0 = "batch", 3 = "height", 4 = "width" } }'
#: SwinIR's test code pads the image to a multiple of the window by mirroring, then crops the output.
_SWINIR_PAD = ("h, w = x.shape[2], x.shape[3]\n        "
               "ph = (h // 8 + 1) * 8 - h\n        pw = (w // 8 + 1) * 8 - w\n        "
               "x = torch.cat([x, torch.flip(x, [2])], 2)[:, :, :h + ph, :]\n        "
               "x = torch.cat([x, torch.flip(x, [3])], 3)[:, :, :, :w + pw]\n        ")
_SWINIR = "SwinIR(img_size=32, window_size=8, img_range=1.0, depths=[2, 2], embed_dim=24, num_heads=[2, 2], mlp_ratio=2"

MODELS_SR = [
    Spec("sr_edsr_x2", "basicsr EDSR x2 (16 features, 2 blocks)", _arch("edsr_arch", "EDSR"),
         "EDSR(3, 3, num_feat=16, num_block=2, upscale=2)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("sr_edsr_x3", "basicsr EDSR x3 (residual scale 0.1)", _arch("edsr_arch", "EDSR"),
         "EDSR(3, 3, num_feat=16, num_block=2, upscale=3, res_scale=0.1)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_edsr_x4", "basicsr EDSR x4 (two pixel shuffles by 2)", _arch("edsr_arch", "EDSR"),
         "EDSR(3, 3, num_feat=16, num_block=2, upscale=4)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_rcan_x3", "basicsr RCAN x3 (1 group of 2 blocks)", _arch("rcan_arch", "RCAN"),
         "RCAN(3, 3, num_feat=16, num_group=1, num_block=2, squeeze_factor=4, upscale=3)", "return self.m(x)",
         _TINY, DYNAMIC_BHW),
    Spec("sr_rcan_x2", "basicsr RCAN x2 (2 groups of 2 blocks, channel attention)", _arch("rcan_arch", "RCAN"),
         "RCAN(3, 3, num_feat=16, num_group=2, num_block=2, squeeze_factor=4, upscale=2)", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("sr_rrdbnet_x4", "basicsr RRDBNet x4 (ESRGAN, 16 features, 1 block)", _arch("rrdbnet_arch", "RRDBNet"),
         "RRDBNet(3, 3, scale=4, num_feat=16, num_block=1, num_grow_ch=8)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_rrdbnet_x2", "basicsr RRDBNet x2 (pixel unshuffle by 2 first)", _arch("rrdbnet_arch", "RRDBNet"),
         "RRDBNet(3, 3, scale=2, num_feat=16, num_block=1, num_grow_ch=8)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_rrdbnet_x1", "basicsr RRDBNet x1 (pixel unshuffle by 4 first)", _arch("rrdbnet_arch", "RRDBNet"),
         "RRDBNet(3, 3, scale=1, num_feat=16, num_block=1, num_grow_ch=8)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("sr_msrresnet_x4", "basicsr MSRResNet x4 (SRResNet, bilinear base)", _arch("srresnet_arch", "MSRResNet"),
         "MSRResNet(num_feat=16, num_block=2, upscale=4)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_msrresnet_x3", "basicsr MSRResNet x3", _arch("srresnet_arch", "MSRResNet"),
         "MSRResNet(num_feat=16, num_block=2, upscale=3)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_srvgg_x4", "basicsr SRVGGNetCompact x4 (PReLU, nearest base)", _arch("srvgg_arch", "SRVGGNetCompact"),
         "SRVGGNetCompact(num_feat=16, num_conv=4, upscale=4)", "return self.m(x)", _TINY, DYNAMIC_BHW),
    Spec("sr_realesrgan_srvgg_x2", "realesrgan SRVGGNetCompact x2 (leaky ReLU)",
         f"{_SHIM}\nfrom realesrgan.archs.srvgg_arch import SRVGGNetCompact",
         "SRVGGNetCompact(num_feat=16, num_conv=4, upscale=2, act_type='leakyrelu')", "return self.m(x)", _TINY,
         DYNAMIC_BHW),
    Spec("sr_ecbsr_x2", "basicsr ECBSR x2 (edge-oriented blocks, identity, PReLU)", _arch("ecbsr_arch", "ECBSR"),
         "ECBSR(3, 3, num_block=2, num_channel=8, with_idt=True, act_type='prelu', scale=2)", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("sr_swinir_classical_x2", "basicsr SwinIR x2 (pixel shuffle; input mirrored to the window)",
         _arch("swinir_arch", "SwinIR"), f"{_SWINIR}, upscale=2, upsampler='pixelshuffle')",
         f"{_SWINIR_PAD}return self.m(x)[..., :h * 2, :w * 2]", "1, 3, 30, 30", DYNAMIC_BHW),
    Spec("sr_swinir_lightweight_x3", "basicsr SwinIR x3 (one-step pixel shuffle, lightweight)",
         _arch("swinir_arch", "SwinIR"), f"{_SWINIR}, upscale=3, upsampler='pixelshuffledirect')",
         f"{_SWINIR_PAD}return self.m(x)[..., :h * 3, :w * 3]", "1, 3, 30, 30", DYNAMIC_BHW),
    Spec("sr_swinir_realsr_x4", "basicsr SwinIR x4 (nearest and conv, real-world SR)",
         _arch("swinir_arch", "SwinIR"), f"{_SWINIR}, upscale=4, upsampler='nearest+conv')",
         f"{_SWINIR_PAD}return self.m(x)[..., :h * 4, :w * 4]", "1, 3, 30, 30", DYNAMIC_BHW),
    Spec("sr_swinir_denoise", "basicsr SwinIR denoising (no upsampling, 3-conv residual)",
         _arch("swinir_arch", "SwinIR"), f"{_SWINIR}, upscale=1, upsampler='', resi_connection='3conv')",
         f"{_SWINIR_PAD}return self.m(x)[..., :h, :w]", "1, 3, 30, 30", DYNAMIC_BHW),
    Spec("sr_ridnet", "basicsr RIDNet (denoising, 2 EAM blocks)", _arch("ridnet_arch", "RIDNet"),
         "RIDNet(3, 16, 3, num_block=2)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("sr_spynet", "basicsr SpyNet optical flow (two frames as 6 channels)", _arch("spynet_arch", "SpyNet"),
         "SpyNet()", "return self.m(x[:, :3], x[:, 3:])", "1, 6, 64, 64", DYNAMIC_BHW),
    Spec("sr_basicvsr", "basicsr BasicVSR x4 (SpyNet flow, 16 features, 3 frames)",
         _arch("basicvsr_arch", "BasicVSR"), "BasicVSR(num_feat=16, num_block=2)", "return self.m(x)",
         "1, 3, 3, 64, 64", _DYNAMIC_VIDEO),
    Spec("sr_toflow", "basicsr TOFlow (7 frames, SpyNet-style flow per frame)", _arch("tof_arch", "TOFlow"),
         "TOFlow()", "return self.m(x)", "1, 7, 3, 64, 64", _DYNAMIC_VIDEO),
    Spec("sr_duf_x2", "basicsr DUF x2 (16 layers, dynamic upsampling filters, 7 frames)", _arch("duf_arch", "DUF"),
         "DUF(scale=2, num_layer=16)", "return self.m(x)", "1, 7, 3, 32, 32", _DYNAMIC_VIDEO),
    Spec("sr_tsa_fusion", "basicsr EDVR's TSA fusion (5 frames of 16 features)", _arch("edvr_arch", "TSAFusion"),
         "TSAFusion(num_feat=16, num_frame=5, center_frame_idx=2)", "return self.m(x)", "1, 5, 16, 32, 32",
         _DYNAMIC_VIDEO),
    Spec("sr_predeblur", "basicsr EDVR's predeblur module (16 features)", _arch("edvr_arch", "PredeblurModule"),
         "PredeblurModule(num_feat=16)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # arch_util's flow functions, as a flow model's post-processing calls them.
    Spec("sr_resize_flow", "basicsr resize_flow (a flow resized by ratios 2 and 0.5, its vectors scaled)",
         _arch("arch_util", "resize_flow"), "torch.nn.Identity()", 'return resize_flow(self.m(x), "ratio", [2.0, 0.5])',
         "1, 2, 32, 32", DYNAMIC_BHW),
    Spec("sr_flow_warp", "basicsr flow_warp (an image warped by a flow with grid_sample, border padding)",
         _arch("arch_util", "flow_warp"), "torch.nn.Identity()",
         "return flow_warp(self.m(x)[:, :3], x[:, 3:].permute(0, 2, 3, 1) * 4.0, padding_mode='border')",
         "1, 5, 32, 32", DYNAMIC_BHW),
    Spec("sr_hifacegan", "basicsr HiFaceGAN (SPADE generator, 8 features, 64 px crops)",
         _arch("hifacegan_arch", "HiFaceGAN"), "HiFaceGAN(num_feat=8, crop_size=64, is_train=False)",
         "return self.m(x)", _SMALL, DYNAMIC_B),
]


def build_basicsr_wheel(argv: list[str]) -> None:
    """BasicSR 1.4.2 has no wheel on PyPI: build it once from the source archive into WORK/wheels, where
    real_zoo.py's ``fetch_sources`` finds it (no build isolation: its setup.py imports torch, and an isolated
    build would install another torch; ``BASICSR_EXT`` unset: no compiled extension, a pure-Python wheel)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--work", type=Path, default=Path(__file__).resolve().parent / ".sweep_sr")
    wheels = parser.parse_known_args(argv)[0].work / "wheels"
    if list(wheels.glob(f"basicsr-{PINS_SR['basicsr']}-*.whl")):
        return
    wheels.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("BASICSR_EXT", "BASICSR_JIT")}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    f"basicsr=={PINS_SR['basicsr']}", "-w", str(wheels)], check=True, env=env)


if __name__ == "__main__":
    build_basicsr_wheel(sys.argv[1:])
    main(MODELS_SR, "sweep_sr", PINS_SR)
