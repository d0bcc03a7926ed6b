"""A fiftieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo50.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on graph neural networks over dynamic graphs (graphs built in the
forward from point sets and molecules, pooled by a batch vector): the thirty-first zoo's pins and two more libraries by
two other authors, whose code no earlier zoo or sweep ran (``PINS50``: unpacked wheels like the others, never
pip-installed): torch-geometric 2.8.1 (Matthias Fey and the PyG team, github.com/pyg-team/pytorch_geometric: message
passing by ``scatter`` over an edge index with ``dim_size`` from the node count; ``add_remaining_self_loops`` and
``remove_self_loops`` by boolean masks; GCN's ``gcn_norm`` (degrees by scatter, ``pow(-0.5)`` with infinities
zeroed); GATv2's attention by ``softmax`` over each node's incoming edges (a scatter max and sum); TopKPooling's and
SAGPooling's selection (nodes a graph counted by scatter, ``k = ceil(ratio * n)`` a graph, a sort of the scores, a
stable sort of the graph indices, ``cumsum`` offsets and a boolean mask) and ``filter_adj`` remapping the kept edges;
``to_dense_batch`` (batch size ``int(batch.max()) + 1`` and the largest graph's node count by ``int``) under DGCNN's
SortAggregation; Graph U-Net's adjacency squared by a sparse CSR product; ``global_mean_pool`` and ``global_max_pool``
whose output size is ``int(batch.max()) + 1``; ``dense_to_sparse`` by ``nonzero``; it imports xxhash (compiled, not in
the venv) at package import for its HashTensor's string keys, used by no model here, so the user's module stands in an
empty ``xxhash`` as zoo 43's does for nltk; fsspec, jinja2, psutil, requests and tqdm from the venv) and
torchani 2.9.0 (Ignacio Pickering, Xiang Gao, Jinze Xue and the Roitberg group, github.com/aiqm/torchani: ANI neural
network potentials; the all-pairs neighbour list from ``triu_indices`` of the atom count, repeated and offset by a
Python ``if`` on the number of molecules, screened by the cutoff through ``nonzero`` and ``index_select``; the periodic
cell list in pure torch (coordinates wrapped into the cell, a bucket grid from the cell and the cutoff, atoms counted
into buckets, image pairs and shifts); radial and angular AEVs (triples of neighbours by sorting and unique counts);
per-element networks over the atoms of each element by masks; ensembles; ``members_forces``'s coordinates made to
require grad and ``torch.autograd.grad`` a member in a Python loop over the energies; its dftd3 module imports h5py
(compiled, not in the venv) at package import for its constants, used by no model here, so the user's module stands in
an empty ``h5py``; its compiled cuAEV, MNP and cell-list extensions are absent and it runs its pure-torch paths, the
user setting ``TORCHANI_NO_WARN_EXTENSIONS``). Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import):
torch-geometric-temporal 0.56.2 (Benedek Rozemberczki: recurrent and attention spatio-temporal graph layers; its package
``__init__`` imports every layer, and EvolveGCN-O imports the compiled torch-sparse at module level, so nothing of it
imports without torch-sparse), dgl 2.2.1 (compiled), and, read in the package index only: schnetpack, mace-torch,
nequip, torchmd-net, pygod and torch-spatiotemporal (not downloaded: two libraries by two authors were enough);
the neural-fields domain (not read further: the graph domain had two libraries of its own model code); the libraries
zoos 15 to 49 dropped or used, as they found (e3nn and egnn-pytorch, pinned by zoo 45; torch-geometric, dropped by zoo
43 for aiohttp and xxhash: aiohttp is not imported by anything these models use, and xxhash is stood in for as said
above). Within the chosen libraries: PyG's ``knn_graph``, ``radius_graph``, ``fps`` and ``knn`` (they need the
compiled pyg-lib and raise without it), so its DynamicEdgeConv, PointNet++ and SchNet's default RadiusInteractionGraph
cannot run: the graphs are the user's own code (k nearest neighbours by ``topk`` of ``cdist`` offset per set, radius
graphs by PyG's ``dense_to_sparse`` or by ``nonzero``, SchNet given the user's ``interaction_graph``); DimeNet and
other models built on torch-sparse's SparseTensor (compiled); torchani's ``ANI1x()`` and ``ANI2x()`` builders (they
fetch the trained state dicts: a download), so the user's module assembles the same architectures with torchani's
``Assembler`` as those builders do, without loading weights; its ``cuaev`` strategy (compiled); its cell list on
batches (it raises "This neighborlist doesn't support batches": one system, the atoms the dynamic axis).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 49
or in the library sweeps (benchmarks/sweep_*.py), all 10 from the two new libraries and all of the kinds that most
often need work for an ONNX or TensorRT deployment (graphs built in the forward by ``nonzero`` or ``topk``, pooling
to ``int(batch.max()) + 1`` graphs, scatter reductions with sizes read from tensors, self loops by boolean masks,
per-graph top-k selection by sorts and masks, dense batches padded to the largest graph, sparse CSR products, neighbour
lists with Python branches on the batch and ``nonzero`` screening, a periodic cell list, ``autograd.grad`` in a loop
over ensemble members inside the forward). Graph networks with torch-geometric on the user's batch of point sets
(flattened to nodes with a graph index a node): GCN on a radius graph, mean-pooled; GATv2 on a 6-nearest-neighbour
graph, max-pooled; GIN with TopKPooling (and the kept nodes' indices as an output); GraphConv with SAGPooling; EdgeConv
with DGCNN's SortAggregation; SchNet with the user's radius interaction graph; Graph U-Net. Potentials with torchani:
ANI-1x's ensemble of 8 on padded molecules (all pairs); ANI-2x's ensemble of 2 through ``members_forces``; ANI-2x in a
periodic cell by the cell list, an energy an atom.

Each is small and has the dynamic axes a deploying user declares: the batch of sets or molecules and the number of
points or atoms a set, except the periodic ANI-2x (its cell list takes one system: atoms only). The inputs are the
user's (batch, points, 4) tensors in [0, 1): coordinates and a node feature or element (H, C, N, O for ANI-1x; H, C, N,
O, F, S, Cl for ANI-2x; atomic numbers 1 to 10 for SchNet); each padded molecule's atom count from its first value. No
BatchNorm calibration (none of these models has BatchNorm; random weights tie no scores: the pooling scores and energies
are continuous); no output set-valued (TopKPooling's kept indices come in its order: by graph, then by descending
score). The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs) before the first migrate run, with a source tree unpacked by ``fetch_sources`` from ``PINS50`` and
``make_zoo``: at the spec's size, one more in the batch, 20 more points or atoms and both; with one thread on the shared
two cores, each in its own process (load average 3.4 from other sessions), the best of two forwards at the spec's size
took 0.001 to 0.015 s for torch-geometric (0.015 Graph U-Net, 0.002 GATv2 and DGCNN, 0.001 the others) and 0.009 to
0.014 s for torchani (0.009 the forces, 0.011 the cell list, 0.014 ANI-1x); at the larger sizes at most 0.013 s for
torch-geometric and 0.040 s for torchani (the forces at a batch of 3 of 32 atoms); builds (imports included) took 1.6 to
7.0 s over two rounds. Nothing changed after the eager runs. Odd, left as the wheels have them: Graph U-Net's sparse CSR
product warns that sparse CSR support is in beta; torchani's ``members_forces`` calls ``requires_grad_`` on the
coordinates it is given (the user's module passes a detached copy under ``enable_grad``); torch-geometric's package
import reaches its LLM modules (through its datasets), which import the unpacked transformers of the thirty-first zoo's
pins."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): torch-geometric (Matthias Fey and the PyG team: message passing by scatter over an edge index,
#: GCN normalisation with self loops, GATv2 attention by a softmax over each node's neighbours, GIN, EdgeConv,
#: TopKPooling and SAGPooling keeping a ratio of each graph's nodes, DGCNN's SortAggregation to a dense batch,
#: SchNet, Graph U-Net, pooling by a batch vector, ``dense_to_sparse``) and torchani (Ignacio Pickering, Xiang Gao,
#: Jinze Xue and the Roitberg group: ANI neural network potentials; the all-pairs neighbour list from
#: ``triu_indices`` of the atom count screened by ``nonzero``, the periodic cell list, AEVs, ensembles of per-element
#: networks, forces by ``torch.autograd.grad`` per ensemble member).
PINS50 = {**PINS31, "torch_geometric": "2.8.1", "torchani": "2.9.0"}

#: The user's batches of point sets and molecules: (batch, points, 4) in [0, 1), the first three features the
#: coordinates, the last a node feature (an atom type for the molecules).
_BN = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'
_N = 'dynamic_axes = { x = { 1 = "atoms" } }'

# ---------------------------------------------------------------------------------------------------------------
# torch-geometric: graph networks on graphs built in the user's forward from the point sets (radius graphs through
# PyG's ``dense_to_sparse``, k nearest neighbours by ``topk`` of ``cdist``), the sets flattened to PyG's nodes with a
# graph index a node. torch_geometric imports xxhash (compiled, not in the venv) at package import for its
# HashTensor's string keys, which no model here uses: the user's module stands in an empty ``xxhash`` (as zoo 43's
# does for nltk); its knn_graph and radius_graph need the compiled pyg-lib, so the graphs are the user's own code.
_PYG = '''import types
sys.modules.setdefault("xxhash", types.ModuleType("xxhash"))
import torch.nn.functional as F
from torch_geometric.nn import (GCN, GATv2Conv, GINConv, TopKPooling, SAGPooling, GraphConv, EdgeConv, SchNet,
                                GraphUNet, global_mean_pool, global_max_pool)
from torch_geometric.nn.aggr import SortAggregation
from torch_geometric.utils import dense_to_sparse


def graph_inputs(x):
    """The user's batch of point sets (B, N, F): node features, positions and the graph index of each node."""
    b, n, f = x.shape
    return x.reshape(b * n, f), x[..., :3].reshape(b * n, 3), torch.arange(b).repeat_interleave(n)


def radius_edges(x, r):
    """Each set's pairs closer than r (no self loops), by PyG's dense_to_sparse over the batch of adjacencies."""
    d = torch.cdist(x[..., :3], x[..., :3])
    adj = (d < r) & ~torch.eye(x.shape[1], dtype=torch.bool)
    return dense_to_sparse(adj.float())[0]


def knn_edges(x, k):
    """Each node's k nearest others in its set by topk of the distances, as (source, target) pairs."""
    b, n, _ = x.shape
    d = torch.cdist(x[..., :3], x[..., :3]) + torch.eye(n) * 1e6
    nearest = d.topk(k, dim=2, largest=False).indices + (torch.arange(b) * n)[:, None, None]
    return torch.stack([nearest.reshape(-1), torch.arange(b * n).repeat_interleave(k)])


def mlp(i, o):
    return torch.nn.Sequential(torch.nn.Linear(i, o), torch.nn.ReLU(), torch.nn.Linear(o, o))


class RadiusGCN(torch.nn.Module):
    """PyG's GCN model (2 layers) on a radius graph, mean-pooled per graph."""

    def __init__(self):
        super().__init__()
        self.gcn = GCN(4, 32, num_layers=2, out_channels=8)

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        return global_mean_pool(self.gcn(feats, radius_edges(x, 0.35)), batch)


class KnnGATv2(torch.nn.Module):
    """Two GATv2 layers (2 heads, then 1) over a 6-nearest-neighbour graph, max-pooled per graph."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = GATv2Conv(4, 16, heads=2), GATv2Conv(32, 8, heads=1)

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        edges = knn_edges(x, 6)
        return global_max_pool(self.c2(F.elu(self.c1(feats, edges)), edges), batch)


class GINTopK(torch.nn.Module):
    """GIN, TopKPooling of half of each graph's nodes, GIN on the kept subgraph, max and mean pooled; also the
    kept nodes' indices."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = GINConv(mlp(4, 32)), GINConv(mlp(32, 32))
        self.pool = TopKPooling(32, ratio=0.5)
        self.out = torch.nn.Linear(64, 4)

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        edges = knn_edges(x, 4)
        h, edges, _, batch, perm, _ = self.pool(self.c1(feats, edges).relu(), edges, batch=batch)
        h = self.c2(h, edges).relu()
        return self.out(torch.cat([global_max_pool(h, batch), global_mean_pool(h, batch)], 1)), perm


class SAGPool(torch.nn.Module):
    """GraphConv, SAGPooling (a GraphConv scoring nodes, half of each graph kept), max and mean pooled."""

    def __init__(self):
        super().__init__()
        self.c1 = GraphConv(4, 32)
        self.pool = SAGPooling(32, ratio=0.5, GNN=GraphConv)
        self.out = torch.nn.Linear(64, 4)

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        edges = radius_edges(x, 0.4)
        h, edges, _, batch, _, _ = self.pool(self.c1(feats, edges).relu(), edges, batch=batch)
        return self.out(torch.cat([global_max_pool(h, batch), global_mean_pool(h, batch)], 1))


class DGCNNSort(torch.nn.Module):
    """EdgeConv (max over 5 nearest neighbours), DGCNN's SortAggregation of each graph's top 8 nodes, a Conv1d."""

    def __init__(self):
        super().__init__()
        self.conv = EdgeConv(mlp(8, 32), aggr="max")
        self.sort = SortAggregation(k=8)
        self.out = torch.nn.Conv1d(32, 4, 8)

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        s = self.sort(self.conv(feats, knn_edges(x, 5)), batch)
        return self.out(s.reshape(s.shape[0], 8, 32).transpose(1, 2))[..., 0]


class UserRadius(torch.nn.Module):
    """The user's interaction graph for SchNet: pairs of one molecule within the cutoff, by cdist and nonzero."""

    def __init__(self, cutoff):
        super().__init__()
        self.cutoff = cutoff

    def forward(self, pos, batch):
        d = torch.cdist(pos, pos)
        close = (d < self.cutoff) & (batch[:, None] == batch[None, :]) & ~torch.eye(pos.shape[0], dtype=torch.bool)
        edges = close.nonzero().t()
        return edges, d[edges[0], edges[1]]


class SchNetEnergy(torch.nn.Module):
    """SchNet (2 interactions, 32 filters, 16 Gaussians, cutoff 1.5) on atom types 1 to 10 in a box of side 3."""

    def __init__(self):
        super().__init__()
        self.net = SchNet(hidden_channels=32, num_filters=32, num_interactions=2, num_gaussians=16, cutoff=1.5,
                          interaction_graph=UserRadius(1.5))

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        return self.net((x[..., 3] * 9).long().reshape(-1) + 1, pos * 3, batch)


class UNet(torch.nn.Module):
    """PyG's Graph U-Net (depth 2, TopKPooling of half the nodes a level, the adjacency squared by a sparse
    product, unpooled back) on a 4-nearest-neighbour graph: a value a node."""

    def __init__(self):
        super().__init__()
        self.net = GraphUNet(4, 16, 4, depth=2, pool_ratios=0.5)

    def forward(self, x):
        feats, pos, batch = graph_inputs(x)
        return self.net(feats, knn_edges(x, 4), batch)'''

# ---------------------------------------------------------------------------------------------------------------
# torchani: ANI potentials assembled the way its ANI1x and ANI2x builders do, but with random weights (no state dict
# fetched). Its dftd3 module imports h5py (compiled, not in the venv) at package import for its constants, which no
# model here uses: the user's module stands in an empty ``h5py``; the compiled cuAEV, MNP and cell-list extensions are
# absent (torchani warns and runs its pure-torch paths; the user silences the warning).
_ANI = '''import types
sys.modules.setdefault("h5py", types.ModuleType("h5py"))
os.environ.setdefault("TORCHANI_NO_WARN_EXTENSIONS", "1")
from torchani.arch import Assembler
from torchani.utils import SYMBOLS_1X, SYMBOLS_2X


def assemble(symbols, ctor, neighborlist, members):
    """An ANI ensemble as torchani's ANI1x and ANI2x builders assemble it."""
    asm = Assembler(periodic_table_index=True)
    asm.set_symbols(symbols)
    asm.set_atomic_networks(ctor=ctor)
    asm.set_global_cutoff_fn("cosine")
    asm.set_aev_computer(angular=ctor, radial=ctor, strategy="pyaev")
    asm.set_neighborlist(neighborlist)
    asm.set_gsaes_as_self_energies("wb97x-631gd")
    return asm.assemble(members)


def molecules(x, numbers, padded=True):
    """(B, N, 4): coordinates in a box of 4 angstrom, the element from the last feature; each molecule's atom count
    from its first value (at least 2), the atoms after it padding (-1)."""
    table = torch.tensor(numbers)
    species = table[(x[..., 3] * len(numbers)).long().clamp(max=len(numbers) - 1)]
    if padded:
        counts = (x[:, 0, 0] * x.shape[1]).long().clamp(min=2)
        species = torch.where(torch.arange(x.shape[1])[None, :] < counts[:, None], species, -1)
    return species, x[..., :3] * 4


class ANI1xEnergy(torch.nn.Module):
    """ANI-1x (8 members, H C N O), the all-pairs neighbour list: one energy a molecule."""

    def __init__(self):
        super().__init__()
        self.ani = assemble(SYMBOLS_1X, "ani1x", "all_pairs", 8)

    def forward(self, x):
        return self.ani(molecules(x, [1, 6, 7, 8])).energies


class ANI2xForces(torch.nn.Module):
    """ANI-2x (2 members, 7 elements): each member's energies and forces by members_forces (autograd per member)."""

    def __init__(self):
        super().__init__()
        self.ani = assemble(SYMBOLS_2X, "ani2x", "all_pairs", 2)

    def forward(self, x):
        species, coords = molecules(x, [1, 6, 7, 8, 9, 16, 17])
        with torch.enable_grad():
            out = self.ani.members_forces((species, coords.detach()))
        return out.energies.detach(), out.forces.detach()


class ANI2xPeriodic(torch.nn.Module):
    """ANI-2x (1 member) in a periodic cubic cell of 8 angstrom by the cell list: an energy an atom."""

    def __init__(self):
        super().__init__()
        self.ani = assemble(SYMBOLS_2X, "ani2x", "cell_list", 1)
        self.register_buffer("cell", torch.eye(3) * 8.0)
        self.register_buffer("pbc", torch.tensor([True, True, True]))

    def forward(self, x):
        species, coords = molecules(x, [1, 6, 7, 8, 9, 16, 17], padded=False)
        return self.ani((species, coords * 2), self.cell, self.pbc, atomic=True).energies'''

MODELS50 = [
    # torch-geometric: graph networks over graphs built in the forward (random weights).
    Spec("pyg_gcn_radius_meanpool", "torch-geometric GCN model (2 GCNConv layers of 32 channels, gcn_norm with self "
         "loops and degrees by scatter) on a radius graph of 0.35 from dense_to_sparse of the sets' adjacencies, "
         "global_mean_pool by the batch vector", _PYG, "RadiusGCN()", "return self.m(x)", "2, 16, 4", _BN),
    Spec("pyg_gatv2_knn_maxpool", "torch-geometric GATv2Conv (2 heads of 16, then 1 of 8; attention by a softmax "
         "over each node's incoming edges through scatter) on a 6-nearest-neighbour graph by topk of cdist, "
         "global_max_pool by the batch vector", _PYG, "KnnGATv2()", "return self.m(x)", "2, 16, 4", _BN),
    Spec("pyg_gin_topkpool", "torch-geometric GINConv, TopKPooling (half of each graph's nodes by a per-graph "
         "ranking of tanh scores, the edges filtered to the kept nodes), GINConv, global max and mean pools; the "
         "kept nodes' indices as a second output", _PYG, "GINTopK()", "return self.m(x)", "2, 16, 4", _BN),
    Spec("pyg_sagpool_radius", "torch-geometric SAGPooling (a GraphConv scoring nodes, half of each graph kept, "
         "edges filtered) after a GraphConv on a radius graph of 0.4, global max and mean pools", _PYG, "SAGPool()",
         "return self.m(x)", "2, 16, 4", _BN),
    Spec("pyg_dgcnn_sortpool", "torch-geometric EdgeConv (max over the 5 nearest neighbours) and DGCNN's "
         "SortAggregation (each graph's nodes sorted by their last channel, the top 8 kept and padded through "
         "to_dense_batch), a Conv1d over them", _PYG, "DGCNNSort()", "return self.m(x)", "2, 16, 4", _BN),
    Spec("pyg_schnet_user_radius", "torch-geometric SchNet (2 interaction blocks, 32 filters, 16 Gaussians, cutoff "
         "1.5, sum readout by the batch vector) with the user's interaction graph (cdist, same-molecule mask and "
         "nonzero, since radius_graph needs pyg-lib)", _PYG, "SchNetEnergy()", "return self.m(x)", "2, 16, 4", _BN),
    Spec("pyg_graph_unet", "torch-geometric GraphUNet (depth 2, TopKPooling of half the nodes a level, the "
         "adjacency augmented by a sparse matrix square, unpooled by index back to every node) on a "
         "4-nearest-neighbour graph: a value a node", _PYG, "UNet()", "return self.m(x)", "2, 16, 4", _BN),
    # torchani: ANI potentials (random weights; no parameters fetched).
    Spec("ani1x_allpairs_energy", "torchani ANI-1x ensemble of 8 (H, C, N, O; radial and angular AEVs from the "
         "all-pairs neighbour list: triu_indices of the atom count, screened by the cutoff through nonzero and "
         "index_select; per-element networks over the atoms of each element) on padded molecules (the padding "
         "from each molecule's atom count): one energy a molecule", _ANI, "ANI1xEnergy()", "return self.m(x)",
         "2, 12, 4", _BN),
    Spec("ani2x_members_forces", "torchani ANI-2x ensemble of 2 (7 elements) through members_forces: the coordinates "
         "made to require grad, each member's energy and its forces by torch.autograd.grad in a Python loop over "
         "the members, stacked", _ANI, "ANI2xForces()", "return self.m(x)", "2, 12, 4", _BN),
    Spec("ani2x_periodic_cell_list", "torchani ANI-2x (1 member) in a periodic cubic cell of side 8 by its pure-torch "
         "cell list (coordinates wrapped into the cell, a grid of buckets from the cell and cutoff, atoms counted "
         "into buckets, image pairs with shifts): an energy an atom; one system (the cell list takes no batches)",
         _ANI, "ANI2xPeriodic()", "return self.m(x)", "1, 24, 4", _N),
]

if __name__ == "__main__":
    main(MODELS50, "real_zoo50", PINS50)
