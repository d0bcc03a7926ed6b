"""A thirty-third real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo33.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in stereo depth, point clouds and image restoration: the thirty-first
zoo's libraries and pins and three more libraries by three other authors, whose code no earlier zoo or sweep ran
(``PINS33``: unpacked wheels like the others, never pip-installed): stereo-matching 0.2.0 (by shriarul5273, a
Transformers-style library porting RAFT-Stereo, CREStereo, IGEV-Stereo, IGEV++, S2M2, UniMatch, AANet and
FoundationStereo behind configuration classes; torch, torchvision, timm, einops and huggingface_hub for its models,
its Open3D, Matplotlib and ONNX Runtime only in its viewer, export and quantisation modules), point-transformer-pytorch
0.1.5 (Phil Wang's Point Transformer layers: vector attention over relative positions, k nearest neighbours by topk
and gather when fewer than the points, masks; torch and einops) and dblur 1.0.0 (Jishnu Parayil Shibu's DBlur image
deblurring toolkit: MSCNN, SRN, DMPHN and StackDMPHN, NAFNet, FNAFNet, Restormer and TextDBN; torch and torchvision
for its models, TensorBoard and torchmetrics only in its trainers). Nothing new in the ``bench`` extra. Considered and
dropped before any model was chosen (by the wheel's files, metadata and imports): pwcnet 0.2 (Keunhong Park's
PWC-Net port: its correlation is a CuPy CUDA kernel), nafnetlib 0.1.0 and neuro-deblur 0.1.1 (NAFNet again, the first
pinning torch 2.5 at most, the second downloading its weights), syncnet-python 0.2.3 (its pipeline needs scenedetect,
python_speech_features and ffmpeg-python, none in the venv), slowfast 1.0 (detectron2 and PyAV); within
stereo-matching, AANet (its deformable convolutions call torchvision's compiled ``deform_conv2d``, which the
stand-ins do not provide) and FoundationStereo (its constructor fetches a pretrained timm EdgeNeXt from the Hub);
and the libraries zoos 15 to 31 dropped, as they found. Zoo 32 (built at the same time) picks none of these.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 31
or in the library sweeps (benchmarks/sweep_*.py), all 20 from the three new libraries and at least 15 of the kinds
that most often need work for an ONNX or TensorRT deployment (recurrent refinement loops in Python, coordinate grids
from meshgrid and linspace per input size, correlation lookups by grid_sample with coordinates normalised by the
map's size, in-place writes into slices, ``torch.tensor`` of a shape value, input padding to a multiple of 32
computed from the size, soft-argmin over disparity volumes, a Python branch on the point count before ``topk``,
distances filled with the dtype's largest value under a mask, einops rearrange and repeat, images split into patches
by slices of their size, torchvision ``Resize`` to sizes computed from the input, a hidden state cached on a module in
``forward``, ``rfft2`` and ``irfft2``). Stereo depth, from stereo-matching, on a left and right image stacked on the
channel axis (six channels), random weights from the library's configuration classes, hidden widths 32 and two
refinement iterations: RAFT-Stereo standard, realtime (shared backbone, 1/8 resolution), Middlebury (slow-fast GRU)
and with the library's pure-PyTorch alternate correlation; CREStereo (the user calls the network itself on images in
[0, 255] with 4 iterations at the finest level: the library's wrapper runs 10); IGEV-Stereo (disparities up to 64)
and IGEV++ with their timm MobileNetV2 backbones (random); S2M2 (32 feature channels, one refinement); UniMatch
(GMStereo: 32 channels, one transformer layer, one scale). Point clouds, from point-transformer-pytorch, on rows of 32
features then x, y and z: the layer with 8 neighbours, over all pairs, with 6 neighbours and a mask of valid points
(a 36th column over 0.2), and the multi-head layer with 8 neighbours. Deblurring, from dblur, small widths: MSCNN on
the user's three-scale pyramid by interpolation, SRN (three scales; the user clears the first layer's cached hidden
state before each call, without which a second input size fails), DMPHN 1-2-4-8, StackDMPHN with two stacks of three
levels, NAFNet and FNAFNet (width 8, one block per level), Restormer (three levels, widths 8 to 32). None is
calibrated (no model here picks by scores that random BatchNorm statistics could tie); no output is set-valued.

Each is small and has the dynamic axes a deploying user declares: height and width for the stereo models (the library
pads or needs multiples of 32), batch, height and width for the deblurring models, the points' count for the point
layers, with the batch as well for three of them. Machinery, table and counts are real_zoo2.py's. The wrappers were
checked only for building and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the
spec's, and one 32 px larger on each dynamic image axis, 16 more points, and one more item where the batch is dynamic)
before the first migrate run: with one thread on the shared two cores, each in its own process, a forward at the spec's
size took 0.004 to 0.30 s over two full runs (IGEV-Stereo, IGEV++, SRN and DMPHN the slowest, 0.2 to 0.3 s; the point
layers 0.03 s at most) and at most 1.1 s at the larger size (StackDMPHN and DMPHN with two images; IGEV++ 0.48 s);
builds (imports included) took 1.7 to 7.5 s. Changed after the first eager runs, before any migrate run: sizes were cut
where a forward took over 0.4 s (RAFT-Stereo standard and S2M2 from 64 x 96 to 32 x 64, IGEV++ from 64 x 96 to 64 x 64,
DMPHN and SRN from 64 x 64 to 32 x 64); RAFT-Stereo realtime went from 64 x 96 to 128 x 128 and Middlebury from 64 x 32
to 32 x 64 (their correlation pyramids pooled a width down to nothing: an error eagerly); IGEV-Stereo with a maximum
disparity of 48 at 128 x 128 failed eagerly (tensors of sizes 4 and 3 concatenated) and now runs with 64 at 64 x 64;
UniMatch with one scale was given one-entry split and radius lists (the library asserts one per scale); CREStereo
through the library's wrapper (10 iterations, 0.47 s at 32 x 32) was replaced by the user's call of the network with 4;
AANet (see above) was dropped; a second masked multi-head point layer was dropped to keep 20."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): stereo_matching (shriarul5273's Transformers-style stereo library: RAFT-Stereo, CREStereo, IGEV,
#: IGEV++, S2M2 and UniMatch as the library ports them; torch, torchvision, timm, einops, huggingface_hub),
#: point_transformer_pytorch (Phil Wang's Point Transformer layers: k nearest neighbours by topk and gather; torch
#: and einops) and dblur (Jishnu Parayil Shibu's image deblurring toolkit: MSCNN, SRN, DMPHN, NAFNet, FNAFNet,
#: Restormer, TextDBN; torch and torchvision for its models).
PINS33 = {**PINS31, "stereo_matching": "0.2.0", "point_transformer_pytorch": "0.1.5", "dblur": "1.0.0"}

#: Stereo pairs: the left and right images stacked on the channel axis (six channels), ImageNet-normalised as the
#: library expects; the output is the disparity map of the left image.
_SM = "import importlib"
_PAIR = "return self.m(x[:, :3], x[:, 3:])"


def _sm(module: str, model: str, config: str, kwargs: str) -> str:
    """The library's model class built from its configuration class (random weights, nothing downloaded)."""
    path = f"stereo_matching.models.{module}"
    return (f'importlib.import_module("{path}.modeling_{module}").{model}('
            f'importlib.import_module("{path}.configuration_{module}").{config}({kwargs}))')


_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'

_PT = ("from point_transformer_pytorch import PointTransformerLayer\n"
       "from point_transformer_pytorch.multihead_point_transformer_pytorch import MultiheadPointTransformerLayer")
#: Points as rows: 32 features, then x, y and z.
_PT_FWD = "return self.m(x[..., :32], x[..., 32:35])"
_POINTS = 'dynamic_axes = { x = { 1 = "points" } }'
_BPOINTS = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'

_DB = ("import torch.nn.functional as F\nfrom dblur.models.mscnn import MSCNN\nfrom dblur.models.srn import SRN\n"
       "from dblur.models.stack_dmphn import DMPHN, StackDMPHN, Encoder, Decoder\n"
       "from dblur.models.nafnet import NAFNet\n"
       "from dblur.models.fnafnet import FNAFNet\nfrom dblur.models.restormer import Restormer\n"
       "from dblur.models.textdbn import TextDBN")

MODELS33 = [
    # stereo_matching: disparity from a stereo pair (random weights, the library's configuration classes).
    Spec("sm_raft_stereo_realtime", "stereo_matching RaftStereoModel, the realtime variant (shared backbone, two "
         "GRU levels, 1/8 resolution, slow-fast GRU): a 1D correlation pyramid sampled around the current disparity "
         "each iteration, convex upsampling of the disparity by a learned mask", _SM,
         _sm("raft_stereo", "RaftStereoModel", "RaftStereoConfig",
             'variant="realtime", num_iters=2, hidden_dims=[32, 32, 32]'), _PAIR, "1, 6, 128, 128", _DYNAMIC_HW),
    Spec("sm_raft_stereo", "stereo_matching RaftStereoModel, the standard variant (three GRU levels at 1/4, 1/8 and "
         "1/16, a 1D correlation volume and pyramid by avg-pooling, coordinates from a meshgrid per input size)",
         _SM, _sm("raft_stereo", "RaftStereoModel", "RaftStereoConfig",
                  'variant="standard", num_iters=2, hidden_dims=[32, 32, 32]'), _PAIR, "1, 6, 32, 64", _DYNAMIC_HW),
    Spec("sm_raft_stereo_middlebury", "stereo_matching RaftStereoModel, the Middlebury variant (slow-fast GRU "
         "updates: the coarser levels updated more often than the finest)", _SM,
         _sm("raft_stereo", "RaftStereoModel", "RaftStereoConfig",
             'variant="middlebury", num_iters=2, hidden_dims=[32, 32, 32]'), _PAIR, "1, 6, 32, 64", _DYNAMIC_HW),
    Spec("sm_raft_stereo_alt", "stereo_matching RaftStereoModel with the library's pure-PyTorch alternate "
         "correlation (no volume: features sampled by grid_sample at each level's lookup window, a disparity "
         "window from linspace and meshgrid, centroids scaled in place per level, divided by the square root of "
         "a tensor of the channel count)", _SM,
         _sm("raft_stereo", "RaftStereoModel", "RaftStereoConfig",
             'variant="standard", corr_implementation="alt", num_iters=2, hidden_dims=[32, 32, 32]'), _PAIR,
         "1, 6, 32, 64", _DYNAMIC_HW),
    Spec("sm_crestereo", "stereo_matching CREStereoModel (cascaded recurrent refinement at 1/16, 1/8 and 1/4 "
         "with adaptive group correlation: local search windows by grid_sample around offsets from a deformable "
         "layer, self and cross attention with positional encodings per size); the user calls the network itself on "
         "images in [0, 255] with 4 refinement iterations at the finest level, and keeps the last prediction", _SM,
         _sm("crestereo", "CREStereoModel", "CREStereoConfig", ""),
         "return self.m.net(x[:, :3] * 255, x[:, 3:] * 255, iters=4)[-1][:, 0]", "1, 6, 32, 64", _DYNAMIC_HW),
    Spec("sm_igev_plusplus", "stereo_matching IGEVPlusPlusModel (multi-range geometry encoding volumes: cost "
         "volumes over small, medium and large disparity ranges, a soft-argmin initial disparity, selective GRU "
         "updates; a timm MobileNetV2 backbone, input padded to a multiple of 32)", _SM,
         _sm("igev_plusplus", "IGEVPlusPlusModel", "IGEVPlusPlusConfig", "num_iters=2, hidden_dims=[32, 32, 32]"),
         _PAIR, "1, 6, 64, 64", _DYNAMIC_HW),
    Spec("sm_igev_stereo", "stereo_matching IGEVStereoModel (a group-wise correlation volume regularised by 3D "
         "convolutions, soft-argmin over disparities, ConvGRU updates indexing the geometry volume by "
         "grid_sample; input padded to a multiple of 32)", _SM,
         _sm("igev_stereo", "IGEVStereoModel", "IGEVStereoConfig",
             "num_iters=2, hidden_dims=[32, 32, 32], max_disp=64"),
         _PAIR, "1, 6, 64, 64", _DYNAMIC_HW),
    Spec("sm_s2m2", "stereo_matching S2M2Model (multi-resolution transformer features, optimal-transport matching "
         "of the rows with a dustbin, disparity, confidence and occlusion by refinement iterations)", _SM,
         _sm("s2m2", "S2M2Model", "S2M2Config", "feature_channels=32, refine_iter=1"), _PAIR, "1, 6, 32, 64",
         _DYNAMIC_HW),
    Spec("sm_unimatch", "stereo_matching UniMatchModel (GMStereo: transformer features with split-window "
         "attention, a global 1D correlation softmax for disparity, propagation, convex upsampling)", _SM,
         _sm("unimatch", "UniMatchModel", "UniMatchConfig",
             "feature_channels=32, num_transformer_layers=1, num_scales=1, upsample_factor=8, num_reg_refine=1, "
             "attn_splits_list=[2], corr_radius_list=[-1], prop_radius_list=[-1]"), _PAIR, "1, 6, 64, 64",
         _DYNAMIC_HW),
    # point_transformer_pytorch: vector attention over point clouds, optionally restricted to k nearest neighbours.
    Spec("pt_layer_knn", "point_transformer_pytorch PointTransformerLayer with 8 neighbours (relative positions, "
         "the neighbours by topk of the distances when fewer than the points, gathered by batched index select)",
         _PT, "PointTransformerLayer(dim=32, pos_mlp_hidden_dim=32, attn_mlp_hidden_mult=2, num_neighbors=8)",
         _PT_FWD, "1, 64, 35", _POINTS),
    Spec("pt_layer_dense", "point_transformer_pytorch PointTransformerLayer over all pairs (no neighbour limit)",
         _PT, "PointTransformerLayer(dim=32, pos_mlp_hidden_dim=32, attn_mlp_hidden_mult=2)", _PT_FWD, "2, 48, 35",
         _BPOINTS),
    Spec("pt_multihead_knn", "point_transformer_pytorch MultiheadPointTransformerLayer, 4 heads and 8 neighbours "
         "(einops rearrange and repeat per head, topk neighbours, gather per head)", _PT,
         "MultiheadPointTransformerLayer(dim=32, heads=4, dim_head=8, num_neighbors=8)", _PT_FWD, "1, 40, 35",
         _BPOINTS),
    Spec("pt_layer_knn_mask", "point_transformer_pytorch PointTransformerLayer with 6 neighbours and a mask of the "
         "valid points (pair mask, masked distances filled with the dtype's largest value before topk, masked "
         "attention logits)", _PT, "PointTransformerLayer(dim=32, pos_mlp_hidden_dim=32, num_neighbors=6)",
         "return self.m(x[..., :32], x[..., 32:35], mask=x[..., 35] > 0.2)", "2, 32, 36", _BPOINTS),
    # dblur: deblurring networks (random weights, small widths).
    Spec("db_mscnn", "dblur MSCNN (three scales, coarse to fine, each finer level fed the coarser result "
         "upsampled by a convolution and pixel shuffle); the user's pyramid by interpolation", _DB,
         "MSCNN(res_blocks_per_layer=2, channels_dim=16)",
         "return self.m([x, F.interpolate(x, scale_factor=0.5), F.interpolate(x, scale_factor=0.25)])[0]",
         "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("db_srn", "dblur SRN (scale-recurrent: torchvision Resize to 1/4 and 1/2 of the input's size, a ConvLSTM "
         "whose first hidden state is zeros of the first call's size cached on the layer; the user clears the "
         "cache before each call)", _DB, "SRN(num_of_layers=3, num_of_e_blocks=2)",
         "self.m.layers[0].ini_hidden_state = None\n        return self.m(x)[-1]", "1, 3, 32, 64", DYNAMIC_BHW),
    Spec("db_dmphn", "dblur DMPHN 1-2-4-8 (the image split into halves, quarters and eighths by slices of its "
         "size, an encoder and decoder per patch, features concatenated back level by level)", _DB,
         "DMPHN(encoder=Encoder(), decoder=Decoder(), num_layers=4)", "return self.m(x)[0]", "1, 3, 32, 64",
         DYNAMIC_BHW),
    Spec("db_stack_dmphn", "dblur StackDMPHN, two stacks of a three-level DMPHN (the library's default encoder and "
         "decoder instances shared by every level)", _DB, "StackDMPHN(num_of_stacks=2, num_layers=3)",
         "return self.m(x)[-1]", "1, 3, 32, 64", DYNAMIC_BHW),
    Spec("db_nafnet", "dblur NAFNet (LayerNorm over flattened pixels, SimpleGate by chunks, simplified channel "
         "attention by global pooling, pixel-shuffle up and down sampling)", _DB,
         "NAFNet(projected_in_channels=8, enc_num=[1, 1, 1, 1], middle_num=1, dec_num=[1, 1, 1, 1])",
         "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("db_fnafnet", "dblur FNAFNet (NAFNet blocks with a residual FFT branch: rfft2, a convolution over real "
         "and imaginary parts, irfft2 back to the input's size)", _DB,
         "FNAFNet(projected_in_channels=8, enc_num=[1, 1, 1, 1], middle_num=1, dec_num=[1, 1, 1, 1])",
         "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("db_restormer", "dblur Restormer (transposed multi-head attention across channels, gated depthwise "
         "feed-forward, pixel unshuffle and shuffle between levels)", _DB,
         "Restormer(num_layers=3, num_transformer_blocks=[1, 1, 1], heads=[1, 2, 4], channels=[8, 16, 32], "
         "num_refinement_blocks=1)", "return self.m(x)", "1, 3, 32, 32", DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS33, "real_zoo33", PINS33)
