"""The checks the committed leaderboard files must pass, for any clone's root.

The committed-files tests run them on the repository (``ROOT``); the test of
``sixtysix benchmark --submit`` runs the same ones on a copy in a temporary folder, after
submitting an agent there. Each returns what is wrong, in words that name the file or the
agent and the command that fixes it (None or an empty list: nothing).
"""

from __future__ import annotations

import os

from sixtysix_env.benchmark import PROTOCOLS, PairStore, leaderboard
from sixtysix_env.benchmark.board import read_folder, read_same_deals
from sixtysix_env.benchmark.run import file_stem, pairs_to_play
from sixtysix_env.ranking.standings import PAGES, leaderboard_page, shipped_table, with_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def folder_of(root: str, name: str) -> str:
    return os.path.join(root, "docs", "benchmarks", name)


def page_problem(root: str, name: str) -> str | None:
    """Whether protocol ``name``'s page is the one its folder makes."""
    page_path = leaderboard_page(name)
    folder = folder_of(root, name)
    results, exploits = read_folder(folder)
    command = f"sixtysix leaderboard docs/benchmarks/{name} -o {page_path}"
    same_deals = [d for _, d in read_same_deals(folder)]
    page = leaderboard(results, exploits, command, same_deals=same_deals)
    with open(os.path.join(root, page_path), encoding="utf-8") as f:
        if f.read() != page:
            return f"{page_path} is not the page its folder makes: run {command}"
    return None


def table_problem(root: str, page: str) -> str | None:
    """Whether ``page`` (one of the README and docs/benchmark.md) holds the standings as
    the clone's leaderboard files make them."""
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    table = shipped_table(folder=os.path.join(root, "docs", "benchmarks"))
    if with_table(text, table) != text:
        return (f"{page}'s standings differ from the leaderboard's files: run "
                f"python -m sixtysix_env.ranking.standings {' '.join(PAGES)}")
    return None


def pair_problems(root: str, name: str) -> list[str]:
    """Whether every pair of the agents in protocol ``name``'s folder is kept there, and
    would be reused (a run plays none of them again), and no other pair is kept."""
    protocol = PROTOCOLS[name]
    folder = folder_of(root, name)
    agents = sorted(r.agent for r in read_folder(folder)[0])
    store = PairStore(os.path.join(folder, "pairs"), protocol)
    wanted = set(pairs_to_play(agents, protocol))
    said = []
    for agent in agents:
        missing = [pair for pair in pairs_to_play([agent], protocol) if pair not in store]
        rungs = [b if a == agent else a for a, b in missing]
        if rungs:
            said.append(
                f"{agent}: its pairs against {', '.join(rungs)} are not kept in "
                f"docs/benchmarks/{name}/pairs (or would be played again: another package "
                f"version or agent file). A --json result keeps none: run sixtysix benchmark "
                f"{agent}{'' if name == 'benchmark-v1' else f' --protocol {name}'} --submit "
                "in the repository's root, which plays and keeps them (and rewrites the "
                "page and the standings)")
    kept = {f"{file_stem(a)}--{file_stem(b)}.json" for a, b in wanted}
    for file in sorted(os.listdir(os.path.join(folder, "pairs"))):
        if file not in kept:
            said.append(f"docs/benchmarks/{name}/pairs/{file}: a kept pair of no agent in "
                        "the folder: delete it")
    return said
