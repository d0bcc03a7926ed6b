"""DeAOT's inference engine restarted at the top of every forward: scratch state on ``self``.

Reduced from deaotpy 1.11.0 (PyPI; z-x-yang's AOT/DeAOT), aot/networks/engines/aot_engine.py, written here in our
own words: ``AOTInferEngine.restart_engine`` (lines 516-519: ``del self.aot_engines``, then an empty list and
``obj_nums = None``), ``AOTInferEngine.add_reference_frame`` (590-616: one ``AOTEngine`` built per group of objects
while ``aot_num > len(self.aot_engines)``, the mask separated over them, the first engine's image embeddings reused),
``match_propogate_one_frame`` and ``decode_current_logits`` (618-630), and on each engine ``restart_engine``
(450-482: every memory and cached size set to ``None``), ``add_reference_frame`` (190-253: ``if self.pos_emb is
None`` and ``if self.long_term_memories is None`` fill them, the short-term memory list rebuilt) and
``match_propogate_one_frame`` (345-359: ``self.frame_step += 1``, the current embeddings, attention over both
memories). The wrapper is benchmarks/real_zoo36.py's ``da_*`` forward: restart, a reference frame with a mask drawn
from its first channel, one frame propagated, its logits. The LSTT blocks, identity bank and decoder are one
linear map each; the structure of the state (written, then read, on every call) is the library's.

Every attribute the engines read in a call was written earlier in that same call (``restart_engine`` first), so
no value crosses calls, though a tracer sees ``self.<name> = ...`` on almost every line of the engine.
"""

import math

import torch
from torch import nn


class Network(nn.Module):
    """The model the engines share: encoder, identity embedding, attention over memories, decoder."""

    def __init__(self, channels: int = 4, max_obj_num: int = 2) -> None:
        super().__init__()
        self.max_obj_num = max_obj_num
        self.encoder = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.identity = nn.Conv2d(max_obj_num + 1, channels, 1)
        self.decoder = nn.Conv2d(channels, max_obj_num + 1, 1)

    def get_pos_emb(self, embs):
        h, w = embs.shape[-2:]
        ys = torch.arange(h, dtype=embs.dtype).view(h, 1).expand(h, w)
        return torch.sin(ys / 3.0).expand(embs.shape[1], h, w)[None]

    def propagate(self, embs, pos, long_term, short_term):
        query = embs + pos
        if long_term is None:
            return query, query
        weights = torch.softmax((query * long_term).sum(1, keepdim=True), dim=-1)
        return query + weights * short_term, query


class Engine(nn.Module):
    """One engine per group of objects: memories and sizes kept on it between its methods."""

    def __init__(self, network: Network) -> None:
        super().__init__()
        self.net = network
        self.restart_engine()

    def restart_engine(self, batch_size: int = 1) -> None:
        self.batch_size = batch_size
        self.frame_step = 0
        self.obj_nums = None
        self.pos_emb = None
        self.enc_size_2d = None
        self.long_term_memories = None
        self.short_term_memories = None
        self.curr_enc_embs = None

    def add_reference_frame(self, img, mask, obj_nums, img_embs=None):
        self.obj_nums = obj_nums
        embs = self.net.encoder(img) if img_embs is None else img_embs
        if self.enc_size_2d is None:
            self.enc_size_2d = embs.shape[-2:]
        self.curr_enc_embs = embs
        if self.pos_emb is None:
            self.pos_emb = self.net.get_pos_emb(embs).expand(self.batch_size, -1, -1, -1)
        one_hot = torch.cat([(mask == k).float() for k in range(self.net.max_obj_num + 1)], 1)
        one_hot = nn.functional.interpolate(one_hot, size=self.enc_size_2d, mode="nearest")
        ids = self.net.identity(one_hot)
        _, memory = self.net.propagate(embs + ids, self.pos_emb, None, None)
        if self.long_term_memories is None:
            self.long_term_memories = memory
        else:
            self.long_term_memories = torch.cat([self.long_term_memories, memory], -1)
        self.short_term_memories = memory

    def match_propogate_one_frame(self, img, img_embs=None):
        self.frame_step += 1
        self.curr_enc_embs = self.net.encoder(img) if img_embs is None else img_embs
        self.curr_output, _ = self.net.propagate(self.curr_enc_embs, self.pos_emb, self.long_term_memories,
                                                 self.short_term_memories)

    def update_short_term_memory(self, curr_mask):
        one_hot = torch.cat([(curr_mask == k).float() for k in range(self.net.max_obj_num + 1)], 1)
        one_hot = nn.functional.interpolate(one_hot, size=self.enc_size_2d, mode="nearest")
        _, self.short_term_memories = self.net.propagate(self.curr_enc_embs + self.net.identity(one_hot),
                                                         self.pos_emb, None, None)

    def decode_current_logits(self, output_size):
        logits = self.net.decoder(self.curr_output)
        logits = torch.cat([logits[:, :self.obj_nums + 1], torch.full_like(logits[:, self.obj_nums + 1:], -1e10)], 1)
        return nn.functional.interpolate(logits, size=output_size, mode="bilinear", align_corners=False)


class InferEngine(nn.Module):
    """The engines for the objects of one video, rebuilt by ``restart_engine`` for each."""

    def __init__(self, network: Network, max_aot_obj_num: int = 1) -> None:
        super().__init__()
        self.AOT = network
        self.max_aot_obj_num = max_aot_obj_num
        self.aot_engines = []
        self.restart_engine()

    def restart_engine(self) -> None:
        del self.aot_engines
        self.aot_engines = []
        self.obj_nums = None

    def add_reference_frame(self, img, mask, obj_nums):
        self.obj_nums = obj_nums
        aot_num = max(math.ceil(obj_nums / self.max_aot_obj_num), 1)
        while aot_num > len(self.aot_engines):
            self.aot_engines.append(Engine(self.AOT).eval())
        img_embs = None
        for index, engine in enumerate(self.aot_engines):
            first = index * self.max_aot_obj_num
            inside = (mask > first) & (mask <= first + self.max_aot_obj_num)
            engine.add_reference_frame(img, (mask - first) * inside, self.max_aot_obj_num, img_embs=img_embs)
            if img_embs is None:
                img_embs = engine.curr_enc_embs

    def match_propogate_one_frame(self, img):
        img_embs = None
        for engine in self.aot_engines:
            engine.match_propogate_one_frame(img, img_embs=img_embs)
            if img_embs is None:
                img_embs = engine.curr_enc_embs

    def update_memory(self, curr_mask):
        for index, engine in enumerate(self.aot_engines):
            first = index * self.max_aot_obj_num
            inside = (curr_mask > first) & (curr_mask <= first + self.max_aot_obj_num)
            engine.update_short_term_memory((curr_mask - first) * inside)

    def decode_current_logits(self, output_size):
        probs = [torch.softmax(engine.decode_current_logits(output_size), 1) for engine in self.aot_engines]
        background = torch.prod(torch.cat([p[:, :1] for p in probs], 1), 1, keepdim=True)
        merged = torch.cat([background] + [p[:, 1:1 + self.max_aot_obj_num] for p in probs], 1)
        return torch.logit(merged.clamp(1e-5, 1 - 1e-5))


class Wrap(nn.Module):
    """The zoo's forward: the first frame is the reference (its mask from its first channel), the second is
    segmented."""

    def __init__(self) -> None:
        super().__init__()
        self.m = InferEngine(Network())

    def forward(self, x):
        self.m.restart_engine()
        mask = (x[:1, :1] * 3).floor().clamp(max=2)
        self.m.add_reference_frame(x[:1], mask, obj_nums=2)
        self.m.match_propogate_one_frame(x[1:])
        return self.m.decode_current_logits((x.shape[2], x.shape[3]))


class Streaming(nn.Module):
    """The library's own loop (aot/tools/demo.py:168-215): ``restart_engine`` and the reference frame once per
    video, then per frame propagate, decode and write the predicted ids back into the short-term memory. Here the
    video's reference frame is added when the module is built, and each call is one later frame: the memories,
    the frame step and the position embedding cross calls."""

    def __init__(self) -> None:
        super().__init__()
        self.m = InferEngine(Network())
        reference = torch.rand(1, 3, 16, 24, generator=torch.Generator().manual_seed(7))
        self.m.restart_engine()
        with torch.no_grad():
            self.m.add_reference_frame(reference, (reference[:, :1] * 3).floor().clamp(max=2), obj_nums=2)

    def forward(self, x):
        self.m.match_propogate_one_frame(x)
        logits = self.m.decode_current_logits((x.shape[2], x.shape[3]))
        self.m.update_memory(torch.argmax(logits, dim=1, keepdim=True).float())
        return logits


def build() -> nn.Module:
    torch.manual_seed(0)
    return Wrap().eval()


def build_streaming() -> nn.Module:
    torch.manual_seed(0)
    return Streaming().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 16, 24, generator=generator),)


DYNAMIC = {"x": {2: "height", 3: "width"}}
