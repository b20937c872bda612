"""The wording layer: every sentence the package writes for people, in one place.

``voice``
    :class:`Voice`: how each seat is named and how a verb agrees with that name.

Standard library only (the rules layer uses it).
"""

from .voice import SEATS, Voice, named, third_person

__all__ = ["SEATS", "Voice", "named", "third_person"]
