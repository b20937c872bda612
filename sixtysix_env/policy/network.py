"""The dense layers of a policy: observation vectors in, action logits out (numpy only).

See :mod:`sixtysix_env.policy` for the file format and the symmetry.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np

from ..game.actions import NUM_ACTIONS, suit_relabelled_actions
from .observation import OBS_SIZE, suit_relabelling

ACTIVATIONS = ("tanh", "relu")
#: The symmetries a network may be averaged over (``PolicyNetwork(symmetry=...)``).
SYMMETRIES = ("suits",)
#: Averaged logits this close to the best count as a tie (the lowest action id plays):
#: equivalent moves differ only by float rounding, about 1e-6 here.
SYMMETRY_TIE = 1e-4
#: How far one matrix product over a batch may put a row's logits from the row's own product
#: (a single observation's), in units of the row's scale, max(1, its largest |legal logit|):
#: the float32 sums run in another order. :meth:`PolicyNetwork.argmax_alone` recomputes a row
#: alone where its two best legal logits are closer than twice this. The largest difference
#: measured is about 100x smaller (9e-6 of the scale over 34,385 positions of random play for
#: each shipped plain network, one BLAS thread or two; ``tests/policy/test_argmax_alone.py``).
BATCH_ROUNDING = 1e-3
#: What a network may read, and the size of each: the observation vector, and the
#: action mask as 0/1 floats (a model trained on SixtySix-v0's ``Dict`` observation, such
#: as SB3's ``MultiInputPolicy``, reads both, concatenated in the space's key order).
INPUTS = {"observation": OBS_SIZE, "action_mask": NUM_ACTIONS}
#: The inputs of a network that reads the observation alone (every network trained here).
OBSERVATION_ONLY = ("observation",)


@functools.lru_cache(maxsize=1)
def suit_tables() -> tuple[np.ndarray, np.ndarray]:
    """(observation index maps (24, OBS_SIZE), action maps (24, NUM_ACTIONS)), identity first."""
    perms = list(itertools.permutations(range(4)))
    obs = np.stack([suit_relabelling(p) for p in perms])
    act = np.array([suit_relabelled_actions(p) for p in perms], dtype=np.intp)
    obs.setflags(write=False)
    act.setflags(write=False)
    return obs, act


class PolicyNetwork:
    """The dense layers of a policy: observation vectors in, action logits out.

    With ``symmetry="suits"`` the logits are the mean of the layers' logits
    over the 24 renamings of the suits (the module's docstring says why).
    ``inputs`` names what the first layer reads, concatenated in that order (see
    :data:`INPUTS`): the observation alone (the default), or the action mask beside it.
    """

    def __init__(
        self,
        weights: Sequence[np.ndarray],
        biases: Sequence[np.ndarray],
        activation: str,
        symmetry: str | None = None,
        inputs: Sequence[str] = OBSERVATION_ONLY,
    ) -> None:
        inputs = tuple(inputs)
        if not inputs or len(set(inputs)) != len(inputs) or not set(inputs) <= set(INPUTS):
            raise ValueError(
                f"bad inputs {inputs!r}: name each of {', '.join(map(repr, INPUTS))} at most "
                "once, the observation included"
            )
        if "observation" not in inputs:
            raise ValueError(f"bad inputs {inputs!r}: a network must read the observation")
        if symmetry is not None and inputs != OBSERVATION_ONLY:
            raise ValueError(
                f"a network with a symmetry reads the observation alone, not {inputs!r}"
            )
        self.inputs = inputs
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {activation!r}; allowed: {', '.join(ACTIVATIONS)}"
            )
        if symmetry is not None and symmetry not in SYMMETRIES:
            raise ValueError(
                f"unknown symmetry {symmetry!r}; allowed: None (a plain network) or "
                f"{', '.join(map(repr, SYMMETRIES))}"
            )
        self.symmetry = symmetry
        if len(weights) != len(biases) or not weights:
            raise ValueError(
                "a policy network needs one bias per weight matrix, and at least one layer"
            )
        self.weights = tuple(np.ascontiguousarray(w, dtype=np.float32) for w in weights)
        self.biases = tuple(np.ascontiguousarray(b, dtype=np.float32) for b in biases)
        self.activation = activation

    @property
    def input_size(self) -> int:
        """The width of the first layer's input: the sizes of :attr:`inputs` added up."""
        return sum(INPUTS[name] for name in self.inputs)

    @property
    def reads_mask(self) -> bool:
        """Whether the network reads the action mask beside the observation."""
        return "action_mask" in self.inputs

    def features(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The first layer's input for observations (and their masks, where the network
        reads them): float32, concatenated in the order of :attr:`inputs`."""
        x = np.asarray(obs, dtype=np.float32)
        if not self.reads_mask:
            return x
        if mask is None:
            raise ValueError(
                f"this network reads the action mask beside the observation (inputs "
                f"{list(self.inputs)}): pass the mask too"
            )
        parts = {"observation": x, "action_mask": np.asarray(mask, dtype=np.float32)}
        return np.concatenate([parts[name] for name in self.inputs], axis=-1)

    @property
    def hidden(self) -> list[int]:
        return [int(w.shape[1]) for w in self.weights[:-1]]

    @property
    def layers(self) -> list[list[int]]:
        return [[int(w.shape[0]), int(w.shape[1])] for w in self.weights]

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Action logits (float32) for one observation ``(OBS_SIZE,)`` or a batch ``(n, OBS_SIZE)``
        (with its action masks where the network reads them, :attr:`reads_mask`)."""
        if self.symmetry is None:
            return self.layer_logits(self.features(obs, mask))
        x = np.asarray(obs, dtype=np.float32)
        obs_maps, act_maps = suit_tables()
        # (..., 24, 1, OBS_SIZE): every renaming of each position as a one-row matrix of
        # its own, so the layers make one small product per renaming. One product of 24
        # rows is a little faster alone, but it starts BLAS threads, which fight over the
        # cores when another process holds them (26 ms against 0.6 ms per decision, on 2
        # cores beside an evaluation worker). Each renamed row contiguous: for a batch the
        # indexing lays its rows out strided, which numpy multiplies without BLAS, in
        # another order than one observation's rows get, so a row's logits depended on
        # whether it came alone or in a batch (tests/policy/test_batch_invariance.py).
        renamed = np.ascontiguousarray(x[..., obs_maps])
        out = self.layer_logits(renamed[..., None, :])[..., 0, :]
        # Renaming r puts action a's logit at act_maps[r, a]: read each one back there.
        back = np.take_along_axis(out, np.broadcast_to(act_maps, out.shape), axis=-1)
        return back.mean(axis=-2, dtype=np.float32)

    def layer_logits(self, obs: np.ndarray) -> np.ndarray:
        """The layers' own logits for first-layer inputs (:meth:`features`), without the
        symmetry (the same as :meth:`logits` for a plain network that reads no mask)."""
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.weights) - 1
        relu = self.activation == "relu"
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w
            x += b
            if i < last:
                if relu:
                    np.maximum(x, 0.0, out=x)
                else:
                    np.tanh(x, out=x)
        return x

    def argmax_alone(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Each row's best legal action (the lowest id at a tie) as a plain network's
        logits for that observation alone give it, for a batch ``(n, OBS_SIZE)`` and its
        boolean masks ``(n, NUM_ACTIONS)``.

        One matrix product computes the batch; a row whose two best legal logits are within
        twice :data:`BATCH_ROUNDING` of its scale is computed again alone (a one-row product
        per game, as :meth:`logits` computes one observation), so a near tie turns as it
        does for the observation alone and no other row can turn (about 0.7% of the rows of
        an evaluation of two shipped networks are recomputed)."""
        if self.symmetry is not None:
            raise ValueError("argmax_alone is for a plain network; an averaged one ties by "
                             "SYMMETRY_TIE")
        legal = np.asarray(legal, dtype=bool)
        feats = self.features(obs, legal if self.reads_mask else None)
        z = np.where(legal, self.layer_logits(feats), -np.inf)
        top = np.partition(z, -2, axis=1)[:, -2:]
        scale = np.maximum(1.0, np.abs(np.where(legal, z, 0.0)).max(axis=1))
        close = np.flatnonzero(top[:, 1] - top[:, 0] <= 2.0 * BATCH_ROUNDING * scale)
        if len(close):
            alone = self.layer_logits(feats[close][:, None, :])[:, 0, :]
            z[close] = np.where(legal[close], alone, -np.inf)
        return np.argmax(z, axis=1)

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities with the illegal actions (``mask`` false/0) at exactly 0."""
        logits = self.logits(obs, mask if self.reads_mask else None).astype(np.float64)
        legal = np.asarray(mask).astype(bool)
        if not legal.any(axis=-1).all():
            raise ValueError("an action mask with no legal action")
        logits = np.where(legal, logits, -np.inf)
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=-1, keepdims=True)
        return p

    def n_parameters(self) -> int:
        return int(sum(w.size + b.size for w, b in zip(self.weights, self.biases)))

    def with_symmetry(self, symmetry: str | None) -> PolicyNetwork:
        """The same weights played averaged over ``symmetry`` (None: played plainly)."""
        return PolicyNetwork(self.weights, self.biases, self.activation, symmetry, self.inputs)


def logit_bound(weights: Sequence[np.ndarray], biases: Sequence[np.ndarray]) -> float:
    """An upper bound of every |logit| over all observations in [0, 1]: each layer's
    output is at most the sum of |weight| times its input bound plus |bias|, and ReLU
    and tanh do not grow it."""
    bound = 1.0
    with np.errstate(over="ignore"):
        for w, b in zip(weights, biases):
            rows = np.abs(w.astype(np.float64)).sum(axis=0) * bound + np.abs(b.astype(np.float64))
            bound = float(rows.max())
    return bound if np.isfinite(bound) else float("inf")
