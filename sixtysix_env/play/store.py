"""The web server's matches in memory: by unguessable id, bounded per client and overall.

Clients are keys from :func:`sixtysix_env.play.limits.client_key` (an IPv4
address, an IPv6 /64, or loopback). Every operation is O(1) in the number of
matches and clients (amortized): no request scans the store or the rate table.

The caps for all clients together are global by design: :data:`MAX_GAMES`
matches (25 clients at :data:`MAX_GAMES_PER_CLIENT` would fill them) and
:data:`ALL_NEW_GAMES_PER_MINUTE` new ones a minute (20 clients at
:data:`NEW_GAMES_PER_MINUTE` would use it up). So that a few busy clients
cannot shut everybody else out, a share of both (:data:`RESERVED_SHARE`) is
kept for clients that hold no match: a client with a match may use the rest.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from .session import GameSession

MAX_GAMES = 500
GAME_TTL_S = 6 * 3600
#: Matches one client address may keep; a new one retires its own oldest.
MAX_GAMES_PER_CLIENT = 20
#: New matches one client may start per minute ...
NEW_GAMES_PER_MINUTE = 30
#: ... and all clients together.
ALL_NEW_GAMES_PER_MINUTE = 600
#: A match used within this many seconds is never evicted to make room for a new one
#: (the new one is refused instead: the server is full).
PROTECTED_S = 15 * 60
#: Clients the rate table remembers at most (the oldest quiet ones go first).
MAX_RATE_ENTRIES = 100_000
#: The share of the store and of the rate for all clients kept for clients that hold no
#: match (100 of the 500 matches, 120 of the 600 starts a minute): a client with a match
#: may use the rest.
RESERVED_SHARE = 0.2


class StoredGame:
    """One match in the store, with the lock its requests take in turn, and the time
    (:func:`time.monotonic`) before which no answer about it may leave (the pause its
    computer's last decisions owe, held by the server)."""

    __slots__ = ("client", "lock", "release_at", "session", "used")

    def __init__(self, session: GameSession, client: str) -> None:
        self.session = session
        self.client = client
        self.lock = threading.Lock()
        self.used = time.monotonic()
        self.release_at = 0.0


class TooManyGames(Exception):
    """A client started more matches in a minute than :data:`NEW_GAMES_PER_MINUTE`, or all
    clients together more than :data:`ALL_NEW_GAMES_PER_MINUTE` (``everyone`` true; for a
    client that holds a match, the rate less its reserved share)."""

    def __init__(self, everyone: bool = False) -> None:
        super().__init__("everyone" if everyone else "this client")
        self.everyone = everyone


class StoreFull(Exception):
    """Every stored match was used within :data:`PROTECTED_S`: none is evicted (for a client
    that holds a match, the store is full once only its reserved share is left)."""


class GameStore:
    """Matches by id; when there are too many, the least recently used idle one goes.

    Each client may hold at most ``per_client`` matches: a new one retires that
    client's own least recently used, so one client cannot push everybody
    else's matches out through the overall cap. Past ``max_games`` the least
    recently used match is evicted only if it has been idle for ``protected_s``;
    otherwise :class:`StoreFull`. ``reserved_share`` of ``max_games`` and of
    ``all_per_minute`` (rounded down) is only for clients that hold no match: for
    the others the store is full, and the rate used up, that much sooner.
    ``clock`` is for tests.
    """

    def __init__(
        self,
        max_games: int = MAX_GAMES,
        ttl_s: float = GAME_TTL_S,
        per_client: int = MAX_GAMES_PER_CLIENT,
        per_minute: int = NEW_GAMES_PER_MINUTE,
        clock: Callable[[], float] = time.monotonic,
        all_per_minute: int = ALL_NEW_GAMES_PER_MINUTE,
        protected_s: float = PROTECTED_S,
        reserved_share: float = RESERVED_SHARE,
    ) -> None:
        if not 0.0 <= reserved_share < 1.0:
            raise ValueError(f"reserved_share must be from 0 to below 1, got {reserved_share!r}")
        self.max_games = max_games
        #: Matches, and starts a minute, only a client that holds no match may use.
        self.reserved_games = int(max_games * reserved_share)
        self.reserved_starts = int(all_per_minute * reserved_share)
        self.ttl_s = ttl_s
        self.per_client = per_client
        self.per_minute = per_minute
        self.all_per_minute = all_per_minute
        self.protected_s = protected_s
        self.clock = clock
        self._games: OrderedDict[str, StoredGame] = OrderedDict()  # least recently used first
        self._by_client: dict[str, OrderedDict[str, None]] = {}  # each client's, oldest first
        # client -> its start times in the last minute; the least recently active first.
        self._started: OrderedDict[str, deque[float]] = OrderedDict()
        self._all_started: deque[float] = deque()
        self._lock = threading.Lock()

    def admit(self, client: str) -> None:
        """Count a new match for ``client``; :class:`TooManyGames` past a rate."""
        now = self.clock()
        with self._lock:
            # Forget clients quiet for a minute: they are at the front.
            while self._started:
                first, times = next(iter(self._started.items()))
                if times and now - times[-1] < 60.0 and len(self._started) <= MAX_RATE_ENTRIES:
                    break
                del self._started[first]
            while self._all_started and now - self._all_started[0] >= 60.0:
                self._all_started.popleft()
            times = self._started.pop(client, None) or deque()
            self._started[client] = times  # now the most recently active
            while times and now - times[0] >= 60.0:
                times.popleft()
            if len(times) >= self.per_minute:
                raise TooManyGames
            reserve = self.reserved_starts if client in self._by_client else 0
            if len(self._all_started) >= self.all_per_minute - reserve:
                raise TooManyGames(everyone=True)
            times.append(now)
            self._all_started.append(now)

    def add(self, session: GameSession, client: str = "") -> str:
        gid = secrets.token_urlsafe(24)
        now = self.clock()
        with self._lock:
            self._expire()
            own = self._by_client.get(client)
            if own is not None and len(own) >= self.per_client:
                self._delete(next(iter(own)))  # the client's own least recently used
            else:
                # A client that holds a match leaves the reserved share to those that hold none.
                room = self.max_games - (self.reserved_games if own is not None else 0)
                if len(self._games) >= room:
                    oldest = next(iter(self._games.values()))
                    if now - oldest.used < self.protected_s:
                        raise StoreFull
                    self._delete(next(iter(self._games)))
            game = StoredGame(session, client)
            game.used = now
            self._games[gid] = game
            self._by_client.setdefault(client, OrderedDict())[gid] = None
        return gid

    def get(self, gid: str) -> StoredGame | None:
        with self._lock:
            self._expire()
            g = self._games.get(gid)
            if g is not None:
                g.used = self.clock()
                self._games.move_to_end(gid)
                self._by_client[g.client].move_to_end(gid)
            return g

    def remove(self, gid: str) -> bool:
        with self._lock:
            if gid not in self._games:
                return False
            self._delete(gid)
            return True

    def __len__(self) -> int:
        return len(self._games)

    def _delete(self, gid: str) -> None:
        g = self._games.pop(gid)
        own = self._by_client[g.client]
        del own[gid]
        if not own:
            del self._by_client[g.client]

    def _expire(self) -> None:
        now = self.clock()
        while self._games:
            gid, g = next(iter(self._games.items()))
            if now - g.used < self.ttl_s:
                break
            self._delete(gid)
