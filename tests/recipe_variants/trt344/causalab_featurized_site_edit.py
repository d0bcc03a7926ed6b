"""CausalAbstraction's featurized site: selected features edited in feature space and written back by a list.

Reduced from atticusg/CausalAbstraction at commit a68be53201b210659d1b8c00f209bf97439129ed,
causalab/neural/featurized_site.py, ``FeaturizedSite._rewrite`` (lines 139-155 as stored, the write
on line 154): the base activation is featurized into features and a reconstruction error; with
``feature_ids`` set, the method copies them with ``ids = list(self.feature_ids)``, clones the
features and writes the edited selection back with
``f_out[..., ids] = self._coerce(g(f[..., ids]), f)`` before inverse-featurizing with the base
error. ``__post_init__`` normalizes ``feature_ids`` to a tuple of distinct non-negative ints.
Kept: a local name made by ``list(...)`` of a held tuple, in the branch where ids are set, the value
a function of the read of the same positions, passed through ``_coerce``. Here the featurizer is an
orthogonal rotation held as a buffer (the error is what the rotation does not reconstruct) and the
edit ``g`` a steering step on three of twelve features (positions 3, 7 and 8, which no slice names);
the site's read and write are the module's input and output. Written here in our own words.
"""

import torch
from torch import nn

WIDTH = 12


class FeaturizedEdit(nn.Module):
    def __init__(self, feature_ids=(3, 7, 8)) -> None:
        super().__init__()
        self.feature_ids = None if feature_ids is None else tuple(int(i) for i in feature_ids)
        rotation, _ = torch.linalg.qr(torch.randn(WIDTH, WIDTH, generator=torch.Generator().manual_seed(5)))
        self.register_buffer("rotation", rotation)
        self.register_buffer("steer", torch.tensor([1.5, -2.0, 0.25]))

    def featurize(self, x):
        f = x @ self.rotation
        return f, x - f @ self.rotation.T

    def inverse_featurize(self, f, err):
        return f @ self.rotation.T + err

    def g(self, selected):
        return selected * 0.5 + self.steer

    @staticmethod
    def _coerce(value, like):
        if isinstance(value, torch.Tensor):
            return value.to(device=like.device, dtype=like.dtype)
        return value

    def forward(self, base):
        f, err = self.featurize(base)
        if self.feature_ids is None:
            f_out = self._coerce(self.g(f), f)
        else:
            ids = list(self.feature_ids)
            f_out = f.clone()
            f_out[..., ids] = self._coerce(self.g(f[..., ids]), f)
        return self.inverse_featurize(f_out, err)


def build() -> nn.Module:
    return FeaturizedEdit().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, WIDTH, generator=generator) * 2,)


DYNAMIC = {"base": {0: "batch", 1: "positions"}}
