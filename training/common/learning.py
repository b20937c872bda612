"""What makes learning faster, written once for both training backends.

Two options of the training config (``suit_augment``, ``privileged_critic``)
change what the learner's network is fed during training, never what an
exported policy sees:

* **Suit renaming** (``suit_augment``): the four suits are interchangeable in
  the rules (the trump suit is the one the deal turns up), so a deal with its
  suits renamed is the same game. Each training episode draws one of the 24
  renamings and the learner sees that episode renamed: its observation and
  action mask through the index maps of
  :func:`sixtysix_env.policy.observation.suit_relabelling` and
  :func:`sixtysix_env.game.actions.suit_relabelled_actions`, its chosen action
  mapped back before the engine applies it. The network so meets every deal
  under all 24 names instead of learning 24 copies of one game.
* **A privileged critic** (``privileged_critic``): the value network also
  sees the hidden cards (the opponent's hand and the face-down stock in
  drawing order), which removes most of the variance of a hand's outcome
  from its estimate (asymmetric actor-critic; e.g. Pinto et al. 2017). The
  actor, and so every exported policy file, reads the information set only:
  the first ``OBS_SIZE`` entries of the training observation.

This module is numpy only: the SB3 games (``sb3/vec_env.py``), the cloning data
(``common/bc.py``) and the RLlib environment wrapper (``rllib/league.py``) all use
:class:`SuitRenamer` and :func:`privileged_features`.
"""

from __future__ import annotations

import itertools

import numpy as np

from sixtysix_env.game.actions import NUM_ACTIONS, suit_relabelled_actions
from sixtysix_env.game.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from sixtysix_env.policy.observation import OBS_SIZE, suit_relabelling

#: The hidden-card features a privileged critic adds, each indexed by card id:
#: the opponent's hand, the face-down stock (as a set), and the next two cards
#: drawn from it (the trick's winner draws the first, the loser the second).
PRIVILEGED_FIELDS = ("opp_hand", "stock", "next_draw", "second_draw")
PRIV_SIZE = NUM_CARDS * len(PRIVILEGED_FIELDS)  # 96

#: Every renaming of the suits, the identity first (``perm[s]``: suit s's new name).
PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(NUM_SUITS)))


def privileged_features(state, seat: int) -> np.ndarray:
    """The hidden cards of a position as seen from ``seat``'s side (``PRIV_SIZE`` floats).

    ``state`` is an engine :class:`~sixtysix_env.game.engine.State`. Only a critic
    may read these: they are exactly what the seat's information set hides.
    """
    out = np.zeros(PRIV_SIZE, np.float32)
    out[:NUM_CARDS] = (state.hand(1 - seat) >> _CARD_IDS) & 1
    stock = state.stock_cards
    if stock:
        out[NUM_CARDS + np.asarray(stock)] = 1.0
        out[2 * NUM_CARDS + stock[0]] = 1.0
        if len(stock) > 1:
            out[3 * NUM_CARDS + stock[1]] = 1.0
    return out


_CARD_IDS = np.arange(NUM_CARDS, dtype=np.int64)


def _card_map(perm: tuple[int, ...], blocks: int) -> np.ndarray:
    """Index map renaming the suits in ``blocks`` consecutive card-indexed fields."""
    src = np.arange(blocks * NUM_CARDS)
    for b in range(blocks):
        start = b * NUM_CARDS
        for s in range(NUM_SUITS):
            for r in range(NUM_RANKS):
                src[start + perm[s] * NUM_RANKS + r] = start + s * NUM_RANKS + r
    return src


class SuitRenamer:
    """The index maps of the 24 renamings of the suits, and a seeded draw of one per episode.

    For renaming ``k``: ``obs(x, k)`` is the renamed observation (``OBS_SIZE``
    entries, or ``OBS_SIZE + PRIV_SIZE`` with the privileged features after
    them), ``mask(m, k)`` the renamed action mask, and ``original_action(b, k)``
    the engine's action for the renamed action ``b`` the learner chose.
    Renaming 0 is the identity. With ``enabled`` false, :meth:`draw` always
    gives 0, so the same code path serves a run without augmentation.
    """

    def __init__(self, enabled: bool, seed: int = 0) -> None:
        self.enabled = bool(enabled)
        self.reseed(seed)
        n = len(PERMUTATIONS)
        self.obs_maps = np.stack([suit_relabelling(p) for p in PERMUTATIONS])
        self.priv_maps = np.stack(
            [_card_map(p, len(PRIVILEGED_FIELDS)) + OBS_SIZE for p in PERMUTATIONS]
        )
        self.full_maps = np.concatenate([self.obs_maps, self.priv_maps], axis=1)
        renamed = np.array([suit_relabelled_actions(p) for p in PERMUTATIONS], np.int64)
        # inverse[k][b] = the original action whose renaming under k is b
        self.inverse = np.zeros((n, NUM_ACTIONS), np.int64)
        for k in range(n):
            self.inverse[k][renamed[k]] = np.arange(NUM_ACTIONS)
        self.renamed = renamed

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng([int(seed) % 2**63, 0x5A17])

    def draw(self) -> int:
        """The renaming of the next episode (0, the identity, when not enabled)."""
        return int(self.rng.integers(len(PERMUTATIONS))) if self.enabled else 0

    def obs(self, x: np.ndarray, k: int) -> np.ndarray:
        if k == 0:
            return x
        maps = self.obs_maps if x.shape[-1] == OBS_SIZE else self.full_maps
        return x[..., maps[k]]

    def mask(self, m: np.ndarray, k: int) -> np.ndarray:
        return m if k == 0 else m[..., self.inverse[k]]

    def original_action(self, b: int, k: int) -> int:
        return int(b) if k == 0 else int(self.inverse[k][int(b)])


__all__ = [
    "PERMUTATIONS",
    "PRIVILEGED_FIELDS",
    "PRIV_SIZE",
    "SuitRenamer",
    "privileged_features",
]
