"""A sixtieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo60.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

DOCSTRING_TODO"""

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
