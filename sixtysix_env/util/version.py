"""The package's version, written once (``pyproject.toml`` reads it from here)."""

__version__ = "0.2.0"

#: The release whose games the package still plays: two agents given the same protocol
#: play the same games in every release from it on (``tools/fingerprint.py`` checks that a
#: change keeps them). A kept benchmark pair is stamped with it, not with ``__version__``,
#: so a release that changes no game replays none of the leaderboard's pairs; bump it in
#: the change that makes a game between the same agents differ.
GAMES_VERSION = "0.1.0"
