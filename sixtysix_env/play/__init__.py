"""Play a match against the computer: in the terminal or in a web page.

``session`` holds the one piece both front ends share: a
:class:`~sixtysix_env.play.session.GameSession` keeps the full state of a
match on the server side and hands the person only their seat's
:class:`~sixtysix_env.game.view.PlayerView` (and, once a hand is over, both hands
as they lay at its end). ``terminal`` (``sixtysix play``) and ``web``
(``sixtysix serve``) are thin front ends over it; opponents are resolved
only through :func:`sixtysix_env.agents.make_agent`.
"""

from .session import COMPUTER, HUMAN, GameSession, IllegalMove, Step

__all__ = ["COMPUTER", "HUMAN", "GameSession", "IllegalMove", "Step"]
