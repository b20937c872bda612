"""The rule configuration: one named switch per row of the preset table.

``docs/rules.md`` describes the rules these switches select: the default
rule set, ``altmisalti``, and two published families, ``pagat66`` and
``santase`` (the table of every switch per preset is docs/rules.md §17).
Any switch can be overridden by name::

    rules = make_rules("pagat66", match_target=11)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .errors import RuleConfigError

FAILED_CLOSE_PENALTIES = ("2", "2-or-3", "3")
OPPONENT_TOTALS_AT = ("end", "close")
TIE_RULES = ("no-points", "carry-over")


@dataclass(frozen=True)
class RuleConfig:
    """Switches of a Sixty-Six rule set (see the preset table in docs/rules.md §17)."""

    name: str = "altmisalti"
    #: Strict phase: a follower who can follow suit must beat the led card if able.
    must_beat_in_suit: bool = False
    #: Marriages may still be declared once the stock is closed or exhausted.
    marriage_after_close: bool = False
    #: The stock may be closed on the very first lead of a hand.
    close_on_first_lead: bool = True
    #: Fewest face-down cards left in the stock for closing.
    min_stock_to_close: int = 1
    #: Fewest face-down cards left in the stock for exchanging the trump 9.
    min_stock_to_exchange: int = 1
    #: What a closer who fails gives the opponent: "2", "3", or "2-or-3"
    #: (3 if the opponent had won no trick when the stock was closed).
    failed_close_penalty: str = "2"
    #: When a closer goes out, the opponent's totals are taken at the "end"
    #: of the hand or at the moment of the "close".
    opponent_totals_at: str = "end"
    #: A 65-65 hand: "no-points", or "carry-over" (each tied hand adds one
    #: game point for the winner of the next hand that is not tied).
    tie_rule: str = "no-points"
    #: Game points that win a match.
    match_target: int = 7
    #: Points that win a hand at once (card points plus marriages).
    going_out: int = 66
    #: Bonus for the last trick when the hand runs out without a close.
    last_trick_bonus: int = 10

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            want = {"bool": bool, "int": int, "str": str}[f.type]
            if type(value) is not want:
                raise RuleConfigError(
                    f"rule switch {f.name!r} must be a {want.__name__}, got {value!r}"
                )
        for key, allowed in (
            ("failed_close_penalty", FAILED_CLOSE_PENALTIES),
            ("opponent_totals_at", OPPONENT_TOTALS_AT),
            ("tie_rule", TIE_RULES),
        ):
            if getattr(self, key) not in allowed:
                raise RuleConfigError(
                    f"rule switch {key!r} got {getattr(self, key)!r}; "
                    f"allowed values: {', '.join(map(repr, allowed))}"
                )
        for key, lo, hi in (
            ("min_stock_to_close", 1, 11),
            ("min_stock_to_exchange", 1, 11),
            ("match_target", 1, 1000),
            ("going_out", 1, 200),
            ("last_trick_bonus", 0, 100),
        ):
            if not lo <= getattr(self, key) <= hi:
                raise RuleConfigError(
                    f"rule switch {key!r} got {getattr(self, key)!r}; allowed: {lo} to {hi}"
                )

    def replace(self, **changes: Any) -> RuleConfig:
        """A copy with some switches changed (unknown names are an error)."""
        _check_switch_names(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


SWITCHES = tuple(f.name for f in dataclasses.fields(RuleConfig) if f.name != "name")

PRESETS: dict[str, RuleConfig] = {
    "altmisalti": RuleConfig(),
    "pagat66": RuleConfig(
        name="pagat66",
        must_beat_in_suit=True,
        close_on_first_lead=False,
        failed_close_penalty="2-or-3",
    ),
    "santase": RuleConfig(
        name="santase",
        must_beat_in_suit=True,
        marriage_after_close=True,
        close_on_first_lead=False,
        min_stock_to_close=2,
        min_stock_to_exchange=2,
        failed_close_penalty="3",
        match_target=11,
    ),
}


def _check_switch_names(changes: dict[str, Any]) -> None:
    unknown = sorted(set(changes) - set(SWITCHES) - {"name"})
    if unknown:
        raise RuleConfigError(
            f"unknown rule switch {', '.join(map(repr, unknown))}; "
            f"allowed switches: {', '.join(SWITCHES)}"
        )


def make_rules(rules: str | RuleConfig | dict | None = None, **overrides: Any) -> RuleConfig:
    """Resolve a preset name, a ``RuleConfig`` or a dict of switches.

    A dict may name its base preset under ``"preset"`` (or ``"name"``); its
    other keys are switches. Keyword overrides are applied last.
    """
    if rules is None:
        base = PRESETS["altmisalti"]
    elif isinstance(rules, RuleConfig):
        base = rules
    elif isinstance(rules, str):
        try:
            base = PRESETS[rules]
        except KeyError:
            raise RuleConfigError(
                f"unknown rule preset {rules!r}; allowed presets: {', '.join(PRESETS)}"
            ) from None
    elif isinstance(rules, dict):
        d = dict(rules)
        preset = d.pop("preset", None)
        name = d.get("name")
        if preset is None and name in PRESETS:
            preset = d.pop("name")
        base = make_rules(preset)
        _check_switch_names(d)
        overrides = {**d, **overrides}
    else:
        raise RuleConfigError(
            f"rules must be a preset name ({', '.join(PRESETS)}), a RuleConfig or a dict, "
            f"got {type(rules).__name__}"
        )
    if overrides:
        _check_switch_names(overrides)
        if "name" not in overrides:
            overrides["name"] = base.name + "+custom" if not base.name.endswith("+custom") else base.name
        base = dataclasses.replace(base, **overrides)
    return base
