"""The benchmark protocol: a fixed ladder of opponents, fixed deals, fixed seeds.

A protocol is versioned: its figures are comparable with any other figures of
the same version, on any machine, with any number of workers. A change to the
ladder, a count or a seed is a new version (``benchmark-v2``), never an edit
of this one.

``benchmark-v1`` (rules preset ``altmisalti``, the home rules):

* ladder, in its order: ``random``, ``heuristic``, ``sixtysix-ppo``,
  ``sixtysix-ppo-v2``, ``sixtysix-ppo-v2-sym``, ``expert``, ``guided``;
* against each rung: 2,000 paired deals (4,000 hands) from seed 660001 and
  500 paired match seeds (1,000 matches to 7) from seed 660002; against the
  search bots (``expert``, ``guided``: tens of milliseconds a decision) 300
  paired deals and 40 paired match seeds, from the same seeds (the first
  ones of the same sequence);
* the Elo scale is anchored at ``heuristic`` = 1500 and fitted to hands won
  (a tie counts half): the ladder's ratings from its own round robin, and a
  new agent's rating against those, fixed (adding an agent moves no one).

``santase-v1`` is the same for the ``santase`` rules (matches to 11): ladder
``random``, ``heuristic``, ``sixtysix-ppo-v4`` (trained for ``altmisalti``: the
strongest network before one was trained for ``santase``) and ``expert``, the
same counts, deals from seed 660011 and match seeds from 660012.
``pagat66-v1`` is the same again for the ``pagat66`` rules (matches to 7), with
deals from seed 660021 and match seeds from 660022. ``schnapsen-vu-v1`` is the
same for the ``schnapsen-vu`` rules (the ``schnapsen`` package's game, 20 cards, matches
to 7), with deals from seed 660031 and match seeds from 660032, and the package's own bots
on its ladder: ``random``, ``schnapsen:bully``, ``heuristic``,
``schnapsen:rdeep:num_samples=16,depth=4``, ``sixtysix-ppo-v5`` (the strongest network
before one was trained for ``schnapsen-vu``) and ``expert``; ``expert`` and the rdeep bot
(both a search: milliseconds a decision) play the search counts. Running a pair with a
``schnapsen:`` rung needs that package (the ``[schnapsen]`` extra); reading the committed
figures does not. A network trained for a preset is ranked on that preset's protocol
(:func:`protocol_for_rules`).

The seeds 660001, 660002, 660011, 660012, 660021, 660022, 660031 and 660032 are used by no
training config and
no selection in this repository, so a shipped network is not measured on deals it was
chosen on. ``--quick`` plays the first 100 deals and 10 match seeds against
each rung (10 deals and 2 match seeds against the search bots): a smoke
test and a first look, not figures to cite.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Protocol:
    """What a benchmark plays: the ladder and how many deals and matches against each rung."""

    name: str
    rules: str
    ladder: tuple[str, ...]
    #: Rungs whose decisions cost a search; a pair with one of them plays the search counts.
    search: frozenset[str]
    deals: int
    matches: int
    search_deals: int
    search_matches: int
    hand_seed: int
    match_seed: int
    anchor: str = "heuristic"
    anchor_elo: float = 1500.0
    quick: bool = False

    def counts(self, a: str, b: str) -> tuple[int, int]:
        """(paired deals, paired match seeds) for the pair ``a``, ``b``."""
        if a in self.search or b in self.search:
            return self.search_deals, self.search_matches
        return self.deals, self.matches

    def quick_variant(self) -> Protocol:
        """The same deals and seeds, fewer of them: for CI and a first look."""
        return replace(self, deals=100, matches=10, search_deals=10, search_matches=2, quick=True)

    def describe(self) -> str:
        q = " (quick)" if self.quick else ""
        return (
            f"{self.name}{q}: rules {self.rules}; {self.deals} paired deals (seed "
            f"{self.hand_seed}) and {self.matches} paired match seeds (seed {self.match_seed}) "
            f"per rung, {self.search_deals} and {self.search_matches} against "
            f"{' and '.join(sorted(self.search))}; Elo {self.anchor} = {self.anchor_elo:g}"
        )


BENCHMARK_V1 = Protocol(
    name="benchmark-v1",
    rules="altmisalti",
    ladder=(
        "random", "heuristic", "sixtysix-ppo", "sixtysix-ppo-v2", "sixtysix-ppo-v2-sym",
        "expert", "guided",
    ),
    search=frozenset({"expert", "guided"}),
    deals=2000, matches=500,  # per rung
    search_deals=300, search_matches=40,  # per search bot
    hand_seed=660001, match_seed=660002,
)

SANTASE_V1 = Protocol(
    name="santase-v1",
    rules="santase",
    ladder=("random", "heuristic", "sixtysix-ppo-v4", "expert"),
    search=frozenset({"expert"}),
    deals=2000, matches=500,
    search_deals=300, search_matches=40,
    hand_seed=660011, match_seed=660012,
)

PAGAT66_V1 = replace(SANTASE_V1, name="pagat66-v1", rules="pagat66",
                     hand_seed=660021, match_seed=660022)

#: The package's rdeep bot as the issue measured it (``RdeepBot(16, 4)``).
SCHNAPSEN_RDEEP = "schnapsen:rdeep:num_samples=16,depth=4"

SCHNAPSEN_VU_V1 = replace(
    SANTASE_V1,
    name="schnapsen-vu-v1",
    rules="schnapsen-vu",
    ladder=("random", "schnapsen:bully", "heuristic", SCHNAPSEN_RDEEP, "sixtysix-ppo-v5",
            "expert"),
    search=frozenset({SCHNAPSEN_RDEEP, "expert"}),
    hand_seed=660031, match_seed=660032,
)

#: Every protocol by name; ``benchmark-v1`` (the home rules) is the default.
PROTOCOLS: dict[str, Protocol] = {
    p.name: p for p in (BENCHMARK_V1, SANTASE_V1, PAGAT66_V1, SCHNAPSEN_VU_V1)
}
DEFAULT_PROTOCOL = BENCHMARK_V1.name


def protocol_for_rules(preset: str | None) -> Protocol | None:
    """The protocol that ranks agents under the rule preset ``preset`` (None if none does)."""
    return next((p for p in PROTOCOLS.values() if p.rules == preset), None)


def get_protocol(name: str, quick: bool = False) -> Protocol:
    try:
        protocol = PROTOCOLS[name]
    except KeyError:
        raise ValueError(
            f"unknown benchmark protocol {name!r}; protocols: {', '.join(PROTOCOLS)}"
        ) from None
    return protocol.quick_variant() if quick else protocol
