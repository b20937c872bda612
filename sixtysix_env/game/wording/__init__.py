"""The wording layer: the sentences about a hand's events and results, the refusals and the
narration, in one place (the terminal's own screen, its help, table and prompts, stays in
``play.terminal``).

``voice``
    :class:`Voice`: how each seat is named and how a verb agrees with that name.
``events``
    the sentence for each public event of a hand (a trick, a marriage, an
    exchange, a close); ``render.describe_event`` picks one by the event's type.
``results``
    why a hand scored what it did (``HandResult.explain``), who won it, each
    side's points.
``refusals``
    why a move the person asks for is not legal now (:func:`explain_illegal`,
    the words for each refusal code of the rules), and the session's refusals.

The layer sits above the rules, actions and cards (what it words) and below the
events (``HandResult.explain``), render (``describe_event``) and the play
session, which use it: an event or a view is read by its fields (their types are
imported for annotations only). Standard library only. The words of a match against
the computer (its voice, "you" and "the computer", and the narration of its steps)
are the play's: :mod:`sixtysix_env.play.wording` (``game.wording.play`` is an alias of
it that warns).
"""

from .events import close_sentence, exchange_sentence, marriage_sentence, trick_sentence
from .refusals import REFUSAL_WORDS, explain_illegal, strict_reason
from .results import explain_hand, hand_headline, points_breakdown
from .voice import SEATS, Voice, named, third_person

__all__ = [
    "REFUSAL_WORDS",
    "SEATS",
    "Voice",
    "close_sentence",
    "exchange_sentence",
    "explain_hand",
    "explain_illegal",
    "hand_headline",
    "marriage_sentence",
    "named",
    "points_breakdown",
    "strict_reason",
    "third_person",
    "trick_sentence",
]
