"""A forty-seventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo47.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on language and sequence models as deployed for inference, in pure
PyTorch (not Hugging Face): the thirty-first zoo's pins and two more libraries by two other authors, whose code no
earlier zoo or sweep ran (``PINS47``: unpacked wheels like the others, never pip-installed): x-transformers 2.31.10
(Phil Wang: decoder-only and encoder-decoder transformers; the key/value cache kept in ``LayerIntermediates`` with its
length (the size of the input that made it), the new tokens cut by it from an input that includes the past, rotary
positions offset by it, ALiBi slopes and distances from ``arange`` of the query and key lengths, T5 relative
position buckets by ``log`` of the distances and ``min`` against the bucket count, grouped-query attention; the
``AutoregressiveWrapper``'s generation loop (greedy by ``argmax`` and ``torch.cat``, prompts of several lengths
right-aligned by ``align_right`` with the start positions masked, an end token that breaks the loop once every
sequence has one and pads after it by a ``cumsum`` mask) and its beam search (the cache repeated over the beams and
reordered by the surviving beams' indices, ``topk`` of each beam's next tokens, then a ``sort`` of beams times
candidates, kept when their count exceeds the beam width); einops, loguru and packaging from the
venv, einx (with frozendict) and torch-einops-utils, which its package imports, added to the ``bench`` extra; earlier
zoos used other libraries of his, and zoo 43 dropped this one only because einx was not in the venv) and labml-nn
0.5.1 with its labml 0.4.168 (Varuna Jayasiri, labml.ai: annotated implementations of papers; the Switch Transformer's
mixture of experts (the top-1 route by ``max`` of a softmax, each expert's tokens by ``nonzero`` of ``routes == i`` in a
Python loop, written back by index, the counts by ``len`` of each list), ALiBi biases from the ``cumsum`` of the causal
mask and rotary cos/sin tables from ``arange`` of the length, both cached on the module and rebuilt when a longer
sequence comes, the Feedback Transformer's Python loop over the time steps with a memory stacked per step and relative
key positions sliced from the end of a 4096-long table, the Hourglass Transformer's shift, ceil-mode average-pool
shortening and ``repeat_interleave`` upsampling truncated to the length, causal masks from ``subsequent_mask`` of the
length, cached and rebuilt when it changes; its layers call labml's ``tracker`` and ``logger``, so labml is pinned
beside it as the user's source, as cjm-psl-utils is for cjm-yolox-pytorch; labml's gitpython is not imported by them).

Considered and dropped before any model was chosen (by the wheel's files and metadata, or a first look at the code):
litgpt 0.5.13 (Lightning AI: GPT with a key/value cache, rope caches, LLaMA-style mixture of experts by ``topk`` and
per-expert loops, sliding windows; but its package ``__init__`` imports its API and ``litgpt.utils``, which import
lightning, jsonargparse and more, none in the venv), torchtune 0.6.1 (Meta: its package ``__init__`` imports torchao,
and its dependencies include torchdata, datasets, tiktoken and sentencepiece), rwkv 0.8.32 (BlinkDL's RWKV runtime:
loads its weights from a checkpoint file by strategy strings, a fourth library was not needed; zoo 41 also dropped it),
and the libraries zoos 15 to 46 dropped or used, as they found (mambapy, transformers, conformer, speechbrain and
pytorch-beam-search among them); within the chosen libraries: labml-nn's RWKV (its ``TimeMixing.forward`` writes the
states into ``state`` even when none was given and calls a ``wkv_function`` the class does not define: it fails in the
library whatever the input), its kNN-LM and RETRO (a faiss index and a retrieval database), its Transformer-XL and
compressive transformer (memories kept by the training loop), its switch model's ``drop_tokens`` (``torch.randperm``:
two runs differ); x-transformers' sampled ``generate`` (``torch.multinomial``) and stochastic beam search, its
Transformer-XL wrapper and the other wrappers (belief state, free transformer, entropy tokenizer: not chosen, five
models from it were enough).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 46 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the two new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (key/value caches whose past length is read from a tensor's size, causal
masks and position tables from ``arange`` of sizes, tables cached on the module by length, generation loops of a
Python count of steps with ``torch.cat``, an end token that breaks the loop on the data, beam search with ``topk`` and
cache reordering, per-expert loops over ``nonzero``, a Python loop over time, ceil-mode shortening and truncation).
x-transformers (a vocabulary of 64 tokens, 0 the padding, width 32, random weights): a decoder with rotary positions
and grouped-query attention (4 query and 2 key/value heads) greedily decoding 6 tokens with its cache; a decoder with
ALiBi on 2 of 4 heads: the prompt's prefill returning the cache, then one decoding step on the last token against it
(past length the time axis less one): the step's logits; an encoder-decoder XTransformer with T5 relative position
buckets in both (8 buckets up to a distance of 16) greedily decoding 5 tokens from a start token; a decoder with rotary
positions and a gated feed-forward generating from prompts of different lengths (each prompt's length from its first
value, at least one) with the end token 25, 6 tokens at most; a beam search of 3 beams for 4 tokens over a rotary
decoder: the beams and their scores. labml-nn (random weights; the user's language models: token embeddings of 64, the
layers over (time, batch, width), a head of 64): a Switch Transformer of 2 layers with 4 experts (logits, the
per-layer expert counts and the chosen routes' probabilities), 2 layers of ALiBi attention (4 heads, no position
embeddings), 2 layers of rotary attention (half of each head's features), a Feedback Transformer of 2 layers, and an
Hourglass Transformer shortening by 2 and 2: logits for all four.

Each is small and has the dynamic axes a deploying user declares: batch and time (tokens) for all ten (the cached step
takes its past from the same prompt, so its past length is the time axis less one); the input is the user's (batch,
time) values in [0, 1), token ids ``(x * 63).long() + 1``. No BatchNorm (none in these models). Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs) at three sizes (the spec's 1 x 8, a batch of three, and 16 tokens) and once at 2 x 11 (an odd
length for the Hourglass' ceil-mode shortening) before the first migrate run, with a stand-in source tree holding only
torchvision and the new libraries: with one thread on the shared two cores, each in its own process, in the round before
the last (with this file but for its docstring; a load average of about 2.4 from other sessions), the best of two
forwards at the spec's size took 0.005 to 0.014 s for x-transformers (0.005 the cached step, 0.006 the end-token
generation, which stops after 3 tokens at the spec's input, 0.008 the beam search, 0.013 the greedy decoding, 0.014 the
encoder-decoder) and 0.001 to 0.005 s for labml-nn (the Feedback Transformer the slowest); at the larger sizes at most
0.026 s (the encoder-decoder at 16 tokens); builds (imports included) took 1.6 to 3.8 s. A last round with this file's
final text, run beside the table test (a higher load), gave at most 0.061 s at the spec's size (the greedy decoding) and
builds up to 6.1 s. Changed after the first eager runs (in a scratch script before the zoo file was committed), before
any migrate run: labml pinned at 0.4.168, not 0.5.3 (labml-nn 0.5.1's attention calls ``tracker.debug``, which labml 0.5
no longer has: every labml-nn model failed); the end token 25, not 3 (3 was never produced at any of the sizes, so the
end-token path never ran; 25 ends the spec's sequence at its third token, so the loop breaks early and the output is 1 x
3 there, while at a batch of three only the first sequence ends and the others run the 6 steps). Warnings seen, left as
they are: x-transformers' "rotary embedding dimension should be at least 32" (heads of 8 or 16 features)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): x-transformers (Phil Wang: decoder-only and encoder-decoder transformers with key/value caches,
#: rotary, ALiBi and T5 relative position biases computed from sizes, greedy, eos-stopped and beam generation loops;
#: einops and loguru from the venv, einx, frozendict and torch-einops-utils added to the ``bench`` extra) and labml-nn
#: with its labml (Varuna Jayasiri, labml.ai: annotated transformer variants; a Switch Transformer's mixture of
#: experts by per-expert loops over ``nonzero``, ALiBi biases and rotary cos/sin tables cached by length, the
#: Feedback Transformer's Python loop over time, the Hourglass Transformer's shortening by ceil-mode pooling and
#: repeat-and-truncate upsampling; labml only for its tracker and logger, imported by the layers).
PINS47 = {**PINS31, "x_transformers": "2.31.10", "labml_nn": "0.5.1", "labml": "0.4.168"}

#: Token sequences: (batch, time) in [0, 1), the user's token ids ``(x * 63).long() + 1`` (0 is padding).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_IDS = "ids = (x * 63).long() + 1\n        "

# ---------------------------------------------------------------------------------------------------------------
# x-transformers: a vocabulary of 64 tokens (0 the padding), width 32, random weights.
_XT = '''from x_transformers import TransformerWrapper, Decoder, XTransformer
from x_transformers.autoregressive_wrapper import AutoregressiveWrapper


def _decoder(**attn):
    """A small decoder-only language model without absolute positions (so that it caches keys and values at any
    length): 64 tokens, width 32, 2 layers."""
    return TransformerWrapper(num_tokens=64, max_seq_len=64, use_abs_pos_emb=False,
                              attn_layers=Decoder(dim=32, depth=2, **attn))'''

# ---------------------------------------------------------------------------------------------------------------
# labml-nn: the user's language model around the library's layers, which take (time, batch, width): token embeddings,
# the causal mask for the length (the library's subsequent_mask), the layers, a head over 64 tokens; random weights.
_LAB = '''from labml_nn.transformers.feed_forward import FeedForward
from labml_nn.transformers.mha import MultiHeadAttention
from labml_nn.transformers.models import TransformerLayer, EmbeddingsWithPositionalEncoding
from labml_nn.transformers.alibi import AlibiMultiHeadAttention
from labml_nn.transformers.rope import RotaryPEMultiHeadAttention
from labml_nn.transformers.switch import SwitchTransformer, SwitchTransformerLayer, SwitchFeedForward
from labml_nn.transformers.feedback import FeedbackTransformer, FeedbackTransformerLayer, FeedbackAttention
from labml_nn.transformers.hour_glass import HourGlass
from labml_nn.transformers.utils import subsequent_mask
from labml_nn.utils import clone_module_list


def _layer(attn):
    return TransformerLayer(d_model=32, self_attn=attn, feed_forward=FeedForward(32, 64, 0.0), dropout_prob=0.0)


class _CausalLM(torch.nn.Module):
    """The user's causal language model: embeddings (sinusoidal positions or none), the library's layers under the
    causal mask for the length, a final norm and a head."""

    def __init__(self, layer, n_layers, positions=True):
        super().__init__()
        self.emb = EmbeddingsWithPositionalEncoding(32, 64) if positions else torch.nn.Embedding(64, 32)
        self.layers = clone_module_list(layer, n_layers)
        self.norm = torch.nn.LayerNorm(32)
        self.head = torch.nn.Linear(32, 64)

    def forward(self, ids):
        x = self.emb(ids.t())
        mask = subsequent_mask(x.shape[0])
        for layer in self.layers:
            x = layer(x=x, mask=mask)
        return self.head(self.norm(x)).transpose(0, 1)


class _Wrapped(torch.nn.Module):
    """The user's model around a library stack that takes embedded (time, batch, width) sequences."""

    def __init__(self, stack):
        super().__init__()
        self.emb = EmbeddingsWithPositionalEncoding(32, 64)
        self.stack = stack
        self.head = torch.nn.Linear(32, 64)'''

#: FeedbackAttention's relative key positions and biases start at zero (a training prior): the user's trained ones
#: stand in as small seeded random ones, so that the positions matter.
_FEEDBACK_POS = ("for _layer in self.m.stack.layers:\n            "
                 "torch.nn.init.normal_(_layer.attn.key_pos_embeddings, std=0.2)\n            "
                 "torch.nn.init.normal_(_layer.attn.key_pos_bias, std=0.2)\n            "
                 "torch.nn.init.normal_(_layer.attn.query_pos_bias, std=0.2)")

MODELS47 = [
    # x-transformers: cached decoding and generation loops (random weights).
    Spec("xt_gqa_rotary_greedy", "x-transformers AutoregressiveWrapper.generate over a decoder-only TransformerWrapper "
         "(rotary positions, grouped-query attention of 4 query and 2 key/value heads): greedy decoding of 6 tokens "
         "with the key/value cache, the rotary positions offset by the cache's length, torch.cat of each token",
         _XT, "AutoregressiveWrapper(_decoder(heads=4, attn_kv_heads=2, rotary_pos_emb=True))",
         _IDS + "return self.m.generate(ids, 6, temperature=0.0, cache_kv=True)", "1, 8", _BT),
    Spec("xt_alibi_cached_step", "x-transformers decoder-only TransformerWrapper with ALiBi (2 of 4 heads biased, "
         "slopes from the head count, distances from arange of the key and query lengths): the prompt's prefill "
         "returning the key/value cache, then one decoding step on the last token against it (the new token cut "
         "from the whole sequence by the cache's length): the next token's logits", _XT,
         "_decoder(heads=4, alibi_pos_bias=True, alibi_num_heads=2)",
         _IDS + "_, cache = self.m(ids[:, :-1], return_intermediates=True)\n        "
         "return self.m(ids, cache=cache)[:, -1]", "1, 8", _BT),
    Spec("xt_t5_relpos_encdec_greedy", "x-transformers XTransformer (encoder-decoder, T5 relative position buckets "
         "in both: 8 buckets up to a distance of 16, log-spaced beyond 4, clamped by min; cross-attention to the "
         "encodings): greedy decoding of 5 tokens from a start token with the decoder's key/value cache", _XT,
         "XTransformer(dim=32, enc_num_tokens=64, enc_depth=1, enc_heads=2, enc_max_seq_len=64, "
         "enc_use_abs_pos_emb=False, enc_rel_pos_bias=True, enc_rel_pos_num_buckets=8, enc_rel_pos_max_distance=16, "
         "dec_num_tokens=64, dec_depth=1, dec_heads=2, dec_max_seq_len=64, dec_use_abs_pos_emb=False, "
         "dec_rel_pos_bias=True, dec_rel_pos_num_buckets=8, dec_rel_pos_max_distance=16)",
         _IDS + "start = torch.ones_like(ids[:, :1])\n        "
         "return self.m.generate(ids, start, 5, temperature=0.0)", "1, 8", _BT),
    Spec("xt_prompt_lens_eos", "x-transformers AutoregressiveWrapper.generate with variable prompt lengths (each "
         "prompt's length from its first value; the prompts right-aligned by align_right, the start positions "
         "masked) and an end token (25): greedy decoding of 6 tokens with the key/value cache, stopping early when "
         "every sequence has ended, the tokens after each end token filled with the padding by a cumsum mask", _XT,
         "AutoregressiveWrapper(_decoder(heads=2, rotary_pos_emb=True, attn_dim_head=16, ff_glu=True))",
         _IDS + "lens = (x[:, 0] * x.shape[1]).long().clamp(min=1)\n        "
         "return self.m.generate(ids, 6, eos_token=25, temperature=0.0, prompt_lens=lens)", "1, 8", _BT),
    Spec("xt_beam_search", "x-transformers AutoregressiveWrapper.beam_search (3 beams, 4 tokens, the key/value "
         "cache repeated and reordered by the surviving beams' indices, topk of each beam's next tokens and a sort "
         "of beams times candidates) over a "
         "decoder-only TransformerWrapper with rotary positions: the beams and their scores", _XT,
         "AutoregressiveWrapper(_decoder(heads=2, rotary_pos_emb=True))",
         _IDS + "return self.m.beam_search(ids, 4, beams=3, return_beams_and_scores=True)", "1, 8", _BT),
    # labml-nn: annotated transformer variants in the user's language models (random weights).
    Spec("lab_switch_moe", "labml-nn SwitchTransformer (2 layers; a Switch mixture of 4 feed-forward experts: the "
         "top-1 route by max of a softmax, each expert's tokens by nonzero of routes == i in a Python loop, their "
         "outputs written back by index, the route counts by len of each list) in the user's causal language model: "
         "logits, the per-layer expert counts and route probabilities", _LAB,
         "_Wrapped(SwitchTransformer(SwitchTransformerLayer(d_model=32, attn=MultiHeadAttention(2, 32, 0.0), "
         "feed_forward=SwitchFeedForward(capacity_factor=1.0, drop_tokens=False, is_scale_prob=True, n_experts=4, "
         "expert=FeedForward(32, 64, 0.0), d_model=32), dropout_prob=0.0), 2))",
         _IDS + "h = self.m.emb(ids.t())\n        "
         "h, counts, _, _, route_max = self.m.stack(h, subsequent_mask(h.shape[0]))\n        "
         "return self.m.head(h).transpose(0, 1), counts, route_max", "1, 8", _BT),
    Spec("lab_alibi_lm", "labml-nn AlibiMultiHeadAttention (ALiBi slopes from the head count by log2, the biases "
         "from the cumsum of the causal mask, cached on the module and rebuilt when a longer sequence comes) in 2 "
         "layers of the user's causal language model without position embeddings: logits", _LAB,
         "_CausalLM(_layer(AlibiMultiHeadAttention(4, 32, 0.0)), 2, positions=False)",
         _IDS + "return self.m(ids)", "1, 8", _BT),
    Spec("lab_rope_lm", "labml-nn RotaryPEMultiHeadAttention (rotary embeddings on half of each head's features, "
         "the cos and sin tables cached on the module and rebuilt from arange of the length when a longer sequence "
         "comes) in 2 layers of the user's causal language model: logits", _LAB,
         "_CausalLM(_layer(RotaryPEMultiHeadAttention(2, 32, 0.5, 0.0)), 2, positions=False)",
         _IDS + "return self.m(ids)", "1, 8", _BT),
    Spec("lab_feedback", "labml-nn FeedbackTransformer (2 layers; a Python loop over the time steps, each step "
         "attending to the memory of the earlier steps' softmax-weighted layer outputs, stacked per step, with "
         "relative key positions sliced from the end of a 4096-long table by the memory's length): logits", _LAB,
         "_Wrapped(FeedbackTransformer(FeedbackTransformerLayer(d_model=32, attn=FeedbackAttention(2, 32, 0.0), "
         "feed_forward=FeedForward(32, 64, 0.0), dropout_prob=0.0), 2))",
         _IDS + "return self.m.head(self.m.stack(self.m.emb(ids.t()))).transpose(0, 1)", "1, 8", _BT,
         init=_FEEDBACK_POS),
    Spec("lab_hourglass", "labml-nn HourGlass (shortening factors 2 then 2: shift right by k - 1, average-pool "
         "shortening with ceil_mode, repeat_interleave upsampling truncated to the length, causal masks cached on "
         "the module and rebuilt when the length changes): logits", _LAB,
         "_Wrapped(HourGlass(2, 32, 0.0, 64, [2, 2]))",
         _IDS + "return self.m.head(self.m.stack(self.m.emb(ids.t()))).transpose(0, 1)", "1, 8", _BT),
]

if __name__ == "__main__":
    main(MODELS47, "real_zoo47", PINS47)
