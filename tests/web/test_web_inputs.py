"""The web server under hostile requests and a failing opponent."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")

from sixtysix_env.agents import RandomAgent  # noqa: E402
from sixtysix_env.play.session import GameSession, OpponentError  # noqa: E402
from sixtysix_env.play.web import THINKING_AT_ONCE, GameStore, create_app  # noqa: E402

# You get AC KH QH 9S JS 9D, clubs trumps; after winning the ace the hearts marriage is possible.
MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"


def client_for(**kw):
    return create_app(seed=5, default="random", min_think_seconds=0, **kw).test_client()


def new_game(client, **body):
    r = client.post("/api/games", json={"opponent": "random", **body})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()


# -- item 1: nested JSON ----------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/games", "/act"])
def test_deeply_nested_json_is_a_400(path, caplog):
    client = client_for()
    if path == "/act":
        path = f"/api/games/{new_game(client)['game_id']}/act"
    nested = "[" * 8000 + "]" * 8000  # 16,000 bytes, under the 16 KiB cap
    with caplog.at_level(logging.ERROR):
        r = client.post(path, data=nested, content_type="application/json")
    assert r.status_code == 400
    assert "nested too deeply" in r.get_json()["error"]
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
    # nesting hidden inside a string does not count
    r = client.post(path, data='{"action": "[[[[[[[[[[[[[["}', content_type="application/json")
    assert r.status_code in (400, 409) and "nested" not in r.get_json()["error"]


def test_a_runtime_error_is_not_reported_as_the_computer_failing(monkeypatch):
    client = client_for()
    game = new_game(client)

    def boom(*a, **k):
        raise RuntimeError("some bug")

    monkeypatch.setattr(GameSession, "act", boom)
    r = client.post(f"/api/games/{game['game_id']}/act", json={"action": "AC"})
    assert r.status_code == 500
    assert "computer" not in r.get_json()["error"]
    assert "some bug" not in r.get_json()["error"]


# -- item 3: a misbehaving opponent -------------------------------------------------


class Cheater(RandomAgent):
    """Plays a card that is never legal for it: one in the person's hand, or a bad value."""

    name = "cheater"

    def __init__(self, answer):
        super().__init__()
        self.answer = answer
        self.calls = 0

    def act(self, view, rng):
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        if self.answer == "illegal":
            legal = view.legal_mask
            return next(a for a in range(34) if not legal >> a & 1)
        return self.answer


@pytest.mark.parametrize(
    "answer", ["illegal", "KH", None, 3.5, True, -1, 10**30, ValueError("broken")]
)
def test_a_cheating_opponent_is_replaced_by_a_legal_move_and_the_game_goes_on(answer, caplog):
    s = GameSession(opponent=Cheater(answer), seed=3, deck=MARRIAGE_DECK)
    s.start()
    with caplog.at_level(logging.WARNING):
        s.act("AC")  # the computer must answer: its agent fails, a legal move is played
    assert s.opponent_faults >= 1
    assert "cheater" in caplog.text
    # play on to the end of the hand: never stuck on the computer's turn
    while not s.is_hand_over():
        s.act(s.moves()[0].action)
    assert s.view().result is not None


def test_raise_mode_names_no_hidden_card():
    s = GameSession(opponent=Cheater("illegal"), seed=3, deck=MARRIAGE_DECK,
                    on_opponent_error="raise")
    s.start()
    comp_hand = s.match.hand.hand(1)
    with pytest.raises(OpponentError) as ei:
        s.act("AC")
    text = str(ei.value)
    from sixtysix_env.game.cards import card_code, cards_of

    assert not any(card_code(c) in text for c in cards_of(comp_hand))
    assert "legal" not in text


def test_web_game_with_a_cheating_opponent_recovers_and_leaks_nothing():
    # The cheater is offered as an opponent object through GameSession, as a
    # policy file that returns illegal moves would be.
    app = create_app(seed=3, deck=MARRIAGE_DECK, default="random", min_think_seconds=0)
    client = app.test_client()
    game = new_game(client)
    gid = game["game_id"]
    g = app.config["GAMES"].get(gid)
    g.session.agent = Cheater("illegal")
    r = client.post(f"/api/games/{gid}/act", json={"action": "AC"})
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_data(as_text=True)
    assert "legal" not in r.get_json().get("error", "")
    assert r.get_json()["hand"]["to_move"] in ("you", None)
    # the next move is accepted (not 409 on the computer's turn forever)
    move = r.get_json()["hand"]["moves"][0]["action"]
    assert client.post(f"/api/games/{gid}/act", json={"action": move}).status_code == 200
    assert "Traceback" not in body


# -- item 4: cross-site requests, rebinding, per-client limits ----------------------


@pytest.mark.parametrize(
    "kw",
    [
        {"data": "", "content_type": "text/plain"},
        {"data": "opponent=random", "content_type": "application/x-www-form-urlencoded"},
        {"data": "", "content_type": "multipart/form-data; boundary=x"},
        {},
    ],
)
def test_only_json_posts_create_games(kw):
    client = client_for()
    r = client.post("/api/games", **kw)
    assert r.status_code == 400
    assert "application/json" in r.get_json()["error"]
    # an empty JSON post is fine
    assert client.post("/api/games", data="", content_type="application/json").status_code == 201


def test_foreign_origin_is_refused():
    client = client_for()
    r = client.post("/api/games", json={}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/games", json={}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = client.post("/api/games", json={}, headers={"Origin": "http://localhost"})
    assert r.status_code == 201
    gid = r.get_json()["game_id"]
    r = client.delete(f"/api/games/{gid}", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8066", "attacker.localhost.evil"])
def test_foreign_host_header_is_refused(host):
    client = client_for()
    for method, path in (("get", "/"), ("get", "/api/options"), ("post", "/api/games")):
        kw = {"json": {}} if method == "post" else {}
        r = getattr(client, method)(path, headers={"Host": host}, **kw)
        assert r.status_code == 400, (path, host)
        assert "host name" in r.get_json()["error"]


@pytest.mark.parametrize("host", ["localhost:8066", "127.0.0.1:8066", "[::1]:8066", "10.0.0.5"])
def test_local_and_ip_hosts_are_accepted(host):
    client = client_for()
    assert client.get("/api/options", headers={"Host": host}).status_code == 200


def test_allowed_host_names():
    client = client_for(allowed_hosts=["sixtysix.lan"])
    assert client.get("/api/options", headers={"Host": "sixtysix.lan:8066"}).status_code == 200
    assert client.get("/api/options", headers={"Host": "other.lan"}).status_code == 400


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_one_client_cannot_evict_another_clients_game():
    clock = Clock()
    store = GameStore(max_games=10, per_client=3, per_minute=100, clock=clock)
    client = create_app(seed=5, default="random", store=store, min_think_seconds=0).test_client()
    victim = client.post("/api/games", json={}, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    vid = victim.get_json()["game_id"]
    for _ in range(50):
        clock.t += 1
        r = client.post("/api/games", json={}, environ_base={"REMOTE_ADDR": "10.0.0.2"})
        assert r.status_code == 201
    assert client.get(f"/api/games/{vid}").status_code == 200
    assert len(store) == 4  # the victim's one + the attacker's last three


def test_new_games_per_minute_are_limited():
    clock = Clock()
    store = GameStore(per_minute=5, clock=clock)
    client = create_app(seed=5, default="random", store=store, min_think_seconds=0).test_client()
    for _ in range(5):
        assert client.post("/api/games", json={}).status_code == 201
    r = client.post("/api/games", json={})
    assert r.status_code == 429 and "a minute" in r.get_json()["error"]
    clock.t += 61
    assert client.post("/api/games", json={}).status_code == 201


@pytest.mark.parametrize("searcher", ["expert", "guided"])
def test_the_unseeded_expert_thinks_within_a_time_budget(searcher):
    app = create_app(default="random", think_seconds=0.5, min_think_seconds=0)
    client = app.test_client()
    r = client.post("/api/games", json={"opponent": searcher})
    assert r.status_code == 201
    g = app.config["GAMES"].get(r.get_json()["game_id"])
    assert g.session.agent.time_budget == 0.5
    assert r.get_json()["opponent"] == searcher
    # a seeded server keeps the expert reproducible (no time budget)
    app = create_app(seed=1, default="random", min_think_seconds=0)
    r = app.test_client().post("/api/games", json={"opponent": searcher})
    assert app.config["GAMES"].get(r.get_json()["game_id"]).session.agent.time_budget is None


def test_a_searcher_spec_cannot_escape_the_thinking_bound():
    """`serve --opponent expert:samples=100000` escaped the 2 s bound."""
    for spec, budget in (
        ("expert:samples=100000", 0.5),
        ("expert:samples=100000,time_budget=60", 0.5),
        ("guided:time_budget=0.2", 0.2),
    ):
        app = create_app(opponents=[spec], default=spec, think_seconds=0.5, min_think_seconds=0)
        r = app.test_client().post("/api/games", json={"opponent": spec})
        assert r.status_code == 201, r.get_json()
        agent = app.config["GAMES"].get(r.get_json()["game_id"]).session.agent
        assert agent.time_budget == budget and r.get_json()["opponent"] == spec


def test_each_computer_move_takes_the_least_time_without_holding_a_thinking_slot():
    """On the page every computer move, forced or not, takes at least
    min_think_seconds; the wait holds none of the thinking slots."""
    import time

    least = 0.05
    app = create_app(seed=3, default="random", min_think_seconds=least)
    client = app.test_client()
    thinking = app.config["THINKING"]
    free_while_waiting = []
    real_sleep = time.sleep

    def sleep(seconds):
        free_while_waiting.append(thinking.free)
        real_sleep(seconds)

    import sixtysix_env.play.session as session_module

    session_module.time.sleep = sleep
    try:
        game = new_game(client)
        answered = 0
        for _ in range(8):
            if game["result"] is not None:
                break
            move = game["hand"]["moves"][0]["action"]
            t0 = time.perf_counter()
            r = client.post(f"/api/games/{game['game_id']}/act", json={"action": move})
            elapsed = time.perf_counter() - t0
            game = r.get_json()
            n = sum(1 for st in game["steps"] if st["by"] == "computer")
            assert elapsed >= n * least * 0.999
            answered += n
    finally:
        session_module.time.sleep = real_sleep
    assert answered >= 4
    assert free_while_waiting and all(v == THINKING_AT_ONCE for v in free_while_waiting)


# -- the page: a king or queen can be led without declaring -------------------------


def test_a_marriage_card_can_also_be_played_plainly():
    app = create_app(seed=21, deck=MARRIAGE_DECK, default="random", min_think_seconds=0)
    client = app.test_client()
    game = new_game(client)
    gid = game["game_id"]
    r = client.post(f"/api/games/{gid}/act", json={"action": "AC"})
    game = r.get_json()
    if game["hand"]["to_move"] != "you" or game["hand"]["table"] is not None:
        pytest.skip("this deal's computer did not leave the lead to the person")
    moves = {(m["action"], m["kind"]) for m in game["hand"]["moves"]}
    assert ("marry-KH", "marriage") in moves and ("KH", "play") in moves
    r = client.post(f"/api/games/{gid}/act", json={"action": "KH"})
    assert r.status_code == 200
    assert r.get_json()["hand"]["your_marriage_points"] == 0


def test_thinking_is_bounded_and_a_busy_server_answers_503(monkeypatch):
    from sixtysix_env.play import web

    monkeypatch.setattr(web, "THINKING_AT_ONCE", 1)
    monkeypatch.setattr(web, "THINKING_WAIT_S", 0.01)
    app = create_app(seed=5, default="random", min_think_seconds=0)
    client = app.test_client()
    gid = new_game(client)["game_id"]
    turn = app.config["THINKING"].turn("another client")
    turn.__enter__()  # another client's request is computing
    try:
        r = client.post("/api/games", json={})
        assert r.status_code == 503 and "busy" in r.get_json()["error"]
        game = client.get(f"/api/games/{gid}").get_json()  # reading needs no thinking
        move = game["hand"]["moves"][0]["action"]
        assert client.post(f"/api/games/{gid}/act", json={"action": move}).status_code == 503
    finally:
        turn.__exit__(None, None, None)
    assert client.post(f"/api/games/{gid}/act", json={"action": move}).status_code == 200


# -- the production server ------------------------------------------------------------


@pytest.fixture
def served():
    """Start make_server(app, ...) on a free port in a thread; yield (port, server)."""
    import threading

    from sixtysix_env.play.web import make_server

    started = []

    def start(app, **kw):
        server = make_server(app, "127.0.0.1", 0, **kw)
        threading.Thread(target=server.run, daemon=True).start()
        started.append(server)
        return server.effective_port

    yield start
    for server in started:
        server.close()


def _http_get(port, path="/", headers=""):
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.decode("latin-1")


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_a_half_sent_request_is_dropped_and_idle_connections_hold_no_thread(served):
    """The Werkzeug server held a half-sent request past 60 s, one thread per connection."""
    import socket
    import time

    app = create_app(seed=1, default="random", min_think_seconds=0)
    # 40 connections of one client (loopback): past the cap per client unless raised.
    port = served(app, read_timeout=1, cleanup_interval=1, threads=2, connections_per_client=64)
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(40)]
    try:
        # 40 idle connections on 2 threads: a real request is still answered at once.
        t0 = time.perf_counter()
        assert _http_get(port, "/api/options").startswith("HTTP/1.1 200")
        assert time.perf_counter() - t0 < 2.0
        half = socket.create_connection(("127.0.0.1", port), timeout=10)
        half.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
        t0 = time.perf_counter()
        assert half.recv(1024) == b""  # closed by the server
        assert time.perf_counter() - t0 < 5.0
        half.close()
    finally:
        for s in idle:
            s.close()


def test_a_trusted_proxy_names_the_client_and_others_cannot(served):
    from flask import Flask, request

    echo = Flask("echo")
    echo.add_url_rule("/", "ip", lambda: request.remote_addr or "")
    forwarded = "X-Forwarded-For: 203.0.113.7\r\n"
    direct = served(echo)
    assert _http_get(direct, headers=forwarded).endswith("127.0.0.1")  # header ignored
    behind = served(echo, trusted_proxy="127.0.0.1")
    assert _http_get(behind, headers=forwarded).endswith("203.0.113.7")
