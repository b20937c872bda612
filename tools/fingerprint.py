"""Print fingerprints of the package's behaviour, to compare two versions of the code.

    python tools/fingerprint.py
    PYTHONPATH=/path/to/other/checkout python tools/fingerprint.py   # the other version

Each line is a short sha256 of something a refactoring must not change:

* ``logits NAME``: each shipped policy's logits on 64 fixed observations;
* ``games``: the moves of ``random``, ``heuristic`` and ``sixtysix-ppo`` in 300
  hands each against the heuristic, every preset, fixed seeds;
* ``sentences``: every hand result's explanation (in the default voice and the
  play session's) and every public event's sentence over 3,000 random hands.

Two versions print the same lines if and only if these agree (up to the hash).
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

from sixtysix_env import new_hand
from sixtysix_env.agents import make_agent
from sixtysix_env.game.render import describe_event
from sixtysix_env.game.view import player_view
from sixtysix_env.play.session import explain_result
from sixtysix_env.policy import read_policy
from sixtysix_env.policy.observation import OBS_SIZE
from sixtysix_env.policy.shipped import shipped_policies


def _short(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def logits() -> list[str]:
    obs = (np.random.default_rng(0).random((64, OBS_SIZE)) < 0.3).astype(np.float32)
    out = []
    for name, shipped in shipped_policies().items():
        network, _ = read_policy(shipped.path)
        out.append(f"logits {name} {_short(network.logits(obs).tobytes())}")
    return out


#: The presets the ``games`` line plays (those of the first fingerprinted versions).
_PRESETS = ("altmisalti", "pagat66", "santase")


def games() -> str:
    moves = []
    # The presets named, not PRESETS: a version that adds a preset prints the same line.
    for preset in _PRESETS:
        for spec in ("random", "heuristic", "sixtysix-ppo"):
            agents = (make_agent(spec), make_agent("heuristic"))
            rng = random.Random(f"{preset}/{spec}")
            for i in range(300):
                state = new_hand(i, rules=preset)
                while not state.is_terminal():
                    seat = state.current_player()
                    action = agents[seat].act(player_view(state, seat), rng)
                    moves.append(action)
                    state = state.apply(action)
    return f"games {_short(bytes(moves))}"


def sentences() -> str:
    out = []
    rng = random.Random(5)
    for i in range(3000):
        state = new_hand(i)
        while not state.is_terminal():
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
        out.append(state.result.explain())
        out.append(explain_result(state.result))
        out.extend(describe_event(e) for e in state.events())
    return f"sentences {len(out)} {_short(chr(10).join(out).encode())}"


def main() -> int:
    for line in (*logits(), games(), sentences()):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
