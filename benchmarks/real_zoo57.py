"""A fifty-seventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo57.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on visual (industrial) anomaly detection as anomalib implements it: the
thirty-first zoo's pins and anomalib 2.7.0 (Intel's OpenVINO team, now the Open Edge Platform,
github.com/open-edge-platform/anomalib: some thirty image anomaly models, each a plain torch module (``torch_model.py``)
behind a Lightning module; in eval mode a model's forward returns an ``InferenceBatch`` named tuple of the image score
and the anomaly map), whose code no earlier zoo or sweep ran (``PINS57``: unpacked wheels like the others, never
pip-installed). The forty-ninth zoo's anomaly detectors were pyimgano's and inspectrt's; it dropped anomalib 2.7.0
because its models' package imports its Lightning modules (lightning, jsonargparse, torchmetrics and FrEIA not in the
venv) and compiled scikit-image and scikit-learn. Here the Lightning stack is unpacked as the fifty-fourth zoo's is
(lightning 2.6.6, lightning-utilities 0.15.3 and torchmetrics 1.9.0 by Lightning AI, jsonargparse by Mauricio Villegas
at 4.46.0, under anomalib's bound of 4.47), with two pure-Python libraries anomalib imports at package import
(tifffile 2026.3.3 by Christoph Gohlke, platformdirs 4.14.9 by its maintainers: Bernat Gabor, Julian Berman, Ofek Lev
and Ronny Pfannschmidt); scikit-learn and scikit-image (compiled) and FrEIA (a source archive only, no wheel) are
imported at package import by modules no model here runs, so the user's module stands in those 11 modules with one
placeholder class for every name anomalib imports from them (``PCA``, ``IncrementalPCA``, ``train_test_split``,
``sample_without_replacement``, ``dilation``, ``find_boundaries``, ``mark_boundaries``, FrEIA's ``GraphINN``,
``InputNode``, ``Node``, ``OutputNode``, ``SequenceINN`` and ``InvertibleModule``), as zoo 55's does for rasterio;
einops, kornia, omegaconf, opencv, pandas, matplotlib and timm and torchvision from the venv and the earlier pins.

Considered and dropped before any model was chosen (by the wheel's files and a first look at the code): anomalib's
FastFlow, CFlow, CS-Flow, UFlow and PatchFlow (their flows are FrEIA's ``SequenceINN`` and ``GraphINN``: FrEIA 0.2 has
no wheel, and FastFlow and CS-Flow were in zoo 49 from pyimgano); STFPM (its teacher is built with
``pre_trained=True`` hard-coded, so timm would download weights), CFA and UniNet (their backbones are torchvision's
``DEFAULT`` weights, downloaded), SuperSimpleNet (its ``TimmFeatureExtractor`` is built with the default
``pre_trained=True`` and no argument reaches it); WinCLIP, AnomalyDINO, Dinomaly, INP-Former, FoundAD, AnomalyVFM,
VLM-AD and the 3-D CFM (CLIP, DINOv2 or other foundation weights and checkpoints, or a language model; AnomalyDINO also
scikit-learn's PCA); MH-PatchCore (scikit-learn's IncrementalPCA); anomalib-orobix (the fork, the same imports).
Within the chosen models: PatchCore's coreset subsampling (``KCenterGreedy`` over anomalib's sparse random
projection, which calls scikit-learn's ``sample_without_replacement``: the user keeps every other stored embedding
instead), the training paths (losses, anomaly generators, Perlin noise), tiling, and every ``pre_trained=True``
(``pre_trained=False`` given: random weights, no download).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 56 or
in the library sweeps (benchmarks/sweep_*.py), all from anomalib and of the kinds that often need work for an ONNX or
TensorRT deployment (nearest neighbours by ``torch.cdist`` and ``topk`` against a memory bank, Mahalanobis distances by
``einsum`` with inverse covariances, PCA projections, kernel densities, vector quantisation by ``argmin``, Gaussian
blurs of maps ``F.interpolate``-d to the input's size or to a configured size, quantile normalisation chosen by
``torch.where`` on whether statistics are set, ``torch.no_grad`` inside forwards, named tuples of outputs, Python
branches on ``self.training``). Memory and statistics models on random-weight resnet18s (timm ``features_only`` through
anomalib's ``TimmFeatureExtractor``): PatchCore (layers 2 and 3, 9 neighbours, a memory bank of 768 patch embeddings:
every other one of the 1536 from 3 batches of 8 images at 64 x 64), PaDiM (layers 1 to 3, a random subset of 100
channels, one Gaussian a position), DFM (layer 3 pooled by 2, PCA keeping 97% of the variance, the feature
reconstruction error as the map), DFKDE (layer 4, 16 PCA components, the image score only). Distillation and
reconstruction models: EfficientAD-S (a teacher of 64 channels, without padding, its channel statistics and the maps'
0.9 and 0.995 quantiles from 4 seeded images), Reverse Distillation (resnet18 encoder, one-class bottleneck, de-ResNet
decoder, maps multiplied), DRAEM with SSPCAB, DSR (a codebook of 512 of width 64, 64 hidden channels), GANomaly (32
features, a latent of 100; the image score only), GLASS (resnet18 layers 2 and 3, 256-wide embeddings and
discriminator). The fitted state is filled at construction from seeded random images in [0, 1), as anomalib's training
loop fills it: the model's own ``training`` flag set (the backbone stays in eval mode), batches forwarded so that the
model stores its embeddings, then its ``fit`` (PaDiM's Gaussian, DFM's PCA and Gaussian, DFKDE's scaler, PCA and
density); EfficientAD's statistics and quantiles are computed by the user's code from the model's teacher and its
``get_maps``, as its Lightning module does. No BatchNorm calibration (the maps and scores differ across the batch
without it).

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any
size; batch only for PaDiM (its Gaussians are per position of the 64 x 64 training size), DFM (its PCA is over the
flattened pooled map) and GANomaly (its layers are built for the input size). The inputs are the user's images in [0,
1), 64 x 64 (32 x 32 for DRAEM, whose two U-Nets are 128 and 64 wide whatever the arguments; 256 x 256 and a batch of 1
for EfficientAD, whose autoencoder's last encoder convolution has a kernel of 8 on the 32-times downsampled image).
The outputs are the anomaly map (batch, 1, H, W) or (batch, H, W) and the image score, or the score alone for DFKDE and
GANomaly. The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs, outputs differing across the batch) before the first migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS57`` and ``make_zoo``: at the spec's size, one more in the batch, the height 32 and the
width 64 larger for the models with dynamic sizes, and both; with one thread on the shared two cores, each in its own
process (load average 0.9 to 1.0 from other sessions), the best of two forwards at the spec's size took 0.013 s (DFM),
0.015 (PaDiM, GANomaly), 0.019 (PatchCore), 0.024 (GLASS), 0.025 (DFKDE), 0.043 (Reverse Distillation), 0.36 (DRAEM at
32 x 32, DSR) and 0.76 s (EfficientAD at 256 x 256, one image); at the larger sizes and one more in the batch at most
0.10 s for the resnet18 models, 1.40 s for DRAEM (64 x 96), 1.34 s for DSR (96 x 128) and 2.47 s for EfficientAD (two
images of 288 x 320); builds took 8.9 to 11.1 s (about 8 s of it importing anomalib's packages, Lightning and
torchmetrics), 14.4 s for EfficientAD. Changed after the first eager runs, before any migrate run: DFM from dynamic
height and width to batch only (at 96 x 128 its PCA's mean, 1024 wide, met 3072 features), EfficientAD from 64 x 64 to
256 x 256 with one image (at 64 x 64 its autoencoder's 8 x 8 convolution met a 2 x 2 map) and its statistics from 16
images to 4 (a 30 s build), DRAEM from 64 x 64 to 32 x 32 (0.64 s a forward; 32 x 48 failed: its U-Net's skip
connections need sides that are multiples of 32). Odd, left as the library has them: Reverse Distillation's and GLASS's
maps are at the configured 64 x 64 whatever the input's size (``input_size`` and ``input_shape`` are fixed at
construction); EfficientAD's padded map border normalises to a constant -1.15 (the zero padding minus the fitted 0.9
quantile); with random weights GANomaly's scores are about 1e-4 and DRAEM's maps sit near 0.51; importing any model
imports all of anomalib's Lightning modules, and Dinomaly's module warns at import that
``anomalib.models.components.dinov2`` is deprecated and timm that ``timm.models.layers`` is."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and anomalib (Intel's OpenVINO team: visual anomaly detection; PatchCore's memory
#: bank queried by ``torch.cdist`` and ``topk`` with its map upsampled to the input and Gaussian-blurred, PaDiM's
#: per-position Mahalanobis distance with inverse covariances, DFM's PCA reconstruction error, DFKDE's kernel density
#: over PCA-reduced features, EfficientAD's patch description networks and autoencoder with quantile-normalised maps,
#: Reverse Distillation's one-class bottleneck and de-ResNet decoder, DRAEM's reconstructive and discriminative U-Nets,
#: DSR's vector-quantised dual subspaces, GANomaly's encoder-decoder-encoder, GLASS's patch discriminator), unpacked
#: like the others (never pip-installed), with the Lightning stack its model packages import at package import
#: (lightning, lightning-utilities and torchmetrics from the Lightning AI team; jsonargparse from Mauricio Villegas,
#: at 4.46.0, under anomalib's bound of 4.47) and two small pure-Python libraries it imports at package import:
#: tifffile (Christoph Gohlke) and platformdirs (the platformdirs team).
PINS57 = {**PINS31, "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0", "lightning": "2.6.6",
          "jsonargparse": "4.46.0", "tifffile": "2026.3.3", "platformdirs": "4.14.9", "anomalib": "2.7.0"}

#: The user's images: (batch, 3, height, width) in [0, 1); batch, height and width are what a deploying user declares
#: dynamic, batch alone where the model's fitted statistics or layers fix the size.
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# anomalib: ``anomalib.models`` (which every model's package imports through ``anomalib.models.image``) imports all
# its Lightning modules, its data and deploy utilities and its post-processing at package import, and with them
# scikit-learn and scikit-image (compiled, not in the venv) and FrEIA (no wheel: a source archive only). No model here
# calls them (the flow models that build on FrEIA are not chosen; PatchCore's coreset sampler's random projection,
# scikit-learn's ``sample_without_replacement``, is not run: the user keeps every other embedding instead): the user's
# module stands in those modules with one placeholder class for every name anomalib imports from them, as zoo 55's
# does for rasterio. Fitted state (memory banks, Gaussian statistics, PCA, kernel density, EfficientAD's feature
# statistics and map quantiles) is filled at construction from seeded random images in [0, 1), the way anomalib's
# training loop fills it: the model's own ``training`` flag set (its backbone left in eval mode), forwards that
# store embeddings, then the model's ``fit``.
_AD = '''import types


class AnomalibStandIn(torch.nn.Module):
    """A scikit-learn, scikit-image or FrEIA class or function that anomalib imports at package import (unused)."""

    def __init__(self, *args, **kwargs):
        super().__init__()


for _name, _attrs in {"sklearn": [], "sklearn.decomposition": ["PCA", "IncrementalPCA"],
                      "sklearn.model_selection": ["train_test_split"], "sklearn.utils": [],
                      "sklearn.utils.random": ["sample_without_replacement"], "skimage": [],
                      "skimage.morphology": ["dilation"],
                      "skimage.segmentation": ["find_boundaries", "mark_boundaries"],
                      "FrEIA": [], "FrEIA.framework": ["GraphINN", "InputNode", "Node", "OutputNode", "SequenceINN"],
                      "FrEIA.modules": ["InvertibleModule"]}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, AnomalibStandIn)
    if "." in _name:
        setattr(sys.modules[_name.rsplit(".", 1)[0]], _name.rsplit(".", 1)[1], _stub)

from anomalib.models.image.dfkde.torch_model import DfkdeModel
from anomalib.models.image.dfm.torch_model import DFMModel
from anomalib.models.image.draem.torch_model import DraemModel
from anomalib.models.image.dsr.torch_model import DsrModel
from anomalib.models.image.efficient_ad.torch_model import EfficientAdModel, EfficientAdModelSize
from anomalib.models.image.ganomaly.torch_model import GanomalyModel
from anomalib.models.image.glass.torch_model import GlassModel
from anomalib.models.image.padim.torch_model import PadimModel
from anomalib.models.image.patchcore.torch_model import PatchcoreModel
from anomalib.models.image.reverse_distillation.anomaly_map import AnomalyMapGenerationMode
from anomalib.models.image.reverse_distillation.torch_model import ReverseDistillationModel


def normal_images(generator, count, size):
    """The user's stand-in for a folder of defect-free training images: seeded random images in [0, 1)."""
    return torch.rand(count, 3, *size, generator=generator)


def fit_like_training(model, size, batches=3, batch_size=8, seed=0):
    """What anomalib's training epoch does for a model without gradients: the model's own training flag set (its
    backbone stays in eval mode), each batch forwarded (embeddings stored), then the model's ``fit``."""
    generator = torch.Generator().manual_seed(seed)
    model.training = True
    with torch.no_grad():
        for _ in range(batches):
            model(normal_images(generator, batch_size, size))
    model.training = False
    if hasattr(model, "fit"):
        model.fit()
    return model


def patchcore(size=(64, 64)):
    """PatchCore on a random-weight resnet18 (layers 2 and 3): every other stored patch embedding kept as the memory
    bank (anomalib's coreset sampler needs scikit-learn's random projection)."""
    model = fit_like_training(PatchcoreModel(layers=["layer2", "layer3"], backbone="resnet18", pre_trained=False,
                                             num_neighbors=9), size)
    model.memory_bank = torch.vstack(model.embedding_store)[::2].contiguous()
    model.embedding_store.clear()
    return model


def efficient_ad(size=(256, 256)):
    """EfficientAD-S (teacher of 64 channels, no padding): the teacher's channel statistics and the maps' 0.9 and
    0.995 quantiles from seeded images, as anomalib's training computes them."""
    model = EfficientAdModel(teacher_out_channels=64, model_size=EfficientAdModelSize.S, padding=False,
                             pad_maps=True)
    images = normal_images(torch.Generator().manual_seed(0), 4, size)
    with torch.no_grad():
        features = model.teacher(images)
        model.mean_std["mean"].copy_(features.mean((0, 2, 3), keepdim=True))
        model.mean_std["std"].copy_(features.std((0, 2, 3), keepdim=True))
        map_st, map_ae = model.get_maps(images, normalize=False)
        for key, maps in (("st", map_st), ("ae", map_ae)):
            model.quantiles["qa_" + key].copy_(torch.quantile(maps.flatten(), 0.9))
            model.quantiles["qb_" + key].copy_(torch.quantile(maps.flatten(), 0.995))
    return model'''

#: What anomalib's inference returns (an ``InferenceBatch`` named tuple): the anomaly map and the image score.
_MAP_SCORE = "out = self.m(x)\n        return out.anomaly_map, out.pred_score"

MODELS57 = [
    Spec("anomalib_patchcore_resnet18", "anomalib PatchCore (resnet18 layers 2 and 3 by timm, 3x3 average pooling, "
         "layer 3 upsampled and concatenated, nearest neighbours in a memory bank by torch.cdist and topk, the "
         "score reweighted by the support samples' neighbours, the map upsampled to the input and Gaussian-blurred)",
         _AD, "patchcore()", _MAP_SCORE, "2, 3, 64, 64", _BHW),
    Spec("anomalib_padim_resnet18", "anomalib PaDiM (resnet18 layers 1 to 3, a random subset of 100 channels by "
         "index_select, per-position Mahalanobis distance with inverse covariances by einsum, the map upsampled and "
         "Gaussian-blurred)", _AD,
         'fit_like_training(PadimModel(backbone="resnet18", layers=["layer1", "layer2", "layer3"], '
         "pre_trained=False, n_features=100), (64, 64))", _MAP_SCORE, "2, 3, 64, 64", _B),
    Spec("anomalib_dfm_resnet18_fre", "anomalib DFM (resnet18 layer 3, average pooling, torch PCA keeping 97% of "
         "the variance, the feature reconstruction error as the map, interpolated to the input)", _AD,
         'fit_like_training(DFMModel(backbone="resnet18", layer="layer3", pre_trained=False, pooling_kernel_size=2, '
         'score_type="fre"), (64, 64))', _MAP_SCORE, "2, 3, 64, 64", _B),
    Spec("anomalib_dfkde_resnet18", "anomalib DFKDE (resnet18 layer 4 pooled, torch PCA to 16 components, features "
         "scaled by the training maximum, a Gaussian kernel density, the score a sigmoid of its log)", _AD,
         'fit_like_training(DfkdeModel(backbone="resnet18", layers=["layer4"], pre_trained=False, '
         "n_pca_components=16), (64, 64))", "return self.m(x).pred_score", "2, 3, 64, 64", _BHW),
    Spec("anomalib_efficientad_small", "anomalib EfficientAD-S (patch description networks, the student's extra "
         "channels against the autoencoder, maps padded, interpolated to the input and normalised by the fitted "
         "quantiles through torch.where on whether they are set)", _AD, "efficient_ad()",
         _MAP_SCORE, "1, 3, 256, 256", _BHW),
    Spec("anomalib_reverse_distillation_resnet18", "anomalib Reverse Distillation (resnet18 encoder, one-class "
         "bottleneck embedding, de-ResNet decoder, cosine distances per level interpolated to the input size and "
         "multiplied, Gaussian-blurred)", _AD,
         'ReverseDistillationModel(backbone="resnet18", input_size=(64, 64), layers=["layer1", "layer2", "layer3"], '
         "anomaly_map_mode=AnomalyMapGenerationMode.MULTIPLY, pre_trained=False)", _MAP_SCORE, "2, 3, 64, 64",
         _BHW),
    Spec("anomalib_draem_sspcab", "anomalib DRAEM with SSPCAB (a reconstructive U-Net with the self-supervised "
         "predictive convolutional attention block, a discriminative U-Net on the image and its reconstruction, the "
         "softmax's anomalous channel as the map)", _AD, "DraemModel(sspcab=True)", _MAP_SCORE, "2, 3, 32, 32",
         _BHW),
    Spec("anomalib_dsr", "anomalib DSR (dual subspace re-projection: two vector-quantised codebooks queried by "
         "argmin of distances, general and object-specific decoders, an anomaly detection U-Net, the map upsampled "
         "and smoothed by average pooling, the score its maximum)", _AD,
         "DsrModel(embedding_dim=64, num_embeddings=512, num_hiddens=64, num_residual_hiddens=32)", _MAP_SCORE,
         "2, 3, 64, 64", _BHW),
    Spec("anomalib_ganomaly", "anomalib GANomaly (DCGAN encoder, decoder and a second encoder; the score the mean "
         "squared distance of the two latent vectors; layers fixed by the 64 x 64 input size)", _AD,
         "GanomalyModel(input_size=(64, 64), num_input_channels=3, n_features=32, latent_vec_size=100)",
         "return self.m(x).pred_score", "2, 3, 64, 64", _B),
    Spec("anomalib_glass_resnet18", "anomalib GLASS (resnet18 layers 2 and 3 by timm, 3x3 patches, adaptive average "
         "pooling to a common width, a projection and a patch discriminator; the map Gaussian-blurred at the "
         "configured input shape, the score the worst patch)", _AD,
         'GlassModel(input_shape=(64, 64), backbone="resnet18", pre_trained=False, layers=["layer2", "layer3"], '
         "pretrain_embed_dim=256, target_embed_dim=256, discriminator_hidden=256)", _MAP_SCORE, "2, 3, 64, 64",
         _BHW),
]

if __name__ == "__main__":
    main(MODELS57, "real_zoo57", PINS57)
