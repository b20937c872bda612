"""Milliseconds per move request of the play page's API, against `random`.

    python speed/bench_web.py [--games 25] [--min-think 0]

Whole matches through Flask's test client (no sockets): the median and mean
time of a ``POST /api/games/ID/act``, the computer's answer included.
``--min-think`` is the least time a computer move takes (``sixtysix serve``
uses 0.4 s; 0 measures the server's own cost).

numpy's BLAS on one thread and how long it took, on stderr: :mod:`sixtysix_env.util.scripts`.
"""

from __future__ import annotations

import os
import sys
import time

_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread()

import argparse
import statistics

from sixtysix_env.play.store import GameStore
from sixtysix_env.play.web import create_app


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=25, help="matches to play (default 25)")
    ap.add_argument("--min-think", type=float, default=0.0, help="seconds (default 0)")
    args = ap.parse_args(argv)
    store = GameStore(per_minute=10**6, all_per_minute=10**6)
    app = create_app(seed=1, default="random", store=store, min_think_seconds=args.min_think)
    client = app.test_client()
    times = []
    for _ in range(args.games):
        game = client.post("/api/games", json={"opponent": "random"}).get_json()
        gid = game["game_id"]
        while game["result"] is None:
            move = game["hand"]["moves"][0]["action"]
            t0 = time.perf_counter()
            game = client.post(f"/api/games/{gid}/act", json={"action": move}).get_json()
            times.append(time.perf_counter() - t0)
        client.delete(f"/api/games/{gid}")
    print(
        f"{len(times)} moves: median {statistics.median(times) * 1000:.2f} ms, "
        f"mean {statistics.mean(times) * 1000:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
