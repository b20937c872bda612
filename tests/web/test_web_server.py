"""`sixtysix serve`'s server under slow and busy clients, behind a reverse proxy, and its
options (the trusted proxy, create_app's pause).

Each test runs the real server (:func:`sixtysix_env.play.web.make_server`, waitress) on
an ephemeral loopback port. Every loopback address is one client
(:func:`~sixtysix_env.play.limits.client_key`), so other clients come either through
the trusted proxy (127.0.0.1, naming the client in X-Forwarded-For), from this
machine's non-loopback address bound as the source (``second_address``: a client of
its own, as one from another machine), or, for the cap on connections, from other
loopback addresses with the server's client key made the address itself.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import select
import socket
import threading
import time

import pytest

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")
pytest.importorskip("waitress", reason="the production server is waitress (the [play] extra)")

from flask import Flask, jsonify  # noqa: E402

from sixtysix_env.play import server as server_module
from sixtysix_env.play import web  # noqa: E402
from sixtysix_env.play.limits import MAX_BODY_BYTES
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


@pytest.fixture(scope="module")
def second_address():
    """This machine's non-loopback IPv4 address, to bind as a client's source: the server
    counts it as a client of its own (as one on another machine), not as loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # sends nothing: the route names the address
            address = probe.getsockname()[0]
        with socket.socket() as s:
            s.bind((address, 0))
    except OSError:
        address = None
    if not address or ipaddress.ip_address(address).is_loopback or address == "0.0.0.0":
        pytest.skip("this machine has no non-loopback IPv4 address to send from")
    return address


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


def answer_by_length(s, timeout=WAIT_S):
    """The answer on ``s`` read up to its Content-Length, the connection left open (the
    server may close it only later): (status, headers, body)."""
    s.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"the connection closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    while len(body) < int(headers["Content-Length"]):
        chunk = s.recv(65536)
        assert chunk, "the connection closed inside the answer"
        body += chunk
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
    not; /api/linger/NAME answers at once, its thread then held until ``close-NAME`` is
    opened (a response closed late); a POST to /api/echo/NAME answers the body's length.
    It records the order in which requests began."""

    def __init__(self):
        self.started = []
        self.cond = threading.Condition()
        self.open = set()
        self.app = Flask("gates")
        self.app.add_url_rule("/api/hold/<name>", "hold", self.hold)
        self.app.add_url_rule("/api/ping/<name>", "ping", self.ping)
        self.app.add_url_rule("/api/linger/<name>", "linger", self.linger)
        self.app.add_url_rule("/api/echo/<name>", "echo", self.echo, methods=["POST"])

    def linger(self, name):
        self._begin(name)
        response = jsonify(name=name)
        response.call_on_close(lambda: self.wait_open(f"close-{name}"))
        return response

    def echo(self, name):
        from flask import request

        self._begin(name)
        return jsonify(name=name, length=len(request.get_data()))

    def wait_open(self, name):
        with self.cond:
            self.cond.wait_for(lambda: name in self.open or "*" in self.open, timeout=WAIT_S)

    def _begin(self, name):
        with self.cond:
            self.started.append(name)
            self.cond.notify_all()

    def hold(self, name):
        self._begin(name)
        self.wait_open(name)
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
    with every byte. Now a request has a total deadline for its headers and body.

    Asserted is what happened, not how fast: the server closed the connection in the
    middle of the request, answering nothing and handing nothing to the app, and not
    before the deadline (the time is taken when the close is seen, from before the first
    byte: load can only make it longer; it once read 0.30 s, taken at the start of the
    step that saw the close). The read timeout (60 s) cannot have closed it."""
    gates = Gates()
    deadline = 0.5
    server = serve(gates.app, request_deadline=deadline, read_timeout=60)
    s = socket.create_connection(("127.0.0.1", server.effective_port), timeout=WAIT_S)
    s.settimeout(0.05)  # the pace: a byte, then a look for the close
    request = b"POST /api/echo/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 900\r\n\r\n"
    request += b"x" * 900
    sent, got, closed_after = 0, b"", None
    t0 = time.perf_counter()
    try:
        for byte in request:
            if time.perf_counter() - t0 > 6 * WAIT_S:
                break  # never closed: the assertion below says so
            try:
                s.send(bytes([byte]))
                sent += 1
                chunk = s.recv(1024)
            except TimeoutError:
                continue  # still open: the next byte
            except OSError:
                closed_after = time.perf_counter() - t0
                break
            got += chunk
            if chunk == b"":
                closed_after = time.perf_counter() - t0
                break
    finally:
        s.close()
    assert closed_after is not None, f"the trickled request was still open after {sent} bytes"
    assert got == b"" and 0 < sent < len(request) and gates.started == []
    assert closed_after >= deadline


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


# -- request bodies: capped from the headers ------------------------------------------


def raw(port, head: bytes, source: str):
    """A connection from ``source`` that has sent ``head`` (a request's first bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S, source_address=(source, 0))
    s.sendall(head)
    return s


def post_head(path, headers=""):
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Connection: close\r\n{headers}\r\n").encode()


def refused_status(s):
    """The status of the answer on ``s``, or None when the server reset the connection
    before it could be read (it closed with the rest of a body unread: the client's
    system may then drop the answer)."""
    try:
        return answer(s)[0]
    except ConnectionResetError:
        return None


@pytest.fixture
def temp_files(monkeypatch):
    """How many of waitress's temporary-file buffers were made (a body or an answer too
    large for memory is kept in one)."""
    from waitress import buffers

    made = []
    real = buffers.TempfileBasedBuffer.__init__

    def counted(self, *args, **kw):
        made.append(self)
        real(self, *args, **kw)

    monkeypatch.setattr(buffers.TempfileBasedBuffer, "__init__", counted)
    return made


def test_a_body_declared_past_the_cap_is_refused_from_its_headers(serve, second_address):
    """A POST declaring 400 MB was read whole (6.5 s) before the app's 413: waitress's own
    cap was 1 GiB. Now the headers are enough: 413 at once, none of the body read, no
    100 Continue asked for, no thread taken, nothing counted."""
    gates = Gates()
    server = serve(gates.app, requests_per_client=1)
    port = server.effective_port
    for expect in ("", "Expect: 100-continue\r\n"):
        head = post_head("/api/echo/big", f"Content-Length: 400000000\r\n{expect}")
        status, headers, body = answer(raw(port, head, second_address))  # no body sent
        assert status == 413, (expect, status, body)
        assert headers["Content-Type"] == "application/json" and "Retry-After" not in headers
        assert json.loads(body) == {
            "error": f"the request body is too large: at most {MAX_BODY_BYTES} bytes"
        }
    # One byte past the cap is refused; the cap itself is the app's to read.
    head = post_head("/api/echo/over", f"Content-Length: {MAX_BODY_BYTES + 1}\r\n")
    assert answer(raw(port, head, second_address))[0] == 413
    assert gates.started == [] and server.shared.in_flight(second_address) == 0
    head = post_head("/api/echo/at", f"Content-Length: {MAX_BODY_BYTES}\r\n")
    status, _, body = answer(raw(port, head + b" " * MAX_BODY_BYTES, second_address))
    assert status == 200 and json.loads(body) == {"name": "at", "length": MAX_BODY_BYTES}


def test_a_chunked_body_is_stopped_at_the_cap(serve, second_address, temp_files):
    """A 200 MiB chunked body was read whole before the 413. Now the answer comes once
    the cap is passed, before the body ends (its last chunk is never sent here), and
    nothing was kept in a temporary file."""
    gates = Gates()
    port = serve(gates.app).effective_port
    s = raw(port, post_head("/api/echo/chunked", "Transfer-Encoding: chunked\r\n"),
            second_address)
    piece = b"1000\r\n" + b"x" * 0x1000 + b"\r\n"  # 4 KiB a chunk
    sent = 0
    try:
        while sent < 64 * len(piece):  # 256 KiB, sixteen times the cap, never ended
            if select.select([s], [], [], 0.05)[0]:
                break  # an answer (or the close) came
            s.sendall(piece)
            sent += len(piece)
    except OSError:
        pass  # closed while we were sending: the answer is read below
    # Closed before the body ended (before: no answer, the server waiting for the rest).
    assert refused_status(s) in (413, None)
    assert gates.started == [] and temp_files == []
    # Under the cap a chunked body reaches the app whole.
    s = raw(port, post_head("/api/echo/small", "Transfer-Encoding: chunked\r\n"),
            second_address)
    s.sendall(b"3e8\r\n" + b"y" * 1000 + b"\r\n" + b"3e8\r\n" + b"y" * 1000 + b"\r\n0\r\n\r\n")
    status, _, body = answer(s)
    assert status == 200 and json.loads(body)["length"] == 2000


def test_a_large_body_sent_anyway_lands_in_no_temporary_file(serve, second_address, temp_files):
    """Two connections sending 400 MB bodies held 1.43 GB of temporary files within 10 s.
    Now a body past the cap is answered from its headers and never read; the rest of it
    is left unread when the connection closes."""
    gates = Gates()
    port = serve(gates.app).effective_port
    size = 2 * 1024 * 1024  # past waitress's memory buffer (512 KiB) before the fix
    s = raw(port, post_head("/api/echo/sent", f"Content-Length: {size}\r\n"), second_address)

    def push():
        try:
            s.sendall(b"z" * size)
        except OSError:
            pass  # the server closed: the rest was never read

    pusher = threading.Thread(target=push, daemon=True)
    pusher.start()
    status = refused_status(s)
    pusher.join(WAIT_S)
    assert temp_files == [] and gates.started == []
    assert status in (413, None)
    # Headers reaching their cap are refused by waitress (431), also from the loop (here
    # no more than the cap is sent: the server closes with nothing left unread).
    head = b"GET /api/ping/h HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
    head += b"p" * (server_module.MAX_HEADER_BYTES - len(head))
    assert answer(raw(port, head, second_address))[0] == 431
    assert gates.started == []


def test_the_server_and_the_app_have_one_cap():
    """The app's MAX_CONTENT_LENGTH and the server's are the same number, and waitress's
    buffers keep a body up to it in memory."""
    assert web.MAX_BODY_BYTES == MAX_BODY_BYTES
    assert web.create_app(seed=1, min_think_seconds=0).config["MAX_CONTENT_LENGTH"] == (
        MAX_BODY_BYTES
    )
    adj = server_module._adjustments("127.0.0.1", 0, None, 2, 8, 20, 1)
    assert adj.max_request_body_size == MAX_BODY_BYTES + 1  # waitress refuses >= it
    assert adj.inbuf_overflow > MAX_BODY_BYTES + adj.recv_bytes  # a chunk past the cap
    with pytest.raises(ValueError, match="max_body must be a whole number of at least 1"):
        web.make_server(Gates().app, "127.0.0.1", 0, max_body=0)


# -- admission: a client that waits for its answers never meets the cap --------------


def test_a_client_that_waits_for_each_answer_never_meets_the_cap(serve, second_address):
    """A lone sequential client was once answered 429 under load: its request counted
    until its thread was done, after the answer had left. Here a response closed late
    holds its thread after the answer is whole: the next request, sent once the answer
    is read, used to find the first still counted (429 at one request in flight)."""
    gates = Gates()
    server = serve(gates.app, requests_per_client=1, threads=2)
    port = server.effective_port
    try:
        first = send(port, "GET", "/api/linger/a", source=second_address)
        status, _, body = answer_by_length(first)  # whole; its thread is still held
        assert status == 200 and json.loads(body) == {"name": "a"}
        assert "close-a" not in gates.open
        for name in ("b", "c"):
            status, _, body = answer(send(port, "GET", f"/api/ping/{name}", source=second_address))
            assert status == 200, body
        assert server.shared.in_flight(second_address) == 0
    finally:
        gates.release()
    first.close()


# -- the queue's log -------------------------------------------------------------------


def test_requests_waiting_for_a_thread_log_one_line_not_one_each(serve, second_address, caplog):
    """Waitress logs "Task queue depth is N" for every request that waits for a thread:
    7,384 lines in a 100 s load test. Now at most one a minute."""
    gates = Gates()
    server = serve(gates.app, threads=1, requests_per_client=10)
    port = server.effective_port
    caplog.set_level(logging.WARNING, logger="waitress.queue")
    waiting = []
    try:
        held = send(port, "GET", "/api/hold/first", source=second_address)
        gates.wait_started("first")
        for i in range(6):
            waiting.append(send(port, "GET", f"/api/ping/w{i}", source=second_address))
            assert eventually(lambda n=i + 1: len(server.task_dispatcher.queue) == n)
    finally:
        gates.release()
    assert [answer(s)[0] for s in [held, *waiting]] == [200] * 7
    lines = [r.getMessage() for r in caplog.records if r.name == "waitress.queue"]
    assert len(lines) == 1 and "Task queue depth is 1" in lines[0], lines


def test_the_queue_log_says_what_it_held_back():
    now = [0.0]
    records = []

    class Logger:
        def warning(self, msg, *args):
            records.append(msg % args)

    log = server_module._QueueLog(every=60.0, clock=lambda: now[0], logger=Logger())
    for depth in range(1, 1001):
        log.warning("Task queue depth is %d", depth)
        now[0] += 0.05  # 1,000 in 50 s
    assert len(records) == 1 and records[0].startswith("Task queue depth is 1 ")
    now[0] = 61.0
    log.warning("Task queue depth is %d", 3)
    assert records[1] == (
        "Task queue depth reached 1000; 1000 requests waited for a thread in the last 60 s"
    )


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
