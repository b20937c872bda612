"""``sixtysix serve``: the web API through Flask's test client.

A full match over HTTP, malformed and illegal requests, games kept apart,
and a scan of every response of many games for a card the player may not
know.
"""

from __future__ import annotations

import argparse
import json
import random
import re

import pytest

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")

from sixtysix_env.agents import agent_names
from sixtysix_env.game.cards import SUITS, card_code, cards_of
from sixtysix_env.game.engine import State
from sixtysix_env.play import web
from sixtysix_env.play.session import COMPUTER, HUMAN, GameSession

MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"


@pytest.fixture
def app():
    return web.create_app(seed=100, default="random", min_think_seconds=0)


@pytest.fixture
def client(app):
    return app.test_client()


def new_game(client, **body) -> dict:
    r = client.post("/api/games", json={"opponent": "random", **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def session_of(app, gid: str) -> GameSession:
    return app.config["GAMES"].get(gid).session


def pick(game: dict, rng: random.Random) -> str:
    return rng.choice(game["hand"]["moves"])["action"]


# -- what the player may not know -----------------------------------------------------

_SYMBOL = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}
_CODE = re.compile(r"(?<![A-Za-z0-9])([9JQKTA])([CDHS])(?![A-Za-z0-9])")
_LABEL = re.compile(r"(10|[9JQKA])([\u2663\u2666\u2665\u2660])")


def cards_mentioned(obj) -> set[str]:
    """Card codes named anywhere in a JSON value: as codes (KH) or labels (K♥, 10♥).

    The game id is skipped: it is a random token and may contain "_KH_" by chance.
    """
    found: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "game_id":
                continue
            found |= cards_mentioned(k) | cards_mentioned(v)
    elif isinstance(obj, list):
        for v in obj:
            found |= cards_mentioned(v)
    elif isinstance(obj, str):
        found |= {r + s for r, s in _CODE.findall(obj)}
        found |= {("T" if r == "10" else r) + _SYMBOL[s] for r, s in _LABEL.findall(obj)}
    return found


def hidden_cards(state: State) -> set[str]:
    """Cards of ``state`` the person (seat 0) may not know, worked out from the full state.

    The face-down stock, always; and the computer's cards it has not shown,
    until the stock is used up (then every card is accounted for) or the
    hand is over (then both hands are laid open).
    """
    hidden = set(state.stock_cards)
    if state.result is None and not state.is_exhausted():
        hidden |= set(cards_of(state.hand(COMPUTER) & ~state.known_cards(COMPUTER)))
    return {card_code(c) for c in hidden}


def test_the_leak_scanner_can_fail():
    s = GameSession("random", seed=1, deck=MARRIAGE_DECK)
    hidden = hidden_cards(s.state)
    assert hidden == {
        "JD", "QD", "KD", "AS", "TS", "KS",
        "9C", "JC", "QC", "KC", "9H", "JH", "TH", "AH", "TD", "AD", "QS",
    }
    planted = {"a": [{"text": "the computer holds 10\u2665"}], "b": "KS"}
    assert cards_mentioned(planted) & hidden == {"TH", "KS"}
    assert cards_mentioned({"x": "ASK", "y": "TSX 9C5"}) == set()
    assert cards_mentioned({"game_id": "FWqhVnp_KH_tOxP8"}) == set()  # a random token


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_no_response_names_a_card_the_player_may_not_know(app, client):
    rng = random.Random(7)
    responses = 0
    for _ in range(25):
        game = new_game(client)
        gid = game["game_id"]
        while True:
            state = session_of(app, gid).state
            leaked = cards_mentioned(game) & hidden_cards(state)
            assert not leaked, f"response names hidden cards {leaked}: {json.dumps(game)[:400]}"
            responses += 1
            # The player's own view of the same thing, through a GET.
            shown = client.get(f"/api/games/{gid}").get_json()
            assert not cards_mentioned(shown) & hidden_cards(state)
            if game["match"]["over"]:
                break
            if game["result"] is not None:
                r = client.post(f"/api/games/{gid}/next", json={})
            else:
                r = client.post(f"/api/games/{gid}/act", json={"action": pick(game, rng)})
            assert r.status_code == 200, r.get_json()
            game = r.get_json()
    assert responses > 1000


def test_a_full_match_over_http(app, client):
    r = client.get("/api/options")
    opts = r.get_json()
    assert set(agent_names()) <= set(opts["opponents"])
    assert opts["default_opponent"] == "random" and "altmisalti" in opts["rules"]

    game = new_game(client, rules="altmisalti")
    gid = game["game_id"]
    assert len(gid) >= 24
    h = game["hand"]
    assert len(h["your_cards"]) == 6 and h["computer_cards"] in (5, 6)
    assert h["to_move"] == "you" and h["stock"]["size"] == 12
    assert h["trump_card"][1] == h["trump_suit"] in SUITS
    rng = random.Random(1)
    hands_seen = 0
    marriages = 0
    for _ in range(400):
        if game["match"]["over"]:
            break
        if game["result"] is not None:
            res = game["result"]
            hands_seen += 1
            assert res["explain"] and res["headline"]
            sess = session_of(app, gid)
            ts = sess.state.trump_suit
            assert res["computer_cards"] == [
                card_code(c) for c in web.sort_hand(sess.state.hand(COMPUTER), ts)
            ]
            r = client.post(f"/api/games/{gid}/next", json={})
        else:
            moves = game["hand"]["moves"]
            marry = [m for m in moves if m["kind"] == "marriage"]
            action = marry[0]["action"] if marry else pick(game, rng)
            if marry:
                marriages += 1
                before = game["hand"]["your_points"]
            r = client.post(f"/api/games/{gid}/act", json={"action": action})
            if marry and r.get_json()["result"] is None:
                assert r.get_json()["hand"]["your_points"] >= before + marry[0]["points"]
        assert r.status_code == 200, r.get_json()
        game = r.get_json()
        if r.request.path.endswith("/act"):
            assert game["steps"][0]["by"] == "you", "a move answers with what was played"
    m = game["match"]
    assert m["over"] and max(m["score"].values()) >= m["target"] == 7
    assert m["winner"] in ("you", "computer")
    assert len(m["hands"]) == hands_seen + 1 >= 2
    assert sum(h["game_points"]["you"] for h in m["hands"]) == m["score"]["you"]
    assert marriages >= 1
    # The match is over: no more moves, no next hand.
    assert client.post(f"/api/games/{gid}/next", json={}).status_code == 409
    assert client.post(f"/api/games/{gid}/act", json={"action": "AC"}).status_code == 409


def test_malformed_and_illegal_requests_change_nothing():
    app = web.create_app(seed=5, deck=MARRIAGE_DECK, default="random", min_think_seconds=0)
    client = app.test_client()
    gid = new_game(client)["game_id"]
    url = f"/api/games/{gid}"
    before = client.get(url).get_json()
    bad = [
        (client.post, f"{url}/act", {}, 400),
        (client.post, f"{url}/act", {"data": "not json", "content_type": "text/plain"}, 400),
        (client.post, f"{url}/act", {"data": "{oops", "content_type": "application/json"}, 400),
        (client.post, f"{url}/act", {"json": ["AC"]}, 400),
        (client.post, f"{url}/act", {"json": {"action": 5}}, 400),
        (client.post, f"{url}/act", {"json": {"action": ""}}, 400),
        (client.post, f"{url}/act", {"json": {"action": "ZZ"}}, 400),
        (client.post, f"{url}/act", {"json": {"action": "AC", "extra": 1}}, 400),
        (client.post, f"{url}/act", {"json": {"action": "AS"}}, 409),  # not held
        (client.post, f"{url}/act", {"json": {"action": "exchange"}}, 409),  # no 9, no trick
        (client.post, f"{url}/act", {"json": {"action": "marry-KH"}}, 409),  # no trick yet
        (client.post, f"{url}/next", {"json": {}}, 409),  # the hand is being played
        (client.post, f"{url}/next", {"json": {"x": 1}}, 400),
        (client.put, f"{url}/act", {"json": {"action": "AC"}}, 405),
        (client.get, "/api/games/not-a-game", {}, 404),
        (client.post, "/api/games/not-a-game/act", {"json": {"action": "AC"}}, 404),
        (client.post, "/api/games/not-a-game/next", {}, 404),
        (client.delete, "/api/games/not-a-game", {}, 404),
        (client.get, "/api/nothing-here", {}, 404),
    ]
    for method, path, kw, status in bad:
        r = method(path, **kw)
        assert r.status_code == status, (path, kw, r.status_code, r.get_data(as_text=True))
        assert r.is_json and r.get_json()["error"], (path, kw)
        assert client.get(url).get_json() == before, (path, kw)
    r = client.post(f"{url}/act", json={"action": "AS"})
    assert "You do not hold A\u2660" in r.get_json()["error"]
    assert "AC" in r.get_json()["legal"]
    r = client.post(f"{url}/act", json={"action": "marry-KH"})
    assert "win a trick" in r.get_json()["error"]

    # New games: only the offered opponents and presets, never a file path.
    for body, status in (
        ({"opponent": "/etc/passwd"}, 400),
        ({"opponent": "no-such-agent"}, 400),
        ({"opponent": 3}, 400),
        ({"rules": "nope"}, 400),
        ({"seed": 1}, 400),
        ({"deck": MARRIAGE_DECK}, 400),
    ):
        r = client.post("/api/games", json=body)
        assert r.status_code == status and "error" in r.get_json(), body
    assert client.post("/api/games", data="[]", content_type="application/json").status_code == 400
    huge = {"action": "AC", "pad": "x" * 100_000}
    r = client.post(f"{url}/act", json=huge)
    assert r.status_code == 413 and r.is_json
    assert len(app.config["GAMES"]) == 1

    # A legal move works after all that.
    r = client.post(f"{url}/act", json={"action": "AC"})
    assert r.status_code == 200 and r.get_json()["hand"]["tricks"]["you"] == 1
    assert client.delete(url).status_code == 204
    assert client.get(url).status_code == 404


def test_two_games_do_not_see_each_other(app, client):
    a = new_game(client)
    b = new_game(client)
    assert a["game_id"] != b["game_id"]
    b_before = client.get(f"/api/games/{b['game_id']}").get_json()
    rng = random.Random(3)
    game = a
    for _ in range(8):
        if game["result"] is not None:
            break
        game = client.post(
            f"/api/games/{a['game_id']}/act", json={"action": pick(game, rng)}
        ).get_json()
    assert client.get(f"/api/games/{b['game_id']}").get_json() == b_before
    # Neither response carries the other game's id or hidden cards.
    sa, sb = session_of(app, a["game_id"]), session_of(app, b["game_id"])
    assert sa is not sb and sa.match is not sb.match
    assert b["game_id"] not in json.dumps(game)
    assert not cards_mentioned(game) & hidden_cards(sa.state)


def test_game_ids_are_unguessable(client):
    ids = [new_game(client)["game_id"] for _ in range(5)]
    assert len(set(ids)) == 5
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{32}", i) for i in ids)


def test_store_forgets_the_oldest_idle_games_and_never_one_in_play():
    """A full store evicts only a match idle for PROTECTED_S; while
    every match is in play a new one is refused (503), never an active player's."""
    now = [0.0]
    store = web.GameStore(max_games=3, protected_s=600, clock=lambda: now[0])
    app = web.create_app(seed=1, default="random", store=store, min_think_seconds=0)
    client = app.test_client()
    ids = [new_game(client)["game_id"] for _ in range(3)]
    r = client.post("/api/games", json={"opponent": "random"})
    assert r.status_code == 503 and "all in play" in r.get_json()["error"]
    assert all(client.get(f"/api/games/{i}").status_code == 200 for i in ids)
    now[0] += 601
    assert client.get(f"/api/games/{ids[1]}").status_code == 200  # in play again
    ids.append(new_game(client)["game_id"])  # makes room: the oldest idle one goes
    assert client.get(f"/api/games/{ids[0]}").status_code == 404
    assert all(client.get(f"/api/games/{i}").status_code == 200 for i in ids[1:])


def test_fixed_deck_marriage_through_http():
    app = web.create_app(seed=9, deck=MARRIAGE_DECK, default="random", min_think_seconds=0)
    client = app.test_client()
    game = new_game(client)
    gid = game["game_id"]
    assert game["hand"]["your_cards"] == ["9D", "9S", "JS", "QH", "KH", "AC"]
    assert game["hand"]["stock"]["trump_card"] == "TC"
    game = client.post(f"/api/games/{gid}/act", json={"action": "AC"}).get_json()
    kinds = {m["action"]: m for m in game["hand"]["moves"]}
    assert kinds["marry-KH"]["points"] == 20 and kinds["marry-QH"]["kind"] == "marriage"
    assert game["hand"]["exchange"] == {"give": "9C", "take": "TC"}
    points = game["hand"]["your_points"]
    game = client.post(f"/api/games/{gid}/act", json={"action": "marry-KH"}).get_json()
    assert game["steps"][0]["kind"] == "marriage"
    assert "declare a marriage in hearts (20)" in game["steps"][0]["text"]
    assert game["hand"]["your_points"] >= points + 20
    assert any(e["type"] == "marriage" and e["by"] == "you" for e in game["hand"]["events"])


def test_page_and_headers(client):
    r = client.get("/")
    assert r.status_code == 200 and b"Sixty-Six" in r.data
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    for name in ("table.js", "table.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../web.py").status_code == 404
    assert client.get("/api/options").headers["Cache-Control"] == "no-store"


def test_serve_arguments_default_to_loopback():
    parser = argparse.ArgumentParser()
    web.add_arguments(parser)
    args = parser.parse_args([])
    assert args.host == "127.0.0.1" and args.port == 8066
    assert web._is_loopback("127.0.0.1") and web._is_loopback("::1")
    assert not web._is_loopback("0.0.0.0")


def test_serve_rejects_a_bad_opponent(capsys):
    parser = argparse.ArgumentParser()
    web.add_arguments(parser)
    assert web.run(parser.parse_args(["--opponent", "no-such-agent"])) == 2
    assert "no-such-agent" in capsys.readouterr().err


def test_human_is_seat_zero():
    assert HUMAN == 0 and COMPUTER == 1


def test_the_hint_is_asked_for_and_names_only_cards_the_player_cannot_place(app, client):
    game = new_game(client)
    gid = game["game_id"]
    rng = random.Random(3)
    for _ in range(3):
        game = client.post(f"/api/games/{gid}/act", json={"action": pick(game, rng)}).get_json()
    r = client.get(f"/api/games/{gid}/hint")
    assert r.status_code == 200
    hint = r.get_json()["hint"]
    view = session_of(app, gid).view()
    unknown = view.unseen() & ~view.opponent_excluded
    assert {h["card"] for h in hint} == {card_code(c) for c in cards_of(unknown)}
    assert all(0.0 <= h["probability"] <= 1.0 for h in hint)
    assert client.get("/api/games/nope/hint").status_code == 404
