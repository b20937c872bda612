"""Test positions for a port: a deal, the moves so far, the observation, the mask, the move.

    python examples/onnx/positions.py            # rewrites examples/onnx/positions.json

An engine in another language that feeds an ONNX policy (docs/onnx.md) can
check itself against ``positions.json``: deal ``deck`` (card codes, top card
first, as ``deal_from_deck``: 3 to the non-dealer, 3 to the dealer, 3 and 3
again, the 13th turned up as trump, the rest the stock) with ``dealer``, play
``history``, encode the view of ``seat`` and compare with ``obs`` and
``mask``; then run the model of ``policy`` and compare with ``action`` (the
numpy policy's move; every position is chosen with its best logit at least
``MARGIN`` above the next legal one, so that no runtime's rounding can turn it)
and ``logits`` (``null`` where illegal). ``play.mjs`` and ``Program.cs`` do the
second half. ``tests/policy/test_onnx.py`` checks that the file is what this
script writes.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, NUM_ACTIONS, action_name
from sixtysix_env.game.cards import card_code
from sixtysix_env.game.engine import deal_from_deck, random_deck
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import read_policy
from sixtysix_env.policy.observation import OBS_SIZE, OBS_VERSION, action_mask, encode_view
from sixtysix_env.policy.shipped import shipped_policies

HERE = Path(__file__).resolve().parent
OUT = HERE / "positions.json"
POLICY = "sixtysix-ppo-v4"
RULES = "altmisalti"
MARGIN = 0.01

#: What each kept position shows, tested in this order on each decision.
KINDS = {
    "exchange legal": lambda v, m, o: m[EXCHANGE],
    "leading, stock open, close legal": lambda v, m, o: m[CLOSE],
    "marriage legal": lambda v, m, o: m[FIRST_MARRIAGE:EXCHANGE].any(),
    "answering a lead, stock open": lambda v, m, o: v.lead_card is not None and not v.is_strict,
    "answering a lead, stock closed": lambda v, m, o: v.lead_card is not None and v.is_closed,
    "answering a lead, stock drawn out": lambda v, m, o: v.lead_card is not None and v.is_exhausted,
    "leading, stock drawn out": lambda v, m, o: v.lead_card is None and v.is_exhausted,
}


def _number(x: float) -> float | int:
    """0 and 1 as ints, anything else as the float32 value (exact back in float32)."""
    return int(x) if x in (0.0, 1.0) else float(x)


def positions() -> list[dict]:
    """One position of each kind in :data:`KINDS`, from seeded hands of heuristic against
    random play, each a clear decision (at least two legal moves, a margin) of the policy."""
    network, _ = read_policy(shipped_policies()[POLICY].path)
    players = [make_agent("heuristic"), make_agent("random")]
    found: dict[str, dict] = {}
    seed = 0
    while len(found) < len(KINDS):
        seed += 1
        deck = random_deck(seed)
        dealer = seed % 2
        state = deal_from_deck(deck, dealer, RULES)
        rng = random.Random(seed)
        history: list[str] = []
        while not state.is_terminal():
            seat = state.current_player()
            view = player_view(state, seat)
            obs, mask = encode_view(view), action_mask(view).astype(bool)
            kind = next((k for k, test in KINDS.items() if test(view, mask, obs)), None)
            if kind is not None and kind not in found and mask.sum() > 1:
                logits = network.logits(obs)  # one observation, as PolicyAgent computes it
                z = np.where(mask, logits, -np.inf)
                order = np.argsort(-z)
                if z[order[0]] - z[order[1]] >= MARGIN:
                    found[kind] = {
                        "shows": kind,
                        "rules": RULES,
                        "dealer": dealer,
                        "deck": [card_code(c) for c in deck],
                        "history": list(history),
                        "seat": seat,
                        "obs": [_number(x) for x in obs.tolist()],
                        "mask": [int(x) for x in mask],
                        "legal": [action_name(int(a)) for a in np.flatnonzero(mask)],
                        "action": int(order[0]),
                        "action_name": action_name(int(order[0])),
                        "logits": [float(x) if ok else None for x, ok in zip(logits, mask)],
                    }
            action = players[seat].act(view, rng)
            history.append(action_name(action))
            state = state.apply(action)
    return [found[k] for k in KINDS]


def document() -> dict:
    return {
        "about": "test positions for an engine that feeds a sixtysix ONNX policy (docs/onnx.md); "
        "written by examples/onnx/positions.py",
        "obs_version": OBS_VERSION,
        "obs_size": OBS_SIZE,
        "num_actions": NUM_ACTIONS,
        "policy": POLICY,
        "convert": f"python -m sixtysix_env.policy.onnx {POLICY} -o v4.onnx",
        "positions": positions(),
    }


def text() -> str:
    """The file's text: one line per field (an array on one line), the same on every run."""

    def block(d: dict, indent: str) -> list[str]:
        items = [f"{indent} {json.dumps(k)}: {json.dumps(v)}" for k, v in d.items()]
        return [",\n".join(items)]

    doc = document()
    found = doc.pop("positions")
    head = block(doc, "")[0]
    body = ",\n".join("  {\n" + block(p, "  ")[0] + "\n  }" for p in found)
    return "{\n" + head + ',\n "positions": [\n' + body + "\n ]\n}\n"


def main() -> int:
    OUT.write_text(text())
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
