"""The words for who does what: seat names and verbs agreeing with them, in one place.

Every sentence the package writes about a seat (a hand's result,
``wording.results``; a public event, ``wording.events``; a move in the play
session, ``wording.play``) takes a :class:`Voice`: how each seat is named and
how a verb agrees with that name. The default names the seats in the third person
("Seat 0 scores", "seat 1 has"); the play session's voice is "you" and "the
computer" ("you score", "the computer has"). No sentence is patched after
it is written. This module imports nothing of the package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

#: Verbs whose third person is not the base + "s"/"es".
_IRREGULAR = {"have": "has", "be": "is", "do": "does", "go": "goes"}


def third_person(verb: str) -> str:
    """``leads`` for ``lead``, ``has`` for ``have``: a verb after "he", "she" or a name."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s")


def _seat(seat: int) -> str:
    return f"seat {seat}"


@dataclass(frozen=True)
class Voice:
    """How sentences name each seat, and which seats are spoken to ("you", second person)."""

    name: Callable[[int], str] = _seat
    second_person: frozenset[int] = field(default_factory=frozenset)

    def who(self, seat: int, capital: bool = False) -> str:
        """The seat's name, capitalised at the start of a sentence."""
        w = self.name(seat)
        return w[0].upper() + w[1:] if capital else w

    def verb(self, seat: int, base: str) -> str:
        """``base`` agreeing with the seat: "you lead", "the computer leads"."""
        return base if seat in self.second_person else third_person(base)


def named(names: tuple[str, str], second_person: frozenset[int] = frozenset()) -> Voice:
    """A voice naming seat 0 and seat 1 ``names``."""
    return Voice(lambda seat: names[seat], frozenset(second_person))


#: The package's default: "Seat 0", "Seat 1", third person.
SEATS = named(("Seat 0", "Seat 1"))
