"""Rules match through the file's imports: aliases match, a user's own same-named function never does."""

from __future__ import annotations

import pytest

from support import rules_found

ALIASED = [
    ("import torch.nn.functional as F\ny = F.pad(x, (1, 1))\n", "TRT501"),
    ("from torch import nn\ny = nn.functional.pad(x, (1, 1))\n", "TRT501"),
    ("import torch\ny = torch.nn.functional.pad(x, (1, 1))\n", "TRT501"),
    ("from torch.nn.functional import pad as p\ny = p(x, (1, 1))\n", "TRT501"),
    ("from torch.nn import functional as fn\ny = fn.pad(x, (1, 1))\n", "TRT501"),
    ("from torch import atan2 as a2\ny = a2(a, b)\n", "TRT301"),
    ("import torch as th\ny = th.atan2(a, b)\n", "TRT301"),
    ("import torch as th\ny = th.unique(a)\n", "TRT302"),
    ("from torch import where\ny = where(c, a, b)\n", "TRT102"),
    ("from torch import nn\npool = nn.AdaptiveAvgPool2d(7)\n", "TRT601"),
    ("import torch.nn as tnn\npool = tnn.AdaptiveAvgPool2d((7, 7))\n", "TRT601"),
    ("from torch import squeeze\ny = squeeze(a, 1)\n", "TRT401"),
]

OWN = [
    "def pad(x, p):\n    return x\ny = pad(x, (1, 1))\n",
    "from mylib import pad\ny = pad(x, (1, 1))\n",
    "import mylib as F\ny = F.pad(x, (1, 1))\n",
    "def where(c, a, b):\n    return a\ny = where(c, a, b)\n",
    "from numpy import where\ny = where(c, a, b)\n",
    "import numpy as np\ny = np.unique(a)\nz = np.arctan2(a, b)\n",
    "from mymath import atan2\ny = atan2(a, b)\n",
    "class AdaptiveAvgPool2d:\n    pass\npool = AdaptiveAvgPool2d(7)\n",
    # Imported from torch, then shadowed (more forms in test_scopes.py).
    "import torch.nn.functional as F\ndef f(x, F):\n    return F.pad(x, (1, 1))\n",
    "from torch import atan2\ndef yaw(a, b):\n    return atan2(a, b)\ndef atan2(a, b):\n    return a\n",
    "from torch import unique\ndef f(a):\n    unique = lambda x: x\n    return unique(a)\n",
    "from torch import where\ndef f(c, a, b, fs):\n    return [where(c, a, b) for where in fs]\n",
]


#: Old enough for every rule above to apply (TRT501 only matters before TensorRT 8.2);
#: matching does not depend on the target.
TARGET = "8.0"


@pytest.mark.parametrize("code,rule", ALIASED)
def test_aliases_match(code: str, rule: str) -> None:
    assert rule in rules_found(code, target=TARGET, select=("ALL", "TRT401"))


@pytest.mark.parametrize("code", OWN)
def test_users_own_names_never_match(code: str) -> None:
    assert rules_found(code, target=TARGET, select=("ALL", "TRT401")) == []
