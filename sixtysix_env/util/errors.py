"""Errors a user can act on."""


class SixtySixError(Exception):
    """Base class of this package's errors."""


class RuleConfigError(SixtySixError, ValueError):
    """An unknown preset, unknown switch, or a switch value out of range."""


class DeckError(SixtySixError, ValueError):
    """A malformed deck order for a scenario."""


class IllegalActionError(SixtySixError, ValueError):
    """An action that is not legal in the state it was applied to."""

    def __init__(self, message: str, action=None, legal_actions=()):
        super().__init__(message)
        self.action = action
        self.legal_actions = tuple(legal_actions)
