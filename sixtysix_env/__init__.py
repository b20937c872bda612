"""sixtysix: the card game Sixty-Six (Altmisalti) for reinforcement learning.

The folders are the layers, bottom to top: ``util`` (standard-library
helpers), ``game`` (the rules tower, standard library only), ``policy`` (the
observation and the numpy networks), ``batched`` (the compiled engine),
``agents``, ``env`` (the environments, their adapters and the AEC page), and
the front doors ``evaluation``, ``benchmark``, ``play`` and ``cli``
(``docs/architecture.md``). Importing this package loads the rules engine only;
``sixtysix_v0`` and ``openspiel_game`` are imported on first use. The module paths
of 0.1.0 that moved into the folders (``sixtysix_env.engine``,
``sixtysix_env.openspiel_game``, ...) still import, as aliases that warn once
(:mod:`.util.moved`, ``CHANGELOG.md``).
"""

from .game.actions import (
    CLOSE,
    EXCHANGE,
    NUM_ACTIONS,
    action_card,
    action_name,
    marriage_action,
    parse_action,
)
from .game.cards import card_code, cards_of, mask_of, parse_card
from .game.engine import (
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
from .game.match import Match
from .game.render import render_state, render_view
from .game.rules import PRESETS, RuleConfig, make_rules
from .game.view import PlayerView, determinize, player_view
from .util.errors import DeckError, IllegalActionError, RuleConfigError, SixtySixError
from .util.version import __version__ as __version__

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

# The environment pages, imported on first use (PettingZoo and OpenSpiel are heavy, and
# OpenSpiel optional): ``from sixtysix_env import sixtysix_v0`` as PettingZoo's own
# environments are imported.
_LAZY_MODULES = {
    "sixtysix_v0": "sixtysix_env.env.sixtysix_v0",
    "openspiel_game": "sixtysix_env.env.openspiel",
}


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        import importlib

        module = importlib.import_module(_LAZY_MODULES[name])
        globals()[name] = module
        return module
    raise AttributeError(f"module 'sixtysix_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY_MODULES])


# Gymnasium registration of the single-agent environment (``SixtySix-v0``), done
# when Gymnasium is imported (so importing this package loads neither Gymnasium
# nor numpy).
from .env.registration import install as _install_gym_registration  # noqa: E402

_install_gym_registration()
