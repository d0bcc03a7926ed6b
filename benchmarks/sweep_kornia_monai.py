"""A sweep of kornia 0.9.0 and monai 1.6.1 through migrate: many of their models, none of them in a zoo.

    python benchmarks/sweep_kornia_monai.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Not a held-out zoo but a sweep: the aim is to find which idioms of these two libraries stop migrate most often, and
fix those classes in general. The models were chosen across each library's breadth, leaving out every model (library,
class and variant) of zoos 1 to 13: monai's networks (2-D and 3-D, small configs, volumes of 32 voxels a side) and
networks.blocks used as model parts; kornia's learned models (kornia.models, feature networks) and its image
processing modules (filters, color, enhance, geometry, morphology, contrib). Machinery and pins are the thirteenth
zoo's (real_zoo2.py's table and counts, ``PINS13``). Dynamic axes as a deploying user declares them: batch, height
and width for images; batch, depth, height and width for volumes; batch alone where the size is part of the model
(position embeddings, fixed input shapes); batch and tokens for the token transformer.

Each model was built and run eagerly before migrate ran (finite outputs, forwards of 0.7 s at most here); changed
then: SwinUNETR takes batch norm (instance norm refuses its 1-voxel deepest level at 32 voxels). 33 models first,
then 11 more of kornia's image processing after the first run showed where it stops (the second batch in the
list). Results (``--jobs 1``, 2 cores shared, load 5 to 8), by what stops each model, at the library's line:

Clean at first contact (exit 0, nothing to fix): 25 models.
Fixed by migrate at first contact (exit 0): monai_basicunet_3d, monai_swinunetr_3d, monai_subpixel_3d,
kornia_tiny_vit, kornia_median_blur, kornia_bilateral_blur, kornia_depth_to_normals, kornia_extract_patches,
kornia_warp_perspective, kornia_translate.
Exit 1 at first contact, exit 0 after the fixes of this sweep:
- kornia_rgb_to_lab, kornia_rgb_to_yuv, kornia_rgb_to_luv: ``einsum('oi, ...ihw -> ...ohw')`` with an ellipsis,
  refused by TensorRT before 10.12, at kornia/color/utils.py:52; one matmul with the image's axes moved (TRT303).
- kornia_sharpness: ``conv2d`` of a kernel repeated to ``input.size(1)``, "kernel of unknown shape" for the
  TorchScript exporter, at kornia/enhance/adjust.py:1137 (TRT324).
Exit 1 still:
- monai_quicknat: ``nn.MaxUnpool2d`` does not export (monai/networks/nets/quicknat.py:297; no TensorRT MaxUnpool).
- kornia_rotate: the centre as Python floats of the size (kornia/geometry/transform/affwarp.py:68), the
  size-guarded batch broadcast (affwarp.py:196 and 201) and ``F.affine_grid`` (imgwarp.py:491, where TRT309's
  fix is reverted).
- kornia_resize_antialias: the antialiasing blur's kernel size and sigma are Python numbers of the input size
  (affwarp.py:731 and 733): the graph is not faithful at other sizes.
- kornia_pyrdown: float64 arithmetic on traced sizes (kornia/geometry/transform/pyramid.py:451-452; TRT701's fix
  of line 452 alone removes nothing).
- kornia_posterize: uint8 arithmetic that wraps (kornia/enhance/adjust.py:1036).

44 models: 25 clean before, 19 need work; migrate fixed 10 of the 19 at first contact, 14 after the two fixes.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo13 import PINS13

_SMALL = "1, 3, 64, 64"
_GRAY = "1, 1, 64, 64"
_VOLUME = "1, 1, 32, 32, 32"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
_DYNAMIC_TOKENS = 'dynamic_axes = { x = { 0 = "batch", 1 = "tokens" } }'
_NETS = "from monai.networks.nets import"
_LAMBDA = "import kornia\nfrom kornia.contrib import Lambda"

MODELS_KM = [
    # monai networks.
    Spec("monai_basicunet_3d", "monai BasicUNet (3-D, features 8 to 64)", f"{_NETS} BasicUNet",
         "BasicUNet(spatial_dims=3, in_channels=1, out_channels=2, features=(8, 8, 16, 32, 64, 8))",
         "return self.m(x)", _VOLUME, _DYNAMIC_VOLUME),
    Spec("monai_autoencoder", "monai AutoEncoder (2-D, 3 levels, residual units)", f"{_NETS} AutoEncoder",
         "AutoEncoder(spatial_dims=2, in_channels=1, out_channels=1, channels=(8, 16, 32), strides=(2, 2, 2), "
         "num_res_units=1)", "return self.m(x)", _GRAY, DYNAMIC_BHW),
    Spec("monai_varautoencoder", "monai VarAutoEncoder (2-D, 32 px, latent 8, the mean at inference)",
         f"{_NETS} VarAutoEncoder",
         "VarAutoEncoder(spatial_dims=2, in_shape=(1, 32, 32), out_channels=1, latent_size=8, channels=(8, 16), "
         "strides=(2, 2), use_mean_at_inference=True)", "return self.m(x)[:3]", "1, 1, 32, 32", DYNAMIC_B),
    Spec("monai_efficientnet_b0", "monai EfficientNetBN b0 (2-D, same padding)", f"{_NETS} EfficientNetBN",
         'EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=2, in_channels=3, num_classes=4)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("monai_seresnext50_2d", "monai SEResNext50 (2-D)", f"{_NETS} SEResNext50",
         "SEResNext50(spatial_dims=2, in_channels=3, num_classes=4, pretrained=False)", "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("monai_vit_3d", "monai ViT classifier (3-D, 32 voxels, 8-voxel patches, hidden 64)", f"{_NETS} ViT",
         "ViT(in_channels=1, img_size=(32, 32, 32), patch_size=(8, 8, 8), hidden_size=64, mlp_dim=128, num_layers=2, "
         "num_heads=4, classification=True, num_classes=2)", "return self.m(x)[0]", _VOLUME, DYNAMIC_B),
    Spec("monai_swinunetr_3d", "monai SwinUNETR (3-D, feature size 12, batch norm, 32 voxels)", f"{_NETS} SwinUNETR",
         "SwinUNETR(in_channels=1, out_channels=2, feature_size=12, depths=(1, 1, 1, 1), spatial_dims=3, "
         'norm_name="batch")',
         "return self.m(x)", _VOLUME, _DYNAMIC_VOLUME),
    Spec("monai_quicknat", "monai Quicknat (2-D, 16 filters, max unpooling)", f"{_NETS} Quicknat",
         "Quicknat(num_classes=3, num_channels=1, num_filters=16)", "return self.m(x)", _GRAY, DYNAMIC_BHW),
    Spec("monai_patchgan", "monai MultiScalePatchDiscriminator (2 scales, 2-D)",
         f"{_NETS} MultiScalePatchDiscriminator",
         "MultiScalePatchDiscriminator(num_d=2, num_layers_d=2, spatial_dims=2, channels=8, in_channels=1, "
         "minimum_size_im=64)", "out, _ = self.m(x)\n        return tuple(o[-1] for o in out)", _GRAY, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("monai_controlnet", "monai ControlNet (2-D, attention at the second level, time step 10)",
         f"{_NETS} ControlNet",
         "ControlNet(spatial_dims=2, in_channels=1, num_res_blocks=1, channels=(8, 16), "
         "attention_levels=(False, True), "
         "norm_num_groups=8, num_head_channels=8, conditioning_embedding_num_channels=(8,))",
         "down, mid = self.m(x[:, :1], torch.full((x.shape[0],), 10, dtype=torch.long), x[:, 1:])\n        "
         "return (*down, mid)", "1, 2, 32, 32", DYNAMIC_BHW),
    Spec("monai_spade_autoencoderkl", "monai SPADEAutoencoderKL (2-D, the latent mean decoded with a 3-class map)",
         f"{_NETS} SPADEAutoencoderKL",
         "SPADEAutoencoderKL(spatial_dims=2, label_nc=3, in_channels=1, out_channels=1, num_res_blocks=1, "
         "channels=(8, 16), attention_levels=(False, True), latent_channels=2, norm_num_groups=8, "
         "spade_intermediate_channels=8)",
         "z, _ = self.m.encode(x[:, :1])\n        return self.m.decode(z, x[:, 1:].softmax(1))", "1, 4, 32, 32",
         DYNAMIC_BHW),
    Spec("monai_decoder_transformer", "monai DecoderOnlyTransformer (16 tokens, up to 32 long, 2 layers)",
         f"{_NETS} DecoderOnlyTransformer",
         "DecoderOnlyTransformer(num_tokens=16, max_seq_len=32, attn_layers_dim=32, attn_layers_depth=2, "
         "attn_layers_heads=2)", "return self.m((x * 16).long().clamp(0, 15))", "1, 24", _DYNAMIC_TOKENS),
    Spec("monai_generator", "monai Generator (latent 16 to 16x16 images)", f"{_NETS} Generator",
         "Generator(latent_shape=(16,), start_shape=(16, 4, 4), channels=(8, 4, 1), strides=(2, 2, 1))",
         "return self.m(x)", "1, 16", DYNAMIC_B),
    Spec("monai_sablock_relpos", "monai SABlock (decomposed relative positions over an 8x8 grid)",
         "from monai.networks.blocks import SABlock",
         'SABlock(hidden_size=32, num_heads=2, rel_pos_embedding="decomposed", input_size=(8, 8))', "return self.m(x)",
         "1, 64, 32", DYNAMIC_B),
    Spec("monai_subpixel_3d", "monai SubpixelUpsample (3-D pixel shuffle, scale 2)",
         "from monai.networks.blocks import SubpixelUpsample",
         "SubpixelUpsample(spatial_dims=3, in_channels=1, out_channels=4, scale_factor=2)", "return self.m(x)",
         "1, 1, 16, 16, 16", _DYNAMIC_VOLUME),
    # kornia learned models.
    Spec("kornia_rrdbnet", "kornia RRDBNet x2 (ESRGAN, 16 features, 2 blocks)",
         "from kornia.models.rrdbnet import RRDBNet",
         "RRDBNet(num_in_ch=3, num_out_ch=3, scale=2, num_feat=16, num_block=2, num_grow_ch=8)", "return self.m(x)",
         "1, 3, 32, 32", DYNAMIC_BHW),
    Spec("kornia_small_sr", "kornia SmallSRNet x3 (random weights)", "from kornia.models.small_sr import SmallSRNet",
         "SmallSRNet(upscale_factor=3, pretrained=False)", "return self.m(x)", "1, 1, 32, 32", DYNAMIC_BHW),
    Spec("kornia_tiny_vit", "kornia TinyViT (64 px, narrow, windows 7 and 14)",
         "from kornia.models.tiny_vit import TinyViT",
         "TinyViT(img_size=64, num_classes=10, embed_dims=(16, 32, 64, 64), depths=(1, 1, 1, 1), "
         "num_heads=(1, 2, 2, 2))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_mobilevit", "kornia MobileViT xxs (2x2 patches unfolded)",
         "from kornia.models.vit_mobile import MobileViT",
         'MobileViT(mode="xxs")', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_efficientvit_b0", "kornia EfficientViT-B0 backbone (lite multi-scale linear attention)",
         "from kornia.models.efficient_vit.backbone import efficientvit_backbone_b0", "efficientvit_backbone_b0()",
         'return self.m(x)["stage_final"]', _SMALL, DYNAMIC_BHW),
    Spec("kornia_orinet", "kornia OriNet (patch orientation, random weights)", "import kornia",
         "kornia.feature.OriNet(pretrained=False)", "return self.m(x)", "2, 1, 32, 32", DYNAMIC_B),
    # kornia image processing.
    Spec("kornia_corner_harris", "kornia CornerHarris response (k 0.04)", "import kornia",
         "kornia.feature.CornerHarris(0.04)", "return self.m(x)", _GRAY, DYNAMIC_BHW),
    Spec("kornia_median_blur", "kornia MedianBlur (5x5)", "import kornia", "kornia.filters.MedianBlur((5, 5))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_bilateral_blur", "kornia BilateralBlur (5x5, colour sigma 0.1)", "import kornia",
         "kornia.filters.BilateralBlur((5, 5), 0.1, (1.5, 1.5))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_morph_gradient", "kornia morphology gradient (3x3 structuring element)", _LAMBDA,
         "Lambda(lambda img: kornia.morphology.gradient(img, torch.ones(3, 3)))", "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("kornia_rgb_to_lab", "kornia RgbToLab", "import kornia", "kornia.color.RgbToLab()", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("kornia_rgb_to_hsv", "kornia RgbToHsv", "import kornia", "kornia.color.RgbToHsv()", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("kornia_equalize", "kornia equalize (per-channel histograms and lookup)", _LAMBDA,
         "Lambda(kornia.enhance.equalize)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_sharpness", "kornia sharpness (factor 0.7)", _LAMBDA,
         "Lambda(lambda img: kornia.enhance.sharpness(img, 0.7))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_rotate", "kornia Rotate (30 degrees about the centre)", "import kornia",
         "kornia.geometry.transform.Rotate(torch.tensor([30.0]))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_resize_antialias", "kornia resize (to 24x32, antialiased)", _LAMBDA,
         "Lambda(lambda img: kornia.geometry.transform.resize(img, (24, 32), antialias=True))", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("kornia_depth_to_normals", "kornia depth_to_normals (pinhole camera, focal 50)", _LAMBDA,
         "Lambda(lambda depth: kornia.geometry.depth.depth_to_normals(depth + 1.0, torch.tensor([[[50.0, 0.0, 32.0], "
         "[0.0, 50.0, 32.0], [0.0, 0.0, 1.0]]]).expand(depth.shape[0], -1, -1)))", "return self.m(x)", _GRAY,
         DYNAMIC_BHW),
    Spec("kornia_extract_patches", "kornia ExtractTensorPatches (8x8 windows, stride 8)", "import kornia",
         "kornia.contrib.ExtractTensorPatches(window_size=8, stride=8)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # A second batch, after the first showed where kornia's image processing stops: more of the same helpers.
    Spec("kornia_rgb_to_yuv", "kornia RgbToYuv (a 3x3 colour matrix)", "import kornia", "kornia.color.RgbToYuv()",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_rgb_to_luv", "kornia RgbToLuv", "import kornia", "kornia.color.RgbToLuv()", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("kornia_warp_perspective", "kornia warp_perspective (a fixed homography, output 48x48)", _LAMBDA,
         "Lambda(lambda img: kornia.geometry.transform.warp_perspective(img, torch.tensor([[[0.9, 0.1, 2.0], "
         "[-0.1, 1.1, -3.0], [0.001, 0.0, 1.0]]]).expand(img.shape[0], -1, -1), (48, 48)))", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("kornia_translate", "kornia Translate (5 and -3 pixels)", "import kornia",
         "kornia.geometry.transform.Translate(torch.tensor([[5.0, -3.0]]))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_resize", "kornia Resize (to 32x48, bilinear)", "import kornia",
         "kornia.geometry.transform.Resize((32, 48))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_pyrdown", "kornia PyrDown (Gaussian blur, halved)", "import kornia",
         "kornia.geometry.transform.PyrDown()", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_unsharp_mask", "kornia UnsharpMask (5x5, sigma 1.5)", "import kornia",
         "kornia.filters.UnsharpMask((5, 5), (1.5, 1.5))", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_motion_blur", "kornia MotionBlur (5, 45 degrees)", "import kornia",
         "kornia.filters.MotionBlur(5, 45.0, 1.0)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_adjust_hue", "kornia AdjustHue (0.3 rad)", "import kornia", "kornia.enhance.AdjustHue(0.3)",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_posterize", "kornia posterize (3 bits)", _LAMBDA,
         "Lambda(lambda img: kornia.enhance.posterize(img, 3))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_blurpool", "kornia MaxBlurPool2D (kernel 3)", "import kornia",
         "kornia.filters.MaxBlurPool2D(3)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS_KM, "sweep_kornia_monai", PINS13)
