"""A fortieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo40.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on image generation: the thirty-first zoo's pins and three more libraries
by three other authors, whose code no earlier zoo or sweep ran (``PINS40``: unpacked wheels like the others, never
pip-installed): denoising-diffusion-pytorch 2.3.4 (Phil Wang's DDPM library: a U-Net whose forward asserts that height
and width divide by ``2 ** (levels - 1)``, sinusoidal, learned or random-Fourier time embeddings, linear attention and
full attention with ``einops`` rearranges from the feature size, self-conditioning that makes ``torch.zeros_like`` in
the forward; ``GaussianDiffusion`` with beta schedules, ``extract`` (a ``gather`` of a schedule buffer by the timesteps,
reshaped to ``(b, 1, 1, 1)``), x0 from the noise or from v, an in-place ``clamp_`` and the posterior's mean and log
variance; Karras's EDM2 magnitude-preserving U-Net with pixel norm, forced weight normalisation, MP-add and MP-cat and
an assert on the image's shape; torch, einops, torchvision, SciPy, Pillow, tqdm, and accelerate, ema-pytorch and
pytorch-fid at package import, for training and FID only: none is in the venv, so the user's module stands in empty
ones, as zoo 39's does for torchaudio), taming-transformers-rom1504 0.0.6 (the CompVis VQGAN code of Patrick Esser,
Robin Rombach and Björn Ommer, packaged by Romain Beaumont: an encoder with asymmetric zero padding ``(0, 1, 0, 1)``
before each strided convolution, attention blocks that reshape to ``h * w``, a decoder with nearest upsampling by
``interpolate(scale_factor=2)``, ``VectorQuantizer2``: the nearest code by ``argmin`` of a distance matrix, a
straight-through estimator and indices reshaped to ``(batch, h, w)``, ``get_codebook_entry`` with a ``view`` to a shape
given in Python; the pytorch_diffusion DDPM U-Net with a timestep embedding that asserts the timesteps' rank and pads
odd widths; torch, einops, NumPy; its ``VQModel`` is a pytorch_lightning module, not in the venv, so the user composes
the same parts in the user's module) and pytorch-pretrained-biggan 0.1.1 (Thomas Wolf's port of DeepMind's BigGAN
generator: a linear class embedding concatenated to the latent, a view to a 4x4 grid, GenBlocks with nearest upsampling
and channel dropping by slicing, ``BigGANBatchNorm`` whose statistics are picked from 51 stored ones by ``math.modf`` of
the truncation (a Python float) and interpolated, class-conditional scales from spectral-normalised linears,
self-attention with max-pooled keys viewed from ``h * w // 4``, an assert ``0 < truncation <= 1``; torch, NumPy, SciPy,
and boto3, botocore and requests at package import for its S3 downloads: the user's module stands in empty boto3 and
botocore). Nothing new in the ``bench`` extra. Considered and dropped before any model was chosen (by the wheel's files,
metadata and a first look at its code): stylegan2-torch 1.3.0 (Peter Yuen's StyleGAN2: its ``op`` modules compile
C++/CUDA extensions with ``torch.utils.cpp_extension.load`` at import, and it needs torch-conv-gradfix, not in the
venv), compressai 1.2.8 (learned image compression with entropy models: compiled extensions, no pure-Python wheel),
nafnetlib 0.1.0 (Michal Cokina's NAFNet inference: pins torch <= 2.5.1 and needs opencv-python), stylegan2-pytorch and
lightweight-gan (Phil Wang again), torchgan 0.1.0 (Avik Pal's and Aniket Das's GAN framework: not read further, a third
library by another author was enough); within the chosen libraries: ``GaussianDiffusion.sample``, ``p_sample``,
``p_sample_loop``, ``ddim_sample`` and ``interpolate`` (``torch.randn``/``randn_like`` in the forward: two runs differ),
its training ``forward`` (``torch.randint`` timesteps), the 1-D and 3-D U-Nets (not images, or over the time budget),
taming's ``GumbelQuantize`` (``gumbel_softmax`` samples even in eval), ``VectorQuantizer2`` with a remap file
(``np.load``; ``torch.randint`` for unknown codes), the conditional transformer and minGPT sampling (pytorch_lightning;
``torch.multinomial``), BigGAN's ``from_pretrained`` (downloads) and ``truncated_noise_sample`` (SciPy's truncnorm in
NumPy, the user's host side); the libraries zoos 15 to 39 dropped or used, as they found. torchsr, ccrestoration, ccvfi,
carvekit, spandrel, piq, lpips, dblur and the audio libraries are earlier zoos'.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 39 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (Python asserts on shapes and on a float argument, tensors made in the
forward from the batch size (``torch.full`` timesteps, ``zeros_like`` self-conditioning, the user's one-hot classes
written by index), ``gather`` of schedule buffers by timestep, Python-int indexing of a schedule buffer, in-place
``clamp_``, asymmetric padding, nearest upsampling by a scale factor, attention reshaped from ``h * w``, ``argmin``
indices as an output, integer code inputs (``.long()`` of the input) through an embedding and a ``view`` to a shape from
the input's, ``math.modf`` of a Python float picking buffer rows). Diffusion, from denoising-diffusion-pytorch, small
configurations (dim 16, 2 heads of 8), random weights: the U-Net's noise prediction at timestep 500 (mults 1, 2, 4); one
ancestral step's deterministic part (``p_mean_variance``: cosine schedule of 100 steps, pred_noise, x0 clamped,
posterior mean, log variance and x0 at timestep 50); one DDIM step with eta 0 from timestep 600 to 400 written by the
user from ``model_predictions`` (sigmoid schedule of 1000, pred_v, x0 clipped, the noise re-derived); a four-level U-Net
with random Fourier time features at t = 0.3, self-conditioning and learned variance (six channels out); the Karras EDM2
U-Net at 32x32 (batch the only dynamic axis: it asserts the size) at sigma 0.5. VQGAN and DDPM, from taming-transformers
(ch 32, one residual block a level, random weights): the encode, quantize and decode round trip with the code indices
(mults 1, 2, 2, attention at 16, 256 codes of 16 dimensions), the decoder from a token grid (the user's input in [0, 1)
times 256 as codes; mults 1, 2, 2, 2: 8x8 codes to a 64x64 image), and the pytorch_diffusion U-Net at timestep 10.
Class-conditional GANs, from pytorch-pretrained-biggan (channel width 16, random weights): the default 128x128 layout
(ten GenBlocks, attention at 64) for one class at truncation 0.4, and a 64x64 layout (seven GenBlocks, attention at 32)
halfway between two classes at truncation 0.7.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for every image (the user's
image, ``2 * x - 1``, in [-1, 1)), batch, height and width of the token grid, batch only for the Karras U-Net (its size
is asserted) and for BigGAN's latents (the latent ``x`` of 128 in [0, 1) mapped to [-t, t) by the truncation t).
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs, none constant but the ancestral step's log variance, one schedule
value as the library gives it) at two sizes (the spec's, and a batch of two at 48x64 for the images, a 10x12 token grid,
batch two only for the Karras U-Net and BigGAN) before the first migrate run, with a stand-in source tree holding only
torchvision and the three new libraries, in two full runs: with one thread on the shared two cores (loaded by other
sessions, a load average of 4.3 to 5.8: times moved by up to 1.7x between the runs), each in its own process, the best
of two forwards at the spec's size took 0.024 to 0.11 s for the diffusion models (the Karras U-Net the slowest), 0.016
to 0.064 s for the taming models, 0.19 to 0.22 s for BigGAN at 128 and 0.025 to 0.041 s at 64; at most 0.37 s at the
larger size (BigGAN at 128 on two latents; every other model at most 0.32 s, most under 0.2 s); builds (imports
included) took 2.6 to 21 s (BigGAN at 128 the slowest, with its twenty power-iteration forwards). Changed after the
first eager runs, before any migrate run: BigGAN's outputs were first non-finite and different between runs: its final
unconditional ``BigGANBatchNorm`` makes its weight and bias with ``torch.Tensor(n)`` (uninitialised memory, filled by a
checkpoint), which the user now sets to ones and zeros, and its spectral norms' singular vectors are random and not
iterated in eval (the activations overflowed to inf by the fourth block), which the user now converges by twenty
forwards in train mode without gradients; the first 64x64 layout ended on channel multiplier 2 and failed (the final
batch norm has ``channel_width`` channels) and became the seven-block one; the Karras U-Net's output was all zeros
(EDM2's ``Gain`` parameters start at zero), so the user sets its gains to 0.5; BigGAN's larger check went from three
latents (0.27 to 0.30 s) to two."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): denoising-diffusion-pytorch (Phil Wang's DDPM/DDIM library: U-Nets with sinusoidal or Fourier
#: time embeddings, Gaussian diffusion schedules and samplers, Karras's magnitude-preserving U-Net; torch, einops,
#: torchvision, SciPy, and accelerate, ema-pytorch, pytorch-fid at package import), taming-transformers-rom1504 (the
#: CompVis VQGAN code of Patrick Esser, Robin Rombach and Björn Ommer, packaged by Romain Beaumont: encoder, decoder,
#: vector quantizers, the pytorch_diffusion U-Net; torch, einops, NumPy) and pytorch-pretrained-biggan (Thomas Wolf's
#: port of DeepMind's BigGAN generator: class-conditional batch norm from statistics interpolated by the truncation,
#: self-attention; torch, NumPy, SciPy, and boto3, requests at package import).
PINS40 = {**PINS31, "denoising_diffusion_pytorch": "2.3.4", "taming_transformers_rom1504": "0.0.6",
          "pytorch_pretrained_biggan": "0.1.1"}

#: Images: (batch, channels, height, width) in [0, 1); latents: (batch, z_dim).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# denoising-diffusion-pytorch: its package imports accelerate, ema_pytorch and pytorch_fid (training and evaluation
# only; none in the venv): the user's module stands in empty ones before importing it.
_DDPM = '''import sys
import types

for _name, _attrs in {"accelerate": ["Accelerator"], "ema_pytorch": ["EMA"], "pytorch_fid": [],
                      "pytorch_fid.inception": ["InceptionV3"], "pytorch_fid.fid_score": ["calculate_frechet_distance"]
                      }.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, object)
from denoising_diffusion_pytorch import GaussianDiffusion, KarrasUnet, Unet'''
#: The noise prediction at timestep 500 for the whole batch.
_DDPM_UNET = ("t = torch.full((x.shape[0],), 500, dtype=torch.long)\n        "
              "return self.m(2 * x - 1, t)")
#: One ancestral-sampler step's deterministic part at timestep 50: the posterior mean, its log variance, x0.
_DDPM_STEP = ("t = torch.full((x.shape[0],), 50, dtype=torch.long)\n        "
              "mean, _, log_variance, x_start = self.m.p_mean_variance(2 * x - 1, t)\n        "
              "return mean, log_variance, x_start")
#: One DDIM step (eta 0) from timestep 600 to 400, written by the user from the library's predictions.
_DDPM_DDIM = ("t = torch.full((x.shape[0],), 600, dtype=torch.long)\n        "
              "noise, x_start = self.m.model_predictions(2 * x - 1, t, clip_x_start=True, rederive_pred_noise=True)\n"
              "        alpha_next = self.m.alphas_cumprod[400]\n        "
              "return x_start * alpha_next.sqrt() + (1 - alpha_next).sqrt() * noise")
#: Continuous time (random Fourier features) at 0.3, self-conditioning left to the library's zeros.
_DDPM_FOURIER = ("t = torch.full((x.shape[0],), 0.3)\n        "
                 "return self.m(2 * x - 1, t)")
#: EDM2's learned gains start at zero (the U-Net's output, and each block's embedding, are zero until trained): the
#: user gives them 0.5, as a trained checkpoint would give nonzero ones.
_KARRAS_INIT = ("for module in self.m.modules():\n            "
                "if type(module).__name__ == 'Gain':\n                "
                "torch.nn.init.constant_(module.gain, 0.5)")
#: A noise level (sigma) of 0.5 for the whole batch.
_DDPM_KARRAS = "return self.m(2 * x - 1, torch.full((x.shape[0],), 0.5))"

# ---------------------------------------------------------------------------------------------------------------
# taming-transformers: its VQModel is a pytorch_lightning module (not in the venv) built from a loss config, so the
# user composes the same parts: encoder, 1x1 convolutions, VectorQuantizer2, decoder.
_TAMING = '''from taming.modules.diffusionmodules.model import Decoder, Encoder, Model
from taming.modules.vqvae.quantize import VectorQuantizer2


class VQGAN(torch.nn.Module):
    """taming's VQModel without the Lightning training parts: encode, quantize, decode."""

    def __init__(self, ch=32, ch_mult=(1, 2, 2), attn_resolutions=(16,), resolution=32, z_channels=32, n_embed=256,
                 embed_dim=16):
        super().__init__()
        dd = dict(ch=ch, out_ch=3, ch_mult=ch_mult, num_res_blocks=1, attn_resolutions=list(attn_resolutions),
                  dropout=0.0, in_channels=3, resolution=resolution, z_channels=z_channels, double_z=False)
        self.encoder, self.decoder = Encoder(**dd), Decoder(**dd)
        self.quantize = VectorQuantizer2(n_embed, embed_dim, beta=0.25, sane_index_shape=True)
        self.quant_conv = torch.nn.Conv2d(z_channels, embed_dim, 1)
        self.post_quant_conv = torch.nn.Conv2d(embed_dim, z_channels, 1)

    def encode(self, x):
        quant, _, (_, _, indices) = self.quantize(self.quant_conv(self.encoder(x)))
        return quant, indices

    def decode(self, quant):
        return self.decoder(self.post_quant_conv(quant))

    def decode_code(self, codes):
        b, h, w = codes.shape
        return self.decode(self.quantize.get_codebook_entry(codes.reshape(-1), (b, h, w, self.quantize.e_dim)))'''
_VQ_TRIP = "quant, indices = self.m.encode(2 * x - 1)\n        return self.m.decode(quant), indices"
#: The user's token grid (batch, h, w) in [0, 1) scaled to code indices.
_VQ_CODES = "return self.m.decode_code((x * 256).long().clamp(max=255))"
_TAMING_UNET = ("t = torch.full((x.shape[0],), 10, dtype=torch.long)\n        "
                "return self.m(2 * x - 1, t)")

# ---------------------------------------------------------------------------------------------------------------
# pytorch-pretrained-biggan: its package imports boto3 and botocore (checkpoint downloads from S3; not in the venv):
# the user's module stands in empty ones.
_BIGGAN = '''import sys
import types

for _name in ("boto3", "botocore", "botocore.exceptions"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
sys.modules["botocore.exceptions"].ClientError = Exception
from pytorch_pretrained_biggan import BigGAN, BigGANConfig'''
#: The user's latent in [-1, 1) times the truncation, one class (207, golden retriever) for the whole batch.
_BIGGAN_ONE = ("y = torch.zeros(x.shape[0], 1000)\n        y[:, 207] = 1\n        "
               "return self.m(0.4 * (2 * x - 1), y, 0.4)")
#: Halfway between two classes (a class interpolation), truncation 0.7.
_BIGGAN_MIX = ("y = torch.zeros(x.shape[0], 1000)\n        y[:, 1] = 0.5\n        y[:, 980] = 0.5\n        "
               "return self.m(0.7 * (2 * x - 1), y, 0.7)")

#: What a checkpoint would fill: the final unconditional BigGANBatchNorm's weight and bias are ``torch.Tensor(n)``
#: (uninitialised memory), which the user gives batch norm's defaults, and the spectral norms' singular vectors are
#: random (an eval forward does no power iteration: random weights divided by a far too small sigma overflow to inf
#: by the fourth block), which the user converges by twenty power iterations (forwards in train mode, no gradients).
_BIGGAN_INIT = ("torch.nn.init.ones_(self.m.generator.bn.weight)\n        "
                "torch.nn.init.zeros_(self.m.generator.bn.bias)\n        "
                "self.m.train()\n        "
                "with torch.no_grad():\n            "
                "for _ in range(20):\n                "
                "self.m(torch.zeros(1, 128), torch.zeros(1, 1000), 0.5)\n        "
                "self.m.eval()")

MODELS40 = [
    # denoising-diffusion-pytorch: U-Nets and diffusion steps (random weights).
    Spec("ddpm_unet_noise", "denoising_diffusion_pytorch Unet (dim 16, mults 1, 2, 4; linear attention, full "
         "attention at the innermost level; an assert that height and width divide by the downsample factor; "
         "sinusoidal time embedding): the predicted noise at timestep 500", _DDPM,
         "Unet(dim=16, dim_mults=(1, 2, 4), attn_dim_head=8, attn_heads=2)", _DDPM_UNET, "1, 3, 32, 32", _BHW),
    Spec("ddpm_denoise_step", "denoising_diffusion_pytorch GaussianDiffusion.p_mean_variance (cosine schedule of "
         "100 steps, pred_noise: x0 from the noise by gathered schedule coefficients, clamped in place, the "
         "posterior mean and log variance) at timestep 50", _DDPM,
         "GaussianDiffusion(Unet(dim=16, dim_mults=(1, 2, 2), attn_dim_head=8, attn_heads=2), image_size=32, "
         "timesteps=100, objective='pred_noise', beta_schedule='cosine')", _DDPM_STEP, "1, 3, 32, 32", _BHW),
    Spec("ddpm_ddim_step", "denoising_diffusion_pytorch GaussianDiffusion.model_predictions (sigmoid schedule of "
         "1000 steps, pred_v, x0 clipped and the noise re-derived) and the user's DDIM update from timestep 600 "
         "to 400", _DDPM,
         "GaussianDiffusion(Unet(dim=16, dim_mults=(1, 2, 4), attn_dim_head=8, attn_heads=2), image_size=32)",
         _DDPM_DDIM, "1, 3, 32, 32", _BHW),
    Spec("ddpm_unet_fourier_selfcond", "denoising_diffusion_pytorch Unet with random Fourier time features, "
         "self-conditioning (zeros made in the forward when none is given) and learned variance (six output "
         "channels), four levels with full attention at the innermost", _DDPM,
         "Unet(dim=16, dim_mults=(1, 2, 2, 4), self_condition=True, random_fourier_features=True, "
         "learned_variance=True, full_attn=(False, False, False, True), attn_dim_head=8, attn_heads=2)",
         _DDPM_FOURIER, "1, 3, 32, 32", _BHW),
    Spec("ddpm_karras_unet", "denoising_diffusion_pytorch KarrasUnet (EDM2 magnitude-preserving U-Net: pixel norm, "
         "forced weight normalisation, MP-add and MP-cat, Fourier noise embedding, attention at 16 and 8; an assert "
         "on the image size) at noise level 0.5", _DDPM,
         "KarrasUnet(image_size=32, dim=16, dim_max=64, channels=3, num_downsamples=2, num_blocks_per_stage=1, "
         "attn_res=(16, 8), attn_dim_head=8, dropout=0.0)", _DDPM_KARRAS, "1, 3, 32, 32", _B,
         init=_KARRAS_INIT),
    # taming-transformers: VQGAN parts and the pytorch_diffusion U-Net (random weights).
    Spec("taming_vqgan_roundtrip", "taming-transformers VQGAN (Encoder with asymmetric zero padding before each "
         "strided convolution and attention at 16, VectorQuantizer2: nearest code by argmin of a distance matrix, "
         "indices as (batch, h, w), Decoder with nearest upsampling): the reconstruction and the code indices",
         _TAMING, "VQGAN()", _VQ_TRIP, "1, 3, 32, 32", _BHW),
    Spec("taming_vqgan_decode_codes", "taming-transformers VQGAN decode_code: a token grid looked up in the "
         "codebook (get_codebook_entry: embedding, view to (batch, h, w, c), permute), decoded to an image",
         _TAMING, "VQGAN(ch_mult=(1, 2, 2, 2), attn_resolutions=(8,))",
         _VQ_CODES, "1, 8, 8", 'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'),
    Spec("taming_diffusion_unet", "taming-transformers diffusionmodules Model (the pytorch_diffusion DDPM U-Net: "
         "sinusoidal timestep embedding with an assert on its rank, asymmetric padding before downsampling, "
         "nearest upsampling, attention at 16, skip concatenations) at timestep 10", _TAMING,
         "Model(ch=32, out_ch=3, ch_mult=(1, 2, 2), num_res_blocks=1, attn_resolutions=[16], in_channels=3, "
         "resolution=32)", _TAMING_UNET, "1, 3, 32, 32", _BHW),
    # pytorch-pretrained-biggan: class-conditional generators (random weights; from_pretrained downloads).
    Spec("biggan_128", "pytorch_pretrained_biggan BigGAN at 128 (channel width 16: a linear class embedding, "
         "the latent and class projected to a 4x4 grid, ten GenBlocks with nearest upsampling, BigGANBatchNorm "
         "whose statistics are interpolated from 51 stored ones by math.modf of the truncation, self-attention at "
         "64 with max-pooled keys, an assert on the truncation), one class, truncation 0.4", _BIGGAN,
         "BigGAN(BigGANConfig(channel_width=16))", _BIGGAN_ONE, "1, 128", _B, init=_BIGGAN_INIT),
    Spec("biggan_64_mix", "pytorch_pretrained_biggan BigGAN at 64 (channel width 16, seven GenBlocks, attention "
         "at 32), halfway between two classes, truncation 0.7", _BIGGAN,
         "BigGAN(BigGANConfig(output_dim=64, channel_width=16, layers=[(False, 16, 16), (True, 16, 8), "
         "(False, 8, 8), (True, 8, 4), (True, 4, 2), (False, 2, 2), (True, 2, 1)], attention_layer_position=5))",
         _BIGGAN_MIX, "1, 128", _B, init=_BIGGAN_INIT),
]

if __name__ == "__main__":
    main(MODELS40, "real_zoo40", PINS40)
