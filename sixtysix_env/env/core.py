"""What both environments share: options, spaces, the hand or match being played.

:class:`Table` adapts the rules engine to an episode ("hand": one deal;
"match": hands to the rule set's target) and scores it as rewards; it knows
nothing of PettingZoo or of a learner. Observations are made elsewhere, from
player views only.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterable
from itertools import islice
from numbers import Real

import gymnasium
import numpy as np
from gymnasium import spaces

from ..game.actions import NUM_ACTIONS, action_name
from ..game.engine import (
    FAILED_CLOSE,
    LAST_TRICK,
    TIE,
    WENT_OUT,
    HandResult,
    State,
    deal_from_deck,
    new_hand,
    parse_deck,
)
from ..game.match import Match
from ..game.render import render_state, render_view
from ..game.rules import PRESETS, RuleConfig, make_rules
from ..game.view import player_view
from ..policy.observation import OBS_SIZE
from ..util.checks import ALLOWED, is_int
from ..util.errors import DeckError, IllegalActionError

MODES = ("hand", "match")
RENDER_MODES = ("human", "ansi")
AGENTS = ("player_0", "player_1")
#: ``info["hand_reason"]`` codes: how the hand that ended on this step ended
#: (0: no hand ended). Numbers, not strings: TorchRL turns every info value
#: into a tensor.
HAND_REASONS = ("", WENT_OUT, FAILED_CLOSE, LAST_TRICK, TIE)
_REASON_CODE = {r: i for i, r in enumerate(HAND_REASONS)}
#: The keys of every step's ``info`` in both environments (see ``Table.info``).
INFO_KEYS = (
    "hands_played",
    "hand_over",
    "hand_winner",
    "hand_game_points",
    "hand_reason",
    "score_0",
    "score_1",
    "winner",
)
#: The most game points one hand can lose.
WORST_HAND_LOSS = 3


class ActionSpace(spaces.Discrete):
    """``Discrete(34)`` whose membership test answers plain ints without numpy.

    PettingZoo's ``AssertOutOfBoundsWrapper`` asks ``contains`` on every
    step; ``Discrete.contains`` spends microseconds converting to numpy.
    Everything else (sampling, seeding, equality) is ``Discrete``'s.
    """

    def contains(self, x) -> bool:
        if type(x) is int:
            return 0 <= x < NUM_ACTIONS
        return super().contains(x)


def make_spaces() -> tuple[spaces.Discrete, spaces.Dict]:
    """The action space and the ``Dict`` observation space of both environments."""
    action_space = ActionSpace(NUM_ACTIONS)
    observation_space = spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )
    return action_space, observation_space


def check_options(
    rules, mode, hand_rewards, render_mode, strict_render: bool = True
) -> tuple[RuleConfig, str, float]:
    """Validate the shared options; returns (rule config, mode, hand reward weight).

    ``strict_render=False`` (the Gymnasium environment) accepts a render mode
    it cannot draw with a warning, see :func:`check_render_mode`.
    """
    if isinstance(rules, str) and rules not in PRESETS:
        raise ValueError(
            f"unknown rules {rules!r}; allowed: a preset name ({', '.join(map(repr, PRESETS))}) "
            "or a sixtysix_env.RuleConfig"
        )
    if not isinstance(rules, (str, RuleConfig, dict)):
        raise ValueError(
            f"rules must be a preset name ({', '.join(map(repr, PRESETS))}), a RuleConfig "
            f"or a dict of rule switches, got {type(rules).__name__}"
        )
    config = make_rules(rules)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; allowed modes: {', '.join(map(repr, MODES))}")
    if isinstance(hand_rewards, bool):
        weight = 1.0 if hand_rewards else 0.0
    elif isinstance(hand_rewards, Real) and 0 <= hand_rewards < float("inf"):
        weight = float(hand_rewards)
    else:
        raise ValueError(
            f"hand_rewards must be True, False or a non-negative weight, got {hand_rewards!r}"
        )
    if weight and mode != "match":
        raise ValueError(
            "hand_rewards only applies to mode='match' (in mode='hand' the reward already "
            "is the hand's game points)"
        )
    check_render_mode(render_mode, strict_render)
    return config, mode, weight


def render_mode_error(render_mode) -> ValueError:
    return ValueError(
        f"unknown render_mode {render_mode!r}; allowed: None, " + ", ".join(map(repr, RENDER_MODES))
    )


def show(render_mode: str | None, text_of) -> str | None:
    """What ``render()`` does in both envs: ``"ansi"`` returns the text, ``"human"``
    prints it (and returns None); no mode warns (as Gymnasium's envs do) and returns None.
    There is no picture (``rgb_array``): this is a card game told in text. ``text_of()``
    draws the table, or gives None before the first reset."""
    if render_mode is None:
        gymnasium.logger.warn("You are calling render method without specifying any render mode.")
        return None
    if render_mode not in RENDER_MODES:
        raise render_mode_error(render_mode)
    text = text_of()
    if text is None or render_mode == "ansi":
        return text
    print(text + "\n")
    return None


def check_render_mode(render_mode, strict: bool = True) -> None:
    """Refuse an unknown render mode, or (``strict=False``) warn about a string one.

    Not strict is Gymnasium's way: ``gymnasium.make`` only warns about a mode
    missing from ``metadata["render_modes"]`` and its own environments fail
    only when asked to draw in it. Stable-Baselines3's ``make_vec_env`` asks
    every environment for ``"rgb_array"`` unless told otherwise, so refusing
    it at construction would break that standard call for nothing: the mode
    is kept and :meth:`render` raises naming the allowed modes.
    """
    if render_mode is None or render_mode in RENDER_MODES:
        return
    if strict or not isinstance(render_mode, str):
        raise render_mode_error(render_mode)
    warnings.warn(
        f"render_mode {render_mode!r} is not supported (allowed: None, "
        + ", ".join(map(repr, RENDER_MODES))
        + "); the environment runs, and render() will raise",
        stacklevel=3,
    )


def worst_loss(mode: str, target: int, weight: float) -> float:
    """The most an agent can lose from any position by legal play.

    In hand mode: 3 game points. In match mode: the match (1) plus, with hand
    rewards, every game point the opponent can still score (at most
    ``target + 2``: from ``target - 1`` a 3-point hand) times their weight.
    """
    if mode == "hand":
        return float(WORST_HAND_LOSS)
    return 1.0 + weight * (target + WORST_HAND_LOSS - 1)


def check_illegal_reward(illegal_reward: float | None, worst: float) -> float:
    """The illegal-move penalty: ``-worst`` by default; a milder one is refused."""
    if illegal_reward is None:
        return -worst
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
        raise ValueError(f"illegal_reward must be a number, got {illegal_reward!r}")
    if illegal_reward > -worst:
        raise ValueError(
            f"illegal_reward={illegal_reward!r} is milder than the worst loss legal play can "
            f"bring in this configuration ({-worst:g}); allowed: any number <= {-worst:g}"
        )
    return float(illegal_reward)


ILLEGAL_ACTION_MODES = ("raise", "lose")


def check_learner_options(
    learner_seat, illegal_action, illegal_reward, mode: str, rules: RuleConfig, weight: float
) -> float:
    """The single-agent environments' learner options checked; returns the illegal-move
    penalty (see :func:`check_illegal_reward`)."""
    if learner_seat not in (None, 0, 1) or isinstance(learner_seat, bool):
        raise ValueError(f"learner_seat must be None, 0 or 1, got {learner_seat!r}")
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(
            f"unknown illegal_action {illegal_action!r}; allowed: "
            + ", ".join(map(repr, ILLEGAL_ACTION_MODES))
        )
    worst = worst_loss(mode, rules.match_target, weight)
    return float(check_illegal_reward(illegal_reward, worst))


# -- given deals and sizes ------------------------------------------------------------------
#
# One checker for the deals a caller gives ``reset(options=...)`` in both Gymnasium
# environments: decks through :func:`~sixtysix_env.game.engine.parse_deck` (24 card ids or
# card codes, a list or one string), seats (``dealer``, ``learner_seat``) 0 or 1 by the one
# rule of :mod:`sixtysix_env.util.checks` (integers only: ``1.0`` and ``True`` are refused,
# as in ``step``). The environments check everything before they change anything, so a
# refused reset leaves the episode as it was.

#: The most games one vector environment holds (``num_envs``): each game costs some 10 KB
#: of buffers and generators (about 0.7 GB at the bound); checked before anything is built.
MAX_NUM_ENVS = 1 << 16


def check_num_envs(num_envs) -> int:
    """``num_envs`` of the vector environments: an int from 1 to :data:`MAX_NUM_ENVS`."""
    if type(num_envs) is not int or not 1 <= num_envs <= MAX_NUM_ENVS:
        raise ValueError(
            f"num_envs must be an int from 1 to {MAX_NUM_ENVS} (the bound, "
            f"sixtysix_env.env.core.MAX_NUM_ENVS), got {num_envs!r}"
        )
    return num_envs


def _shown(x) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def given_seat(x, what: str) -> int:
    """A seat of a given deal (``dealer``, ``learner_seat``) as an int; ValueError otherwise."""
    if is_int(x) and int(x) in (0, 1):
        return int(x)
    raise ValueError(f"{what} must be seat 0 or 1 ({ALLOWED}), got {_shown(x)}")


def given_seats(value, n: int, key: str) -> np.ndarray:
    """``n`` seats of given deals (``dealers``, ``learner_seats``) as int64, each checked as
    :func:`given_seat` checks one."""
    try:
        flat = np.asarray(value).reshape(-1)
    except (ValueError, TypeError):  # a ragged list
        flat = None
    what = f"{key!r} must be {n} seats, each 0 or 1 ({ALLOWED})"
    if flat is None or flat.shape != (n,):
        raise ValueError(f"{what}, got {_shown(value)}")
    if np.issubdtype(flat.dtype, np.integer) and ((flat == 0) | (flat == 1)).all():
        return flat.astype(np.int64)
    items = value if isinstance(value, (list, tuple)) else flat.tolist()  # as given
    for i, x in enumerate(items):
        if not (is_int(x) and int(x) in (0, 1)):
            raise ValueError(f"{what}; entry {i} is {_shown(x)}")
    return flat.astype(np.int64)  # integers in an object array: [0, np.int8(1)]


def given_decks(decks, n: int, rules: RuleConfig | None = None) -> np.ndarray:
    """``n`` given decks of the rules' cards as an (n, deck) int64 array (24 cards, or 20 under
    a 20-card preset), each checked by :func:`~sixtysix_env.game.engine.parse_deck` (a
    ``DeckError`` naming the deck)."""
    size = 24 if rules is None else rules.deck
    cards = np.arange(24) if rules is None else np.array(rules.deck_cards)
    try:
        arr = np.asarray(decks)
    except (ValueError, TypeError):  # a ragged list
        arr = None
    if (arr is not None and arr.shape == (n, size) and np.issubdtype(arr.dtype, np.integer)
            and (np.sort(arr, axis=1) == cards).all()):
        return arr.astype(np.int64)
    what = (f"'decks' must be {n} decks (shape ({n}, {size})), each the {size} card ids of the "
            "rules' deck or their card codes (a list, or one string)")
    if isinstance(decks, (str, bytes)) or not isinstance(decks, Iterable) or (
            arr is not None and arr.ndim == 0):
        raise DeckError(f"{what}, got {_shown(decks)}")
    rows = list(islice(decks, n + 1))
    if len(rows) != n:
        got = len(rows) if len(rows) < n else f"more than {n}"
        raise DeckError(f"{what}, got {got}")
    out = np.empty((n, size), np.int64)
    for i, row in enumerate(rows):
        try:
            out[i] = parse_deck(row, rules)
        except DeckError as e:
            raise DeckError(f"deck {i}: {e}") from None
    return out


SEATS = {a: i for i, a in enumerate(AGENTS)}


def seat_of(agent) -> int:
    try:
        return AGENTS.index(agent)
    except ValueError:
        raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}") from None


class Table:
    """The hand (or match) being played, and the rewards it hands out."""

    def __init__(self, rules: RuleConfig, mode: str, hand_weight: float) -> None:
        self.rules = rules
        self.mode = mode
        self.hand_weight = hand_weight
        self.match: Match | None = None
        self.state: State | None = None
        self.hands_played = 0
        #: The engine's result of the last hand that ended in this episode, or None.
        self.last_result: HandResult | None = None

    def deal(self, rng: random.Random, given: tuple | None = None) -> State:
        """Start an episode with deals (and the first dealer) from ``rng``, or from
        ``given``: in hand mode (deck, dealer, ...) as
        :func:`~sixtysix_env.game.engine.deal_from_deck`, in match mode (match seed, ...)."""
        self.hands_played = 0
        self.last_result = None
        if given is not None and self.mode == "hand":
            self.match = None
            self.state = deal_from_deck(given[0], dealer=given[1], rules=self.rules)
        elif given is not None:
            self.match = Match(self.rules, seed=random.Random(given[0]))
            self.state = self.match.hand
        elif self.mode == "hand":
            self.match = None
            self.state = new_hand(rng, rng.randrange(2), self.rules)
        else:
            self.match = Match(self.rules, seed=rng)
            self.state = self.match.hand
        return self.state

    def legal_error(self, action, who: str) -> IllegalActionError:
        """The error for an action that is not legal now (naming the legal ones)."""
        state = self.state
        legal = state.legal_actions()
        try:
            if not is_int(action):  # bools and floats are not action ids
                raise ValueError
            name = f"{action_name(int(action))} (id {action})"
        except (ValueError, TypeError):
            name = f"{action!r} (not an action id 0-{NUM_ACTIONS - 1})"
        if state.result is not None or (self.match is not None and self.match.is_over()):
            msg = f"illegal action {name} by {who}: the episode is over"
        else:
            seat = state.current_player()
            msg = (
                f"illegal action {name} by {who} (seat {seat}, {state.role(seat)}) in the "
                f"{state.phase()} phase; legal actions: "
                + ", ".join(f"{action_name(a)} ({a})" for a in legal)
            )
        return IllegalActionError(msg, action, legal)

    def apply(self, action: int) -> tuple[HandResult | None, bool, tuple[float, float]]:
        """Play a legal action: (result of a hand it ended, episode over, rewards)."""
        if self.match is None:
            state = self.state = self.state.apply(action)
            res = state.result
            if res is None:
                return None, False, (0.0, 0.0)
            self.hands_played = 1
            self.last_result = res
            r0, r1 = res.returns()
            return res, True, (float(r0), float(r1))
        match = self.match
        res = match.apply(action)
        self.state = match.hand
        if res is None:
            return None, False, (0.0, 0.0)
        self.hands_played += 1
        self.last_result = res
        g0, g1 = match.scored[-1]
        w = self.hand_weight
        r0 = w * (g0 - g1)
        over = match.is_over()
        if over:
            r0 += 1.0 if match.winner == 0 else -1.0
        return res, over, (r0 + 0.0, -r0 + 0.0)

    def info(self, result: HandResult | None) -> dict:
        """The step's ``info``: the same keys on every step, numbers only.

        ``result`` is the hand that ended on this step (None if none did).
        ``hands_played``: hands ended so far in the episode; ``hand_over``:
        whether one ended on this step, then its ``hand_winner`` (seat, -1
        for a tie), ``hand_game_points`` and ``hand_reason`` (a code of
        :data:`HAND_REASONS`), else -1, 0, 0; ``score_0`` / ``score_1``: the
        game points each seat has scored in the episode; ``winner``: the
        episode's winner once it is over (-1 before, or for a tied hand).
        Replay buffers and loggers stack infos key by key, so a key that comes
        and goes, or an object, breaks them (Tianshou's buffer fills the gaps
        with NaN and then refuses it); the engine's ``HandResult`` stays on
        the environment (``last_hand_result``).
        """
        m = self.match
        if m is None and result is None:
            # A hand-mode episode before its end (the common case, kept cheap).
            return {
                "hands_played": 0,
                "hand_over": False,
                "hand_winner": -1,
                "hand_game_points": 0,
                "hand_reason": 0,
                "score_0": 0,
                "score_1": 0,
                "winner": -1,
            }
        if m is not None:
            s0, s1 = m.score
            winner = m.winner if m.is_over() else -1
        else:
            s0 = s1 = 0
            winner = -1
            res = self.state.result if self.state is not None else None
            if res is not None and res.winner is not None:
                winner = res.winner
                if winner == 0:
                    s0 = res.game_points
                else:
                    s1 = res.game_points
        if result is None:
            hand = (False, -1, 0, 0)
        else:
            hand = (
                True,
                -1 if result.winner is None else result.winner,
                result.game_points if result.winner is not None else 0,
                _REASON_CODE[result.reason],
            )
        return {
            "hands_played": self.hands_played,
            "hand_over": hand[0],
            "hand_winner": hand[1],
            "hand_game_points": hand[2],
            "hand_reason": hand[3],
            "score_0": s0,
            "score_1": s1,
            "winner": winner,
        }

    def render(self, seat: int | None) -> str:
        state = self.state
        text = render_state(state) if seat is None else render_view(player_view(state, seat))
        if self.match is not None:
            m = self.match
            head = (
                f"Match ({self.rules.name}) to {m.target}: score {m.score[0]}-{m.score[1]}, "
                f"hand {len(m.results) + (0 if state.result is not None else 1)}"
            )
            if m.is_over():
                head += f"; seat {m.winner} wins the match"
            text = head + "\n" + text
        return text
