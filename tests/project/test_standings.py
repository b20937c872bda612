"""One source for which agent is strongest: the leaderboard's files (sixtysix_env/policy/standings.py).

The README, docs/benchmark.md and ``sixtysix agents`` take the ranking from them; these
tests fail when a copy differs from the files, or when a page claims "strongest" anywhere
but in the generated table.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from sixtysix_env.agents.listing import describe_agents
from sixtysix_env.policy.shipped import shipped_names
from sixtysix_env.policy.standings import (
    BEGIN,
    END,
    ranked_protocols,
    shipped_table,
    standings,
    strongest,
    with_table,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ("README.md", os.path.join("docs", "benchmark.md"))
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
    assert strongest().agent == rows[0].agent


@pytest.mark.parametrize("page", PAGES)
def test_each_page_holds_the_standings_as_the_files_make_them(page):
    text = _read(page)
    assert text.count(BEGIN) == 1 and text.count(END) == 1, page
    assert with_table(text, shipped_table()) == text, (
        f"{page}'s standings differ from the leaderboard's files: run "
        f"python -m sixtysix_env.policy.standings {page}"
    )


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
                           f"--out-dir docs/benchmarks/{protocol.name}, then sixtysix "
                           "leaderboard)")
    assert not missing, f"shipped policies without a leaderboard row: {missing}"


def test_every_shipped_network_has_a_local_best_response_on_its_leaderboard():
    """Issue 52's bound against every shipped network: a local best response file for it, in
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
