"""The learner's RLModule as a numpy policy: a weights copy of its actor.

The learner is RLlib's default PPO module (``vf_share_layers=False``): an
actor encoder MLP (``fcnet_hiddens`` with ``fcnet_activation``) and a ``pi``
head of one linear layer to the 34 logits; the action mask is added after.
That is exactly :class:`sixtysix_env.policy.PolicyNetwork` (hidden layers
with one activation, then a linear output), so the export copies the
matrices (transposed: torch keeps ``(out, in)``) and nothing is
approximated. The value network is left out, as in the SB3 path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.policy import PolicyNetwork
from sixtysix_env.policy.observation import OBS_SIZE

_LINEAR = re.compile(r"^(?P<prefix>.*)\.(?P<index>\d+)\.weight$")


def _linear_layers(state: Mapping[str, Any], prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) pairs of the ``Sequential`` under ``prefix``, in order."""
    found = []
    for key in state:
        if not key.startswith(prefix):
            continue
        m = _LINEAR.match(key)
        if m and m["prefix"] == prefix.rstrip("."):
            i = int(m["index"])
            w = np.asarray(_numpy(state[key]), np.float32)
            b = np.asarray(_numpy(state[f"{m['prefix']}.{i}.bias"]), np.float32)
            found.append((i, w, b))
    return [(w, b) for _, w, b in sorted(found, key=lambda t: t[0])]


def _numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _suit_symmetric_layers(
    state: Mapping[str, Any], hidden: list[int] | None
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The dense layers of a suit-symmetric actor (``actor_symmetry: suits``), or None for
    an RLlib MLP actor."""
    if "pi.params" not in state:
        return None
    from ..common.equivariant import dense_layers

    keys = sorted(
        (k for k in state if re.fullmatch(r"encoder\.actor_encoder\.net\.\d+\.params", k)),
        key=lambda k: int(k.split(".")[3]),
    )
    if hidden is None:
        raise ValueError("a suit-symmetric actor's export needs its hidden layer sizes (net_arch)")
    params = [_numpy(state[k]) for k in keys] + [_numpy(state["pi.params"])]
    return [(w.T, b) for w, b in dense_layers(params, hidden)]


def network_from_state(
    state: Mapping[str, Any], activation: str, hidden: list[int] | None = None
) -> PolicyNetwork:
    """The actor of a PPO RLModule's state dict (``module.get_state()``) as a numpy network.

    ``hidden`` (the run's ``net_arch``) is needed for a suit-symmetric actor, whose
    state holds its shared blocks rather than its matrices."""
    symmetric = _suit_symmetric_layers(state, hidden)
    encoder = symmetric[:-1] if symmetric else _linear_layers(state, "encoder.actor_encoder.net.mlp.")
    head = symmetric[-1:] if symmetric else _linear_layers(state, "pi.net.mlp.")
    if not encoder:
        raise ValueError(
            "no actor encoder layers (encoder.actor_encoder.net.mlp.*) in the module state; "
            "the learner must be built with vf_share_layers=False and an MLP encoder"
        )
    if len(head) != 1:
        raise ValueError(
            f"the pi head has {len(head)} linear layers; the numpy policy needs exactly one "
            "(head_fcnet_hiddens=[])"
        )
    layers = encoder + head
    weights = [w.T for w, _ in layers]
    biases = [b for _, b in layers]
    if weights[0].shape[0] != OBS_SIZE or weights[-1].shape[1] != NUM_ACTIONS:
        raise ValueError(
            f"the actor maps {weights[0].shape[0]} inputs to {weights[-1].shape[1]} outputs; "
            f"a policy needs {OBS_SIZE} -> {NUM_ACTIONS}"
        )
    return PolicyNetwork(weights, biases, activation)
