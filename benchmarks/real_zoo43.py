"""A forty-third real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo43.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on text and token models in pure PyTorch (not Hugging Face): the
thirty-first zoo's pins and three more libraries by three other authors, whose code no earlier zoo or sweep ran
(``PINS43``: unpacked wheels like the others, never pip-installed): pytorch-crf 0.7.2 (Kemal Kurniawan's linear-chain
CRF layer, module ``torchcrf``: ``_validate`` raising on shapes and on a mask whose first step is not all on, the
forward algorithm as a Python loop over time with ``logsumexp`` and ``torch.where`` on the mask, the gold path's score
indexed at ``mask.sum(0) - 1``, Viterbi decoding by a loop over time keeping the argmax history, then a Python loop
per sentence that backtracks with ``.item()`` and returns a list of lists of Python ints, its default mask
``uint8``; torch only; the wheel also ships a stale 2017 ``crf`` package beside ``torchcrf``, unused), torch-struct 0.5
(Alexander Rush's structured distributions: LinearChainCRF by a log-depth parallel scan over the chain padded to
``2 ** ceil(log2(N - 1))`` with in-place masked fills of ``.data``, ``max(lengths)`` asserts, argmax and marginals by
``torch.autograd.grad`` of the max- or log-semiring partition (``create_graph=True``; the user wraps them in
``torch.enable_grad()``), ``from_parts`` turning argmax edges into tags by ``nonzero`` and a Python loop;
DependencyCRF by Eisner's algorithm, a Python loop over span widths with a per-sentence loop filling the padded
scores in place; TreeCRF by CKY over span widths, the log-partition read at ``lengths - 1``; torch only) and
pytorch-beam-search 1.2.2 (Juan Ramirez-Orta's sequence models with search: a seq2seq Transformer and LSTM and an
autoregressive Transformer encoder; greedy search re-running the decoder on the growing output for a Python count of
steps and ``torch.cat``; beam search with ``.squeeze()`` of the first step's scores, ``topk`` over beams times
vocabulary, the beam index as ``(idx / vocabulary_size).long()``, the histories gathered by index, a
``TensorDataset`` and ``DataLoader`` over the beams in chunks of ``batch_size``; learnt positions from ``torch.arange``
of the length, ``assert`` on the lengths, a causal mask built with ``torch.triu`` and ``masked_fill`` from the length,
the language model's context cut to its last ``max_sequence_length`` tokens with a ``warnings.warn``; torch, tqdm and
pandas (in the venv), and nltk at package import for its vocabulary ``Index`` only, not in the venv and not used by
the models or searches, so the user's module stands in an empty ``nltk.lm``, as zoo 41's does for sktime). Nothing
new in the ``bench`` extra. Considered and dropped before any model was chosen: torch-geometric 2.8.1 (Matthias Fey's
graph networks: aiohttp and xxhash among its dependencies are not in the venv, and its scatter paths prefer compiled
torch-scatter and pyg-lib), x-transformers 2.31.10 (Phil Wang's, whose libraries earlier zoos used; einx and
torch-einops-utils are not in the venv), pytorch-partial-crf 0.2.1 (Koga Kobayashi's: ``torch<2.0`` and pytest in its
metadata), TorchCRF 1.1.0, bi-lstm-crf 0.2.1 and pytorch-text-crf 0.1 (further linear-chain CRF layers, the algorithm
pytorch-crf already gives), allennlp, flair, fairseq, opennmt-py, stanza and texar-pytorch (training frameworks with
heavy dependencies: not read further, three libraries by three authors were enough); within the chosen libraries:
pytorch-beam-search's ``sample`` (``torch.rand`` in the search: two runs differ), its ``fit`` and ``evaluate``
(training) and ``Index`` (nltk), torch-struct's NonProjectiveDependencyCRF (no argmax, ``argmax`` returns None),
its ``sample``, ``gumbel_crf`` and ``topk`` (random or k-best semirings), SentCFG, HMM, AlignmentCRF and SemiMarkovCRF
(not chosen: four models from it were enough); the libraries zoos 15 to 41 dropped or used, as they found.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 41 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (Viterbi backtracking into Python lists and the user's ``torch.tensor``
of them, ragged per-sentence paths written into a padded tensor in a Python loop, packed sequences with lengths on the
CPU, masks from lengths held in the input, argmax and marginals by ``torch.autograd.grad`` inside ``enable_grad``,
padding to a power of two from ``math.log`` of a size, ``max(lengths)`` asserts, ``nonzero`` and Python loops over its
rows, dynamic programmes as Python loops over the length, greedy and beam decoding loops with ``topk`` and a
DataLoader). Sequence labelling with pytorch-crf (5 tags, random weights; the user's embedding of 50 ids, 0 the
padding): a BiLSTM-CRF tagger with Viterbi decoding and no mask (the library's ``uint8`` default mask), a BiLSTM-CRF
over packed padded sentences decoding with the mask from lengths (each sentence's length its first value times the
padded length, at least one; tags after it -1), and a time-major character-CNN CRF giving the log-likelihood of each
sentence's greedy tags under the mask, and per token. Structured prediction with torch-struct (random weights): a
linear-chain CRF of 4 tags over BiLSTM emissions and a learnt transition on padded sentences (the lengths shifted so
the longest fills the batch, as a batch padded to its longest does; at least two tokens): the Viterbi tags by argmax
and ``from_parts``, and the best score; a linear-chain CRF over character-CNN emissions: per-token tag marginals and
the log-partition; a projective dependency parser (biaffine arc scores from a BiLSTM, the root on the diagonal,
lengths from the input): the best tree's arcs and the log-partition; a span-based constituency parser (TreeCRF over
span scores from BiLSTM endpoint differences, 3 labels): the best tree's labelled spans and the log-partition.
Decoding with pytorch-beam-search (vocabularies of 30 tokens, random weights): a seq2seq Transformer (d 16, one
encoder and one decoder layer) greedily decoding 8 tokens, a seq2seq LSTM (32 units) beam search of width 3 for 6
tokens, and an autoregressive Transformer-encoder language model (context 16) continuing the prompt by 6 tokens with
a beam of 3; the outputs are the token sequences and their log-probabilities.

Each is small and has the dynamic axes a deploying user declares: batch and time (tokens) for all ten; the input is the
user's (batch, time) values in [0, 1), token ids ``(x * (V - 1)).long() + 1``. Machinery, table and counts are
real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs) at three sizes (the spec's, a batch of two or three, and a longer sequence: 20 tokens for the 12-token taggers
and the seq2seq models, 16 for the 10-token parsers, 12 for the 8-token prompt, which then runs the language model's
context cut) before the first migrate run, with a stand-in source tree holding only torchvision and the three new
libraries: with one thread on the shared two cores, each in its own process, in two rounds (a load average of about 1.7,
then about 4.6 from other sessions), the best of two forwards at the spec's size took 0.001 to 0.006 s for pytorch-crf,
0.002 to 0.026 s for torch-struct (the dependency parser the slowest), 0.005 to 0.018 s for pytorch-beam-search (greedy
Transformer decoding the slowest); at most 0.038 s at the larger sizes (the dependency parser at 16 tokens); builds
(imports included) took 3.0 to 10.1 s. Changed after the first eager runs, before any migrate run: the dependency parser
failed with its arc scores made without gradients (the library's length masking fills a view of its padded leaf copy of
the scores in place, which autograd refuses under ``enable_grad``), so the user computes the scores inside
``torch.enable_grad()`` too, as in training. Warnings seen, left as they are: pytorch-crf's ``torch.where`` on its
``uint8`` default mask, torch-struct's distributions without ``arg_constraints``, the language model's "Max sequence
length exceded" at the longer prompt; pytorch-beam-search prints each model's architecture at construction;
torch-struct's best scores and log-partitions come back requiring gradients (its ``requires_grad_(True)`` on the
potentials), its argmax and marginals do not."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): pytorch-crf (Kemal Kurniawan's linear-chain CRF layer: a forward algorithm looping over time, Viterbi
#: decoding to Python lists; torch only), torch-struct (Alexander Rush's structured distributions: linear-chain CRFs by
#: a log-depth parallel scan over a length padded to a power of two, projective dependency trees by Eisner's algorithm,
#: span trees by CKY, argmax and marginals by ``torch.autograd.grad``; torch only) and pytorch-beam-search (Juan
#: Ramirez-Orta's sequence models with greedy and beam search: loops over the predicted tokens, a DataLoader over the
#: beams, ``topk`` over beams times vocabulary; torch, tqdm and pandas, and nltk at package import for its vocabulary
#: index only).
PINS43 = {**PINS31, "pytorch_crf": "0.7.2", "torch_struct": "0.5", "pytorch_beam_search": "1.2.2"}

#: Token sequences: (batch, time) in [0, 1), the user's token ids ``(x * (V - 1)).long() + 1`` (0 is padding).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'

# ---------------------------------------------------------------------------------------------------------------
# The user's token encoders: embeddings of 50 ids (0 the padding) and a bidirectional LSTM (16 a direction) or a
# character-level convolution, giving per-token emission scores.
_BILSTM = ("self.emb = torch.nn.Embedding(50, 16, padding_idx=0)\n        "
           "self.lstm = torch.nn.LSTM(16, 16, batch_first=True, bidirectional=True)\n        "
           "self.proj = torch.nn.Linear(32, {tags})")
_CHARCNN = ("self.emb = torch.nn.Embedding(50, 8, padding_idx=0)\n        "
            "self.conv = torch.nn.Conv1d(8, 16, 3, padding=1)\n        "
            "self.proj = torch.nn.Linear(16, {tags})")
_IDS = "ids = (x * 49).long() + 1\n        "
#: Each sequence's length is its first value times the padded length (at least one, or two for torch-struct's chains,
#: whose longest must fill the batch: the batch is padded to its longest sequence), the tokens after it padding.
_LENGTHS = ("lengths = (x[:, 0] * x.shape[1]).long().clamp(min=1)\n        "
            "mask = torch.arange(x.shape[1])[None, :] < lengths[:, None]\n        "
            "ids = ((x * 49).long() + 1) * mask\n        ")
_LENGTHS_FULL = ("lengths = (x[:, 0] * x.shape[1]).long().clamp(min=2)\n        "
                 "lengths = lengths + (x.shape[1] - lengths.max())\n        "
                 "mask = torch.arange(x.shape[1])[None, :] < lengths[:, None]\n        "
                 "ids = ((x * 49).long() + 1) * mask\n        ")
_EMIT_LSTM = "em = self.proj(self.lstm(self.emb(ids))[0])\n        "
_EMIT_CNN = "em = self.proj(torch.relu(self.conv(self.emb(ids).transpose(1, 2))).transpose(1, 2))\n        "

# ---------------------------------------------------------------------------------------------------------------
# pytorch-crf: the CRF layer over the user's emissions (5 tags).
_CRF = "from torchcrf import CRF"
#: Viterbi decoding without a mask: the library's list of lists as a (batch, time) tensor.
_CRF_DECODE = _IDS + _EMIT_LSTM + "return torch.tensor(self.m.decode(em))"
#: Padded sentences: the LSTM over packed sequences (lengths on the CPU), Viterbi decoding with the mask, each
#: sentence's tags written into a (batch, time) tensor of -1.
_CRF_LENGTHS = (_LENGTHS +
                "packed = torch.nn.utils.rnn.pack_padded_sequence(self.emb(ids), lengths.cpu(), batch_first=True, "
                "enforce_sorted=False)\n        "
                "h, _ = torch.nn.utils.rnn.pad_packed_sequence(self.lstm(packed)[0], batch_first=True, "
                "total_length=x.shape[1])\n        "
                "paths = self.m.decode(self.proj(h), mask)\n        "
                "out = torch.full(mask.shape, -1, dtype=torch.long)\n        "
                "for i, path in enumerate(paths):\n            "
                "out[i, :len(path)] = torch.tensor(path)\n        "
                "return out")
#: Time-major emissions from characters: the log-likelihood of each sentence's greedy tags under the CRF (the forward
#: algorithm over the mask), and per token.
_CRF_LOGLIK = (_LENGTHS + _EMIT_CNN +
               "em, tags = em.transpose(0, 1), em.argmax(-1).transpose(0, 1)\n        "
               "ll = self.m(em, tags, mask.transpose(0, 1), reduction='none')\n        "
               "return ll, ll / lengths")

# ---------------------------------------------------------------------------------------------------------------
# torch-struct: structured distributions over the user's scores (the encoder is the wrapped module, a ModuleDict).
_TS = "import torch_struct"
_TS_LSTM = ("torch.nn.ModuleDict(dict(emb=torch.nn.Embedding(50, 16, padding_idx=0), "
            "lstm=torch.nn.LSTM(16, 16, batch_first=True, bidirectional=True), {heads}))")
_TS_H = "h = self.m['lstm'](self.m['emb'](ids))[0]\n        "
#: Linear-chain potentials phi(n, z_{n+1}, z_n): the next token's emission plus a learnt transition, the first
#: token's emission added to the first edge.
_TS_CHAIN = ("em = self.m['proj'](h)\n        "
             "pot = em[:, 1:, :, None] + self.trans[None, None]\n        "
             "pot = torch.cat([pot[:, :1] + em[:, :1, None, :], pot[:, 1:]], 1)\n        ")
_TS_TRANS = "self.trans = torch.nn.Parameter(torch.randn(4, 4) * 0.5)"
#: The best tag sequence (argmax edges back to tags) and its score, padded sentences.
_TS_CHAIN_ARGMAX = (_LENGTHS_FULL + _TS_H + _TS_CHAIN +
                    "dist = torch_struct.LinearChainCRF(pot, lengths=lengths)\n        "
                    "with torch.enable_grad():\n            "
                    "edges = dist.argmax\n        "
                    "return torch_struct.LinearChainCRF.struct.from_parts(edges)[0], dist.max")
#: Per-token tag marginals (from the edge marginals) and the log-partition, full sentences, character emissions.
_TS_CHAIN_MARG = (_IDS +
                  "em = self.m['proj'](torch.relu(self.m['conv'](self.m['emb'](ids).transpose(1, 2))).transpose(1, 2))"
                  "\n        "
                  "pot = em[:, 1:, :, None] + self.trans[None, None]\n        "
                  "pot = torch.cat([pot[:, :1] + em[:, :1, None, :], pot[:, 1:]], 1)\n        "
                  "dist = torch_struct.LinearChainCRF(pot)\n        "
                  "with torch.enable_grad():\n            "
                  "marg = dist.marginals\n        "
                  "return torch.cat([marg[:, :1].sum(-2), marg.sum(-1)], 1), dist.partition")
#: Biaffine arc scores (head, child; the root on the diagonal): the best projective tree's arcs and the log-partition.
#: The scores are computed with gradients on: the library's length masking fills a view of its padded copy of the
#: scores in place, which autograd refuses when that copy is a leaf (scores made without gradients).
_TS_DEP = (_LENGTHS +
           "with torch.enable_grad():\n            "
           "h = self.m['lstm'](self.m['emb'](ids))[0]\n            "
           "scores = self.m['head'](h) @ self.m['dep'](h).transpose(1, 2)\n            "
           "dist = torch_struct.DependencyCRF(scores, lengths=lengths)\n            "
           "arcs = dist.argmax\n        "
           "return arcs, dist.partition")
#: Span scores from endpoint differences (3 labels): the best tree's labelled spans and the log-partition.
_TS_TREE = (_LENGTHS + _TS_H +
            "scores = self.m['span'](h[:, None, :, :] - h[:, :, None, :])\n        "
            "dist = torch_struct.TreeCRF(scores, lengths=lengths)\n        "
            "with torch.enable_grad():\n            "
            "spans = dist.argmax\n        "
            "return spans, dist.partition")

# ---------------------------------------------------------------------------------------------------------------
# pytorch-beam-search: its package imports nltk for its vocabulary index (Index, not used by the models or the
# searches; nltk is not in the venv): the user's module stands in an empty nltk.lm. The models take a vocabulary
# only for its size: the user's vocabularies of 30 tokens (id 1 the start token the searches begin with).
_PBS = '''import sys
import types

for _name in ("nltk", "nltk.lm"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
sys.modules["nltk"].lm = sys.modules["nltk.lm"]
sys.modules["nltk.lm"].Vocabulary = object
from pytorch_beam_search import autoregressive, seq2seq

VOCABULARY = types.SimpleNamespace(voc2idx={i: i for i in range(30)}, idx2voc={i: i for i in range(30)})'''
_PBS_IDS = "ids = (x * 29).long() + 1\n        "

MODELS43 = [
    # pytorch-crf: BiLSTM-CRF and CNN-CRF taggers (random weights, 5 tags).
    Spec("crf_bilstm_viterbi", "pytorch-crf CRF (5 tags, batch first) over the user's embedding and BiLSTM "
         "emissions: Viterbi decoding (a loop over time, backtracking per sentence into Python lists) as a tensor",
         _CRF, "CRF(5, batch_first=True)", _CRF_DECODE, "1, 12", _BT, init=_BILSTM.format(tags=5)),
    Spec("crf_packed_viterbi_lengths", "pytorch-crf CRF over a BiLSTM run on packed padded sentences (the user's "
         "mask from lengths): Viterbi decoding with the mask, the ragged tag lists written into a -1-padded tensor",
         _CRF, "CRF(5, batch_first=True)", _CRF_LENGTHS, "1, 12", _BT, init=_BILSTM.format(tags=5)),
    Spec("crf_charcnn_loglik", "pytorch-crf CRF (time-major) over character-CNN emissions: the log-likelihood of the "
         "greedy tags (gold-path score indexed at each sentence's last valid step, forward algorithm over the mask)",
         _CRF, "CRF(5)", _CRF_LOGLIK, "1, 12", _BT, init=_CHARCNN.format(tags=5)),
    # torch-struct: structured distributions (random weights).
    Spec("ts_linearchain_argmax", "torch-struct LinearChainCRF (4 tags) over BiLSTM emissions and transitions, padded "
         "sentences: the argmax by autograd through a max-semiring parallel scan (padded to a power of two), edges "
         "back to tags by nonzero and a Python loop, and the best score", _TS,
         _TS_LSTM.format(heads="proj=torch.nn.Linear(32, 4)"), _TS_CHAIN_ARGMAX, "1, 12", _BT, init=_TS_TRANS),
    Spec("ts_linearchain_marginals", "torch-struct LinearChainCRF (4 tags) over character-CNN emissions: per-token "
         "tag marginals by autograd of the log-partition, and the log-partition", _TS,
         "torch.nn.ModuleDict(dict(emb=torch.nn.Embedding(50, 8, padding_idx=0), conv=torch.nn.Conv1d(8, 16, 3, "
         "padding=1), proj=torch.nn.Linear(16, 4)))", _TS_CHAIN_MARG, "1, 12", _BT, init=_TS_TRANS),
    Spec("ts_dependency_biaffine", "torch-struct DependencyCRF (projective, Eisner's algorithm, a loop over span "
         "widths, per-sentence length masking) over biaffine arc scores from a BiLSTM: the best tree's arcs and the "
         "log-partition", _TS, _TS_LSTM.format(heads="head=torch.nn.Linear(32, 16), dep=torch.nn.Linear(32, 16)"),
         _TS_DEP, "1, 10", _BT),
    Spec("ts_treecrf_spans", "torch-struct TreeCRF (CKY over span scores from BiLSTM endpoint differences, 3 labels, "
         "the log-partition read at each sentence's length): the best tree's labelled spans and the log-partition",
         _TS, _TS_LSTM.format(heads="span=torch.nn.Linear(32, 3)"), _TS_TREE, "1, 10", _BT),
    # pytorch-beam-search: encoder-decoders and a language model with greedy and beam search (random weights).
    Spec("pbs_transformer_greedy", "pytorch-beam-search seq2seq Transformer (d 16, one encoder and one decoder layer, "
         "learnt positions up to 32, asserts on the lengths): greedy search of 8 tokens (the decoder re-run on the "
         "growing output, concatenation) and the sequences' log-probabilities", _PBS,
         "seq2seq.Transformer(list(range(30)), list(range(30)), max_sequence_length=32, embedding_dimension=16, "
         "feedforward_dimension=32, encoder_layers=1, decoder_layers=1, attention_heads=2)",
         _PBS_IDS + "return seq2seq.greedy_search(self.m, ids, predictions=8)", "1, 12", _BT),
    Spec("pbs_lstm_beam", "pytorch-beam-search seq2seq LSTM (encoder and decoder of 32 units): beam search of width "
         "3 for 6 tokens (a DataLoader over the beams, topk over beams times vocabulary, the beams' histories "
         "gathered by index)", _PBS,
         "seq2seq.LSTM(list(range(30)), list(range(30)), encoder_embedding_dimension=16, "
         "decoder_embedding_dimension=16, encoder_hidden_units=32, encoder_layers=1, decoder_hidden_units=32, "
         "decoder_layers=1)",
         _PBS_IDS + "return seq2seq.beam_search(self.m, ids, predictions=6, beam_width=3)", "1, 12", _BT),
    Spec("pbs_lm_transformer_beam", "pytorch-beam-search autoregressive Transformer encoder (causal mask built from "
         "the length, learnt positions, the context cut to its last 16 tokens): beam search of width 3 continuing "
         "the prompt by 6 tokens", _PBS,
         "autoregressive.TransformerEncoder(VOCABULARY, max_sequence_length=16, embedding_dimension=16, "
         "feedforward_dimension=32, layers=1, attention_heads=2)",
         _PBS_IDS + "return autoregressive.beam_search(self.m, ids, predictions=6, beam_width=3)", "1, 8", _BT),
]

if __name__ == "__main__":
    main(MODELS43, "real_zoo43", PINS43)
