"""A forty-fifth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo45.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on scientific machine learning in pure PyTorch: the thirty-first zoo's
pins and three more libraries by three other authors, whose code no earlier zoo or sweep ran (``PINS45``: unpacked
wheels like the others, never pip-installed): neuraloperator 2.0.0 (Jean Kossaifi, David Pitt, Nikola Kovachki,
Zongyi Li and others, module ``neuralop``: Fourier neural operators whose spectral convolutions take ``rfft``/``rfftn``
of the field, keep the lowest modes by slices built from the sizes, multiply by complex weights (dense, or factorized
through tensorly and tensorly-torch) and ``irfft`` back to an output size from the input's and a resolution scaling
factor; a positional grid made with ``linspace`` from the input's spatial size; domain padding by a fraction of each
side, the pad computed from the size and cropped after the last layer; U-NO resampling by scale factors with
interpolation; its package imports tensorly, tensorly-torch and opt-einsum, added to the ``bench`` extra; wandb
and h5py, among its dependencies, are not in the venv and its package import does not need them), e3nn 0.6.0
(Mario Geiger, Tess Smidt and others: E(3)-equivariant point networks; the model files' own radius graph by
``torch.cdist``, a threshold, ``nonzero`` and a mask of same-molecule pairs; real spherical harmonics of the edge
vectors; tensor products with paths fixed at construction; messages summed onto the atoms by ``scatter_add_`` with an
expanded index, and onto the molecules by a scatter whose size is ``int(batch.max()) + 1``; sympy and scipy in the
venv, opt-einsum-fx added to the ``bench`` extra) and egnn-pytorch 0.2.8 (Phil Wang and Eric Alcaide: E(n)-equivariant
graph networks; pairwise relative coordinates, the nearest neighbours by ``topk`` of a distance ranking filled in place
with ``1e5`` for padded atoms, ``-1`` on the diagonal and ``0`` for bonded pairs, gathered by index; with
``only_sparse_neighbors`` the neighbour count read by ``.item()`` from the adjacency's largest row sum; adjacency
degrees by repeated ``matmul`` of the bond matrix in a Python loop; masked sums or means of messages; coordinate
updates; einops, in the venv; its ``egnn_pytorch_geometric`` module, needing torch-geometric, is not used).

Considered and dropped before any model was chosen: torch-harmonics 0.9.3 (Boris Bonev, Thorsten Kurth and others at
NVIDIA: spherical harmonic transforms and the spherical FNO; the wheel pip picks is compiled, cp311 manylinux, and
asks for torch 2.14, the venv has 2.13; so neuraloperator's SFNO and LocalNO, which import it, are not chosen either),
pina-mathlab 0.3.2 (PINA contributors: PINNs, FNO and DeepONet; lightning and torch-geometric among its dependencies,
not in the venv), torchdyn 1.0.6 (Michael Poli: neural ODEs; pytorch-lightning, torchcde, torchsde, ipykernel and
scikit-learn among its dependencies), deepxde 1.15.0 (Lu Lu: PINNs and DeepONet; not downloaded: its networks'
forwards are MLPs on coordinates, the PDE residuals live in its training losses), nvidia-physicsnemo 2.2.2 and
microsoft-aurora 2.0.1 (large frameworks with many dependencies: not read further, three libraries by three authors
were enough), nops, deeponets and pinnde (small recent packages, not read); within the chosen libraries:
neuraloperator's GINO, FNOGNO (neighbour search), CODANO and UQNO (not chosen: four models from it were enough), e3nn's
v2103 point convolution (imports compiled torch-scatter) and its voxel convolutions (not chosen); the libraries zoos 15
to 43 dropped or used, as they found (torchdiffeq and e2cnn are zoo 27's and 28's).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 43 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (complex FFTs with mode truncation and an output size from the input's,
grids made from the input's size, padding computed from the size, resampling by scale factors, radius graphs by
``nonzero`` with a data-dependent edge count, scatters onto a count from ``batch.max()``, ``topk`` neighbour ranking
with in-place masked fills, ``.item()`` of a count, Python loops of matrix powers). Neural operators with
neuraloperator (random weights, 16 hidden channels, one input and one output channel): a 2-D FNO (8x8 modes, 2
layers, Darcy-like), a Tucker-factorized 2-D TFNO (rank 0.42) with domain padding of a quarter, a 1-D FNO (12 modes)
whose second layer doubles the resolution (super-resolution: the output twice the input's length), and a 2-D U-NO (16,
32, 16 channels; modes 8, 4, 8; the resolution halved then doubled). Equivariant networks with e3nn on molecules in a
box of side 2 (random weights, radius 1.0, about four neighbours an atom): gate_points_2102's Network (scalars and
vectors of both parities, edge harmonics to l=2) giving one invariant per molecule, v2106's SimpleNetwork (8 of each
irrep to l=2) giving a vector per atom from a scalar per atom (forces-like, unpooled), and a SimpleNetwork to l=1 from
a velocity per atom to a pseudo-scalar and a vector per molecule (pooled). E(n)-equivariant graph networks with
egnn-pytorch (random weights, 16 features, 10 atom types): an EGNN_Network over the 4 nearest neighbours, an
EGNN_Network over a chain molecule's bonds (2 adjacency degrees embedded, only bonded neighbours) with padded atoms
masked, and one EGNN layer over the 6 nearest neighbours within a radius (Fourier distance features, soft edges,
normalised coordinate updates, mean pooling) with padded atoms masked; each returns the features and the new
coordinates (the masked models zero the padded atoms' rows).

Each is small and has the dynamic axes a deploying user declares: batch and height and width for the 2-D operators,
batch and length for the 1-D one, batch and points (atoms) for the six point models. The inputs are the user's values
in [0, 1): a field of one channel; or per atom three coordinates (scaled to the box) and the model's features (a
scalar, a velocity centred on zero, or an atom type ``(v * 9).long()``); the masked models' atom count is the first
value times the padded count, at least two. Nothing is set-valued (no ``unordered``); no BatchNorm (no calibration).
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs) at three sizes (the spec's, a batch of two or three, and a larger
grid or point count: 48x40 for the 32x32 operators, 100 for the 1-D operator's 64, 18 to 24 atoms for 10 to 16) before
the first migrate run, with a stand-in source tree holding only torchvision and the three new libraries: with one
thread on the shared two cores, each in its own process, in two rounds (load averages of about 7.6 and 6.2 from other
sessions), the best of two forwards at the spec's size took 0.002 to 0.028 s for neuraloperator (U-NO the slowest),
0.013 to 0.039 s for e3nn (the per-atom vectors the slowest), 0.001 to 0.011 s for egnn-pytorch; at most 0.046 s at
the larger sizes (e3nn's per-atom vectors at a batch of three); builds (imports included) took 4.7 to 11.8 s. Changed
after the first eager runs (in a scratch script before the zoo file was written), before any migrate run: U-NO's
default soft-gating channel-MLP skip refuses a layer whose channels change (16 to 32), so the user's U-NO takes the
linear skip; the 1-D FNO's scalar resolution factor applies to every layer (64 points became 512 over three), so the
user's takes ``[1, 2]`` over two layers. Warnings seen, left as they are: U-NO prints its skip settings for each
layer at construction."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): neuraloperator (Jean Kossaifi, David Pitt, Nikola Kovachki, Zongyi Li and others: Fourier neural
#: operators, spectral convolutions by ``rfft``/``irfft`` keeping the lowest modes, domain padding by a fraction of the
#: size, a positional grid made from the input's size, U-NO resampling by scale factors; tensorly, tensorly-torch and
#: opt-einsum from the ``bench`` extra), e3nn (Mario Geiger, Tess Smidt and others: E(3)-equivariant point networks,
#: a radius graph by ``cdist`` and ``nonzero``, spherical harmonics of the edges, tensor products, ``scatter_add_``
#: onto the nodes and the molecules, the count of molecules from ``int(batch.max()) + 1``; sympy and scipy from the
#: venv, opt-einsum-fx from the ``bench`` extra) and egnn-pytorch (Phil Wang and Eric Alcaide: E(n)-equivariant graph
#: networks, the nearest neighbours by ``topk`` of a masked distance ranking gathered by index, adjacency degrees from
#: repeated matrix products, coordinate updates; einops from the venv).
PINS45 = {**PINS31, "neuraloperator": "2.0.0", "e3nn": "0.6.0", "egnn_pytorch": "0.2.8"}

#: Fields on a grid: (batch, channels, height, width) or (batch, channels, length) in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BL = 'dynamic_axes = { x = { 0 = "batch", 2 = "length" } }'
#: Point clouds and molecules: (batch, points, features) in [0, 1), the first three features the coordinates.
_BN = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'

# ---------------------------------------------------------------------------------------------------------------
# neuraloperator: Fourier neural operators over the user's fields (random weights).
_NOP = "from neuralop.models import FNO, TFNO, UNO"

# ---------------------------------------------------------------------------------------------------------------
# e3nn: equivariant point networks over molecules (random weights). The user's batch of molecules, each of the same
# number of atoms in a box of side 2, flattened to the library's atoms with a molecule index per atom.
_E3_2102 = "from e3nn.nn.models.gate_points_2102 import Network"
_E3_2106 = "from e3nn.nn.models.v2106.gate_points_networks import SimpleNetwork"
_E3_GRAPH = ("pos = (x[..., :3] * 2).reshape(-1, 3)\n        "
             "batch = torch.arange(x.shape[0]).repeat_interleave(x.shape[1])\n        ")

# ---------------------------------------------------------------------------------------------------------------
# egnn-pytorch: E(n)-equivariant graph networks (random weights). Atom types from the last feature (10 types), the
# coordinates in a box of side 2.
_EG = "from egnn_pytorch import EGNN, EGNN_Network"
_EG_IN = "ids = (x[..., 3] * 9).long()\n        coors = x[..., :3] * 2\n        "
#: Each molecule's atom count is its first value times the padded count (at least two), the atoms after it padding.
_EG_MASK = ("counts = (x[:, 0, 0] * x.shape[1]).long().clamp(min=2)\n        "
            "mask = torch.arange(x.shape[1])[None, :] < counts[:, None]\n        ")
#: A chain molecule's bonds: each atom bonded to the next, from the atom count.
_EG_CHAIN = ("idx = torch.arange(x.shape[1])\n        "
             "adj = (idx[:, None] - idx[None, :]).abs() == 1\n        ")

MODELS45 = [
    # neuraloperator: Fourier neural operators (random weights, 16 hidden channels).
    Spec("nop_fno2d_darcy", "neuraloperator FNO 2-D (8x8 modes, 2 layers, 16 channels, the positional grid made "
         "from the input's height and width): rfft2 of each layer, the lowest modes kept and multiplied by the "
         "complex weights, irfft2 back to the input's size", _NOP,
         "FNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2)",
         "return self.m(x)", "1, 1, 32, 32", _BHW),
    Spec("nop_tfno2d_padding", "neuraloperator TFNO 2-D (Tucker-factorized spectral weights of rank 0.42 through "
         "tensorly, 8x8 modes) with domain padding of a quarter of each side (the pad from the input's size, cropped "
         "after the last layer)", _NOP,
         "TFNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2, "
         "factorization='tucker', rank=0.42, domain_padding=0.25)",
         "return self.m(x)", "1, 1, 32, 32", _BHW),
    Spec("nop_fno1d_superres", "neuraloperator FNO 1-D (12 modes, Burgers-like, 2 layers) with the second layer's "
         "resolution scaled by 2: the output twice the input's length (irfft to a size from the input's, the skip "
         "resampled by interpolation)", _NOP,
         "FNO(n_modes=(12,), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2, "
         "resolution_scaling_factor=[1, 2])",
         "return self.m(x)", "1, 1, 64", _BL),
    Spec("nop_uno2d", "neuraloperator U-NO 2-D (3 operator layers of 16, 32, 16 channels, modes 8, 4, 8, the "
         "resolution halved then doubled, a horizontal skip resampled to the decoder's size)", _NOP,
         "UNO(in_channels=1, out_channels=1, hidden_channels=16, lifting_channels=16, projection_channels=16, "
         "n_layers=3, uno_out_channels=[16, 32, 16], uno_n_modes=[[8, 8], [4, 4], [8, 8]], "
         "uno_scalings=[[1, 1], [0.5, 0.5], [2, 2]], channel_mlp_skip='linear')",
         "return self.m(x)", "1, 1, 32, 32", _BHW),
    # e3nn: equivariant networks on molecules (random weights).
    Spec("e3nn_gate_points_energy", "e3nn gate_points_2102 Network (2 gated layers of scalars and vectors, edge "
         "spherical harmonics up to l=2, a radius graph of 1.0 by cdist and nonzero, messages by scatter_add_): one "
         "invariant value per molecule (scatter over int(batch.max()) + 1 molecules)", _E3_2102,
         "Network(irreps_in=None, irreps_hidden='8x0e+8x0o+4x1e+4x1o', irreps_out='1x0e', irreps_node_attr='0e', "
         "irreps_edge_attr='0e+1o+2e', layers=2, max_radius=1.0, number_of_basis=8, radial_layers=1, "
         "radial_neurons=16, num_neighbors=4.0, num_nodes=12.0)",
         _E3_GRAPH + 'return self.m({"pos": pos, "batch": batch})', "1, 12, 3", _BN),
    Spec("e3nn_simple_forces", "e3nn v2106 SimpleNetwork (message passing of 2 layers, 8 of each irrep up to l=2, "
         "a radius graph of 1.0, a smooth finite radial basis): one vector (1o) per atom from a scalar per atom, "
         "unpooled, as a (batch, atoms, 3) tensor", _E3_2106,
         "SimpleNetwork('1x0e', '1x1o', max_radius=1.0, num_neighbors=4.0, num_nodes=12.0, mul=8, layers=2, lmax=2, "
         "pool_nodes=False)",
         _E3_GRAPH + 'out = self.m({"pos": pos, "batch": batch, "x": x[..., 3:].reshape(-1, 1)})\n        '
         "return out.reshape(x.shape[0], x.shape[1], 3)", "1, 12, 4", _BN),
    Spec("e3nn_simple_velocity_pooled", "e3nn v2106 SimpleNetwork (2 layers, 8 of each irrep up to l=1) from a "
         "velocity vector (1o) per atom to a pseudo-scalar and a vector per molecule (pooled by scatter over "
         "int(batch.max()) + 1 molecules)", _E3_2106,
         "SimpleNetwork('1x1o', '1x0o+1x1o', max_radius=1.0, num_neighbors=4.0, num_nodes=10.0, mul=8, layers=2, "
         "lmax=1)",
         _E3_GRAPH + 'return self.m({"pos": pos, "batch": batch, "x": x[..., 3:6].reshape(-1, 3) - 0.5})',
         "1, 10, 6", _BN),
    # egnn-pytorch: E(n)-equivariant graph networks (random weights, 16 features).
    Spec("egnn_knn_tokens", "egnn-pytorch EGNN_Network (2 layers, atom-type embedding of 10, the 4 nearest neighbours "
         "by topk of the distance ranking, gathered by index, coordinates updated): features and new coordinates",
         _EG, "EGNN_Network(num_tokens=10, dim=16, depth=2, num_nearest_neighbors=4)",
         _EG_IN + "return self.m(ids, coors)", "1, 16, 4", _BN),
    Spec("egnn_bonds_degrees_masked", "egnn-pytorch EGNN_Network over a chain molecule's bonds (adjacency of 2 "
         "degrees by repeated matrix products, embedded; only the bonded neighbours, their count from the "
         "adjacency's largest row sum by .item()) with padded atoms masked (mask from each molecule's atom count)",
         _EG, "EGNN_Network(num_tokens=10, dim=16, depth=2, num_adj_degrees=2, adj_dim=4, only_sparse_neighbors=True)",
         _EG_IN + _EG_MASK + _EG_CHAIN + "feats, out = self.m(ids, coors, adj_mat=adj, mask=mask)\n        "
         "return feats * mask[..., None], out * mask[..., None]", "1, 12, 4", _BN),
    Spec("egnn_layer_radius_mask", "egnn-pytorch EGNN layer (6 nearest neighbours within a radius of 1.0 by topk, "
         "padded atoms masked with 1e5 in the ranking, Fourier features of the distances, soft edges, normalised "
         "coordinate updates, mean pooling of messages) on the user's embedded atom types", _EG,
         "EGNN(dim=16, num_nearest_neighbors=6, valid_radius=1.0, fourier_features=2, soft_edges=True, "
         "norm_coors=True, m_pool_method='mean')",
         _EG_IN + _EG_MASK + "feats, out = self.m(self.emb(ids), coors, mask=mask)\n        "
         "return feats * mask[..., None], out * mask[..., None]", "1, 12, 4", _BN,
         init="self.emb = torch.nn.Embedding(10, 16)"),
]

if __name__ == "__main__":
    main(MODELS45, "real_zoo45", PINS45)
