"""What an agent of your own costs per decision (docs/own-agent.md).

    python speed/own_agents.py [--hands 200] [--seed 0] [--hidden 128x128]
        [--tianshou dqn.pt] [--torchrl ppo.pt] [--rllib rllib_checkpoint]

Times, on the same positions, each example agent of ``examples/own_agents/``
(its ``act``: the observation from the view, the network, the masked
argmax), the library's own call on the same observation (Tianshou's
``policy(batch)``, TorchRL's ``ProbabilisticActor`` with the deterministic
mode, RLlib's ``forward_inference`` and its action distribution), the same
network exported to a numpy policy file (each example's ``to_policy_file``),
and, for scale, the observation alone, the heuristic and the shipped
``sixtysix-ppo``. Without a file, each library gets an untrained network of
``--hidden`` sizes (what a decision costs does not depend on the weights).
A library this interpreter cannot import is skipped with a line saying so
(Ray lives in its own virtual environment: run the script with that one's
Python for the RLlib rows).

The positions are every decision of ``--hands`` hands of the heuristic
against itself (single legal actions included, as ``sixtysix eval`` counts
them). Figures depend on the machine and its load: the header says which
machine, and run it on an otherwise idle core.

numpy's BLAS on one thread (torch's threads as they are) and how long it took, on stderr:
:mod:`sixtysix_env.util.scripts`.
"""

from __future__ import annotations

import os
import sys
import time

_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread(keep_torch_threads=True)

import argparse
import importlib
import random
import statistics
import tempfile
from collections.abc import Callable

from sixtysix_env import new_hand, player_view
from sixtysix_env.agents import HeuristicAgent, make_agent
from sixtysix_env.policy.observation import OBS_SIZE, observe_view
from sixtysix_env.util.machine import machine


def positions(hands: int, seed: int) -> list:
    """Every view to act in ``hands`` hands of the heuristic against itself."""
    rng = random.Random(seed)
    agent = HeuristicAgent()
    views = []
    for i in range(hands):
        state = new_hand(rng, dealer=i % 2)
        while not state.is_terminal():
            view = player_view(state, state.current_player())
            views.append(view)
            state = state.apply(agent.act(view, rng))
    return views


def time_calls(call: Callable[[object], object], views: list, repeat: int = 3) -> list[float]:
    """Microseconds of ``call(view)`` per view: the best of ``repeat`` passes, view by view."""
    for view in views[:50]:  # warm up (first calls allocate, caches fill)
        call(view)
    best = [float("inf")] * len(views)
    for _ in range(repeat):
        for i, view in enumerate(views):
            t0 = time.perf_counter()
            call(view)
            best[i] = min(best[i], (time.perf_counter() - t0) * 1e6)
    return best


def row(label: str, us: list[float]) -> str:
    s = sorted(us)
    return (f"{label:<52} {statistics.median(s):9.1f} {statistics.fmean(s):9.1f} "
            f"{s[int(0.9 * (len(s) - 1))]:9.1f}")


def _imports(*modules: str) -> str | None:
    """None if every module imports, else why not."""
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError as e:
            return f"{m} is not installed here ({e})"
    return None


def example_rows(label: str, agent, library_call: str, library: Callable[[object], object],
                 to_policy_file: Callable[[str, str], None], path: str, tmp: str):
    """A library's rows, each a (label, call): its example agent's ``act``, the library's own
    call (``library``, named ``library_call``) and the network exported to a policy file."""
    npz = os.path.join(tmp, f"{label.lower()}.npz")
    to_policy_file(path, npz)
    rng = random.Random(0)
    yield f"{label}: {type(agent).__name__}.act", lambda v: agent.act(v, rng)
    yield f"{label}: {library_call}", library
    exported = make_agent(npz)
    yield f"{label}: exported .npz (numpy, no torch)", lambda v: exported.act(v, rng)


def tianshou_rows(path: str | None, hidden: list[int], tmp: str):
    import numpy as np
    import torch
    from gymnasium.spaces import Discrete
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.data import Batch
    from tianshou.utils.net.common import Net

    from examples.own_agents.tianshou_agent import TianshouAgent, to_policy_file

    if path is None:
        net = Net(state_shape=OBS_SIZE, action_shape=34, hidden_sizes=hidden)
        path = os.path.join(tmp, "dqn.pt")
        torch.save(DiscreteQLearningPolicy(model=net, action_space=Discrete(34)).state_dict(), path)
    agent = TianshouAgent(path=path)
    policy = agent.policy

    @torch.no_grad()
    def library(view):
        obs = observe_view(view)
        batch = Batch(obs=Batch(obs=obs["observation"][None],
                                mask=obs["action_mask"][None].astype(bool)), info=Batch())
        return int(np.asarray(policy(batch).act)[0])

    yield from example_rows("Tianshou", agent, "policy(Batch(obs, mask)).act", library,
                            to_policy_file, path, tmp)


def torchrl_rows(path: str | None, hidden: list[int], tmp: str):
    import torch
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torchrl.envs.utils import ExplorationType, set_exploration_type
    from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

    from examples.own_agents.torchrl_agent import TorchRLAgent, to_policy_file

    if path is None:
        path = os.path.join(tmp, "ppo.pt")
        torch.save(MLP(in_features=OBS_SIZE, out_features=34, num_cells=hidden).state_dict(), path)
    agent = TorchRLAgent(path=path)
    actor = ProbabilisticActor(
        TensorDictModule(agent.net, in_keys=[("observation", "observation")], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
        distribution_class=MaskedCategorical)

    @torch.no_grad()
    def library(view):
        obs = observe_view(view)
        td = TensorDict({"observation": {"observation": torch.from_numpy(obs["observation"])},
                         "action_mask": torch.from_numpy(obs["action_mask"]).bool()})
        with set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(actor(td)["action"])

    yield from example_rows("TorchRL", agent, "ProbabilisticActor (deterministic)", library,
                            to_policy_file, path, tmp)


def rllib_rows(path: str | None, hidden: list[int], tmp: str):
    import gymnasium
    import numpy as np
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from examples.own_agents.rllib_agent import RLlibAgent, to_policy_file
    from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY

    if path is None:
        space = gymnasium.spaces.Dict({
            OBS_KEY: gymnasium.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, (34,), np.float32),
        })
        module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=space,
                              action_space=gymnasium.spaces.Discrete(34),
                              model_config={"fcnet_hiddens": hidden,
                                            "vf_share_layers": False}).build()
        path = os.path.join(tmp, "rllib_module")
        module.save_to_path(os.path.abspath(path))
    agent = RLlibAgent(path=path)
    dist_cls = agent.module.get_inference_action_dist_cls()

    @torch.no_grad()
    def library(view):
        obs = observe_view(view)
        out = agent.module.forward_inference({Columns.OBS: {
            OBS_KEY: torch.from_numpy(obs["observation"])[None],
            MASK_KEY: torch.from_numpy(obs["action_mask"].astype(np.float32))[None]}})
        dist = dist_cls.from_logits(out[Columns.ACTION_DIST_INPUTS]).to_deterministic()
        return int(dist.sample()[0])

    yield from example_rows("RLlib", agent, "forward_inference + to_deterministic()", library,
                            to_policy_file, path, tmp)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hidden", default="128x128", help="untrained networks' hidden sizes")
    p.add_argument("--tianshou", help="a saved Tianshou policy (torch.save of its state dict)")
    p.add_argument("--torchrl", help="a saved TorchRL MLP (torch.save of its state dict)")
    p.add_argument("--rllib", help="an RLlib checkpoint folder (algo.save_to_path)")
    args = p.parse_args()
    hidden = [int(n) for n in args.hidden.split("x")]

    views = positions(args.hands, args.seed)
    torch_threads = "-"
    try:
        import torch

        torch_threads = str(torch.get_num_threads())
    except ImportError:
        pass
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}; "
          f"torch threads {torch_threads}")
    print(f"{len(views)} decisions of {args.hands} hands (heuristic vs heuristic, seed "
          f"{args.seed}); untrained networks {args.hidden} unless a file is given; "
          "microseconds per decision, best of 3 passes")
    print(f"{'':<52} {'median':>9} {'mean':>9} {'p90':>9}")
    rng = random.Random(0)
    heuristic = HeuristicAgent()
    shipped = make_agent("sixtysix-ppo")
    print(row("observation alone (observe_view)", time_calls(observe_view, views)))
    print(row("heuristic", time_calls(lambda v: heuristic.act(v, rng), views)))
    print(row("shipped sixtysix-ppo (.npz)", time_calls(lambda v: shipped.act(v, rng), views)))
    libraries = [
        ("Tianshou", ("tianshou", "torch"), tianshou_rows, args.tianshou),
        ("TorchRL", ("torchrl", "tensordict", "torch"), torchrl_rows, args.torchrl),
        ("RLlib", ("ray.rllib", "torch"), rllib_rows, args.rllib),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for label, modules, rows, path in libraries:
            missing = _imports(*modules)
            if missing:
                print(f"{label}: skipped, {missing}")
                continue
            for name, call in rows(path, hidden, tmp):
                print(row(name, time_calls(call, views)))


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    main()
