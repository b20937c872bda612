"""Play one hand of Sixty-Six with an ONNX policy, run by onnxruntime (docs/onnx.md).

    python -m sixtysix_env.policy.onnx sixtysix-ppo-v4 -o v4.onnx
    python examples/onnx/play_hand.py v4.onnx --seed 3
    python examples/onnx/play_hand.py v4.onnx --seed 3 --check sixtysix-ppo-v4

The model plays seat 0 against ``--opponent`` (the heuristic by default) in
seat 1. Each of its decisions is the seat's view encoded as the environments
encode it (``encode_view``: float32 [349]; ``action_mask``: the 34 legal-move
flags), one ``session.run``, and the model's ``action`` output played. With
``--check POLICY`` each move is also asked of the numpy policy (a policy file
or shipped name) and the two are printed side by side.
"""

from __future__ import annotations

import argparse
import random
import sys

import numpy as np
import onnxruntime as ort

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import action_name
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import action_mask, encode_view


def load(path: str) -> ort.InferenceSession:
    """The model as an onnxruntime session (one thread: a decision is one small batch)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def onnx_move(session: ort.InferenceSession, view) -> tuple[int, np.ndarray]:
    """(the model's move, its masked logits) for one seat's view: a batch of one."""
    obs = encode_view(view)[None, :]  # float32 [1, 349]
    mask = action_mask(view).astype(bool)[None, :]  # bool [1, 34], true = legal
    logits, action = session.run(["logits", "action"], {"obs": obs, "mask": mask})
    return int(action[0]), logits[0]


def play_hand(model: str, seed: int = 0, opponent: str = "heuristic", check: str | None = None):
    """Play one hand; returns (lines to print, the hand's result, [(model's move, numpy's
    move or None)] for each of the model's decisions)."""
    session = load(model)
    name = session.get_modelmeta().custom_metadata_map.get("sixtysix.name", model)
    other = make_agent(opponent)
    numpy_agent = make_agent(check) if check else None
    state = new_hand(seed, dealer=1)
    rng = random.Random(seed)
    lines = [f"seat 0: {name} (ONNX), seat 1: {other.name}; seed {seed}"]
    moves = []
    while not state.is_terminal():
        seat = state.current_player()
        view = player_view(state, seat)
        if seat == 0:
            action, logits = onnx_move(session, view)
            legal = action_mask(view).astype(bool)
            best = ", ".join(
                f"{action_name(int(a))} {logits[a]:+.2f}"
                for a in np.argsort(-logits)[: min(3, int(legal.sum()))]
            )
            theirs = numpy_agent.act(view, rng) if numpy_agent else None
            moves.append((action, theirs))
            same = "" if theirs is None else f"   numpy: {action_name(theirs)}"
            lines.append(f"  {name}: {action_name(action):<9} (best logits: {best}){same}")
        else:
            action = other.act(view, rng)
            lines.append(f"  {other.name}: {action_name(action)}")
        state = state.apply(action)
    result = state.result
    lines.append(result.explain())
    return lines, result, moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an ONNX policy model (.onnx)")
    parser.add_argument("--seed", type=int, default=0, help="the deal (default 0)")
    parser.add_argument("--opponent", default="heuristic", help="seat 1's agent")
    parser.add_argument("--check", metavar="POLICY", help="also ask this numpy policy each move")
    args = parser.parse_args(argv)
    lines, _, moves = play_hand(args.model, args.seed, args.opponent, args.check)
    print("\n".join(lines))
    if args.check:
        same = sum(a == b for a, b in moves)
        print(f"the ONNX model and {args.check} chose alike in {same} of {len(moves)} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
