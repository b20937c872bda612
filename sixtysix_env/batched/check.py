"""The batched engine against the reference engine, deal by deal, move by move.

:func:`compare_random_hands` deals the same decks to both engines, plays the
same random legal moves in both, and at every decision compares the legal
actions, both seats' observations and masks (bit for bit) and, at the end,
the hand results and returns. The tests run it on 100,000 hands per preset;
``python -m sixtysix_env.batched.check --hands 1000000`` runs millions.
The compiled ``heuristic`` is checked against the agent it compiles by
:mod:`sixtysix_env.agents.check`, above the agents.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from ..game.engine import deal_from_deck, random_deck
from ..game.rules import PRESETS, make_rules
from ..game.view import player_view
from ..policy.observation import encode_with_mask
from .engine import BatchedHands


class Mismatch(AssertionError):
    """The two engines disagree; the message names the deal, the moves and what differs."""


def mismatch(what: str, deck, dealer, moves, detail: str) -> Mismatch:
    return Mismatch(
        f"{what} differs: deck {deck}, dealer {dealer}, moves {moves}: {detail}"
    )


def compare_random_hands(
    hands: int, rules="altmisalti", seed: int = 0, lanes: int = 1024,
    observe: str = "both", scores: tuple[int, int] | None = None,
) -> int:
    """Play ``hands`` random hands on both engines; returns the decisions compared.

    ``observe``: compare the observations and masks of ``"both"`` seats at every
    decision, of the ``"acting"`` seat only, or ``"none"`` (legal masks, results
    and returns are compared in every case). Raises :class:`Mismatch` at the first
    difference. ``scores`` deals every
    hand at that match score (the observation's score fields); None draws one
    per hand below the match target.
    """
    cfg = make_rules(rules)
    rng = random.Random(f"sixtysix-batched-check:{seed}:{cfg.name}")
    decisions = 0
    done = 0
    while done < hands:
        k = min(lanes, hands - done)
        done += k
        decks = [random_deck(rng, cfg) for _ in range(k)]
        dealers = [rng.randrange(2) for _ in range(k)]
        if scores is None:
            sc = [(rng.randrange(cfg.match_target), rng.randrange(cfg.match_target))
                  for _ in range(k)]
        else:
            sc = [tuple(scores)] * k
        states = [deal_from_deck(d, dealer=e, rules=cfg, match_score=s)
                  for d, e, s in zip(decks, dealers, sc)]
        moves: list[list[int]] = [[] for _ in range(k)]
        batch = BatchedHands(k, cfg)
        batch.deal(None, np.array(decks), np.array(dealers), np.array(sc))
        active = list(range(k))
        while active:
            lanes_arr = np.array(active, np.int64)
            masks = batch.legal_masks(lanes_arr)
            if observe != "none":
                _compare_observations(batch, lanes_arr, active, states, observe == "both",
                                      decks, dealers, moves)
            actions = []
            for j, i in enumerate(active):
                ref = states[i].legal_mask()
                if int(masks[j]) != ref:
                    raise mismatch("the legal mask", decks[i], dealers[i], moves[i],
                                f"batched {int(masks[j]):#x}, reference {ref:#x}")
                legal = states[i].legal_actions()
                a = legal[rng.randrange(len(legal))]
                actions.append(a)
                moves[i].append(a)
                states[i] = states[i].apply(a)
            decisions += len(active)
            batch.apply(lanes_arr, np.array(actions))
            active = _compare_ends(batch, lanes_arr, active, states, decks, dealers, moves)
    return decisions


def _compare_observations(batch: BatchedHands, lanes_arr, active: list[int], states: list,
                          both: bool, decks, dealers, moves) -> None:
    """The acting seat's observation and mask (and the other seat's too, with ``both``)
    in every active lane, against the reference engine's."""
    acting = batch.to_move(lanes_arr)
    for other in ((0, 1) if both else (0,)):
        seats = acting ^ other
        obs, m = batch.observe(lanes_arr, seats)
        for j, i in enumerate(active):
            seat = int(seats[j])
            ref_obs, ref_mask = encode_with_mask(player_view(states[i], seat))
            if not np.array_equal(obs[j], ref_obs) or not np.array_equal(m[j], ref_mask):
                bad = np.flatnonzero((obs[j] != ref_obs))
                raise mismatch(f"seat {seat}'s observation", decks[i], dealers[i],
                            moves[i], f"entries {bad.tolist()}: batched "
                            f"{obs[j][bad].tolist()}, reference "
                            f"{ref_obs[bad].tolist()}; masks "
                            f"{m[j].tolist()} / {ref_mask.tolist()}")


def _compare_ends(batch: BatchedHands, lanes_arr, active: list[int], states: list,
                  decks, dealers, moves) -> list[int]:
    """Whether each active lane's hand is over, and the result and returns of those that
    are, against the reference engine; returns the lanes still playing."""
    over = batch.over(lanes_arr)
    still = []
    for j, i in enumerate(active):
        ended = states[i].result is not None
        if bool(over[j]) != ended:
            raise mismatch("the end of the hand", decks[i], dealers[i], moves[i],
                        f"batched over={bool(over[j])}, reference over={ended}")
        if ended:
            got = batch.result(i)
            if got != states[i].result:
                raise mismatch("the hand result", decks[i], dealers[i], moves[i],
                            f"batched {got}, reference {states[i].result}")
            r = batch.returns(np.array([i, i]), np.array([0, 1]))
            if tuple(int(x) for x in r) != states[i].returns():
                raise mismatch("the returns", decks[i], dealers[i], moves[i],
                            f"batched {r.tolist()}, reference {states[i].returns()}")
        else:
            still.append(i)
    return still


def check_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The arguments both checks take: hands per preset, the presets, the seed."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("--hands", type=int, default=100_000, help="hands per preset")
    ap.add_argument("--rules", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    ap.add_argument("--seed", type=int, default=0)
    return ap


def main(argv: list[str] | None = None) -> None:
    ap = check_parser(
        "python -m sixtysix_env.batched.check",
        "Play random hands on the batched and the reference engine and compare every legal "
        "mask, observation and result.")
    ap.add_argument("--observe", choices=("both", "acting", "none"), default="both",
                    help="whose observations to compare at each decision (default both; "
                         "none compares masks, results and returns only, several times faster)")
    args = ap.parse_args(argv)
    for name in args.rules:
        t0 = time.perf_counter()
        n = compare_random_hands(args.hands, name, args.seed, observe=args.observe)
        print(f"{name}: {args.hands:,} hands, {n:,} decisions, identical "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
