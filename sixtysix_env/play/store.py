"""The web server's matches in memory: by unguessable id, bounded per client and overall."""

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
#: New matches one client address may start per minute.
NEW_GAMES_PER_MINUTE = 30


class StoredGame:
    """One match in the store, with the lock its requests take in turn."""

    __slots__ = ("client", "lock", "session", "used")

    def __init__(self, session: GameSession, client: str) -> None:
        self.session = session
        self.client = client
        self.lock = threading.Lock()
        self.used = time.monotonic()


class TooManyGames(Exception):
    """A client started more matches in a minute than :data:`NEW_GAMES_PER_MINUTE`."""


class GameStore:
    """Matches by id; the least recently used go when there are too many.

    Each client (address) may hold at most ``per_client`` matches: a new one
    retires that client's own least recently used, so one client cannot push
    everybody else's matches out through the overall cap. ``clock`` is for tests.
    """

    def __init__(
        self,
        max_games: int = MAX_GAMES,
        ttl_s: float = GAME_TTL_S,
        per_client: int = MAX_GAMES_PER_CLIENT,
        per_minute: int = NEW_GAMES_PER_MINUTE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_games = max_games
        self.ttl_s = ttl_s
        self.per_client = per_client
        self.per_minute = per_minute
        self.clock = clock
        self._games: OrderedDict[str, StoredGame] = OrderedDict()
        self._started: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def admit(self, client: str) -> None:
        """Count a new match for ``client``; :class:`TooManyGames` past the rate."""
        now = self.clock()
        with self._lock:
            times = self._started.setdefault(client, deque())
            while times and now - times[0] >= 60.0:
                times.popleft()
            if len(times) >= self.per_minute:
                raise TooManyGames
            times.append(now)
            if len(self._started) > 4 * self.max_games:  # forget quiet clients
                for c in [c for c, t in self._started.items() if not t or now - t[-1] >= 60.0]:
                    del self._started[c]

    def add(self, session: GameSession, client: str = "") -> str:
        gid = secrets.token_urlsafe(24)
        with self._lock:
            self._expire()
            own = [k for k, g in self._games.items() if g.client == client]
            for k in own[: max(0, len(own) - self.per_client + 1)]:
                del self._games[k]
            while len(self._games) >= self.max_games:
                self._games.popitem(last=False)
            self._games[gid] = StoredGame(session, client)
            self._games[gid].used = self.clock()
        return gid

    def get(self, gid: str) -> StoredGame | None:
        with self._lock:
            self._expire()
            g = self._games.get(gid)
            if g is not None:
                g.used = self.clock()
                self._games.move_to_end(gid)
            return g

    def remove(self, gid: str) -> bool:
        with self._lock:
            return self._games.pop(gid, None) is not None

    def __len__(self) -> int:
        return len(self._games)

    def _expire(self) -> None:
        now = self.clock()
        while self._games:
            gid, g = next(iter(self._games.items()))
            if now - g.used < self.ttl_s:
                break
            del self._games[gid]
