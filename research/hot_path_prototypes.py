"""The hot path of a batched Sixty-Six in two technologies, side by side: numpy alone, numba.

This is the measurement that chose the batched engine's technology
(``docs/performance.md``, "Choosing the technology"). Both prototypes do the
same work, the part of a step that every environment step pays for:

* deal N hands (a shuffled deck per lane, six cards each, the trump card, the stock);
* each step: the legal cards of the seat to act (any card while the stock is
  open; follow suit, else trump, else anything once it is exhausted), a
  uniformly random legal card, the card played, the trick resolved (higher in
  the led suit or a trump wins), both seats drawing while the stock lasts;
* the acting seat's observation written into a preallocated float32 buffer
  (the four card planes hand, played by me, played by the opponent, lead, and
  the mask), a finished hand dealt anew in its lane.

Marriages, the exchange, the close and the scoring are left out of both: they
add the same kind of work to each. Run::

    python -m research.hot_path_prototypes            # N = 1024 and 8192
    python -m research.hot_path_prototypes --lanes 4096 --seconds 3

It prints the steps per second of each and the ratio.

numpy's BLAS runs on one thread (``OPENBLAS_NUM_THREADS=1`` and the like, set before
numpy is imported); it prints how long it took as it ends, on stderr.
"""

from __future__ import annotations

import os
import sys
import time

# numpy's BLAS on one thread before numpy is imported (sixtysix_env.util.scripts says why).
_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread()

import argparse

import numpy as np

SUIT_MASK = np.array([0x3F << (6 * s) for s in range(4)], np.int64)
HIGHER = np.array([int(SUIT_MASK[c // 6]) & ~((1 << (c + 1)) - 1) for c in range(24)], np.int64)
POINTS = np.array([(0, 2, 3, 4, 10, 11)[c % 6] for c in range(24)], np.int64)
OBS = 24 * 5
BIT = np.int64(1) << np.arange(24, dtype=np.int64)


# -- numpy alone: every lane advanced by array operations, masks instead of branches ----


class NumpyGames:
    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.hand = np.zeros((n, 2), np.int64)
        self.played = np.zeros((n, 2), np.int64)
        self.pts = np.zeros((n, 2), np.int64)
        self.stock = np.zeros((n, 12), np.int64)
        self.pos = np.zeros(n, np.int64)
        self.trump = np.zeros(n, np.int64)
        self.to_move = np.zeros(n, np.int64)
        self.lead = np.full(n, -1, np.int64)
        self.obs = np.zeros((n, OBS), np.float32)
        self.lanes = np.arange(n)
        self.deal(np.ones(n, bool))

    def deal(self, which: np.ndarray) -> None:
        k = int(which.sum())
        if not k:
            return
        decks = np.argsort(self.rng.random((k, 24)), axis=1)
        bits = BIT[decks]
        self.hand[which, 0] = bits[:, 0:6].sum(1)
        self.hand[which, 1] = bits[:, 6:12].sum(1)
        self.stock[which] = decks[:, 12:24]
        self.trump[which] = decks[:, 12] // 6
        self.pos[which] = 1
        self.played[which] = 0
        self.pts[which] = 0
        self.to_move[which] = 0
        self.lead[which] = -1

    def legal(self) -> np.ndarray:
        lanes = self.lanes
        p = self.to_move
        hand = self.hand[lanes, p]
        strict = self.pos >= 12
        following = self.lead >= 0
        lead = np.where(following, self.lead, 0)
        suit = hand & SUIT_MASK[lead // 6]
        trumps = hand & SUIT_MASK[self.trump]
        follow = np.where(suit != 0, suit, np.where(trumps != 0, trumps, hand))
        return np.where(strict & following, follow, hand)

    def step(self) -> None:
        lanes = self.lanes
        legal = self.legal()
        bits = (legal[:, None] & BIT) != 0
        score = np.where(bits, self.rng.random((self.n, 24)), -1.0)
        card = score.argmax(1)
        cbit = BIT[card]
        p = self.to_move
        self.hand[lanes, p] &= ~cbit
        self.played[lanes, p] |= cbit
        leading = self.lead < 0
        lead = np.where(leading, card, self.lead)
        # The trick, where this card answered a lead.
        ans = ~leading
        beats = (HIGHER[lead] >> card & 1) | ((card // 6 == self.trump) & (lead // 6 != self.trump))
        w = np.where(beats.astype(bool), p, 1 - p)
        self.pts[lanes, w] += np.where(ans, POINTS[lead] + POINTS[card], 0)
        draw = ans & (self.pos < 12)
        pos = np.minimum(self.pos, 11)
        self.hand[lanes, w] |= np.where(draw, BIT[self.stock[lanes, pos]], 0)
        pos2 = np.where(self.pos < 11, self.pos + 1, 0)  # the last partner: the trump card
        self.hand[lanes, 1 - w] |= np.where(draw, BIT[self.stock[lanes, pos2]], 0)
        self.pos += np.where(draw, 2, 0)
        self.lead = np.where(leading, card, -1)
        self.to_move = np.where(leading, 1 - p, w)
        over = ans & ((self.hand[:, 0] | self.hand[:, 1]) == 0)
        self.deal(over)
        self.observe()

    def observe(self) -> None:
        lanes = self.lanes
        p = self.to_move
        planes = np.stack(
            [self.hand[lanes, p], self.played[lanes, p], self.played[lanes, 1 - p],
             np.where(self.lead >= 0, BIT[np.maximum(self.lead, 0)], 0), self.legal()], axis=1
        )
        self.obs[:] = ((planes[:, :, None] & BIT) != 0).reshape(self.n, OBS)


# -- numba: one compiled loop over the lanes, each lane the scalar engine's code ----------


def make_numba():
    import numba

    # The batched engine's own xorshift64* (a generator per lane, so the games do not depend
    # on the lane order) and bit count.
    from sixtysix_env.batched.kernels import _popcount as bin_count
    from sixtysix_env.batched.kernels import next_random as rand

    @numba.njit(cache=True)
    def deal(i, st, rng, stock):
        deck = np.arange(24)
        for k in range(23, 0, -1):
            j = rand(rng, i) % np.uint64(k + 1)
            deck[k], deck[j] = deck[j], deck[k]
        h0 = 0
        h1 = 0
        for k in range(6):
            h0 |= 1 << deck[k]
            h1 |= 1 << deck[6 + k]
        for k in range(12):
            stock[i, k] = deck[12 + k]
        st[i, 0] = h0
        st[i, 1] = h1
        st[i, 2] = 0
        st[i, 3] = 0
        st[i, 4] = 0
        st[i, 5] = 0
        st[i, 6] = 1  # stock position
        st[i, 7] = deck[12] // 6  # trump suit
        st[i, 8] = 0  # to move
        st[i, 9] = -1  # lead

    @numba.njit(cache=True)
    def legal(i, st):
        p = st[i, 8]
        hand = st[i, p]
        lead = st[i, 9]
        if lead < 0 or st[i, 6] < 12:
            return hand
        f = hand & SUIT_MASK[lead // 6]
        if f:
            return f
        t = hand & SUIT_MASK[st[i, 7]]
        return t if t else hand

    @numba.njit(cache=True)
    def steps(st, rng, stock, obs, n_steps):
        n = st.shape[0]
        for _ in range(n_steps):
            for i in range(n):
                m = legal(i, st)
                k = rand(rng, i) % np.uint64(bin_count(m))
                c = 0
                while True:  # the k-th set bit
                    if m >> c & 1:
                        if k == 0:
                            break
                        k -= np.uint64(1)
                    c += 1
                p = st[i, 8]
                st[i, p] &= ~(1 << c)
                st[i, 2 + p] |= 1 << c
                lead = st[i, 9]
                if lead < 0:
                    st[i, 9] = c
                    st[i, 8] = 1 - p
                else:
                    ts = st[i, 7]
                    beats = (HIGHER[lead] >> c & 1) or (c // 6 == ts and lead // 6 != ts)
                    w = p if beats else 1 - p
                    st[i, 4 + w] += POINTS[lead] + POINTS[c]
                    pos = st[i, 6]
                    if pos < 12:
                        st[i, w] |= 1 << stock[i, pos]
                        # the last face-down card's partner is the face-up trump (stock[0])
                        st[i, 1 - w] |= 1 << stock[i, pos + 1 if pos < 11 else 0]
                        st[i, 6] = pos + 2
                    st[i, 9] = -1
                    st[i, 8] = w
                    if (st[i, 0] | st[i, 1]) == 0:
                        deal(i, st, rng, stock)
                q = st[i, 8]
                lead = st[i, 9]
                planes = (st[i, q], st[i, 2 + q], st[i, 3 - q], (1 << lead) if lead >= 0 else 0,
                          legal(i, st))
                for f in range(5):
                    x = planes[f]
                    for b in range(24):
                        obs[i, 24 * f + b] = x >> b & 1

    class NumbaGames:
        def __init__(self, n: int, seed: int) -> None:
            self.st = np.zeros((n, 10), np.int64)
            self.stock = np.zeros((n, 12), np.int64)
            self.rng = np.random.default_rng(seed).integers(1, 2**63, n).astype(np.uint64)
            self.obs = np.zeros((n, OBS), np.float32)
            for i in range(n):
                deal(i, self.st, self.rng, self.stock)

        def step(self) -> None:
            steps(self.st, self.rng, self.stock, self.obs, 1)

    return NumbaGames


def rate(games, n: int, seconds: float) -> float:
    games.step()  # warm (and the compile, for numba)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        games.step()
        steps += n
    return steps / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lanes", type=int, nargs="+", default=[1024, 8192])
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args(argv)
    numba_games = make_numba()
    print(f"{'lanes':>6} {'numpy steps/s':>14} {'numba steps/s':>14} {'numba/numpy':>11}")
    for n in args.lanes:
        a = rate(NumpyGames(n, 0), n, args.seconds)
        b = rate(numba_games(n, 0), n, args.seconds)
        print(f"{n:>6} {a:>14,.0f} {b:>14,.0f} {b / a:>10.1f}x")


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    main()
