"""A sweep of transformers 5.24.0: many vision and audio families no zoo ran, each through migrate.

    python benchmarks/sweep_hf.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Not a held-out zoo: a survey of one library, to find the idioms of its helpers that stop migrate most often and fix
them in general. The models are transformers families that no zoo (benchmarks/real_zoo*.py) built, chosen for the
kinds that need work for an ONNX or TensorRT deployment: vision transformers whose position embeddings are
interpolated to the input's size (``interpolate_pos_encoding=True``, as a user who exports at several sizes passes
it), relative position biases interpolated too (BEiT, Data2Vec-Vision), windowed attention with continuous position
biases (Swin V2), focal modulation, convolutions with TensorFlow's "SAME" padding computed from the input's size (BiT,
MobileNet V1), RoPE over the patch grid (EoMT-DINOv3), vision-language image towers (CLIP, SigLIP, BLIP, GroupViT),
and audio encoders (HuBERT, SEW-D's disentangled relative attention, Mimi's codec, CLAP's HTS-AT). Each is built from
its Config class with a tiny config (two layers, hidden sizes 32 or so), random weights, eval mode, as the zoos'
transformers specs are. Dynamic axes as a deploying user declares them: batch, height and width for the images;
batch alone where the size is part of the model; batch and samples or frames for audio. Pins and machinery are the
thirteenth zoo's. EoMT-DINOv3 and SAM 3's ViT were first run with batch, height and width; both reshape to a patch
grid taken from the config's image size (their RoPE and query masks too), so they run at that size only: batch alone
is what a deploying user declares, and their rows below are from that run.

Results (38 models, in slices with ``--jobs 1`` on two shared cores; "first" is the code before this sweep's fixes,
"after" with them; exit codes of migrate):

| model | first contact | after the fixes | what stopped it (library file:line) |
|---|---|---|---|
| hf_vit, hf_deit_distilled, hf_ijepa, hf_vit_msn, hf_clip_vision, hf_blip_vision | fixed (TRT727) | | |
| hf_dinov2_registers | fixed (TRT725) | | |
| hf_data2vec_vision, hf_beit | fixed (TRT401; BEiT also TRT727) | | |
| hf_swinv2, hf_focalnet, hf_mobilenet_v1, hf_radio | fixed (TRT717) | | |
| hf_siglip_vision | fixed (TRT316, TRT727) | | |
| hf_sew_d | fixed (TRT603, TRT717) | | |
| hf_clap_audio | fixed (TRT727) | | |
| hf_aimv2_native | fixed (TRT701) | | |
| hf_pixio | fixed (TRT712, TRT727) | | |
| hf_chmv2 | fixed (TRT401, TRT407, TRT733) | | |
| hf_eomt_dinov3, hf_sam3_vit | fixed (TRT407; SAM 3 also TRT712) | | |
| 14 clean before: levit, pvt_v2, poolformer, efficientnet, hgnet_v2, dinov3_convnext, groupvit_vision, hubert, ast, mlcd, whisper_encoder, wav2vec2_bert, parakeet, data2vec_audio | clean | | |
| hf_mimi | 1 | 0 | masking_utils.py:761 `if not is_tracing(mask) and (mask[:, -1] == 0).all()`: an eager read the trace skips behind transformers' own tracing check, left an error because the original's export stopped at `torch.diff` (line 759) |
| hf_florence2_vision | 1 | 0 (TRT322) | florence2 modeling:242 `scale = num_tokens**-0.5` handed to integrations/sdpa_attention.py:182 `F.scaled_dot_product_attention(..., scale=scaling)`: the float scale of the example's size |
| hf_bit | 1 | 0 (TRT712, TRT717) | bit modeling:172 `max((math.ceil(x / stride) - 1) * stride + ... - x, 0)` in a closure defined in `DynamicPad2d.__init__` and stored on `self` (no rule looked there; the `max` kept the choice of a padding below 0 at even sizes for the 1x1 stride-2 convolutions), then the size-guarded pad at :185 |

First contact: 14 clean, 24 needed work, 21 fixed (87%); after the fixes 24 of 24. Re-run with the fixes: hf_mimi
0, hf_florence2_vision 0, and hf_vit, hf_swinv2, hf_siglip_vision, hf_clap_audio 0 as before (one slice of 7, before
the BiT fix: hf_bit 1 then); after the BiT fix, hf_bit 0, and hf_pixio, hf_sam3_vit, hf_mobilenet_v1 0 and
hf_efficientnet clean as before.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo13 import PINS13

_SMALL = "1, 3, 64, 64"
_DYNAMIC_WAVE = 'dynamic_axes = { x = { 0 = "batch", 1 = "samples" } }'
_DYNAMIC_WAVE3 = 'dynamic_axes = { x = { 0 = "batch", 2 = "samples" } }'
_DYNAMIC_FRAMES = 'dynamic_axes = { x = { 0 = "batch", 1 = "frames" } }'
_VIT = "hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64"
_HIDDEN = "return self.m(pixel_values=x).last_hidden_state"
_INTERP = "return self.m(pixel_values=x, interpolate_pos_encoding=True).last_hidden_state"
_AUDIO = ("hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16, 16), "
          "conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4")


def _hf(name: str, what: str, classes: str, construct: str, forward: str, shape: str = _SMALL,
        config: str = DYNAMIC_BHW, **extra: str) -> Spec:
    return Spec(name, f"transformers {what}", f"from transformers import {classes}", construct, forward, shape,
                config, **extra)


MODELS = [
    # Vision transformers with interpolated absolute (and relative) position embeddings.
    _hf("hf_vit", "ViT (interpolated positions)", "ViTConfig, ViTModel",
        f"ViTModel(ViTConfig({_VIT}, image_size=32, patch_size=8))", _INTERP),
    _hf("hf_deit_distilled", "DeiT with teacher (interpolated positions, two tokens)",
        "DeiTConfig, DeiTForImageClassificationWithTeacher",
        f"DeiTForImageClassificationWithTeacher(DeiTConfig({_VIT}, image_size=32, patch_size=8, num_labels=5))",
        "return self.m(pixel_values=x, interpolate_pos_encoding=True).logits"),
    _hf("hf_dinov2_registers", "DINOv2 with registers", "Dinov2WithRegistersConfig, Dinov2WithRegistersModel",
        f"Dinov2WithRegistersModel(Dinov2WithRegistersConfig({_VIT.replace('intermediate_size=64', 'mlp_ratio=2')}, "
        "image_size=32, patch_size=8, num_register_tokens=2))", _HIDDEN),
    _hf("hf_ijepa", "I-JEPA (interpolated positions, no CLS)", "IJepaConfig, IJepaModel",
        f"IJepaModel(IJepaConfig({_VIT}, image_size=32, patch_size=8))", _INTERP),
    _hf("hf_vit_msn", "ViT-MSN (interpolated positions)", "ViTMSNConfig, ViTMSNModel",
        f"ViTMSNModel(ViTMSNConfig({_VIT}, image_size=32, patch_size=8))", _INTERP),
    _hf("hf_data2vec_vision", "Data2Vec-Vision (shared relative position bias, interpolated)",
        "Data2VecVisionConfig, Data2VecVisionModel",
        f"Data2VecVisionModel(Data2VecVisionConfig({_VIT}, image_size=32, patch_size=8, "
        "use_shared_relative_position_bias=True, use_mean_pooling=True))", _INTERP),
    _hf("hf_beit", "BEiT backbone (per-layer relative position bias, interpolated)", "BeitConfig, BeitModel",
        f"BeitModel(BeitConfig({_VIT}, image_size=32, patch_size=8, use_relative_position_bias=True, "
        "use_absolute_position_embeddings=True))", _INTERP),
    _hf("hf_levit", "LeViT with teacher (attention biases at a fixed resolution, 64 px)",
        "LevitConfig, LevitForImageClassificationWithTeacher",
        "LevitForImageClassificationWithTeacher(LevitConfig(image_size=64, hidden_sizes=[32, 48, 64], "
        "num_attention_heads=[1, 2, 2], depths=[1, 1, 1], key_dim=[8, 8, 8], num_labels=5))",
        "return self.m(pixel_values=x).logits", config=DYNAMIC_B),
    # Windows, focal modulation, pyramids.
    _hf("hf_swinv2", "Swin V2 (continuous position bias, windows padded)", "Swinv2Config, Swinv2Model",
        "Swinv2Model(Swinv2Config(image_size=64, patch_size=4, embed_dim=16, depths=[1, 2], num_heads=[1, 2], "
        "window_size=4))", _HIDDEN, "1, 3, 56, 72"),
    _hf("hf_focalnet", "FocalNet (focal modulation)", "FocalNetConfig, FocalNetModel",
        "FocalNetModel(FocalNetConfig(embed_dim=16, depths=[1, 1, 2], focal_levels=[2, 2, 2], "
        "focal_windows=[3, 3, 3]))", _HIDDEN),
    _hf("hf_pvt_v2", "PVT v2 (overlapping patch embeddings, spatial reduction)", "PvtV2Config, PvtV2Model",
        "PvtV2Model(PvtV2Config(hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1], num_attention_heads=[1, 1, 2, 2]))",
        _HIDDEN),
    _hf("hf_poolformer", "PoolFormer", "PoolFormerConfig, PoolFormerModel",
        "PoolFormerModel(PoolFormerConfig(hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1]))", _HIDDEN),
    # Convolutional backbones: "SAME" padding from the input's size, weight standardization, re-parameterization.
    _hf("hf_bit", "BiT (weight-standardized convolutions, dynamic SAME padding)", "BitConfig, BitModel",
        'BitModel(BitConfig(embedding_size=16, hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1], '
        'global_padding="SAME", layer_type="bottleneck", num_groups=8))', _HIDDEN),
    _hf("hf_mobilenet_v1", "MobileNet V1 (TensorFlow SAME padding)", "MobileNetV1Config, MobileNetV1Model",
        "MobileNetV1Model(MobileNetV1Config(depth_multiplier=0.25, tf_padding=True))", _HIDDEN,
        calibrate="self.m(pixel_values=xb)"),
    _hf("hf_efficientnet", "EfficientNet (SAME-style padding, depthwise)", "EfficientNetConfig, EfficientNetModel",
        "EfficientNetModel(EfficientNetConfig(width_coefficient=0.25, depth_coefficient=0.3, hidden_dim=320))",
        _HIDDEN, calibrate="self.m(pixel_values=xb)"),
    _hf("hf_hgnet_v2", "HGNet V2 backbone", "HGNetV2Config, HGNetV2Backbone", "HGNetV2Backbone(HGNetV2Config())",
        "return self.m(pixel_values=x).feature_maps[-1]", calibrate="self.m(pixel_values=xb)"),
    _hf("hf_dinov3_convnext", "DINOv3 ConvNeXt", "DINOv3ConvNextConfig, DINOv3ConvNextModel",
        "DINOv3ConvNextModel(DINOv3ConvNextConfig(hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1]))", _HIDDEN),
    # Vision-language image towers.
    _hf("hf_clip_vision", "CLIP vision tower (interpolated positions)", "CLIPVisionConfig, CLIPVisionModel",
        f"CLIPVisionModel(CLIPVisionConfig({_VIT}, image_size=32, patch_size=8))", _INTERP),
    _hf("hf_siglip_vision", "SigLIP vision tower (interpolated positions, attention pooling head)",
        "SiglipVisionConfig, SiglipVisionModel",
        f"SiglipVisionModel(SiglipVisionConfig({_VIT}, image_size=32, patch_size=8))",
        "return self.m(pixel_values=x, interpolate_pos_encoding=True).pooler_output"),
    _hf("hf_blip_vision", "BLIP vision tower (interpolated positions)", "BlipVisionConfig, BlipVisionModel",
        f"BlipVisionModel(BlipVisionConfig({_VIT}, image_size=32, patch_size=8))", _INTERP),
    _hf("hf_groupvit_vision", "GroupViT vision tower (grouping blocks, hard assignment)",
        "GroupViTVisionConfig, GroupViTVisionModel",
        "GroupViTVisionModel(GroupViTVisionConfig(hidden_size=32, intermediate_size=64, depths=[1, 1, 1], "
        "num_hidden_layers=3, num_group_tokens=[8, 4, 0], num_output_groups=[8, 4, 4], num_attention_heads=2, "
        "image_size=64, patch_size=8))", "return self.m(pixel_values=x).pooler_output", config=DYNAMIC_B),
    # Segmentation with RoPE over the patch grid.
    _hf("hf_eomt_dinov3", "EoMT-DINOv3 (RoPE over the patch grid, masks from queries)",
        "EomtDinov3Config, EomtDinov3ForUniversalSegmentation",
        f"EomtDinov3ForUniversalSegmentation(EomtDinov3Config({_VIT}, image_size=64, patch_size=8, num_queries=5, "
        "num_blocks=1, num_register_tokens=2, num_labels=3))",
        "out = self.m(pixel_values=x)\n        return out.class_queries_logits, out.masks_queries_logits",
        config=DYNAMIC_B),
    # Audio encoders.
    _hf("hf_hubert", "HuBERT (convolutional features, convolutional positions)", "HubertConfig, HubertModel",
        f"HubertModel(HubertConfig({_AUDIO}))", "return self.m(input_values=x).last_hidden_state", "1, 4000",
        _DYNAMIC_WAVE),
    _hf("hf_sew_d", "SEW-D (squeezed frames, disentangled relative attention)", "SEWDConfig, SEWDModel",
        f"SEWDModel(SEWDConfig({_AUDIO}, squeeze_factor=2, max_position_embeddings=64, position_buckets=16))",
        "return self.m(input_values=x).last_hidden_state", "1, 4000", _DYNAMIC_WAVE),
    _hf("hf_mimi", "Mimi codec (SEANet, transformer, split residual vector quantizer)", "MimiConfig, MimiModel",
        "MimiModel(MimiConfig(hidden_size=32, num_filters=8, upsampling_ratios=[4, 2], num_hidden_layers=1, "
        "num_attention_heads=2, num_key_value_heads=2, head_dim=16, intermediate_size=64, codebook_size=64, "
        "codebook_dim=16, vector_quantization_hidden_dimension=16, num_quantizers=4, num_semantic_quantizers=1, frame_rate=12.5, sampling_rate=800, upsample_groups=32))",
        "return self.m(input_values=x).audio_values", "1, 1, 1024", _DYNAMIC_WAVE3),
    _hf("hf_clap_audio", "CLAP audio tower (HTS-AT Swin over a mel spectrogram)", "ClapAudioConfig, ClapAudioModel",
        "ClapAudioModel(ClapAudioConfig(hidden_size=64, patch_embeds_hidden_size=16, depths=[1, 1], "
        "num_attention_heads=[1, 2], spec_size=64, num_mel_bins=16, window_size=4, patch_stride=(4, 4)))",
        "return self.m(input_features=x).pooler_output", "1, 1, 100, 16", DYNAMIC_B),
    _hf("hf_ast", "Audio Spectrogram Transformer (fixed frames)", "ASTConfig, ASTModel",
        f"ASTModel(ASTConfig({_VIT}, max_length=64, num_mel_bins=32, patch_size=8))",
        "return self.m(input_values=x).last_hidden_state", "1, 64, 32", DYNAMIC_B),
    # Batch 2: position embeddings built or rotated for the input's grid, windows, depth heads, more audio.
    _hf("hf_aimv2_native", "AIMv2 vision (native resolution: 2-D sin-cos positions built for the grid)",
        "Aimv2VisionConfig, Aimv2VisionModel",
        f"Aimv2VisionModel(Aimv2VisionConfig({_VIT}, image_size=32, patch_size=8, is_native=True))", _HIDDEN),
    _hf("hf_mlcd", "MLCD vision (2-D rotary positions over the patch grid)", "MLCDVisionConfig, MLCDVisionModel",
        f"MLCDVisionModel(MLCDVisionConfig({_VIT}, image_size=32, patch_size=8))", _HIDDEN),
    _hf("hf_radio", "RADIO (CPE position embeddings resized to the input, registers)", "RadioConfig, RadioModel",
        "RadioModel(RadioConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, image_size=64, "
        "patch_size=8, max_img_size=128, num_cls_tokens=2, num_registers=2))", _HIDDEN),
    _hf("hf_pixio", "Pixio (eight class tokens, interpolated positions)", "PixioConfig, PixioModel",
        "PixioModel(PixioConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2, "
        "image_size=32, patch_size=8, n_cls_tokens=2))", _HIDDEN),
    _hf("hf_sam3_vit", "SAM 3 ViT (windowed attention with 2-D RoPE, global layers)", "Sam3ViTConfig, Sam3ViTModel",
        f"Sam3ViTModel(Sam3ViTConfig({_VIT}, image_size=64, patch_size=8, window_size=4, global_attn_indexes=[1], "
        "pretrain_image_size=32))", _HIDDEN, config=DYNAMIC_B),
    _hf("hf_florence2_vision", "Florence-2 DaViT (window and channel attention)",
        "Florence2VisionConfig, Florence2VisionBackbone",
        "Florence2VisionBackbone(Florence2VisionConfig(depths=(1, 1, 1, 1), embed_dim=(16, 32, 48, 64), "
        "num_heads=(1, 2, 2, 4), num_groups=(1, 2, 2, 4), window_size=4, drop_path_rate=0.0))",
        "return self.m(x).last_hidden_state"),
    _hf("hf_chmv2", "CHMv2 canopy height (DINOv3 backbone, DPT head, mixed-log bins)",
        "CHMv2Config, CHMv2ForDepthEstimation",
        'CHMv2ForDepthEstimation(CHMv2Config(backbone_config=dict(model_type="dinov3_vit", image_size=64, '
        "patch_size=16, hidden_size=32, intermediate_size=64, num_attention_heads=2, num_hidden_layers=4, "
        "num_register_tokens=2, key_bias=True, out_indices=[1, 2, 3, 4], reshape_hidden_states=True, "
        "apply_layernorm=True, return_class_token=True), patch_size=16, post_process_channels=[16, 32, 64, 64], "
        "fusion_hidden_size=32, head_hidden_size=16, number_output_channels=32))",
        "return self.m(pixel_values=x).predicted_depth"),
    Spec("hf_whisper_encoder", "transformers Whisper encoder (fixed 2x frames of positions)",
         "from transformers import WhisperConfig\nfrom transformers.models.whisper.modeling_whisper import WhisperEncoder",
         "WhisperEncoder(WhisperConfig(d_model=32, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=64, "
         "num_mel_bins=16, max_source_positions=50))", "return self.m(input_features=x).last_hidden_state",
         "1, 16, 100", DYNAMIC_B),
    _hf("hf_wav2vec2_bert", "Wav2Vec2-BERT (conformer with relative-key positions over fbank frames)",
        "Wav2Vec2BertConfig, Wav2Vec2BertModel",
        "Wav2Vec2BertModel(Wav2Vec2BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
        "intermediate_size=64, feature_projection_input_dim=16, conv_depthwise_kernel_size=7, "
        "left_max_position_embeddings=8, right_max_position_embeddings=4))",
        "return self.m(input_features=x).last_hidden_state", "1, 50, 16", _DYNAMIC_FRAMES),
    _hf("hf_parakeet", "Parakeet encoder (FastConformer: 8x subsampling, relative positions)",
        "ParakeetEncoderConfig, ParakeetEncoder",
        "ParakeetEncoder(ParakeetEncoderConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
        "intermediate_size=64, subsampling_conv_channels=16, num_mel_bins=16, conv_kernel_size=7))",
        "return self.m(input_features=x).last_hidden_state", "1, 80, 16", _DYNAMIC_FRAMES),
    _hf("hf_data2vec_audio", "Data2Vec-Audio (stacked convolutional positions)", "Data2VecAudioConfig, Data2VecAudioModel",
        f"Data2VecAudioModel(Data2VecAudioConfig({_AUDIO.replace(', num_conv_pos_embeddings=16', '')}, "
        "conv_pos_kernel_size=5, num_conv_pos_embeddings=3))",
        "return self.m(input_values=x).last_hidden_state", "1, 4000", _DYNAMIC_WAVE),
]

if __name__ == "__main__":
    main(MODELS, "sweep_hf", PINS13)
