"""Who is stronger: agents played against each other on paired deals.

    sixtysix eval random heuristic expert --deals 1000 --workers 2 --json eval.json
    sixtysix eval heuristic expert:samples=16 --matches 200 --rules santase

Every pair of the agents listed plays the same deals twice with the seats
swapped (the deck, the dealer and so the cards each seat gets are the same;
only who sits where changes), so the luck of the cards cancels. With
``--matches`` each pair plays whole matches to the preset's target, again
twice per match seed with the seats swapped (both matches see the same
sequence of decks).

For each pair the table shows, from the first agent's side: mean game
points per hand with a 95% confidence interval (over paired deals: the two
hands of a deal are averaged first, so the interval reflects the pairing),
hands won, and, with ``--matches``, matches won with a 95% Wilson interval.
The field gets a Bradley-Terry (Elo-scale) rating fitted to hand results
(match results with ``--matches``), anchored as the benchmark's is, at
``heuristic`` = 1500, when ``heuristic`` is in the field (else ``random`` =
1000, else the first agent = 1000); the table's title names the anchor.
The same seed gives the same numbers, whatever the number of worker
processes, as long as the agents themselves are deterministic given their
random generator (the expert's optional time budget is not).

An agent that returns an illegal action stops the run with an error naming
the agent, the action and the legal actions; that error, Ctrl-C or SIGTERM
(``timeout``, CI, ``kill``) still leaves what was measured so far in the
JSON file (``"complete": false``). The JSON file of an earlier run at the
same path is removed when a run starts, so it is never taken for this one's;
its folder must exist.

The package's modules, one job each: :mod:`.play` (the games of a pair),
:mod:`.stats` (intervals, Bradley-Terry), :mod:`.result` (the figures and
their JSON file), :mod:`.runner` (:func:`evaluate`: the process pool,
stopping cleanly), :mod:`.report` (tables) and :mod:`.cli` (``sixtysix
eval``). Everything public is importable from ``sixtysix_env.evaluation``.
"""

from __future__ import annotations

from .cli import add_arguments, run
from .play import (
    HAND,
    MATCH,
    MODES,
    DealRecord,
    IllegalAgentActionError,
    MatchRecord,
    deal_deck,
    normalize_mode,
    play_hand,
    play_paired_deal,
    play_paired_match,
)
from .report import plain_table, print_table
from .result import RESULT_FORMAT_VERSION, EvalResult, PairStats, load_result
from .runner import Terminated, check_json_path, evaluate
from .stats import Z95, bradley_terry, summarise

__all__ = [
    "HAND",
    "MATCH",
    "MODES",
    "RESULT_FORMAT_VERSION",
    "Z95",
    "DealRecord",
    "EvalResult",
    "IllegalAgentActionError",
    "MatchRecord",
    "PairStats",
    "Terminated",
    "add_arguments",
    "bradley_terry",
    "check_json_path",
    "deal_deck",
    "evaluate",
    "load_result",
    "normalize_mode",
    "plain_table",
    "play_hand",
    "play_paired_deal",
    "play_paired_match",
    "print_table",
    "run",
    "summarise",
]
