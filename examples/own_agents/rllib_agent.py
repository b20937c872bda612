r"""An RLlib checkpoint as an agent (docs/own-agent.md).

    sixtysix eval examples.own_agents.rllib_agent:RLlibAgent:path=rllib_checkpoint \
        heuristic --deals 100

``path`` is a folder ``algo.save_to_path(...)`` wrote (an ``Algorithm``
trained on :func:`sixtysix_env.env.rllib.rllib_env`, as in docs/ecosystem.md's
RLlib recipe), or one RLModule's own checkpoint folder inside it
(``learner_group/learner/rl_module/<module>``). ``module`` names the module
to play where the checkpoint holds several (the recipe's one is ``shared``).
The agent hands the module the observation the adapter gives RLlib
(``observations``: the 349 features, ``action_mask`` as floats), calls its
``forward_inference`` (which masks the illegal actions) and plays the
argmax: the module's greedy action
(``to_deterministic()`` of its action distribution), as
tests/training/test_own_agent_rllib.py checks.

``python -m examples.own_agents.rllib_agent rllib_checkpoint rllib.npz`` writes
the module's actor (its encoder MLP and ``pi`` head; the value network is
left out) as a numpy policy file (:mod:`sixtysix_env.policy`), which plays
the same moves with numpy alone, through the project's own RLlib export
(:func:`sixtysix_training.rllib.weights.network_from_state`). A run of the
project's RLlib backend (``sixtysix train --backend rllib``) needs none of
this: its policy is a numpy file already (``sixtysix export RUN -o
policy.npz``, docs/rllib.md).

An RLlib checkpoint is a set of pickles: load only the ones you trust.
"""

from __future__ import annotations

import argparse
import os
import random

import torch
from ray.rllib.core.rl_module.rl_module import RLModule

from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY
from sixtysix_env.game.view import PlayerView
from sixtysix_env.policy.observation import observe_view

#: Where an Algorithm checkpoint keeps its RLModules, one folder each.
MODULES = os.path.join("learner_group", "learner", "rl_module")


def module_folder(path: str, module: str | None = None) -> str:
    """The RLModule checkpoint folder of ``path`` (an Algorithm's checkpoint, or a module's)."""
    if not os.path.isdir(path):
        raise ValueError(
            f"no checkpoint folder {path!r}; save one with "
            f"algo.save_to_path(os.path.abspath({path!r})) (docs/own-agent.md)"
        )
    modules_dir = os.path.join(path, MODULES)
    if not os.path.isdir(modules_dir):
        if module is not None:
            raise ValueError(f"{path!r} is not an Algorithm checkpoint; name no module")
        return path  # a module's own checkpoint
    found = sorted(e.name for e in os.scandir(modules_dir) if e.is_dir())
    if module is None and len(found) == 1:
        module = found[0]
    if module not in found:
        raise ValueError(
            f"{path!r} holds the modules {', '.join(found)}; name one with module=NAME"
        )
    return os.path.join(modules_dir, module)


def load_module(path: str, module: str | None = None) -> RLModule:
    """The RLModule saved at ``path`` (see :func:`module_folder`), in eval mode."""
    rl_module = RLModule.from_checkpoint(os.path.abspath(module_folder(path, module)))
    rl_module.eval()
    return rl_module


class RLlibAgent:
    """Plays the legal action with the highest logit of an RLlib module from a checkpoint."""

    def __init__(self, path: str, module: str | None = None, name: str = "rllib") -> None:
        self.module = load_module(path, module)
        self.name = name

    @torch.no_grad()
    def act(self, view: PlayerView, rng: random.Random) -> int:
        obs = observe_view(view)  # the adapter's observation, as rllib_env gives it
        batch = {"obs": {
            OBS_KEY: torch.from_numpy(obs["observation"])[None],
            MASK_KEY: torch.from_numpy(obs["action_mask"].astype("float32"))[None],
        }}
        logits = self.module.forward_inference(batch)["action_dist_inputs"][0]
        return int(logits.argmax())  # illegal actions: masked by the module (log 0)


def to_policy_file(path: str, out: str, module: str | None = None) -> None:
    """Write the actor of the RLModule saved at ``path`` as a numpy policy file ``out``."""
    from sixtysix_env.policy import PolicyNetwork, save_policy
    from sixtysix_training.rllib.weights import network_from_state

    rl_module = load_module(path, module)
    config = rl_module.model_config
    if not isinstance(config, dict):
        config = vars(config)
    network: PolicyNetwork = network_from_state(
        rl_module.get_state(), config.get("fcnet_activation") or "tanh"
    )
    save_policy(out, network, {"name": "rllib-ppo", "training": {"algorithm": "RLlib PPO"}})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=to_policy_file.__doc__)
    parser.add_argument("path", help="the checkpoint folder (algo.save_to_path)")
    parser.add_argument("out", help="the policy file to write (.npz)")
    parser.add_argument("--module", help="the module to export, where there are several")
    args = parser.parse_args()
    to_policy_file(args.path, args.out, args.module)
    print(f"wrote {args.out}; check it: sixtysix eval {args.out} heuristic --deals 100")
