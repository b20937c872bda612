"""Local best response (LBR): how much a fixed agent can be beaten, read from its own policy.

LBR (Lisý and Bowling, "Equilibrium approximation quality of current no-limit
poker bots", 2017) is the standard approximate exploitability of programs too
large for an exact best response. At each of its decisions it takes the
target's range, the belief over the target's hidden cards that the target's
own policy gives to the moves it made, and plays the move that is best
against it. Here (:class:`LocalBestResponse`, ``lbr:target=NAME``):

* the belief: :func:`sixtysix_env.agents.beliefs.infer` with the target as the
  opponent model, as it plays (a network's argmax move; the heuristic's
  rules), each move it made softened by ``target_softness`` so that a world
  is never ruled out by rounding alone;
* each legal move is valued on deals drawn from that belief by the expert's
  search (:class:`~sixtysix_env.agents.expert.ExpertAgent`): rollouts in
  which the target plays its own moves (a network through the compiled
  rollouts' forward passes; the heuristic by its rules) until the stock is
  closed or used up, and an exact solve of the rest; no margin keeps a
  default move: the best mean is played. The best response's own moves in
  the rollouts are the heuristic's (``own_rollouts="heuristic"``) or the
  target's (``"target"``: no stronger against ``sixtysix-ppo`` on 500 deals,
  research/notes/strength.md).

What LBR wins against its target over paired deals is a lower bound on the
target's exploitability, like a trained best response's (``sixtysix exploit
TARGET --method lbr``).
"""

from __future__ import annotations

import inspect

from ..util.checks import check_option
from .expert import ExpertAgent
from .heuristic import HeuristicAgent
from .models import model_agent, opponent_model

__all__ = ["LocalBestResponse"]

#: Options the best response sets itself (the target decides them).
_SET_BY_TARGET = (
    "prior", "rollout_opponent", "inference", "inference_softness", "inference_argmax",
    "rollout_prior", "prior_weight",
)


class LocalBestResponse(ExpertAgent):
    """Local best response to TARGET: reads its cards from its policy, lets it play its own moves."""

    def __init__(
        self,
        target: str = "sixtysix-ppo-v4",
        target_softness: float = 0.05,
        own_rollouts: str = "heuristic",
        **options,
    ) -> None:
        for name in _SET_BY_TARGET:
            if name in options:
                raise ValueError(
                    f"lbr sets {name} from its target; give target=NAME (and target_softness)"
                )
        agent = model_agent(target)
        softness = check_option("target_softness", target_softness, 0.0, 1.0)
        model = opponent_model(agent, softness, argmax=True)
        if getattr(model, "agent", None) is not agent or not (
            hasattr(agent, "network") or type(agent) is HeuristicAgent
        ):
            raise ValueError(
                f"lbr's target must be a network policy (a shipped policy's name or a .npz "
                f"file) or heuristic, whose moves the rollouts can play; got {target!r}"
            )
        if own_rollouts not in ("heuristic", "target"):
            raise ValueError(f"own_rollouts must be 'heuristic' or 'target', got {own_rollouts!r}")
        if hasattr(agent, "network"):
            options.update(prior=agent, rollout_opponent="prior",
                           rollout_prior=own_rollouts == "target")
        options.setdefault("margin", 0.0)
        super().__init__(inference=model, **options)
        self.target = target
        self.name = "lbr"


# The expert's options (less those the target sets) after lbr's own, for make_agent's checks
# and `sixtysix agents`.
LocalBestResponse.__signature__ = inspect.Signature(
    [
        *list(inspect.signature(LocalBestResponse.__init__).parameters.values())[1:4],
        *(
            p.replace(default=0.0) if p.name == "margin" else p
            for p in inspect.signature(ExpertAgent).parameters.values()
            if p.name not in _SET_BY_TARGET
        ),
    ]
)
