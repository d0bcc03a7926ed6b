"""A forty-fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo44.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on tabular and recommendation models in pure PyTorch: the thirty-first
zoo's pins and three more libraries by three other authors, whose code no earlier zoo or sweep ran (``PINS44``: unpacked
wheels like the others, never pip-installed): pytorch-tabnet 4.1.0 (DreamQuark's TabNet, from dreamquark-ai: attentive
transformers whose masks are a sparsemax (sort, cumsum, a threshold from the count of kept entries) or an entmax 1.5
(sort, cumulative moments, a threshold from the support's size), a prior updated over a Python loop of steps, ghost
batch norm splitting the batch into ``ceil(batch / virtual_batch_size)`` chunks with numpy (``np.ceil`` of a shape),
categorical columns embedded one by one in a Python loop over a boolean tensor of the columns (``if is_continuous`` on a
tensor element, ``.long()`` of the column), the mask-sparsity loss, explanations by ``forward_masks`` returning a dict
of masks by step, TabNetPretraining's encoder-decoder with an ``if self.training`` obfuscation and a
``torch.ones(shape)`` mask in eval; its network imports torch and numpy only, its training wrappers import scikit-learn,
not used here), deepctr-torch 0.3.0 (Weichen Shen's click-through-rate models over one float matrix of feature columns:
embedding lookups by column slices through ``np.array`` of the feature index and ``.long()``, bags of ids mean-pooled
under masks of non-zero ids or from a length column (``torch.arange`` compared with the lengths, ``repeat_interleave``),
DeepFM's FM, xDeepFM's compressed interaction network with split halves, AutoInt's interacting self-attention, DIN's
local activation unit with Dice (a BatchNorm) and masks from lengths, DIEN's GRU over ``pack_padded_sequence`` with the
lengths on the CPU after ``masked_select`` of the non-empty histories, and its AUGRU as a Python loop over the packed
batch sizes; its package import starts a thread asking PyPI for a newer version (requests; with no network it prints a
line and ends); its base model imports scikit-learn's metrics for training only, not in the venv, so the user's module
stands in an empty ``sklearn.metrics``, as zoo 43's does for nltk) and rtdl-revisiting-models 0.0.2 (Yury Gorishniy's
FT-Transformer of "Revisiting Deep Learning Models for Tabular Data", Yandex Research: linear embeddings of continuous
features, categorical embeddings stacked by a Python loop with shape checks that raise, a [CLS] token expanded to the
batch dimensions, ReGLU with a shape check, Linformer key-value compression sized from the number of tokens, the last
block attending from [CLS] only; torch only). Nothing new in the ``bench`` extra. Considered and dropped before any
model was chosen: torchrec 1.9.2 (Meta's: its embedding bags run on fbgemm-gpu's compiled kernels), pytorch-tabular
1.2.0, pytorch-widedeep 1.7.0 and recbole 1.2.1 (training frameworks with heavy dependencies: not read further),
torch-rechub 0.9.0 (Datawhale's, downloaded, scikit-learn among its dependencies: not read further, three libraries by
three authors were enough), tab-transformer-pytorch 0.6.1 (Phil Wang's, whose libraries earlier zoos used), entmax 1.3
(the entmax functions alone, no model code: TabNet's entmax mask gives the same kind of code), torchfm 0.7.0 (no wheel
on PyPI); within the chosen libraries: TabNet's training wrappers (``TabNetClassifier`` and the rest: scikit-learn,
numpy data loaders), the pretraining obfuscator (``torch.bernoulli``, training only), DIEN with negative sampling (an
auxiliary loss, training only), rtdl's MLP and ResNet (plain layers), deepctr-torch's other models (WDL, NFM, PNN, ONN,
CCPM, AFN, FiBiNET, multi-task models: not chosen, five models from it were enough); the libraries zoos 15 to 43 dropped
or used, as they found.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 43 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries, 8 of them of the kinds that most
often need work for an ONNX or TensorRT deployment (sparsemax and entmax thresholds from sort and cumsum, chunking by
``np.ceil`` of the batch size, Python loops over a tensor's elements, dicts of masks, embedding lookups by slices with
``np.array`` indices, masks from lengths, ``masked_select`` of the non-empty rows, packed sequences with lengths on the
CPU and a loop over the packed batch sizes; the two FT-Transformers have shape checks, a [CLS] expand and Linformer
compression sized from the token count). TabNet (random weights, the ghost batch norms calibrated, n_d = n_a = 8, 3
steps, virtual batches of 4 so that larger batches split into several chunks): a classifier over 6 continuous and 3
categorical columns (codes ``floor(x * cardinality)`` for cardinalities 10, 7, 5, embedded in 3, 2, 2) with sparsemax
masks giving the logits and the mask loss; an entmax-mask model over 8 continuous features in 6 groups (two pairs)
giving forward_masks' importances and the per-step masks stacked; and TabNetPretraining's reconstruction over the same
9 columns in eval (the reconstruction, the embedded input and the ones mask). deepctr-torch (random weights,
embeddings and layers with std 0.3, seed 0): DeepFM over 4 categorical fields (codes ``floor(x * vocabulary)`` for 20,
15, 10, 8), 2 dense values and a bag of up to 5 tags (``floor(x * 6)`` tags, ids 1 to 11, 0 the padding after them)
mean-pooled under the mask of non-zero ids; xDeepFM (CIN layers 16 and 8) over the fields and dense values; AutoInt
(2 layers of 2 heads) over the fields, dense values and tags; DIN with Dice (calibrated) over a candidate item and
category and a history of up to 6 behaviours sharing their embeddings, the length in a column (0 to 6, empty
histories included), the DNN's weights drawn again by the user (the library builds it with std 1e-4 whatever init_std
says, which makes every output the same to eight digits); DIEN with AUGRU over the same behaviours, histories of 1 to
6. rtdl-revisiting-models (random weights, 2 blocks of d 32, 4 heads, dropouts inactive in eval): an FT-Transformer
over 6 continuous and 3 categorical features (int64 codes for cardinalities 12, 5, 3) with Linformer compression 0.5
per head, 3 logits; an FT-Transformer over 10 continuous features with a ReLU feed-forward, one regression output.

Each is small and has the dynamic axis a deploying user declares for rows of a fixed schema: the batch; the input is the
user's (batch, features) values in [0, 1), categorical codes and lengths made from them by the user as above. Machinery,
table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over
two forwards, finite outputs) at three sizes (the spec's batch of one, 4 and 17: one, one and five ghost batches for
TabNet) before the first migrate run, with a stand-in source tree holding only torchvision and the three new libraries:
with one thread on the shared two cores (a load average of about 5 from other sessions), each in its own process, the
best of two forwards at the spec's size took 0.008 to 0.009 s for TabNet, 0.0007 to 0.006 s for deepctr-torch (DIEN the
slowest), 0.001 s for the FT-Transformers; at most 0.018 s at the larger batches (TabNet pretraining at 17); builds
(imports included) took 4.0 to 5.9 s. Changed after the first eager runs, before any migrate run: TabNetPretraining
failed with an int ``cat_emb_dim`` (unlike TabNet it does not make it a list: the user passes a list); with embeddings
of std 0.05 (the library's default is 1e-4) deepctr-torch's click probabilities were within 0.02 of one another, so the
user's models take init_std 0.3; DIN gave one output for every row (its DNN keeps std 1e-4), so the user draws the DNN's
weights again; DIEN raised on a batch whose histories are all empty (its interest extractor returns a one-tuple where
two values are unpacked: 7 of 120 random batches of 1 to 17 rows), so DIEN's histories have at least one behaviour.
Prints seen, left as they are: deepctr-torch's "Please check the latest version manually" from its version thread
(no network)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): pytorch-tabnet (DreamQuark's TabNet: sparsemax and entmax attentive masks, ghost batch norm
#: chunking the batch by its size, categorical embeddings column by column; torch and numpy for the network),
#: deepctr-torch (Weichen Shen's click-through-rate models over one float matrix of feature columns: embedding lookups
#: by slices, masks from lengths, DIN attention, DIEN's GRUs over packed sequences; torch, numpy, tqdm, requests, and
#: scikit-learn's metrics at import for training only) and rtdl-revisiting-models (Yury Gorishniy's FT-Transformer:
#: feature tokenizers, a [CLS] token, Linformer key-value compression; torch only).
PINS44 = {**PINS31, "pytorch_tabnet": "4.1.0", "deepctr_torch": "0.3.0", "rtdl_revisiting_models": "0.0.2"}

#: Tabular rows: (batch, features) in [0, 1); the number of features is the model's, the batch is dynamic.
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# pytorch-tabnet: TabNet over the user's rows whose first columns are categorical codes (the library casts each
# categorical column with .long() itself): codes floor(x * cardinality).
_TABNET = "from pytorch_tabnet.tab_network import TabNet, TabNetPretraining"
_TABNET_CODES = ("xin = torch.cat([(x[:, :3] * torch.tensor([10.0, 7.0, 5.0])).floor(), x[:, 3:]], 1)\n        ")
#: The classifier's logits and its mask sparsity loss.
_TABNET_FORWARD = _TABNET_CODES + "return self.m(xin)"
#: The explanation: per-feature importances and each step's feature-level mask, stacked.
_TABNET_MASKS = ("explain, masks = self.m.forward_masks(x)\n        "
                 "return explain, torch.stack([masks[step] for step in range(len(masks))], 1)")
#: Pretraining's reconstruction, the embedded input and the (all ones) obfuscation in eval.
_TABNET_PRETRAIN = _TABNET_CODES + "return self.m(xin)"
_TABNET_KW = "n_d=8, n_a=8, n_steps=3, virtual_batch_size=4"
#: Three groups over the eight features (two pairs and the rest alone count as groups of one): rows sum to one.
_TABNET_GROUPS = ("torch.tensor([[0.5, 0.5, 0, 0, 0, 0, 0, 0], [0, 0, 0.5, 0.5, 0, 0, 0, 0], "
                  "[0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0], "
                  "[0, 0, 0, 0, 0, 0, 0, 1]])")

# ---------------------------------------------------------------------------------------------------------------
# deepctr-torch: its base model imports scikit-learn's metrics for training only (not in the venv): the user's
# module stands in an empty sklearn.metrics. Its package import starts a thread asking PyPI for a newer version
# (no network: it prints a line and ends). Embeddings initialised with std 0.05 (the default 1e-4 gives near-constant
# outputs, unlike trained weights).
_CTR = '''import sys
import types

for _name in ("sklearn", "sklearn.metrics"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
for _name in ("accuracy_score", "log_loss", "mean_squared_error", "roc_auc_score"):
    setattr(sys.modules["sklearn.metrics"], _name, None)
sys.modules["sklearn"].metrics = sys.modules["sklearn.metrics"]
from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat
from deepctr_torch.models import DIEN, DIN, AutoInt, DeepFM, xDeepFM

#: Criteo-like columns: four categorical fields, two dense values, and (for DeepFM) a bag of up to five tags.
FIELDS = [SparseFeat(f"c{i}", v, embedding_dim=8) for i, v in enumerate((20, 15, 10, 8))]
DENSE = [DenseFeat("d0", 1), DenseFeat("d1", 1)]
TAGS = [VarLenSparseFeat(SparseFeat("tags", 12, embedding_dim=8), maxlen=5, combiner="mean")]
#: Behaviour sequences (DIN, DIEN): the user, the candidate item and its category, a dense score, and the last six
#: items and categories clicked (sharing the candidate's embeddings), with the history's length.
BEHAVIOUR = [SparseFeat("user", 30, embedding_dim=4), SparseFeat("item_id", 20, embedding_dim=8),
             SparseFeat("cate_id", 6, embedding_dim=4), DenseFeat("pay_score", 1),
             VarLenSparseFeat(SparseFeat("hist_item_id", 20, embedding_dim=8, embedding_name="item_id"), maxlen=6,
                              length_name="seq_length"),
             VarLenSparseFeat(SparseFeat("hist_cate_id", 6, embedding_dim=4, embedding_name="cate_id"), maxlen=6,
                              length_name="seq_length")]'''
_CTR_KW = "init_std=0.3, seed=0"
#: The user's Criteo-like row: field codes floor(x * vocabulary), two dense values, and x[:, 6] * 6 tags (ids 1..11,
#: 0 the padding after them) in the next five columns.
_CTR_FIELDS = ("codes = (x[:, :4] * torch.tensor([20.0, 15.0, 10.0, 8.0])).floor()\n        ")
_CTR_TAGS = ("count = (x[:, 6:7] * 6).floor()\n        "
             "tags = ((x[:, 6:11] * 11).floor() + 1) * (torch.arange(5)[None, :] < count)\n        "
             "return self.m(torch.cat([codes, x[:, 4:6], tags], 1))")
#: The user's behaviour row: user, item and category codes, a dense score, the history's length (column 10) and the
#: items and categories before it (ids 1 up, 0 the padding after it).
_CTR_BEHAVIOUR = ("length = {length}\n        "
                  "valid = torch.arange(6)[None, :] < length\n        "
                  "items = ((x[:, 4:10] * 19).floor() + 1) * valid\n        "
                  "cates = ((x[:, 11:17] * 5).floor() + 1) * valid\n        "
                  "codes = (x[:, :3] * torch.tensor([30.0, 20.0, 6.0])).floor()\n        "
                  "return self.m(torch.cat([codes, x[:, 3:4], items, length, cates], 1))")
#: DIN's histories have 0 to 6 behaviours (empty ones included).
_DIN_LENGTH = "(x[:, 10:11] * 7).floor()"
#: DIEN's interest extractor returns a one-tuple where the caller unpacks two when no history in the batch has a
#: behaviour (a batch of one empty history raises): the user's DIEN histories have 1 to 6 behaviours.
_DIEN_LENGTH = "(x[:, 10:11] * 6).floor() + 1"

#: DIN builds its DNN with the default std 1e-4 (its init_std is not passed on), which makes every click probability
#: the same to eight digits: the user draws the DNN's weights again, standing for trained ones.
_DIN_DNN = ("for layer in self.m.dnn.linears:\n            "
            "torch.nn.init.xavier_normal_(layer.weight)")

# ---------------------------------------------------------------------------------------------------------------
# rtdl-revisiting-models: FT-Transformer over continuous features and categorical codes (int64).
_FT = "from rtdl_revisiting_models import FTTransformer"
_FT_KW = ("n_blocks=2, d_block=32, attention_n_heads=4, attention_dropout=0.1, ffn_d_hidden=None, "
          "ffn_d_hidden_multiplier=4 / 3, ffn_dropout=0.1, residual_dropout=0.0")
_FT_CAT = ("x_cat = (x[:, 6:] * torch.tensor([12.0, 5.0, 3.0])).long()\n        "
           "return self.m(x[:, :6], x_cat)")

MODELS44 = [
    # pytorch-tabnet (random weights, ghost batch norm calibrated).
    Spec("tabnet_sparsemax_cat", "pytorch-tabnet TabNet (3 steps, sparsemax masks, ghost batch norm in virtual "
         "batches of 4, 3 categorical columns embedded one by one, 6 continuous): class logits and the mask loss",
         _TABNET, "TabNet(9, 3, " + _TABNET_KW + ", cat_idxs=[0, 1, 2], cat_dims=[10, 7, 5], "
         "cat_emb_dim=[3, 2, 2], group_attention_matrix=torch.eye(9))", _TABNET_FORWARD, "1, 9", _B,
         calibrate="self.forward(xb)"),
    Spec("tabnet_entmax_explain", "pytorch-tabnet TabNet (entmax 1.5 masks over 6 feature groups of 8 continuous "
         "features, ghost batch norm in virtual batches of 4): forward_masks' importances and per-step masks",
         _TABNET, "TabNet(8, 2, " + _TABNET_KW + ", mask_type='entmax', group_attention_matrix=" + _TABNET_GROUPS
         + ")", _TABNET_MASKS, "1, 8", _B, calibrate="self.forward(xb)"),
    Spec("tabnet_pretraining_recon", "pytorch-tabnet TabNetPretraining (encoder-decoder, sparsemax masks, 3 "
         "categorical columns, eval: no obfuscation): the reconstruction, the embedded input and the ones mask",
         _TABNET, "TabNetPretraining(9, " + _TABNET_KW + ", cat_idxs=[0, 1, 2], cat_dims=[10, 7, 5], "
         "cat_emb_dim=[2, 2, 2], group_attention_matrix=torch.eye(9))", _TABNET_PRETRAIN, "1, 9", _B,
         calibrate="self.forward(xb)"),
    # deepctr-torch (random weights, embeddings with std 0.05).
    Spec("ctr_deepfm_tags", "deepctr-torch DeepFM (4 fields, 2 dense, a bag of up to 5 tags mean-pooled under the "
         "mask of non-zero ids; FM, linear and DNN parts): the click probability", _CTR,
         "DeepFM(FIELDS + DENSE + TAGS, FIELDS + DENSE + TAGS, dnn_hidden_units=(32, 16), " + _CTR_KW + ")",
         _CTR_FIELDS + _CTR_TAGS, "1, 11", _B),
    Spec("ctr_xdeepfm_cin", "deepctr-torch xDeepFM (compressed interaction network of layers 16 and 8 split in "
         "halves, linear and DNN parts) over 4 fields and 2 dense values: the click probability", _CTR,
         "xDeepFM(FIELDS + DENSE, FIELDS + DENSE, dnn_hidden_units=(32, 16), cin_layer_size=(16, 8), " + _CTR_KW
         + ")", _CTR_FIELDS + "return self.m(torch.cat([codes, x[:, 4:6]], 1))", "1, 6", _B),
    Spec("ctr_autoint_tags", "deepctr-torch AutoInt (2 interacting self-attention layers of 2 heads over the field "
         "embeddings and the pooled tag bag, DNN): the click probability", _CTR,
         "AutoInt(FIELDS + DENSE + TAGS, FIELDS + DENSE + TAGS, att_layer_num=2, att_head_num=2, "
         "dnn_hidden_units=(32, 16), " + _CTR_KW + ")", _CTR_FIELDS + _CTR_TAGS, "1, 11", _B),
    Spec("ctr_din_dice", "deepctr-torch DIN (local activation unit with Dice over the candidate and the behaviour "
         "history, masked from the length column; history sharing the candidate's embeddings): click probability",
         _CTR, "DIN(BEHAVIOUR, ['item_id', 'cate_id'], dnn_hidden_units=(32, 16), att_hidden_size=(16, 8), "
         + _CTR_KW + ")", _CTR_BEHAVIOUR.format(length=_DIN_LENGTH), "1, 17", _B, init=_DIN_DNN,
         calibrate="self.forward(xb)"),
    Spec("ctr_dien_augru", "deepctr-torch DIEN (interest extractor GRU over packed histories with lengths on the "
         "CPU, empty histories dropped by masked_select, AUGRU interest evolution over the packed batch sizes): "
         "click probability", _CTR, "DIEN(BEHAVIOUR, ['item_id', 'cate_id'], gru_type='AUGRU', "
         "dnn_hidden_units=(32, 16), att_hidden_units=(16, 8), " + _CTR_KW + ")",
         _CTR_BEHAVIOUR.format(length=_DIEN_LENGTH), "1, 17", _B),
    # rtdl-revisiting-models (random weights).
    Spec("ftt_linformer_cat", "rtdl-revisiting-models FTTransformer (6 continuous and 3 categorical feature tokens "
         "and [CLS], 2 blocks of d 32, ReGLU, Linformer key-value compression 0.5 shared per head, the last block "
         "attending from [CLS] only): 3 logits", _FT,
         "FTTransformer(n_cont_features=6, cat_cardinalities=[12, 5, 3], d_out=3, linformer_kv_compression_ratio=0.5, "
         "linformer_kv_compression_sharing='headwise', " + _FT_KW + ")", _FT_CAT, "1, 9", _B),
    Spec("ftt_numeric_relu", "rtdl-revisiting-models FTTransformer over 10 continuous feature tokens only "
         "(linear embeddings, [CLS], 2 blocks of d 32, ReLU feed-forward): a regression output", _FT,
         "FTTransformer(n_cont_features=10, cat_cardinalities=[], d_out=1, ffn_activation='ReLU', " + _FT_KW + ")",
         "return self.m(x, None)", "1, 10", _B),
]

if __name__ == "__main__":
    main(MODELS44, "real_zoo44", PINS44)
