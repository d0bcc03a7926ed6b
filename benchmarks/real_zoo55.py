"""A fifty-fifth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo55.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on remote sensing and earth observation (multispectral and SAR encoders,
satellite foundation models whose patch embeddings are generated from the bands' wavelengths, bitemporal change
detection, satellite image time series, multi-image aggregation and detection on tiles of many bands): the thirty-first
zoo's pins and two libraries by two other authors, whose code no earlier zoo or sweep ran (``PINS55``: unpacked wheels
like the others, never pip-installed): torchgeo 0.8.1 (Adam J. Stewart, Caleb Robinson, Isaac A. Corley and the TorchGeo
contributors, started at Microsoft's AI for Good lab, github.com/torchgeo/torchgeo: DOFA's dynamic patch embedding,
whose convolution kernels and bias a transformer generates per band from sin-cos encodings of the bands' wavelengths,
given as a Python list and made a tensor in the forward; Copernicus-FM's spectral hypernetwork (Fourier expansions of
wavelengths and bandwidths computed in float64 after a Python range check on tensor values, the generated 16x16 kernels
resized to another patch size by a pseudo-inverse of a resize matrix built in a Python loop of ``F.interpolate`` calls
and applied by ``vmap``, the absolute position embedding resized bicubically with antialiasing to the grid
``int(math.sqrt(n))`` of the token count, Python branches on ``torch.isnan(...).any()`` of the longitude, latitude, time
and area metadata choosing Fourier encodings or learned tokens); CROMA's SAR and optical ViT encoders and
cross-attention joint encoder with 2D ALiBi biases (a buffer for one image size); Panopticon's channel embedding by
boolean-mask indexing and assignment (optical channels by a sin-cos encoding of their wavelength, SAR channels by an
index computed from their negative codes into a table of embeddings, written into the ids tensor it is given) and
cross-attention over any number of channels with a key padding mask, in front of timm's DINOv2 ViT-B/14;
ChangeStar(FarSeg) (torchvision's ResNet and FPN, the foreground-scene relation, ChangeMixin over both temporal orders
split back by batch size, dictionaries of outputs in eval mode); ChangeViT (timm's ViT with ``dynamic_img_size``, a timm
ResNet-18 detail branch, cross-attention onto the token grid from ``int(n ** 0.5)`` through adaptive pooling, a bilinear
resize to the input); ConvLSTM (zero states made from the input's sizes, a Python loop over the time steps of each
layer); its models package imports its datasets and samplers, which import rasterio, geopandas, pyproj and shapely
(compiled, not in the venv) at module level and import 13 names from them (classes and rasterio's ``rasterize``, used in
annotations, as class bases and in class bodies that build pyproj CRS and Transformer objects): used by no model here,
so the user's module stands in those 15 modules with one placeholder class for every imported name, as zoo 50's does for
xxhash with an empty module; kornia, segmentation-models-pytorch, timm and torchvision from the thirty-first zoo's pins,
einops, pandas, matplotlib and pillow from the venv) and satlaspretrain-models 0.3.1 (Satlas at the Allen Institute for
AI, the team of Favyen Bastani's SatlasPretrain, github.com/allenai/satlaspretrain_models: the SatlasPretrain ``Model``
over torchvision's Swin-v2 and ResNet backbones with a first convolution for any number of bands; its
AggregationBackbone's Python loop over the images stacked in the channels by ``range(0, x.shape[1], c)``, a Python skip
of the group's image indices past the images given, the features of each image max-reduced; FPN and Upsample by
transposed convolutions; segmentation, multi-label and Faster R-CNN heads (its NoopTransform batching the images to
multiples of 32, torchvision's RPN, RoIAlign and RoIHeads); requests, which its model module imports for the weight
download, from the venv). Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): torchange 0.0.4
(Zhuo Zheng: ChangeStar variants, ChangeMask, ChangeSparse, AnyChange over SAM; its package ``__init__`` imports every
dataset and module, and with them albumentations, scikit-image, tifffile, Hugging Face datasets and the author's
``ever`` framework, none in the venv: too much to stand in), claymodel 1.5.0 (the Clay foundation model: its wheel puts
``model.py``, ``backbone.py`` and the rest at the top level, importing from a ``src`` package the wheel lacks),
change-detection-pytorch 0.1.4 (Kaiyu Li, Fulin Sun and Xudong Liu: Siamese segmentation-models-pytorch-style networks
and STANet; its package imports pretrainedmodels, efficientnet-pytorch and albumentations, and its encoders target timm
0.4.12), torch-rs 0.0.4 (Isaac Corley: RAMS and FC-Siam change detectors; its package ``__init__`` imports its datasets,
which need h5py, tifffile, imagecodecs and torchaudio, and the wheel installs a top-level ``tests`` package), terratorch
1.2.13 (IBM: its package imports its datasets, datamodules and Lightning tasks at import, and it needs torchgeo 0.9,
which has no wheel for this Python), terracodec 0.3.1 (IBM: learned compression on compressai, compiled), omnicloudmask
1.8.1 (Nick Wright, DPIRD: rasterio at import, and its models are timm encoders in segmentation-models-pytorch, families
earlier zoos ran), moonshine 0.1.7 (segmentation-models-pytorch 0.3.2 U-Nets), geoml-presto 0.0.3 (a Presto packaging
pinning NumPy below 2 with earthengine-api, openmapflow, cropharvest and rioxarray); torchgeo's newer 0.9 and 0.10 (no
wheel installable for Python 3.11: pip offers up to 0.8.1); and, in the package index only, not downloaded:
rastervision, geoai-py, segment-geospatial, rslearn, pytorch-eo and geotorchai. Within the chosen libraries: pretrained
weights anywhere (torchgeo's ``*_Weights`` and Satlas's ``Weights`` download them): random weights throughout;
torchgeo's Aurora (it lazily imports Microsoft's aurora package, not in the venv), RCF in its empirical mode and MOSAIKS
(a dataset to sample patches from), FCSiamConc and FCSiamDiff (segmentation-models-pytorch U-Nets, a family zoo 2 ran),
EarthLoc, Scale-MAE, LTAE, BTC and the plain ResNet, ViT, Swin and U-Net builders (ten models were enough; the chosen
ones cover the same operations or more); Satlas's Swin-v2-B and ResNet-152 (the same code as the Swin-v2-T and ResNet-50
chosen, two to three times larger), its ResNet backbones with ``multi_image=True`` (the library builds them without the
AggregationBackbone), its Mask R-CNN instance head and its regression, binary segmentation and classification heads (the
segmentation, multi-label and detection heads cover their code).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 53 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the two new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (tensors built in the forward from Python lists, one of them sliced by the
number of bands; convolution weights generated in the forward; float64 arithmetic; Python branches on tensor values and
asserts on them; Python loops over kernel elements, images and time steps; pseudo-inverses and ``vmap`` in the forward;
antialiased bicubic resizes to sizes derived from token counts; boolean-mask indexing and assignment; key padding masks
from the data; in-place writes into an input; zero states from input sizes; per-image loops by channel steps; RPN, NMS,
RoIAlign and score thresholds). From torchgeo: DOFA on Sentinel-2 chips whose number of bands is the dynamic axis (the
wavelengths the first C of the product's 13); Copernicus-FM on square Sentinel-2 L2A tiles of any size with the user's
site, an unknown acquisition time (NaN) and each tile's area from its size as metadata, its kernels resized from 16 to
8; CROMA on stacked Sentinel-1 VV/VH and 12 Sentinel-2 bands; Panopticon on 10 Sentinel-2 and 2 Sentinel-1 bands with
the optical bands past each product's count of valid bands (its first value times 10, at least 3) masked;
ChangeStar(FarSeg) with a ResNet-18 and ChangeViT with a ViT-Tiny on RGB image pairs; a ConvLSTM over a time series of 6
Sentinel-2 acquisitions with the user's per-pixel head. From satlaspretrain-models: Swin-v2-T on 4 Sentinel-2 images of
9 bands (36 channels) through the AggregationBackbone, FPN, Upsample and the segmentation head; Swin-v2-T on Sentinel-1
VV/VH with the multi-label head; ResNet-50 on 9 Sentinel-2 bands with FPN, Upsample and the Faster R-CNN head, its
detections of the tile as rows (x1, y1, x2, y2, score, class) compared as a set, as zoo 1's SSDlite's.

Each is small where the library lets it be (DOFA, Copernicus-FM and CROMA at 2 blocks of 64, nothing downloaded) and has
the dynamic axes a deploying user declares: the batch and the spatial size of tiles for the models that take any size
(Copernicus-FM's square tiles, both change detectors' pairs, the ConvLSTM's series, the Satlas segmentation and
multi-label models); the batch and the number of bands for DOFA; the batch only where the model is built for one image
size (CROMA's ALiBi buffer, Panopticon's position embedding); height and width of one tile for the Faster R-CNN (its
heads take one image's detections). The ConvLSTM's 6 acquisitions are fixed (the loop's bound, as zoo 24's frame
counts). Panopticon keeps torchgeo's DINOv2 ViT-B/14 (85 M parameters): it builds it in its constructor, and a smaller
one would be the user's model, not the library's. The inputs are the user's tensors in [0, 1): reflectances or scaled
backscatter, bitemporal pairs (B, 2, 3, H, W) and series (B, T, C, H, W); Panopticon's masks come from the data as said.
The user's Faster R-CNN settings for 64-pixel tiles: 300 proposals a level before the RPN's NMS and 100 after (2000 and
2000 in the library's hard-coded head) and 20 detections at most, set on the built head as a deploying user would;
BatchNorm statistics from a calibration batch for the three models with BatchNorm (ChangeStar, ChangeViT, the ResNet-50
detector), as the earlier zoos' detectors; no other output set-valued.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs) before
the first migrate run, with a source tree unpacked by ``fetch_sources`` from ``PINS55`` and ``make_zoo``: at the spec's
size, one more in the batch, the dynamic sizes at 2n + 1, 3n and 2n (the number of bands at 9, 12 and 8 for DOFA) and
each of those with one more in the batch; with one thread on the shared two cores, each in its own process (load average
3.9 to 4.6 from other sessions), the best of two forwards at the spec's size took 0.020 to 0.30 s for torchgeo (0.020
CROMA, 0.05 to 0.07 DOFA and Copernicus-FM, 0.11 the ConvLSTM, 0.16 Panopticon and ChangeStar, 0.30 ChangeViT) and 0.30
to 0.85 s for Satlas (0.30 the multi-label Swin, 0.63 the four-image Swin, 0.85 the detector, whose RoIAlign is
torchvision's pure-PyTorch one under the stand-in); at the larger sizes at most 1.8 s for torchgeo (ChangeStar at a
batch of 3 of 192x192 pairs) and 2.9 s for Satlas (four images at a batch of 3 and 96x96); builds (imports included:
torchgeo's package import, its datasets with it, takes 10 to 20 s here) took 6 to 30 s. Two models refuse the 2n + 1
sizes, as their architectures do: ChangeStar(FarSeg) (its decoder adds maps upsampled by 2 from strides 4 to 32, so the
side must be a multiple of 32: 129 gives 33 and 34) and ChangeViT (timm's patch embedding asserts a multiple of 16);
both run at 3n and 2n. Odd, left as the wheels have them: Satlas's Upsample gives 4 times the backbone's stride-4 map,
so a 65-pixel tile gives a 64-pixel segmentation; its NoopTransform takes the image sizes after padding to 32, so boxes
are clipped to the padded tile; Panopticon writes the coarsened wavelengths back into the channel-id tensor it is given
(the user's module passes a copy each call: on an expanded view of its buffer torch warns that ``index_put_`` on
expanded tensors is deprecated, and the write reaches the buffer). Changed after the first eager runs, before committing
and before any migrate run: the four-image Satlas model from 64x64 to 32x32 tiles (1.75 s a forward at 64) and the
Faster R-CNN settings above (7 s a forward with the library's 2000 proposals; with 300 and 300, 2.0 of 2.4 s were the
pure-PyTorch RoIAlign under the stand-in, the rest mostly the stand-in NMS's Python loop)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): torchgeo (Adam J. Stewart and the TorchGeo contributors: DOFA's wavelength-conditioned dynamic
#: patch embedding, Copernicus-FM's spectral hypernetwork with Fourier metadata encodings, CROMA's SAR and optical
#: encoders with 2D ALiBi, Panopticon's spectral channel attention, ChangeStar(FarSeg) and ChangeViT for bitemporal
#: change detection, a ConvLSTM) and satlaspretrain-models (Satlas at the Allen Institute for AI: Swin-v2 and ResNet
#: backbones over any number of bands, multi-image max aggregation, FPN, segmentation, multi-label and Faster R-CNN
#: heads).
PINS55 = {**PINS31, "torchgeo": "0.8.1", "satlaspretrain_models": "0.3.1"}

#: The user's chips and tiles: (batch, bands, height, width) in [0, 1) (reflectances or scaled backscatter); the
#: bitemporal pairs and time series (batch, time, bands, height, width).
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BANDS = 'dynamic_axes = { x = { 0 = "batch", 1 = "bands" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
_BTHW = 'dynamic_axes = { x = { 0 = "batch", 3 = "height", 4 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# torchgeo: its models package imports its datasets and samplers (through aurora, copernicusfm, panopticon and rcf),
# which import rasterio, geopandas, pyproj and shapely (compiled, none in the venv) at module level and name a few of
# their classes at import (class bases, annotations, pyproj CRS and Transformer objects built in class bodies of the
# Chesapeake and EnviroAtlas datasets). No model here uses them: the user's module stands in those modules with one
# placeholder class for every name torchgeo imports from them (as zoo 50's does for xxhash, with names).
_TG = '''import types


class GeoStandIn:
    """A rasterio, geopandas, pyproj or shapely class that torchgeo's datasets name at import (no model uses it)."""

    transform = None  # a pyproj Transformer's method, which torchgeo's Chesapeake datasets keep at class level

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def from_epsg(cls, *args, **kwargs):
        return cls()

    @classmethod
    def from_crs(cls, *args, **kwargs):
        return cls()


for _name, _attrs in {"rasterio": ["Affine"], "rasterio.enums": ["Resampling"], "rasterio.features": ["rasterize"],
                      "rasterio.io": ["DatasetReader"], "rasterio.mask": [], "rasterio.merge": [],
                      "rasterio.transform": ["Affine"], "rasterio.vrt": ["WarpedVRT"], "rasterio.warp": [],
                      "geopandas": ["GeoDataFrame"], "pyproj": ["CRS", "Transformer"],
                      "shapely": ["Geometry", "LineString", "MultiPoint", "Polygon"], "shapely.affinity": [],
                      "shapely.geometry": [], "shapely.ops": []}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, GeoStandIn)

from torchgeo.models import CROMA, DOFA, ChangeStarFarSeg, ChangeViT, ConvLSTM, CopernicusFM, Panopticon

#: Sentinel-2's 13 bands in the product's order (B1 to B12, B8A after B8): central wavelengths in micrometres (DOFA's
#: unit) and, for the 12 bands of L2A (no B10), in nanometres with their bandwidths (Copernicus-FM's and Panopticon's).
S2_MICROMETRES = [0.443, 0.490, 0.560, 0.665, 0.705, 0.740, 0.783, 0.842, 0.865, 0.945, 1.375, 1.610, 2.190]
S2_L2A_NM = [443.0, 490.0, 560.0, 665.0, 705.0, 740.0, 783.0, 842.0, 865.0, 945.0, 1610.0, 2190.0]
S2_L2A_BANDWIDTH_NM = [20.0, 65.0, 35.0, 30.0, 15.0, 15.0, 20.0, 115.0, 20.0, 20.0, 90.0, 180.0]


class DOFAAnyBands(torch.nn.Module):
    """DOFA (2 blocks of 64, patches of 8) classifying 32x32 Sentinel-2 chips of any number of bands: the chip's
    bands are the product's first C, their wavelengths the table's first C."""

    def __init__(self):
        super().__init__()
        self.dofa = DOFA(img_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=4, num_classes=10)

    def forward(self, x):
        return self.dofa(x, S2_MICROMETRES[: x.shape[1]])


class CopernicusFMTiles(torch.nn.Module):
    """Copernicus-FM (2 blocks of 64, its spectral hypernetwork's kernels of 16 resized to 8 for small tiles) on
    Sentinel-2 L2A tiles of any square size: the site's longitude and latitude, the acquisition time unknown (NaN:
    the model's learned time token) and each tile's area in km2 at 10 m a pixel as its metadata."""

    def __init__(self):
        super().__init__()
        self.fm = CopernicusFM(img_size=32, patch_size=16, embed_dim=64, depth=2, num_heads=4, hyper_dim=64,
                               num_classes=10)
        self.register_buffer("site", torch.tensor([11.58, 48.14]))  # longitude, latitude (degrees)

    def forward(self, x):
        b, _, h, w = x.shape
        metadata = torch.cat([self.site.expand(b, 2), torch.full((b, 1), float("nan")),
                              torch.full((b, 1), h * w * 1e-4)], 1)
        return self.fm(x, metadata, wavelengths=S2_L2A_NM, bandwidths=S2_L2A_BANDWIDTH_NM, kernel_size=8)


class CROMAJoint(torch.nn.Module):
    """CROMA (encoders of 64, 2D ALiBi biases for 32x32 chips) on co-registered Sentinel-1 (VV, VH: the first two
    bands) and Sentinel-2 (12 bands): the joint, SAR and optical pooled embeddings."""

    def __init__(self):
        super().__init__()
        self.croma = CROMA(modalities=["sar", "optical"], encoder_dim=64, encoder_depth=2, num_heads=16,
                           image_size=32)

    def forward(self, x):
        out = self.croma(x_sar=x[:, :2], x_optical=x[:, 2:])
        return out["joint_GAP"], out["sar_GAP"], out["optical_GAP"]


#: Panopticon's channel ids of the user's stack: the 10 Sentinel-2 bands at 10 and 20 m (their wavelengths in nm),
#: then Sentinel-1's VV and VH (its SAR codes -1 and -2).
PANOPTICON_IDS = [490.0, 560.0, 665.0, 705.0, 740.0, 783.0, 842.0, 865.0, 1610.0, 2190.0, -1.0, -2.0]


class PanopticonMasked(torch.nn.Module):
    """Panopticon as torchgeo builds it (a DINOv2 ViT-B/14 with its spectral channel attention, 96 wide here, 28x28
    chips) on 10 Sentinel-2 bands and Sentinel-1 VV and VH: each product's optical bands after its count of valid
    bands (from its first value, at least 3) masked out of the channel attention."""

    def __init__(self):
        super().__init__()
        self.pano = Panopticon(attn_dim=96, embed_dim=768, img_size=28)
        self.register_buffer("chn_ids", torch.tensor(PANOPTICON_IDS))

    def forward(self, x):
        b = x.shape[0]
        valid = (x[:, 0, 0, 0] * 10).long().clamp(min=3)
        masks = torch.cat([torch.arange(10)[None, :] >= valid[:, None], torch.zeros(b, 2, dtype=torch.bool)], 1)
        # Panopticon writes into the channel ids it is given: each call gets its own copy.
        return self.pano({"imgs": x, "chn_ids": self.chn_ids.expand(b, -1).clone(), "spec_masks": masks})


class ChangeStarPair(torch.nn.Module):
    """ChangeStar(FarSeg) with a ResNet-18 on bitemporal RGB pairs (B, 2, 3, H, W): both dates' segmentation
    logits (4 classes) and the change probability."""

    def __init__(self):
        super().__init__()
        self.net = ChangeStarFarSeg(backbone="resnet18", classes=4, backbone_pretrained=False)

    def forward(self, x):
        out = self.net(x)
        return out["bi_seg_logit"], out["change_prob"]


class ConvLSTMCropMap(torch.nn.Module):
    """ConvLSTM (2 layers of 16, 3x3) over a Sentinel-2 time series (B, 6, 10, H, W): the last layer's last hidden
    state classified per pixel by a 1x1 convolution (8 crop classes)."""

    def __init__(self):
        super().__init__()
        self.lstm = ConvLSTM(input_dim=10, hidden_dim=16, kernel_size=3, num_layers=2, batch_first=True)
        self.head = torch.nn.Conv2d(16, 8, 1)

    def forward(self, x):
        _, last_states = self.lstm(x)
        return self.head(last_states[-1][0])'''

# ---------------------------------------------------------------------------------------------------------------
# satlaspretrain-models: SatlasPretrain's Model built with random weights (weights=None: nothing fetched; its Weights
# class downloads them). requests, which its model module imports, comes from the venv.
_SATLAS = '''from satlaspretrain_models import Backbone, Head, Model'''
#: The Faster R-CNN head's detections of the tile (one image): rows of (x1, y1, x2, y2, score, class).
_SATLAS_ROWS = ('detections, _ = self.m(x)\n        det = detections[0]\n        '
                'return torch.cat([det["boxes"], det["scores"][:, None], '
                'det["labels"][:, None].to(det["boxes"].dtype)], 1)')
#: What a deploying user tunes on the library's hard-coded Faster R-CNN settings for 64-pixel tiles: 300 proposals a
#: level before the RPN's NMS and 100 after (2000 and 2000 in the library), at most 20 detections a tile.
_SATLAS_DET_INIT = ('self.m.head.rpn._pre_nms_top_n = dict(training=2000, testing=300)\n        '
                    'self.m.head.rpn._post_nms_top_n = dict(training=2000, testing=100)\n        '
                    'self.m.head.roi_heads.detections_per_img = 20')

MODELS55 = [
    # torchgeo: remote-sensing foundation-model encoders, change detection and a time-series model (random weights).
    Spec("tg_dofa_any_bands", "torchgeo DOFA (2 blocks of 64, patches of 8; the patch embedding's kernels and bias "
         "generated per band by a transformer over sin-cos encodings of the bands' wavelengths, built in the forward "
         "by torch.tensor from a Python list) on Sentinel-2 chips whose number of bands is the dynamic axis: the "
         "wavelengths the table's first C", _TG, "DOFAAnyBands()", "return self.m(x)", "2, 4, 32, 32", _BANDS),
    Spec("tg_copernicusfm_tiles", "torchgeo Copernicus-FM (2 blocks of 64; Fourier expansions of wavelengths and "
         "bandwidths in float64 with a Python range check on tensor values, the hypernetwork's 16x16 kernels resized "
         "to 8x8 by a pseudo-inverse built in a Python loop and vmap, the position embedding resized bicubically with "
         "antialiasing to the token grid from int(sqrt(n)), Python branches on torch.isnan(...).any() of the "
         "metadata) on square Sentinel-2 L2A tiles with the user's site, unknown time and area from the tile's size",
         _TG, "CopernicusFMTiles()", "return self.m(x)", "2, 12, 32, 32", _BHW),
    Spec("tg_croma_sar_optical", "torchgeo CROMA (SAR and optical ViT encoders of 64 and a cross-attention joint "
         "encoder, 2D ALiBi attention biases for 32x32 chips, patches by einops rearrange) on Sentinel-1 VV/VH and "
         "12 Sentinel-2 bands stacked: the joint, SAR and optical pooled embeddings", _TG, "CROMAJoint()",
         "return self.m(x)", "2, 14, 32, 32", _B),
    Spec("tg_panopticon_masked_bands", "torchgeo Panopticon (timm's DINOv2 ViT-B/14 with PanopticonPE: a Conv3d "
         "per band, channel embeddings by boolean-mask indexing and assignment (optical by sin-cos of the "
         "wavelength, SAR by an index from the negative code), cross-attention over the bands with a key padding "
         "mask) on 10 Sentinel-2 and 2 Sentinel-1 bands, bands masked per product from the data", _TG,
         "PanopticonMasked()", "return self.m(x)", "2, 12, 28, 28", _B),
    Spec("tg_changestar_farseg", "torchgeo ChangeStar(FarSeg) (ResNet-18, torchvision FPN, FarSeg's "
         "foreground-scene relation and light decoder, ChangeMixin over both orders of the bitemporal features, "
         "UpsamplingBilinear2d) on RGB image pairs: both dates' segmentation logits and the change probability", _TG,
         "ChangeStarPair()", "return self.m(x)", "2, 2, 3, 64, 64", _BTHW, calibrate="self.m(xb)"),
    Spec("tg_changevit_tiny", "torchgeo ChangeViT (timm ViT-Tiny/16 with dynamic_img_size, a timm ResNet-18 detail "
         "capture on the concatenated pair, cross-attention feature injection onto the token grid from int(n ** "
         "0.5) by adaptive pooling, the change decoder, bilinear resize to the input) on RGB image pairs: the change "
         "logits", _TG, "ChangeViT(backbone='vit_tiny_patch16_224', img_size=64, in_channels=3, num_classes=1)",
         "return self.m(x)", "2, 2, 3, 64, 64", _BTHW, calibrate="self.m(xb)"),
    Spec("tg_convlstm_timeseries", "torchgeo ConvLSTM (2 layers of 16; zero states made from the input's size, a "
         "Python loop over the 6 acquisitions a layer, the gates by torch.split) over a Sentinel-2 time series, the "
         "last hidden state classified per pixel by the user's 1x1 conv", _TG, "ConvLSTMCropMap()",
         "return self.m(x)", "2, 6, 10, 32, 32", _BTHW),
    # satlaspretrain-models: SatlasPretrain architectures (random weights).
    Spec("satlas_s2_multi_image_seg", "satlaspretrain-models Model (Swin-v2-T over 9 Sentinel-2 bands, "
         "AggregationBackbone: a Python loop over the images in the channels by steps of 9, max over the images "
         "of its group, FPN, Upsample by transposed convs, segmentation head with softmax) on 4 images: 6 classes",
         _SATLAS, "Model(num_channels=9, multi_image=True, backbone=Backbone.SWINT, fpn=True, head=Head.SEGMENT, "
         "num_categories=6)", "out, _ = self.m(x)\n        return out", "2, 36, 32, 32", _BHW),
    Spec("satlas_s1_swint_multilabel", "satlaspretrain-models Model (Swin-v2-T over Sentinel-1 VV and VH, no FPN, "
         "multi-label head: conv, amax over the map, linear, sigmoid): 5 tags a tile", _SATLAS,
         "Model(num_channels=2, multi_image=False, backbone=Backbone.SWINT, fpn=False, head=Head.MULTICLASSIFY, "
         "num_categories=5)", "out, _ = self.m(x)\n        return out", "2, 2, 64, 64", _BHW),
    Spec("satlas_s2_resnet50_frcnn", "satlaspretrain-models Model (ResNet-50 over 9 Sentinel-2 bands, FPN, Upsample, "
         "FRCNNHead: its NoopTransform batching the images to multiples of 32, torchvision's RPN with anchors a "
         "level, NMS (the stand-in), MultiScaleRoIAlign and RoIHeads with score threshold and per-class NMS) on one "
         "tile: the detections as rows, compared as a set", _SATLAS,
         "Model(num_channels=9, multi_image=False, backbone=Backbone.RESNET50, fpn=True, head=Head.DETECT, "
         "num_categories=3)", _SATLAS_ROWS, "1, 9, 64, 64", _HW + '\nunordered = ["output"]', init=_SATLAS_DET_INIT,
         calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS55, "real_zoo55", PINS55)
