"""``sixtysix serve``'s production server: waitress, with limits per client applied
before a request takes one of the server's threads.

Waitress reads every request in one event-loop thread and hands only complete
ones to its pool of threads. This module adds, in that loop thread:

* **a total deadline per request**: a request whose headers and body are not
  all in :data:`REQUEST_DEADLINE_S` after its first byte closes its connection,
  however slowly its bytes keep coming (waitress's own timeout,
  :data:`READ_TIMEOUT_S`, starts again with every byte);
* **bodies capped from their headers**: a request whose ``Content-Length`` is over
  :data:`~.limits.MAX_BODY_BYTES` is answered 413 as soon as its headers are in, none of
  its body read (nor a ``100 Continue`` sent); a chunked body is answered 413 once that
  many bytes of it (its chunk framing counted) have come. So no body past the cap is
  read, and none is kept in a temporary file (waitress's ``max_request_body_size``,
  ``inbuf_overflow`` above it; headers at most :data:`MAX_HEADER_BYTES`, answers kept in
  memory up to :data:`OUTBUF_OVERFLOW`);
* **a cap on connections per client** (:func:`~.limits.client_key`): a client
  with :data:`CONNECTIONS_PER_CLIENT` connections open has its next one answered
  503 and closed, so one client cannot take all :data:`MAX_CONNECTIONS`;
* **admission per client**: at most :data:`REQUESTS_PER_CLIENT` of a client's
  requests (all but the page and its static files) between complete and
  answered; one more is answered 429 with ``Retry-After`` by the loop itself,
  taking no thread. A request stops counting as its answer's last bytes are
  handed over to be sent (before they can leave), so a client that waits for each
  answer never meets the cap. A request waitress refuses itself (413, a malformed
  one) is answered by the loop too, and never counts;
* **threads handed out fairly**: a free thread takes the waiting request of
  the client with the fewest requests running (in turn among equals), not the
  oldest, so busy clients cannot queue a newcomer behind all of theirs;
* **answers held back without a thread**: the app may call
  ``environ[HOLD_UNTIL](until)`` (:data:`~.limits.HOLD_UNTIL`); the answer it
  writes then leaves no sooner than ``until``, held by the loop, so the
  computer's least thinking time (:meth:`~.session.GameSession.pause`) holds no
  thread;
* **a quiet queue**: waitress logs a warning (``waitress.queue``) for every request
  that waits for a thread; here at most one line a :data:`QUEUE_LOG_EVERY_S`, with the
  deepest queue and the count since the last.

Behind the trusted proxy the client of a request is the last hop of its
``X-Forwarded-For``, read by waitress's own proxy-header code, as the app sees
it; the proxy's connections are not capped per client (all its players come
through them: cap them in the proxy).

What this relies on in waitress (written against 3.0): the server's
``channel_class``, ``handle_accept``, ``accept``, ``add_task``, ``readable``,
``maintenance`` (replaced), ``active_channels``, ``trigger.pull_trigger(thunk)`` (runs ``thunk`` in the loop)
and ``run``; :class:`~waitress.server.MultiSocketServer`; the channel's
``received``, ``service``, ``writable``, ``_flush_some`` (every send of an
answer goes through it), ``send_continue``, ``requests``, ``request``, ``addr``,
``task_class`` and ``del_channel``; the task's ``get_environment``, ``write``,
``finish``, ``complete``, ``content_length`` and ``content_bytes_written``; the
dispatcher's ``queue`` (used as a deque: ``append``, ``popleft``, ``len``), ``lock``
and ``queue_logger`` (its ``warning(msg, depth)``); the request parser's ``path``,
``headers`` and ``error`` (a :class:`waitress.utilities.Error` answered without the
app; :class:`~waitress.utilities.RequestEntityTooLarge` past ``max_request_body_size``,
refused from ``Content-Length`` when it is at least that, and for a chunked body once
that many bytes have been received); and
:func:`waitress.proxy_headers.parse_proxy_headers`.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import select
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.proxy_headers import MalformedProxyHeader, parse_proxy_headers
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher, WSGITask
from waitress.utilities import Error, RequestEntityTooLarge

from .limits import HOLD_UNTIL, MAX_BODY_BYTES, client_key, proxy_address

#: A connection silent this long is closed (checked every CLEANUP_S) ...
READ_TIMEOUT_S = 20
#: ... and one whose request (headers and body) is not all in this long after its first
#: byte, however slowly the bytes come.
REQUEST_DEADLINE_S = 10
CLEANUP_S = 1
#: At most this many connections are open at once (more wait to be accepted) ...
MAX_CONNECTIONS = 256
#: ... and this many from one client (more are answered 503 and closed).
CONNECTIONS_PER_CLIENT = 16
#: A client's requests between complete and answered (past it: 429, no thread taken).
REQUESTS_PER_CLIENT = 2
#: Threads that answer requests (idle connections and held answers hold none).
SERVER_THREADS = 8
#: The Retry-After of a 429 for too many requests at once, and of a 503 for too many
#: connections (seconds).
RETRY_AFTER_S = 1
#: A request's headers may have this many bytes (past it: 431, waitress's answer).
MAX_HEADER_BYTES = 64 * 1024
#: Bytes read from a connection at once (waitress's default). A chunked body may pass
#: the cap by up to this much before it is refused: a body is kept in memory up to
#: ``inbuf_overflow``, set well above both (:func:`_adjustments`).
RECV_BYTES = 8192
#: An answer is kept in memory up to this many bytes (a temporary file past it; ours
#: are tens of KB) ...
OUTBUF_OVERFLOW = 1024 * 1024
#: ... and the app waits to write more while this much of its answer is unsent.
OUTBUF_HIGH_WATERMARK = 256 * 1024
#: At most one "task queue depth" line in this many seconds (waitress logs one for every
#: request that waits for a thread).
QUEUE_LOG_EVERY_S = 60.0


def _counted(request: Any) -> bool:
    """Whether a request counts for its client's admission: all but the page and its
    static files (served from memory or disk at once, several at a time by a browser)."""
    path = "/" + (getattr(request, "path", "") or "").lstrip("/")  # as waitress's environ
    return not (path == "/" or path.startswith("/static/"))


def _count_down(counts: dict[str, int], key: str) -> None:
    """One less for ``key``; a key at zero is dropped (the tables hold active clients only)."""
    n = counts.get(key, 0) - 1
    if n > 0:
        counts[key] = n
    else:
        counts.pop(key, None)


class _Refusal(Error):
    """An answer the loop gives without the app: JSON like the app's errors, Retry-After
    (unless ``retry_after`` is None: trying again would not help)."""

    def __init__(self, code: int, reason: str, message: str, retry_after: int | None) -> None:
        super().__init__(message)
        self.code, self.reason, self.retry_after = code, reason, retry_after

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        headers = [
            ("Content-Type", "application/json"),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if self.retry_after is not None:
            headers.insert(1, ("Retry-After", str(self.retry_after)))
        return f"{self.code} {self.reason}", headers, json.dumps({"error": self.body}).encode()

    def raw(self) -> bytes:
        """The whole answer, for a connection refused before it became a channel."""
        status, headers, body = self.to_response()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers)
        return (
            f"HTTP/1.1 {status}\r\n{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode("latin-1") + body


class _Shared:
    """What the listening sockets of one server share: the counts per client, the times
    the loop must wake at, and the requests' deadlines."""

    def __init__(
        self,
        trusted_proxy: str | None,
        connections_per_client: int,
        requests_per_client: int,
        request_deadline: float,
        max_body: int = MAX_BODY_BYTES,
    ) -> None:
        self.trusted_proxy = trusted_proxy
        self.max_body = max_body
        self.connections_per_client = connections_per_client
        self.requests_per_client = requests_per_client
        self.request_deadline = request_deadline
        self._lock = threading.Lock()
        self._connections: dict[str, int] = {}
        self._requests: dict[str, int] = {}
        self._releases: list[float] = []  # under the lock: workers add to it
        # (deadline, n, channel, started): the loop thread's only.
        self._deadlines: list[tuple[float, int, _Channel, float]] = []
        self._n = itertools.count()

    # -- who a client is

    def connection_client(self, peer: str) -> str | None:
        """The client a new connection counts for; None for the trusted proxy (uncapped)."""
        if self.trusted_proxy is not None and peer == self.trusted_proxy:
            return None
        return client_key(peer)

    def request_client(self, peer: str, request: Any) -> str:
        """The client a complete request counts for: behind the trusted proxy, the last hop
        of its X-Forwarded-For, read as waitress's middleware reads it for the app."""
        if self.trusted_proxy is not None and peer == self.trusted_proxy:
            forwarded = request.headers.get("X_FORWARDED_FOR")
            if forwarded:
                environ = {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded}
                try:
                    parse_proxy_headers(
                        environ, trusted_proxy_count=1, trusted_proxy_headers={"x-forwarded-for"}
                    )
                except MalformedProxyHeader:
                    pass  # the middleware answers it 400; it counts for the proxy
                else:
                    peer = environ["REMOTE_ADDR"]
        return client_key(peer)

    # -- counts

    def _take(self, counts: dict[str, int], key: str, cap: int) -> bool:
        with self._lock:
            n = counts.get(key, 0)
            if n >= cap:
                return False
            counts[key] = n + 1
            return True

    def _give(self, counts: dict[str, int], key: str) -> None:
        with self._lock:
            _count_down(counts, key)

    def connect(self, key: str) -> bool:
        return self._take(self._connections, key, self.connections_per_client)

    def disconnect(self, key: str) -> None:
        self._give(self._connections, key)

    def admit(self, key: str) -> bool:
        return self._take(self._requests, key, self.requests_per_client)

    def answered(self, key: str) -> None:
        self._give(self._requests, key)

    def in_flight(self, key: str) -> int:
        """A client's admitted requests not yet answered (tests, monitoring)."""
        with self._lock:
            return self._requests.get(key, 0)

    # -- times

    def release_at(self, when: float) -> None:
        """A held answer is due at ``when``: the loop wakes then (any thread)."""
        with self._lock:
            heapq.heappush(self._releases, when)

    def request_begun(self, channel: _Channel, started: float) -> None:
        """A request began arriving (the loop thread)."""
        heapq.heappush(
            self._deadlines, (started + self.request_deadline, next(self._n), channel, started)
        )

    def expire(self, now: float) -> None:
        """Close the connections whose request is past its deadline (the loop thread)."""
        while self._deadlines and self._deadlines[0][0] <= now:
            _, _, channel, started = heapq.heappop(self._deadlines)
            if channel.request_started != started:
                continue  # that request is complete
            if channel.requests:
                # The server is still answering an earlier request of this connection:
                # the late one's time runs on; look again shortly.
                heapq.heappush(self._deadlines, (now + 0.25, next(self._n), channel, started))
            else:
                channel.will_close = True

    def timeout(self, longest: float) -> float:
        """How long the loop may wait for sockets before a held answer or a deadline is due."""
        now = time.monotonic()
        with self._lock:
            while self._releases and self._releases[0] <= now:
                heapq.heappop(self._releases)
            due = [self._releases[0]] if self._releases else []
        if self._deadlines:
            due.append(self._deadlines[0][0])
        if not due:
            return longest
        return max(0.0, min(longest, min(due) - now + 0.002))


class _FairQueue:
    """The dispatcher's queue of waiting tasks (channels), used as its deque under its lock:
    ``popleft`` takes the oldest task of the client with the fewest tasks running, the
    clients with as few taking turns."""

    def __init__(self) -> None:
        self._waiting: OrderedDict[str, deque[Any]] = OrderedDict()
        self._running: dict[str, int] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def append(self, task: Any) -> None:
        key = getattr(task, "dispatch_key", "")
        self._waiting.setdefault(key, deque()).append(task)
        self._size += 1

    def popleft(self) -> Any:
        if not self._size:
            raise IndexError("pop from an empty queue")
        key = min(self._waiting, key=lambda k: self._running.get(k, 0))  # the first such
        tasks = self._waiting[key]
        task = tasks.popleft()
        if tasks:
            self._waiting.move_to_end(key)  # its next task waits for the others' turns
        else:
            del self._waiting[key]
        self._size -= 1
        self._running[key] = self._running.get(key, 0) + 1
        task.running_key = key
        return task

    def finished(self, key: str) -> None:
        _count_down(self._running, key)


class _QueueLog:
    """Waitress's ``queue_logger`` for one server, at most a line every ``every`` seconds:
    the first warning at once, then the deepest queue and how many warnings there were
    since the last line (on the ``waitress.queue`` logger, to silence by its name)."""

    def __init__(self, every: float = QUEUE_LOG_EVERY_S, clock: Callable[[], float] = time.monotonic,
                 logger: logging.Logger | None = None) -> None:
        self.every, self.clock = every, clock
        self.logger = logger if logger is not None else logging.getLogger("waitress.queue")
        self._lock = threading.Lock()
        self._next = float("-inf")
        self._held = self._deepest = 0

    def warning(self, msg: str, depth: int = 0, *args: Any) -> None:
        with self._lock:
            now = self.clock()
            self._held += 1
            self._deepest = max(self._deepest, depth)
            if now < self._next:
                return
            held, deepest = self._held, self._deepest
            self._held = self._deepest = 0
            self._next = now + self.every
        if held == 1:
            self.logger.warning("Task queue depth is %d (requests waiting for a thread)", deepest)
        else:
            self.logger.warning(
                "Task queue depth reached %d; %d requests waited for a thread in the last "
                "%.0f s", deepest, held, self.every,
            )


class _FairDispatcher(ThreadedTaskDispatcher):
    """Waitress's pool of threads over a :class:`_FairQueue`, its queue warnings limited
    (:class:`_QueueLog`)."""

    def __init__(self) -> None:
        super().__init__()
        self.queue = _FairQueue()  # type: ignore[assignment]
        self.queue_logger = _QueueLog()  # type: ignore[assignment]

    def finished(self, key: str) -> None:
        with self.lock:
            self.queue.finished(key)


class _Task(WSGITask):
    """Waitress's WSGI task, with the channel's :meth:`_Channel.hold_until` in the environ;
    its request stops counting for admission (:meth:`_Channel.answered`) as its answer's
    last bytes are written, before they can be sent."""

    def get_environment(self) -> dict[str, Any]:
        environ = super().get_environment()
        environ[HOLD_UNTIL] = self.channel.hold_until
        return environ

    def write(self, data: bytes) -> None:
        cl = self.content_length
        if self.complete and cl is not None and self.content_bytes_written + len(data) >= cl:
            self.channel.answered(self.request)  # the last of the body: sent by super()
        super().write(data)

    def finish(self) -> None:
        self.channel.answered(self.request)  # an answer without a length ends here
        super().finish()


class _Channel(HTTPChannel):
    """A connection: its request's deadline, its answers held, its place in the counts."""

    task_class = _Task
    #: The client this connection counts for in the cap (None: not counted).
    client: str | None = None
    #: When the request being received began (time.monotonic), or None.
    request_started: float | None = None
    #: Nothing is sent before this time (time.monotonic).
    release_at = 0.0

    def received(self, data: bytes) -> bool:
        now = time.monotonic()
        shared = self.server.shared
        if self.request_started is not None and now - self.request_started > shared.request_deadline:
            self.will_close = True
            return False
        before = self.request
        result = super().received(data)
        if self.request is None:
            self.request_started = None
        elif self.request is not before or self.request_started is None:
            self.request_started = now  # a new request began in these bytes
            shared.request_begun(self, now)
        return result

    def hold_until(self, until: float) -> None:
        """Send nothing more before ``until`` (time.monotonic); any thread."""
        if until > self.release_at:
            self.release_at = until
            self.server.shared.release_at(until)

    def held(self) -> bool:
        """Whether an answer is held back now."""
        return self.release_at > time.monotonic()

    def writable(self) -> bool:
        if self.held():
            return bool(self.will_close)  # only to close it
        return super().writable()

    def _flush_some(self, do_close: bool = True) -> bool:
        if self.held():
            return False
        return super()._flush_some(do_close=do_close)

    def answered(self, request: Any) -> None:
        """``request`` no longer counts for its client's admission (once; its task's
        thread, or the loop's for a refusal)."""
        key = request.__dict__.pop("sixtysix_client", None) if request is not None else None
        if key is not None:
            self.server.shared.answered(key)

    def send_continue(self) -> None:
        if self.request is not None and self.request.error is not None:
            return  # refused from its headers: answered now, no body asked for
        super().send_continue()

    def service(self) -> None:
        request = self.requests[0] if self.requests else None
        running = self.__dict__.pop("running_key", None)
        try:
            super().service()
        finally:
            self.answered(request)  # if the task did not (an answer that failed)
            if running is not None:
                self.server.task_dispatcher.finished(running)

    def del_channel(self, map: dict | None = None) -> None:
        super().del_channel(map)
        if self.client is not None:
            key, self.client = self.client, None
            self.server.shared.disconnect(key)


class _Server(TcpWSGIServer):
    """One listening socket of the server."""

    channel_class = _Channel

    def __init__(self, application: Callable, *, shared: _Shared, **kw: Any) -> None:
        self.shared = shared
        super().__init__(application, **kw)

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
        except OSError:
            return  # a connection gone before it was accepted (see waitress's own)
        if accepted is None:
            return
        conn, addr = accepted
        key = self.shared.connection_client(addr[0])
        if key is not None and not self.shared.connect(key):
            refusal = _Refusal(
                503, "Service Unavailable",
                f"too many connections from this address at once (at most "
                f"{self.shared.connections_per_client}): close some and try again",
                RETRY_AFTER_S,
            )
            try:
                conn.setblocking(False)
                conn.send(refusal.raw())
            except OSError:
                pass
            conn.close()
            return
        try:
            self.set_socket_options(conn)
            channel = self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)
        except OSError:
            if key is not None:
                self.shared.disconnect(key)
            conn.close()
            return
        channel.client = key

    def add_task(self, channel: _Channel) -> None:
        """Admit the channel's next complete request, or answer it 429 from the loop; a
        request waitress refused (a 413 from its headers, a malformed one) is answered
        from the loop, not counted."""
        request = channel.requests[0]
        if request.error is not None:
            if isinstance(request.error, RequestEntityTooLarge):
                request.error = _Refusal(
                    413, "Content Too Large",
                    f"the request body is too large: at most {self.shared.max_body} bytes",
                    None,
                )
            self.trigger.pull_trigger(channel.service)
            return
        key = self.shared.request_client(channel.addr[0], request)
        if _counted(request):
            if not self.shared.admit(key):
                request.error = _Refusal(
                    429, "Too Many Requests",
                    f"too many requests from this address at once (at most "
                    f"{self.shared.requests_per_client}): wait for the answers",
                    RETRY_AFTER_S,
                )
                # Answered in the loop thread, without the app; not now: the caller may
                # hold the channel's lock for its requests.
                self.trigger.pull_trigger(channel.service)
                return
            request.sixtysix_client = key
        channel.dispatch_key = key
        self.task_dispatcher.add_task(channel)

    def readable(self) -> bool:
        self.shared.expire(time.monotonic())
        return super().readable()

    def maintenance(self, now: float) -> None:
        """Close the connections silent for ``channel_timeout`` (waitress's rule), but not
        one whose answer is held back: its silence is the server's."""
        cutoff = now - self.adj.channel_timeout
        for channel in self.active_channels.values():
            if not channel.requests and channel.last_activity < cutoff and not channel.held():
                channel.will_close = True

    def run(self) -> None:
        try:
            _loop(self._map, self.adj, self.shared)
        except (SystemExit, KeyboardInterrupt):
            self.task_dispatcher.shutdown()


class _Servers(MultiSocketServer):
    """Several listening sockets (a name such as localhost on IPv4 and IPv6), one loop."""

    def __init__(self, shared: _Shared, **kw: Any) -> None:
        self.shared = shared
        super().__init__(**kw)

    def run(self) -> None:
        try:
            _loop(self.map, self.adj, self.shared)
        except (SystemExit, KeyboardInterrupt):
            self.close()


def _loop(socket_map: dict, adj: Adjustments, shared: _Shared) -> None:
    """Waitress's event loop, waking when a held answer or a request's deadline is due."""
    poll = wasyncore.poll2 if adj.asyncore_use_poll and hasattr(select, "poll") else wasyncore.poll
    while socket_map:
        poll(shared.timeout(adj.asyncore_loop_timeout), socket_map)


def _check(name: str, value: Any, least: float, whole: bool = True) -> None:
    """A ValueError naming the option, what it must be and what it was, unless ``value``
    is a number (a whole one if ``whole``) of at least ``least``."""
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not (isinstance(value, kinds) and value >= least):
        kind = "whole number" if whole else "number"
        raise ValueError(f"{name} must be a {kind} of at least {least:g}, got {value!r}")


def make_server(
    app: Callable,
    host: str,
    port: int,
    *,
    trusted_proxy: str | None = None,
    read_timeout: int = READ_TIMEOUT_S,
    request_deadline: float = REQUEST_DEADLINE_S,
    cleanup_interval: int = CLEANUP_S,
    connection_limit: int = MAX_CONNECTIONS,
    connections_per_client: int = CONNECTIONS_PER_CLIENT,
    requests_per_client: int = REQUESTS_PER_CLIENT,
    threads: int = SERVER_THREADS,
    max_body: int = MAX_BODY_BYTES,
) -> _Server | _Servers:
    """The production server for ``app``: waitress with a bounded thread pool, caps on
    open connections (in all and per client), a read timeout and a total deadline per
    request, admission per client, request bodies of at most ``max_body`` bytes refused
    from their headers (413) and answers held without a thread (see the module).
    With ``trusted_proxy`` (the one address of a reverse proxy in front of it,
    :func:`~.limits.proxy_address`) a request from that address counts for the client
    its ``X-Forwarded-For`` names (the last hop's), and its ``X-Forwarded-Proto``
    (``https`` behind a proxy that serves HTTPS) is the scheme the app sees; other
    senders' forwarding headers are dropped. ``.run()`` serves, ``.close()`` stops; ``effective_port`` (one socket)
    or ``effective_listen`` (several) say where it listens."""
    proxy = proxy_address(trusted_proxy) if trusted_proxy is not None else None
    for name, value in (
        ("read_timeout", read_timeout),
        ("cleanup_interval", cleanup_interval),
        ("connection_limit", connection_limit),
        ("connections_per_client", connections_per_client),
        ("requests_per_client", requests_per_client),
        ("threads", threads),
        ("max_body", max_body),
    ):
        _check(name, value, 1)
    _check("request_deadline (seconds)", request_deadline, 0.001, whole=False)
    adj = _adjustments(host, port, proxy, threads, connection_limit, read_timeout,
                       cleanup_interval, max_body)
    shared = _Shared(proxy, connections_per_client, requests_per_client, float(request_deadline),
                     max_body)
    dispatcher = _FairDispatcher()
    dispatcher.set_thread_count(adj.threads)
    socket_map: dict = {}
    servers = _listening(app, adj, shared, socket_map, dispatcher)
    if len(servers) == 1:
        return servers[0]
    return _Servers(
        shared,
        map=socket_map,
        adj=adj,
        effective_listen=[(s.effective_host, s.effective_port) for s in servers],
        dispatcher=dispatcher,
        log_info=servers[0].log_info,
    )


def _adjustments(
    host: str,
    port: int,
    proxy: str | None,
    threads: int,
    connection_limit: int,
    read_timeout: int,
    cleanup_interval: int,
    max_body: int = MAX_BODY_BYTES,
) -> Adjustments:
    """Waitress's settings: where to listen, the pool and the caps, the proxy to trust.
    Waitress refuses a body of ``max_request_body_size`` bytes or more: one past the cap."""
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "threads": threads,
        "connection_limit": connection_limit,
        "channel_timeout": read_timeout,
        "cleanup_interval": cleanup_interval,
        "ident": "sixtysix",
        "clear_untrusted_proxy_headers": True,
        "max_request_body_size": max_body + 1,
        "max_request_header_size": MAX_HEADER_BYTES,
        "recv_bytes": RECV_BYTES,
        "inbuf_overflow": 2 * (max_body + RECV_BYTES),
        "outbuf_overflow": OUTBUF_OVERFLOW,
        "outbuf_high_watermark": OUTBUF_HIGH_WATERMARK,
    }
    if proxy is not None:
        # X-Forwarded-Proto too: behind a proxy that serves HTTPS the page's Origin is
        # https://..., which the app compares with its own scheme.
        options.update(
            trusted_proxy=proxy,
            trusted_proxy_headers={"x-forwarded-for", "x-forwarded-proto"},
            trusted_proxy_count=1,
        )
    return Adjustments(**options)


def _listening(
    app: Callable, adj: Adjustments, shared: _Shared, socket_map: dict,
    dispatcher: _FairDispatcher,
) -> list[_Server]:
    """A server per listening socket of ``adj``, one map and one dispatcher for them all;
    if one fails to open, those already open are closed and the dispatcher shut down."""
    servers: list[_Server] = []
    try:
        for sockinfo in adj.listen:
            servers.append(
                _Server(app, shared=shared, map=socket_map, dispatcher=dispatcher, adj=adj,
                        sockinfo=sockinfo)
            )
    except BaseException:
        for server in servers:
            server.close()
        dispatcher.shutdown()
        raise
    return servers
