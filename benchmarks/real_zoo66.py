"""A sixty-sixth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo66.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision: recommendation models as a serving graph calls
them (CTR ranking, multi-task ranking, ranking on behaviour sequences, a multi-interest retrieval tower), neural
vocoders for speech synthesis and a pitch tracker: the thirty-first zoo's pins, torchaudio's Python packages as a
dependency (zoo 64 unpacked the same wheel) and three libraries by authors whose code no earlier zoo or sweep ran
(``PINS66``: unpacked wheels like the others, never pip-installed): torch-rechub 0.9.0 (Datawhale,
github.com/datawhalechina/torch-rechub, MIT: ranking, multi-task and matching models over named feature dicts), vocos
0.1.0 (Hubert Siuzdak at Charactr, github.com/charactr-platform/vocos, MIT: a vocoder predicting Fourier coefficients,
inverted by an ISTFT or IMDCT head) and pesto-pitch 2.0.1 (Alain Riou at Sony CSL Paris,
github.com/SonyCSLParis/pesto, LGPL-3.0: self-supervised monophonic pitch estimation on a harmonic CQT). torch-rechub
is a different library, by other authors, from DeepCTR-Torch (zoo 44's, which built DeepFM, DIN and DIEN with its own
code); DCN-v2, PLE, BST and ComirecDR are families no earlier zoo built. torch-rechub imports scikit-learn at package
import (its trainers' and data utilities' metrics and label encoder: compiled, not in the venv) and vocos imports
encodec (its EnCodec feature extractor; encodec has no wheel on the index, as zoo 60 found): no model here calls into
either, so the user's module stands both in with modules that have a module spec and the imported names as
placeholders. vocos' IMDCT takes its window from ``scipy.signal.cosine``, which SciPy 1.13 removed (the venv has 1.17:
"module 'scipy.signal' has no attribute 'cosine'" at construction); the user's module restores the name from
``scipy.signal.windows``, as pinning an older SciPy would. torch-rechub reads its own version from its dist-info
(``importlib.metadata``), which ``fetch_sources`` unpacks beside it. NumPy, SciPy, pandas, tqdm, PyYAML,
huggingface_hub, einops and OmegaConf come from the venv. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): openai-whisper
(an sdist only: ``fetch_sources`` takes wheels), parallel-wavegan (no wheel on the index), PyPOTS (its package import
pulls tsdb, pygrinder, benchpots, ai4ts, h5py, scikit-learn and tensorboard, none in the venv, and its metadata pins
transformers <= 4.57.6 against ``PINS31``'s 5.24); torchaudio's own models, Demucs, asteroid, CREPE, SpeechBrain and
DeepCTR-Torch are earlier zoos'. Within torch-rechub: WideDeep, AFM, AutoInt, FiBiNet, EDCN, DeepFFM and FatDeepFFM
(the embedding-and-MLP interface of DeepFM and DCN-v2), MMOE, ESMM, AITM and SharedBottom (PLE's interface, fewer
gates), DSSM, YoutubeDNN, YoutubeSBC, GRU4Rec, NARM, STAMP, SINE, SASRec and ComirecSA (other matching towers; one
multi-interest tower is kept), the generative models (TIGER wraps transformers' T5 and its beam-search generation,
RQ-VAE imports scikit-learn's KMeans, HSTU and HLLM left out to keep the zoo small), its trainers, ONNX exporter and
serving (Annoy, Faiss, Milvus) code. MIND was chosen and then replaced by ComirecDR, before any migrate run: MIND's
capsule network draws its routing logits with ``torch.randn`` on every call (the paper's random initialisation), so
two forwards of the same input differ; ComirecDR's routing starts from zeros. Within vocos: ``from_pretrained``
(downloads), ``EncodecFeatures`` (encodec), VocosResNetBackbone and IMDCTCosHead (the other backbone and head: the
chosen models have the ConvNeXt backbone, the ISTFT head with both paddings and the symexp IMDCT head), its training
modules (pytorch-lightning, discriminators, losses). Within pesto-pitch: ``load_model`` itself (it loads the packaged
weights: the user builds the same modules with the ``mir-1k_g7`` checkpoint's hyperparameters and random weights), the
older ``mir-1k`` checkpoint (the same modules), ``predict``'s file reading, resampling and batching of long audio in
Python, and the cached convolutions for streaming (``utils/cached_conv.py``, not used by the HCQT here).

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 64
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(dicts of named features built from one tensor, ids from floats by ``long`` and ``clamp``, embedding lookups and
gathers by id tables, Python loops over feature fields and over time steps, ``pack_padded_sequence`` with lengths
moved to the CPU, boolean-mask indexing and assignment guarded by ``if mask.any()``, masks from ``arange`` against
per-row lengths, a ``raise`` on the sequence length, transformer key padding masks, Dice activations (a sigmoid of
each row standardised over its units, a learned slope) in MLPs with BatchNorm, gates over experts, capsule routing
loops with ``torch.where`` masks, L2 normalisation; ``torch.inference_mode`` decorators on the exported methods,
complex tensors built as ``mag * (cos + 1j * sin)``, ``torch.istft``, ``irfft`` with overlap-add by ``fold``, an IMDCT
by ``ifft`` with complex twiddle buffers stored as real pairs, torchaudio's STFT-based MelSpectrogram with reflection
padding, an embedding of a bandwidth id; a CQT as a strided convolution of 4096 taps, in-place ``mul_``, ``squeeze_``,
``clamp_`` and ``log10_``, ``flatten`` of batch and time then ``view`` back by the batch size, a buffer read with
``.cpu().item()`` and rounded into ``roll``, an argmax-local weighted average with ``gather`` and an ``assert`` on the
bin count). torch-rechub, each behind the user's serving module that builds the model's dict of named features from
one float row per request (random weights; embedding tables of std 0.05, since torch-rechub's default of 1e-4 leaves
every prediction the same to four digits where trained tables do not; the MLPs' BatchNorm statistics from the
calibration pass): DeepFM (4 normalised counts and 12 categorical fields of 8 to 1000 ids, embeddings of 8, FM over
the fields, MLP 64-32; 35 k parameters), DCN-v2 (parallel; 2 cross layers, each a mixture of 4 low-rank experts of
rank 8; 49 k) and PLE (2 levels of customised gate control, 2 experts per task and 1 shared, CTR and CVR towers: both
probabilities; 51 k) on the impression rows; DIN (attention units with Dice over the item and category history,
against the target; 21 k), DIEN (a GRU over the packed history, then the AUGRU stepped in Python with attention scores
from the target, masked by padding; its auxiliary loss, a training term, is dropped by the user's module, which feeds
it an all-padding negative history; 20 k), BST (the target appended to the history, absolute position embeddings for
up to 51 positions, one transformer encoder layer of 2 heads with the padding as key mask; 88 k) and the ComirecDR
user tower (``mode = "user"``: per-position bilinear maps, three rounds of masked dynamic routing into 4 interests,
concatenated with the profile, projected and L2-normalised, as a retrieval deployment queries its index with each; 46
k) on behaviour rows: user id, age group, target item, the fraction of the window the user's history fills, then the
window's items. The history keeps its first ``ceil(fraction * window)`` items and is padded with 0 after them, as
``generate_seq_feature`` pads; categories come from a seeded item-to-category buffer, the catalogue's lookup. vocos
(24 kHz): the mel vocoder of a TTS system (``decode`` of a 100-band log-mel spectrogram: 2 ConvNeXt blocks of 64, an
ISTFT head of 1024 with a hop of 256 and "same" padding by ``irfft`` and ``fold``; 163 k), copy synthesis (its
``forward``: torchaudio's MelSpectrogram, centred, the safe log, then the vocoder with the ``torch.istft`` "center"
head; 163 k) and the EnCodec-embedding vocoder (128-dimensional features at 75 frames a second, AdaLayerNorm on the
bandwidth id of 6 kbps, the symexp IMDCT head of 640-sample frames with its mel-scaled output layer; 131 k).
pesto-pitch: PESTO with the ``mir-1k_g7`` hyperparameters (a harmonic CQT of 251 bins from 27.5 Hz, 3 per semitone,
gamma 7, as a convolution of 502 real and imaginary kernels of 4096 taps with a stride of 160, 2.06 M constants among
the parameters; the 1-D ResNet's 384-bin softmax, 130 k) at 16 kHz with a 10 ms step, ``convert_to_freq=True``: pitch
in Hz, voicing confidence and energy per frame.

Each is small and has the dynamic axes a deploying user declares: the batch only for the impression rows (their fields
are the model's) and for ComirecDR (its bilinear maps are sized for the 20-item window; rows of 24); batch and history
(rows of ``4 + window``: 20 at the spec's size) for DIN, DIEN and BST, whose padding masks and loops follow the window
(BST raises past 50 items); batch and frames for the two feature vocoders (mel of 100 bands, codec embeddings of 128
channels, 32 frames); batch and time for copy synthesis (8192 samples) and PESTO (16000). All inputs are in [0, 1).
Set-valued outputs: none. Random weights are left as constructed except the embedding tables' std (above) and one
parameter: ComirecDR's capsule network allocates its bilinear maps with ``torch.Tensor(...)`` and never initialises
them (a trained checkpoint overwrites them), so they hold uninitialised memory (NaN in the outputs here); the user
gives them normal weights of std 0.1. The wrappers were checked only for building and running eagerly (deterministic
over two forwards, finite outputs, outputs differing across the batch) before any migrate run, with a source tree
unpacked by ``fetch_sources`` from ``PINS66`` and ``make_zoo``, each model in its own process with one thread on the
two cores shared with other sessions: at the spec's size, one more in the batch, and larger dynamic sizes with both
batches (windows of 40 and, for BST, 50; 80 mel frames and 75 codec frames; 24000 samples for copy synthesis; 32000
for PESTO). Every import takes about 2 s (torchaudio, pandas, SciPy); building, with the calibration, under 0.1 s;
every forward under 0.02 s except PESTO's (0.2 to 0.4 s at 16000 samples, 0.5 to 0.7 s at 32000, batches of 2 and 3,
load varying). Odd, left as the libraries have them: BST's ``nn.TransformerEncoder`` warns that
``enable_nested_tensor`` is True but unused (LeakyReLU is not ReLU or GELU); vocos' ``forward`` and ``decode`` are
decorated with ``torch.inference_mode``; copy synthesis returns 23808 samples for 24000 (94 centred frames: 93 hops of
256); random weights give PESTO pitches spread over thousands of Hz (its 384 bins span MIDI 0 to 128, converted to Hz)
and the EnCodec vocoder amplitudes up to 2.6 (mean 0.57 at the spec's size: symexp of coefficients clipped only at
100, the audio not clipped), where the mel vocoder's stay under 0.1; DIEN's AUGRU replaces rows whose attention is all
NaN (an empty history) with uniform attention behind ``if nan_rows.any()``, which the rows here (every history holds
at least one item) never take."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torchaudio's Python packages (a dependency: vocos and PESTO import it, zoo 64 unpacked
#: the same wheel) and three libraries by authors no earlier zoo ran, unpacked wheels like the others (never
#: pip-installed): torch-rechub (Datawhale: recommendation models), vocos (Hubert Siuzdak at Charactr: a Fourier-based
#: neural vocoder) and pesto-pitch (Alain Riou at Sony CSL Paris: self-supervised pitch estimation).
PINS66 = {**PINS31, "torchaudio": "2.11.1", "torch_rechub": "0.9.0", "vocos": "0.1.0", "pesto_pitch": "2.0.1"}

#: The user's inputs, all in [0, 1): rows of an impression log (batch, fields), behaviour rows (batch, 4 + history),
#: mel or codec features (batch, channels, frames) and mono waveforms (batch, time).
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BH = 'dynamic_axes = { x = { 0 = "batch", 1 = "history" } }'
_BF = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'

# ---------------------------------------------------------------------------------------------------------------
# torch-rechub imports scikit-learn at package import (its trainers' and data utilities' metrics and label encoder;
# compiled, not in the venv); vocos imports encodec (its EnCodec feature extractor; no wheel on the index). No model
# here calls into either, so the user's module stands them in with empty modules that have a module spec and the
# names imported from them (placeholder classes and functions). Everything else (NumPy, SciPy, pandas, tqdm, PyYAML,
# huggingface_hub, einops, OmegaConf) comes from the venv; torchaudio is the pinned wheel's Python code.
_GEN = '''import importlib.machinery
import importlib.util


def _stand_in(name, **names):
    """An empty module with a spec, registered under ``name``, holding ``names``."""
    if name not in sys.modules:
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
        module.__dict__.update(names)
        sys.modules[name] = module
    return sys.modules[name]


class _Unavailable:
    """What the stand-ins hand out: a name that may be imported but not used."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("a stand-in of the zoo: this library is not installed")


def _unavailable(*args, **kwargs):
    raise RuntimeError("a stand-in of the zoo: this library is not installed")


_stand_in("sklearn")
_stand_in("sklearn.metrics", roc_auc_score=_unavailable, mean_squared_error=_unavailable, log_loss=_unavailable)
_stand_in("sklearn.preprocessing", LabelEncoder=_Unavailable, MinMaxScaler=_Unavailable)
_stand_in("sklearn.cluster", KMeans=_Unavailable)
_stand_in("encodec", EncodecModel=_Unavailable)

# vocos' IMDCT takes its window from ``scipy.signal.cosine``, which SciPy 1.13 removed (it lives on as
# ``scipy.signal.windows.cosine``): the user's module restores the old name, as a pin of an older SciPy would.
import scipy.signal

if not hasattr(scipy.signal, "cosine"):
    scipy.signal.cosine = scipy.signal.windows.cosine

from torch_rechub.basic.features import DenseFeature, SequenceFeature, SparseFeature
from torch_rechub.basic.initializers import RandomNormal
from torch_rechub.models.matching import ComirecDR
from torch_rechub.models.multi_task import PLE
from torch_rechub.models.ranking import BST, DCNv2, DIEN, DIN, DeepFM
from vocos import Vocos
from vocos.feature_extractors import MelSpectrogramFeatures
from vocos.heads import IMDCTSymExpHead, ISTFTHead
from vocos.models import VocosBackbone
from pesto.data import Preprocessor
from pesto.model import PESTO, Resnet1d

#: An impression log's fields, Criteo's layout made smaller: 4 normalised counts and 12 categorical fields of these
#: vocabulary sizes. Embedding tables get an std of 0.05 (torch-rechub's default 1e-4 leaves every row the same to
#: four digits, where trained tables are not).
DENSE = 4
VOCABS = [1000, 500, 200, 100, 50, 30, 20, 10, 1000, 300, 60, 8]
#: The behaviour logs: 1000 users, 10 age groups, 500 items in 50 categories (0 is the padding id of both).
USERS, AGES, ITEMS, CATES = 1000, 10, 500, 50


def table():
    return RandomNormal(0, 0.05)


def impression_features():
    dense = [DenseFeature(f"I{i}") for i in range(DENSE)]
    sparse = [SparseFeature(f"C{i}", vocab, embed_dim=8, initializer=table()) for i, vocab in enumerate(VOCABS)]
    return dense, sparse


class Impressions(torch.nn.Module):
    """A CTR model as its serving graph calls it: one row of the user's impression log per request, the counts as
    given, each categorical field's id from its column (the row's value scaled to the field's vocabulary), the
    model's dict of named features, its probabilities."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def features(self, x):
        named = {f"I{i}": x[:, i] for i in range(DENSE)}
        for i, vocab in enumerate(VOCABS):
            named[f"C{i}"] = (x[:, DENSE + i] * vocab).long().clamp(max=vocab - 1)
        return named

    def forward(self, x):
        return self.model(self.features(x))


def behaviour_features(dim=8):
    """The user profile, the target item and its category, and the history of both (padded with 0, the history's
    tables shared with the target's)."""
    profile = [SparseFeature("user_id", USERS, embed_dim=dim, initializer=table()),
               SparseFeature("age", AGES, embed_dim=dim, initializer=table())]
    target = [SparseFeature("target_item", ITEMS + 1, embed_dim=dim, padding_idx=0, initializer=table()),
              SparseFeature("target_cate", CATES + 1, embed_dim=dim, padding_idx=0, initializer=table())]
    history = [SequenceFeature("hist_item", ITEMS + 1, embed_dim=dim, pooling="concat", shared_with="target_item",
                               padding_idx=0),
               SequenceFeature("hist_cate", CATES + 1, embed_dim=dim, pooling="concat", shared_with="target_cate",
                               padding_idx=0)]
    return profile, target, history


class Behaviour(torch.nn.Module):
    """A sequential recommender as served: a row per request of user id, age group, target item and the fraction of
    the history window the user has filled, then the window's items (most recent first). The ids are the columns
    scaled to their vocabularies; the history keeps its first ``ceil(fraction * window)`` items and pads the rest with
    0, as torch-rechub's ``generate_seq_feature`` pads; each item's category comes from the catalogue's item-to-
    category table (a buffer: the user's lookup, seeded), for the target and for the history."""

    def __init__(self, model, negatives=False):
        super().__init__()
        self.model = model
        self.negatives = negatives
        generator = torch.Generator().manual_seed(11)
        categories = torch.randint(1, CATES + 1, (ITEMS + 1,), generator=generator)
        categories[0] = 0
        self.register_buffer("item_cate", categories)

    def features(self, x):
        window = x.shape[1] - 4
        user = (x[:, 0] * USERS).long().clamp(max=USERS - 1)
        age = (x[:, 1] * AGES).long().clamp(max=AGES - 1)
        target = 1 + (x[:, 2] * ITEMS).long().clamp(max=ITEMS - 1)
        filled = torch.ceil(x[:, 3:4] * window)
        positions = torch.arange(window, device=x.device).unsqueeze(0)
        items = 1 + (x[:, 4:] * ITEMS).long().clamp(max=ITEMS - 1)
        items = torch.where(positions < filled, items, torch.zeros_like(items))
        named = {"user_id": user, "age": age, "target_item": target, "target_cate": self.item_cate[target],
                 "hist_item": items, "hist_cate": self.item_cate[items]}
        if self.negatives:
            # DIEN's negative history feeds its training loss only: served, it is all padding.
            named["neg_hist_item"] = torch.zeros_like(items)
            named["neg_hist_cate"] = torch.zeros_like(items)
        return named

    def forward(self, x):
        return self.model(self.features(x))


def deepfm():
    dense, sparse = impression_features()
    return Impressions(DeepFM(deep_features=dense + sparse, fm_features=sparse,
                              mlp_params={"dims": [64, 32], "dropout": 0.2, "activation": "relu"}))


def dcnv2():
    dense, sparse = impression_features()
    return Impressions(DCNv2(dense + sparse, n_cross_layers=2, mlp_params={"dims": [64, 32], "dropout": 0.2},
                             model_structure="parallel", use_low_rank_mixture=True, low_rank=8, num_experts=4))


def ple():
    dense, sparse = impression_features()
    return Impressions(PLE(dense + sparse, task_types=["classification", "classification"], n_level=2,
                           n_expert_specific=2, n_expert_shared=1, expert_params={"dims": [32], "dropout": 0.2},
                           tower_params_list=[{"dims": [16]}, {"dims": [16]}]))


def din():
    profile, target, history = behaviour_features()
    return Behaviour(DIN(profile, history, target, mlp_params={"dims": [64, 32], "dropout": 0.2},
                         attention_mlp_params={"dims": [32, 16]}))


class DIENServing(torch.nn.Module):
    """DIEN's prediction without its auxiliary loss (the second output, a training term)."""

    def __init__(self):
        super().__init__()
        profile, target, history = behaviour_features()
        negatives = [SequenceFeature("neg_hist_item", ITEMS + 1, embed_dim=8, pooling="concat",
                                     shared_with="target_item", padding_idx=0),
                     SequenceFeature("neg_hist_cate", CATES + 1, embed_dim=8, pooling="concat",
                                     shared_with="target_cate", padding_idx=0)]
        self.dien = DIEN(profile, history, negatives, target, mlp_params={"dims": [64, 32], "dropout": 0.2})

    def forward(self, named):
        prediction, _ = self.dien(named)
        return prediction


def dien():
    return Behaviour(DIENServing(), negatives=True)


def bst():
    profile, target, history = behaviour_features()
    return Behaviour(BST(profile, history, target, mlp_params={"dims": [64, 32], "dropout": 0.2}, nhead=2,
                         dropout=0.1, num_layers=1, max_seq_len=51))


#: ComirecDR's window: its capsule network's bilinear maps are sized for it.
COMIREC_WINDOW = 20


def comirec_user_tower():
    """ComirecDR's user tower, as a retrieval deployment exports it (``mode = "user"``) to query an approximate
    nearest-neighbour index with each interest: the history's embeddings through per-position bilinear maps, three
    iterations of dynamic routing (padding masked) into 4 interest capsules, the profile's embeddings concatenated,
    projected and L2-normalised."""
    user = [SparseFeature("user_id", USERS, embed_dim=16, initializer=table()),
            SparseFeature("age", AGES, embed_dim=16, initializer=table())]
    item = [SparseFeature("item_id", ITEMS + 1, embed_dim=16, padding_idx=0, initializer=table())]
    history = [SequenceFeature("hist_item", ITEMS + 1, embed_dim=16, pooling="concat", shared_with="item_id",
                               padding_idx=0)]
    negatives = [SequenceFeature("neg_items", ITEMS + 1, embed_dim=16, pooling="concat", shared_with="item_id")]
    model = ComirecDR(user, history, item, negatives, max_length=COMIREC_WINDOW, interest_num=4)
    # The capsule network's bilinear maps are allocated with ``torch.Tensor(...)`` and never initialised (a trained
    # checkpoint overwrites them): uninitialised memory, NaN here. The user gives them normal weights of std 0.1.
    torch.nn.init.normal_(model.capsule.w, std=0.1)
    model.mode = "user"
    return Behaviour(model)


class MelVocoder(torch.nn.Module):
    """A TTS system's vocoder: Vocos' ``decode`` (ConvNeXt backbone, ISTFT head predicting magnitude and phase) from
    a 100-band log-mel spectrogram at 24 kHz with a hop of 256, as its mel checkpoint is configured (narrower)."""

    def __init__(self):
        super().__init__()
        self.vocos = Vocos(MelSpectrogramFeatures(sample_rate=24000, n_fft=1024, hop_length=256, n_mels=100),
                           VocosBackbone(input_channels=100, dim=64, intermediate_dim=192, num_layers=2),
                           ISTFTHead(dim=64, n_fft=1024, hop_length=256, padding="same"))

    def forward(self, mel):
        return self.vocos.decode(mel)


class CopySynthesis(torch.nn.Module):
    """Vocos' own ``forward``: the waveform's log-mel spectrogram (torchaudio's MelSpectrogram, centred frames),
    then the vocoder: a resynthesis of the input, as a codec-free speech pipeline runs it end to end."""

    def __init__(self):
        super().__init__()
        self.vocos = Vocos(MelSpectrogramFeatures(sample_rate=24000, n_fft=1024, hop_length=256, n_mels=100,
                                                  padding="center"),
                           VocosBackbone(input_channels=100, dim=64, intermediate_dim=192, num_layers=2),
                           ISTFTHead(dim=64, n_fft=1024, hop_length=256, padding="center"))

    def forward(self, audio):
        return self.vocos(audio)


class CodecVocoder(torch.nn.Module):
    """Vocos in place of EnCodec's decoder: 128-dimensional codec embeddings (75 frames a second at 24 kHz, a hop of
    320), the backbone's LayerNorms conditioned on the bandwidth (AdaLayerNorm over EnCodec's four bandwidths, the
    user's 6 kbps: id 2), and the MDCT head (symmetric exponential of the coefficients, inverse MDCT, 640-sample
    frames, its output layer scaled on the mel scale)."""

    def __init__(self):
        super().__init__()
        self.vocos = Vocos(MelSpectrogramFeatures(),
                           VocosBackbone(input_channels=128, dim=64, intermediate_dim=192, num_layers=2,
                                         adanorm_num_embeddings=4),
                           IMDCTSymExpHead(dim=64, mdct_frame_len=640, padding="same", sample_rate=24000))
        self.register_buffer("bandwidth_id", torch.tensor([2]))

    def forward(self, features):
        return self.vocos.decode(features, bandwidth_id=self.bandwidth_id)


class PitchTracker(torch.nn.Module):
    """PESTO as ``pesto.predict`` runs it on 16 kHz audio with a 10 ms step, built as ``load_model`` builds the
    packaged ``mir-1k_g7`` checkpoint (its hyperparameters, random weights): the harmonic CQT (251 bins from 27.5 Hz,
    3 per semitone, gamma 7) in dB, the energy and the voicing confidence from it, the CQT cropped by the pitch-shift
    margin, the 1-D ResNet's 384-bin activations rolled by the learned shift, the ALWA reduction to fractional MIDI
    semitones and their conversion to Hz."""

    def __init__(self):
        super().__init__()
        preprocessor = Preprocessor(hop_size=10, sampling_rate=16000, harmonics=[1], fmin=27.5, fmax=None,
                                    bins_per_semitone=3, n_bins=251, center_bins=True, gamma=7, center=True)
        encoder = Resnet1d(n_chan_input=1, n_chan_layers=[40, 30, 30, 10, 3], n_prefilt_layers=3,
                           prefilt_kernel_size=39, residual=True, n_bins_in=219, output_dim=384, activation_fn="leaky",
                           a_lrelu=0.3, p_dropout=0.2, fc_margin=0, spiral=0, final_norm="softmax")
        self.pesto = PESTO(encoder, preprocessor=preprocessor, crop_kwargs={"min_steps": -16, "max_steps": 16},
                           reduction="alwa")

    def forward(self, audio):
        return self.pesto(audio, convert_to_freq=True, return_activations=False)'''

MODELS66 = [
    # torch-rechub: CTR ranking on impression rows.
    Spec("rechub_deepfm", "torch-rechub DeepFM (4 dense and 12 categorical fields, FM over the embeddings, MLP 64-32)",
         _GEN, "deepfm()", "return self.m(x)", "2, 16", _B, calibrate="self.m(xb)"),
    Spec("rechub_dcnv2_mixture", "torch-rechub DCN-v2 (parallel, 2 cross layers as a mixture of 4 low-rank experts "
         "of rank 8, MLP 64-32)", _GEN, "dcnv2()", "return self.m(x)", "2, 16", _B, calibrate="self.m(xb)"),
    Spec("rechub_ple_ctr_cvr", "torch-rechub PLE (2 levels of customised gate control, 2 task experts and 1 shared, "
         "CTR and CVR towers)", _GEN, "ple()", "return self.m(x)", "2, 16", _B, calibrate="self.m(xb)"),
    # torch-rechub: ranking and retrieval on behaviour sequences.
    Spec("rechub_din", "torch-rechub DIN (target attention with Dice over the item and category history, Dice MLP)",
         _GEN, "din()", "return self.m(x)", "2, 24", _BH, calibrate="self.m(xb)"),
    Spec("rechub_dien", "torch-rechub DIEN (GRU interest extractor over packed padded sequences, AUGRU interest "
         "evolution stepped over the history in Python, Dice MLP)", _GEN, "dien()", "return self.m(x)", "2, 24", _BH,
         calibrate="self.m(xb)"),
    Spec("rechub_bst", "torch-rechub BST (the target appended to the history, absolute position embeddings up to 51, "
         "one transformer layer with a key padding mask)", _GEN, "bst()", "return self.m(x)", "2, 24", _BH,
         calibrate="self.m(xb)"),
    Spec("rechub_comirec_dr_user_tower", "torch-rechub ComirecDR user tower (per-position bilinear maps, 3 rounds of "
         "masked dynamic routing into 4 interest capsules over a 20-item window, L2-normalised)", _GEN,
         "comirec_user_tower()",
         "return self.m(x)", "2, 24", _B),
    # vocos: neural vocoders.
    Spec("vocos_mel_vocoder", "vocos Vocos.decode (ConvNeXt backbone of 2 blocks of 64, ISTFT head of 1024 with a "
         "hop of 256, same padding) from a 100-band log-mel spectrogram", _GEN, "MelVocoder()", "return self.m(x)",
         "2, 100, 32", _BF),
    Spec("vocos_copy_synthesis", "vocos Vocos.forward (torchaudio MelSpectrogram of 100 bands at 24 kHz, centred, "
         "safe log; ConvNeXt backbone; ISTFT head): waveform to waveform", _GEN, "CopySynthesis()",
         "return self.m(x)", "2, 8192", _BT),
    Spec("vocos_encodec_imdct", "vocos Vocos.decode from 128-dimensional EnCodec embeddings (AdaLayerNorm on the "
         "6 kbps bandwidth id, IMDCT head with symexp, 640-sample frames)", _GEN, "CodecVocoder()", "return self.m(x)",
         "2, 128, 32", _BF),
    # pesto-pitch: monophonic pitch estimation.
    Spec("pesto_pitch_hz", "pesto-pitch PESTO (mir-1k_g7 hyperparameters: harmonic CQT, voicing confidence, 1-D "
         "ResNet, ALWA reduction) at 16 kHz, 10 ms step: pitch in Hz, confidence, energy", _GEN, "PitchTracker()",
         "return self.m(x)", "2, 16000", _BT),
]

if __name__ == "__main__":
    main(MODELS66, "real_zoo66", PINS66)
