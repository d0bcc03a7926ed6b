"""An eighteenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo18.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the seventeenth zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the seventeenth zoo's libraries and pins and two more libraries by
other authors, whose code no earlier zoo or sweep ran (``PINS18``: unpacked wheels like the others, never
pip-installed): SysCV's segment-anything-hq 0.3 (HQ-SAM: Meta's SAM with a high-quality output token whose mask is
computed from the image embedding and an early ViT feature fused together; its own ``Sam`` forward with prompt
encoding and mask post-processing, and the ``SamOnnxModel`` its ONNX export script wraps; it imports torch and
torchvision) and ZFTurbo's timm-3d 1.0.1 (timm's model families rewritten for volumes: 3-D convolutions, pooling,
normalisation and window and grid attention; it imports torch, torchvision, PyYAML, huggingface_hub and safetensors).
Both import with the environment's packages: the ``bench`` extra is unchanged. 14 of the 24 models come from the two
new libraries. transformers' SamHQ (zoo 13) is a port; these are segment-anything-hq's own modules. Considered and
dropped before any model was chosen (by its wheel's metadata): retinaface-pytorch (pins torch 1.9 and albumentations
1.0), facexlib (xinntao's, the author of basicsr, which the sweeps use; filterpy and numba), batch-face
(opencv-transforms and sixdrepnet), torchseg (segmentation-models-pytorch's architectures again); the libraries
zoos 15 to 17 dropped, as they found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 17 or in
the library sweeps (benchmarks/sweep_*.py), most of them of kinds that often need work for an ONNX or TensorRT
deployment. Promptable segmentation, from segment-anything-hq, random weights, its build_sam layout shrunk (a 128 px ViT
encoder with patches of 16, relative positions, windows of 3 over the 8x8 tokens, so padded to 9, and one global block
whose output is the early feature the HQ token fuses; a one-layer two-way transformer of width 32): ``Sam``'s own
forward on a batch of images with a box each (pixels normalised and padded to 128, masks upsampled, cropped to the
input's size, resized to an original size of twice the input's and thresholded), the same with two point prompts, a
positive and a negative, multimask output and ``hq_token_only``, ``SamOnnxModel`` (its export wrapper: two points and a
box as corner points labelled 2 and 3, the HQ feature fused, the best of the multimask outputs by predicted IoU and the
HQ mask added, stability score and area as extra metrics, masks resized to the original size held in a tensor) and the
prompt encoder and ``MaskDecoderHQ`` for one image's embedding and a batch of boxes (the embedding repeated per box, as
its decoder does). Volumes, from timm-3d, 3-channel 32^3 volumes and 10 classes: ConvNeXt atto (7x7x7 depthwise
convolutions) and ConvNeXt V2 atto (global response normalisation), tf_efficientnet_b0 (TensorFlow "same" padding
computed from the input's size), efficientnet_cc_b0_4e (CondConv: per-sample kernels mixed from four experts by a
routing function), maxvit_rmlp_pico_rw_256 (block and grid attention over 3-D partitions with a relative-position MLP
bias) and coatnet_pico_rw_224 (convolution stages, then attention with a relative position bias), both at 64^3, which
their partitions and bias tables fix; MixNet-S (channels split across kernels of 3 to 9), ResNet-18 with blur pooling,
MobileNetV2 at half width and DenseNet-121; timm's 2-D versions of some of these families are in earlier zoos (ConvNeXt
atto in zoo 2, a MixNet in zoo 11, CoAtNet and MaxViT variants in zoos 3, 4, 9 and 16, a DenseNet in zoo 12), but these
are timm-3d's own modules, volumetric throughout (3-D kernels, pooling, partitions and bias tables). Detection
post-processing and segmentation, from pytorchcv: NTS-Net (a navigator scoring 1614 anchors on three scales of a
ResNet-50, hard NMS in numpy over them, the top 4 regions cropped from the padded image and resized to 224 px, a
scrutinizer concatenating their features; 448 px birds, as the model is laid out), SQNet (fire modules, parallel dilated
convolutions, refinement on the skips), ERFNet (factorised 1-D convolutions, a downsampler concatenating a pooled
input), EDANet (dense asymmetric blocks), SegNet (max-pooling indices driving max-unpooling) and LinkNet (a ResNet-18
encoder with decoders added to its skips). Warps and tiling, from kornia: a thin-plate spline solved from six point
pairs and applied with ``warp_image_tps``, a homography solved by DLT from four corner pairs that depend on the input
and applied with ``warp_perspective`` at the input's size, and tiled processing (``extract_tensor_patches`` with
automatic padding to whole 16 px tiles, a small network per tile, ``combine_tensor_patches`` removing the padding).
Registration, from monai: RegUNet predicting a velocity field from a moving and a fixed volume, integrated by
``DVF2DDF`` (scaling and squaring through grid-sample warps) and the moving volume warped by ``Warp``.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (the HQ-SAM
forwards up to 128 px, which its encoder pads to, and the kornia tiles at sizes that are not whole tiles); batch, depth,
height and width for the volumes (RegUNet at multiples of 8); batch alone where the size is part of the model (NTS-Net's
anchors for 448 px, the 3-D MaxViT's and CoAtNet's partitions and bias tables); the number of boxes for
``MaskDecoderHQ``; none for ``SamOnnxModel``, which takes one picture's embedding with a fixed set of prompts held by
the wrapper (as zoo 17's ``SamDecoderOnnx``). Machinery, table and counts are real_zoo2.py's. The wrappers were checked
only for building and running eagerly (deterministic over three forwards, finite outputs), at two sizes (a batch of two
and, where height, width, depth or the number of boxes are dynamic, 16 more or, for the pytorchcv segmenters, 32 more;
two boxes in place of three), before the first migrate run: with one thread on the shared two cores, the best of three
forwards at the spec's size took under 0.35 s for every model but NTS-Net (1.27 to 1.39 s; 1.85 to 2.87 s for a batch of
two), most under 0.05 s; the 3-D CoAtNet 0.25 to 0.31 s (0.64 to 0.70 s for two), the 3-D MaxViT 0.16 to 0.18 s, SegNet
0.09 to 0.13 s (0.28 to 0.42 s for two at 96 px). NTS-Net's build, which calibrates batch norm on four 448 px images,
took 20 to 21 s. Changed then: from the first list (before any run), pytorchcv's ENet was replaced by SegNet (ENet is in
zoo 14; it was found before running it). After the first runs: the HQ decoder takes one image's embedding and a batch of
boxes (a batch of embeddings each with one box failed eagerly: its decoder repeats one image's embedding per prompt),
and the point-prompted HQ-SAM runs at 96x112 (at 96x128, 16 more in width exceeds the encoder's 128 px, which its
padding crops silently).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo17 import PINS17

#: The seventeenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): SysCV's segment-anything-hq (HQ-SAM: SAM with a high-quality output token fusing early ViT features,
#: its own ``Sam`` forward with mask post-processing and the ``SamOnnxModel`` its ONNX export script wraps; it imports
#: torch and torchvision) and ZFTurbo's timm-3d (timm's classification families rewritten for volumes: 3-D
#: convolutions, pooling, windowed and grid attention; it imports torch, torchvision, pyyaml, huggingface_hub and
#: safetensors).
PINS18 = {**PINS17, "segment_anything_hq": "0.3", "timm_3d": "1.0.1"}

_SMALL = "1, 3, 64, 64"
_PCV = "pytorchcv.models"
_HQ = "from segment_anything_hq.modeling import ImageEncoderViT, MaskDecoderHQ, PromptEncoder, Sam, TwoWayTransformer"
#: HQ-SAM as its build_sam lays it out, shrunk: a 128 px ViT encoder (patches of 16, so an 8x8 embedding) with
#: windows of 3 (padded to 9) and one global block, whose output is the early feature the HQ token fuses.
_HQ_SAM = ("Sam(image_encoder=ImageEncoderViT(img_size=128, patch_size=16, embed_dim=32, depth=2, num_heads=2, "
           "out_chans=32, use_rel_pos=True, window_size=3, global_attn_indexes=(1,)), "
           "prompt_encoder=PromptEncoder(embed_dim=32, image_embedding_size=(8, 8), input_image_size=(128, 128), "
           "mask_in_chans=8), mask_decoder=MaskDecoderHQ(num_multimask_outputs=3, "
           "transformer=TwoWayTransformer(depth=1, embedding_dim=32, mlp_dim=64, num_heads=2), transformer_dim=32, "
           "iou_head_depth=3, iou_head_hidden_dim=32, vit_dim=32), pixel_mean=[123.675, 116.28, 103.53], "
           "pixel_std=[58.395, 57.12, 57.375])")
_VOLUME = "1, 3, 32, 32, 32"
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
_T3D = "import timm_3d"


def _t3d(name: str, what: str, args: str = "", shape: str = _VOLUME, config: str = _DYNAMIC_VOLUME,
         **kw: str) -> Spec:
    """A timm-3d classifier on a 3-channel volume, random weights, 10 classes."""
    return Spec(f"t3d_{name}", f"timm-3d {name} ({what})", _T3D,
                f'timm_3d.create_model("{name}", pretrained=False, num_classes=10{args})', "return self.m(x)",
                shape, config, **kw)


MODELS18 = [
    # segment-anything-hq: HQ-SAM's own forward, its ONNX export wrapper, its decoder on a batch.
    Spec("samhq_boxes", "segment-anything-hq Sam forward (ViT encoder with windowed attention padded to whole "
         "windows and a global block, a box prompt per image, the HQ token's mask fused from the early feature, "
         "masks post-processed to each image's original size)", _HQ, _HQ_SAM,
         "h, w = x.shape[2], x.shape[3]\n        "
         "batch = [{'image': im * 255, 'original_size': (2 * h, 2 * w), "
         "'boxes': torch.stack([im[0, 0, :2], im[0, 0, :2] + im[0, 0, 2:4]]).flatten()[None] * 64} for im in x]\n"
         "        out = self.m(batch, multimask_output=False)\n        "
         "return (torch.cat([o['masks'] for o in out]).to(x.dtype), torch.cat([o['iou_predictions'] for o in out]), "
         "torch.cat([o['low_res_logits'] for o in out]))", "1, 3, 112, 112", DYNAMIC_BHW),
    Spec("samhq_points_hq_only", "segment-anything-hq Sam forward with two point prompts an image, multimask "
         "output and hq_token_only (the HQ mask alone), masks thresholded at the original size", _HQ, _HQ_SAM,
         "h, w = x.shape[2], x.shape[3]\n        "
         "batch = [{'image': im * 255, 'original_size': (h, w), 'point_coords': self.points, "
         "'point_labels': self.labels} for im in x]\n        "
         "out = self.m(batch, multimask_output=True, hq_token_only=True)\n        "
         "return torch.cat([o['masks'] for o in out]).to(x.dtype), torch.cat([o['iou_predictions'] for o in out])",
         "1, 3, 96, 112", DYNAMIC_BHW,
         init='self.register_buffer("points", torch.tensor([[[20.0, 30.0], [60.0, 40.0]]]))\n        '
              'self.register_buffer("labels", torch.tensor([[1, 0]]))'),
    Spec("samhq_onnx_model", "segment-anything-hq SamOnnxModel (what its ONNX export script exports: points and "
         "a box embedded, the HQ feature fused, the best multimask output by IoU plus the HQ mask, masks resized "
         "to the original size from a tensor, stability score and area as extra metrics)",
         f"{_HQ}\nfrom segment_anything_hq.utils.onnx import SamOnnxModel",
         f"SamOnnxModel({_HQ_SAM}, multimask_output=True, return_extra_metrics=True)",
         "return self.m(x, self.interm, self.points, self.labels, torch.zeros(1, 1, 32, 32), torch.zeros(1), "
         "self.size)", "1, 32, 8, 8", "",
         init='self.register_buffer("interm", torch.rand(1, 1, 8, 8, 32, generator=torch.Generator().manual_seed(1)))'
              '\n        self.register_buffer("points", torch.tensor([[[20.0, 30.0], [60.0, 40.0], [10.0, 12.0], '
              '[90.0, 100.0]]]))\n        self.register_buffer("labels", torch.tensor([[1.0, 0.0, 2.0, 3.0]]))\n'
              '        self.register_buffer("size", torch.tensor([300.0, 200.0]))'),
    Spec("samhq_decoder_boxes", "segment-anything-hq prompt encoder and MaskDecoderHQ for one image and a "
         "batch of boxes (the embeddings repeated for each box; the early ViT feature compressed and added to the "
         "upsampled embedding; HQ mask only)", _HQ, _HQ_SAM,
         "boxes = torch.cat([torch.minimum(x[:, :2], x[:, 2:]), torch.maximum(x[:, :2], x[:, 2:])], 1) * 128\n"
         "        sparse, dense = self.m.prompt_encoder(points=None, boxes=boxes, masks=None)\n"
         "        return self.m.mask_decoder(image_embeddings=self.embedding, "
         "image_pe=self.m.prompt_encoder.get_dense_pe(), sparse_prompt_embeddings=sparse, "
         "dense_prompt_embeddings=dense, multimask_output=False, hq_token_only=True, "
         "interm_embeddings=self.interm)", "3, 4", 'dynamic_axes = { x = { 0 = "boxes" } }',
         init='generator = torch.Generator().manual_seed(1)\n        '
              'self.register_buffer("embedding", torch.rand(1, 32, 8, 8, generator=generator))\n        '
              'self.register_buffer("interm", torch.rand(1, 1, 8, 8, 32, generator=generator))'),
    # timm-3d: timm's families for volumes.
    _t3d("convnext_atto", "3-D ConvNeXt: 7x7x7 depthwise convolutions, channels-last layer norm",
         calibrate="self.m(xb)"),
    _t3d("convnextv2_atto", "3-D ConvNeXt V2: global response normalisation over the volume"),
    _t3d("tf_efficientnet_b0", "3-D EfficientNet with TensorFlow 'same' padding computed from the input's size",
         calibrate="self.m(xb)"),
    _t3d("efficientnet_cc_b0_4e", "3-D EfficientNet with CondConv: per-sample kernels mixed from 4 experts by "
         "a routing function", calibrate="self.m(xb)"),
    _t3d("maxvit_rmlp_pico_rw_256", "3-D MaxViT: MBConv, then block and grid attention over 3-D partitions with "
         "a relative-position MLP bias", ", img_size=(64, 64, 64)", shape="1, 3, 64, 64, 64",
         config=DYNAMIC_B, calibrate="self.m(xb)"),
    _t3d("coatnet_pico_rw_224", "3-D CoAtNet: convolution stages, then transformer stages with relative "
         "position bias", ", img_size=(64, 64, 64)", shape="1, 3, 64, 64, 64", config=DYNAMIC_B,
         calibrate="self.m(xb)"),
    _t3d("mixnet_s", "3-D MixNet: channels split across kernels of 3, 5, 7 and 9", calibrate="self.m(xb)"),
    _t3d("resnetblur18", "3-D ResNet-18 with blur pooling (anti-aliased strided convolutions)",
         calibrate="self.m(xb)"),
    _t3d("mobilenetv2_050", "3-D MobileNetV2 at half width: inverted residuals with 3-D depthwise convolutions",
         calibrate="self.m(xb)"),
    _t3d("densenet121", "3-D DenseNet-121: dense concatenation, transition pooling", calibrate="self.m(xb)"),
    # pytorchcv: real-time segmentation networks and a fine-grained navigator with NMS in numpy.
    Spec("pcv_ntsnet", "pytorchcv NTS-Net (a navigator scoring anchors on three scales, hard NMS in numpy, the top "
         "4 regions cropped and resized to 224 px from the padded image, a scrutinizer over them)",
         f"from {_PCV}.ntsnet_cub import ntsnet_cub", "ntsnet_cub(aux=False, num_classes=10)", "return self.m(x)",
         "1, 3, 448, 448", DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("pcv_sqnet", "pytorchcv SQNet (fire modules, parallel dilated convolutions, refinement on the skips)",
         f"from {_PCV}.sqnet import sqnet_cityscapes", "sqnet_cityscapes(fixed_size=False, in_size=(64, 64))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_erfnet", "pytorchcv ERFNet (factorised 1-D residual convolutions, downsampler concatenating a "
         "pooled input, transposed-convolution decoder)", f"from {_PCV}.erfnet import erfnet_cityscapes",
         "erfnet_cityscapes(fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_edanet", "pytorchcv EDANet (dense asymmetric blocks, bilinear upsampling of the logits)",
         f"from {_PCV}.edanet import edanet_cityscapes", "edanet_cityscapes(fixed_size=False, in_size=(64, 64))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_segnet", "pytorchcv SegNet (a VGG-16 encoder whose max-pooling indices drive max-unpooling in the "
         "decoder)", f"from {_PCV}.segnet import segnet_cityscapes",
         "segnet_cityscapes(fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_linknet", "pytorchcv LinkNet (a ResNet-18 encoder, decoders added to the skips)",
         f"from {_PCV}.linknet import linknet_cityscapes", "linknet_cityscapes(fixed_size=False, in_size=(64, 64))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    # kornia: thin-plate-spline and homography warps solved from point correspondences.
    Spec("kornia_tps_warp", "kornia thin-plate spline: the TPS kernel and affine weights solved from 6 point "
         "pairs (a linear system), the image warped through them", "import kornia",
         "torch.nn.Identity()",
         "b = x.shape[0]\n        src = self.src.expand(b, -1, -1)\n        "
         "kernel, affine = kornia.geometry.transform.get_tps_transform(self.dst.expand(b, -1, -1), src)\n        "
         "return kornia.geometry.transform.warp_image_tps(x, src, kernel, affine)", _SMALL, DYNAMIC_BHW,
         init='self.register_buffer("src", torch.tensor([[[-0.8, -0.8], [0.8, -0.8], [-0.8, 0.8], [0.8, 0.8], '
              '[0.0, 0.0], [0.3, -0.4]]]))\n        self.register_buffer("dst", self.src + torch.tensor([[[0.05, '
              '0.0], [0.0, 0.1], [-0.1, 0.0], [0.0, -0.05], [0.1, 0.1], [-0.05, 0.05]]]))'),
    Spec("kornia_homography_warp", "kornia homography from four corner pairs by DLT (weighted least squares "
         "through an SVD), the image warped with warp_perspective to its own size", "import kornia",
         "torch.nn.Identity()",
         "b, h, w = x.shape[0], x.shape[2], x.shape[3]\n        "
         "src = torch.tensor([[0.0, 0.0], [w - 1.0, 0.0], [w - 1.0, h - 1.0], [0.0, h - 1.0]])[None].expand(b, -1, -1)"
         "\n        dst = src + x[:, 0, :4, :2] * 4\n        "
         "hom = kornia.geometry.homography.find_homography_dlt(src, dst)\n        "
         "return kornia.geometry.transform.warp_perspective(x, hom, (h, w))", _SMALL, DYNAMIC_BHW),
    Spec("kornia_patch_tiles", "kornia tiled processing: the image cut into 16 px tiles (padded to whole tiles "
         "when its size needs it), each through a small network, the tiles combined and the padding removed",
         "import kornia", "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), "
         "torch.nn.Conv2d(8, 3, 3, padding=1))",
         "h, w = x.shape[2], x.shape[3]\n        "
         "tiles = kornia.contrib.extract_tensor_patches(x, 16, 16, allow_auto_padding=True)\n        "
         "out = self.m(tiles.flatten(0, 1)).view_as(tiles)\n        "
         "return kornia.contrib.combine_tensor_patches(out, (h, w), 16, 16, allow_auto_unpadding=True)",
         "1, 3, 56, 72", DYNAMIC_BHW),
    # monai: deformable registration, integrated and applied.
    Spec("monai_regunet_diffeo", "monai RegUNet predicting a velocity field from a moving and a fixed volume, "
         "integrated by DVF2DDF (scaling and squaring through grid-sample warps), the moving volume warped",
         "from monai.networks.blocks import DVF2DDF, Warp\nfrom monai.networks.nets import RegUNet",
         "RegUNet(spatial_dims=3, in_channels=2, num_channel_initial=8, depth=3, out_channels=3, "
         "extract_levels=(3,))",
         "ddf = self.integrate(self.m(x))\n        return self.warp(x[:, :1], ddf), ddf", "1, 2, 32, 32, 32",
         _DYNAMIC_VOLUME, init="self.integrate = DVF2DDF(num_steps=4)\n        self.warp = Warp()"),
]

if __name__ == "__main__":
    main(MODELS18, "real_zoo18", PINS18)
