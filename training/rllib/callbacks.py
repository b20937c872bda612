"""RLlib callback of the league: the learner's return against each kind of opponent."""

from __future__ import annotations

from ray.rllib.callbacks.callbacks import RLlibCallback

from .league import LEARNER


class LeagueCallback(RLlibCallback):
    """Logs ``return_vs_<opponent>`` (baselines by name, snapshots as one group, ``self``)."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        modules = {aid: episode.module_for(aid) for aid in episode.agent_episodes}
        learners = [aid for aid, m in modules.items() if m == LEARNER]
        if not learners:
            return
        if len(learners) == len(modules):
            key = "self"
        else:
            opp = next(m for m in modules.values() if m != LEARNER)
            key = "snapshot" if opp.startswith("snap") else opp
        ret = episode.agent_episodes[learners[0]].get_return()
        metrics_logger.log_value(f"return_vs_{key}", float(ret), reduce="mean", window=200)
