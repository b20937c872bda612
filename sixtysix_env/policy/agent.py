"""A policy network as an agent: argmax or sampling over the legal actions, with the tie rule."""

from __future__ import annotations

import random
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..game.actions import NUM_ACTIONS
from ..game.view import PlayerView
from .network import SYMMETRY_TIE, PolicyNetwork
from .observation import encode_view

_ACTION_BITS = np.arange(NUM_ACTIONS, dtype=np.int64)


def _mask_of(view: PlayerView) -> np.ndarray:
    return ((np.int64(view.legal_mask) >> _ACTION_BITS) & 1).astype(bool)


class RulesMismatchWarning(UserWarning):
    """A policy plays under rules other than those it was trained for (it still plays)."""


def trained_rules(metadata: Mapping[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """The preset name and the switches a policy file says it was trained under (either
    may be None for a file that does not record them)."""
    rules = metadata.get("rules")
    switches = dict(rules) if isinstance(rules, Mapping) else None
    preset = metadata.get("rule_preset")
    if not isinstance(preset, str):
        preset = switches.get("name") if switches and isinstance(switches.get("name"), str) else None
    return preset, switches


def rules_difference(metadata: Mapping[str, Any], rules: Any) -> list[str] | None:
    """The switches on which ``rules`` (a :class:`~sixtysix_env.game.rules.RuleConfig`) differs
    from the rules the policy was trained for; None where the file records none."""
    preset, switches = trained_rules(metadata)
    if switches is not None:
        now = rules.to_dict()
        return sorted(k for k in now if k != "name" and k in switches and switches[k] != now[k])
    if preset is not None:
        return [] if preset == rules.name else ["preset"]
    return None


class PolicyAgent:
    """An exported policy as an agent: argmax over legal actions, or sampling with ``rng``."""

    def __init__(
        self,
        network: PolicyNetwork,
        metadata: Mapping[str, Any] | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        if not isinstance(deterministic, bool):
            raise TypeError(f"deterministic must be True or False, got {deterministic!r}")
        self.network = network
        self.metadata = dict(metadata or {})
        self.deterministic = deterministic
        self.name = name or str(self.metadata.get("name") or "policy")
        self._rules_checked: Any = None
        self._rules_ok = True

    def check_rules(self, rules: Any, warn: bool = True) -> bool:
        """Warn once (:class:`RulesMismatchWarning`) when ``rules`` differ from those the
        policy was trained for; True when they match or the file records none.
        ``warn=False`` records the rules without a warning (where the caller has warned
        already, say an evaluation's worker process)."""
        if self._rules_checked is not None and (
            self._rules_checked is rules or self._rules_checked == rules
        ):
            self._rules_checked = rules
            return self._rules_ok
        self._rules_checked = rules
        differ = rules_difference(self.metadata, rules)
        self._rules_ok = not differ
        if differ and warn:
            preset, _ = trained_rules(self.metadata)
            what = "the rule preset" if differ == ["preset"] else ", ".join(differ)
            warnings.warn(
                f"policy {self.name!r} was trained for the {preset or 'other'} rules and plays "
                f"{rules.name} here ({what} differ): it plays on, likely weaker than under its "
                "own rules ('sixtysix agents' shows each network's rules)",
                RulesMismatchWarning,
                stacklevel=3,
            )
        return self._rules_ok

    def action_probabilities(self, view: PlayerView) -> np.ndarray:
        """Probabilities over all 34 action ids (0 for illegal ones) for ``view.seat``."""
        return self.network.probabilities(encode_view(view), _mask_of(view))

    def act(self, view: PlayerView, rng: random.Random) -> int:
        rules = getattr(view, "rules", None)  # a stand-in view may carry none
        if rules is not None and rules is not self._rules_checked:
            self.check_rules(rules)
        legal = view.legal_mask
        if not legal:
            raise ValueError(f"{self.name}: seat {view.seat} has no legal action in this view")
        if legal & (legal - 1) == 0:  # one legal action: no need to think
            return legal.bit_length() - 1
        mask = _mask_of(view)
        obs = encode_view(view)
        net = self.network
        logits = net.logits(obs, mask) if net.reads_mask else net.logits(obs)
        if self.deterministic:
            z = np.where(mask, logits, -np.inf)
            if self.network.symmetry is None:
                # The first of equal best logits: the same answer on every machine.
                return int(np.argmax(z))
            # Moves that a renaming of the suits maps onto each other in this position
            # (say the 9 of clubs and the 9 of diamonds where nothing else tells the two
            # suits apart) get equal averaged logits, up to float rounding, which depends
            # on the machine and the BLAS path. The first of those within SYMMETRY_TIE of
            # the best is the same answer everywhere.
            return int(np.argmax(z >= z.max() - SYMMETRY_TIE))
        z = np.where(mask, logits.astype(np.float64), -np.inf)
        z -= z.max()
        p = np.exp(z)
        cum = np.cumsum(p)
        u = rng.random() * cum[-1]
        a = int(np.searchsorted(cum, u, side="right"))
        a = min(a, NUM_ACTIONS - 1)
        while not mask[a]:  # u landed on the edge of an illegal (zero-width) action
            a -= 1
        return a

    def __repr__(self) -> str:
        mode = "argmax" if self.deterministic else "sampling"
        return (
            f"PolicyAgent({self.name!r}, {self.network.layers}, {self.network.activation}, {mode})"
        )
