"""A sixtieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo60.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on dense prediction and generation deployed for inference: one denoising
call of diffusion models (pixel-space, latent with cross-attention, transformer, video), the autoencoders around them,
and audio source separation and enhancement on waveforms: the thirty-first zoo's pins and three libraries by other
authors, whose code no earlier zoo or sweep ran (``PINS60``: unpacked wheels like the others, never pip-installed):
diffusers 0.42.1 (the Hugging Face team, github.com/huggingface/diffusers: UNet2DModel, UNet2DConditionModel,
UNet3DConditionModel, DiTTransformer2DModel, AutoencoderKL, VQModel and the DDIM scheduler), asteroid 0.7.0 with
asteroid-filterbanks 0.4.0 (Manuel Pariente, Samuele Cornell and the Asteroid team, github.com/asteroid-team/asteroid:
speech separation and enhancement; its STFT and learned filterbanks are the second package) and demucs 4.1.0 (Alexandre
Défossez, github.com/adefossez/demucs, the maintained continuation of Meta's facebookresearch/demucs: Demucs v3 and
Hybrid Transformer Demucs). julius (Alexandre Défossez's resampling, which Demucs imports) is already in ``PINS31``.
diffusers' loaders import transformers (in ``PINS31``) and its own huggingface_hub, safetensors, regex, requests,
filelock and Pillow come from the venv; asteroid imports soundfile at package import (``asteroid.separate``, a cffi
binding of libsndfile, neither in the venv) for reading files, which no model here does, so the user's module stands
it in with an empty module that has a module spec (transformers, imported by diffusers, probes for soundfile with
``importlib.util.find_spec``, which rejects a module without one). asteroid's other declared dependencies
(pytorch-lightning, torchmetrics, torchaudio, pb-bss-eval, torch-stoi, torch-optimizer, pandas) and demucs' (lameenc,
sphn: compiled; huggingface_hub and safetensors) are imported only by their training, metrics, file and download
modules, which no model here imports. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): pytorchvideo
(X3D, SlowFast, MViT) and encodec, which have no wheel on the index (as zoos 14, 21 and 39 found), torchaudio's models
(compiled, not in the venv); openunmix, nnAudio and the transformers models are earlier zoos'. Within diffusers: the
pipelines themselves (they load tokenizers, text encoders and safety checkers from the Hub and loop over the scheduler
in Python: a deployment exports the denoiser call, as here), ControlNetModel (the latents and a control image eight
times their size: two image inputs where the zoo's wrapper takes one), T2IAdapter and AutoencoderTiny (the same
convolution blocks as the chosen autoencoders), UNetSpatioTemporalConditionModel (Stable Video Diffusion: added time
ids and CLIP image embeddings besides the latents), the Flux, SD3 and PixArt transformers (pooled text embeddings and
larger configs to be meaningful), UNet1DModel (Dance Diffusion), the stateful schedulers (Euler's and DPM-Solver's step
index advances on each call: only DDIM's step, a pure function of the timestep, is exported). Within asteroid:
Conv-TasNet, LSTM-TasNet, DPTNet and SuDORMRF (the same TasNet filterbank and masker interface as DPRNN), DCCRNet (the
complex U-Net of DCUNet with an LSTM), FasNet-TAC (microphone-array inputs), X-UMX (Open-Unmix's design, zooed), DeMask;
its ``separate`` over files and NumPy arrays. Within demucs: HDemucs (HTDemucs' encoder and decoder layers without the
transformer), ``apply_model`` (random shifts and overlap-add over segments in Python, around the exported per-segment
model) and the pretrained bags (downloaded).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 58 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(timestep embeddings from Python ints broadcast to the batch, the DDIM update with ``alphas_cumprod`` indexed by the
timestep and clipping, classifier-free guidance over a doubled batch with ``chunk``, attention and cross-attention
reshapes by the tensor's sizes, adaLN-Zero modulation and unpatchify by the token count's square root, the VAE
posterior's ``mode``, nearest-code quantisation by ``argmin`` over distances, SpatialNorm's nearest interpolation to
the feature map's size, temporal attention over frames reshaped from the batch, STFT and iSTFT with complex tensors,
complex BatchNorm and masks, ``torch.from_numpy`` of stride products and padding to them, chunking by ``unfold`` and
overlap-add by ``fold``, ``torch.no_grad`` inside the forward, resampling by windowed sinc filters, padding to a valid
length, LSTMs on chunks, assertions on shapes). diffusers, on random latents or images:
UNet2DModel (32-64-64 channels, self-attention at the two lower levels, 8 groups; 1.16 M parameters) with
``DDIMScheduler.step`` (1000 training steps, 50 inference steps, the 11th, eta 0): the previous sample and the clipped
predicted image; UNet2DConditionModel in Stable Diffusion's layout (32-64, cross-attention to a 7-token prompt of 32;
0.79 M) with classifier-free guidance at 7.5 against the empty prompt's embeddings (both seeded stand-ins for the text
encoder's output, buffers of the wrapper); AutoencoderKL in SD's VAE layout (32-64-64, mid-block attention; 0.96 M):
the image mapped to [-1, 1], the posterior's mode scaled by 0.18215, decoded and mapped back to [0, 1] (the latents and
the image); VQModel in Kandinsky's MoVQ layout (SpatialNorm decoder, attention blocks at the lowest level, 256 codes of
4; 1.02 M): the reconstruction and each position's code index; DiTTransformer2DModel (2 layers of 4 heads of 16,
patches of 2, learned sigma, 1000 classes; 0.33 M) with guidance at 4.0 for class 207 against the null class, the
variance channels passed through; UNet3DConditionModel in ModelScope's text-to-video layout (32-64, temporal
convolutions and attention; 1.33 M) on video latents with the prompt's embeddings. asteroid, on mono waveforms:
DCUNet-10 (an asteroid-filterbanks STFT of 256 with a hop of 64, ``fix_length_mode="pad"``, the bounded complex mask;
1.42 M) enhancing one source; DPRNN-TasNet (a learned filterbank of 32, two dual-path BiLSTM blocks of 32 over chunks
of 50; 0.08 M) separating two sources through ``torch_separate``, the tensor half of ``model.separate``. demucs, on
stereo mixtures into its four stems (drums, bass, other, vocals): HTDemucs (8 channels, depth 4, an STFT of 2048, one
cross-domain transformer layer of 2 heads, samplerate 8000 and a segment of 1 s; 0.36 M) and Demucs v3 (8 channels,
depth 4, local attention and chunked BiLSTMs in the DConv branches of the two lower levels, 2x resampling by julius;
0.14 M). Timesteps, prompts, class labels and guidance scales are the wrapper's constants, as an exported denoising
call fixes them.

Each has the dynamic axes a deploying user declares: batch, height and width for the UNets and autoencoders (32x32
images, 16x16 latents, 64x64 images for the autoencoders; multiples of 4 or 2), batch, frames, height and width for the
video UNet (4 frames of 16x16), batch and time for DCUNet (batch, 4000), DPRNN (batch, 1, 4000) and Demucs (batch, 2,
8000); the batch alone for DiT (its unpatchify takes the grid's side as the square root of the token count: 24x32
latents fail) and HTDemucs (it pads shorter inputs to its training segment and fails on longer ones: demucs' own
``apply_model`` feeds it whole segments). All inputs are in [0, 1). BatchNorm statistics come from the calibration pass
for DCUNet, the only model with BatchNorm (complex BatchNorm over the real and imaginary parts); the others have
GroupNorm, LayerNorm or asteroid's global layer norm. No output is set-valued. The wrappers were checked only for
building and running eagerly (deterministic over two forwards, finite outputs, outputs differing across the batch)
before the first migrate run, with a source tree unpacked by ``fetch_sources`` from ``PINS60`` and ``make_zoo``: at
the spec's size, one more in the batch, larger dynamic sizes (images 48x64, latents 24x32, autoencoder images 96x128,
6 frames of 24x32, waveforms of 6001 and 12001 samples; DiT and HTDemucs the batch alone) and both; with one thread on
the shared two cores, each model in its own process (load average 4.7 to 6.3 from other sessions, so the times are
high), the best of two forwards at the spec's size took 0.045 s for the DDIM step, 0.075 s the guided SD UNet, 0.14 s
AutoencoderKL, 0.14 s MoVQ, 0.014 s DiT, 0.15 s the video UNet, 0.12 s DCUNet, 0.033 s DPRNN, 0.042 s HTDemucs and
0.036 s Demucs; at the larger sizes with a batch of 3 at most 0.19, 0.44, 0.32, 0.49, 0.005 (batch 3), 1.21 (3 clips of
6 frames of 24x32), 0.20, 0.064, 0.050 (batch 3) and 0.088 s; builds took 9.4 to 18.4 s (nearly all of it importing
diffusers, transformers through its loaders, and asteroid: the three libraries share one import block). Changed after
the first eager runs, before any migrate run: the soundfile stand-in given a module spec (without one, importing
diffusers' autoencoders failed in transformers' ``find_spec`` probe), the video UNet's batch from 1 to 2 (so that its
outputs can differ across the batch), DPRNN's input from (batch, time) to (batch, 1, time) (``torch_separate`` checks
the channel axis against the model's one input channel), and, in a scratch run of the library before the zoo was
written, HTDemucs' STFT from 512 to 2048 (with 512 and depth 4 the frequency branch collapses to one bin at the last
layer and its merge with the time branch failed an assertion on their lengths, 63 against 32 frames). Odd, left as
the libraries have them: asteroid's ``torch_separate`` rescales the estimates by the whole batch's total absolute
level (``wav.abs().sum() / out_wavs.abs().sum()`` over every axis), so each waveform's output depends on the others in
the batch; with random weights MoVQ's reconstructions differ across the batch by 0.01 to 0.02 only (its code indices
differ) and HTDemucs' and Demucs' stems by about 0.01; DDIM's predicted image is clipped to [-1, 1]
(``clip_sample``); DCUNet builds its stride product with ``torch.from_numpy`` on each forward; HTDemucs does its
segment and length arithmetic in Python."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (julius among them, which Demucs imports) and three libraries by other authors,
#: unpacked wheels like the others (never pip-installed): diffusers (the Hugging Face team: diffusion denoisers,
#: schedulers and autoencoders), asteroid with its filterbanks (Manuel Pariente and the Asteroid team: speech
#: separation and enhancement) and demucs (Alexandre Défossez: music source separation).
PINS60 = {**PINS31, "diffusers": "0.42.1", "asteroid_filterbanks": "0.4.0", "asteroid": "0.7.0", "demucs": "4.1.0"}

#: The user's inputs: images or latents (batch, channels, height, width), video latents (batch, channels, frames,
#: height, width), mono waveforms (batch, time) and stereo waveforms (batch, 2, time), all in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BFHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames", 3 = "height", 4 = "width" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_BCT = 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# asteroid imports soundfile at package import (``asteroid.separate``, for reading files: a cffi binding of
# libsndfile, neither in the venv); no model here reads a file, so the user's module stands it in with an empty
# module. Everything else (diffusers' huggingface_hub, safetensors, regex, requests, Pillow and filelock; asteroid's
# huggingface_hub and NumPy; demucs' einops and julius) comes from the venv and the earlier pins. The user's
# constants (fixed timesteps, prompt embeddings, class labels, guidance scales) are the wrapper's, as a deployment
# that exports one denoising call fixes them.
_GEN = '''import importlib.machinery
import importlib.util

# soundfile: asteroid imports it at package import to read audio files; nothing here reads one. The stand-in has a
# module spec, since transformers (imported by diffusers' loaders) probes for soundfile with importlib's find_spec.
if "soundfile" not in sys.modules:
    sys.modules["soundfile"] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec("soundfile", None))

from diffusers import (AutoencoderKL, DDIMScheduler, DiTTransformer2DModel, UNet2DConditionModel, UNet2DModel,
                       UNet3DConditionModel, VQModel)
from asteroid.models import DCUNet, DPRNNTasNet
from asteroid.separate import torch_separate
from demucs.demucs import Demucs
from demucs.htdemucs import HTDemucs

#: The four stems of the MUSDB-trained Demucs models.
STEMS = ["drums", "bass", "other", "vocals"]


def prompt_embeddings(tokens=7, width=32):
    """Stand-ins for a text encoder's output: the embeddings of the user's prompt and of the empty prompt (seeded,
    as if computed once before export)."""
    generator = torch.Generator().manual_seed(7)
    return torch.randn(2, tokens, width, generator=generator)


class DDIMStep(torch.nn.Module):
    """One DDIM sampling step of an unconditional pixel-space DDPM: the UNet2DModel's noise prediction at the fixed
    timestep (the 11th of 50 inference steps over 1000 training steps), then DDIMScheduler.step (eta 0): the previous
    sample and the predicted clean image."""

    def __init__(self):
        super().__init__()
        self.unet = UNet2DModel(sample_size=32, in_channels=3, out_channels=3, layers_per_block=1,
                                block_out_channels=(32, 64, 64), norm_num_groups=8, attention_head_dim=16,
                                down_block_types=("DownBlock2D", "AttnDownBlock2D", "AttnDownBlock2D"),
                                up_block_types=("AttnUpBlock2D", "AttnUpBlock2D", "UpBlock2D"))
        self.scheduler = DDIMScheduler(num_train_timesteps=1000)
        self.scheduler.set_timesteps(50)
        self.t = int(self.scheduler.timesteps[10])

    def forward(self, x):
        eps = self.unet(x, self.t).sample
        out = self.scheduler.step(eps, self.t, x)
        return out.prev_sample, out.pred_original_sample


class GuidedUNet(torch.nn.Module):
    """Stable Diffusion's denoiser as its pipeline calls it: a small UNet2DConditionModel (cross-attention to the
    prompt) on the latents doubled for classifier-free guidance, the prompt's and the empty prompt's embeddings, the
    guided noise prediction at a scale of 7.5."""

    def __init__(self):
        super().__init__()
        self.unet = UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                                         block_out_channels=(32, 64), norm_num_groups=16, cross_attention_dim=32,
                                         attention_head_dim=8,
                                         down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                         up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))
        self.register_buffer("prompt", prompt_embeddings())
        self.guidance = 7.5

    def forward(self, latents):
        batch = latents.shape[0]
        text, empty = self.prompt[:1], self.prompt[1:]
        states = torch.cat([empty.expand(batch, -1, -1), text.expand(batch, -1, -1)])
        noise = self.unet(torch.cat([latents] * 2), 981, encoder_hidden_states=states).sample
        uncond, cond = noise.chunk(2)
        return uncond + self.guidance * (cond - uncond)


class KLRoundTrip(torch.nn.Module):
    """An AutoencoderKL (Stable Diffusion's VAE layout, small: three levels, the mid-block's attention) as img2img
    uses it: the image mapped to [-1, 1], the posterior's mode scaled by the VAE's scaling factor (the latents), then
    decoded and mapped back to [0, 1] as the pipeline's image processor does."""

    def __init__(self):
        super().__init__()
        self.vae = AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4, layers_per_block=1,
                                 block_out_channels=(32, 64, 64), norm_num_groups=16, sample_size=64,
                                 down_block_types=("DownEncoderBlock2D",) * 3, up_block_types=("UpDecoderBlock2D",) * 3)

    def forward(self, x):
        scale = self.vae.config.scaling_factor
        latents = self.vae.encode(2 * x - 1).latent_dist.mode() * scale
        image = self.vae.decode(latents / scale).sample
        return latents, (image / 2 + 0.5).clamp(0, 1)


class MoVQRoundTrip(torch.nn.Module):
    """A VQModel in Kandinsky's MoVQ layout (small: attention at the lowest level of the encoder and decoder, the
    decoder's SpatialNorm conditioned on the quantised latents): encode, quantise to the nearest of 256 codes, decode;
    the reconstruction in [0, 1] and each position's code index."""

    def __init__(self):
        super().__init__()
        self.vq = VQModel(in_channels=3, out_channels=3, latent_channels=4, vq_embed_dim=4, num_vq_embeddings=256,
                          layers_per_block=1, block_out_channels=(32, 64, 64), norm_num_groups=16, sample_size=64,
                          norm_type="spatial",
                          down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D", "AttnDownEncoderBlock2D"),
                          up_block_types=("AttnUpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"))

    def forward(self, x):
        h = self.vq.encode(2 * x - 1).latents
        quant, _, (_, _, codes) = self.vq.quantize(h)
        image = self.vq.decode(quant, force_not_quantize=True).sample
        return (image / 2 + 0.5).clamp(0, 1), codes.reshape(h.shape[0], h.shape[2], h.shape[3])


class GuidedDiT(torch.nn.Module):
    """The DiT pipeline's denoiser call: a small class-conditional DiTTransformer2DModel (patches of 2, adaLN-Zero,
    learned sigma) on the latents doubled for classifier-free guidance, the user's class (207) and the null class,
    guidance 4.0 on the noise channels, the variance channels passed through."""

    def __init__(self):
        super().__init__()
        self.dit = DiTTransformer2DModel(num_attention_heads=4, attention_head_dim=16, in_channels=4, out_channels=8,
                                         num_layers=2, sample_size=16, patch_size=2, num_embeds_ada_norm=1000)
        self.register_buffer("labels", torch.tensor([207, 1000]))
        self.register_buffer("t", torch.tensor([500]))
        self.guidance = 4.0

    def forward(self, latents):
        batch = latents.shape[0]
        labels = self.labels.repeat_interleave(batch)
        out = self.dit(torch.cat([latents] * 2), timestep=self.t.expand(2 * batch), class_labels=labels).sample
        eps, rest = out[:, :4], out[:, 4:]
        cond, uncond = eps.chunk(2)
        return uncond + self.guidance * (cond - uncond), rest[:batch]


class TextToVideoUNet(torch.nn.Module):
    """ModelScope's text-to-video denoiser: a small UNet3DConditionModel (spatial convolutions and cross-attention,
    temporal convolutions and attention over the frames) on video latents at a fixed timestep, with the prompt's
    embeddings."""

    def __init__(self):
        super().__init__()
        self.unet = UNet3DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                                         block_out_channels=(32, 64), norm_num_groups=16, cross_attention_dim=32,
                                         attention_head_dim=8,
                                         down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
                                         up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"))
        self.register_buffer("prompt", prompt_embeddings()[:1])

    def forward(self, latents):
        states = self.prompt.expand(latents.shape[0], -1, -1)
        return self.unet(latents, 500, encoder_hidden_states=states).sample


class Separate(torch.nn.Module):
    """asteroid's ``model.separate`` on a tensor (``torch_separate``): the model's ``forward_wav`` and the
    rescaling of the estimates to the mixture's total absolute level."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, wav):
        return torch_separate(self.model, wav)'''

MODELS60 = [
    # diffusers: one denoising call of each family, and the autoencoders around it.
    Spec("diffusers_unet2d_ddim_step", "diffusers UNet2DModel (32-64-64, attention down and up at the two lower "
         "levels, timestep embedding of a fixed t) and DDIMScheduler.step: previous sample and predicted x0", _GEN,
         "DDIMStep()", "return self.m(x)", "2, 3, 32, 32", _BHW),
    Spec("diffusers_sd_unet_cfg", "diffusers UNet2DConditionModel (Stable Diffusion layout, small: cross-attention "
         "transformer blocks to a 7-token prompt) with classifier-free guidance over the doubled batch", _GEN,
         "GuidedUNet()", "return self.m(x)", "2, 4, 16, 16", _BHW),
    Spec("diffusers_autoencoderkl_roundtrip", "diffusers AutoencoderKL (SD VAE layout, small, mid-block attention): "
         "posterior mode scaled to latents, decoded and mapped to [0, 1]", _GEN, "KLRoundTrip()", "return self.m(x)",
         "2, 3, 64, 64", _BHW),
    Spec("diffusers_movq_vqmodel", "diffusers VQModel (Kandinsky MoVQ layout, small: SpatialNorm decoder, "
         "attention blocks): encode, nearest-code quantisation (256 codes), decode; image and code indices", _GEN,
         "MoVQRoundTrip()", "return self.m(x)", "2, 3, 64, 64", _BHW),
    Spec("diffusers_dit_cfg", "diffusers DiTTransformer2DModel (class-conditional, adaLN-Zero, patch 2, learned "
         "sigma) with classifier-free guidance against the null class", _GEN, "GuidedDiT()", "return self.m(x)",
         "2, 4, 16, 16", _B),
    Spec("diffusers_unet3d_text2video", "diffusers UNet3DConditionModel (ModelScope text-to-video layout, small: "
         "temporal convolutions and attention over frames, cross-attention to the prompt)", _GEN,
         "TextToVideoUNet()", "return self.m(x)", "2, 4, 4, 16, 16", _BFHW),
    # asteroid: speech enhancement and separation on mono waveforms of any length.
    Spec("asteroid_dcunet10_enhance", "asteroid DCUNet-10 (asteroid-filterbanks STFT of 256, complex U-Net with "
         "complex BatchNorm, bounded complex mask; inputs padded to the encoders' stride product)", _GEN,
         'DCUNet("DCUNet-10", stft_n_filters=256, stft_kernel_size=256, stft_stride=64, sample_rate=8000, '
         'fix_length_mode="pad")', "return self.m(x)", "2, 4000", _BT, calibrate="self.m(xb)"),
    Spec("asteroid_dprnn_separate", "asteroid DPRNN-TasNet (learned filterbank, dual-path BiLSTMs over 50-step "
         "chunks unfolded with 50% overlap, two sources) through asteroid's torch_separate", _GEN,
         "Separate(DPRNNTasNet(n_src=2, n_filters=32, bn_chan=32, hid_size=32, chunk_size=50, n_repeats=2))",
         "return self.m(x)", "2, 1, 4000", _BCT),
    # demucs: music source separation of stereo mixtures into four stems.
    Spec("demucs_htdemucs_segment", "demucs HTDemucs (hybrid transformer: spectrogram and waveform U-Nets, "
         "cross-domain transformer, complex-as-channels masking, iSTFT) on its fixed 1 s training segment at 8 kHz",
         _GEN, "HTDemucs(STEMS, channels=8, nfft=2048, depth=4, t_layers=1, t_heads=2, samplerate=8000, segment=1)",
         "return self.m(x)", "2, 2, 8000", _B),
    Spec("demucs_v3_waveform", "demucs Demucs (waveform U-Net: 2x resampling by julius, GLU convolutions, DConv "
         "branches with local attention and chunked BiLSTMs at the two lower levels, input padded to a valid length)",
         _GEN, "Demucs(STEMS, channels=8, depth=4, dconv_attn=2, dconv_lstm=2, samplerate=8000, segment=1)",
         "return self.m(x)", "2, 2, 8000", _BCT),
]

if __name__ == "__main__":
    main(MODELS60, "real_zoo60", PINS60)
