"""A sixty-seventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo67.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on vision models deployed for promptable segmentation, video object
tracking and super-resolution: the thirty-first zoo's pins and three libraries by authors whose code no earlier zoo or
sweep ran (``PINS67``: unpacked wheels like the others, never pip-installed): rf-sam-2 1.0.3 (Meta AI's SAM 2, by
Nikhila Ravi and colleagues, github.com/facebookresearch/sam2, as Roboflow packages it, github.com/roboflow/sam2,
Apache-2.0: the Hiera image encoder with its FPN neck, SAM's prompt encoder and mask decoder, the memory attention and
memory encoder of its video tracking, and its image predictor), efficientsam 1.0.0 (EfficientViT-SAM, by Zhuoyang
Zhang, Han Cai and Song Han at MIT HAN Lab, github.com/mit-han-lab/efficientvit, Apache-2.0: SAM's prompt encoder and
mask decoder, from its own copy of segment_anything, on EfficientViT image encoders with a SAM neck, and its predictor;
the wheel names no author) and studiosr 0.1.14 (veritross, github.com/veritross/studiosr, MIT: super-resolution
networks written for the library). SAM 2 here is Meta's own code: the earlier zoos' SAM 2 was transformers' port
(``Sam2Model``), and their SAM was segment-anything's ViT encoder. rf-sam-2's package imports Hydra at import
(``initialize_config_module``, for its YAML configs) and its Hiera module imports iopath (a weights path); studiosr's
package imports its trainer and evaluator, whose helpers import gdown (downloads) and scikit-image (SSIM): none is in
the venv and no model here calls into them, so the user's module stands them in with modules that have a module spec
and the imported names as placeholders (Hydra's global state answers that it is initialised), and builds SAM 2 from its
modules in Python with the YAML's values, as a user without Hydra does. efficientsam imports only torch, torchvision
and NumPy; OpenCV, einops and timm (studiosr's) come from the venv and ``PINS31``. No compiled code in the three wheels
(rf-sam-2's optional CUDA connected components, ``sam2._C``, is not in the wheel, and its hole-filling options that
call it are off by default). Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): sam2 1.1.0
(Meta's own distribution: no wheel in this index, so rf-sam-2's wheel of the same code), unitrack 2.0.1 (no wheel in
this index), trackers 2.6.1 (Roboflow: SORT, ByteTrack, OC-SORT and BoT-SORT in NumPy and SciPy around a user's
detector; its mask tracking wraps rf-segment-anything and rf-cutie: no torch module of its own to export),
backgroundremover 0.4.5 (U²-Net, the family zoo 24 ran), segment-anything-fast 0.1.2 (SAM's ViT again, rewritten for
torch.compile), torch-enhance 0.1.8 (SRCNN, VDSR, ESPCN, EDSR and SRResNet: families earlier SR zoos ran from other
libraries), gfpgan 1.3.8 (face restoration; left for a zoo of its own); transparent-background, cnstd, cnocr, yolox and
the other libraries that earlier zoos dropped, as they found. Zoo 63 passed over efficientsam from the package list
(prompts as a second input): here each wrapper holds fixed prompts, as zoo 2's SAM and zoo 18's SAM-HQ do. Within
rf-sam-2: its automatic mask generator (a grid of prompts, crops, NumPy and run-length post-processing), the video
predictor's own API (``init_state`` reads JPEG folders or a video file into an inference-state dict with per-object
bookkeeping: the chosen trackers call ``track_step`` per frame as its ``propagate_in_video`` does), the VOS-optimised
predictor (torch.compile) and the legacy one, Hiera-S, -B+ and -L (the same modules, deeper and wider), ``build_sam2``
itself (Hydra), the training config. Within efficientsam: EfficientViT-SAM-XL0 (chosen, then dropped after its first
eager runs, before any migrate run: 117 M parameters at its 1024 pixels, 6.6 s a forward of one picture and 12.8 s of
two on one thread, 49 s to build with the calibration, 2.3 GB), XL1 and L2 (deeper still), its automatic mask generator
(NumPy), the ``SamOnnxModel`` of its segment_anything copy (zoo 18 ran segment-anything-hq's; it reads
``image_encoder.img_size``, which EfficientViT's encoder does not have), the predictor's NumPy and PIL resizing (done in
tensors here). Within studiosr: MaxSR's adaptive mode (chosen first, then replaced by its fixed-window mode after the
first eager run, before any migrate run: its adaptive attention builds a new, randomly initialised ``nn.Embedding`` of
relative position biases on every forward, so two forwards of the same input differ, and no checkpoint can set it),
SRCNN, VDSR, ESPCN, EDSR, SRResNet, RCAN and HAN (the plain CNN families earlier SR zoos ran from other libraries),
``inference`` and ``inference_with_self_ensemble`` themselves (NumPy in and out: the chosen SwinIR does ``inference``'s
tensor half), ``from_pretrained`` (downloads), the trainer and evaluator.

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 66
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(a TorchScript-scripted torchvision Resize and Normalize called inside the forward, sizes read from the input and kept
on a predictor object as Python tuples, a Python loop over the batch calling the predictor per picture with an image
index, the predictor's feature-map sizes a hard-coded list the user overrides, ``view`` by those sizes, prompts scaled
by the picture's size, masks upsampled to the picture's size and thresholded to bool, the mask decoder's dynamic
fallback to the multimask output by a stability score (``torch.where`` on masks of areas counted above and below two
thresholds); Hiera's windowed attention with padding to the window and absolute position embeddings interpolated to
the feature map, RoPE attention whose rotation table is recomputed into an attribute when the token count changes,
the video tracker's Python loop over frames with dicts of earlier frames' outputs, memories selected by frame index,
temporal position encodings of object pointers from frame distances, an object score that replaces every mask logit by
-1024 when it is not positive; EfficientViT's linear attention and a SAM neck that resizes every stage to 64 x 64,
SAM's padding of the resized picture to a square by ``F.pad`` with sizes from Python arithmetic on the input's shape
(``int(x + 0.5)``), ``torch.inference_mode`` on the predictor's method, the mask post-processing by two bilinear
resizes and a crop; Swin windows with shifted-window masks computed per forward from the input's size, mirrored
padding by ``flip`` and ``cat`` sliced to a size from the input's, reflection padding, HAT's overlapping cross-attention
by ``unfold``, SwinFIR's ``rfftn``/``irfftn`` with complex tensors built from split channels, IMDN's contrast-aware
channel attention (a standard deviation over the spatial axes), MaxViT's block and grid attention by einops
rearranges, crops of the upscaled output back to scale times the input's size, a cast to uint8). rf-sam-2, SAM 2 at
256 pixels (the checkpoints' 1024 made smaller; the stride-16 map 16 x 16) with the Hiera-T configuration of its YAML
(96 wide, one head, stages of 1, 2, 7 and 2 blocks, global attention in blocks 5, 7 and 9, an FPN neck of 256 with
top-down levels 2 and 3; 39.0 M parameters), the mask decoder's arguments that ``build_sam2`` adds by default (the
dynamic multimask fallback): SAM 2.1's image predictor with one click (three masks, their IoU predictions and
low-resolution logits) and with a box (one mask, with the fallback), each running ``set_image_batch``'s tensor half
(SAM2Transforms' resize and ImageNet normalisation, the backbone, the no-memory embedding) and then ``predict_batch``'s
loop of ``_prep_prompts`` and ``_predict`` per picture; video tracking of one object clicked on the first frame of a
clip through SAM 2.0's and SAM 2.1's configurations (2.1 adds the no-object spatial embedding and signed, projected
temporal encodings of object pointers): each frame resized and normalised, its backbone features, ``track_step`` with
the conditioning frame's and up to 6 previous frames' memories, each frame's memory encoded from its mask; per frame
the mask logits upsampled to the clip's size and the object score. efficientsam: EfficientViT-SAM-L0 (34.8 M) with a
click and a background click (three masks) and EfficientViT-SAM-L1 (47.7 M) with a box (one mask), each at its
512-pixel encoder input, the predictor's ``set_image`` done in tensors (the longest side resized bilinearly, not by
PIL, to ``SamResize``'s shape; normalisation; ``SamPad``), the encoder once for the batch, then ``predict_torch`` per
picture with the prompt moved by ``apply_coords_torch`` / ``apply_boxes_torch``: bool masks at the picture's size and
IoU predictions; ``set_norm_eps(model, 1e-6)`` as ``create_efficientvit_sam_model`` does. studiosr: SwinIR's
lightweight x4 configuration (4 residual Swin groups of 6 blocks, 60 wide, windows of 8, pixel-shuffle-direct
upsampler; 0.93 M) with ``inference``'s tensor half (times 255, rounded, clipped, uint8); HAT x4 (2 groups of 2 hybrid
attention blocks, 60 wide, windows of 16, overlapping cross-attention; 0.74 M); SwinFIR x2 (2 groups of 2 Swin blocks,
60 wide, with spatial-frequency blocks; 0.55 M); IMDN x4 (its published configuration: 64 wide, 6 blocks; 0.72 M);
MaxSR x4 in its fixed-window mode (32 wide, heads of 16, 2 stages of one MaxViT block, windows of 8; 0.19 M).

Each has the dynamic axes a deploying user declares: batch, height and width for the four image segmenters (pictures
of any size: both predictors resize them to the model's input and return masks at their size; 160 to 256 pixels at the
spec's sizes) and the five super-resolution networks (36 to 48 pixels; any size, padded inside); frames, height and
width for the two trackers (a clip of 3 frames of 160 x 192 as one tensor, frames on axis 0). All inputs are in [0,
1). BatchNorm statistics come from the calibration pass for the two EfficientViT-SAMs and MaxSR (their convolutions
have BatchNorm; SAM 2, SwinIR, HAT, SwinFIR and IMDN as built have none). Set-valued outputs: none. Random weights are
left as constructed except one bias: SAM 2's object-score head scores the clicked object absent with random weights
(logits near -0.1 on every frame), and the tracker then replaces every mask logit with -1024, so the user's tracker
raises the head's last bias by 1, as a trained checkpoint scores an object that is there (the image predictors do not
use the object score). The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs, outputs differing across the batch or, for the trackers, across frames) before any migrate
run, with a source tree unpacked by ``fetch_sources`` from ``PINS67`` and ``make_zoo``, each model in its own process
with one thread on the two cores shared with other sessions: at the spec's size, one more in the batch (5 frames for
the trackers) and larger dynamic sizes (288 x 320 and 320 x 288 pictures for SAM 2, 384 x 320 and 320 x 384 for
EfficientViT-SAM, 240 x 320 clips, 64 to 80 pixels for the SR networks). Every import takes about 2 s. Builds take
0.3 s for SAM 2, 9 to 10 s for the EfficientViT-SAMs (the calibration at batches of 4 included), at most 0.2 s for
studiosr's. Forwards at the spec's size, the larger sizes in brackets: SAM 2 image predictors 0.35 to 0.37 s (0.28 to
0.29 s; 0.44 to 0.51 s with a batch of 3), trackers 0.6 s for 3 frames and 0.9 s for 5 (0.52 s), EfficientViT-SAM-L0
1.6 s and L1 1.9 s (2.0 s; 2.9 to 3.4 s with a batch of 3), SwinIR 0.39 s (0.97 s), HAT 0.74 s (0.82 s), SwinFIR 0.11
s (0.28 s), IMDN and MaxSR under 0.15 s. Peak memory: 0.65 GB for a SAM 2 tracker process, about 1 GB for an
EfficientViT-SAM. Changed after the first eager runs, before any migrate run: XL0 and MaxSR's adaptive mode dropped
(above); EfficientViT-SAM's prompts and mask post-processing moved from the 512-pixel encoder frame to SAM's 1024
frame through the predictor (its ``input_size`` is in the 1024 frame: the first wrapper scaled them to the encoder's);
the trackers' object-score bias (above). Odd, left as the libraries have them: SAM2ImagePredictor's feature-map sizes
are a fixed list for 1024 pixels whatever the model's size (the user's module sets the model's), and its transforms
are scripted with ``torch.jit.script`` at construction; RoPEAttention moves its rotation table to CUDA at construction
whenever CUDA is available; with random weights SAM 2's IoU predictions differ across the batch only in the third or
fourth digit (the masks and logits differ plainly), and the 2.0 tracker's masks stay mostly negative; EfficientViT-SAM's
prompt encoder is built for a 1024 frame while the L models' encoders take 512 pixels, so the masks are upsampled to
1024, cropped to the picture's size in that frame and resized to the picture; ``predict_torch`` is decorated with
``torch.inference_mode``, so the masks and scores are inference tensors; SwinIR's evaluation padding always adds a
mirrored margin (a whole window of 8 when a side is already a multiple of 8) and HAT pads by reflection only to the next
multiple of 16; random-weight SR outputs leave [0, 1] (SwinIR's uint8 output is clipped at 0 and 255 in places)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by authors no earlier zoo ran, unpacked wheels like the others
#: (never pip-installed): rf-sam-2 (Meta AI's SAM 2, packaged by Roboflow: promptable image and video segmentation),
#: efficientsam (MIT HAN Lab's EfficientViT-SAM: SAM's prompt encoder and mask decoder on an EfficientViT encoder) and
#: studiosr (veritross: single-image super-resolution networks).
PINS67 = {**PINS31, "rf_sam_2": "1.0.3", "efficientsam": "1.0.0", "studiosr": "0.1.14"}

#: The user's inputs, all in [0, 1): RGB pictures (batch, 3, height, width) and video clips (frames, 3, height, width).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_THW = 'dynamic_axes = { x = { 0 = "frames", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# rf-sam-2's package imports Hydra at import (``initialize_config_module``: its YAML configs) and its Hiera backbone
# imports iopath (``g_pathmgr``, for a weights path); studiosr's package imports its trainer and evaluator, whose
# helpers import gdown (downloads) and scikit-image (SSIM). None of these is in the venv and no model here calls into
# them: the user builds SAM 2 from its modules in Python (as its YAML would, without Hydra), so the user's module stands
# them in with empty modules that have a module spec and the imported names as placeholders.
_GEN = '''import importlib.machinery
import importlib.util
import math


def _stand_in(name, **names):
    """An empty module with a spec, registered under ``name``, holding ``names``."""
    if name not in sys.modules:
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
        module.__dict__.update(names)
        sys.modules[name] = module
    return sys.modules[name]


def _unavailable(*args, **kwargs):
    raise RuntimeError("a stand-in of the zoo: this library is not installed")


class _NoHydra:
    """Hydra's global state as SAM 2's package asks for it: already initialised, so nothing is composed."""

    @staticmethod
    def instance():
        return _NoHydra()

    def is_initialized(self):
        return True


_stand_in("hydra", initialize_config_module=_unavailable, compose=_unavailable)
_stand_in("hydra.core")
_stand_in("hydra.core.global_hydra", GlobalHydra=_NoHydra)
_stand_in("hydra.utils", instantiate=_unavailable)
_stand_in("iopath")
_stand_in("iopath.common")
_stand_in("iopath.common.file_io", g_pathmgr=None)
_stand_in("gdown", download=_unavailable)
_stand_in("skimage")
_stand_in("skimage.metrics", structural_similarity=_unavailable)

import torch.nn.functional as F

from sam2.modeling.backbones.hieradet import Hiera
from sam2.modeling.backbones.image_encoder import FpnNeck, ImageEncoder
from sam2.modeling.memory_attention import MemoryAttention, MemoryAttentionLayer
from sam2.modeling.memory_encoder import CXBlock, Fuser, MaskDownSampler, MemoryEncoder
from sam2.modeling.position_encoding import PositionEmbeddingSine
from sam2.modeling.sam.transformer import RoPEAttention
from sam2.modeling.sam2_base import SAM2Base
from sam2.sam2_image_predictor import SAM2ImagePredictor

from efficientsam.models.efficientvit.sam import (EfficientViTSamPredictor, SamPad, SamResize, efficientvit_sam_l0,
                                                  efficientvit_sam_l1)
from efficientsam.models.nn.norm import set_norm_eps
from efficientsam.segment_anything.utils.transforms import ResizeLongestSide

from studiosr.models import HAT, IMDN, MaxSR, SwinFIR, SwinIR

#: SAM 2's resolution here (the checkpoints' is 1024): the backbone's stride-16 map is 16 x 16.
SAM2_SIZE = 256


def sam2_tiny(version="2.1", size=SAM2_SIZE):
    """SAM 2.1 Hiera-T as ``configs/sam2.1/sam2.1_hiera_t.yaml`` builds it, module by module (the YAML's values, its
    resolution made smaller), with the mask decoder's arguments that ``build_sam2`` adds by default
    (``apply_postprocessing``: fall back to the multimask outputs when the single mask is not stable)."""
    stride16 = size // 16
    trunk = Hiera(embed_dim=96, num_heads=1, stages=[1, 2, 7, 2], global_att_blocks=[5, 7, 9],
                  window_pos_embed_bkg_spatial_size=[7, 7])
    neck = FpnNeck(position_encoding=PositionEmbeddingSine(num_pos_feats=256, normalize=True, scale=None,
                                                           temperature=10000),
                   d_model=256, backbone_channel_list=[768, 384, 192, 96], fpn_top_down_levels=[2, 3],
                   fpn_interp_model="nearest")
    encoder = ImageEncoder(trunk=trunk, neck=neck, scalp=1)

    def rope(**extra):
        return RoPEAttention(rope_theta=10000.0, feat_sizes=[stride16, stride16], embedding_dim=256, num_heads=1,
                             downsample_rate=1, dropout=0.1, **extra)

    layer = MemoryAttentionLayer(activation="relu", dim_feedforward=2048, dropout=0.1, pos_enc_at_attn=False,
                                 self_attention=rope(), d_model=256, pos_enc_at_cross_attn_keys=True,
                                 pos_enc_at_cross_attn_queries=False,
                                 cross_attention=rope(rope_k_repeat=True, kv_in_dim=64))
    memory_attention = MemoryAttention(d_model=256, pos_enc_at_input=True, layer=layer, num_layers=4)
    memory_encoder = MemoryEncoder(
        out_dim=64,
        position_encoding=PositionEmbeddingSine(num_pos_feats=64, normalize=True, scale=None, temperature=10000),
        mask_downsampler=MaskDownSampler(kernel_size=3, stride=2, padding=1),
        fuser=Fuser(CXBlock(dim=256, kernel_size=7, padding=3, layer_scale_init_value=1e-6, use_dwconv=True),
                    num_layers=2))
    new = version == "2.1"
    return SAM2Base(
        encoder, memory_attention, memory_encoder, num_maskmem=7, image_size=size, sigmoid_scale_for_mem_enc=20.0,
        sigmoid_bias_for_mem_enc=-10.0, use_mask_input_as_output_without_sam=True, directly_add_no_mem_embed=True,
        no_obj_embed_spatial=new, use_high_res_features_in_sam=True, multimask_output_in_sam=True,
        iou_prediction_use_sigmoid=True, use_obj_ptrs_in_encoder=True, add_tpos_enc_to_obj_ptrs=new,
        proj_tpos_enc_in_obj_ptrs=new, use_signed_tpos_enc_to_obj_ptrs=new, only_obj_ptrs_in_the_past_for_eval=True,
        pred_obj_scores=True, pred_obj_scores_mlp=True, fixed_no_obj_ptr=True, multimask_output_for_tracking=True,
        use_multimask_token_for_obj_ptr=True, multimask_min_pt_num=0, multimask_max_pt_num=1,
        use_mlp_for_obj_ptr_proj=True, compile_image_encoder=False,
        sam_mask_decoder_extra_args={"dynamic_multimask_via_stability": True,
                                     "dynamic_multimask_stability_delta": 0.05,
                                     "dynamic_multimask_stability_thresh": 0.98})


class SAM2Prompted(torch.nn.Module):
    """SAM 2's image predictor as an app runs it on a batch of pictures with one prompt each: ``set_image_batch``'s
    tensor half (SAM2Transforms' resize to the model's resolution and ImageNet normalisation, the backbone, the
    no-memory embedding added to the lowest-resolution features), then ``predict_batch``'s loop over the pictures,
    each ``_predict`` with the prompt given in normalised coordinates: masks upsampled to the picture's size and
    thresholded, the IoU predictions and the low-resolution logits. A click at (0.45, 0.55) of the picture, or a box
    around its centre."""

    def __init__(self, model, box=False, multimask=True):
        super().__init__()
        self.model = model
        self.predictor = SAM2ImagePredictor(model)
        # The predictor's feature sizes are those of a 1024-pixel model: the user's are the backbone's at its size.
        size = model.image_size
        self.predictor._bb_feat_sizes = [(size // 4, size // 4), (size // 8, size // 8), (size // 16, size // 16)]
        self.transforms = self.predictor._transforms
        self.box = box
        self.multimask = multimask

    def forward(self, x):
        predictor = self.predictor
        predictor.reset_predictor()
        images = self.transforms.transforms(x)
        backbone_out = self.model.forward_image(images)
        _, vision_feats, _, _ = self.model._prepare_backbone_features(backbone_out)
        if self.model.directly_add_no_mem_embed:
            vision_feats[-1] = vision_feats[-1] + self.model.no_mem_embed
        batch = x.shape[0]
        feats = [feat.permute(1, 2, 0).view(batch, -1, *size)
                 for feat, size in zip(vision_feats[::-1], predictor._bb_feat_sizes[::-1])][::-1]
        predictor._features = {"image_embed": feats[-1], "high_res_feats": feats[:-1]}
        predictor._orig_hw = [tuple(x.shape[-2:])] * batch
        predictor._is_image_set = True
        predictor._is_batch = True
        masks, scores, logits = [], [], []
        for index in range(batch):
            if self.box:
                box = torch.tensor([0.25, 0.3, 0.7, 0.8])
                mask_input, coords, labels, box = predictor._prep_prompts(None, None, box, None, True, index)
            else:
                point, label = torch.tensor([[0.45, 0.55]]), torch.tensor([1])
                mask_input, coords, labels, box = predictor._prep_prompts(point, label, None, None, True, index)
            mask, score, logit = predictor._predict(coords, labels, box, mask_input, self.multimask, img_idx=index)
            masks.append(mask.squeeze(0))
            scores.append(score.squeeze(0))
            logits.append(logit.squeeze(0))
        return torch.stack(masks), torch.stack(scores), torch.stack(logits)


class SAM2Tracker(torch.nn.Module):
    """SAM 2's video tracking of one object through a clip, as its video predictor runs it frame by frame (here on a
    clip given as one tensor, without the predictor's frame loading and inference-state dicts): every frame resized
    to the model's resolution and normalised, its backbone features, a click at (0.45, 0.55) on the first frame (the
    conditioning frame, its multimask output), then ``track_step`` on each later frame, attending to the memories of
    the conditioning frame and of up to 6 previous frames and to their object pointers, each frame's memory encoded
    from its predicted mask; every frame's mask logits upsampled to the clip's size, and its object score."""

    def __init__(self, model):
        super().__init__()
        # Random weights score the object absent (logits near -0.1), and SAM 2 then replaces every mask with -1024:
        # the object-score head's last bias is raised by 1, so that the clicked object is present, as a trained
        # checkpoint scores it.
        with torch.no_grad():
            model.sam_mask_decoder.pred_obj_score_head.layers[-1].bias += 1.0
        self.model = model
        self.transforms = SAM2ImagePredictor(model)._transforms

    def forward(self, frames):
        model = self.model
        num_frames = frames.shape[0]
        height, width = frames.shape[-2:]
        output_dict = {"cond_frame_outputs": {}, "non_cond_frame_outputs": {}}
        masks, scores = [], []
        for index in range(num_frames):
            image = self.transforms.transforms(frames[index:index + 1])
            backbone_out = model.forward_image(image)
            _, vision_feats, vision_pos, feat_sizes = model._prepare_backbone_features(backbone_out)
            point_inputs = None
            if index == 0:
                coords = self.transforms.transform_coords(torch.tensor([[[0.45, 0.55]]]))
                point_inputs = {"point_coords": coords, "point_labels": torch.tensor([[1]], dtype=torch.int32)}
            out = model.track_step(frame_idx=index, is_init_cond_frame=index == 0, current_vision_feats=vision_feats,
                                   current_vision_pos_embeds=vision_pos, feat_sizes=feat_sizes,
                                   point_inputs=point_inputs, mask_inputs=None, output_dict=output_dict,
                                   num_frames=num_frames, track_in_reverse=False, run_mem_encoder=True)
            kind = "cond_frame_outputs" if index == 0 else "non_cond_frame_outputs"
            output_dict[kind][index] = out
            masks.append(F.interpolate(out["pred_masks"], size=(height, width), mode="bilinear",
                                       align_corners=False)[0])
            scores.append(out["object_score_logits"][0])
        return torch.stack(masks), torch.stack(scores)


class EfficientViTSAMPrompted(torch.nn.Module):
    """EfficientViT-SAM as its predictor runs on a batch of pictures, the NumPy and PIL steps done in tensors:
    ``set_image`` (the longest side resized to the encoder's input size with ``SamResize``'s shape, bilinear, the
    transform's normalisation constants, ``SamPad`` to a square; the picture's size and its size in SAM's 1024 frame
    kept on the predictor), the EfficientViT image encoder once for the batch, then per picture ``predict_torch``
    (SAM's prompt encoder and mask decoder, ``postprocess_masks`` to the picture's size, masks thresholded at 0) with
    the prompt moved to SAM's frame by ``apply_coords_torch`` / ``apply_boxes_torch``: a click at (0.45, 0.55) of the
    picture and a background click at (0.9, 0.1), or a box around the centre. Masks and IoU predictions."""

    def __init__(self, model, box=False, multimask=True):
        super().__init__()
        set_norm_eps(model, 1e-6)  # what create_efficientvit_sam_model sets on every norm layer
        self.model = model
        self.predictor = EfficientViTSamPredictor(model)
        self.box = box
        self.multimask = multimask
        self.register_buffer("mean", torch.tensor([123.675, 116.28, 103.53]).view(1, 3, 1, 1) / 255)
        self.register_buffer("std", torch.tensor([58.395, 57.12, 57.375]).view(1, 3, 1, 1) / 255)

    def forward(self, x):
        model, predictor = self.model, self.predictor
        predictor.reset_image()
        height, width = x.shape[-2:]
        size = model.image_size[1]
        predictor.original_size = (height, width)
        predictor.input_size = ResizeLongestSide.get_preprocess_shape(height, width,
                                                                      long_side_length=model.image_size[0])
        image = F.interpolate(x, size=SamResize.get_preprocess_shape(height, width, size), mode="bilinear",
                              align_corners=False)
        image = SamPad(size)((image - self.mean) / self.std)
        predictor.features = model.image_encoder(image)
        predictor.is_image_set = True
        scale = torch.tensor([width, height], dtype=torch.float32)
        if self.box:
            box = predictor.apply_boxes_torch(torch.tensor([[0.25, 0.3, 0.7, 0.8]]) * scale.repeat(2))
            coords = labels = None
        else:
            box = None
            coords = predictor.apply_coords_torch(torch.tensor([[[0.45, 0.55], [0.9, 0.1]]]) * scale)
            labels = torch.tensor([[1, 0]])
        masks, scores = [], []
        for index in range(x.shape[0]):
            mask, score, _ = predictor.predict_torch(coords, labels, box, None, self.multimask, image_index=index)
            masks.append(mask[0])
            scores.append(score[0])
        return torch.stack(masks), torch.stack(scores)


class SuperResolve8Bit(torch.nn.Module):
    """studiosr's ``Model.inference`` in tensors (the NumPy conversions left out): the network on pictures in [0,
    1], then back to 8-bit pixels: scaled by 255, rounded, clipped to 0-255 and cast to uint8."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        scale = 255.0 if self.model.img_range == 1.0 else 1.0
        output = self.model(x) * scale
        return output.round().clip(0, 255).to(torch.uint8)'''

MODELS67 = [
    # rf-sam-2: SAM 2 on pictures and on a clip.
    Spec("sam2_1_tiny_click", "rf-sam-2 SAM 2.1 Hiera-T (256 px) image predictor: one click, three masks, per-picture "
         "predict loop, masks at the picture's size", _GEN, "SAM2Prompted(sam2_tiny())", "return self.m(x)",
         "2, 3, 192, 160", _BHW),
    Spec("sam2_1_tiny_box", "rf-sam-2 SAM 2.1 Hiera-T (256 px) image predictor: a box, one mask with the dynamic "
         "multimask fallback on stability", _GEN, "SAM2Prompted(sam2_tiny(), box=True, multimask=False)",
         "return self.m(x)", "2, 3, 160, 224", _BHW),
    Spec("sam2_0_tiny_video_tracker", "rf-sam-2 SAM 2 (2.0) Hiera-T (256 px): one clicked object tracked through a "
         "clip, memory attention over 7 memories and object pointers, memory encoder per frame", _GEN,
         'SAM2Tracker(sam2_tiny(version="2.0"))', "return self.m(x)", "3, 3, 160, 192", _THW),
    Spec("sam2_1_tiny_video_tracker", "rf-sam-2 SAM 2.1 Hiera-T (256 px): one clicked object tracked through a clip, "
         "signed temporal encodings of object pointers, no-object spatial embedding", _GEN,
         "SAM2Tracker(sam2_tiny())", "return self.m(x)", "3, 3, 160, 192", _THW),
    # efficientsam: EfficientViT-SAM.
    Spec("efficientvit_sam_l0_clicks", "efficientsam EfficientViT-SAM-L0 (512 px): a click and a background click, "
         "three masks at the picture's size", _GEN, "EfficientViTSAMPrompted(efficientvit_sam_l0())",
         "return self.m(x)", "2, 3, 192, 256", _BHW, calibrate="self.m(xb)"),
    Spec("efficientvit_sam_l1_box", "efficientsam EfficientViT-SAM-L1 (512 px): a box, one mask at the picture's size",
         _GEN, "EfficientViTSAMPrompted(efficientvit_sam_l1(), box=True, multimask=False)", "return self.m(x)",
         "2, 3, 256, 192", _BHW, calibrate="self.m(xb)"),
    # studiosr: super-resolution.
    Spec("studiosr_swinir_light_x4_uint8", "studiosr SwinIR lightweight x4 (4 RSTBs of 60, windows of 8, mirrored "
         "padding, pixel-shuffle-direct) with its inference's 8-bit output", _GEN,
         'SuperResolve8Bit(SwinIR(scale=4, embed_dim=60, depths=[6, 6, 6, 6], num_heads=[6, 6, 6, 6], '
         'upsampler="pixelshuffledirect"))', "return self.m(x)", "2, 3, 36, 44", _BHW),
    Spec("studiosr_hat_x4", "studiosr HAT x4 (small: 2 groups of 2 hybrid attention blocks of 60, windows of 16, "
         "overlapping cross-attention, channel attention)", _GEN,
         "HAT(scale=4, embed_dim=60, depths=[2, 2], num_heads=[6, 6])", "return self.m(x)", "2, 3, 40, 36", _BHW),
    Spec("studiosr_swinfir_x2", "studiosr SwinFIR x2 (small: 2 RSTBs of 60 with spatial-frequency blocks, FFT "
         "convolutions)", _GEN, "SwinFIR(scale=2, embed_dim=60, depths=[2, 2], num_heads=[6, 6])", "return self.m(x)",
         "2, 3, 36, 44", _BHW),
    Spec("studiosr_imdn_x4", "studiosr IMDN x4 (6 information multi-distillation blocks, contrast-aware channel "
         "attention)", _GEN, "IMDN(scale=4)", "return self.m(x)", "2, 3, 48, 40", _BHW),
    Spec("studiosr_maxsr_x4", "studiosr MaxSR x4 (MaxViT blocks: MBConv, block and grid attention in windows of 8 "
         "after reflection padding; hierarchical feature fusion)", _GEN,
         "MaxSR(scale=4, adaptive=False, dim=32, dim_head=16, depth=[1, 1])", "return self.m(x)",
         "2, 3, 36, 44", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS67, "real_zoo67", PINS67)
