"""Positions of real play on the batched engine, for the policy tests that compare two ways of
computing a network's logits on them (test_onnx.py, test_argmax_alone.py)."""

from __future__ import annotations

import numpy as np


def batched_positions(n: int, lanes: int = 2048, seed: int = 0, rules: str = "altmisalti"):
    """The observations and masks of the first ``n`` decisions of hands on the batched engine
    under ``rules``."""
    from sixtysix_env.agents.batch import BatchedHeuristic, BatchedRandom
    from sixtysix_env.batched.engine import BatchedHands
    from sixtysix_env.game.rules import make_rules

    rng = np.random.default_rng(seed)
    deck = np.array(make_rules(rules).deck_cards)  # 24 cards, or 20 under the schnapsen presets
    hands = BatchedHands(lanes, rules)
    rand, heur = BatchedRandom(), BatchedHeuristic()
    rand.seed_lanes(lanes, rng)
    obs, masks, got = [], [], 0
    while got < n:
        hands.deal(
            None, np.stack([rng.permutation(deck) for _ in range(lanes)]), rng.integers(0, 2, lanes)
        )
        heuristic = rng.integers(0, 2, (lanes, 2)).astype(bool)  # who plays each seat
        while True:
            live = np.flatnonzero(~hands.over())
            if not len(live):
                break
            seats = hands.to_move(live)
            o, m = hands.observe(live, seats)
            obs.append(o.copy())
            masks.append(m.astype(bool))
            got += len(live)
            h = heuristic[live, seats]
            acts = np.empty(len(live), np.int64)
            if h.any():
                acts[h] = heur.act_batch(hands, live[h], seats[h])
            if (~h).any():
                acts[~h] = rand.act_batch(hands, live[~h], seats[~h])
            hands.apply(live, acts)
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]
