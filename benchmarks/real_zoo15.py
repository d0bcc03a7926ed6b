"""A fifteenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo15.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the fourteenth zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the fourteenth zoo's libraries and pins and two more libraries by
other authors, whose code no earlier zoo ran (``PINS15``: unpacked wheels like the others, never pip-installed): Meta's
hiera-transformer 0.1.4 (the original Hiera: image and video models and their masked autoencoders; it imports torch,
timm, tqdm and packaging) and mikel-brostrom's boxmot 25.0.0 (multi-object tracking; its package and its ``reid``
package resolve their exports lazily, so the re-identification backbones import without the trackers and their
compiled dependencies; they need torch, numpy, PyYAML and rich). rich and packaging were in the environment only
through other packages' dependencies; the ``bench`` extra now names them. 12 of the 24 models come from the two new
libraries. Considered and dropped before any model was chosen: sam2 and torchgeo (no wheel on the index for this
Python), face-alignment (its package imports scikit-image and numba, compiled, at import),
segmentation-models-pytorch-3d (it pins timm 0.9.7 and needs timm-3d, pretrainedmodels and efficientnet-pytorch),
open-clip-torch (it imports ftfy; mostly backbones, where boxmot and Hiera bring re-identification, video and masking),
and, as zoo 14 found, rfdetr, ptlflow, pytorchvideo and torchreid; yolov5, yolox, basicsr and ultralytics were left to
other work running at the same time.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 14 or in
the library sweeps (benchmarks/sweep_*.py), most of them of kinds that often need work for an ONNX or TensorRT
deployment. Re-identification for tracking, from boxmot, each built with ``build_backbone(name, num_classes=10,
pretrained=False)`` and giving its embedding in eval mode: HACNN (harmonious attention: soft spatial and channel
attention and hard regions cut out by a spatial transformer, ``affine_grid`` and ``grid_sample``, from 160x64 crops),
Hi-AFA (hierarchical attentive feature aggregation: resolution-specific grouped spatial attention, suppression of
the strongest positions, horizontal stripe pooling; 384x128 crops), MLFN (multi-level factorisation: factor selection
modules gating grouped blocks), LMBN-n on OSNet and LMBN-AIN-n on OSNet-AIN (lightweight multi-branch: global, part
and channel branches), OSNet-AIN x0.25 (omni-scale residual streams, adaptive instance normalization), OSNet-IBN
x1.0 (instance-batch normalization), and two of boxmot's own TinyViT re-id models, csl_tinyvit_7m and its multi-branch
head variant (window attention with the map padded to whole windows, attention bias tables). Video and masking, from
hiera-transformer: Hiera in its video configuration (its hiera_base_16x224's, narrow, 8 frames of 64 px: mask-unit
attention over 3-D units, tokens unrolled and pooled, separate space and time position embeddings) and the masked
autoencoders, image (128 px) and video (the same clip), run with a fixed mask of 16 units of which 12 are kept (the
masked units' tokens dropped by a boolean index, multi-scale fusion, the decoder's pixel predictions for the masked
units and the mask returned). Pose and real-time segmentation, from pytorchcv: AlphaPose on a fast SE-ResNet-101b
(pixel shuffle head, heatmap maxima decoded to (x, y, score) per keypoint), CGNet (context guided blocks: local,
dilated surrounding and global context), DABNet (depth-wise asymmetric bottlenecks, the input downsampled and
concatenated back), FPENet (feature pyramid encoding, mutual embedding upsampling), ContextNet (a full-resolution
branch and a quarter-resolution context branch, added) and ESNet (factorized convolution units, parallel dilated
branches). Windowed attention with padding and a codebook, from spandrel, each built from its class with a small
config: GRL x2 (window, stripe and anchor attention), ATD x2 (adaptive token dictionary: tokens grouped into
categories by sorted similarities, window attention), DRCT x2 (dense residual Swin blocks: shifted windows, masks for
the padded input's size, relative position biases) and RestoreFormer (face restoration: the encoder's features
quantized to the nearest of 64 codes, multi-head cross attention with the quantized keys). Then the minority,
backbones from corners the earlier zoos used little: torchvision's MNASNet 0.5 and timm's lcnet_050 (PP-LCNet). No
detector: the pinned libraries' detectors outside ultralytics are all in earlier zoos.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (re-id crops
at 128x64, pose at 64x48, the restoration models at 40x48, not whole windows, so that their padding runs; ContextNet
at multiples of 32: at 80 px its two branches' maps differ by two pixels), the segmentation models built with
``fixed_size=False`` (their resizes follow the input); batch alone where the size is part of the model (HACNN checks
for 160x64 and Hi-AFA for 384x128, its attention is built for that resolution; Hiera's position embeddings and mask
units are fixed by its input size). Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for
building and running eagerly (deterministic over three forwards, finite outputs), at two sizes (a batch of two and,
where height and width are dynamic, 16 px more, 32 for ContextNet), before the first migrate run: in the last check
the best of three forwards at the spec's size took 0.9 s at most here (AlphaPose's ResNet-101), 0.55 s for DRCT and
RestoreFormer, under 0.45 s for the others, most under 0.2 s; single forwards took up to 3.2 s at the spec's size and
5.7 s at the second sizes (RestoreFormer, a batch of two at 80 px), with the machine's load at 4 to 6 on two cores.
Changed then: nothing was swapped (every model built and ran at its first try but ContextNet at 80 px, now fed at
multiples of 32); RestoreFormer's config was widened to 32 channels (its GroupNorm layers have 32 groups: 16 channels
do not build); spandrel's DRCT was added as the 24th model after the other 23 ran.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo14 import PINS14

#: The fourteenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): Meta's hiera-transformer (the original Hiera: image and video models and their masked
#: autoencoders; it imports torch, timm, tqdm and packaging) and mikel-brostrom's boxmot (multi-object tracking; its
#: re-identification backbones are imported here, lazily, without the trackers; torch, numpy and rich).
PINS15 = {**PINS14, "hiera_transformer": "0.1.4", "boxmot": "25.0.0"}

_SMALL = "1, 3, 64, 64"
#: A person crop for re-identification, 2:1 as the re-id models take it (their default is 256x128).
_CROP = "1, 3, 128, 64"
#: A video as (batch, channels, frames, height, width).
_CLIP = "1, 3, 8, 64, 64"
_BOXMOT = "from boxmot.reid.backbones.registry import build_backbone"
_PCV = "pytorchcv.models"
_SPANDREL = "spandrel.architectures"
#: Hiera's video configuration (its hiera_base_16x224), 8 frames of 64 px and narrow.
_HIERA_VIDEO = ("input_size=(8, 64, 64), q_stride=(1, 2, 2), mask_unit_size=(1, 8, 8), patch_kernel=(3, 7, 7), "
                "patch_stride=(2, 4, 4), patch_padding=(1, 3, 3), sep_pos_embed=True, embed_dim=32, num_heads=1, "
                "stages=(1, 1, 2, 1)")
_MAE_DECODER = "decoder_embed_dim=32, decoder_depth=1, decoder_num_heads=1"
#: The masked autoencoders' 16 mask units, every fourth one masked out: a fixed mask, so that runs are deterministic.
_KEEP = 'self.register_buffer("keep", torch.arange(16)[None] % 4 != 0)'
_MAE_FORWARD = ("_, pred, _, mask = self.m(x, mask=self.keep.expand(x.shape[0], -1))\n        "
                "return pred, mask.to(pred.dtype)")


def _reid(name: str, what: str, shape: str = _CROP, config: str = DYNAMIC_BHW) -> Spec:
    """A boxmot re-identification backbone: random weights, the embedding it gives in eval mode."""
    return Spec(f"boxmot_{name}", f"boxmot {name} ({what})", _BOXMOT,
                f'build_backbone("{name}", num_classes=10, pretrained=False)', "return self.m(x)", shape, config,
                calibrate="self.m(xb)")


MODELS15 = [
    # boxmot: re-identification backbones for tracking.
    _reid("hacnn", "harmonious attention CNN: soft attention and hard regions cut by a spatial transformer, "
          "affine_grid and grid_sample; 160x64 crops", "1, 3, 160, 64", DYNAMIC_B),
    _reid("hi_afa", "hierarchical attentive feature aggregation: resolution-specific spatial attention, feature "
          "suppression, horizontal stripe pooling; 384x128 crops", "1, 3, 384, 128", DYNAMIC_B),
    _reid("mlfn", "multi-level factorisation net: factor selection modules over grouped blocks"),
    _reid("lmbn_n", "lightweight multi-branch net on OSNet: global, part and channel branches"),
    _reid("lmbn_ain_n", "lightweight multi-branch net on OSNet-AIN: instance-normalized branches"),
    _reid("osnet_ain_x0_25", "omni-scale net with adaptive instance normalization, width 0.25"),
    _reid("osnet_ibn_x1_0", "omni-scale net with instance-batch normalization"),
    _reid("csl_tinyvit_7m", "TinyViT re-id backbone: windowed attention padded to whole windows, attention biases"),
    _reid("csl_tinyvit_7m_lmbn", "TinyViT with the multi-branch re-id head"),
    # hiera-transformer: Hiera video, and the masked autoencoders (image and video) with a fixed mask.
    Spec("hiera_video", "hiera-transformer Hiera video (mask-unit attention over 3-D units, unrolled and pooled "
         "tokens, separate space and time positions; 8 frames of 64 px)", "from hiera.hiera import Hiera",
         f"Hiera({_HIERA_VIDEO}, num_classes=10)", "return self.m(x)", _CLIP, DYNAMIC_B),
    Spec("hiera_mae_image", "hiera-transformer MaskedAutoencoderHiera, image (16 mask units, 12 kept: masked "
         "tokens dropped by a boolean index, multi-scale fusion, pixel reconstruction)",
         "from hiera.hiera_mae import MaskedAutoencoderHiera",
         "MaskedAutoencoderHiera(input_size=(128, 128), embed_dim=32, num_heads=1, stages=(1, 1, 2, 1), q_pool=2, "
         f"{_MAE_DECODER})", _MAE_FORWARD, "1, 3, 128, 128", DYNAMIC_B, init=_KEEP),
    Spec("hiera_mae_video", "hiera-transformer MaskedAutoencoderHiera, video (8 frames of 64 px, 16 space-time "
         "mask units, 12 kept)", "from hiera.hiera_mae import MaskedAutoencoderHiera",
         f"MaskedAutoencoderHiera({_HIERA_VIDEO}, q_pool=2, {_MAE_DECODER})", _MAE_FORWARD, _CLIP, DYNAMIC_B,
         init=_KEEP),
    # pytorchcv: pose and real-time segmentation nobody here ran.
    Spec("pcv_alphapose", "pytorchcv AlphaPose fast SE-ResNet-101b COCO (pixel shuffle head, heatmap maxima "
         "decoded to keypoints)", f"from {_PCV}.alphapose_coco import alphapose_fastseresnet101b_coco",
         "alphapose_fastseresnet101b_coco(in_size=(64, 48))", "return self.m(x)", "1, 3, 64, 48", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_cgnet", "pytorchcv CGNet (context guided blocks: local, dilated surrounding and global context)",
         f"from {_PCV}.cgnet import cgnet_cityscapes", "cgnet_cityscapes(fixed_size=False, in_size=(64, 64))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_dabnet", "pytorchcv DABNet (depth-wise asymmetric bottlenecks, input downsampled and concatenated "
         "back)", f"from {_PCV}.dabnet import dabnet_cityscapes",
         "dabnet_cityscapes(fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_fpenet", "pytorchcv FPENet (feature pyramid encoding, mutual embedding upsampling)",
         f"from {_PCV}.fpenet import fpenet_cityscapes", "fpenet_cityscapes(fixed_size=False, in_size=(64, 64))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_ctxnet", "pytorchcv ContextNet (a full-resolution branch and a quarter-resolution context branch "
         "fused)", f"from {_PCV}.contextnet import ctxnet_cityscapes",
         "ctxnet_cityscapes(fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_esnet", "pytorchcv ESNet (factorized convolution units, parallel dilated branches, symmetric "
         "decoder)", f"from {_PCV}.esnet import esnet_cityscapes",
         "esnet_cityscapes(fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    # spandrel: windowed and token-dictionary attention with padding, a vector-quantized face restorer.
    Spec("spandrel_grl", "spandrel GRL x2 (window, stripe and anchor attention; the input padded to whole "
         "windows)", f"from {_SPANDREL}.GRL.__arch.grl import GRL",
         'GRL(img_size=64, embed_dim=32, upscale=2, upsampler="pixelshuffle", depths=[2, 2], '
         "num_heads_window=[2, 2], num_heads_stripe=[2, 2], window_size=8, stripe_size=[8, 8], mlp_ratio=2.0, "
         "drop_path_rate=0.0)", "return self.m(x)", "1, 3, 40, 48", DYNAMIC_BHW),
    Spec("spandrel_atd", "spandrel ATD x2 (adaptive token dictionary: category-grouped attention by sorted "
         "similarities, window attention padded)", f"from {_SPANDREL}.ATD.__arch.atd_arch import ATD",
         'ATD(img_size=64, embed_dim=32, depths=(2,), num_heads=(2,), window_size=8, category_size=64, '
         'num_tokens=16, reducted_dim=4, mlp_ratio=2.0, upscale=2, upsampler="pixelshuffledirect")',
         "return self.m(x)", "1, 3, 40, 48", DYNAMIC_BHW),
    Spec("spandrel_drct", "spandrel DRCT x2 (dense residual Swin blocks: shifted windows, masks for the padded "
         "input's size, relative position biases)", f"from {_SPANDREL}.DRCT.__arch.drct_arch import DRCT",
         'DRCT(img_size=64, embed_dim=32, depths=(2,), num_heads=(2,), window_size=8, mlp_ratio=2.0, gc=16, '
         'drop_path_rate=0.0, upscale=2, upsampler="pixelshuffle")', "return self.m(x)", "1, 3, 40, 48",
         DYNAMIC_BHW),
    Spec("spandrel_restoreformer", "spandrel RestoreFormer (face restoration: a VQ codebook looked up by "
         "nearest distance, multi-head cross attention with the quantized keys)",
         f"from {_SPANDREL}.RestoreFormer.__arch.restoreformer_arch import RestoreFormer",
         "RestoreFormer(n_embed=64, embed_dim=32, ch=32, ch_mult=(1, 1, 2), num_res_blocks=1, "
         "attn_resolutions=(16,), resolution=64, z_channels=32, head_size=2)", "return self.m(x)[0]", _SMALL,
         DYNAMIC_BHW),
    # Backbones from corners the earlier zoos used little.
    Spec("tv_mnasnet0_5", "torchvision mnasnet0_5 (searched inverted residuals)", "import torchvision",
         "torchvision.models.mnasnet0_5(weights=None, num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_lcnet_050", "timm lcnet_050 (PP-LCNet: depthwise separable blocks, hard-swish, a late SE)",
         "import timm", 'timm.create_model("lcnet_050", pretrained=False, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS15, "real_zoo15", PINS15)
