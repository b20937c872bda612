"""sixtysix: the card game Sixty-Six (Altmisalti) for reinforcement learning.

The rules engine (this package's core) imports nothing beyond the standard
library; the environments live in their own modules.
"""

from .actions import (
    CLOSE,
    EXCHANGE,
    NUM_ACTIONS,
    action_card,
    action_name,
    marriage_action,
    parse_action,
)
from .cards import card_code, cards_of, mask_of, parse_card
from .engine import (
    FAILED_CLOSE,
    LAST_TRICK,
    TIE,
    WENT_OUT,
    Close,
    Exchange,
    HandResult,
    Marriage,
    State,
    Trick,
    deal_from_deck,
    new_hand,
    play_actions,
    random_deck,
)
from .errors import DeckError, IllegalActionError, RuleConfigError, SixtySixError
from .match import Match
from .render import render_state, render_view
from .rules import PRESETS, RuleConfig, make_rules
from .view import PlayerView, determinize, player_view

__version__ = "0.1.0"

__all__ = [
    "CLOSE",
    "EXCHANGE",
    "NUM_ACTIONS",
    "FAILED_CLOSE",
    "LAST_TRICK",
    "TIE",
    "WENT_OUT",
    "Close",
    "DeckError",
    "Exchange",
    "HandResult",
    "IllegalActionError",
    "Marriage",
    "Match",
    "PRESETS",
    "PlayerView",
    "RuleConfig",
    "RuleConfigError",
    "SixtySixError",
    "State",
    "Trick",
    "action_card",
    "action_name",
    "card_code",
    "cards_of",
    "deal_from_deck",
    "determinize",
    "make_rules",
    "marriage_action",
    "mask_of",
    "new_hand",
    "parse_action",
    "parse_card",
    "play_actions",
    "player_view",
    "random_deck",
    "render_state",
    "render_view",
]

# Gymnasium registration of the single-agent environment (``SixtySix-v0``), done
# when Gymnasium is imported (so importing this package loads neither Gymnasium
# nor numpy).
from .gym_registration import install as _install_gym_registration  # noqa: E402

_install_gym_registration()
