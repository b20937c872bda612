"""The sentences about a hand's public events: a trick, a marriage, an exchange, a close.

One function for each kind of event (:mod:`sixtysix_env.game.events`), each one
sentence without a final stop; :func:`sixtysix_env.game.render.describe_event` picks
the one for an event's type (this layer sits below the events, so it reads them
by their fields). ``voice`` names the seats and makes the verbs agree
(:class:`~sixtysix_env.game.wording.voice.Voice`), ``name`` names a card and
``capital`` capitalises the seats' names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..cards import NUM_RANKS, RANK_NAMES, SUIT_NAMES
from ..rules import trick_points
from .voice import Voice

if TYPE_CHECKING:  # only for annotations: the events sit above this layer
    from ..events import Close, Exchange, Marriage, Trick

Name = Callable[[int], str]


def trick_sentence(e: Trick, voice: Voice, name: Name, capital: bool = False) -> str:
    """``Trick  3: seat 0 leads KH, seat 1 plays AH: seat 1 wins (15 points)``."""
    f, w = 1 - e.leader, e.winner
    who, verb = voice.who, voice.verb
    return (
        f"Trick {e.number:2d}: {who(e.leader, capital)} {verb(e.leader, 'lead')} {name(e.lead)}, "
        f"{who(f, capital)} {verb(f, 'play')} {name(e.follow)}: {who(w, capital)} "
        f"{verb(w, 'win')} ({trick_points(e)} points)"
    )


def marriage_sentence(e: Marriage, voice: Voice, name: Name, capital: bool = False) -> str:
    """``seat 0 declares a marriage in hearts (20): leads KH, shows QH``."""
    s, verb = e.seat, voice.verb
    return (
        f"{voice.who(s, capital)} {verb(s, 'declare')} a marriage in {SUIT_NAMES[e.suit]} "
        f"({e.points}): {verb(s, 'lead')} {name(e.led)}, {verb(s, 'show')} {name(e.shown)}"
    )


def exchange_sentence(e: Exchange, voice: Voice, name: Name, capital: bool = False) -> str:
    """``seat 0 exchanges the 9 of trumps for AC`` (the jack with the 20-card deck)."""
    low = RANK_NAMES[e.nine % NUM_RANKS]
    return (
        f"{voice.who(e.seat, capital)} {voice.verb(e.seat, 'exchange')} the {low} of trumps "
        f"for {name(e.taken)}"
    )


def close_sentence(e: Close, voice: Voice, name: Name, capital: bool = False) -> str:
    """``seat 0 closes the stock``."""
    return f"{voice.who(e.seat, capital)} {voice.verb(e.seat, 'close')} the stock"
