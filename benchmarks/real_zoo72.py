"""A seventy-second real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo72.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision: a pitch tracker as voice conversion and singing
synthesis deploy it, a neural speech codec that turns speech into the tokens of a speech language model and back, and
click-through-rate models as an ad server scores requests. The thirty-first zoo's pins, torchaudio's Python packages
(torchfcpe's mel extractor imports its ``Resample``; the wheel zoos 64, 66 and 68 unpacked, its compiled extension not
loaded), local-attention 1.9.15 (Phil Wang, github.com/lucidrains/local-attention, MIT: imported by torchfcpe's
conformer; the last release before the package began to import hyper-connections, which the venv has not) and three
libraries by authors whose code no earlier zoo or sweep ran (``PINS72``: unpacked wheels like the others, never
pip-installed): torchfcpe 0.0.4 (CNChTu, github.com/CNChTu/FCPE, MIT: FCPE, fast context-based pitch estimation, a
conformer over a mel spectrogram scoring 360 pitch bins, with its decoders and its unvoiced-frame interpolation),
speechtokenizer 1.0.1 (Xin Zhang, Dong Zhang, Shimin Li, Yaqian Zhou and Xipeng Qiu, Fudan University,
github.com/ZhangXInFD/SpeechTokenizer, Apache-2.0: SpeechTokenizer, a SEANet encoder and decoder around an 8-level
residual vector quantizer whose first level is distilled towards HuBERT, the speech tokenizer of AnyGPT and
SpeechGPT-Gen) and torchfm 0.2 (rixwew, github.com/rixwew/pytorch-fm, MIT: factorization-machine models for
click-through-rate prediction, the last release published as a wheel). speechtokenizer's package ``__init__`` imports
its trainer (beartype, accelerate, lion-pytorch, tensorboard and matplotlib, none in the venv): the user's module
registers the package from its import spec without running ``__init__``, as zoo 69 did for psenet-text-detector, and
imports the model module, which needs einops (the venv's) and NumPy. torchfcpe tries librosa for its mel filter bank
and, without it, prints a notice and uses its own copy of librosa's function. torchfm needs NumPy only (``np.long``,
which NumPy 2 defines again). The wheels have no compiled code; torchfcpe's carries its trained checkpoint (40 MB,
unpacked with the rest and never loaded here). Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the index, the wheel's files and metadata and a first reading of
the imports): parallel-wavegan (Tomoki Hayashi's vocoders), openai-whisper and encodec (no wheel in this index: sdists
only, and ``fetch_sources`` unpacks wheels), movinets and pytorchvideo (video recognition: no wheel in this index),
resemblyzer (Resemble AI's speaker encoder: webrtcvad, compiled, and librosa at package import, its weights loaded from
the wheel in the constructor, and the network a 3-layer LSTM), diffsptk (differentiable speech signal processing:
filters and analyses rather than models a service exports), local-attention 1.11.2 (imports hyper-connections: the
earlier release serves torchfcpe the same way). Within torchfcpe: ``spawn_bundled_infer_model`` (it loads the bundled
trained weights: the user builds ``InferCFNaiveMelPE`` from the same configuration with a freshly built network's state
dict), the ONNX wrapper (``NotImplementedError``), the training loss and the harmonic embedding (training only). Within
speechtokenizer: its trainer and discriminators (training), the ``load_from_checkpoint`` of the released configuration
and weights (the user writes the configuration's layout in code, narrower: 16 filters and 128 channels where the release
has 64 and 1024; 5.85 M parameters). Within torchfm: FNFM (its ``forward`` calls ``self.embed_layer``, which the class
never defines: it cannot run), the plain FM, LR, Wide & Deep, NFM, AFM and DCN (the same embedding and interaction
layers as the five chosen, in simpler arrangements), its dataset readers (NumPy and LMDB over files); xDeepFM with
``split_half=True`` (the default) fails on every input (its compressed interaction network sizes the final linear layer
as if the last layer were halved, then does not halve it: 24 inputs for a layer of 16), so the user builds it with
``split_half=False``.

12 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 71 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment (an
STFT with reflect padding whose right side is a Python ``max`` of sizes, a mel filter bank built in NumPy at
construction, the frame count from ``int`` of the input's length by floor division with a Python ``if`` that appends a
repeated frame or cuts frames; a resampler built inside ``forward`` on the first call for an unseen sample rate and kept
in a dict keyed by the rate; FCPE's Performer-style fast attention with a random orthogonal projection drawn at
construction; a local-argmax decoder gathering the 9 bins around each frame's argmax by an index tensor clamped in place
by boolean masks, a confidence mask filled with ``-inf`` by boolean indexing and multiplied in, cents to Hz by a power
of 2; ``infer``'s unvoiced flags, the per-clip Python loop of ``torch.where`` on the flags, ``argsort``,
``searchsorted`` and boolean-mask assignment that interpolates unvoiced frames, ``f0[f0 > f0_max] = f0_max``, nearest
interpolation to a target length from ``int`` of a size, ``no_grad`` inside the modules; SEANet's convolutions with the
extra padding from ``math.ceil`` of the frames a length needs and reflect padding with a Python branch for short inputs,
weight norm, bidirectional LSTMs whose input is repeated to the doubled width for the skip, the decoder's transposed
convolutions unpadded by slicing; residual vector quantization as a Python loop over levels, nearest codes by ``max`` of
negative distances from a matmul, codes looked up by ``F.embedding``, codes stacked to (levels, clips, frames) and a
decode loop iterating over the first axis of a tensor; the quantizer's ``if self.inited`` on a buffer and a loss of
``torch.tensor([0.0])`` made in ``forward``; field offsets kept as a NumPy array and turned into a tensor by
``new_tensor`` on every call, pairs of fields gathered by Python lists of indices built in ``forward`` from the field
count, a field-aware machine that stacks the products of every pair from a double Python loop, a compressed interaction
network of outer products reshaped with the shape read at run time, PyTorch's ``MultiheadAttention`` over the fields, an
outer-product kernel). torchfcpe (16 kHz; the bundled checkpoint's configuration: 128 mel bins of a 1024-point STFT
every 160 samples, 360 bins from 32.7 to 1975.5 Hz), each network behind the user's service module that calls ``infer``
as the library documents it: the bundled card's network (6 conformer layers of 512 with convolution modules only; 10.8 M
parameters) with the local-argmax decoder, the library's threshold of 0.006, unvoiced frames interpolated and the f0
capped at 1100 Hz; the architecture with its attention (``conv_only=False``: Performer fast attention of 8 heads in each
of 4 layers of 256; 4.14 M) with the argmax decoder (the weighted mean over all bins); and the bundled card's network
for a singing-voice converter at 44.1 kHz (``infer`` resamples to 16 kHz, interpolates the unvoiced frames and returns
the f0 and the unvoiced flags stretched to the vocoder's frames, one every 512 samples). speechtokenizer (16 kHz, the
released configuration's layout: strides 8, 5, 4 and 2, 50 frames a second, a bidirectional 2-layer LSTM, 8 levels of
1024 codes, semantic features of 768; 16 filters and 128 channels where it has 64 and 1024): ``encode`` to the 8 levels'
tokens; the tokenizer's forward (the audio decoded from all 8 levels and the first level's output projected to the 768
semantic dimensions); a low-bitrate codec (the first 3 levels' tokens and the audio decoded from them); and ``decode``
from the 8 levels' tokens. Its quantizers are built for k-means initialisation (zero codebooks, filled from the first
batch they see): the user's builder runs the library's own initialisation once on four seeded random clips of 6 s (1200
frames, so that its sampling draws distinct frames for the 1024 codes), with one k-means iteration rather than its 50,
each level fitted to the residual the levels before it leave, as a checkpoint's codebooks are fitted to its encoder.
torchfm (an ad request of 10 categorical fields: user, item, category, brand, hour, weekday, device, operating system,
region and slot, with vocabularies of 4 to 5000; random weights, BatchNorm at its default statistics, dropout off in
``eval``): DeepFM (embeddings of 16, MLP of 64 and 32; 0.12 M parameters), xDeepFM (compressed interaction layers of 16
and 16; 0.13 M), AutoInt (3 layers of 2-head self-attention over the fields; 0.13 M), the field-aware factorization
machine (10 field-aware embeddings of 4; 0.26 M) and the outer-product PNN (0.23 M), each behind the user's service
module, which turns each field's value into an id and returns the model's click probability.

Each has the dynamic axes a deploying user declares: batch and time for the pitch trackers (mono clips of any length,
(clips, samples)) and the speech tokenizer's audio side ((clips, 1, samples); any length, padded to whole frames of 320
samples by SEANet, so the decoded audio is the input's length rounded up to a frame: 16320 samples for 16100), batch and
frames for the token decoder ((clips, 8, frames): one row of token ids per level, given as fractions of the codebook in
[0, 1) and rounded down to ids by the service), batch alone for the click-through-rate models ((requests, 10): one
fraction per field, scaled by the field's vocabulary and rounded down). All inputs are in [0, 1). Set-valued outputs:
none. Outputs: f0 in Hz (clips, frames, 1) for the trackers, with the unvoiced flags (clips, frames, 1) at 44.1 kHz;
int64 tokens (8 or 3, clips, frames), audio (clips, 1, samples) and semantic features (clips, frames, 768) for the
tokenizer; (requests,) click probabilities. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs, outputs differing across the batch, with the exception below) before
any migrate run, with a source tree unpacked by ``fetch_sources`` from ``PINS72`` and ``make_zoo``, each model in its
own process with one thread on the two cores shared with other sessions: at the spec's size, one more in the batch and a
larger size (3 s at 16 kHz and 2.5 s for the tokenizer, 3 s at 44.1 kHz, 125 frames of tokens, 64 requests). Imports
take 1.1 to 3.3 s (load varying). Builds: torchfm 0.01 s or less, FCPE 0.1 to 0.4 s, speechtokenizer 5.2 to 8.5 s (the
k-means initialisation over 1200 frames, a (1200, 1024, 128) difference tensor per level). Forwards: torchfm under 0.01
s; FCPE 0.07 to 0.10 s for 1 s of audio and 0.17 to 0.18 s for 3 s; the tokenizer 0.06 to 0.13 s for 1 s and 0.16 to
0.21 s for 2.5 s, its decoder 0.05 to 0.11 s. Peak memory 0.32 GB a process for torchfm, 0.40 to 0.44 GB for FCPE, about
1.7 GB for speechtokenizer (the k-means). Changed after the first eager runs, before any migrate run: xDeepFM's
``split_half`` (above), and the tokenizer's codebooks, first filled with the library's ``uniform_init`` draws and the
flag set by hand: those codebooks lay far from this encoder's output and every frame of every clip took the same code at
every level. Odd, left as the libraries have them: with random weights every FCPE frame is confident (its highest bin
scores 0.79 to 0.89, far above the threshold of 0.006), so no frame is unvoiced, the interpolation loop runs over empty
index sets and the 44.1 kHz service's unvoiced flags are 0 for every clip (the exception: that output is the same across
the batch); the bundled-card tracker's f0 reaches the 1100 Hz cap; the argmax decoder's weighted mean over all 360 bins
stays near 250 Hz; FCPE's builder prints a warning that the card leaves ``use_harmonic_emb`` unset (off by default: the
bundled card leaves it unset too), once per network built (twice here: the user's builder and ``InferCFNaiveMelPE`` each
build one), and its mel module prints ``[error with ...]max value is`` (a print, not an error) when the resampled audio
exceeds 1, which inputs in [0, 1) do after the 44.1 kHz sinc resampler (1.10); its mel frame count at 44.1 kHz is
computed from the input's length with the 16 kHz hop, so one repeated frame is appended and the frames then differ from
that count; SEANet uses the deprecated ``torch.nn.utils.weight_norm`` (a warning); the tokenizer's encoder changes
little along time for these inputs, so after the k-means initialisation the first four levels use 4 to 37 distinct codes
on the spec's input and the last four one code each, and the decoded audio of two clips differs by about 1e-5 (its
standard deviation is 0.013); the outer-product PNN's probabilities all lie between 0.478 and 0.48 with
random weights."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torchaudio's Python packages (torchfcpe's mel extractor imports its ``Resample``; zoos
#: 64, 66 and 68 unpacked the same wheel), local-attention 1.9.15 (Phil Wang's windowed attention, which torchfcpe's
#: conformer imports; the last release before it began to import hyper-connections, which the venv has not) and three
#: libraries by authors no earlier zoo or sweep ran, unpacked wheels like the others (never pip-installed): torchfcpe
#: (CNChTu's fast context-based pitch estimation), speechtokenizer (Fudan's unified speech tokenizer: a SEANet codec
#: with residual vector quantization) and torchfm (rixwew's factorization-machine click-through-rate models).
PINS72 = {**PINS31, "torchaudio": "2.11.1", "local_attention": "1.9.15", "torchfcpe": "0.0.4",
          "speechtokenizer": "1.0.1", "torchfm": "0.2"}

#: The user's inputs, all in [0, 1): mono waveforms (clips, samples) for the pitch trackers, (clips, 1, samples) for
#: the speech tokenizer, (clips, 8, frames) for its token decoder (one row of every quantizer's token ids, as
#: fractions of the codebook), and (requests, 10) for the click-through-rate models (one fraction per field).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_BCT = 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'
_BQT = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# torchfcpe's package import pulls its inference wrapper, its mel extractor (torchaudio's ``Resample``: the pinned
# wheel's Python code, its compiled extension not loaded) and its conformer (local-attention, pinned; einops from the
# venv). librosa is tried for the mel filter bank and, absent here, the library's own copy of it is used.
_PITCH = '''
from torchfcpe.models_infer import InferCFNaiveMelPE, spawn_model
from torchfcpe.tools import DotDict


def fcpe_card(conv_only=True, hidden=512, layers=6):
    """The configuration torchfcpe's bundled checkpoint (``fcpe_c_v001``) carries: 16 kHz audio, 128 mel bins of a
    1024-point STFT every 160 samples, a conformer of 6 layers and 512 channels with convolution modules only, 360
    pitch bins from 32.7 to 1975.5 Hz; dropout off as ``spawn_bundled_infer_model`` sets it."""
    return DotDict({
        "mel": {"sr": 16000, "num_mels": 128, "n_fft": 1024, "win_size": 1024, "hop_size": 160, "fmin": 0,
                "fmax": 8000},
        "model": {"type": "CFNaiveMelPE", "out_dims": 360, "hidden_dims": hidden, "n_layers": layers, "n_heads": 8,
                  "f0_min": 32.7, "f0_max": 1975.5, "use_fa_norm": True, "conv_only": conv_only,
                  "conv_dropout": 0.0, "atten_dropout": 0.0}})


def fcpe(conv_only=True, hidden=512, layers=6):
    """The inference module ``spawn_infer_model_from_pt`` builds, given the state dict of a freshly built network
    (random weights) where it would pass the checkpoint's."""
    card = fcpe_card(conv_only, hidden, layers)
    return InferCFNaiveMelPE(card, spawn_model(card).state_dict())


class PitchService(torch.nn.Module):
    """A pitch service around FCPE's ``infer``: (clips, samples) in, the f0 contour in Hz per 10 ms frame out (0
    where a frame is unvoiced), with the library's post-processing as the service sets it."""

    def __init__(self, model, sample_rate, **options):
        super().__init__()
        self.model = model
        self.sample_rate = sample_rate
        self.options = options

    def forward(self, wav):
        return self.model.infer(wav.unsqueeze(-1), self.sample_rate, **self.options)


class VoiceConversionPitch(torch.nn.Module):
    """The f0 a singing-voice converter takes from FCPE: 44.1 kHz audio resampled by the model to 16 kHz, the
    unvoiced frames filled by interpolation, the contour and the voiced/unvoiced flags stretched to the vocoder's
    frames (one every 512 samples at 44.1 kHz)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, wav):
        frames = wav.shape[1] // 512 + 1
        f0, uv = self.model.infer(wav.unsqueeze(-1), 44100, decoder_mode="local_argmax", threshold=0.006,
                                  interp_uv=True, output_interp_target_length=frames, retur_uv=True)
        return f0, uv'''

# ---------------------------------------------------------------------------------------------------------------
# speechtokenizer's package ``__init__`` imports its trainer (beartype, accelerate, lion-pytorch, tensorboard and
# matplotlib, none of them in the venv): the user's module registers the package from its import spec without running
# ``__init__`` and imports the model module, which needs einops and NumPy only.
_SPEECH = '''
import importlib.util
import sys

if "speechtokenizer" not in sys.modules:
    _package = importlib.util.find_spec("speechtokenizer")
    sys.modules["speechtokenizer"] = importlib.util.module_from_spec(_package)
from speechtokenizer.model import SpeechTokenizer

#: The released ``speechtokenizer_hubert_avg`` configuration's layout (16 kHz, strides 8, 5, 4 and 2: 50 frames a
#: second, a bidirectional 2-layer LSTM in the encoder, 8 residual quantizers of 1024 codes, the first distilled
#: towards 768-dimensional HuBERT features) at a narrower width: 16 filters where it has 64, 128 channels where it
#: has 1024.
CONFIG = {"n_filters": 16, "strides": [8, 5, 4, 2], "dimension": 128, "semantic_dimension": 768,
          "bidirectional": True, "dilation_base": 2, "residual_kernel_size": 3, "n_residual_layers": 1,
          "lstm_layers": 2, "activation": "ELU", "codebook_size": 1024, "n_q": 8, "sample_rate": 16000}
N_Q, CODES = 8, 1024


def speech_tokenizer():
    """SpeechTokenizer with random weights. Its quantizers are built for k-means initialisation: codebooks of zeros
    and an ``inited`` flag of 0, filled by ``init_embed_`` from the first batch the quantizer sees. A checkpoint brings
    codebooks fitted to its encoder; here the library's own initialisation fits them to this encoder's output on four
    seeded random clips of 6 s (1200 frames, more than the 1024 codes, so that ``sample_vectors`` draws distinct
    frames), each level on the residual the levels before it leave, with one k-means iteration rather than its 50
    (a shorter build; the codebooks are the sampled frames moved once towards their clusters' means)."""
    model = SpeechTokenizer(CONFIG).eval()
    for layer in model.quantizer.vq.layers:
        layer._codebook.kmeans_iters = 1
    generator = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        model.forward_feature(torch.rand(4, 1, 6 * CONFIG["sample_rate"], generator=generator))
    return model


class Tokenize(torch.nn.Module):
    """Speech to tokens for a speech language model: every quantizer's token ids, (8, clips, frames)."""

    def __init__(self, quantizers=N_Q):
        super().__init__()
        self.model = speech_tokenizer()
        self.quantizers = quantizers

    def forward(self, wav):
        return self.model.encode(wav, n_q=self.quantizers)


class Resynthesize(Tokenize):
    """The tokenizer's own forward, as its README reconstructs speech: the audio decoded from all 8 quantizers and
    the first quantizer's output projected to the 768 HuBERT dimensions (the semantic features)."""

    def forward(self, wav):
        audio, _, semantic = self.model(wav)
        return audio, semantic


class LowBitrate(Tokenize):
    """Speech coded at a low bitrate: the first 3 quantizers' tokens (the semantic one and two acoustic ones), then
    the audio decoded from them."""

    def __init__(self):
        super().__init__(quantizers=3)

    def forward(self, wav):
        codes = self.model.encode(wav, n_q=self.quantizers)
        return codes, self.model.decode(codes)


class Detokenize(torch.nn.Module):
    """Tokens to speech, the last stage of a speech language model's reply: (clips, 8, frames) token ids, given as
    fractions of the codebook and rounded down to ids here, moved to the library's (8, clips, frames) and decoded."""

    def __init__(self):
        super().__init__()
        self.model = speech_tokenizer()

    def forward(self, tokens):
        codes = (tokens * CODES).long().clamp(max=CODES - 1).transpose(0, 1)
        return self.model.decode(codes)'''

# ---------------------------------------------------------------------------------------------------------------
# torchfm imports NumPy (the field offsets; ``np.long``, which NumPy 2 defines again) and torch only.
_CTR = '''
from torchfm.model.afi import AutomaticFeatureInteractionModel
from torchfm.model.dfm import DeepFactorizationMachineModel
from torchfm.model.ffm import FieldAwareFactorizationMachineModel
from torchfm.model.pnn import ProductNeuralNetworkModel
from torchfm.model.xdfm import ExtremeDeepFactorizationMachineModel

#: The ad request's categorical fields and their vocabulary sizes: user, item, item category, brand, hour of the
#: day, day of the week, device type, operating system, region and slot position.
FIELDS = [1000, 5000, 40, 300, 24, 7, 4, 6, 60, 10]


class ClickRate(torch.nn.Module):
    """A click-through-rate service: one row of field values per request (fractions of each field's vocabulary,
    rounded down to ids here), the model's click probability per request."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("sizes", torch.tensor(FIELDS))

    def forward(self, x):
        ids = torch.minimum((x * self.sizes).long(), self.sizes - 1)
        return self.model(ids)'''

MODELS72 = [
    # torchfcpe: pitch (f0) estimation.
    Spec("fcpe_pitch_16k", "torchfcpe FCPE (bundled card: conv-only conformer, local argmax, unvoiced frames "
         "interpolated) on 16 kHz audio", _PITCH,
         'PitchService(fcpe(), 16000, decoder_mode="local_argmax", threshold=0.006, interp_uv=True, f0_max=1100.0)',
         "return self.m(x)", "2, 16000", _BT),
    Spec("fcpe_attention_argmax", "torchfcpe FCPE with its attention (Performer fast attention, 4 layers of 256), "
         "argmax decoder, on 16 kHz audio", _PITCH,
         'PitchService(fcpe(conv_only=False, hidden=256, layers=4), 16000, decoder_mode="argmax", threshold=0.006)',
         "return self.m(x)", "2, 16000", _BT),
    Spec("fcpe_svc_44k", "torchfcpe FCPE on 44.1 kHz audio (resampled inside, interpolated, stretched to the "
         "vocoder's frames with voiced flags)", _PITCH, "VoiceConversionPitch(fcpe())", "return self.m(x)",
         "2, 44100", _BT),
    # speechtokenizer: speech tokens for speech language models.
    Spec("speechtokenizer_encode", "speechtokenizer SpeechTokenizer encode (SEANet, BiLSTM, 8-level RVQ) on 16 kHz "
         "audio", _SPEECH, "Tokenize()", "return self.m(x)", "2, 1, 16000", _BCT),
    Spec("speechtokenizer_resynthesize", "speechtokenizer SpeechTokenizer forward (reconstruction and semantic "
         "features)", _SPEECH, "Resynthesize()", "return self.m(x)", "2, 1, 16000", _BCT),
    Spec("speechtokenizer_low_bitrate", "speechtokenizer SpeechTokenizer, 3 quantizers: tokens and decoded audio",
         _SPEECH, "LowBitrate()", "return self.m(x)", "2, 1, 16000", _BCT),
    Spec("speechtokenizer_decode", "speechtokenizer SpeechTokenizer decode (8 levels of tokens to 16 kHz audio)",
         _SPEECH, "Detokenize()", "return self.m(x)", "2, 8, 50", _BQT),
    # torchfm: click-through-rate prediction.
    Spec("torchfm_deepfm", "torchfm DeepFM (10 fields)", _CTR,
         "ClickRate(DeepFactorizationMachineModel(FIELDS, embed_dim=16, mlp_dims=(64, 32), dropout=0.2))",
         "return self.m(x)", "4, 10", _B),
    Spec("torchfm_xdeepfm", "torchfm xDeepFM (compressed interaction network, 10 fields)", _CTR,
         "ClickRate(ExtremeDeepFactorizationMachineModel(FIELDS, embed_dim=16, mlp_dims=(64, 32), dropout=0.2, "
         "cross_layer_sizes=(16, 16), split_half=False))", "return self.m(x)", "4, 10", _B),
    Spec("torchfm_autoint", "torchfm AutoInt (self-attention over fields, 10 fields)", _CTR,
         "ClickRate(AutomaticFeatureInteractionModel(FIELDS, embed_dim=16, num_heads=2, num_layers=3, "
         "mlp_dims=(64, 32), dropouts=(0.2, 0.2)))", "return self.m(x)", "4, 10", _B),
    Spec("torchfm_ffm", "torchfm field-aware factorization machine (10 fields)", _CTR,
         "ClickRate(FieldAwareFactorizationMachineModel(FIELDS, embed_dim=4))", "return self.m(x)", "4, 10", _B),
    Spec("torchfm_opnn", "torchfm outer-product PNN (10 fields)", _CTR,
         'ClickRate(ProductNeuralNetworkModel(FIELDS, embed_dim=16, mlp_dims=(64, 32), dropout=0.2, method="outer"))',
         "return self.m(x)", "4, 10", _B),
]

if __name__ == "__main__":
    main(MODELS72, "real_zoo72", PINS72)
