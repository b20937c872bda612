"""`sixtysix serve`'s server under slow and busy clients, behind a reverse proxy, and its
options (the trusted proxy, create_app's pause).

Each test runs the real server (:func:`sixtysix_env.play.web.make_server`, waitress) on
an ephemeral loopback port. Every loopback address is one client
(:func:`~sixtysix_env.play.limits.client_key`), so other clients come either through
the trusted proxy (127.0.0.1, naming the client in X-Forwarded-For) or, for the cap on
connections, from other loopback addresses with the server's client key made the
address itself.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time

import pytest

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")
pytest.importorskip("waitress", reason="the production server is waitress (the [play] extra)")

from flask import Flask, jsonify  # noqa: E402

from sixtysix_env.play import web  # noqa: E402
from sixtysix_env.play.session import MIN_THINK_SECONDS  # noqa: E402

# You get AC KH QH 9S JS 9D, clubs trumps, and lead.
MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"
#: The longest any single wait of these tests may take before it counts as a failure.
WAIT_S = 5.0


@pytest.fixture
def serve():
    """Start make_server(app, "127.0.0.1", 0, ...) in a thread; yield the server."""
    started = []

    def start(app, **kw):
        server = web.make_server(app, "127.0.0.1", 0, **kw)
        threading.Thread(target=server.run, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)


def send(port, method, path, *, body=None, headers="", source="127.0.0.1", host="127.0.0.1"):
    """Open a connection and send one whole request; the socket, to read the answer from."""
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S, source_address=(source, 0))
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Connection: close\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    s.sendall(head.encode() + b"\r\n" + data)
    return s


def answer(s, timeout=WAIT_S):
    """The whole answer on ``s`` (the server closes after it): (status, headers, body)."""
    s.settimeout(timeout)
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


def answers_timed(*sockets):
    """Read the answers on ``sockets`` at once: (when each was whole, the answer) each."""
    results = [None] * len(sockets)

    def read(i):
        got = answer(sockets[i])
        results[i] = (time.perf_counter(), got)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(sockets))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT_S + 1)
    assert all(results), "an answer did not come"
    return results


def eventually(check, within=WAIT_S):
    """Whether ``check()`` comes true within ``within`` seconds (looked at every 10 ms)."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def forwarded(client):
    return f"X-Forwarded-For: {client}\r\n"


class Gates:
    """An app whose /api/hold/NAME waits until NAME is opened, and whose /api/ping does
    not; it records the order in which requests began."""

    def __init__(self):
        self.started = []
        self.cond = threading.Condition()
        self.open = set()
        self.app = Flask("gates")
        self.app.add_url_rule("/api/hold/<name>", "hold", self.hold)
        self.app.add_url_rule("/api/ping/<name>", "ping", self.ping)

    def _begin(self, name):
        with self.cond:
            self.started.append(name)
            self.cond.notify_all()

    def hold(self, name):
        self._begin(name)
        with self.cond:
            self.cond.wait_for(lambda: name in self.open or "*" in self.open, timeout=WAIT_S)
        return jsonify(name=name)

    def ping(self, name):
        self._begin(name)
        return jsonify(name=name)

    def release(self, name="*"):
        with self.cond:
            self.open.add(name)
            self.cond.notify_all()

    def wait_started(self, *names):
        with self.cond:
            assert self.cond.wait_for(lambda: set(names) <= set(self.started), timeout=WAIT_S), (
                names, self.started)


# -- slow clients -------------------------------------------------------------------


def test_a_request_trickled_byte_by_byte_is_dropped_at_its_deadline(serve):
    """One byte every 8 s kept a request open for ever: the read timeout started again
    with every byte. Now a request has a total deadline for its headers and body."""
    server = serve(Gates().app, request_deadline=0.5, read_timeout=5)
    s = socket.create_connection(("127.0.0.1", server.effective_port), timeout=WAIT_S)
    s.settimeout(0.1)
    request = b"POST /api/ping/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 900\r\n\r\n"
    t0 = time.perf_counter()
    closed_after = None
    try:
        for byte in request + b"x" * 900:
            elapsed = time.perf_counter() - t0
            if elapsed > WAIT_S:
                break
            try:
                s.send(bytes([byte]))
                if s.recv(1024) == b"":
                    closed_after = elapsed
                    break
            except TimeoutError:
                continue  # still open: the next byte
            except OSError:
                closed_after = elapsed
                break
    finally:
        s.close()
    assert closed_after is not None, "the trickled request was still open after 5 s"
    assert 0.4 <= closed_after < 3.0


def test_one_client_cannot_take_every_connection(serve, monkeypatch):
    """300 connections of one client blocked every other client: the cap on connections
    was the server's only. Now one client may hold a few; the others are still served."""
    from sixtysix_env.play import server as server_module

    # Each loopback address its own client here (normally they are all one).
    monkeypatch.setattr(server_module, "client_key", lambda address: address or "")
    gates = Gates()
    server = serve(gates.app, connection_limit=12, connections_per_client=4, read_timeout=20)
    port = server.effective_port
    held = []
    try:
        for _ in range(4):  # half-sent requests, as a slow client keeps them
            s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
            s.sendall(b"GET /api/ping/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(s)
        refused = 0
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S,
                                         source_address=("127.0.0.2", 0))
            status, headers, body = answer(s)
            assert status == 503 and "too many connections" in json.loads(body)["error"]
            assert headers["Retry-After"].isdigit()
            refused += 1
        assert refused == 20
        t0 = time.perf_counter()
        status, _, body = answer(send(port, "GET", "/api/ping/victim", source="127.0.0.3"))
        assert status == 200 and json.loads(body) == {"name": "victim"}
        assert time.perf_counter() - t0 < 3.0  # measured: a few milliseconds
    finally:
        for s in held:
            s.close()


# -- busy clients -------------------------------------------------------------------


def test_a_client_past_its_requests_in_flight_is_answered_429_without_a_thread(serve):
    """Past two requests in flight a client is answered at once, by the server's loop:
    here both threads are held by its first two."""
    gates = Gates()
    server = serve(gates.app, trusted_proxy="127.0.0.1", threads=2, requests_per_client=2)
    port = server.effective_port
    a = forwarded("203.0.113.1")
    try:
        first = [send(port, "GET", f"/api/hold/a{i}", headers=a) for i in (1, 2)]
        gates.wait_started("a1", "a2")  # both threads are busy now
        t0 = time.perf_counter()
        status, headers, body = answer(send(port, "GET", "/api/hold/a3", headers=a))
        assert status == 429 and time.perf_counter() - t0 < 3.0  # measured: milliseconds
        assert headers["Retry-After"] == "1" and headers["Content-Type"] == "application/json"
        assert "at most 2" in json.loads(body)["error"]
        assert "a3" not in gates.started
        assert server.shared.in_flight("203.0.113.1") == 2
    finally:
        gates.release()
    assert [answer(s)[0] for s in first] == [200, 200]
    assert eventually(lambda: server.shared.in_flight("203.0.113.1") == 0)
    # The page and its static files do not count: a browser fetches several at once.
    from sixtysix_env.play import server as server_module

    assert not server_module._counted(type("R", (), {"path": "/static/table.js"}))
    assert server_module._counted(type("R", (), {"path": "//api/games"}))


def test_a_free_thread_takes_the_request_of_the_client_with_fewest_running(serve):
    """The fair queue ordered only requests that held a thread; waitress handed threads
    out oldest first, so a busy client's queued requests went before a newcomer's."""
    gates = Gates()
    server = serve(gates.app, trusted_proxy="127.0.0.1", threads=2, requests_per_client=3)
    port = server.effective_port
    a, b = forwarded("203.0.113.1"), forwarded("203.0.113.2")
    sockets = []
    try:
        sockets += [send(port, "GET", f"/api/hold/a{i}", headers=a) for i in (1, 2)]
        gates.wait_started("a1", "a2")
        sockets.append(send(port, "GET", "/api/ping/a3", headers=a))
        assert eventually(lambda: len(server.task_dispatcher.queue) == 1)  # a3 waits
        sockets.append(send(port, "GET", "/api/ping/b1", headers=b))
        assert eventually(lambda: len(server.task_dispatcher.queue) == 2)  # then b1
        gates.release("a1")  # one thread frees: a has one running, b none
        gates.wait_started("a3", "b1")
    finally:
        gates.release()
    assert [answer(s)[0] for s in sockets] == [200] * 4
    assert gates.started.index("b1") < gates.started.index("a3"), gates.started


def test_the_least_thinking_time_holds_no_thread_and_hides_nothing(serve):
    """The 0.4 s pause held one of the server's threads. Now the loop holds the answer
    back: with one thread, another request is answered during the pause, while the move's
    answer, and any answer about that match, still takes the whole pause."""
    least = 0.8
    # The person leads the first hand of a fixed deck: no computer move before the first.
    app = web.create_app(seed=5, deck=MARRIAGE_DECK, default="random", min_think_seconds=least)
    server = serve(app, threads=1)
    port = server.effective_port
    status, _, body = answer(send(port, "POST", "/api/games", body={"opponent": "random"}))
    game = json.loads(body)
    assert status == 201 and game["hand"]["to_move"] == "you" and not game["steps"]
    gid = game["game_id"]
    t0 = time.perf_counter()
    act = send(port, "POST", f"/api/games/{gid}/act",
               body={"action": game["hand"]["moves"][0]["action"]})
    time.sleep(0.15)  # the move is being answered
    other = send(port, "GET", "/api/options")
    same = send(port, "GET", f"/api/games/{gid}")
    (act_at, (status, _, body)), (other_at, other_answer), (same_at, same_answer) = (
        answers_timed(act, other, same)
    )
    assert status == other_answer[0] == same_answer[0] == 200
    computer = sum(1 for st in json.loads(body)["steps"] if st["by"] == "computer")
    assert computer >= 1
    assert act_at - t0 >= computer * least * 0.999  # the pause, as before
    assert other_at < act_at  # ... without the server's one thread
    assert same_at - t0 >= computer * least * 0.999  # nothing about the match sooner


# -- the trusted proxy, create_app's pause ------------------------------------------


def parse_serve(argv):
    parser = argparse.ArgumentParser(prog="sixtysix serve")
    web.add_arguments(parser)
    return parser.parse_args(argv)


@pytest.mark.parametrize(
    "value, why",
    [
        ("*", "would trust every sender"),
        ("10.0.0.0/8", "a range (10.0.0.0/8) is not accepted"),
        ("localhost", "'localhost' is not an IP address"),
        ("junk", "'junk' is not an IP address"),
        ("10.0.0.1,10.0.0.2", "only one address"),
        ("[::1]", "without brackets"),
        ("", "must be one IP address"),
    ],
)
def test_trusted_proxy_must_be_one_address(value, why, capsys):
    with pytest.raises(SystemExit) as e:
        parse_serve(["--trusted-proxy", value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--trusted-proxy" in err and why in err
    assert "one IP address, such as 127.0.0.1 or ::1" in err  # what is allowed
    with pytest.raises(ValueError, match="one IP address"):
        web.make_server(Gates().app, "127.0.0.1", 0, trusted_proxy=value)


def test_trusted_proxy_accepts_an_address_as_the_server_compares_it():
    assert parse_serve(["--trusted-proxy", "127.0.0.1"]).trusted_proxy == "127.0.0.1"
    assert parse_serve(["--trusted-proxy", " ::1 "]).trusted_proxy == "::1"
    assert parse_serve(["--trusted-proxy", "2001:DB8::0:1"]).trusted_proxy == "2001:db8::1"
    assert parse_serve(["--trusted-proxy", "::ffff:10.0.0.1"]).trusted_proxy == "10.0.0.1"
    assert parse_serve([]).trusted_proxy is None
    parser = argparse.ArgumentParser()
    web.add_arguments(parser)
    (action,) = (a for a in parser._actions if "--trusted-proxy" in a.option_strings)
    assert "docs/serving.md" in action.help and "README" not in action.help


def test_behind_a_proxy_that_serves_https_the_page_can_still_post(serve):
    """docs/serving.md puts a proxy in front for TLS: the page's POSTs carry Origin
    https://NAME, which the app compared with http://NAME and refused (403). The trusted
    proxy's X-Forwarded-Proto now names the scheme; nobody else's does."""
    app = web.create_app(seed=5, deck=MARRIAGE_DECK, default="random", min_think_seconds=0,
                         allowed_hosts=["cards.example.org"])
    through_proxy = (
        "Origin: https://cards.example.org\r\nX-Forwarded-Proto: https\r\n"
        "X-Forwarded-For: 203.0.113.5\r\n"
    )
    behind = serve(app, trusted_proxy="127.0.0.1").effective_port
    status, _, body = answer(send(behind, "POST", "/api/games", body={},
                                  host="cards.example.org", headers=through_proxy))
    assert status == 201, body
    direct = serve(app).effective_port  # no trusted proxy: the header is dropped
    status, _, _ = answer(send(direct, "POST", "/api/games", body={},
                               host="cards.example.org", headers=through_proxy))
    assert status == 403


def test_create_app_pauses_like_sixtysix_serve_by_default():
    app = web.create_app(seed=5, deck=MARRIAGE_DECK, default="random")
    r = app.test_client().post("/api/games", json={"opponent": "random"})
    assert r.status_code == 201
    session = app.config["GAMES"].get(r.get_json()["game_id"]).session
    assert session.min_think_seconds == MIN_THINK_SECONDS > 0
    assert parse_serve([]).min_think == MIN_THINK_SECONDS
