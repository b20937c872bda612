"""The web server's fairness: who a client is, and turns at the computer's thinking.

A limit per source address is only as fair as addresses are scarce. An IPv6
client holds a whole /64 (it can take a new address for every request), and
every player on this machine shares the loopback address; so a client is
its IPv4 address, its IPv6 /64, or "loopback" (:func:`client_key`).

The computer's moves are the server's costly work. :class:`FairThinking`
lets at most ``slots`` requests compute at once, each client at most one
(its other requests wait for their turn behind it), and serves waiting
clients in the order they came: a client that sends ten requests at once
waits its turn like one that sends one, so a few busy clients cannot push
another's move back by more than one turn each.

Behind a reverse proxy every player comes from the proxy's address: the
server takes the client from the proxy's ``X-Forwarded-For`` instead, from
that one address only (:func:`proxy_address` says which values name it).
"""

from __future__ import annotations

import ipaddress
import threading
from collections import OrderedDict, deque
from collections.abc import Iterator
from contextlib import contextmanager

#: The key of every loopback client (127.0.0.0/8, ::1): one machine, one client.
LOOPBACK = "loopback"
#: The WSGI environ key of the server's ``hold(until)``: the answer to this request leaves
#: no sooner than ``until`` (a :func:`time.monotonic` time), held by the server's event
#: loop, so that a wait (the computer's least thinking time) holds no thread.
HOLD_UNTIL = "sixtysix.hold_until"

#: Bytes a request body may have (a move is a few): the server refuses more from the
#: headers, before reading any of it (:mod:`~.server`), and the app from what it read.
MAX_BODY_BYTES = 16 * 1024

_PROXY_FORMS = "one IP address, such as 127.0.0.1 or ::1 (the address the proxy connects from)"


def proxy_address(text: str) -> str:
    """The trusted reverse proxy's address as the server compares it with a peer's:
    one IPv4 or IPv6 address. ``*`` (any sender could then choose its client address by
    sending ``X-Forwarded-For``), a range, a host name or anything else is a
    :class:`ValueError` naming what was wrong and what is accepted."""
    value = text.strip() if isinstance(text, str) else text
    if not isinstance(value, str) or not value:
        raise ValueError(f"the trusted proxy must be {_PROXY_FORMS}; got {text!r}")
    if value == "*":
        raise ValueError(
            "'*' would trust every sender, letting anyone choose the client address its "
            f"requests count for; give the proxy's own address: {_PROXY_FORMS}"
        )
    if "/" in value:
        raise ValueError(f"a range ({value}) is not accepted: give {_PROXY_FORMS}")
    if value.startswith("[") and value.endswith("]"):
        raise ValueError(f"write an IPv6 address without brackets ({value[1:-1]}): give {_PROXY_FORMS}")
    if "," in value or " " in value:
        raise ValueError(f"only one address is accepted, got {value!r}: give {_PROXY_FORMS}")
    try:
        ip = ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an IP address (a host name is not accepted either): "
            f"give {_PROXY_FORMS}"
        ) from None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # an IPv4 proxy reaches the server as its IPv4 address
    return str(ip)


def client_key(address: str | None) -> str:
    """The client an address belongs to, for the limits: an IPv4 address as it is, an
    IPv6 address's /64 network (an IPv4-mapped one as its IPv4), loopback as one key."""
    if not address:
        return ""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address  # not an IP address (a test client, a Unix socket): as given
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return LOOPBACK
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Busy(Exception):
    """No turn to think came within the wait."""


class FairThinking:
    """At most ``slots`` requests think at once, one per client; waiting clients take turns.

    ``turn(client)`` is a context manager; :class:`Busy` when no turn came within
    ``wait_s`` seconds. Waiting requests are kept per client, first come first
    served, and the clients in a round: a client whose request starts goes to
    the back of the round with its next one.
    """

    def __init__(self, slots: int, wait_s: float) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots!r}")
        self.slots = slots
        self.wait_s = wait_s
        self._cond = threading.Condition()
        self._thinking: set[str] = set()
        self._round: OrderedDict[str, deque[object]] = OrderedDict()

    @property
    def free(self) -> int:
        """Slots no request holds now."""
        with self._cond:
            return self.slots - len(self._thinking)

    def _next(self) -> object | None:
        """The ticket whose turn it is, or None (under the condition)."""
        if len(self._thinking) >= self.slots:
            return None
        for client, tickets in self._round.items():
            if client not in self._thinking:
                return tickets[0]
        return None

    @contextmanager
    def turn(self, client: str) -> Iterator[None]:
        ticket = object()
        with self._cond:
            self._round.setdefault(client, deque()).append(ticket)
            if not self._cond.wait_for(lambda: self._next() is ticket, timeout=self.wait_s):
                self._drop(client, ticket)
                self._cond.notify_all()
                raise Busy
            self._drop(client, ticket)
            if client in self._round:
                self._round.move_to_end(client)  # its next request waits a round
            self._thinking.add(client)
            self._cond.notify_all()  # another client may take a free slot too
        try:
            yield
        finally:
            with self._cond:
                self._thinking.discard(client)
                self._cond.notify_all()

    def _drop(self, client: str, ticket: object) -> None:
        tickets = self._round[client]
        tickets.remove(ticket)
        if not tickets:
            del self._round[client]
