"""The web game under the 20-card presets: the page offers them, a match plays to its end."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("flask", reason="the web game needs the [play] extra")

from sixtysix_env.play import web


@pytest.mark.parametrize("rules", ["schnapsen", "schnapsen-vu"])
def test_a_match_under_the_20_card_rules(rules):
    client = web.create_app(seed=3, default="random", min_think_seconds=0).test_client()
    assert rules in client.get("/api/options").get_json()["rules"]
    r = client.post("/api/games", json={"opponent": "random", "rules": rules})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    gid, rng = game["game_id"], random.Random(1)
    h = game["hand"]
    assert len(h["your_cards"]) == 5 and h["stock"]["size"] == 10
    offered = []
    for _ in range(400):
        if game["match"]["over"]:
            break
        if game["result"] is not None:
            r = client.post(f"/api/games/{gid}/next", json={})
        else:
            moves = game["hand"]["moves"]
            if "exchange" in game["hand"]:
                offered.append(game["hand"]["exchange"]["give"])
            r = client.post(f"/api/games/{gid}/act", json={"action": rng.choice(moves)["action"]})
        assert r.status_code == 200, r.get_json()
        game = r.get_json()
    assert game["match"]["over"]
    # The exchange button gives the trump jack (not a 9: there are none).
    assert offered and all(code.startswith("J") for code in offered)
