"""``SixtySix-v0`` as a native Gymnasium vector environment, on the batched engine.

``gymnasium.make_vec("SixtySix-v0", num_envs=N, vectorization_mode="vector_entry_point")``
returns :class:`SixtySixVectorEnv`: N games of the single-agent environment
(:class:`~sixtysix_env.env.single_agent.SixtySixEnv`) stepped together, with
its keyword arguments, its observation (the ``Dict`` of ``observation`` and
``action_mask``, batched), its rewards and its ``info`` keys (as arrays, each
with Gymnasium's ``_key`` mask), and :meth:`~SixtySixVectorEnv.action_masks`
for sb3-contrib. The opponent of every game moves in one call per step: a
numpy policy over all its games at once (each game's logits computed as the
agent computes them, so its moves are the agent's own; pass
``BatchedPolicy(agent, exact=False)`` for one matrix product), ``random`` and
``heuristic`` in compiled code, any other agent game by game (see
:mod:`sixtysix_env.agents.batch`).

A finished game restarts by itself: with ``autoreset_mode=NEXT_STEP`` (the
default, as Gymnasium's ``sync`` vectorization) the next ``step`` deals it anew
and ignores its action; with ``SAME_STEP`` the new deal's observation comes at
once and the finished one is in ``info["final_obs"]`` and ``info["final_info"]``.

:class:`SixtySixSelfPlayVectorEnv` is the two-seat form for self-play: each
game returns the observation and mask of the seat to act, and the caller acts
for both seats.

Given deals (for tests, or to compare two programs on the same hands):
``reset(options={"decks": (N, 24) card ids, "dealers": (N,), "learner_seats": (N,)})``
((N, 20) under a 20-card preset: decks are the rules' cards, dealt or given),
or in ``mode="match"`` ``{"match_seeds": (N,), "learner_seats": (N,)}``; a deck may also
be card codes (a list, or one string), as ``SixtySix-v0`` takes one. ``num_envs`` is at
most :data:`MAX_NUM_ENVS` (65536), checked before anything is allocated.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..batched import require_numba
from ..game.actions import NUM_ACTIONS
from ..game.rules import RuleConfig
from ..policy.observation import OBS_SIZE
from ..util.checks import ALLOWED, as_seed, is_int
from ..util.errors import IllegalActionError
from .core import (
    MAX_NUM_ENVS,
    check_num_envs,
    check_options,
    given_decks,
    given_seats,
    make_spaces,
)
from .single_agent import set_learner_options

require_numba("the vector environment (vectorization_mode='vector_entry_point'; "
              "vectorization_mode='sync' works without it)")

from ..agents.batch import BatchedHeuristic, BatchedRandom, batched  # noqa: E402
from ..batched.engine import BatchedHands  # noqa: E402
from ..game.engine import deal_from_deck, random_deck  # noqa: E402

AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


def _autoreset_mode(mode: Any) -> AutoresetMode:
    if isinstance(mode, str):
        try:
            mode = AutoresetMode(mode)
        except ValueError:
            pass
    if mode not in AUTORESET_MODES:
        raise ValueError(f"unknown autoreset_mode {mode!r}; allowed: "
                         + ", ".join(repr(m.value) for m in AUTORESET_MODES))
    return mode


def _deal_options(options: dict | None, n: int, rules: RuleConfig):
    """The given deals of ``reset(options=...)``, checked (None where none are given) by the
    checker of given deals of both environments (:mod:`sixtysix_env.env.core`)."""
    if not options:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"reset options must be a dict, got {type(options).__name__}")
    allowed = {"decks", "dealers", "learner_seats"}
    unknown = sorted(set(options) - allowed, key=str)
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
                         f"allowed: {', '.join(sorted(allowed))}")
    if "decks" not in options:
        raise ValueError(f"reset options need 'decks' (num_envs decks of {rules.deck} card ids) "
                         "with 'dealers' and 'learner_seats'")
    out = [given_decks(options["decks"], n, rules)]
    for key in ("dealers", "learner_seats"):
        if key not in options:
            raise ValueError(f"reset options with 'decks' need {key!r} too ({n} seats 0 or 1)")
        out.append(given_seats(options[key], n, key))
    return out


def _match_options(options: dict | None, n: int):
    """The given match seeds of ``reset(options=...)`` in match mode, checked."""
    if not options:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"reset options must be a dict, got {type(options).__name__}")
    keys = {"match_seeds", "learner_seats"}
    if set(options) != keys:
        raise ValueError(f"reset options in match mode must give exactly "
                         f"{', '.join(sorted(keys))}, got {', '.join(sorted(map(str, options)))}")
    try:
        seeds = np.asarray(options["match_seeds"]).reshape(-1)
    except (ValueError, TypeError):  # a ragged list
        seeds = np.zeros(0)
    if seeds.shape != (n,) or not (np.issubdtype(seeds.dtype, np.integer) or (
            seeds.dtype == object and all(map(is_int, seeds.tolist())))):
        raise ValueError(f"'match_seeds' must be {n} integers ({ALLOWED}), "
                         f"got {options['match_seeds']!r}")
    return seeds, given_seats(options["learner_seats"], n, "learner_seats")


def _integer_actions(actions) -> np.ndarray:
    """``actions`` as an array of integer ids: floats (not truncated), bools and objects are
    refused, as ``SixtySixEnv.step`` refuses them one by one."""
    actions = np.asarray(actions)
    if not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(f"actions must be integer action ids 0-{NUM_ACTIONS - 1}, "
                                 f"got dtype {actions.dtype}", actions, ())
    return actions


class LockStepGames:
    """The one lock-step driver of N games: the batched engine's lanes, each game's learner seat
    and opponent, the reference states a per-game agent needs, each game's generator.

    ``opponents`` holds batched forms of agents (:func:`~sixtysix_env.agents.batch.batched`) and
    ``opponent[i]`` is game ``i``'s, an index into it: the vector environment plays one in every
    game; the project's training games (``sixtysix_training.sb3.batched_vec_env``) draw one per
    game from their pool at each reset. :meth:`play_opponents` moves every opponent in all its
    games with one call per opponent (``random`` and ``heuristic`` in compiled code until a
    per-game agent has been added, then from the reference states as every other agent).
    """

    def __init__(self, n: int, rules: RuleConfig) -> None:
        self.hands = BatchedHands(n, rules)
        self.rules = self.hands.rules
        self.n = n
        self.seat = np.zeros(n, np.int64)
        self.opponent = np.zeros(n, np.int64)
        self.opponents: list[Any] = []
        #: One ``random.Random`` per game, for the agents that draw game by game.
        self.rngs: list[random.Random] = []
        #: Reference engine states beside the lanes, dealt once a per-game opponent was added
        #: (None in the games dealt before).
        self.states: list | None = None

    def add_opponent(self, form: Any) -> int:
        """Add an opponent's batched form; its index for :attr:`opponent`."""
        if form.needs_states and self.states is None:
            self.states = [None] * self.n  # for the games dealt from now on
        self.opponents.append(form)
        return len(self.opponents) - 1

    def deal(self, lanes: np.ndarray, decks: np.ndarray, dealers: np.ndarray,
             scores: np.ndarray | None = None) -> None:
        """Deal ``decks`` (top card first) in ``lanes`` at the match ``scores`` (k, 2) by seat."""
        if scores is None:
            scores = np.zeros((len(lanes), 2), np.int64)
        self.hands.deal(lanes, decks, dealers, scores)
        if self.states is not None:
            for i, d, e, sc in zip(lanes.tolist(), np.asarray(decks).tolist(),
                                   np.asarray(dealers).tolist(), np.asarray(scores).tolist()):
                self.states[i] = deal_from_deck(d, dealer=e, rules=self.rules,
                                                match_score=tuple(sc))

    def apply(self, lanes: np.ndarray, actions: np.ndarray, who: str | None = None) -> None:
        """Play the actions in the lanes (and their reference states); checked first, naming
        ``who``, where ``who`` is given."""
        if who is None:
            self.hands.apply_unchecked(lanes, actions)
        else:
            self.hands.apply(lanes, actions, who=who)
        if self.states is not None:
            st = self.states
            for i, a in zip(lanes.tolist(), np.asarray(actions).tolist()):
                if st[i] is not None:
                    st[i] = st[i].apply(a)

    def play_out(self, agents: Sequence[Any], players: np.ndarray,
                 rngs: Sequence[Sequence[random.Random]], timed=None, illegal=None) -> None:
        """Every lane's hand played to its end by agents alone (no learner, as the paired-deal
        evaluation plays): seat ``s`` of lane ``i`` by ``agents[players[i, s]]`` (batched
        forms), agent ``k`` drawing from ``rngs[k][i]``. Each agent moves in all its games
        with one call a turn; ``timed(k, seconds, count)`` hears each call's time, and an
        illegal answer raises ``illegal(k, action, legal_mask, seat)`` (by default the
        engine's ``IllegalActionError``) with no game changed."""
        hands = self.hands
        lanes = np.arange(self.n, dtype=np.int64)
        while True:
            to_move = hands.to_move()
            live = to_move >= 0
            if not live.any():
                return
            who = np.where(live, players[lanes, np.maximum(to_move, 0)], -1)
            for k, agent in enumerate(agents):
                at = lanes[who == k]
                if not len(at):
                    continue
                seats = to_move[at]
                t0 = time.perf_counter()
                acts = agent.act_batch(hands, at, seats, rngs[k])
                if timed is not None:
                    timed(k, time.perf_counter() - t0, len(at))
                ok, legal = hands.legality(at, acts)
                if not ok.all():
                    j = int(np.flatnonzero(~ok)[0])
                    if illegal is not None:
                        raise illegal(k, int(acts[j]), int(legal[j]), int(seats[j]))
                    raise hands.illegal(int(at[j]), int(acts[j]), int(legal[j]), f"agent {k}")
                self.apply(at, acts)

    def play_opponents(self, lanes: np.ndarray) -> None:
        """Each game's opponent acts while it is to move (the learner next, or the hand over)."""
        hands = self.hands
        compiled = self.states is None
        while len(lanes):
            to_move = hands.to_move(lanes)
            waiting = lanes[(to_move >= 0) & (to_move != self.seat[lanes])]
            if not len(waiting):
                return
            who = self.opponent[waiting]
            for k in np.unique(who).tolist():
                at = waiting[who == k]
                w = self.opponents[k]
                if compiled and isinstance(w, BatchedRandom):
                    hands.play_random_until(w.lane_rng, at, self.seat[at])
                elif compiled and isinstance(w, BatchedHeuristic):
                    hands.play_heuristic_until(at, self.seat[at], w.per_trick)
                else:
                    acts = w.act_batch(hands, at, 1 - self.seat[at], self.rngs, self.states)
                    self.apply(at, acts, who=f"the opponent {w.name!r}")
            lanes = waiting


class SixtySixVectorEnv(VectorEnv):
    """N single-agent games against one opponent, stepped together on the batched engine.

    Keyword arguments as :class:`~sixtysix_env.env.single_agent.SixtySixEnv`
    (``opponent``, ``rules``, ``mode`` ``"hand"`` or ``"match"``, ``hand_rewards``,
    ``learner_seat``, ``illegal_action``, ``illegal_reward``; ``render_mode`` only
    None: it draws nothing, and ``render_view`` is checked and kept), plus ``num_envs``
    (1 to :data:`MAX_NUM_ENVS`),
    ``autoreset_mode`` and ``copy`` (False: the observation arrays are the
    environment's own buffers, overwritten by the next call; True, the default,
    as Gymnasium: fresh arrays).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        opponent: Any = "random",
        rules: str | RuleConfig | dict = "altmisalti",
        mode: str = "hand",
        hand_rewards: bool | float = False,
        learner_seat: int | None = None,
        illegal_action: str = "lose",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        render_view: str = "table",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
    ) -> None:
        check_num_envs(num_envs)  # before anything is allocated
        set_learner_options(self, rules, mode, hand_rewards, learner_seat, illegal_action,
                            illegal_reward, render_mode, render_view, vector=True)
        config = self.rules
        if not isinstance(opponent, str) and not callable(getattr(opponent, "act", None)) \
                and not callable(getattr(opponent, "act_batch", None)):
            raise ValueError(f"opponent must be an agent name or an object with act(view, rng), "
                             f"got {opponent!r}")
        self.num_envs = num_envs
        self.copy = bool(copy)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.opponent = batched(opponent)
        self.single_action_space, self.single_observation_space = make_spaces()
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._games = LockStepGames(num_envs, config)
        self._games.add_opponent(self.opponent)  # every game's (opponent index 0)
        self._init_lanes(num_envs)

    def _init_lanes(self, n: int) -> None:
        """Each game's buffers (a row or an entry per game), and its random generators."""
        self._lanes = np.arange(n, dtype=np.int64)
        self._seat = self._games.seat  # the driver's array
        self._obs = np.zeros((n, OBS_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.int8)
        self._ended = np.ones(n, bool)  # episode over (NEXT_STEP: reset on next step)
        self._illegal = np.full(n, -1, np.int64)
        # The episode so far (a match's score, carried tie points, hands ended) and the hand
        # that ended on this step (winner -1 for none or a tie).
        self._score = np.zeros((n, 2), np.int64)
        self._carry = np.zeros(n, np.int64)
        self._hands_played = np.zeros(n, np.int64)
        self._hand_over = np.zeros(n, bool)
        self._hand_winner = np.full(n, -1, np.int64)
        self._hand_gp = np.zeros(n, np.int64)
        self._hand_reason = np.zeros(n, np.int64)
        self._reward = np.zeros(n, np.float64)
        self._deck_rngs: list[random.Random] | None = None  # given match seeds
        self._np_random_seeded = False
        self._reset_failed = False  # a reset the opponent broke (an illegal move): step refuses

    # -- dealing ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game anew; ``seed`` fixes the deals, seats and the opponent's draws.

        ``options``: in hand mode ``{"decks": (N, 24), "dealers": (N,), "learner_seats":
        (N,)}`` plays given deals; in match mode ``{"match_seeds": (N,), "learner_seats":
        (N,)}`` deals each match as ``Match(rules, seed=random.Random(match_seed))`` does
        (``SixtySixEnv.reset`` takes the same, one game at a time, and the same values:
        decks of card ids or card codes, a list or one string each; seats 0 or 1, integers).
        Everything is checked before anything changes: a refused reset raises and leaves
        every game, seat and generator as it was. An opponent that fails on its first moves
        fails the reset after the deal: then ``step`` refuses until a reset succeeds.
        """
        seed = as_seed(seed)
        if self.mode == "match":  # all checked first: a refused reset changes nothing
            given = _match_options(options, self.num_envs)
        else:
            given = _deal_options(options, self.num_envs, self.rules)
        super().reset(seed=seed)
        if seed is not None or not self._np_random_seeded:
            self._np_random_seeded = True
            rng = self.np_random
            if isinstance(self.opponent, BatchedRandom):
                self.opponent.seed_lanes(self.num_envs, rng)
            self._games.rngs = [random.Random(int(x))
                                for x in rng.integers(0, 2**63, self.num_envs)]
        self._deck_rngs = None
        self._illegal[:] = -1
        self._reset_failed = True  # until every game is dealt and played to the learner's turn
        self._new_episodes(self._lanes, given)
        self._ended[:] = False
        self._reset_failed = False
        return self._observe(self._lanes, final=None)

    def _new_episodes(self, lanes: np.ndarray, given=None) -> None:
        k = len(lanes)
        rng = self.np_random
        self._score[lanes] = 0
        self._carry[lanes] = 0
        self._hands_played[lanes] = 0
        if given is None:
            seats = rng.integers(0, 2, k) if self.learner_seat is None else np.full(
                k, self.learner_seat)
        else:
            seats = given[-1]
        self._seat[lanes] = seats
        decks = None
        if self.mode == "hand" and given is not None:
            decks, dealers = given[0], given[1]
        elif self.mode == "match" and given is not None:
            self._deck_rngs = [random.Random(int(x)) for x in given[0]]
            dealers = np.array([self._deck_rngs[i].randrange(2) for i in lanes.tolist()])
        else:
            dealers = rng.integers(0, 2, k)
        self._deal_hands(lanes, dealers, decks)
        self._play_on(lanes)

    def _deal_hands(self, lanes: np.ndarray, dealers: np.ndarray, decks=None) -> None:
        if decks is None:
            if self._deck_rngs is not None:
                decks = np.array([random_deck(self._deck_rngs[i], self.rules)
                                  for i in lanes.tolist()])
            else:
                decks = self._games.hands.random_decks(self.np_random, len(lanes))
        self._games.deal(lanes, decks, dealers, self._score[lanes])

    # -- playing ---------------------------------------------------------------------------

    def _play_on(self, lanes: np.ndarray) -> None:
        """The opponent's moves and, in match mode, each finished hand scored and the next
        dealt, until the learner is to act or the episode is over in every lane."""
        hands = self._games.hands
        while len(lanes):
            self._opponent_moves(lanes)
            if self.mode == "hand":
                return
            done = lanes[hands.over(lanes)]
            if not len(done):
                return
            self._score_hands(done)
            going = done[self._score[done].max(axis=1) < self.rules.match_target]
            self._deal_hands(going, 1 - hands.dealers(going))
            lanes = going

    def _score_hands(self, lanes: np.ndarray) -> None:
        """``Match.apply`` at the end of each hand in ``lanes``, and the learner's reward."""
        winner, gp, reason = self._games.hands.outcomes(lanes)
        self._hand_over[lanes] = True
        self._hand_winner[lanes] = winner
        self._hand_gp[lanes] = np.where(winner >= 0, gp, 0)
        self._hand_reason[lanes] = reason
        self._hands_played[lanes] += 1
        if self.mode == "hand":
            self._score[lanes, np.maximum(winner, 0)] += np.where(winner >= 0, gp, 0)
            seat = self._seat[lanes]
            self._reward[lanes] += np.where(winner < 0, 0, np.where(winner == seat, gp, -gp))
            return
        tie = winner < 0
        gained = np.where(tie, 0, gp + self._carry[lanes])
        self._score[lanes, np.maximum(winner, 0)] += gained
        if self.rules.tie_rule == "carry-over":
            self._carry[lanes] = np.where(tie, self._carry[lanes] + 1, 0)
        seat = self._seat[lanes]
        mine = np.where(winner == seat, gained, -gained)
        reward = self.hand_rewards * mine
        over = self._score[lanes].max(axis=1) >= self.rules.match_target
        match_winner = np.where(self._score[lanes, 0] >= self.rules.match_target, 0, 1)
        reward += np.where(over, np.where(match_winner == seat, 1.0, -1.0), 0.0)
        self._reward[lanes] += reward + 0.0

    def _opponent_moves(self, lanes: np.ndarray) -> None:
        """The opponent acts wherever it is to move, until the learner is or the hand is over."""
        self._games.play_opponents(lanes)

    def _episode_over(self, lanes: np.ndarray) -> np.ndarray:
        if self.mode == "hand":
            return self._games.hands.over(lanes)
        return self._score[lanes].max(axis=1) >= self.rules.match_target

    # -- stepping --------------------------------------------------------------------------

    def step(self, actions):
        if self._reset_failed:
            raise IllegalActionError("the last reset() failed while the games were dealt (the "
                                     "opponent's error above); call reset()", actions, ())
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        actions = _integer_actions(actions).astype(np.int64)
        hands = self._games.hands
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            restart = self._lanes[self._ended]
            playing = self._lanes[~self._ended]
        else:
            restart = self._lanes[:0]
            playing = self._lanes
        acts = actions[playing]
        ok, legal = hands.legality(playing, acts)
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            if self.illegal_action == "raise":
                raise hands.illegal(int(playing[j]), int(acts[j]), int(legal[j]), "the learner")
        self._illegal[:] = -1
        self._illegal[playing[~ok]] = acts[~ok]
        self._hand_over[:] = False
        self._hand_winner[:] = -1
        self._hand_gp[:] = 0
        self._hand_reason[:] = 0
        self._reward[:] = 0.0
        moving = playing[ok]
        self._games.apply(moving, acts[ok])
        self._play_on(moving)
        if self.mode == "hand":
            self._score[moving] = 0
            done = moving[hands.over(moving)]
            self._score_hands(done)
        reward = self._reward.copy()
        reward[playing[~ok]] = self.illegal_reward
        terminated = np.zeros(self.num_envs, bool)
        terminated[moving] = self._episode_over(moving)
        terminated[playing[~ok]] = True
        truncated = np.zeros(self.num_envs, bool)
        if len(restart):
            self._hands_played[restart] = 0
            self._new_episodes(restart)
        final = None
        if self.autoreset_mode is AutoresetMode.SAME_STEP and terminated.any():
            done = self._lanes[terminated]
            final = (done, self._observe(self._lanes, final=None, copy=True))
            self._illegal[done] = -1
            self._hand_over[done] = False
            self._hand_winner[done] = -1
            self._hand_gp[done] = 0
            self._hand_reason[done] = 0
            self._new_episodes(done)
        self._ended = terminated.copy()
        obs, info = self._observe(self._lanes, final=final)
        return obs, reward, terminated, truncated, info

    # -- what the learner sees ---------------------------------------------------------------

    def _observe(self, lanes: np.ndarray, final, copy: bool | None = None):
        hands = self._games.hands
        hands.observe(lanes, self._seat[lanes], self._obs, self._mask)
        self._mask[self._illegal >= 0] = 0  # an illegal action ended that episode
        copy = self.copy if copy is None else copy
        obs = {"observation": self._obs.copy() if copy else self._obs,
               "action_mask": self._mask.copy() if copy else self._mask}
        info = self._info(obs["action_mask"])
        if final is not None:
            done, (fobs, finfo) = final
            has = np.zeros(self.num_envs, bool)
            has[done] = True
            info["final_obs"] = np.array([{"observation": fobs["observation"][i],
                                           "action_mask": fobs["action_mask"][i]}
                                          if has[i] else None for i in range(self.num_envs)],
                                         dtype=object)
            info["_final_obs"] = has
            info["final_info"] = finfo
            info["_final_info"] = has
        return obs, info

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        """``SixtySixEnv``'s info keys as arrays (``Table.info``): the hand that ended on this
        step (its winner, game points and reason), the hands ended and the score of the
        episode, its winner once it is over; an illegal action ends the episode with the info
        of the step before."""
        ended = self._episode_over(self._lanes) & (self._illegal < 0)
        if self.mode == "hand":
            winner = np.where(ended, self._hand_winner, -1)
        else:
            winner = np.where(ended, np.where(
                self._score[:, 0] >= self.rules.match_target, 0, 1), -1)
        info: dict[str, Any] = {
            "learner_seat": self._seat.copy(),
            "illegal_action": self._illegal.copy(),
            "hands_played": self._hands_played.copy(),
            "hand_over": self._hand_over.copy(),
            "hand_winner": self._hand_winner.copy(),
            "hand_game_points": self._hand_gp.copy(),
            "hand_reason": self._hand_reason.copy(),
            "score_0": self._score[:, 0].copy(),
            "score_1": self._score[:, 1].copy(),
            "winner": winner,
            "action_mask": mask,
        }
        true = np.ones(self.num_envs, bool)
        for key in list(info):
            info["_" + key] = true
        return info

    def action_masks(self) -> np.ndarray:
        """Legal learner actions as booleans, (num_envs, 34) (sb3-contrib's interface)."""
        return self._mask.astype(bool)

    @property
    def states(self) -> BatchedHands:
        """The batched engine's lanes: full information, hidden cards included (for tools
        that may see more than the learner, as ``SixtySixEnv.state``)."""
        return self._games.hands


class SixtySixSelfPlayVectorEnv:
    """N two-seat games for self-play: each step returns the acting seat's view of each game.

    ``reset`` deals every game and returns ``(obs, info)`` where ``obs`` is the
    observation dict of the seat to act in each game and ``info["seat"]`` that
    seat; ``step(actions)`` plays ``actions[i]`` for the seat to act in game
    ``i`` and returns ``(obs, rewards, terminated, truncated, info)`` with
    ``rewards`` shaped (num_envs, 2): game points for seat 0 and seat 1 when a
    hand ends there (``terminated``). A finished game is dealt anew in the same
    step, so the observation returned for it is the new hand's (a hand's end
    needs no observation: nobody acts in it). Illegal actions raise, naming the
    game, with no game changed. It runs on the same driver as the single-learner form
    (:class:`LockStepGames`), with both seats the caller's and no opponent.
    """

    def __init__(self, num_envs: int = 1, rules: str | RuleConfig | dict = "altmisalti",
                 copy: bool = True) -> None:
        check_num_envs(num_envs)  # before anything is allocated
        config, _, _ = check_options(rules, "hand", False, None)
        self.num_envs = num_envs
        self.rules = config
        self.copy = bool(copy)
        self._games = LockStepGames(num_envs, config)
        #: The batched engine's lanes (full information, as ``SixtySixVectorEnv.states``).
        self.hands = self._games.hands
        self.single_action_space, self.single_observation_space = make_spaces()
        self._lanes = np.arange(num_envs, dtype=np.int64)
        self._obs = np.zeros((num_envs, OBS_SIZE), np.float32)
        self._mask = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        self.np_random = np.random.default_rng()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game anew; ``options`` as ``SixtySixVectorEnv``'s without
        ``learner_seats``, checked before anything changes."""
        seed = as_seed(seed)
        given = None
        if options:
            if not isinstance(options, dict):
                raise TypeError(f"reset options must be a dict, got {type(options).__name__}")
            opts = dict(options)
            opts.setdefault("learner_seats", np.zeros(self.num_envs, np.int64))
            given = _deal_options(opts, self.num_envs, self.rules)
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self._deal(self._lanes, given)
        return self._observe()

    def _deal(self, lanes, given=None) -> None:
        if given is None:
            k = len(lanes)
            decks = self.hands.random_decks(self.np_random, k)
            dealers = self.np_random.integers(0, 2, k)
        else:
            decks, dealers, _ = given
        self._games.deal(lanes, decks, dealers)

    def _observe(self):
        seats = self.hands.to_move()
        self.hands.observe(self._lanes, seats, self._obs, self._mask)
        obs = {"observation": self._obs.copy() if self.copy else self._obs,
               "action_mask": self._mask.copy() if self.copy else self._mask}
        return obs, {"seat": seats}

    def step(self, actions):
        actions = _integer_actions(actions)
        if actions.size != self.num_envs:
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        actions = actions.astype(np.int64).reshape(self.num_envs)
        self._games.apply(self._lanes, actions, who="the seat to act")
        over = self.hands.over()
        rewards = np.zeros((self.num_envs, 2), np.float64)
        done = self._lanes[over]
        if len(done):
            rewards[done, 0] = self.hands.returns(done, np.zeros(len(done), np.int64))
            rewards[done, 1] = -rewards[done, 0] + 0.0
            self._deal(done)
        obs, info = self._observe()
        return obs, rewards, over, np.zeros(self.num_envs, bool), info

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> SixtySixVectorEnv:
    """Gymnasium's ``vector_entry_point`` for ``SixtySix-v0``."""
    return SixtySixVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["MAX_NUM_ENVS", "SixtySixSelfPlayVectorEnv", "SixtySixVectorEnv", "make_vector_env"]
