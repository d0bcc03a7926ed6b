"""A twelfth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo12.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the eleventh zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the eighth zoo's libraries and pins (``PINS8``; no library is added:
the time a new one would have cost went to the models), 24 other models, chosen by family before any was run, none
of them (library, architecture and variant) in zoos 1 to 11, 14 of them of kinds that often need work for an ONNX or
TensorRT deployment. Detectors and their post-processing: effdet's efficientdet_es (an EfficientNet-EdgeTPU-S
backbone under the BiFPN; its predict bench: anchors, decoding, NMS, top 20) and ultralytics' YOLOv8n-p6 (YOLOv8's
head on four scales, down to stride 64). Segmentation and prompts: transformers' SAM 2 (a Hiera backbone whose
windowed attention pads its feature maps to whole windows, with windowed position embeddings; an FPN; two fixed
points; three masks and their scores), CLIPSeg (a CLIP ViT whose activations a FiLM-conditioned decoder turns into a
mask; the conditional embedding fixed and seeded, as a deployment with one text prompt computes it once) and VideoMT
(video segmentation: a ViT with query tokens carried from frame to frame, class and mask logits per frame). Depth:
Prompt Depth Anything (Depth Anything's DPT head with a prompt depth map, here the input's fourth channel, resized
to each fusion level). Audio, with relative positions and quantization: WavLM (a convolutional feature extractor, a
convolutional position embedding and the gated relative position bias over the frames) and EnCodec (convolutional
encoder and decoder, an LSTM, a residual vector quantizer of two codebooks: the nearest code by a max over negated
distances). Image processing with loops and blocks: kornia's distance_transform (cascaded convolutions that stop
early once they have settled), connected_components (100 max-pooling iterations) and its differentiable JPEG (YCbCr,
chroma subsampling, the image padded to whole 16-pixel blocks, 8x8 DCTs, quantization at quality 50). MRI
reconstruction: monai's variational network (a coil sensitivity model that finds the fully sampled centre from the
mask, centred FFTs and inverse FFTs of k-space given as real and imaginary parts, two cascades of complex U-Nets;
the mask a sampled centre of 8 columns and every fourth column, built in the wrapper for any width). Dynamic
resizing: vit-pytorch's NaViT (each image of any size up to 64 px its own sequence, factorised position embeddings,
sequences padded and masked) and torchvision's AlexNet (its adaptive average pooling to 6x6 upsamples a small
feature map). Then the minority, backbones and plain heads from corners the earlier zoos used little: ultralytics'
YOLOv8-cls-ResNet50 (its own ResNetLayer blocks), transformers' PatchTST (a time-series forecaster: mean and
deviation scaling, patches of the series), monai's DenseNet (3-D), vit-pytorch's DeepViT (re-attention) and ViT with
a patch merger (64 tokens merged to 8 after the first layer), timm's nf_regnet_b0 (normalizer-free: scaled weight
standardization), skresnet18 (selective kernels), res2net50_14w_8s, dla34 (deep layer aggregation) and fasternet_t0
(partial convolutions on a slice of the channels).

Each is small and has the dynamic axes a deploying user declares: batch, height and width (depth too for the
volume); batch and frames for VideoMT's clips (its frame size is part of the model: position embeddings for one
patch grid); batch and samples for the audio models; batch alone where the size is part of the model (SAM 2's prompt
encoder and feature sizes at 128 px, CLIPSeg's decoder, which reshapes its tokens to a square, the vit-pytorch ViTs'
position embeddings, PatchTST's context length); batch, height and width for the variational network's k-space (its
4 coils fixed, as a scanner's are); none for effdet's predict bench, as in the earlier zoos. Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic, finite
outputs; the best of three warm forwards at the spec's size took 1.3 s at most here, effdet's predict bench, and
under 1 s for the others, most under 0.3 s; the slowest of the three took up to 3.6 s, with the machine's load at 6
to 7 on two cores), at two sizes (effdet at its one), before the first migrate run; changed then: effdet's
efficientdetv2_dt was swapped for efficientdet_es (at random weights its box regression overflowed to infinities
after the BatchNorm calibration, and its first forward took 6 s), ultralytics' YOLO11-cls-ResNet18 for
YOLOv8-cls-ResNet50 (its torchvision ResNet-18 downloads its weights), kornia's DeFMO for connected_components (a
warm forward took 4 s at 64 px, 12 s at 96x80), timm's eca_nfnet_l0 for nf_regnet_b0 (3.3 s for its first forward at
64 px); CLIPSeg extracts layers 0 to 2 of its three, SAM 2's windows are 8, 4, 6 and 3 (a window that follows a
query pooling halves, so the third stage's must be even) and the DenseNet has three dense blocks (with a fourth, a
24-voxel side is down to one voxel at the last transition's pooling).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo8 import PINS8

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: A clip's batch and frames (batch, frames, channels, height, width): its frame size is part of the model.
_DYNAMIC_CLIP = 'dynamic_axes = { x = { 0 = "batch", 1 = "frames" } }'
#: Audio: batch and samples (batch, samples), or (batch, channels, samples) with the channels fixed.
_DYNAMIC_WAVE = 'dynamic_axes = { x = { 0 = "batch", 1 = "samples" } }'
_DYNAMIC_WAVE3 = 'dynamic_axes = { x = { 0 = "batch", 2 = "samples" } }'
#: The effdet predict bench at 128 px: anchors, decoding, NMS, top 20 rows whose order is not compared.
_EFFDET = "image_size=(128, 128), max_det_per_image=20)"
_DINOV2 = ('backbone_config=dict(model_type="dinov2", hidden_size=32, num_hidden_layers=4, num_attention_heads=2, '
           'intermediate_size=64, image_size=70, patch_size=14, out_features=["stage1", "stage2", "stage3", "stage4"], '
           "reshape_hidden_states=False)")
_SAM2 = ('Sam2Model(Sam2Config(vision_config=dict(backbone_config=dict(model_type="sam2_hiera_det_model", '
         "hidden_size=16, num_attention_heads=1, "
         "image_size=[128, 128], blocks_per_stage=[1, 1, 2, 1], embed_dim_per_stage=[16, 32, 64, 128], "
         "num_attention_heads_per_stage=[1, 1, 2, 2], window_size_per_stage=[8, 4, 6, 3], global_attention_blocks=[3], "
         "window_positional_embedding_background_size=[4, 4]), backbone_channel_list=[128, 64, 32, 16], "
         "backbone_feature_sizes=[[32, 32], [16, 16], [8, 8]], fpn_hidden_size=32), "
         "prompt_encoder_config=dict(hidden_size=32, image_size=128, patch_size=16, mask_input_channels=4), "
         "mask_decoder_config=dict(hidden_size=32, mlp_dim=64, num_attention_heads=2, iou_head_hidden_dim=32)))")
_SAM2_FORWARD = ("b = x.shape[0]\n        "
                 "points = torch.tensor([[[[40.0, 60.0], [90.0, 20.0]]]]).expand(b, -1, -1, -1)\n        "
                 "labels = torch.tensor([[[1, 0]]]).expand(b, -1, -1)\n        "
                 "out = self.m(pixel_values=x, input_points=points, input_labels=labels, "
                 "multimask_output=True)\n        "
                 "return out.pred_masks, out.iou_scores")
#: k-space columns sampled: a fully sampled centre of 8 and every fourth column (the coil sensitivity model finds
#: the centre from the mask).
_VARNET_FORWARD = ("w = x.shape[3]\n        cols = torch.arange(w, device=x.device)\n        "
                   "mask = ((cols % 4 == 0) | ((cols - w // 2).abs() < 4)).reshape(1, 1, 1, w, 1)\n        "
                   "return self.m(x * mask, mask)")

MODELS12 = [
    # effdet: an EfficientNet-EdgeTPU backbone under the BiFPN, predict bench (anchors, decoding, NMS, top 20).
    Spec("effdet_es", "effdet efficientdet_es (EfficientNet-EdgeTPU-S backbone, image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("efficientdet_es", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         + _EFFDET, "return self.m(x)", "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(xb)"),
    # ultralytics: YOLOv8 with a fourth, stride-64 scale; its ResNet-50 classifier (ResNetLayer blocks).
    Spec("yolov8n_p6", "ultralytics YOLOv8n-p6 (yolov8n-p6.yaml, nc=3, four scales to stride 64)",
         "from ultralytics.nn.tasks import DetectionModel", 'DetectionModel("yolov8n-p6.yaml", nc=3, verbose=False)',
         _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov8n_cls_resnet50", "ultralytics YOLOv8-cls-ResNet50 (yolov8n-cls-resnet50.yaml, nc=3)",
         "from ultralytics.nn.tasks import ClassificationModel",
         'ClassificationModel("yolov8n-cls-resnet50.yaml", nc=3, verbose=False)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    # transformers: depth with a prompt depth map, text-conditioned segmentation, SAM 2, video segmentation.
    Spec("hf_prompt_depth_anything", "transformers Prompt Depth Anything (small DINOv2 config, an RGB image and "
         "its prompt depth as 4 channels)",
         "from transformers import PromptDepthAnythingConfig, PromptDepthAnythingForDepthEstimation",
         f"PromptDepthAnythingForDepthEstimation(PromptDepthAnythingConfig({_DINOV2}, reassemble_hidden_size=32, "
         "neck_hidden_sizes=[16, 32, 64, 64], fusion_hidden_size=32, head_hidden_size=16))",
         "return self.m(pixel_values=x[:, :3], prompt_depth=x[:, 3:]).predicted_depth", "1, 4, 70, 70",
         DYNAMIC_BHW),
    Spec("hf_clipseg", "transformers CLIPSeg (small config, a fixed seeded conditional embedding)",
         "from transformers import CLIPSegConfig, CLIPSegForImageSegmentation",
         "CLIPSegForImageSegmentation(CLIPSegConfig(text_config=dict(hidden_size=32, intermediate_size=64, "
         "num_hidden_layers=1, num_attention_heads=2, vocab_size=1000), vision_config=dict(hidden_size=32, "
         "intermediate_size=64, num_hidden_layers=3, num_attention_heads=2, image_size=64, patch_size=16), "
         "projection_dim=16, extract_layers=[0, 1, 2], reduce_dim=16, decoder_num_attention_heads=2, "
         "decoder_intermediate_size=32))",
         "out = self.m(pixel_values=x, conditional_embeddings=self.cond.expand(x.shape[0], -1))\n        "
         "return out.logits",
         _SMALL, DYNAMIC_B, init="self.cond = torch.randn(1, 16, generator=torch.Generator().manual_seed(3))"),
    Spec("hf_sam2", "transformers SAM 2 (small Hiera config, 128 px, two points, three masks)",
         "from transformers import Sam2Config, Sam2Model", _SAM2, _SAM2_FORWARD, "1, 3, 128, 128", DYNAMIC_B),
    Spec("hf_videomt", "transformers VideoMT video segmentation (small config, 4 frames of 32 px, 10 queries)",
         "from transformers import VideomtConfig, VideomtForUniversalSegmentation",
         "VideomtForUniversalSegmentation(VideomtConfig(hidden_size=32, num_hidden_layers=4, num_attention_heads=2, "
         "image_size=32, patch_size=8, num_blocks=2, num_queries=10, num_register_tokens=2, num_labels=3))",
         "out = self.m(pixel_values_videos=x)\n        return out.class_queries_logits, out.masks_queries_logits",
         "1, 4, 3, 32, 32", _DYNAMIC_CLIP),
    # transformers: audio (WavLM's gated relative position bias, EnCodec's residual vector quantizer), time series.
    Spec("hf_wavlm", "transformers WavLM (small config, gated relative position bias)",
         "from transformers import WavLMConfig, WavLMModel",
         "WavLMModel(WavLMConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, "
         "conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16, "
         "num_conv_pos_embedding_groups=4, num_buckets=32, max_bucket_distance=100))",
         "return self.m(input_values=x).last_hidden_state", "1, 4000", _DYNAMIC_WAVE),
    Spec("hf_encodec", "transformers EnCodec (small config, 8 kHz, two quantizers of 64 codes)",
         "from transformers import EncodecConfig, EncodecModel",
         "EncodecModel(EncodecConfig(sampling_rate=8000, hidden_size=32, num_filters=8, upsampling_ratios=(4, 2), "
         "codebook_size=64, target_bandwidths=(12.0, 24.0), num_lstm_layers=1))",
         "return self.m(input_values=x).audio_values", "1, 1, 2000", _DYNAMIC_WAVE3),
    Spec("hf_patchtst", "transformers PatchTST forecaster (small config, 3 series, 64 steps in, 16 out)",
         "from transformers import PatchTSTConfig, PatchTSTForPrediction",
         "PatchTSTForPrediction(PatchTSTConfig(num_input_channels=3, context_length=64, patch_length=8, "
         "patch_stride=8, "
         "prediction_length=16, d_model=32, num_attention_heads=2, num_hidden_layers=2, ffn_dim=64))",
         "return self.m(past_values=x).prediction_outputs", "1, 64, 3", DYNAMIC_B),
    # kornia: a distance transform (convolutions that stop once settled), differentiable JPEG, connected components.
    Spec("kornia_distance_transform", "kornia distance_transform (cascaded convolutions, sources: pixels over 0.97)",
         "import kornia\nfrom kornia.contrib import Lambda", "Lambda(kornia.contrib.distance_transform)",
         "return self.m((x > 0.97).to(x.dtype))", "1, 1, 64, 64", DYNAMIC_BHW),
    Spec("kornia_jpeg", "kornia JPEGCodecDifferentiable (quality 50: YCbCr, chroma subsampling, 8x8 DCT, "
         "quantization)", "import kornia", "kornia.enhance.JPEGCodecDifferentiable()",
         "return self.m(x, torch.tensor([50.0]))", _SMALL, DYNAMIC_BHW),
    Spec("kornia_connected_components", "kornia connected_components (100 max-pooling iterations on a thresholded "
         "image)", "import kornia\nfrom kornia.contrib import Lambda",
         "Lambda(lambda mask: kornia.contrib.connected_components(mask, num_iterations=100))",
         "return self.m((x > 0.6).to(x.dtype))", "1, 1, 64, 64", DYNAMIC_BHW),
    # monai: MRI reconstruction (a variational network: coil sensitivities, centred FFTs), a 3-D DenseNet.
    Spec("monai_varnet", "monai VariationalNetworkModel (2 cascades, 4 coils, k-space as real and imaginary parts)",
         "from monai.apps.reconstruction.networks.nets.coil_sensitivity_model import CoilSensitivityModel\n"
         "from monai.apps.reconstruction.networks.nets.complex_unet import ComplexUnet\n"
         "from monai.apps.reconstruction.networks.nets.varnet import VariationalNetworkModel",
         "VariationalNetworkModel(CoilSensitivityModel(spatial_dims=2, features=(4, 4, 8, 8, 16, 4)), "
         "ComplexUnet(spatial_dims=2, features=(8, 8, 16, 16, 32, 8)), num_cascades=2)",
         _VARNET_FORWARD, "1, 4, 64, 64, 2", 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'),
    Spec("monai_densenet_3d", "monai DenseNet (3-D, 32 voxels a side, growth 8, blocks of 2, 4 and 4 layers)",
         "from monai.networks.nets import DenseNet",
         "DenseNet(spatial_dims=3, in_channels=1, out_channels=2, init_features=16, growth_rate=8, "
         "block_config=(2, 4, 4))", "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    # vit-pytorch: NaViT (images packed into one sequence, factorised positions), DeepViT, a patch merger.
    Spec("vitp_navit", "vit-pytorch NaViT (each image its own sequence, factorised positions, up to 64 px)",
         "from vit_pytorch.na_vit import NaViT",
         "NaViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         "return self.m([[img] for img in x])", _SMALL, DYNAMIC_BHW),
    Spec("vitp_deepvit", "vit-pytorch DeepViT (re-attention, 64 px)", "from vit_pytorch.deepvit import DeepViT",
         "DeepViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("vitp_patch_merger", "vit-pytorch ViT with a patch merger (64 tokens merged to 8 after the first layer)",
         "from vit_pytorch.vit_with_patch_merger import ViT",
         "ViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16, "
         "patch_merge_layer=1, patch_merge_num_tokens=8)", "return self.m(x)", _SMALL, DYNAMIC_B),
    # torchvision: AlexNet (its adaptive pooling to 6x6 upsamples a small feature map).
    Spec("tv_alexnet", "torchvision alexnet (adaptive average pooling to 6x6)", "import torchvision",
         "torchvision.models.alexnet(weights=None, num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # timm: NFNet, selective kernels, Res2Net, DLA, FasterNet's partial convolutions.
    Spec("timm_nf_regnet_b0", "timm nf_regnet_b0 (normalizer-free, scaled weight standardization)", "import timm",
         'timm.create_model("nf_regnet_b0", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_skresnet18", "timm skresnet18 (selective kernel convolutions)", "import timm",
         'timm.create_model("skresnet18", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_res2net50_14w_8s", "timm res2net50_14w_8s (hierarchical residual splits)", "import timm",
         'timm.create_model("res2net50_14w_8s", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_dla34", "timm dla34 (deep layer aggregation)", "import timm",
         'timm.create_model("dla34", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_fasternet_t0", "timm fasternet_t0 (partial convolutions on a channel slice)", "import timm",
         'timm.create_model("fasternet_t0", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS12, "real_zoo12", PINS8)
