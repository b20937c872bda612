"""One source for which agent is strongest: the leaderboard's files (sixtysix_env/ranking/standings.py).

The README, docs/benchmark.md and ``sixtysix agents`` take the ranking from them; these
tests fail when a copy differs from the files, or when a page claims "strongest" anywhere
but in the generated table.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from _leaderboard_checks import ROOT, table_problem

from sixtysix_env.agents.listing import describe_agents
from sixtysix_env.policy.shipped import exported_at, shipped_names
from sixtysix_env.ranking import standings as standings_module
from sixtysix_env.ranking.standings import (
    BEGIN,
    END,
    PAGES,
    Standing,
    ranked_protocols,
    settle,
    shipped_table,
    standings,
    strongest,
    with_table,
    within_noise,
)

FOLDER = os.path.join(ROOT, "docs", "benchmarks", "benchmark-v1")


def _read(rel: str) -> str:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def test_the_standings_are_every_full_benchmark_file_best_elo_first():
    files = {}
    for name in os.listdir(FOLDER):
        if name.endswith(".json"):
            with open(os.path.join(FOLDER, name), encoding="utf-8") as f:
                data = json.load(f)
            if data.get("format") == "sixtysix-benchmark" and not data.get("quick"):
                files[data["agent"]] = data["elo"]
    rows = standings()
    assert {s.agent for s in rows} == set(files) and len(rows) >= 7
    assert [s.elo for s in rows] == sorted(files.values(), reverse=True)
    assert all(s.elo == files[s.agent] for s in rows)
    assert strongest().agent == settle(rows).agent


@pytest.mark.parametrize("page", PAGES)
def test_each_page_holds_the_standings_as_the_files_make_them(page):
    text = _read(page)
    assert text.count(BEGIN) == 1 and text.count(END) == 1, page
    problem = table_problem(ROOT, page)
    assert problem is None, problem
    assert with_table(text, shipped_table()) == text  # the installed files: the same


@pytest.mark.parametrize("page", PAGES)
def test_no_page_claims_a_strongest_agent_outside_the_generated_table(page):
    text = _read(page)
    outside = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), "", text, flags=re.S)
    claims = [line for line in outside.splitlines() if "strongest" in line.lower()]
    assert not claims, f"{page} claims a strongest agent by hand: {claims}"


def test_sixtysix_agents_ranks_from_the_same_files():
    text = describe_agents()
    ranked = [s.agent for s in standings()]
    blocks = text.split("\n\n")
    # One block per protocol with files, the home rules' first.
    assert [b.split("(")[1].split(" ")[0] for b in blocks if b.startswith("ranking (")] == \
        ranked_protocols() and ranked_protocols()[0] == "benchmark-v1"
    lines = blocks[0].splitlines()
    order = [next(i for i, line in enumerate(lines) if re.match(rf"\s+\d+ {re.escape(a)}\s", line))
             for a in ranked]
    assert order == sorted(order)
    best = strongest(shipped_names())
    marked = [line for line in lines if line.endswith("strongest network")]
    assert len(marked) == 1 and f" {best.agent} " in marked[0]
    for s in standings():
        row = next(line for line in lines if re.match(rf"\s+\d+ {re.escape(s.agent)}\s", line))
        assert f"{s.elo:.0f}" in row
        if s.median_ms is not None:
            assert f"{s.median_ms:.2f}" in row


def test_a_page_without_the_markers_is_refused():
    with pytest.raises(ValueError, match="no block"):
        with_table("no table here", "| x |")


def test_every_shipped_policy_has_a_row_on_the_leaderboard_of_its_preset():
    """A network trained for a preset is ranked on that preset's protocol (benchmark-v1 for
    the home rules, santase-v1 for santase); a preset without a protocol fails here too."""
    from sixtysix_env.benchmark import protocol_for_rules
    from sixtysix_env.policy.shipped import trained_preset

    missing = []
    for name in shipped_names():
        protocol = protocol_for_rules(trained_preset(name))
        if protocol is None:
            missing.append(f"{name} (trained for {trained_preset(name)}, which no protocol plays)")
        elif name not in {s.agent for s in standings(protocol.name)}:
            missing.append(f"{name} (run sixtysix benchmark {name} --protocol {protocol.name} "
                           "--submit in the repository's root)")
    assert not missing, f"shipped policies without a leaderboard row: {missing}"


def test_every_shipped_network_has_a_local_best_response_on_its_leaderboard():
    """The bound of a local best response against every shipped network: a local best response file for it, in
    the benchmark folder of its preset's protocol (made under those rules), and so a figure
    in that leaderboard's exploitability table."""
    from sixtysix_env.benchmark import protocol_for_rules
    from sixtysix_env.benchmark.board import read_folder
    from sixtysix_env.policy.shipped import trained_preset

    targets: dict[str, set[str]] = {}  # a protocol's LBR targets: each folder read once
    missing = []
    for name in shipped_names():
        protocol = protocol_for_rules(trained_preset(name))
        if protocol.name not in targets:
            folder = os.path.join(ROOT, "docs", "benchmarks", protocol.name)
            targets[protocol.name] = {e["target"] for e in read_folder(folder)[1]
                                      if e.get("method") == "lbr"}
        if name not in targets[protocol.name]:
            missing.append(f"{name} (sixtysix exploit {name} --method lbr --rules "
                           f"{protocol.rules} --json docs/benchmarks/{protocol.name}/lbr-{name}"
                           ".json, then sixtysix leaderboard)")
    assert not missing, f"shipped networks without a local best response: {missing}"


# -- the strongest network: first by a significant margin, else the one shipped first ----------


def _row(agent: str, elo: float, se: float | None = 2.6) -> Standing:
    return Standing(agent, elo, {}, None, None, None, f"{agent}.json", se)


@pytest.fixture
def shipped_on(monkeypatch):
    """Export stamps for made-up networks (``name -> stamp``; None: not a shipped policy)."""
    stamps: dict[str, str | None] = {}
    monkeypatch.setattr(standings_module, "_established", stamps.get)
    return stamps


def test_a_lead_within_the_noise_keeps_the_network_shipped_first(shipped_on):
    shipped_on.update(old="2026-12-01T00:00:00Z", new="2026-12-07T00:00:00Z",
                      newer="2026-12-08T00:00:00Z", best="2026-12-09T00:00:00Z")
    # 3 points ahead, 7.2 of noise (1.96 * sqrt(2) * 2.6): the one shipped first.
    assert settle([_row("new", 1640.6), _row("old", 1637.5)]).agent == "old"
    # The same networks rated the other way round by another run: the same choice.
    assert settle([_row("old", 1640.6), _row("new", 1637.5)]).agent == "old"
    # A new network equal to them (first by 2 points) changes nothing.
    assert settle([_row("newer", 1642.6), _row("new", 1640.6), _row("old", 1637.5)]).agent \
        == "old"
    # A network ahead of every other by more than the noise is chosen.
    assert settle([_row("best", 1660.0), _row("newer", 1642.6), _row("old", 1637.5)]).agent \
        == "best"
    # Beyond the noise of the first, an older network is not chosen.
    assert settle([_row("new", 1645.0), _row("old", 1637.5)]).agent == "new"
    # Without an error (a file that does not say), the first by Elo.
    assert settle([_row("new", 1640.6, None), _row("old", 1640.0, None)]).agent == "new"
    assert settle([]) is None


def test_agents_that_are_no_shipped_policy_come_after_the_networks_then_by_elo(shipped_on):
    shipped_on.update(net="2026-12-01T00:00:00Z")
    assert settle([_row("bot", 1641.0), _row("net", 1638.0)]).agent == "net"
    assert settle([_row("bot", 1641.0), _row("bot2", 1640.0)]).agent == "bot"


def test_the_noise_is_the_95_percent_margin_of_the_difference():
    a, b = _row("a", 1600.0, 3.0), _row("b", 1600.0 - 1.96 * 5.0, 4.0)  # sqrt(9 + 16) = 5
    assert within_noise(a, b) and within_noise(b, a)
    assert not within_noise(a, _row("c", 1600.0 - 1.96 * 5.0 - 0.01, 4.0))


def test_the_committed_strongest_network_follows_the_rule():
    """On the committed files: the networks within the noise of the first by Elo, and of
    them the one shipped first, is the strongest network the tables and play's default name
    (the Elo errors from the files' hands: about 2.6 points each for a network)."""
    networks = [s for s in standings() if s.agent in shipped_names()]
    assert all(s.elo_se is not None and 1.0 < s.elo_se < 5.0 for s in networks)
    level = [s for s in networks if within_noise(networks[0], s)]
    chosen = min(level, key=lambda s: exported_at(s.agent))
    assert strongest(shipped_names()).agent == chosen.agent
    marked = [line for line in shipped_table().splitlines() if line.startswith("| ")
              and "(strongest network)" in line]
    assert len(marked) == 1 and f"`{chosen.agent}` (strongest network)" in marked[0]
