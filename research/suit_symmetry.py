"""A policy averaged over groups of suit renamings, head to head on the same paired deals.

    python -m research.suit_symmetry sixtysix-ppo-v2 --groups V4 C4 A4 S4 \\
        --deals 3000 --seed 401 --workers 2

The rules treat the four suits alike, so a network's logits can be averaged
over renamings of the suits (``PolicyNetwork(symmetry="suits")`` averages
over all 24, the group S4). This script builds the policy averaged over a
smaller group too and plays a round robin of them and the plain policy
(``sixtysix eval``'s paired deals, seeds and table):

* ``none``: the plain policy;
* ``V4``: the Klein four-group (the identity and the three double swaps);
* ``C4``: the cyclic renamings C->D->H->S->C and their powers;
* ``A4``: the 12 even renamings;
* ``S4``: all 24 (the same as ``symmetry="suits"``).

Each averaged network evaluates one forward pass per renaming, as one batch.
Set ``OPENBLAS_NUM_THREADS=1`` with ``--workers 2`` on 2 cores, or the
workers' BLAS threads fight over them (the figures do not depend on it).

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
import itertools

import numpy as np

from sixtysix_env.agents import make_agent
from sixtysix_env.evaluation import evaluate
from sixtysix_env.evaluation.report import plain_table
from sixtysix_env.game.actions import suit_relabelled_actions
from sixtysix_env.policy import PolicyAgent, PolicyNetwork
from sixtysix_env.policy.observation import suit_relabelling


def _parity(p: tuple[int, ...]) -> int:
    return sum(p[i] > p[j] for i in range(4) for j in range(i + 1, 4)) % 2


S4 = list(itertools.permutations(range(4)))
GROUPS = {
    "V4": [(0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0)],
    "C4": [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)],
    "A4": [p for p in S4 if _parity(p) == 0],
    "S4": S4,
}


class GroupAveraged(PolicyNetwork):
    """A plain network's logits averaged over the renamings ``perms`` (picklable)."""

    def __init__(self, net: PolicyNetwork, perms: list[tuple[int, ...]]) -> None:
        super().__init__(net.weights, net.biases, net.activation)
        self.obs_maps = np.stack([suit_relabelling(p) for p in perms])
        self.act_maps = np.array([suit_relabelled_actions(p) for p in perms], dtype=np.intp)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float32)
        k = len(self.obs_maps)
        out = self.layer_logits(x[..., self.obs_maps].reshape(-1, x.shape[-1]))
        out = out.reshape(*x.shape[:-1], k, -1)
        back = np.take_along_axis(out, np.broadcast_to(self.act_maps, out.shape), axis=-1)
        return back.mean(axis=-2, dtype=np.float32)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("policy", help="a plain policy file or shipped policy name")
    p.add_argument("--groups", nargs="+", default=["V4", "S4"], choices=[*GROUPS, "none"])
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    base = make_agent(args.policy)
    net = getattr(base, "network", None)
    if net is None or net.symmetry is not None:
        p.error(f"{args.policy!r} is not a plain policy (a policy file without a symmetry)")
    agents = []
    for g in args.groups:
        if g == "none":
            agents.append(base)
        else:
            agents.append(PolicyAgent(GroupAveraged(net, GROUPS[g]), name=f"{args.policy}-{g}"))
    if "none" not in args.groups:
        agents.append(base)
    res = evaluate(agents, deals=args.deals, seed=args.seed, workers=args.workers)
    print(plain_table(res))
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
