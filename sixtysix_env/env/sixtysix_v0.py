"""Sixty-Six as a PettingZoo AEC environment: this docstring is its documentation page.

# Sixty-Six (sixtysix_v0)

| Import             | `from sixtysix_env import sixtysix_v0`                 |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No (a player may act twice in a row)                   |
| Manual control     | No                                                     |
| Agents             | `agents = ['player_0', 'player_1']` (seats 0 and 1)    |
| Action shape       | () (one integer)                                       |
| Action values      | 0-33                                                   |
| Observation shape  | `observation`: (349,) float32; `action_mask`: (34,) int8 |
| Observation values | [0, 1]                                                 |

Sixty-Six (Altmisalti) is a two-player trick-taking card game with 24
cards (9 J Q K 10 A of four suits): six cards each, a face-up trump card
under a stock to draw from, marriages (K+Q) worth 20 or 40, the exchange of
the trump 9 and the option of closing the stock. The first to 66 points wins
the hand and 1-3 game points; a match goes to 7 game points. The rules the
engine plays are written out in docs/rules.md; three presets are available:
`altmisalti` (the default), `pagat66` and `santase`.

```python
from sixtysix_env import sixtysix_v0

env = sixtysix_v0.env(rules="altmisalti", mode="hand")
env.reset(seed=42)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        mask = observation["action_mask"]
        action = env.action_space(agent).sample(mask)  # a policy goes here
    env.step(action)
env.close()
```

## Turn order

`agent_selection` is the seat the engine says is to act. Exchanging the
trump 9 and closing the stock do **not** pass the turn: the same agent acts
again (exchange, then maybe close, then a lead card). The non-dealer leads
the first trick; after that the winner of a trick leads the next.

## Actions

| id    | action                                                                 |
|-------|------------------------------------------------------------------------|
| 0-23  | play the card with that id (`suit * 6 + rank`; suits C D H S, ranks 9 J Q K T A) |
| 24-31 | lead a queen or king declaring its marriage: `24 + 2 * suit + (0 queen, 1 king)` |
| 32    | exchange the trump 9 for the face-up trump card (turn not passed)      |
| 33    | close the stock (turn not passed)                                      |

The ids are the engine's (`sixtysix_env.game.actions`) unchanged.

## Observation

A dict: `observation`, a float32 vector of 349 values in [0, 1], and
`action_mask`, an int8 vector of 34 (1 = legal). The mask is all zeros for
an agent that is not to act, and at the end. The vector is built only from
the engine's player view (`sixtysix_env.game.view.player_view`), so it holds
exactly what that player may know (docs/rules.md §18):
never the order of the stock or the opponent's unknown cards. It is told
from the observer's side ("my" / "opp"), so one policy can play both seats.

To build it outside the environment (for an agent that gets a view):

```python
from sixtysix_env.policy.observation import OBS_VERSION, encode_view, action_mask
obs = encode_view(view)   # float32[349]
mask = action_mask(view)  # int8[34]
```

`OBS_VERSION` (now 1) names this layout; exported policies record it and
`check_obs_version` refuses a mismatch.

Card planes are indexed by card id; suit blocks by suit (C D H S).

| index   | name                 | meaning                                                        |
|---------|----------------------|----------------------------------------------------------------|
| 0-23    | hand                 | my hand                                                        |
| 24-47   | trump_card           | the trump card under the stock (face up, or turned down by a close); zero once the stock is gone |
| 48-71   | lead                 | the card on the table, led to the current trick               |
| 72-95   | my_played            | cards I have played (the card on the table too)               |
| 96-119  | opp_played           | cards the opponent has played                                  |
| 120-143 | my_won               | cards in the tricks I have won                                 |
| 144-167 | opp_won              | cards in the tricks the opponent has won                       |
| 168-191 | opp_known            | cards known to be in the opponent's hand (marriage shown, exchange, drawn trump card, the whole hand once the stock is exhausted) |
| 192-215 | opp_excluded         | cards the opponent cannot hold (strict-phase deductions)      |
| 216-239 | unseen               | cards whose place I do not know (opponent's unknown cards, face-down stock) |
| 240-263 | my_known             | cards of my hand the opponent has seen                         |
| 264-287 | my_excluded          | cards the opponent knows I cannot hold                         |
| 288-291 | trump_suit           | trump suit, one-hot                                            |
| 292-295 | opp_void             | suits the opponent is known to hold no card of                 |
| 296-299 | my_marriages         | suits in which I declared a marriage                           |
| 300-303 | opp_marriages        | suits in which the opponent declared a marriage                |
| 304     | my_turn              | I am to act                                                    |
| 305     | i_lead               | I lead the current trick                                       |
| 306     | i_deal               | I dealt this hand                                              |
| 307     | open                 | the stock is open                                              |
| 308     | closed               | the stock was closed                                           |
| 309     | exhausted            | the stock is drawn out                                         |
| 310     | closed_by_me         | I closed the stock                                             |
| 311     | closed_by_opp        | the opponent closed the stock                                  |
| 312     | just_closed          | a close was just made; its maker may still declare on this lead |
| 313     | my_trick             | I have won a trick                                             |
| 314     | opp_trick            | the opponent has won a trick                                   |
| 315     | my_exchange          | I exchanged the trump 9                                        |
| 316     | opp_exchange         | the opponent exchanged the trump 9                             |
| 317     | hand_over            | the hand has ended                                             |
| 318-324 | stock_left           | face-down cards left in the stock: one-hot of 0, 1, 3, 5, 7, 9, 11 |
| 325     | my_card_points       | my card points / 120                                           |
| 326     | opp_card_points      | opponent's card points / 120                                   |
| 327     | my_marriage_points   | my marriage points / 100                                       |
| 328     | opp_marriage_pts     | opponent's marriage points / 100                               |
| 329     | my_tricks            | tricks I have won / 12                                         |
| 330     | opp_tricks           | tricks the opponent has won / 12                               |
| 331     | opp_hand_size        | cards in the opponent's hand / 6                               |
| 332     | my_score             | my game points in the match / match target (0 in hand mode)   |
| 333     | opp_score            | opponent's game points / match target                          |
| 334     | close_card_points    | at the close: the card points of the closer's opponent / 120  |
| 335     | close_marriage_pts   | at the close: its marriage points / 100                        |
| 336     | close_had_trick      | at the close: whether it had won a trick                       |
| 337     | must_beat_in_suit    | rule switch                                                    |
| 338     | marriage_after_close | rule switch                                                    |
| 339     | close_on_first_lead  | rule switch                                                    |
| 340     | min_stock_to_close   | rule switch / 11                                               |
| 341     | min_stock_to_exchange | rule switch / 11                                              |
| 342-344 | failed_close_penalty | rule switch, one-hot "2", "2-or-3", "3"                        |
| 345     | totals_at_close      | rule switch `opponent_totals_at == "close"`                    |
| 346     | tie_carry_over       | rule switch `tie_rule == "carry-over"`                         |
| 347     | going_out            | rule switch / 200                                              |
| 348     | last_trick_bonus     | rule switch / 100                                              |

The same table, as code: `sixtysix_env.policy.observation.FIELDS`.

## Rewards

Zero-sum. Mode `"hand"`: at the end of the hand the winner gets `+g` and the
loser `-g`, `g` the hand's game points (1, 2 or 3; 0 each for a 65-65 tie).
Mode `"match"`: `+1` / `-1` when a side reaches the rule set's match target
(7, or 11 for santase); with `hand_rewards=True` (or a weight `w`) each
hand's game points are also handed out (`+w*g` / `-w*g`) as it is scored.

## Infos

Every agent's `info` has the same keys on every step, all plain numbers
(replay buffers and loggers stack infos key by key; TorchRL turns each
value into a tensor), listed in `sixtysix_env.env.core.INFO_KEYS`:

| key                | value                                                            |
|--------------------|------------------------------------------------------------------|
| `hands_played`     | hands ended so far in the episode                               |
| `hand_over`        | `True` on the step a hand ended                                  |
| `hand_winner`      | that hand's winner (seat 0 or 1), -1 for a tie or when no hand ended |
| `hand_game_points` | that hand's game points (0 when none ended)                      |
| `hand_reason`      | how it ended, a code of `sixtysix_env.env.core.HAND_REASONS`: 1 went out, 2 failed close, 3 last trick, 4 tie (0: none ended) |
| `score_0`, `score_1` | game points each seat has scored in the episode               |
| `winner`           | the episode's winner once it is over (-1 before, or for a tie)   |

The engine's `HandResult` of the last hand (with `.explain()`) is
`env.unwrapped.last_hand_result`.

## Illegal moves

`raw_env.step` raises `sixtysix_env.IllegalActionError`, naming the action
and the legal ones, for an illegal or out-of-range action. `env()` follows
PettingZoo's convention instead (`TerminateIllegalWrapper`): an illegal
move ends the episode, the offender gets `illegal_reward` and the other
agent 0. The default penalty is minus the worst loss legal play can bring,
so an illegal move never beats playing on: `-3` in hand mode; in match mode
`-1`, or `-(1 + w * (target + 2))` with hand rewards of weight `w` (the
match plus every game point the opponent could still score). A milder
`illegal_reward` is refused. An action outside 0-33 fails
`AssertOutOfBoundsWrapper`. (The single-agent environment below ends the
episode with the same penalty by default, and raises on request.)

## Options

| keyword        | values                                              | default        |
|----------------|-----------------------------------------------------|----------------|
| `rules`        | `"altmisalti"`, `"pagat66"`, `"santase"`, a `RuleConfig`, or a dict of switches | `"altmisalti"` |
| `mode`         | `"hand"` (one deal per episode), `"match"` (hands to the target) | `"hand"` |
| `hand_rewards` | match mode only: `False`, `True` or a weight >= 0   | `False`        |
| `render_mode`  | `None`, `"human"` (prints), `"ansi"` (returns text)  | `None`         |
| `render_agent` | `None` (neutral picture, both hands shown) or `"player_0"` / `"player_1"` (that player's view) | `None` |
| `illegal_reward` | `env()` only: a number <= minus the worst loss    | see above      |
| `observation_format` | `env()` only: `"dict"`, or `"flat"`: one `Box(0, 1, (383,), float32)`, the 349 features then the 34-entry mask, for SuperSuit's observation wrappers (`sixtysix_env.env.wrappers.FlatObservation`; `env.action_mask(agent)` also gives the mask) | `"dict"` |

Unknown values raise `ValueError` naming the allowed ones.

## Seeding

`reset(seed=s)` seeds the generator that deals (and, in hand mode, draws the
dealer; in a match, the first dealer), so a fixed policy replays a whole
episode exactly; `reset()` without a seed continues the same generator.

`raw_env` also exposes `game_state` (the engine's full `State` of the
current hand, hidden cards included: for tests and debugging, never for an
agent) and `match` (the engine's `Match` in match mode).

## Single-agent Gymnasium environment

`gymnasium.make("SixtySix-v0", opponent="random")` (after `import
sixtysix_env`) gives `sixtysix_env.env.single_agent.SixtySixEnv`: the learner
plays a seat drawn each episode (from the seeded generator) against an
opponent that moves inside `step`, from its own player view and a
`random.Random` derived from the seed. Same observation dict and rewards
(from the learner's side), plus `action_masks()` (booleans) for
sb3-contrib's `MaskablePPO`. Its `info` (of `reset` and of every `step`)
has the keys above plus `learner_seat` and `illegal_action` (the id of an
illegal action that ended the episode, else -1).

The defaults pass Gymnasium's and Stable-Baselines3's `check_env` and
`make_vec_env`: an illegal action ends the episode with the penalty
(`illegal_action="lose"`: Gymnasium's contract is that any action of the
action space may be stepped, and both checkers step unmasked samples;
PettingZoo's `env()` does the same through `TerminateIllegalWrapper`), and
a `render_mode` the environment cannot draw (SB3 asks for `"rgb_array"`) is
kept with a warning, as `gymnasium.make` does, with `render()` then raising
`ValueError`. `illegal_action="raise"` is the strict mode for debugging.

| keyword          | values                                                    | default    |
|------------------|-----------------------------------------------------------|------------|
| `opponent`       | an agent name for `sixtysix_env.agents.make_agent`, or any object with `act(view, rng)` | `"random"` |
| `learner_seat`   | `None` (drawn each episode), `0` or `1`                   | `None`     |
| `illegal_action` | `"lose"` (end the episode with `illegal_reward`, as Gymnasium's `check_env` expects of any action in the space) or `"raise"` (raise `IllegalActionError`, nothing changes) | `"lose"` |
| `illegal_reward` | with `"lose"`: a number <= minus the worst loss           | see above  |
| `render_view`    | `"table"` (both hands) or `"learner"` (the learner's view) | `"table"` |
| `rules`, `mode`, `hand_rewards`, `render_mode` | as above                     |            |

```python
import gymnasium
import sixtysix_env  # registers SixtySix-v0
from sb3_contrib import MaskablePPO

env = gymnasium.make("SixtySix-v0", opponent="random")
model = MaskablePPO("MultiInputPolicy", env).learn(10_000)
```

## Version history

* v0: first release (sixtysix 0.1.0), observation format version 1.
  Since then (same observations, actions and rewards): `infos` are the plain
  numbers above on every step (they were a `HandResult` object under
  `hand_result` on a hand's last step only, now `last_hand_result`); the
  single-agent environment's `illegal_action` defaults to `"lose"` (was
  `"raise"`) and keeps an unsupported `render_mode` with a warning; `env()`
  gained `observation_format="flat"`. Other libraries: `docs/ecosystem.md`.
"""

from __future__ import annotations

import random
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game.engine import HandResult
from ..game.rules import RuleConfig
from ..game.view import player_view
from ..policy.observation import (
    OBS_SIZE,
    OBS_VERSION,
    action_mask,
    encode_view,
    encode_with_mask,
)
from ..util.checks import as_seed, is_int
from .core import (
    AGENTS,
    SEATS,
    Table,
    check_illegal_reward,
    check_options,
    make_spaces,
    seat_of,
    show,
    worst_loss,
)

OBSERVATION_FORMATS = ("dict", "flat")


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` inside PettingZoo's standard wrappers.

    ``illegal_reward`` (default: minus the worst loss legal play can bring,
    see :meth:`raw_env.worst_loss`) is what an agent gets for an illegal
    move, which ends the episode (PettingZoo's ``TerminateIllegalWrapper``:
    the other agent gets 0). It may not be milder than that worst loss.
    An action outside 0-33 fails an assertion (``AssertOutOfBoundsWrapper``);
    calls out of order raise (``OrderEnforcingWrapper``).

    ``observation_format``: ``"dict"`` (default, ``{"observation",
    "action_mask"}``) or ``"flat"`` (one ``Box`` of 383, the mask last, for
    SuperSuit's observation wrappers: see
    :class:`~sixtysix_env.env.wrappers.FlatObservation`).
    """
    illegal_reward = kwargs.pop("illegal_reward", None)
    observation_format = kwargs.pop("observation_format", "dict")
    if observation_format not in OBSERVATION_FORMATS:
        raise ValueError(
            f"unknown observation_format {observation_format!r}; allowed: "
            + ", ".join(map(repr, OBSERVATION_FORMATS))
        )
    base = raw_env(**kwargs)
    worst = base.worst_loss()
    illegal_reward = check_illegal_reward(illegal_reward, worst)
    e = _TerminateIllegalWrapper(base, illegal_reward=float(illegal_reward))
    e = _AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    if observation_format == "flat":
        from .wrappers import FlatObservation

        e = FlatObservation(e)
    return e


# PettingZoo's standard wrappers, each with one fix; subclasses rather than
# extra layers, since every layer costs each attribute lookup a hop.


class _TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """Checks the next action against the env's own mask, not the caller's copy.

    PettingZoo's wrapper keeps the very dict it hands out and checks the next
    action against its ``action_mask``: a caller who edited that array in
    place changed the check. This keeps a private copy of the mask.
    """

    def observe(self, agent: str):
        obs = super().observe(agent)
        if self._prev_obs is obs:
            self._prev_obs = {"action_mask": obs["action_mask"].copy()}
        return obs


class _AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """Refuses a non-integer action (a bool, a float) with the env's own error first.

    ``TerminateIllegalWrapper`` indexes the action mask with the action
    (``mask[True]`` is an array, so a bool failed with numpy's "truth value
    of an array is ambiguous") and the bounds check asserts: this applies the
    one rule of :mod:`sixtysix_env.util.checks`, as ``raw_env.step`` does.
    """

    def step(self, action) -> None:
        if action is not None and type(action) is not int and not is_int(action):
            raise self.env.unwrapped._table.legal_error(action, self.agent_selection)
        super().step(action)


class raw_env(AECEnv):
    """Two-player Sixty-Six, one hand or one match per episode.

    Options (keywords): ``rules`` (preset name, ``RuleConfig`` or dict of
    switches; default ``"altmisalti"``), ``mode`` (``"hand"`` or
    ``"match"``), ``hand_rewards`` (match mode: also reward each hand's game
    points, ``True`` or a weight), ``render_mode`` (``None``, ``"human"``,
    ``"ansi"``), ``render_agent`` (``None`` for a neutral picture showing
    both hands, or an agent name to draw only that player's view).
    """

    metadata = {
        "name": "sixtysix_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | RuleConfig | dict = "altmisalti",
        mode: str = "hand",
        hand_rewards: bool | float = False,
        render_mode: str | None = None,
        render_agent: str | None = None,
    ) -> None:
        super().__init__()
        config, mode, weight = check_options(rules, mode, hand_rewards, render_mode)
        if render_agent is not None:
            seat_of(render_agent)
        self.rules = config
        self.mode = mode
        self.hand_rewards = weight
        self.render_mode = render_mode
        self.render_agent = render_agent
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        action_space, observation_space = make_spaces()
        self.action_spaces = {a: action_space for a in AGENTS}
        self.observation_spaces = {a: observation_space for a in AGENTS}
        self._table = Table(config, mode, weight)
        self._rng: random.Random | None = None
        # Each seat's encoded (observation, mask) of this step, once asked for.
        self._obs: list[tuple | None] = [None, None]
        self._rewarded = False
        self._infos_set = False

    # -- spaces ---------------------------------------------------------------

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def worst_loss(self) -> float:
        """The most legal play can lose in one episode (3 in hand mode; see core.worst_loss)."""
        return worst_loss(self.mode, self.rules.match_target, self.hand_rewards)

    # -- the episode ------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode; ``seed`` fixes the deals, no seed continues the generator.

        ``options`` is accepted for the API and not used.
        """
        seed = as_seed(seed)
        if seed is not None or self._rng is None:
            self._rng = random.Random(seed)
        state = self._table.deal(self._rng)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = self._quiet_infos()
        self._rewarded = False
        self._infos_set = False
        self._obs = [None, None]
        self.agent_selection = AGENTS[state.current_player()]
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table
        state = table.state
        if type(action) is not int:
            if not is_int(action):  # the one rule: see sixtysix_env.util.checks
                raise table.legal_error(action, agent)
            action = int(action)
        if not (0 <= action < 34 and state.legal_mask() >> action & 1):
            raise table.legal_error(action, agent)

        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self.rewards = {a: 0.0 for a in AGENTS}
            self._rewarded = False
        if self._infos_set:
            self.infos = self._quiet_infos()
            self._infos_set = False
        result, over, (r0, r1) = table.apply(action)
        self._obs = [None, None]
        if result is not None:
            self.rewards = {AGENTS[0]: r0, AGENTS[1]: r1}
            self._rewarded = True
            self._accumulate_rewards()
            # Infos change only when a hand ends (and back on the next step),
            # so a quiet step builds none.
            self.infos = {a: table.info(result) for a in AGENTS}
            self._infos_set = True
        if over:
            self.terminations = {a: True for a in AGENTS}
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[table.state.current_player()]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict:
        """``{"observation": float32[349], "action_mask": int8[34]}`` from the agent's view.

        Every call returns fresh copies of the step's encoding (kept once per
        step): a caller that edits its arrays changes neither the env's state nor
        any later observation (``TerminateIllegalWrapper`` reads the mask too).
        """
        seat = SEATS.get(agent)
        if seat is None:
            seat_of(agent)  # raises, naming the agents
        cached = self._obs[seat]
        if cached is None:
            cached = self._obs[seat] = encode_with_mask(player_view(self._table.state, seat))
        return {"observation": cached[0].copy(), "action_mask": cached[1].copy()}

    def _quiet_infos(self) -> dict[str, dict]:
        return {a: self._table.info(None) for a in AGENTS}

    @property
    def last_hand_result(self) -> HandResult | None:
        """The engine's ``HandResult`` of the last hand ended in this episode (or None).

        ``infos`` carry its plain figures (winner, game points, reason); this
        is the rich object, with ``explain()``.
        """
        return self._table.last_result

    # -- display ------------------------------------------------------------

    def render(self) -> str | None:
        """The table as text, from ``render_agent``'s seat, or a neutral picture when it is None,
        shown as ``render_mode`` says (:func:`~sixtysix_env.env.core.show`: ``"ansi"`` returns
        it, ``"human"`` prints it)."""
        return show(self.render_mode, self._text)

    def _text(self) -> str | None:
        if self._table.state is None:
            return None
        return self._table.render(None if self.render_agent is None else seat_of(self.render_agent))

    def close(self) -> None:
        pass

    @property
    def game_state(self):
        """The engine's full state of the current hand (hidden cards included: not for agents)."""
        return self._table.state

    @property
    def match(self):
        """The engine's :class:`~sixtysix_env.game.match.Match` in match mode, else None."""
        return self._table.match


__all__ = ["OBS_SIZE", "OBS_VERSION", "action_mask", "encode_view", "env", "raw_env"]
