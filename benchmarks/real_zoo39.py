"""A thirty-ninth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo39.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on audio generation, enhancement and separation: the thirty-first zoo's
pins and three more libraries by three other authors, whose code no earlier zoo or sweep ran (``PINS39``: unpacked
wheels like the others, never pip-installed): snac 1.2.1 (Hubert Siuzdak's Multi-Scale Neural Audio Codec: the audio
padded on the right to a multiple of the hop times ``math.lcm`` of the first quantizer's stride and the attention
window, computed from the length with ``math.ceil``; a convolutional encoder and decoder with Snake activations,
residual units that crop their input by the length difference, windowed local attention whose window count is ``T //
window`` with rotary embeddings from the sequence length; a residual vector quantizer whose quantizers avg-pool by their
stride, pick the nearest L2-normalised code by ``max`` of a distance matrix and ``repeat_interleave`` back; decoder
noise blocks that draw ``torch.randn`` in the forward; torch, NumPy, einops), noisereduce 3.0.3 (Tim Sainburg's spectral
gating; its ``TorchGate`` module: a length check that raises below two windows, ``torch.stft`` with a Hann window made
in the forward, dB with a top-db clamp, a stationary threshold from per-frequency mean and standard deviation (of the
signal or of a separate noise recording) or a non-stationary one from a moving average by ``conv1d`` with
``padding="same"`` and a temperature sigmoid, the mask smoothed by a 2-D convolution with a triangular filter sized from
the sample rate and hop in ``__init__``, ``torch.istft`` without a length (the output is the input cropped to whole
hops); torch, and joblib, SciPy and tqdm at package import) and openunmix 1.3.0 (Fabian-Robert Stöter's and Antoine
Liutkus's Open-Unmix music source separation: ``Separator`` takes an STFT with reflect padding, a complex norm (averaged
over channels for mono), one BiLSTM spectrogram model per target (batch norm, the mix as a multiplicative mask, bins
cropped to ``max_bin``), then a Python loop over the samples and over windows of frames indexed by ``torch.arange`` with
``int(cur_frame[-1])`` as the next start, a Wiener filter (soft masks or magnitudes with the mix's phase by a
hand-written ``atan2``, an optional residual target) refined by expectation maximization (Python loops over sources,
channels and frame batches, 2x2 covariance inversions written out, a ``max`` rescaling), and an iSTFT to the input's
length; torch, NumPy; its package imports torchaudio, for file loading and torchaudio's STFT variant, which has no wheel
for the CPU torch here, so the user's module stands in an empty ``torchaudio``, as zoo 34's does for fvcore). New in the
``bench`` extra: joblib and cloudpickle (pure Python; noisereduce's package imports joblib, whose loky imports
cloudpickle). Considered and dropped before any model was chosen (by the wheel's files, metadata and a first look at its
code): zero-dce 1.0.0 (leonel hernandez's Zero-DCE low-light enhancement: seven convolutions and eight curve iterations
written out, nothing size-dependent, little for a deployment to need), vocos 0.1.0 (Hubert Siuzdak again, and it imports
encodec (no wheel) and torchaudio), pesto-pitch 2.0.1 (Alain Riou's pitch estimator with its own CQT; its package
imports torchaudio and omegaconf, and a third audio library was enough), torchcrepe 0.0.24 (Max Morrison's CREPE:
librosa and resampy, neither in the venv), denoiser 0.1.5 and diffwave 0.1.7 (no wheels on the index, only sources);
within the chosen libraries: SNAC with its decoder noise (``torch.randn`` in the forward: two runs differ), its default
configuration (a decoder width of 1536, far over the time budget), Open-Unmix's pretrained constructors (``umxhq`` and
the others download checkpoints) and its asteroid filterbank (asteroid-filterbanks is not in the venv), noisereduce's
``reduce_noise`` and its streamed torch gate (NumPy chunks dispatched by joblib around the module, not a module
themselves); the libraries zoos 15 to 38 dropped or used, as they found. nnaudio, torchsr, ccrestoration, ccvfi and
carvekit are earlier zoos'.

12 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 38 or
in the library sweeps (benchmarks/sweep_*.py), all 12 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (padding to a multiple computed in Python from the length and cropping
back, window counts ``T // window``, rotary positions from the length, residual crops by a length difference,
nearest-code ``max`` indices as outputs, ``torch.stft``/``torch.istft`` with windows made in the forward, convolutions
with ``padding="same"``, boolean threshold masks, a Python length check that raises, per-sample and per-window Python
loops with ``int()`` of a tensor, EM loops, hand-written complex arithmetic written into slices of zero tensors). Neural
audio codec, from snac, small configurations of its classes (encoder width 16, decoder width 128, 256 codes of 8
dimensions, noise blocks off), random weights: the codec's forward (rates 2, 4, 4, windows of 8, quantizer strides 4, 2,
1: the audio and three code streams), ``encode`` with rates 3, 3, 7 (a hop of 63: padding to multiples of 504; the three
integer code streams), the forward without local attention or depthwise convolutions (strides 2, 1), and the user's
round trip ``decode(encode(x))`` cropped to the input's length on a batch of two (rates 4, 4, windows of 16). Speech
enhancement, from noisereduce's TorchGate (no weights): stationary gating at 16 kHz (n_fft 512), non-stationary gating
(a 10-frame moving average), stationary gating with thresholds from a separate noise recording (channel 1 of the input),
and stationary gating at 8 kHz with a 200-sample window, hop 80, no mask smoothing and a partial decrease of 0.8. Source
separation, from openunmix's Separator over small OpenUnmix models (hidden size 32, n_fft 256, hop 64, 16 kHz), random
weights: two stereo targets with one EM iteration over windows of 16 frames, one target plus the residual by soft masks
over windows of 32, mono speech and noise with unidirectional two-layer LSTMs cropped to 40 bins and the Wiener filter
over the whole signal, and the four MUSDB targets on a batch of two with one EM iteration over windows of 16 frames.

Each is small and has the dynamic axes a deploying user declares: batch and samples for every waveform (the user's
audio, ``2 * x - 1``, in [-1, 1)). Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for
building and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and one more
item in the batch with 1,100 more samples) before the first migrate run: with one thread on the shared two cores (loaded
by other sessions, a load average of 3 to 4.6: times moved by up to 2x between runs), each in its own process, the best
of two forwards at the spec's size took 0.024 to 0.14 s for the snac models (the round trip on two clips the slowest),
0.001 to 0.003 s for the gates and 0.003 to 0.10 s for the separators (the four-target one the slowest); at most 0.28 s
at the larger size (the four-target separator on three 3,100-sample mixes; the codec models at most 0.18 s); builds
(imports included) took 1.8 to 6.7 s. The gates' outputs are shorter than their inputs (3,968 samples for 4,000: the
iSTFT without a length), as the library gives them. Changed after the first eager runs, before any migrate run: the
four-target separator went from two EM iterations over windows of 8 frames on two 3,000-sample mixes (0.33 s a forward),
through windows of 12 on 2,400 samples (0.17 s in one run, 0.45 s in a loaded one) and of 16 on 2,000 (0.25 s loaded),
to one EM iteration over windows of 16 on 2,000 samples (0.10 s loaded); joblib's cloudpickle was found missing at
noisereduce's import and joined joblib in the ``bench`` extra."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): snac (Hubert Siuzdak's multi-scale neural audio codec: convolutional encoder and decoder with
#: windowed local attention, a residual vector quantizer at three temporal strides; torch, NumPy, einops),
#: noisereduce (Tim Sainburg's spectral gating; its TorchGate module: STFT, stationary or non-stationary masks,
#: smoothing by a 2-D convolution, iSTFT; torch, and joblib, SciPy, tqdm at package import) and openunmix
#: (Fabian-Robert Stöter's and Antoine Liutkus's Open-Unmix music source separation: STFT, per-target BiLSTM
#: spectrogram models, a Wiener filter with expectation maximization over windows of frames, iSTFT; torch, NumPy).
PINS39 = {**PINS31, "snac": "1.2.1", "noisereduce": "3.0.3", "openunmix": "1.3.0"}

#: Waveforms: (batch, channels, samples) or (batch, samples); the user's audio in [-1, 1).
_BCT = 'dynamic_axes = { x = { 0 = "batch", 2 = "samples" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "samples" } }'

# ---------------------------------------------------------------------------------------------------------------
# snac: small configurations of the codec's own classes (random weights; from_pretrained downloads). The decoder's
# noise blocks draw torch.randn in the forward, so the user deploys with noise=False.
_SNAC = "from snac import SNAC"


def _snac(**options: object) -> str:
    base = dict(sampling_rate=24000, encoder_dim=16, encoder_rates=[2, 4, 4], decoder_dim=128,
                decoder_rates=[4, 4, 2], attn_window_size=8, codebook_size=256, codebook_dim=8, vq_strides=[4, 2, 1],
                noise=False)
    base.update(options)
    return "SNAC(" + ", ".join(f"{k}={v!r}" for k, v in base.items()) + ")"


_SNAC_FWD = "audio, codes = self.m(2 * x - 1)\n        return (audio, *codes)"
_SNAC_ENC = "return tuple(self.m.encode(2 * x - 1))"
#: The user's round trip: codes from encode, audio from decode, cropped back to the input's length.
_SNAC_TRIP = "return self.m.decode(self.m.encode(2 * x - 1))[..., :x.shape[-1]]"

# ---------------------------------------------------------------------------------------------------------------
# noisereduce: the TorchGate module (no weights).
_NG = "from noisereduce.torchgate import TorchGate"
_NG_FWD = "return self.m(2 * x - 1)"
#: Stationary gating with a separate noise clip: channel 0 the signal, channel 1 the noise recording.
_NG_CLIP = "return self.m(2 * x[:, 0] - 1, xn=2 * x[:, 1] - 1)"

# ---------------------------------------------------------------------------------------------------------------
# openunmix: Separator over small target models (random weights; its hub functions download checkpoints). Its
# package imports utils and transforms, which import torchaudio (audio file loading, torchaudio's STFT variant; no
# wheel for the CPU torch here): the user's module stands in an empty torchaudio before importing it.
_UMX = '''import sys
import types

sys.modules.setdefault("torchaudio", types.ModuleType("torchaudio"))
from openunmix.model import OpenUnmix, Separator


def umx(targets, nb_channels=2, n_fft=256, hidden=32, layers=1, unidirectional=False, max_bin=None, **options):
    """A Separator over one small OpenUnmix per target, STFT of n_fft with a quarter hop, at 16 kHz."""
    bins = n_fft // 2 + 1
    models = {t: OpenUnmix(nb_bins=bins, nb_channels=nb_channels, hidden_size=hidden, nb_layers=layers,
                           unidirectional=unidirectional, max_bin=max_bin) for t in targets}
    return Separator(models, n_fft=n_fft, n_hop=n_fft // 4, nb_channels=nb_channels, sample_rate=16000.0,
                     **options)'''
_UMX_FWD = "return self.m(2 * x - 1)"

MODELS39 = [
    # snac: audio codec (random weights, noise blocks off).
    Spec("snac_codec", "snac SNAC (a small config: rates 2, 4, 4, local attention windows of 8 with rotary "
         "embeddings, three quantizers at strides 4, 2, 1): the audio padded on the right to a multiple of "
         "hop * lcm(stride, window) computed with math.ceil of the length, encoded, quantized (cosine nearest code, "
         "avg-pooled and repeat_interleave'd per stride), decoded and cropped to the input's length; the audio and "
         "the three code streams", _SNAC, _snac(), _SNAC_FWD, "1, 1, 3000", _BCT),
    Spec("snac_encode_codes", "snac SNAC.encode (rates 3, 3, 7: a hop of 63 and padding to multiples of 504; "
         "quantizers at strides 4, 2, 1): the three integer code streams", _SNAC,
         _snac(encoder_rates=[3, 3, 7], decoder_rates=[7, 3, 3]), _SNAC_ENC, "1, 1, 2500", _BCT),
    Spec("snac_no_attention", "snac SNAC without local attention and without depthwise convolutions (padding to "
         "multiples of hop * 2, quantizers at strides 2, 1): the decoded audio and codes", _SNAC,
         _snac(attn_window_size=None, depthwise=False, vq_strides=[2, 1]), _SNAC_FWD, "1, 1, 2000", _BCT),
    Spec("snac_roundtrip", "snac SNAC.encode then SNAC.decode (codes looked up in the L2-normalised codebooks' "
         "projections) on a batch, the user cropping the padded reconstruction to the input's length", _SNAC,
         _snac(encoder_rates=[4, 4], decoder_rates=[4, 4], vq_strides=[2, 1], attn_window_size=16), _SNAC_TRIP,
         "2, 1, 2400", _BCT),
    # noisereduce: spectral gating (TorchGate).
    Spec("nr_gate_stationary", "noisereduce TorchGate stationary (STFT of 512 at 16 kHz, a length check that "
         "raises below two windows, dB with a top_db clamp, a per-frequency mean + 1.5 std threshold, the boolean "
         "mask smoothed by a 2-D convolution with padding='same', iSTFT)", _NG, "TorchGate(sr=16000, n_fft=512)",
         _NG_FWD, "1, 4000", _BT),
    Spec("nr_gate_nonstationary", "noisereduce TorchGate non-stationary (a moving average over time by conv1d "
         "with padding='same', a slowness ratio through a temperature sigmoid, smoothed mask, iSTFT)", _NG,
         "TorchGate(sr=16000, nonstationary=True, n_fft=512, n_movemean_nonstationary=10)", _NG_FWD, "1, 4000",
         _BT),
    Spec("nr_gate_noise_clip", "noisereduce TorchGate stationary with a separate noise recording (thresholds "
         "from the noise clip's STFT, channel 1, applied to the signal, channel 0)", _NG,
         "TorchGate(sr=16000, n_fft=512, n_std_thresh_stationary=1.0)", _NG_CLIP, "1, 2, 4000", _BCT),
    Spec("nr_gate_partial", "noisereduce TorchGate stationary at 8 kHz (n_fft 256, a 200-sample window, hop 80) "
         "without mask smoothing, the gate decreasing the signal by 0.8 only", _NG,
         "TorchGate(sr=8000, n_fft=256, win_length=200, hop_length=80, prop_decrease=0.8, freq_mask_smooth_hz=None, "
         "time_mask_smooth_ms=None)", _NG_FWD, "1, 3000", _BT),
    # openunmix: source separation (random weights).
    Spec("umx_separator_em", "openunmix Separator with two targets on stereo audio (STFT with reflect padding, "
         "complex norm, BiLSTM target models with batch norm and the mix as a mask, a Python loop over samples "
         "and windows of 16 frames with torch.arange indices and int(cur_frame[-1]), one EM iteration of the "
         "multichannel Wiener filter (2x2 covariance inversions by hand, scaled by a max), iSTFT to the input's "
         "length)", _UMX, 'umx(["vocals", "accompaniment"], niter=1, wiener_win_len=16)', _UMX_FWD, "1, 2, 4000",
         _BCT),
    Spec("umx_separator_residual", "openunmix Separator with one target and the residual (mix minus the "
         "target) by soft masks, no EM, windows of 32 frames", _UMX,
         'umx(["vocals"], residual=True, softmask=True, wiener_win_len=32)', _UMX_FWD, "1, 2, 4000", _BCT),
    Spec("umx_separator_mono", "openunmix Separator on mono audio (complex norm averaging channels), two "
         "unidirectional two-layer LSTM targets cropped to 40 bins (max_bin), the Wiener filter over the whole "
         "signal (wiener_win_len None), no EM", _UMX,
         'umx(["speech", "noise"], nb_channels=1, layers=2, unidirectional=True, max_bin=40, wiener_win_len=None)',
         _UMX_FWD, "1, 1, 4000", _BCT),
    Spec("umx_separator_four", "openunmix Separator with the four MUSDB targets on a batch of two stereo mixes, "
         "one EM iteration over windows of 16 frames", _UMX,
         'umx(["vocals", "drums", "bass", "other"], niter=1, wiener_win_len=16)', _UMX_FWD, "2, 2, 2000", _BCT),
]

if __name__ == "__main__":
    main(MODELS39, "real_zoo39", PINS39)
