"""A sweep of one library family: vit-pytorch's model modules and timm's ViT-like families no zoo ran.

    python benchmarks/sweep_vit_timm.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Not a held-out zoo: a sweep to find which idioms of these libraries stop ``migrate``, so that they are fixed
in general. Pins, machinery, table and counts are real_zoo13.py's (``PINS13``: vit-pytorch 1.26.11 and timm
1.0.31 among them, unpacked wheels, never pip-installed). Models: vit-pytorch has about 90 modules; each module
no zoo ran that builds a classifier from an image, a clip or a sequence was taken (training wrappers such as
MAE, SimMIM, DINO, distillation and the extractor/recorder left out, as were LocalViT, which does not run with
these arguments, and the decorrelation ViT, which returns a loss beside its logits); from timm, one model of
each family no zoo ran (the registry's first small variant: beit v2, SAM ViT, Hiera, SAM2 Hiera, MobileViT v1,
SHViT, SwiftFormer, Visformer, ViTamin, EfficientViM, Qwen3, Gemma 4 and DeepSeek vision towers, iFormer,
LowFormer, DeiT distilled, ViT-hybrid, ViT-XP and AIMv2 (RmsNorm), CSATv2, RDNet, HGNetV2, GENet, RepGhost,
ConvNeXt with RmsNorm, the mixed-RoPE and Perception Encoder Evas, RepVGG, MobileOne, ReXNet, GhostNetV3,
Inception-v3, RegNetY, LeViT conv), skipping CrossViT (its 240-px grids do not resize), EfficientFormer v1
(its attention biases are for 224 px) and MobileNetV5 (over 3 s a forward). 75 models, small configs (width
16-64, depth 1-2, 32 to 75 px), random weights; dynamic axes as a deploying user declares them: batch alone
where a position embedding or a bias table fixes the size, batch, height and width where the model takes any.

First contact (before the fixes of this sweep): 55 clean; of the 20 that need work, 13 fixed (exit 0), 7 not.
After the fixes (TRT337 takes torch's RMS norm; an import-failure fallback no longer hides a torch name;
TRT303 reads einops' einsum), 17 of the 20 at exit 0:

| model | first contact | after | what stops it (first contact) |
|---|---|---|---|
| timm_gemma4_vit, timm_vit_xp, timm_aimv2 | exit 1 | exit 0 (TRT337) | aten::rms_norm, timm/layers/norm.py:247 (RmsNorm: `rms_norm` imported from torch with a relative fallback) |
| timm_deepseek_vit | exit 1 | exit 0 (TRT337) | aten::rms_norm, timm/layers/norm.py:290 (RmsNormFp32) |
| vp_dca_attn_residual | exit 1 | exit 0 (TRT337 x5) | aten::rms_norm, nn.RMSNorm called at attn_residual_with_dca_simple_vit.py:124 |
| vp_hyper_connections | exit 1 | exit 0 (TRT303) | Einsum with an ellipsis, einops' `einsum` at simple_vit_with_hyper_connections.py:72 |
| vp_ats_vit | exit 1 | exit 1 | aten::uniform at ats_vit.py:23 (random token sampling in eval) and per-sample `unique` padded to a data-dependent length (data-dependent: not fixable faithfully) |
| vp_vivit_moss | exit 1 | exit 1 | `is_causal = self.causal and q.shape[-2] > 1` (vivit_with_moss.py:87): a traced size makes it a tensor, which `scaled_dot_product_attention` refuses (line 90) |
| timm_rope_mixed | exit 1 | exit 1 | the graph does not run: ONNX Runtime refuses the cls token's Expand at eva.py:1004 (the trace holds `expand(B, -1, -1)`; the TorchScript exporter's graph has sizes (B, 3, 3), with or without constant folding, at opset 17 and 18; the dynamo exporter's graph runs and matches eager within 1e-10 at batch 1 and 2) |
| vp_pit, vp_t2t, vp_vit_5 | exit 0 (TRT712) | exit 0 | |
| timm_samvit | exit 0 (TRT712, TRT717, TRT725) | exit 0 | |
| timm_sam2_hiera | exit 0 (TRT407, TRT727) | exit 0 | |
| timm_mobilevit_xxs | exit 0 (TRT712, TRT717) | exit 0 | |
| timm_qwen3_vit | exit 0 (TRT717) | exit 0 | |
| vp_vit_nd_pope, vp_vit_nd | exit 0 (TRT315) | exit 0 | |
| vp_orthog_residual | exit 0 (TRT701) | exit 0 | |
| timm_csatv2 | exit 0 (TRT601) | exit 0 | |

Clean before: vp_cait, vp_cvt, vp_levit, vp_max_vit, vp_mobile_vit, vp_nest, vp_parallel_vit, vp_register_tokens,
vp_twins_svt, vp_xcit, vp_vivit, vp_vit_1d, vp_learnable_memory, vp_jumbo_vit, vp_simple_uvit, vp_jet_vit,
vp_max_vit_registers, vp_vit_detpool, vp_attn_residual, vp_sparse_gating, vp_qk_norm, vp_value_residual, vp_wwt,
vp_simple_vit_3d, vp_cct_3d, vp_vit_3d, vp_simple_vit_1d, vp_flash_attn, vp_keel_post_ln, vp_specialized_cls,
vp_looped_vit, timm_beitv2, timm_hiera, timm_shvit, timm_swiftformer, timm_visformer, timm_vitamin,
timm_efficientvim, timm_iformer, timm_lowformer, timm_deit_distilled, timm_vit_hybrid, timm_rdnet, timm_hgnetv2,
timm_gernet, timm_repghost, timm_convnext_rms (timm's RmsNorm2d is its own arithmetic), timm_pe_core, timm_repvgg,
timm_mobileone, timm_rexnet, timm_ghostnetv3, timm_inception_v3, timm_regnety, timm_levit_conv. Fifteen of the
fixed and clean models re-run after the fixes: all exit 0, with the same fixes.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo13 import PINS13

_VP = "vit_pytorch"
#: A small ViT's common arguments (vit-pytorch's keyword names).
_VIT = "num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16"
_IMG32 = "1, 3, 32, 32"
_IMG64 = "1, 3, 64, 64"
#: A timm ViT cut to 64 px, 2 blocks of width 64 with 2 heads.
_TIMM_VIT = "pretrained=False, num_classes=10, img_size=64, embed_dim=64, depth=2, num_heads=2"
#: A clip as (batch, channels, frames, height, width); a sequence as (batch, channels, length).
_CLIP = "1, 3, 4, 32, 32"


def _vp(name: str, source: str, module: str, cls: str, args: str, shape: str = _IMG32, config: str = DYNAMIC_B,
        **kw: str) -> Spec:
    return Spec(name, f"vit-pytorch {source}", f"from {_VP}.{module} import {cls}", f"{cls}({args})",
                "return self.m(x)", shape, config, **kw)


def _timm(name: str, source: str, construct: str, shape: str = _IMG64, config: str = DYNAMIC_BHW, **kw: str) -> Spec:
    return Spec(name, f"timm {source}", "import timm", f'timm.create_model({construct})', "return self.m(x)", shape,
                config, **kw)


MODELS = [
    # vit-pytorch: one model a module, from the modules no zoo ran.
    _vp("vp_ats_vit", "ATS-ViT (adaptive token sampling: 12 then 8 tokens kept by score)", "ats_vit", "ViT",
        f"image_size=32, patch_size=8, max_tokens_per_depth=(12, 8), {_VIT}"),
    _vp("vp_cait", "CaiT (layer scale, talking heads, class-attention blocks)", "cait", "CaiT",
        f"image_size=32, patch_size=8, cls_depth=1, {_VIT}"),
    _vp("vp_cvt", "CvT (convolutional token embedding and projections, three stages)", "cvt", "CvT",
        "num_classes=10, s1_emb_dim=16, s1_heads=1, s1_depth=1, s2_emb_dim=32, s2_heads=2, s2_depth=1, "
        "s3_emb_dim=32, s3_heads=2, s3_depth=1", _IMG64, DYNAMIC_BHW),
    _vp("vp_levit", "LeViT (attention biases over fixed grids, three stages)", "levit", "LeViT",
        "image_size=64, num_classes=10, dim=(16, 32, 48), depth=1, heads=(2, 2, 2), mlp_mult=2, dim_key=8, "
        "dim_value=16", _IMG64),
    _vp("vp_max_vit", "MaxViT (MBConv, block and grid attention with relative position biases, window 2)",
        "max_vit", "MaxViT", "num_classes=10, dim=16, depth=(1, 1), dim_head=8, window_size=2, dropout=0.0",
        _IMG32, DYNAMIC_BHW),
    _vp("vp_mobile_vit", "MobileViT (unfolded 2x2 patches through a transformer)", "mobile_vit", "MobileViT",
        "image_size=(64, 64), dims=[16, 16, 24], channels=[8, 8, 16, 16, 16, 16, 24, 24, 32, 32, 48], "
        "num_classes=10, depths=(1, 1, 1)", _IMG64, DYNAMIC_BHW),
    _vp("vp_nest", "NesT (nested hierarchies of local blocks, aggregated by convolutions)", "nest", "NesT",
        "image_size=32, patch_size=4, num_classes=10, dim=32, heads=2, num_hierarchies=2, block_repeats=(1, 1), "
        "dim_head=16"),
    _vp("vp_parallel_vit", "parallel ViT (two attention and two feed-forward branches a layer)", "parallel_vit",
        "ViT", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_pit", "PiT (pooling by depthwise convolution between stages)", "pit", "PiT",
        "image_size=32, patch_size=4, num_classes=10, dim=32, depth=(1, 1), heads=2, mlp_dim=64, dim_head=16"),
    _vp("vp_register_tokens", "SimpleViT with register tokens (sin-cos positions)",
        "simple_vit_with_register_tokens", "SimpleViT", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_t2t", "T2T-ViT (tokens-to-token unfolds)", "t2t", "T2TViT",
        "image_size=32, num_classes=10, dim=32, depth=1, heads=2, mlp_dim=64, dim_head=16, "
        "t2t_layers=((7, 4), (3, 2))"),
    _vp("vp_twins_svt", "Twins-SVT (locally-grouped and global sub-sampled attention, PEG)", "twins_svt",
        "TwinsSVT", "num_classes=10, s1_emb_dim=16, s1_depth=1, s1_local_patch_size=2, s1_global_k=2, "
        "s2_emb_dim=16, s2_depth=1, s2_local_patch_size=2, s2_global_k=2, s3_emb_dim=32, s3_depth=1, "
        "s3_local_patch_size=2, s3_global_k=2, s4_emb_dim=32, s4_depth=1, s4_local_patch_size=1, s4_global_k=1",
        _IMG64, DYNAMIC_BHW),
    _vp("vp_xcit", "XCiT (cross-covariance attention, local patch interaction)", "xcit", "XCiT",
        f"image_size=32, patch_size=8, cls_depth=1, {_VIT}"),
    _vp("vp_vivit", "ViViT (factorized encoder, 4 frames of 32 px)", "vivit", "ViViT",
        "image_size=32, frames=4, image_patch_size=8, frame_patch_size=2, num_classes=10, dim=32, spatial_depth=1, "
        "temporal_depth=1, heads=2, mlp_dim=64, dim_head=16", _CLIP),
    _vp("vp_vit_1d", "ViT-1D (a 3-channel sequence of 64 samples)", "vit_1d", "ViT",
        f"seq_len=64, patch_size=8, {_VIT}", "1, 3, 64"),
    Spec("vp_learnable_memory", "vit-pytorch learnable-memory ViT adapter (2 memory tokens a layer)",
         f"from {_VP}.learnable_memory_vit import Adapter, ViT",
         f"Adapter(vit=ViT(image_size=32, patch_size=8, {_VIT}), num_memories_per_layer=2, num_classes=5)",
         "return self.m(x)", _IMG32, DYNAMIC_B),
    _vp("vp_hyper_connections", "SimpleViT with hyper-connections (4 residual streams)",
        "simple_vit_with_hyper_connections", "SimpleViT", f"image_size=32, patch_size=8, num_residual_streams=4, "
        f"{_VIT}"),
    _vp("vp_vit_5", "ViT-5 (registers, 2-D rotary positions, layer scale)", "vit_5", "ViT",
        f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_jumbo_vit", "Jumbo ViT (a 6x wide class token)", "jumbo_vit", "JumboViT",
        f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_simple_uvit", "SimpleUViT (U-shaped skip connections over layers)", "simple_uvit", "SimpleUViT",
        f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_jet_vit", "JetViT", "jet_vit", "JetViT", f"image_size=32, patch_size=8, window_size=2, {_VIT}"),
    _vp("vp_max_vit_registers", "MaxViT with register tokens", "max_vit_with_registers", "MaxViT",
        "num_classes=10, dim=16, depth=(1, 1), dim_head=8, window_size=2, dropout=0.0", _IMG32, DYNAMIC_BHW),
    _vp("vp_vit_detpool", "ViT with detection-style pooling", "vit_detpool", "ViTDetPool",
        f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_dca_attn_residual", "SimpleViT with attention residuals and DCA (nn.RMSNorm throughout)",
        "attn_residual_with_dca_simple_vit", "SimpleViT", "image_size=32, patch_size=8, num_classes=10, dim=32, "
        "depth=2, heads=2, dim_head=16, mlp_dim=64"),
    _vp("vp_attn_residual", "SimpleViT with attention over earlier layers' outputs", "simple_vit_attn_residual",
        "SimpleViTAttnResidual", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_vit_nd_pope", "ViT-ND with PoPE positions (2-D)", "vit_nd_pope", "ViTND",
        "ndim=2, input_shape=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16"),
    _vp("vp_vivit_moss", "ViViT with MoSS (local spatio-temporal mixing, 4 frames of 32 px)", "vivit_with_moss",
        "ViViT", "image_size=32, frames=4, image_patch_size=8, frame_patch_size=2, num_classes=10, dim=32, "
        "spatial_depth=1, temporal_depth=1, heads=2, mlp_dim=64, dim_head=16, moss_hidden_dim=16", _CLIP),
    _vp("vp_sparse_gating", "SimpleViT with sparse gating of attention outputs", "simple_vit_with_sparse_gating",
        "SimpleViTWithSparseGating", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_orthog_residual", "SimpleViT with orthogonal residual updates (in double precision)",
        "simple_vit_orthog_residual_update", "SimpleViT", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_qk_norm", "SimpleViT with query-key normalization", "simple_vit_with_qk_norm", "SimpleViT",
        f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_value_residual", "SimpleViT with value residual learning", "simple_vit_with_value_residual",
        "SimpleViT", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_wwt", "WWT (slot tokens)", "wwt", "WWT",
        "image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, num_slots=4, heads=2, dim_head=16, "
        "mlp_dim=64"),
    _vp("vp_simple_vit_3d", "SimpleViT-3D (4 frames of 32 px)", "simple_vit_3d", "SimpleViT",
        f"image_size=32, image_patch_size=8, frames=4, frame_patch_size=2, {_VIT}", _CLIP),
    _vp("vp_cct_3d", "CCT-3D (convolutional tokenizer over frames, sequence pooling; 4 frames of 32 px)", "cct_3d",
        "CCT", "img_size=32, num_frames=4, embedding_dim=32, n_conv_layers=1, kernel_size=3, stride=1, padding=1, "
        "pooling_kernel_size=3, pooling_stride=2, pooling_padding=1, num_layers=1, num_heads=2, mlp_ratio=2.0, "
        "num_classes=10, positional_embedding='sine'", _CLIP),
    _vp("vp_vit_3d", "ViT-3D (4 frames of 32 px)", "vit_3d", "ViT",
        f"image_size=32, image_patch_size=8, frames=4, frame_patch_size=2, {_VIT}", _CLIP),
    _vp("vp_simple_vit_1d", "SimpleViT-1D (a 3-channel sequence of 64 samples)", "simple_vit_1d", "SimpleViT",
        f"seq_len=64, patch_size=8, {_VIT}", "1, 3, 64"),
    _vp("vp_vit_nd", "ViT-ND (2-D)", "vit_nd", "ViTND",
        "ndim=2, input_shape=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16"),
    _vp("vp_flash_attn", "SimpleViT with flash attention (scaled_dot_product_attention)", "simple_flash_attn_vit",
        "SimpleViT", f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_keel_post_ln", "ViT with Keel post-LN residual scaling", "vit_with_keel_post_ln", "ViT",
        f"image_size=32, patch_size=8, {_VIT}"),
    _vp("vp_specialized_cls", "SimpleViT with a specialized class-token projection", "simple_vit_with_specialized_cls",
        "SimpleViT", f"image_size=32, patch_size=8, specialize_qkv_depth=1, {_VIT}"),
    _vp("vp_looped_vit", "looped ViT (blocks applied in a loop, 2 loops)", "looped_vit", "LoopedViT",
        "num_classes=10, dim=32, image_size=32, patch_size=8, pre_loop_depth=1, num_looped_blocks=1, "
        "post_loop_depth=1, loop_depth=2, heads=2, dim_head=16, mlp_dim=64"),
    # timm: ViT-like families no zoo ran.
    _timm("timm_beitv2", "beitv2 (relative position bias tables, layer scale)",
          f'"beitv2_base_patch16_224", {_TIMM_VIT}', config=DYNAMIC_B),
    _timm("timm_samvit", "SAM ViT (windowed attention, decomposed relative positions, neck)",
          f'"samvit_base_patch16", {_TIMM_VIT}, window_size=2, global_attn_indexes=(1,)', config=DYNAMIC_B),
    _timm("timm_hiera", "Hiera (mask units, unrolled tokens, pooled queries)",
          '"hiera_tiny_224", pretrained=False, num_classes=10, img_size=64, embed_dim=32, num_heads=1, '
          "stages=(1, 1, 1, 1)", config=DYNAMIC_B),
    _timm("timm_sam2_hiera", "SAM2 Hiera (windowed, pooled, absolute position interpolated)",
          '"sam2_hiera_tiny", pretrained=False, num_classes=10, embed_dim=32, num_heads=1'),
    _timm("timm_mobilevit_xxs", "mobilevit_xxs (unfolded patches through transformers)",
          '"mobilevit_xxs", pretrained=False, num_classes=10'),
    _timm("timm_shvit", "shvit_s1 (single-head attention)", '"shvit_s1", pretrained=False, num_classes=10'),
    _timm("timm_swiftformer", "swiftformer_xs (efficient additive attention)",
          '"swiftformer_xs", pretrained=False, num_classes=10'),
    _timm("timm_visformer", "visformer_tiny (vision-friendly transformer)",
          '"visformer_tiny", pretrained=False, num_classes=10, img_size=64', config=DYNAMIC_B),
    _timm("timm_vitamin", "ViTamin small (MBConv stages then a ViT)",
          '"vitamin_small_224", pretrained=False, num_classes=10, img_size=64, depth=2', config=DYNAMIC_B),
    _timm("timm_efficientvim", "EfficientViM-M1 (hidden-state mixer state space duality)",
          '"efficientvim_m1", pretrained=False, num_classes=10'),
    _timm("timm_qwen3_vit", "Qwen3 ViT (2-D rotary, patch merger; 2 blocks of 64)",
          '"qwen3_vit_88m", pretrained=False, num_classes=10, embed_dim=64, depth=2, num_heads=2'),
    _timm("timm_gemma4_vit", "Gemma4 ViT (2-D rotary, pooler; 2 blocks of 64)",
          '"gemma4_vit_167m", pretrained=False, num_classes=10, embed_dim=64, depth=2, num_heads=2'),
    _timm("timm_deepseek_vit", "DeepSeek ViT (2 blocks of 64)",
          '"deepseek_vit_412m", pretrained=False, num_classes=10, embed_dim=64, depth=2, num_heads=2', "1, 3, 56, 56"),
    _timm("timm_iformer", "iFormer-T", '"iformer_t", pretrained=False, num_classes=10'),
    _timm("timm_lowformer", "LowFormer-B0", '"lowformer_b0", pretrained=False, num_classes=10'),
    _timm("timm_deit_distilled", "DeiT tiny distilled (class and distillation tokens)",
          f'"deit_tiny_distilled_patch16_224", {_TIMM_VIT}', config=DYNAMIC_B),
    _timm("timm_vit_hybrid", "ViT-hybrid (ResNet-26 stem, then a ViT)",
          f'"vit_small_r26_s32_224", {_TIMM_VIT}', config=DYNAMIC_B),
    _timm("timm_vit_xp", "ViT with parallel scaling blocks, RmsNorm and qk norm",
          f'"vit_base_patch16_xp_224", {_TIMM_VIT}', config=DYNAMIC_B),
    _timm("timm_aimv2", "AIMv2 (RmsNorm, SwiGLU, no class token)",
          '"aimv2_large_patch14_224", pretrained=False, num_classes=10, img_size=56, embed_dim=64, depth=2, '
          "num_heads=2", "1, 3, 56, 56", DYNAMIC_B),
    _timm("timm_csatv2", "CSATv2", '"csatv2", pretrained=False, num_classes=10'),
    _timm("timm_rdnet", "RDNet tiny (densely connected, revisited)", '"rdnet_tiny", pretrained=False, num_classes=10'),
    _timm("timm_hgnetv2", "HGNetV2-B0 (learnable affine blocks)", '"hgnetv2_b0", pretrained=False, num_classes=10'),
    _timm("timm_gernet", "GENet small (byobnet)", '"gernet_s", pretrained=False, num_classes=10'),
    _timm("timm_repghost", "RepGhostNet 0.5", '"repghostnet_050", pretrained=False, num_classes=10'),
    _timm("timm_convnext_rms", "ConvNeXt atto with RmsNorm (norm_layer='rmsnorm')",
          '"convnext_atto", pretrained=False, num_classes=10, norm_layer="rmsnorm"'),
    _timm("timm_rope_mixed", "ViT with mixed (learned per-head) RoPE (eva.py)",
          f'"vit_small_patch16_rope_mixed_224", {_TIMM_VIT}', config=DYNAMIC_B),
    _timm("timm_pe_core", "Perception Encoder core (eva.py: 2-D RoPE, attention pooling)",
          '"vit_pe_core_tiny_patch16_384", pretrained=False, num_classes=10, img_size=64, embed_dim=64, depth=2, '
          "num_heads=2", config=DYNAMIC_B),
    _timm("timm_repvgg", "RepVGG-A0 (byobnet)", '"repvgg_a0", pretrained=False, num_classes=10'),
    _timm("timm_mobileone", "MobileOne-S0 (byobnet)", '"mobileone_s0", pretrained=False, num_classes=10'),
    _timm("timm_rexnet", "ReXNet 1.0", '"rexnet_100", pretrained=False, num_classes=10'),
    _timm("timm_ghostnetv3", "GhostNetV3 0.5", '"ghostnetv3_050", pretrained=False, num_classes=10'),
    _timm("timm_inception_v3", "Inception-v3 (75 px)", '"inception_v3", pretrained=False, num_classes=10',
          "1, 3, 75, 75"),
    _timm("timm_regnety", "RegNetY-200MF", '"regnety_002", pretrained=False, num_classes=10'),
    _timm("timm_levit_conv", "LeViT conv mode (levit_conv_128s)", '"levit_conv_128s", pretrained=False, '
          "num_classes=10, img_size=64", config=DYNAMIC_B),
]

if __name__ == "__main__":
    main(MODELS, "sweep_vit_timm", PINS13)
