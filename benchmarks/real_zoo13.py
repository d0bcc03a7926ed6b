"""A thirteenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo13.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twelfth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the eighth zoo's libraries and pins and two more libraries by other
authors, whose code no earlier zoo ran (``PINS13``: unpacked wheels like the others, never pip-installed):
chaiNNer's spandrel 0.4.2 (image restoration and super-resolution architectures; it imports torch, torchvision,
safetensors, numpy, einops and typing_extensions, all there already: torch needs typing_extensions, so the
``bench`` extra is unchanged) and MIC-DKFZ's dynamic-network-architectures 0.4.4 (nnU-Net's networks; torch, numpy,
timm, einops). 24 other models, chosen by family before any was run, none of them (library, architecture and
variant) in zoos 1 to 12, 14 of them of kinds that often need work for an ONNX or TensorRT deployment. Windowed
attention with padding and relative position biases, from spandrel, each built at random weights from its
architecture class with a small config: SwinIR x2 (the image reflect-padded to whole 8-pixel windows, shifted-window
masks computed for the input's size, relative position bias tables, a pixel-shuffle upsampler), HAT x2 (channel
attention beside the window attention and overlapping cross-attention windows unfolded from the padded map), DAT x2
(rectangle windows of 4x8 and 8x4 whose queries, keys and values are padded to whole windows, alternating with
channel attention) and SCUNet (a Swin-Conv U-Net: the input reflect-padded to a multiple of 64, window and shifted
window blocks beside convolutions, the output cropped back). Frequency domain and dynamic resizing, from spandrel:
LaMa (inpainting with fast Fourier convolutions: ``rfftn`` and ``irfftn`` of the global branch; the image is the
input's first three channels, the mask its fourth thresholded at 0.7; the masking and compositing are the LaMa
class's, its generator a smaller one of the same class) and SAFMN x2 (spatially adaptive feature
modulation: adaptive max pooling to a pyramid of the input's size divided by 2, 4 and 8, then nearest upsampling
back). 3-D medical: dynamic-network-architectures' PlainConvUNet (nnU-Net's default 3-D U-Net, instance norm, four
stages). Segmentation with prompts: transformers' SAM-HQ (SAM's windowed ViT with decomposed relative positions, its
mask decoder with the high-quality output token fed by the ViT's early features; two fixed points, three masks and
their scores). Audio with relative positions and quantization: transformers' Wav2Vec2-Conformer (relative position
embeddings, Transformer-XL style, and depthwise convolution modules) and DAC (Snake activations, a residual vector
quantizer of 4 codebooks with factorized 8-dimensional, L2-normalized lookups). Detectors and their post-processing:
effdet's cspresdet50 (timm's CSPResNet-50 under the BiFPN; its predict bench: anchors, decoding, NMS, top 20) and
ultralytics' YOLO12n-obb (area attention, oriented boxes with their angle branch). Image processing: kornia's
histogram_matching (sorting each channel, quantiles interpolated onto a fixed seeded 32x32 template's). Video:
vit-pytorch's AcceptVideoWrapper over a ViT (the frames folded into the batch, a learned time position embedding
sliced to the clip's frames). Then the minority, backbones and plain heads from corners the earlier zoos used
little: dynamic-network-architectures' ResidualEncoderUNet (2-D, five stages, batch norm), transformers' TextNet (the
FAST text detector's backbone, default config), vit-pytorch's nViT (normalized ViT: representations on the unit
hypersphere), monai's SEResNet50 (3-D), torchvision's GoogLeNet (no auxiliary heads), timm's dpn68 (dual paths),
ese_vovnet19b_dw (one-shot aggregation), xception41 (aligned Xception), starnet_s1 (star operation) and selecsls42b.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (the
restoration models at sizes that are not whole windows, 40x48 and 48x56, so that their padding runs; YOLO12n-obb at
multiples of 32; the residual-encoder U-Net at multiples of 16, as its four downsamplings need), batch, depth, height
and width for the volumes; batch and samples for the audio models; batch and frames for the video wrapper (its frame
size is part of the ViT, its time embedding holds 8 frames); batch alone where the size is part of the model
(SAM-HQ's prompt encoder and position embeddings at 64 px, nViT's position embeddings); none for effdet's predict
bench, as in the earlier zoos. Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for
building and running eagerly (deterministic over three forwards, finite outputs), at two sizes (effdet at its one),
before the first migrate run: in the last check the best of three forwards at the spec's size took 2.9 s at most
here (effdet's predict bench), 2.5 s for SCUNet, 1.5 s for the 3-D SEResNet50, under 1 s for the others, most under
0.3 s; single forwards took up to 5.7 s (the SEResNet50, a batch of two at 40 voxels), with the machine's load at 6 to
8 on two cores (at a load of 5, SCUNet's best was 1.8 s and effdet's 2.3 s). Changed then:
dynamic-network-architectures' Primus (a 3-D EVA ViT with rotary positions) was swapped for spandrel's DAT (its
package asks for timm below 1.0.23, and with the pinned timm 1.0.31 its rotary embedding's width does not match the
attention heads' for any config tried: it does not build); LaMa's generator was cut to 16 channels wide and 4
residual blocks with the same class (``FFCResNetGenerator(4, 3, ngf=16, n_blocks=4)`` in place of the default 64 wide
and 18 blocks, whose forward took 2.2 s at 64 px and 23 s for two images at 72 px), its BatchNorm layers calibrated
as the earlier zoos' detectors' are; LaMa is built with 4 input channels (its generator
concatenates the mask to the image; the class's default of 3 fails on the first convolution); SCUNet keeps dim 64
(its heads are 32 wide, so a narrower dim leaves none at the first level) with two blocks a level, so that shifted
windows run.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo8 import PINS8

#: The eighth zoo's pins and two libraries by other authors, unpacked wheels like the others (never pip-installed):
#: spandrel (image restoration and super-resolution architectures; it imports torch, torchvision, safetensors,
#: numpy, einops and typing_extensions) and MIC-DKFZ's dynamic-network-architectures (nnU-Net's networks; torch,
#: numpy, timm and einops).
PINS13 = {**PINS8, "spandrel": "0.4.2", "dynamic_network_architectures": "0.4.4"}

_SMALL = "1, 3, 64, 64"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: Audio: (batch, samples), or (batch, channels, samples) with the channels fixed.
_DYNAMIC_WAVE = 'dynamic_axes = { x = { 0 = "batch", 1 = "samples" } }'
_DYNAMIC_WAVE3 = 'dynamic_axes = { x = { 0 = "batch", 2 = "samples" } }'
#: A video as (batch, channels, frames, height, width): batch and frames (the frame size is part of the ViT).
_DYNAMIC_CLIP = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames" } }'
#: The effdet predict bench at 128 px: anchors, decoding, NMS, top 20 rows whose order is not compared.
_EFFDET = "image_size=(128, 128), max_det_per_image=20)"
_SPANDREL = "spandrel.architectures"
_DNA = "dynamic_network_architectures.architectures"
_SAM_HQ = ("SamHQModel(SamHQConfig(vision_config=dict(hidden_size=32, output_channels=16, num_hidden_layers=2, "
           "num_attention_heads=2, image_size=64, patch_size=16, window_size=2, global_attn_indexes=[1], "
           "num_pos_feats=8, mlp_dim=64), prompt_encoder_config=dict(hidden_size=16, image_size=64, patch_size=16, "
           "mask_input_channels=4), mask_decoder_config=dict(hidden_size=16, mlp_dim=32, num_attention_heads=2, "
           "iou_head_hidden_dim=16, vit_dim=32)))")
_SAM_HQ_FORWARD = ("b = x.shape[0]\n        "
                   "points = torch.tensor([[[[20.0, 30.0], [45.0, 10.0]]]]).expand(b, -1, -1, -1)\n        "
                   "labels = torch.tensor([[[1, 0]]]).expand(b, -1, -1)\n        "
                   "out = self.m(pixel_values=x, input_points=points, input_labels=labels, "
                   "multimask_output=True)\n        "
                   "return out.pred_masks, out.iou_scores")

MODELS13 = [
    # spandrel: restoration and super-resolution (windows padded to whole windows, shifted-window masks, relative
    # position biases, overlapping cross-attention windows, fast Fourier convolutions, adaptive pooling pyramids).
    Spec("spandrel_swinir", "spandrel SwinIR x2 (embed 32, two stages of 2 blocks, window 8, pixel shuffle)",
         f"from {_SPANDREL}.SwinIR.__arch.SwinIR import SwinIR",
         "SwinIR(img_size=64, embed_dim=32, depths=[2, 2], num_heads=[2, 2], window_size=8, mlp_ratio=2.0, "
         'upscale=2, upsampler="pixelshuffle", drop_path_rate=0.0)', "return self.m(x)", "1, 3, 40, 48", DYNAMIC_BHW),
    Spec("spandrel_hat", "spandrel HAT x2 (hybrid attention: channel attention and overlapping cross-attention "
         "windows, embed 32, window 8)", f"from {_SPANDREL}.HAT.__arch.HAT import HAT",
         "HAT(img_size=64, embed_dim=32, depths=(2,), num_heads=(2,), window_size=8, compress_ratio=2, "
         "squeeze_factor=8, mlp_ratio=2.0, upscale=2, num_feat=16, drop_path_rate=0.0)", "return self.m(x)",
         "1, 3, 40, 48", DYNAMIC_BHW),
    Spec("spandrel_scunet", "spandrel SCUNet (Swin-Conv U-Net, dim 64, two blocks a level, window 8, input padded "
         "to 64)",
         f"from {_SPANDREL}.SCUNet.__arch.SCUNet import SCUNet",
         "SCUNet(config=[2, 2, 2, 2, 2, 2, 2], dim=64, input_resolution=64)", "return self.m(x)", "1, 3, 48, 56",
         DYNAMIC_BHW),
    Spec("spandrel_lama", "spandrel LaMa inpainting (fast Fourier convolutions, a generator 16 wide with 4 blocks; "
         "a mask from the fourth channel)", f"from {_SPANDREL}.LaMa.__arch.LaMa import FFCResNetGenerator, LaMa",
         "LaMa(in_nc=4, out_nc=3)", "return self.m(x[:, :3], (x[:, 3:] > 0.7).to(x.dtype))", "1, 4, 64, 64",
         DYNAMIC_BHW, init="self.m.model = FFCResNetGenerator(4, 3, ngf=16, n_blocks=4).eval()",
         calibrate="self.m(xb[:, :3], (xb[:, 3:] > 0.7).to(xb.dtype))"),
    Spec("spandrel_safmn", "spandrel SAFMN x2 (spatially adaptive feature modulation: max-pooled pyramids "
         "upsampled to the input's size)", f"from {_SPANDREL}.SAFMN.__arch.safmn import SAFMN",
         "SAFMN(dim=16, n_blocks=2, ffn_scale=2.0, upscaling_factor=2)", "return self.m(x)", "1, 3, 48, 56",
         DYNAMIC_BHW),
    Spec("spandrel_dat", "spandrel DAT x2 (dual aggregation: rectangle-window spatial and channel attention, "
         "embed 32, windows 4x8 and 8x4)", f"from {_SPANDREL}.DAT.__arch.DAT import DAT",
         "DAT(img_size=64, embed_dim=32, split_size=[4, 8], depth=[2], num_heads=[2], expansion_factor=2.0, "
         "upscale=2, drop_path_rate=0.0)", "return self.m(x)", "1, 3, 40, 48", DYNAMIC_BHW),
    # dynamic-network-architectures: nnU-Net's plain 3-D U-Net and its residual-encoder U-Net (2-D).
    Spec("dna_plain_unet_3d", "dynamic-network-architectures PlainConvUNet (3-D, 4 stages, instance norm)",
         f"from {_DNA}.unet import PlainConvUNet",
         "PlainConvUNet(1, 4, (8, 16, 32, 32), torch.nn.Conv3d, 3, (1, 2, 2, 2), 2, 3, 2, conv_bias=True, "
         "norm_op=torch.nn.InstanceNorm3d, norm_op_kwargs=dict(eps=1e-5, affine=True), nonlin=torch.nn.LeakyReLU, "
         "nonlin_kwargs=dict(inplace=True))", "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    Spec("dna_resenc_unet_2d", "dynamic-network-architectures ResidualEncoderUNet (2-D, 5 stages, batch norm)",
         f"from {_DNA}.unet import ResidualEncoderUNet",
         "ResidualEncoderUNet(3, 5, (8, 16, 32, 64, 64), torch.nn.Conv2d, 3, (1, 2, 2, 2, 2), (1, 2, 2, 2, 2), 3, 1, "
         "conv_bias=True, norm_op=torch.nn.BatchNorm2d, nonlin=torch.nn.LeakyReLU, nonlin_kwargs=dict(inplace=True))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    # transformers: SAM-HQ (the HQ token and early ViT features), a conformer with relative positions, DAC's
    # residual vector quantizer, TextNet (FAST's re-parameterizable backbone).
    Spec("hf_sam_hq", "transformers SAM-HQ (small config, 64 px, two points, three masks)",
         "from transformers import SamHQConfig, SamHQModel", _SAM_HQ, _SAM_HQ_FORWARD, _SMALL, DYNAMIC_B),
    Spec("hf_wav2vec2_conformer", "transformers Wav2Vec2-Conformer (small config, relative position embeddings)",
         "from transformers import Wav2Vec2ConformerConfig, Wav2Vec2ConformerModel",
         "Wav2Vec2ConformerModel(Wav2Vec2ConformerConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
         "intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3), "
         'num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, position_embeddings_type="relative", '
         "conv_depthwise_kernel_size=7))",
         "return self.m(input_values=x).last_hidden_state", "1, 4000", _DYNAMIC_WAVE),
    Spec("hf_dac", "transformers DAC audio codec (small config, 4 codebooks of 64 codes, factorized 8-d lookups)",
         "from transformers import DacConfig, DacModel",
         "DacModel(DacConfig(encoder_hidden_size=8, downsampling_ratios=(2, 4), decoder_hidden_size=32, "
         "hidden_size=32, "
         "n_codebooks=4, codebook_size=64, codebook_dim=8, sampling_rate=8000))",
         "return self.m(input_values=x).audio_values", "1, 1, 2000", _DYNAMIC_WAVE3),
    Spec("hf_textnet", "transformers TextNet (FAST's backbone, default config)",
         "from transformers import TextNetConfig, TextNetModel", "TextNetModel(TextNetConfig())",
         "return self.m(pixel_values=x).last_hidden_state", _SMALL, DYNAMIC_BHW, calibrate="self.m(pixel_values=xb)"),
    # effdet: a CSPResNet-50 under the BiFPN, predict bench (anchors, decoding, NMS, top 20).
    Spec("effdet_cspresdet50", "effdet cspresdet50 (CSPResNet-50 under the BiFPN, image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("cspresdet50", bench_task="predict", num_classes=3, pretrained_backbone=False, ' + _EFFDET,
         "return self.m(x)", "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(xb)"),
    # ultralytics: YOLO12's area attention under an oriented-box head.
    Spec("yolo12n_obb", "ultralytics YOLO12n-obb (yolo12n-obb.yaml, nc=3, rotated boxes)",
         "from ultralytics.nn.tasks import OBBModel", 'OBBModel("yolo12n-obb.yaml", nc=3, verbose=False)',
         "y, _ = self.m(x)\n        return y", "1, 3, 128, 128", DYNAMIC_BHW),
    # kornia: histogram matching to a fixed seeded template (sorts, quantiles, interpolation).
    Spec("kornia_histogram_matching", "kornia histogram_matching (to a fixed seeded 32x32 template)",
         "import kornia\nfrom kornia.contrib import Lambda", "Lambda(kornia.contrib.histogram_matching)",
         "return self.m(x, self.template)", _SMALL, DYNAMIC_BHW,
         init="self.register_buffer(\"template\", torch.rand(3, 32, 32, "
              "generator=torch.Generator().manual_seed(5)) ** 2)"),
    # vit-pytorch: a ViT over a clip's frames with a time position embedding; the normalized ViT.
    Spec("vitp_video_wrapper", "vit-pytorch AcceptVideoWrapper over a ViT (frames as images, time positions, "
         "up to 8 frames of 32 px)", "from vit_pytorch.accept_video_wrapper import AcceptVideoWrapper\n"
         "from vit_pytorch.vit import ViT",
         "AcceptVideoWrapper(ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, "
         "dim_head=16), add_time_pos_emb=True, dim_emb=10, time_seq_len=8)", "return self.m(x)", "1, 3, 4, 32, 32",
         _DYNAMIC_CLIP),
    Spec("vitp_nvit", "vit-pytorch nViT (normalized ViT: unit-norm hypersphere representations, 64 px)",
         "from vit_pytorch.normalized_vit import nViT",
         "nViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         "return self.m(x)", _SMALL, DYNAMIC_B),
    # monai: a 3-D squeeze-and-excitation ResNet-50.
    Spec("monai_seresnet50_3d", "monai SEResNet50 (3-D, 32 voxels a side)",
         "from monai.networks.nets import SEResNet50",
         "SEResNet50(spatial_dims=3, in_channels=1, num_classes=2)", "return self.m(x)", "1, 1, 32, 32, 32",
         _DYNAMIC_VOLUME),
    # torchvision: GoogLeNet (its input transform, inception blocks, no auxiliary heads).
    Spec("tv_googlenet", "torchvision googlenet (no auxiliary heads)", "import torchvision",
         "torchvision.models.googlenet(weights=None, num_classes=10, aux_logits=False, init_weights=True)",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # timm: dual path networks, one-shot aggregation, aligned Xception, star operations, SelecSLS.
    Spec("timm_dpn68", "timm dpn68 (dual path network)", "import timm",
         'timm.create_model("dpn68", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_ese_vovnet19b_dw", "timm ese_vovnet19b_dw (one-shot aggregation, effective squeeze-excitation)",
         "import timm", 'timm.create_model("ese_vovnet19b_dw", pretrained=False, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("timm_xception41", "timm xception41 (aligned Xception, separable convolutions)", "import timm",
         'timm.create_model("xception41", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_starnet_s1", "timm starnet_s1 (star operation: element-wise products of two branches)", "import timm",
         'timm.create_model("starnet_s1", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_selecsls42b", "timm selecsls42b (selective short and long range skip connections)", "import timm",
         'timm.create_model("selecsls42b", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS13, "real_zoo13", PINS13)
