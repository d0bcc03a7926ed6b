"""An eleventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo11.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the tenth zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the eighth zoo's libraries and pins (``PINS8``: the
second zoo's plus vit-pytorch; no library is added), 24 other models, chosen by family before any was run,
leaning to kinds that need work for an ONNX or TensorRT deployment (16 of the 24). Detectors and their
post-processing: effdet's efficientdet_q0 (an EfficientNet-B0 under the quad-path QuFPN) and mixdet_m
(MixNet-M under the BiFPN), both as their predict bench (anchors, decoding, NMS, top 20); ultralytics'
YOLOv8s-world v1 (text-guided C2fAttn blocks and the ImagePoolingAttn that updates the class embeddings
from the image, which zoo 9's worldv2 does not have; three classes set once from seeded random embeddings,
as an offline deployment does) and YOLOv3-SPP (Darknet-53, spatial pyramid pooling, three scales);
kornia's FaceDetector (YuNet with its post-processing: priors for the input's size, decoding of boxes and
five landmarks, a score threshold, sort, NMS, top 20). Image processing: kornia's CLAHE (histograms per
tile, clipped and redistributed, lookup tables interpolated between tiles). Dense and sequence heads:
transformers' SegGPT (in-context segmentation: the image stacked on a fixed seeded prompt image and mask,
a ViT with decomposed relative positions), PP-OCRv5's mobile text recogniser (SVTR neck, CTC logits for
any line width), SLANet (table structure: a greedy autoregressive attention decoder over the image
features, up to 101 steps, stopping early once every image has given its end token) and MGP-STR (scene
text: character, BPE and WordPiece heads, each over 16 steps). Video and 3-D: transformers' VideoPrism (a
factorised encoder, spatial then temporal, with positions interpolated to the input's frames and size),
monai's AutoencoderKL (3-D, attention at its lowest level; the reconstruction from the latent mean, as
``reconstruct`` gives it, without sampling) and DiffusionModelUNet (2-D, sinusoidal time-step embedding,
attention at its lowest level, time step 10). Dynamic resizing and the frequency domain: timm's NaFlexViT
(position embeddings resized to the patch grid of any image), vit-pytorch's SimpleViT with an FFT branch
(``torch.fft.fft2`` of the image, real and imaginary parts as patches) and its ViT for small datasets
(shifted patch tokenization: the image padded and shifted four ways; locality self-attention with a
learned temperature and the diagonal masked). Then the minority, backbones and plain heads: transformers'
MobileViTV2 with its DeepLabV3 head, timm's TResNet-M (space-to-depth stem, anti-aliased downsampling),
Next-ViT-S, ResNeSt-14d (split attention), CAFormer-S18 and InceptionNeXt-atto, vit-pytorch's CrossViT
(two patch sizes, cross attention between the branches' class tokens) and CCT (convolutional tokenizer,
sine positions, sequence pooling).

Each is small and has the dynamic axes a deploying user declares: batch, height and width (depth too for
volumes; frames, height and width too for VideoPrism's clips, since it interpolates its positions); batch
alone where the size is part of the model (positions or patch grids built for one size: SegGPT, MGP-STR,
SLANet at 128 px, the vit-pytorch ViTs); batch and width for the text recogniser's lines (its height is
fixed); height and width for the face detector (one image, as kornia's post-processing loops over the
batch); none for effdet's predict bench, as in the earlier zoos. Machinery, table and counts are
real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic, finite
outputs; each forward at the spec's size took at most 3.1 s here, most under 1 s, with the machine's load
at 4 to 5 on two cores), at two sizes (effdet at its one), before the first migrate run; changed then:
torchvision's S3D was swapped for VideoPrism (S3D's fixed 2x7x7 average pool needs 16 frames at 224 px,
far over the time limit), vit-pytorch's adaptive token sampling ViT for CrossViT (it samples tokens with
Gumbel noise in eval too, so no two runs agree), timm's HGNetV2-B0 for InceptionNeXt (HGNetV2 is the
backbone of zoo 10's DEIMv2 and PP-DocLayoutV3) and an AffNet and OriNet pair on a grid of regions for
CLAHE (zoo 6's KeyNet + AffNet + HardNet holds both); SegGPT's config has 5 layers with the merge at the
first (the default indices need 24) and the text recogniser reads 96 px lines (the default PP-LCNetV3
backbone of the default config leaves too few rows of a 48 px line for its 3x2 pool). SLANet decodes 100
steps at most (its default 500 took 16 s for a batch of two). The face detector is built with kornia's
YuNet at random weights (its constructor downloads the pretrained weights otherwise), its score threshold
0 and its input scaled to 0-255.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo8 import PINS8

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: A video's batch, frames, height and width (batch, frames, channels, height, width).
_DYNAMIC_VIDEO = 'dynamic_axes = { x = { 0 = "batch", 1 = "frames", 3 = "height", 4 = "width" } }'
#: Text lines: a fixed height, any width.
_DYNAMIC_LINE = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'
#: The effdet predict bench at 128 px: anchors, decoding, NMS, top 20 rows whose order is not compared.
_EFFDET = "image_size=(128, 128), max_det_per_image=20)"
MODELS11 = [
    # effdet: the quad-FPN (QuFPN) and MixNet backbones, predict bench (anchors, decoding, NMS, top 20).
    Spec("effdet_q0", "effdet efficientdet_q0 (QuFPN, image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("efficientdet_q0", bench_task="predict", num_classes=3, pretrained_backbone=False, ' + _EFFDET,
         "return self.m(x)", "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(xb)"),
    Spec("effdet_mixdet_m", "effdet mixdet_m (MixNet-M under the BiFPN, image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("mixdet_m", bench_task="predict", num_classes=3, pretrained_backbone=False, ' + _EFFDET,
         "return self.m(x)", "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(xb)"),
    # ultralytics: YOLOv8-world v1 (C2fAttn and ImagePoolingAttn), YOLOv3-SPP.
    Spec("yolov8s_world", "ultralytics YOLOv8s-world v1 (yolov8s-world.yaml, three classes from seeded random "
         "embeddings)", "from ultralytics.nn.tasks import WorldModel",
         'WorldModel("yolov8s-world.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW,
         # As a deployment does offline: the class embeddings given once (here random, not CLIP's text).
         init="self.m.txt_feats = torch.randn(1, 3, 512)"),
    Spec("yolov3_spp", "ultralytics YOLOv3-SPP (yolov3-spp.yaml, nc=3)",
         "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov3-spp.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    # kornia: YuNet face detection with its post-processing (priors, decoding, threshold, NMS), CLAHE.
    Spec("kornia_yunet_faces", "kornia FaceDetector (YuNet, random weights, priors, decoding, NMS, top 20)",
         "from kornia.contrib import face_detection\nfrom kornia.models.yunet.model import YuNet\n"
         "# Random weights: the detector's YuNet is built without the download of its pretrained weights.\n"
         "face_detection.YuNet = lambda phase, pretrained: YuNet(phase, False)",
         "face_detection.FaceDetector(confidence_threshold=0.0, top_k=200, nms_threshold=0.3, keep_top_k=20)",
         "return self.m(x * 255.0)[0]", "1, 3, 128, 128",
         'dynamic_axes = { x = { 2 = "height", 3 = "width" } }\nunordered = ["output"]'),
    Spec("kornia_clahe", "kornia equalize_clahe (4x4 tiles: clipped histograms, interpolated lookup tables)",
         "import kornia\nfrom kornia.contrib import Lambda",
         "Lambda(lambda img: kornia.enhance.equalize_clahe(img, clip_limit=4.0, grid_size=(4, 4)))", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    # transformers: SegGPT (in-context segmentation, decomposed relative positions), PP-OCRv5's recogniser,
    # SLANet (table structure, an autoregressive decoder), MGP-STR (scene text), MobileViTV2 segmentation.
    Spec("hf_seggpt", "transformers SegGPT (small config, 64x32 halves, a fixed seeded prompt)",
         "from transformers import SegGptConfig, SegGptForImageSegmentation",
         "SegGptForImageSegmentation(SegGptConfig(hidden_size=32, num_hidden_layers=5, num_attention_heads=2, "
         "image_size=(128, 32), patch_size=8, pretrain_image_size=32, decoder_hidden_size=16, merge_index=0, "
         "intermediate_hidden_state_indices=(1, 2, 3, 4), drop_path_rate=0.0))",
         "b = x.shape[0]\n        out = self.m(pixel_values=x, prompt_pixel_values=self.prompt.expand(b, -1, -1, -1), "
         "prompt_masks=self.mask.expand(b, -1, -1, -1))\n        return out.pred_masks",
         "1, 3, 64, 32", DYNAMIC_B,
         init="g = torch.Generator().manual_seed(3)\n        "
              "self.prompt = torch.rand(1, 3, 64, 32, generator=g)\n        "
              "self.mask = (torch.rand(1, 3, 64, 32, generator=g) > 0.5).float()"),
    Spec("hf_ppocrv5_mobile_rec", "transformers PP-OCRv5 mobile text recogniser (default config, 96 px lines)",
         "from transformers import PPOCRV5MobileRecConfig, PPOCRV5MobileRecForTextRecognition",
         "PPOCRV5MobileRecForTextRecognition(PPOCRV5MobileRecConfig())",
         "return self.m(pixel_values=x).last_hidden_state", "1, 3, 96, 320", _DYNAMIC_LINE),
    Spec("hf_slanet", "transformers SLANet table structure recogniser (default config but 100 steps at most, "
         "greedy decoding)",
         "from transformers import SLANetConfig, SLANetForTableRecognition",
         "SLANetForTableRecognition(SLANetConfig(max_text_length=100))",
         "out = self.m(pixel_values=x)\n        return out.last_hidden_state", "1, 3, 128, 128", DYNAMIC_B),
    Spec("hf_mgp_str", "transformers MGP-STR scene text recogniser (small config, 32x128)",
         "from transformers import MgpstrConfig, MgpstrForSceneTextRecognition",
         "MgpstrForSceneTextRecognition(MgpstrConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, "
         "mlp_ratio=2.0, max_token_length=16, drop_path_rate=0.0))",
         "return tuple(self.m(pixel_values=x).logits)", "1, 3, 32, 128", DYNAMIC_B),
    Spec("hf_mobilevitv2_seg", "transformers MobileViTV2 DeepLabV3 segmentation (width 0.5)",
         "from transformers import MobileViTV2Config, MobileViTV2ForSemanticSegmentation",
         "MobileViTV2ForSemanticSegmentation(MobileViTV2Config(width_multiplier=0.5, num_labels=3))",
         "return self.m(pixel_values=x).logits", _SMALL, DYNAMIC_BHW),
    # timm: NaFlexViT (position embeddings resized to the patch grid), TResNet, Next-ViT, ResNeSt, CAFormer,
    # InceptionNeXt.
    Spec("timm_naflexvit", "timm naflexvit_base_patch16_gap (2 blocks, dim 64, any image size)", "import timm",
         'timm.create_model("naflexvit_base_patch16_gap", pretrained=False, num_classes=10, embed_dim=64, depth=2, '
         "num_heads=2)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_tresnet_m", "timm tresnet_m (space-to-depth stem, anti-aliased downsampling)", "import timm",
         'timm.create_model("tresnet_m", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_nextvit_small", "timm nextvit_small", "import timm",
         'timm.create_model("nextvit_small", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_resnest14d", "timm resnest14d (split attention)", "import timm",
         'timm.create_model("resnest14d", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_caformer_s18", "timm caformer_s18 (convolutional and attention token mixers)", "import timm",
         'timm.create_model("caformer_s18", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_inception_next_atto", "timm inception_next_atto (inception depthwise token mixer)", "import timm",
         'timm.create_model("inception_next_atto", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    # transformers: VideoPrism (a factorised video encoder: spatial, then temporal), positions interpolated.
    Spec("hf_videoprism", "transformers VideoPrism video classifier (small config, 4 frames of 32 px, positions "
         "interpolated)", "from transformers import VideoPrismVisionConfig, VideoPrismForVideoClassification",
         "VideoPrismForVideoClassification(VideoPrismVisionConfig(image_size=32, num_frames=4, tubelet_size=(1, 8, 8), "
         "hidden_size=32, num_attention_heads=2, intermediate_size=64, num_spatial_layers=2, num_temporal_layers=1, "
         "num_auxiliary_layers=1, num_labels=10))",
         "return self.m(pixel_values_videos=x, interpolate_pos_encoding=True).logits", "1, 4, 3, 32, 32",
         _DYNAMIC_VIDEO),
    # monai: AutoencoderKL (3-D, attention, the latent mean decoded), a diffusion UNet at a fixed time step.
    Spec("monai_autoencoderkl", "monai AutoencoderKL (3-D, 32 voxels a side, reconstruction from the latent mean)",
         "from monai.networks.nets import AutoencoderKL",
         "AutoencoderKL(spatial_dims=3, in_channels=1, out_channels=1, num_res_blocks=1, channels=(8, 16), "
         "attention_levels=(False, True), latent_channels=4, norm_num_groups=4)",
         "return self.m.reconstruct(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    Spec("monai_diffusion_unet", "monai DiffusionModelUNet (2-D, attention at the lowest level, time step 10)",
         "from monai.networks.nets import DiffusionModelUNet",
         "DiffusionModelUNet(spatial_dims=2, in_channels=3, out_channels=3, num_res_blocks=1, channels=(16, 32, 32), "
         "attention_levels=(False, False, True), norm_num_groups=8, num_head_channels=8)",
         "t = torch.full((x.shape[0],), 10, dtype=torch.long)\n        return self.m(x, t)", _SMALL, DYNAMIC_BHW),
    # vit-pytorch: adaptive token sampling, an FFT branch, shifted-patch tokens, CCT.
    Spec("vitp_cross_vit", "vit-pytorch CrossViT (small and large patch branches, cross attention, 64 px)",
         "from vit_pytorch.cross_vit import CrossViT",
         "CrossViT(image_size=64, num_classes=10, sm_dim=32, lg_dim=48, sm_patch_size=8, sm_enc_depth=1, "
         "sm_enc_heads=2, "
         "sm_enc_mlp_dim=64, sm_enc_dim_head=16, lg_patch_size=16, lg_enc_depth=2, lg_enc_heads=2, lg_enc_mlp_dim=64, "
         "lg_enc_dim_head=16, cross_attn_depth=1, cross_attn_heads=2, cross_attn_dim_head=16, depth=2, dropout=0.0, "
         "emb_dropout=0.0)", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("vitp_simple_vit_fft", "vit-pytorch SimpleViT with an FFT branch (64 px)",
         "from vit_pytorch.simple_vit_with_fft import SimpleViT",
         "SimpleViT(image_size=64, patch_size=8, freq_patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("vitp_small_dataset_vit", "vit-pytorch ViT for small datasets (shifted patch tokens, locality attention)",
         "from vit_pytorch.vit_for_small_dataset import ViT",
         "ViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("vitp_cct", "vit-pytorch CCT (compact convolutional transformer, sequence pooling, 64 px)",
         "from vit_pytorch.cct import CCT",
         "CCT(img_size=64, embedding_dim=32, n_conv_layers=2, kernel_size=3, stride=1, padding=1, "
         "pooling_kernel_size=3, pooling_stride=2, pooling_padding=1, num_layers=2, num_heads=2, mlp_ratio=2.0, "
         "num_classes=10, positional_embedding='sine')", "return self.m(x)", _SMALL, DYNAMIC_B),
]

if __name__ == "__main__":
    main(MODELS11, "real_zoo11", PINS8)
