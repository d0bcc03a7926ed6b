"""A fifty-first real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo51.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on neural fields and differentiable rendering (NeRF-style fields with
hash, positional, spherical-harmonic and tensor encodings, ray sampling, volume rendering, Gaussian splatting's
projection and tiling in pure torch): the thirty-first zoo's pins and three libraries whose code no earlier zoo or sweep
ran (``PINS51``: unpacked wheels like the others, never pip-installed), with two more that the first of them imports:
nerfstudio 1.1.5 (the nerfstudio team around Matthew Tancik, Ethan Weber, Evonne Ng, Ruilong Li, Brent Yi, Justin Kerr
and Angjoo Kanazawa, github.com/nerfstudio-project/nerfstudio: ``RayBundle`` and ``RaySamples``, tensor dataclasses
indexed by boolean masks over rays; its samplers (uniform, linear-disparity and the piecewise uniform/linear-disparity
spacing by ``torch.where``; ``PDFSampler``'s inverse CDF by ``cumsum``, ``searchsorted``, ``gather`` and, keeping the
original bins, a ``sort``; ``ProposalNetworkSampler``'s Python loop over the proposal networks); its fields
(``NerfactoField`` and ``HashMLPDensityField`` on the torch hash grid: corners by ``floor`` and ``ceil`` to int32,
hashed by products with primes, ``bitwise_xor`` and ``%=``, a selector zeroing positions outside [0, 1] and setting
``requires_grad`` on them; ``SceneContraction`` by norms and ``torch.where``, and for Gaussians its Jacobian by
functorch's ``jacrev`` under ``vmap``, the covariances outside the unit ball rewritten by masked assignment;
``NeRFField`` with the integrated positional encoding of conical frustums; ``TensoRFField`` whose forward takes a
boolean mask over rays, ``if mask.any()``, and writes the masked rays' outputs into a background by masked assignment;
``TensorVMEncoding``, ``TriplaneEncoding`` and ``KPlanesEncoding`` by ``grid_sample``); its renderers (weights by
``cumsum`` and ``exp`` of the densities; median depth by ``searchsorted`` of the cumulative weights and ``gather``;
``SHRenderer``); it needs jaxtyping, imported by every module for its annotations, and nerfacc, imported by its samplers
and renderers, so both are pinned too: jaxtyping 0.2.36 (Patrick Kidger, github.com/google/jaxtyping; the last version
that needs no other package) and nerfacc 0.5.2 (Ruilong Li, github.com/KAIR-BAIR/nerfacc, its wheel's home page; the
version nerfstudio 1.1.5 asks for; its packed paths are CUDA, and these models take its renderers' batched paths, plain
torch); its scene box imports viser (not in the venv; its transforms serve only ``OrientedBox.from_params``) and its
writer, which the fields' base class reaches through its config, imports ``torch.utils.tensorboard`` (tensorboard is not
in the venv), both at package import, used by no model here, so the user's module stands in an empty ``viser`` and
``viser.transforms`` and a ``torch.utils.tensorboard`` holding only a ``SummaryWriter`` name, as zoo 50's does for
xxhash; tiny-cuda-nn is absent and the user asks for ``implementation="torch"``), fast-ngp 0.1.0 (Chima Emmanuel,
github.com/Dox45/fast-ngp: Instant-NGP in pure torch; ``MultiresHashEncoding`` with a Python loop over the levels and, a
level, over the eight corners (``clone`` and in-place ``+=`` of offsets on index tensors, XOR with int64 primes, ``%``
the table size, ``nn.Embedding`` lookups), smoothstep or trilinear weights; ``FastNGP_NeRF``'s direction features padded
by a Python ``while`` and its ``VolumeRenderer``: ``linspace`` samples expanded to the rays, alpha compositing by
``cumprod``, a last distance of 1e10) and gsplat 1.5.3 (the nerfstudio team's Gaussian splatting library, Vickie Ye,
Ruilong Li, Justin Kerr, Matias Turkulainen, Brent Yi and others, github.com/nerfstudio-project/gsplat; its authors
overlap nerfstudio's, but it is a library of its own and the only Gaussian splatting read here with a pure-torch path:
``gsplat.cuda._torch_impl``, its reference implementations, which its fused CUDA kernels (sources it compiles on first
use, impossible here) are tested against: covariances from quaternions and scales, the EWA projection with radii by
``ceil`` and masked assignment of zeros to invalid or off-image Gaussians, spherical harmonics, ``_isect_tiles``
(``.item()`` of the number of intersections, ``torch.empty`` of it, a Python loop over every image and Gaussian and
their tiles with each depth's float bits by ``struct``, writes element by element, an int64 key by shifts and a
``sort``) and ``_isect_offset_encode`` (``unique_consecutive`` with counts, scattered into the tile grid, ``cumsum``)).
Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): nerfacc as a
library of models of its own (its occupancy grid and proposal estimators, ``traverse_grids``, ``importance_sampling``,
``searchsorted`` and every packed scan call its CUDA extension, which raises without CUDA; only its batched volume
rendering is torch, reached here through nerfstudio), gsplat's ``rasterization``, ``_rasterization`` and
``_rasterize_to_pixels`` (they call ``rasterize_to_indices_in_range``, CUDA, and its torch ``accumulate`` needs
nerfacc's packed CUDA scans; so the splats are projected and tiled, not composited), gaussian-renderer 0.2.0 and
splatkit 0.1.0 (both render through gsplat's CUDA rasterizer), flashdrr 0.6.0 (Patrick Carnahan and Arteen Mirzai: X-ray
ray casting of volumes; it imports torchvision, monai and triton), siren-pytorch 0.1.7 (Phil Wang: SIREN layers only, no
sampling or rendering, and two libraries by other authors were enough), nerf-torch 0.0.2 (Kye Gomez: one small model
file), nerf-pytorch 1.2, easy-3dgs 0.1.0 and inr-collection 0.3 (``pip download --only-binary`` found no wheel), and,
read in the package index only: ds-splat, taichi-splatting and msplat (CUDA, Taichi and Metal rasterizers by their
summaries) and gaussian-splatting and its siblings (Inria's training code refactored, by their summaries; not
downloaded: three libraries were enough). Within the chosen libraries: nerfstudio's ``VolumetricSampler`` and NeuS
sampler (nerfacc's CUDA occupancy grid, and NeuS's SDF field needs tiny-cuda-nn), its ``NerfactoField`` with tcnn (the
default; the user asks for torch), its models' ``populate_modules`` (torchmetrics, not in the venv; the user assembles
the fields, samplers and renderers as those models do); fast-ngp's ``GigapixelMLP`` and ``SDFMLP`` (their modules use
``FastMLP`` without importing it: a NameError at construction; the user's SDF builds a ``FastMLP`` itself) and its
trainer and dataset (training and data loading); gsplat's 2DGS, unscented-transform and packed paths (CUDA only).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 50 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (hash tables indexed by XOR of int64 products, boolean masks over rays with
Python branches on ``mask.any()``, masked assignment, inverse-CDF sampling by ``searchsorted`` and ``gather``, sorts,
Python loops over levels, corners and proposal networks, functorch ``vmap`` of ``jacrev`` inside the forward,
``torch.autograd.grad`` inside the forward, ``grid_sample`` on planes and lines, ``.item()`` sizes, ``struct`` on tensor
values, ``unique_consecutive``). With nerfstudio, on the user's rays: nerfacto (two proposal hash-grid density fields,
the proposal sampler, the hash-grid field in a contracted scene; RGB, median depth and accumulation); vanilla NeRF
(coarse and fine fields, uniform then PDF samples); mip-NeRF 360's integrated encoding of contracted Gaussians;
TensoRF's vector-matrix encodings with the accumulation mask; K-Planes over space and time; a triplane to
spherical-harmonic colours through ``SHRenderer``. With fast-ngp: its NeRF through its renderer; its NeRF without view
directions, smoothstep interpolation, on white; its hash encoding as a signed distance field with normals by autograd.
With gsplat: the projection, SH colours and tile intersections of Gaussians seen by two cameras.

Each is small and has the dynamic axis a deploying user declares: the rays (or points, or Gaussians) a call. The inputs
are the user's tensors in [0, 1): (rays, 8) for the fields (an origin's offset around (0, 0, -1.5), a direction's offset
around +z, a time for K-Planes and a camera index for nerfacto's appearance embedding; near and far planes fixed a
model) and (gaussians, 14) for gsplat (a mean, a quaternion, scales, an opacity, a colour; two fixed pinhole cameras of
64x48 with 16-pixel tiles). Samplers are deterministic in eval (nerfstudio stratifies only in training; fast-ngp's
renderer jitters unless the user turns ``perturb`` off, which the user's module does). No BatchNorm. No output
set-valued: gsplat's intersections come sorted by tile and depth (depths differ in the float bits) and its flattened ids
in that order. The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs, and the same outputs with and without ``torch.no_grad``) before the first migrate run, with a source tree
unpacked by ``fetch_sources`` from ``PINS51`` and ``make_zoo``: at the spec's size, 16 more rays (or Gaussians), twice
as many, and three times as many plus 5; with one thread on the shared two cores, each in its own process (load average
2.7 from other sessions), the best of two forwards at the spec's size took 0.008 to 0.029 s for nerfstudio (0.028
nerfacto, 0.025 mip-NeRF 360, 0.029 TensoRF, 0.008 to 0.009 the others), 0.012 to 0.015 s for fast-ngp and 0.026 s for
gsplat; at the largest sizes at most 0.044 s for nerfstudio (nerfacto at 149 rays), 0.032 s for fast-ngp and 0.054 s
(gsplat at 77 Gaussians: 348 intersections); builds (imports included) took 3.3 to 5.9 s. Nothing changed after the
eager runs. Odd, left as the wheels have them: nerfstudio's activations warn that ``torch.cuda.amp.custom_fwd`` is
deprecated, and its contraction of Gaussians that functorch's ``jacrev`` and ``vmap`` are; with random weights TensoRF's
coarse accumulation at the spec's size is 0.0015 to 0.027 a ray, above its 1e-4 threshold, so its mask keeps every ray
(the branch and masked writes still run); NerfactoField's ``get_density`` sets ``requires_grad`` on its sample positions
(they are leaves of the user's rays, so eager runs are unaffected); fast-ngp's ``MultiresHashEncoding`` keeps its growth
factor as a NumPy float (its resolutions are Python ints, by ``int(np.floor(...))``)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries of neural fields and differentiable rendering, unpacked wheels like
#: the others (never pip-installed): nerfstudio (the nerfstudio team: fields with hash, positional, spherical-harmonic,
#: tensor and plane encodings, ray samplers, volume renderers), with nerfacc (Ruilong Li, which nerfstudio's samplers
#: and renderers import, at the version nerfstudio asks for) and jaxtyping (Patrick Kidger, whose annotations
#: nerfstudio's modules import; 0.2.36 is the last that needs nothing else); fast-ngp (Chima Emmanuel: Instant-NGP's
#: multiresolution hash encoding and a NeRF volume renderer in pure torch); gsplat (the nerfstudio team's Gaussian
#: splatting library, of which only its pure-torch reference implementations run here).
PINS51 = {**PINS31, "nerfstudio": "1.1.5", "nerfacc": "0.5.2", "jaxtyping": "0.2.36", "fast_ngp": "0.1.0",
          "gsplat": "1.5.3"}

#: The user's batches of rays: (rays, 8) in [0, 1): an origin's offset, a direction's offset, a time and a camera.
_R = 'dynamic_axes = { x = { 0 = "rays" } }'
#: The user's Gaussians: (gaussians, 14) in [0, 1): a mean, a rotation quaternion, scales, an opacity, a colour.
_G = 'dynamic_axes = { x = { 0 = "gaussians" } }'

# ---------------------------------------------------------------------------------------------------------------
# nerfstudio: fields, samplers and renderers assembled as its nerfacto, vanilla-nerf, mip-nerf and tensorf models do,
# with the torch implementations (tiny-cuda-nn is absent: nerfstudio warns once and the user asks for "torch").
# nerfstudio's scene box imports viser (not in the venv; its transforms serve only OrientedBox.from_params) and its
# writer imports torch.utils.tensorboard (tensorboard is not in the venv; the writer is a training logger), both at
# package import through the fields' base class: the user's module stands in an empty ``viser`` and a
# ``torch.utils.tensorboard`` holding only a ``SummaryWriter`` name.
_NS = '''import types
sys.modules.setdefault("viser", types.ModuleType("viser"))
sys.modules.setdefault("viser.transforms", types.ModuleType("viser.transforms"))
_tb = types.ModuleType("torch.utils.tensorboard")
_tb.SummaryWriter = object
sys.modules.setdefault("torch.utils.tensorboard", _tb)
from nerfstudio.cameras.rays import RayBundle
from nerfstudio.field_components.encodings import NeRFEncoding, SHEncoding, TensorVMEncoding, TriplaneEncoding
from nerfstudio.field_components.encodings import KPlanesEncoding
from nerfstudio.field_components.field_heads import FieldHeadNames
from nerfstudio.field_components.mlp import MLP
from nerfstudio.field_components.spatial_distortions import SceneContraction
from nerfstudio.fields.density_fields import HashMLPDensityField
from nerfstudio.fields.nerfacto_field import NerfactoField
from nerfstudio.fields.tensorf_field import TensoRFField
from nerfstudio.fields.vanilla_nerf_field import NeRFField
from nerfstudio.model_components.ray_samplers import (LinearDisparitySampler, PDFSampler, ProposalNetworkSampler,
                                                      UniformLinDispPiecewiseSampler, UniformSampler)
from nerfstudio.model_components.renderers import AccumulationRenderer, DepthRenderer, RGBRenderer, SHRenderer
from nerfstudio.utils import colors

AABB = torch.tensor([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])


def rays(x, near=0.5, far=2.5):
    """The user's rays (R, 8): origins around (0, 0, -1.5), directions around +z, a time and a camera index."""
    origins = (x[:, :3] - 0.5) * 0.2 + torch.tensor([0.0, 0.0, -1.5])
    directions = torch.nn.functional.normalize((x[:, 3:6] - 0.5) * 0.6 + torch.tensor([0.0, 0.0, 1.0]), dim=-1)
    ones = torch.ones_like(x[:, :1])
    return RayBundle(origins=origins, directions=directions, pixel_area=ones * 1e-4,
                     camera_indices=(x[:, 7:8] * 4).long(), nears=ones * near, fars=ones * far, times=x[:, 6:7])


class Nerfacto(torch.nn.Module):
    """nerfacto's sampling and field: two proposal hash-grid density fields, the proposal sampler, the hash-grid
    field in a contracted scene, RGB, median depth and accumulation."""

    def __init__(self):
        super().__init__()
        contraction = SceneContraction(order=float("inf"))
        self.props = torch.nn.ModuleList([
            HashMLPDensityField(AABB, spatial_distortion=contraction, num_levels=4, max_res=64,
                                log2_hashmap_size=12, implementation="torch") for _ in range(2)])
        self.sampler = ProposalNetworkSampler(num_proposal_samples_per_ray=(24, 12), num_nerf_samples_per_ray=8,
                                              num_proposal_network_iterations=2, single_jitter=True,
                                              initial_sampler=UniformLinDispPiecewiseSampler(single_jitter=True))
        self.field = NerfactoField(AABB, num_images=4, num_levels=4, max_res=128, log2_hashmap_size=12,
                                   hidden_dim=32, hidden_dim_color=32, appearance_embedding_dim=8,
                                   spatial_distortion=contraction, implementation="torch")
        self.rgb, self.depth, self.acc = RGBRenderer(), DepthRenderer(method="median"), AccumulationRenderer()

    def forward(self, x):
        bundle = rays(x, 0.05, 6.0)
        samples, _, _ = self.sampler(bundle, density_fns=[p.density_fn for p in self.props])
        out = self.field(samples)
        weights = samples.get_weights(out[FieldHeadNames.DENSITY])
        return (self.rgb(rgb=out[FieldHeadNames.RGB], weights=weights), self.depth(weights, samples),
                self.acc(weights))


class VanillaNeRF(torch.nn.Module):
    """vanilla NeRF: coarse and fine NeRF fields with positional encodings, uniform then PDF samples (the originals
    kept and sorted in), RGB and expected depth of each."""

    def __init__(self):
        super().__init__()
        self.coarse, self.fine = (NeRFField(position_encoding=NeRFEncoding(3, 6, 0.0, 5.0, include_input=True),
                                            direction_encoding=NeRFEncoding(3, 2, 0.0, 1.0, include_input=True),
                                            base_mlp_num_layers=4, base_mlp_layer_width=32, head_mlp_layer_width=16,
                                            skip_connections=(2,)) for _ in range(2))
        self.uniform, self.pdf = UniformSampler(num_samples=16), PDFSampler(num_samples=16)
        self.rgb, self.depth = RGBRenderer(background_color="white"), DepthRenderer(method="expected")

    def forward(self, x):
        bundle = rays(x)
        samples = self.uniform(bundle)
        out = self.coarse(samples)
        weights = samples.get_weights(out[FieldHeadNames.DENSITY])
        rgb_coarse = self.rgb(rgb=out[FieldHeadNames.RGB], weights=weights)
        fine = self.pdf(bundle, samples, weights)
        out = self.fine(fine)
        weights = fine.get_weights(out[FieldHeadNames.DENSITY])
        return rgb_coarse, self.rgb(rgb=out[FieldHeadNames.RGB], weights=weights), self.depth(weights, fine)


class MipNeRF360(torch.nn.Module):
    """mip-NeRF 360's integrated positional encoding: conical frustums as Gaussians, contracted by SceneContraction
    (the Jacobian of the contraction by functorch's jacrev under vmap), one field sampled twice (uniform, then PDF)."""

    def __init__(self):
        super().__init__()
        self.field = NeRFField(position_encoding=NeRFEncoding(3, 6, 0.0, 5.0, include_input=True),
                               direction_encoding=NeRFEncoding(3, 2, 0.0, 1.0, include_input=True),
                               base_mlp_num_layers=3, base_mlp_layer_width=32, head_mlp_layer_width=16,
                               skip_connections=(1,), use_integrated_encoding=True,
                               spatial_distortion=SceneContraction())
        self.uniform = UniformSampler(num_samples=12)
        self.pdf = PDFSampler(num_samples=12, include_original=False)
        self.rgb, self.acc = RGBRenderer(), AccumulationRenderer()

    def forward(self, x):
        bundle = rays(x, 0.1, 4.0)
        samples = self.uniform(bundle)
        weights = samples.get_weights(self.field(samples)[FieldHeadNames.DENSITY])
        fine = self.pdf(bundle, samples, weights)
        out = self.field(fine)
        weights = fine.get_weights(out[FieldHeadNames.DENSITY])
        return self.rgb(rgb=out[FieldHeadNames.RGB], weights=weights), self.acc(weights)


class TensoRF(torch.nn.Module):
    """TensoRF with vector-matrix encodings: uniform samples, rays whose coarse accumulation is tiny masked out of
    the fine field (TensoRFField's forward by a boolean mask over rays, a white background elsewhere), PDF samples."""

    def __init__(self):
        super().__init__()
        self.field = TensoRFField(AABB, feature_encoding=NeRFEncoding(9, 2, 0.0, 2.0),
                                  direction_encoding=NeRFEncoding(3, 2, 0.0, 2.0),
                                  density_encoding=TensorVMEncoding(resolution=16, num_components=4),
                                  color_encoding=TensorVMEncoding(resolution=16, num_components=6),
                                  appearance_dim=9, head_mlp_num_layers=2, head_mlp_layer_width=32)
        self.uniform = UniformSampler(num_samples=16, single_jitter=True)
        self.pdf = PDFSampler(num_samples=16, single_jitter=True, include_original=False)
        self.rgb, self.depth, self.acc = RGBRenderer(), DepthRenderer(), AccumulationRenderer()

    def forward(self, x):
        bundle = rays(x)
        samples = self.uniform(bundle)
        weights = samples.get_weights(self.field.get_density(samples))
        acc_mask = torch.where(self.acc(weights) < 0.0001, False, True).reshape(-1)
        fine = self.pdf(bundle, samples, weights)
        out = self.field(fine, mask=acc_mask, bg_color=colors.WHITE)
        weights = fine.get_weights(out[FieldHeadNames.DENSITY])
        return self.rgb(rgb=out[FieldHeadNames.RGB], weights=weights), self.depth(weights, fine)


class KPlanesDynamic(torch.nn.Module):
    """A dynamic scene by K-Planes: six planes over (x, y, z, t) multiplied, a small MLP to density and colour (the
    direction by spherical harmonics), linear-disparity samples, RGB and accumulation."""

    def __init__(self):
        super().__init__()
        self.planes = KPlanesEncoding(resolution=(16, 16, 16, 4), num_components=8)
        self.sh = SHEncoding(levels=3, implementation="torch")
        self.mlp = MLP(in_dim=8 + 9, num_layers=2, layer_width=32, out_dim=4)
        self.sampler = LinearDisparitySampler(num_samples=16)
        self.rgb, self.acc = RGBRenderer(), AccumulationRenderer()

    def forward(self, x):
        bundle = rays(x)
        samples = self.sampler(bundle)
        pos = samples.frustums.get_positions().clamp(-1, 1)
        t = samples.times * 2 - 1
        h = torch.cat([self.planes(torch.cat([pos, t], -1)), self.sh(samples.frustums.directions)], -1)
        h = self.mlp(h)
        weights = samples.get_weights(torch.nn.functional.softplus(h[..., :1]))
        return self.rgb(rgb=torch.sigmoid(h[..., 1:]), weights=weights), self.acc(weights)


class TriplaneSH(torch.nn.Module):
    """A Plenoxel-like field: a triplane encoding to a density and degree-2 spherical harmonic coefficients per
    colour, uniform samples, SHRenderer (the SH evaluated along the view direction, then composited)."""

    def __init__(self):
        super().__init__()
        self.planes = TriplaneEncoding(resolution=16, num_components=8, reduce="sum")
        self.head = torch.nn.Linear(8, 1 + 27)
        self.sampler = UniformSampler(num_samples=16)
        self.sh = SHRenderer(activation=torch.nn.Sigmoid())

    def forward(self, x):
        bundle = rays(x)
        samples = self.sampler(bundle)
        h = self.head(self.planes(samples.frustums.get_positions().clamp(-1, 1)))
        weights = samples.get_weights(torch.relu(h[..., :1]))
        return self.sh(sh=h[..., 1:], directions=samples.frustums.directions, weights=weights)'''

# ---------------------------------------------------------------------------------------------------------------
# fast-ngp: Instant-NGP's multiresolution hash encoding (eight corners hashed by XOR with primes, a level at a time)
# and a NeRF volume renderer (linspace samples, alpha compositing by cumprod), all torch. The renderer jitters its
# samples by default (``perturb``, training): the user turns it off for inference.
_NGP = '''from fast_ngp.encoding.multi_hash_enc import MultiresHashEncoding
from fast_ngp.models.fast_mlp import FastMLP
from fast_ngp.models.fast_nerf import FastNGP_NeRF

SMALL = {"n_levels": 6, "n_features_per_level": 2, "log2_hashmap_size": 12, "base_resolution": 4,
         "finest_resolution": 64}


def ray_od(x):
    """The user's rays (R, 8): origins around (0, 0, -1.5) and directions around +z."""
    origins = (x[:, :3] - 0.5) * 0.2 + torch.tensor([0.0, 0.0, -1.5])
    return origins, (x[:, 3:6] - 0.5) * 0.6 + torch.tensor([0.0, 0.0, 1.0])


class NGPRender(torch.nn.Module):
    """FastNGP_NeRF (hash encoding, direction features, density and colour MLPs) rendering rays through its
    VolumeRenderer: 24 samples from 0.5 to 2.5, no jitter; RGB, depth and the weights."""

    def __init__(self):
        super().__init__()
        self.nerf = FastNGP_NeRF(encoding_config=SMALL, mlp_config={"n_hidden_layers": 2, "hidden_dim": 32})
        self.nerf.renderer.perturb = False
        self.nerf.renderer.n_samples, self.nerf.renderer.near, self.nerf.renderer.far = 24, 0.5, 2.5

    def forward(self, x):
        out = self.nerf.render_rays(*ray_od(x))
        return out["rgb"], out["depth"], out["weights"]


class NGPWhite(torch.nn.Module):
    """FastNGP_NeRF without view directions (colour from the density features), smoothstep interpolation, a white
    background, 32 samples from 1.0 to 2.0."""

    def __init__(self):
        super().__init__()
        self.nerf = FastNGP_NeRF(encoding_config={**SMALL, "interpolation": "smoothstep"},
                                 mlp_config={"n_hidden_layers": 1, "hidden_dim": 32}, use_viewdir=False, bound=1.5)
        self.nerf.renderer.perturb, self.nerf.renderer.use_white_bkgd = False, True
        self.nerf.renderer.n_samples, self.nerf.renderer.near, self.nerf.renderer.far = 32, 1.0, 2.0

    def forward(self, x):
        out = self.nerf.render_rays(*ray_od(x))
        return out["rgb"], out["depth"]


class NGPSDF(torch.nn.Module):
    """A signed distance field: the hash encoding of points in [0, 1)^3, a FastMLP to the distance, and the surface
    normals as the distance's gradient by torch.autograd.grad (the points made to require grad)."""

    def __init__(self):
        super().__init__()
        self.enc = MultiresHashEncoding(**SMALL)
        self.mlp = FastMLP(self.enc.get_output_dim(), 1, n_hidden_layers=2, hidden_dim=32, activation="leaky_relu")

    def forward(self, x):
        with torch.enable_grad():
            pts = x[:, :3].detach().requires_grad_(True)
            sdf = self.mlp(self.enc(pts)) + (pts - 0.5).norm(dim=-1, keepdim=True) - 0.3
            normals = torch.autograd.grad(sdf.sum(), pts)[0]
        return sdf.detach(), torch.nn.functional.normalize(normals, dim=-1)'''

# ---------------------------------------------------------------------------------------------------------------
# gsplat: its pure-torch reference implementations (gsplat.cuda._torch_impl; the fused kernels are CUDA sources it
# compiles on first use and cannot here): covariances from quaternions and scales, the EWA projection to the image,
# spherical-harmonic colours, the tile intersections (a Python loop over every Gaussian and its tiles, depths as
# their float bits by struct, a sort) and the tile offsets (unique_consecutive).
_GS = '''from gsplat.cuda._torch_impl import (_fully_fused_projection, _isect_offset_encode, _isect_tiles,
                                      _quat_scale_to_covar_preci, _spherical_harmonics)


class SplatTiles(torch.nn.Module):
    """The Gaussians (N, 14) seen by two pinhole cameras of 64x48: covariances, projection (radii, means, conics,
    antialiasing compensations), degree-1 SH colours (the SH coefficients learned), tile intersections of 16-pixel
    tiles sorted by tile and depth, and each tile's offset."""

    def __init__(self):
        super().__init__()
        self.sh = torch.nn.Parameter(torch.randn(4, 3) * 0.3)
        views = torch.eye(4).repeat(2, 1, 1)
        views[:, 2, 3] = torch.tensor([3.0, 3.5])
        views[1, 0, 3] = 0.3
        self.register_buffer("viewmats", views)
        self.register_buffer("Ks", torch.tensor([[40.0, 0, 32], [0, 40.0, 24], [0, 0, 1]]).repeat(2, 1, 1))

    def forward(self, x):
        means = (x[:, :3] - 0.5) * 2
        covars, _ = _quat_scale_to_covar_preci(x[:, 3:7] + 0.1, x[:, 7:10] * 0.1 + 0.01, compute_preci=False)
        radii, means2d, depths, conics, comp = _fully_fused_projection(means, covars, self.viewmats, self.Ks, 64, 48,
                                                                       calc_compensations=True)
        dirs = means[None] - torch.linalg.inv(self.viewmats)[:, None, :3, 3]
        coeffs = (self.sh + x[:, None, 11:14]).expand(2, -1, -1, -1)
        rgb = torch.clamp_min(_spherical_harmonics(1, dirs, coeffs) + 0.5, 0.0)
        tiles, isect_ids, flatten_ids = _isect_tiles(means2d, radii, depths, 16, 4, 3)
        offsets = _isect_offset_encode(isect_ids, 2, 4, 3)
        return radii, means2d, conics, comp * x[:, 10], rgb, tiles, offsets, flatten_ids'''

MODELS51 = [
    # nerfstudio: fields, samplers and renderers (random weights, the torch implementations).
    Spec("ns_nerfacto_proposal_hash", "nerfstudio nerfacto assembled: two HashMLPDensityField proposal networks "
         "(torch hash grids in a scene contracted by SceneContraction), ProposalNetworkSampler (piecewise "
         "uniform/linear-disparity samples, then PDF samples twice), NerfactoField (hash grid, SH directions, "
         "appearance embedding), RGB, median depth (searchsorted of the cumulative weights) and accumulation",
         _NS, "Nerfacto()", "return self.m(x)", "48, 8", _R),
    Spec("ns_vanilla_nerf_pdf", "nerfstudio vanilla NeRF: coarse and fine NeRFField with NeRFEncoding, "
         "UniformSampler then PDFSampler (inverse CDF by searchsorted and gather, the original bins sorted in), "
         "RGB on white and expected depth", _NS, "VanillaNeRF()", "return self.m(x)", "48, 8", _R),
    Spec("ns_mipnerf360_ipe", "nerfstudio mip-NeRF 360 style: NeRFField with the integrated positional encoding of "
         "conical frustums as Gaussians, contracted by SceneContraction (its Jacobian by functorch jacrev under "
         "vmap), uniform then PDF samples of the same field", _NS, "MipNeRF360()", "return self.m(x)", "48, 8", _R),
    Spec("ns_tensorf_vm_masked", "nerfstudio TensoRF: TensoRFField with TensorVMEncoding (grid_sample of planes and "
         "lines), uniform samples, the rays with coarse accumulation under 1e-4 masked out of the fine field by a "
         "boolean mask (a white background there), PDF samples, RGB and depth", _NS, "TensoRF()",
         "return self.m(x)", "48, 8", _R),
    Spec("ns_kplanes_dynamic", "nerfstudio KPlanesEncoding over (x, y, z, t) (six planes by grid_sample, "
         "multiplied), SHEncoding of directions, an MLP to density and colour, LinearDisparitySampler, RGB and "
         "accumulation", _NS, "KPlanesDynamic()", "return self.m(x)", "48, 8", _R),
    Spec("ns_triplane_sh_render", "nerfstudio TriplaneEncoding (three planes summed) to a density and degree-2 "
         "spherical-harmonic colour coefficients, uniform samples, SHRenderer", _NS, "TriplaneSH()",
         "return self.m(x)", "48, 8", _R),
    # fast-ngp: Instant-NGP's hash encoding and a NeRF renderer in pure torch (random weights).
    Spec("fastngp_nerf_render", "fast-ngp FastNGP_NeRF (MultiresHashEncoding: 6 levels, XOR-hashed corners, "
         "trilinear weights; direction features; density and colour FastMLPs) through its VolumeRenderer "
         "(24 samples, cumprod transmittance): RGB, depth and weights", _NGP, "NGPRender()", "return self.m(x)",
         "48, 8", _R),
    Spec("fastngp_nerf_white_nodir", "fast-ngp FastNGP_NeRF without view directions, smoothstep interpolation in "
         "the hash encoding, a white background, 32 samples: RGB and depth", _NGP, "NGPWhite()", "return self.m(x)",
         "48, 8", _R),
    Spec("fastngp_hash_sdf_normals", "fast-ngp MultiresHashEncoding and FastMLP as a signed distance field, the "
         "normals by torch.autograd.grad of the distance with respect to the points", _NGP, "NGPSDF()",
         "return self.m(x)", "64, 8", _R),
    # gsplat: Gaussian splatting's projection and tiling by its pure-torch reference implementation.
    Spec("gsplat_torch_project_tiles", "gsplat pure-torch reference: covariances from quaternions and scales, EWA "
         "projection for two pinhole cameras (radii, 2D means, conics, compensations), degree-1 SH colours, tile "
         "intersections (a Python loop per Gaussian, depths' float bits by struct, sorted) and tile offsets",
         _GS, "SplatTiles()", "return self.m(x)", "24, 14", _G),
]

if __name__ == "__main__":
    main(MODELS51, "real_zoo51", PINS51)
