"""``sixtysix serve``: a web page to play a match against the computer.

    sixtysix serve                         # http://127.0.0.1:8066/
    sixtysix serve --port 9000 --opponent path/to/policy.npz

The server (Flask) keeps every match in memory, each under its own
unguessable id (:func:`secrets.token_urlsafe`), and answers with JSON built
only from the person's :class:`~sixtysix_env.view.PlayerView` (and, once a
hand is over, both hands as they lay at its end). The page itself is static
(``static/``): cards are drawn with CSS and inline SVG, nothing is fetched
from elsewhere.

API (all JSON; errors are ``{"error": "..."}`` with a 4xx status):

==========================  ===================================================
``GET  /api/options``       opponents, rule presets, defaults
``POST /api/games``         ``{"opponent": NAME, "rules": PRESET}`` -> 201, a game
``GET  /api/games/ID``      the game as the person sees it
``POST /api/games/ID/act``  ``{"action": "KH" | "marry-KH" | "exchange" | "close"}``
``POST /api/games/ID/next`` deal the next hand after one is over
``DELETE /api/games/ID``    forget the game
==========================  ===================================================

A malformed or illegal request answers 400 (malformed, unknown action) or
409 (not legal now) and changes nothing; an unknown id answers 404.

Requests from other sites are refused, since the page's own script is the
only client the API is for: a ``Host`` header that is neither an IP address,
``localhost`` nor a name given with ``--allow-host`` answers 400 (a DNS
rebinding page reaches the server under its own name); a ``POST`` or
``DELETE`` whose ``Origin`` is not this server answers 403; a ``POST`` must
be ``application/json`` (a plain form or ``text/plain`` post from another
page is refused with 400 before anything is created). Each client address
may keep at most :data:`MAX_GAMES_PER_CLIENT` matches (a new one retires its
own least recently used) and start at most :data:`NEW_GAMES_PER_MINUTE` per
minute (429 after that). The computer's thinking is bounded per request: at
most :data:`THINKING_AT_ONCE` requests compute at a time (503 when the wait
is too long), and the expert searches for at most ``think_seconds`` per
move when the server is not seeded.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import secrets
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from ..actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, parse_action
from ..agents import agent_names
from ..cards import CARD_POINTS, SUIT_NAMES, SUITS, card_code
from ..engine import Close, Exchange, Marriage, Trick
from ..rules import PRESETS
from .session import (
    COMPUTER,
    HUMAN,
    GameSession,
    IllegalMove,
    OpponentError,
    Step,
    default_opponent,
    explain_result,
    moves,
    narrate,
    points_breakdown,
    result_headline,
    sort_hand,
)

STATIC = Path(__file__).resolve().parent / "static"
SIDE = ("you", "computer")
MAX_GAMES = 500
GAME_TTL_S = 6 * 3600
#: Matches one client address may keep; a new one retires its own oldest.
MAX_GAMES_PER_CLIENT = 20
#: New matches one client address may start per minute.
NEW_GAMES_PER_MINUTE = 30
#: Requests that may compute the computer's moves at the same time.
THINKING_AT_ONCE = max(1, min(4, os.cpu_count() or 1))
#: Seconds a request waits for its turn to compute before answering 503.
THINKING_WAIT_S = 30.0
#: The expert's search time per move in an unseeded server (seconds).
THINK_SECONDS = 2.0
#: JSON nesting a request may have: ours are flat objects.
MAX_JSON_DEPTH = 8


def _code(c: int | None) -> str | None:
    return None if c is None else card_code(c)


def _codes(cards) -> list[str]:
    return [card_code(c) for c in cards]


def _side(seat: int | None) -> str | None:
    return None if seat is None else SIDE[seat]


def _event(e) -> dict[str, Any]:
    t = type(e)
    if t is Trick:
        return {
            "type": "trick",
            "number": e.number,
            "leader": SIDE[e.leader],
            "lead": card_code(e.lead),
            "follow": card_code(e.follow),
            "winner": SIDE[e.winner],
            "points": CARD_POINTS[e.lead] + CARD_POINTS[e.follow],
        }
    if t is Marriage:
        return {
            "type": "marriage",
            "by": SIDE[e.seat],
            "suit": SUITS[e.suit],
            "points": e.points,
            "led": card_code(e.led),
            "shown": card_code(e.shown),
        }
    if t is Exchange:
        return {"type": "exchange", "by": SIDE[e.seat], "taken": card_code(e.taken),
                "nine": card_code(e.nine)}
    if t is Close:
        return {"type": "close", "by": SIDE[e.seat], "after_tricks": e.tricks_done}
    raise TypeError(f"unknown event {e!r}")  # pragma: no cover


def step_json(step: Step) -> dict[str, Any]:
    """One action taken, for the page to replay (public once made)."""
    a = step.action
    out: dict[str, Any] = {"by": SIDE[step.seat], "action": None, "card": None}
    if a == EXCHANGE:
        out.update(kind="exchange", taken=card_code(step.before.trump_card))
    elif a == CLOSE:
        out.update(kind="close")
    else:
        out.update(card=card_code(step.card))
        if a >= FIRST_MARRIAGE:
            out.update(kind="marriage")
        else:
            out.update(kind="lead" if step.before.lead_card is None else "follow")
        t = step.trick
        if t is not None:
            out["trick"] = _event(t)
    out["action"] = {"exchange": "exchange", "close": "close"}.get(out["kind"]) or (
        ("marry-" if out["kind"] == "marriage" else "") + out["card"]
    )
    out["text"] = " ".join(narrate(step))
    return out


def _moves_json(view, ms) -> list[dict[str, Any]]:
    """The person's moves; a king or queen that may declare its marriage is offered both
    ways (``marriage``, and ``play`` without declaring when that is legal too)."""
    out = []
    for m in ms:
        out.append({"action": m.name, "kind": m.kind, "card": _code(m.card), "points": m.points})
        if m.kind == "marriage" and view.legal_mask >> m.card & 1:
            code = card_code(m.card)
            out.append({"action": code, "kind": "play", "card": code, "points": 0})
    return out


def game_json(gid: str, session: GameSession, steps: Sequence[Step] = ()) -> dict[str, Any]:
    """The game as the person may see it.

    Built from ``session.view()`` (the person's PlayerView), the match score
    and results, and, once the hand is over, the hands as they lay at its end.
    """
    view = session.view()
    seat = HUMAN
    ts = view.trump_suit
    hand_over = view.result is not None
    ms = moves(view) if not hand_over else []
    stock = {
        "size": view.stock_size,
        "face_down": view.stock_left,
        "closed_by": _side(view.closed_by),
        # The trump card lies face up under the stock while cards remain; it
        # stays known (turned down) after a close.
        "trump_card": card_code(view.trump_card) if view.stock_left else None,
    }
    hand: dict[str, Any] = {
        "number": session.hand_number,
        "dealer": SIDE[view.dealer],
        "leader": SIDE[view.leader],
        "to_move": None if view.to_move < 0 else SIDE[view.to_move],
        "trump_suit": SUITS[ts],
        "trump_suit_name": SUIT_NAMES[ts],
        "trump_card": card_code(view.trump_card),
        "stock": stock,
        "phase": "over" if hand_over else ("strict" if view.closed_by is not None
                                             or view.stock_left == 0 else "open"),
        "table": None
        if view.lead_card is None
        else {"card": card_code(view.lead_card), "by": SIDE[view.leader]},
        "your_cards": _codes(sort_hand(view.hand, ts)),
        "your_points": view.points(seat),
        "your_card_points": view.card_points[seat],
        "your_marriage_points": view.marriage_points[seat],
        "tricks": {"you": view.tricks_won[HUMAN], "computer": view.tricks_won[COMPUTER]},
        "computer_cards": view.opponent_hand_size,
        "computer_known": _codes(sort_hand(view.opponent_known, ts)),
        "events": [_event(e) for e in view.events],
        "moves": _moves_json(view, ms),
    }
    if any(m.kind == "exchange" for m in ms):
        hand["exchange"] = {"give": card_code(ts * 6), "take": card_code(view.trump_card)}
    result = None
    if hand_over:
        res = view.result
        yours, theirs = session.revealed_hands()
        result = {
            "winner": _side(res.winner),
            "game_points": res.game_points,
            "reason": res.reason,
            "headline": result_headline(res),
            "explain": explain_result(res),
            "card_points": {"you": res.card_points[HUMAN], "computer": res.card_points[COMPUTER]},
            "marriage_points": {
                "you": res.marriage_points[HUMAN],
                "computer": res.marriage_points[COMPUTER],
            },
            "tricks": {"you": res.tricks_won[HUMAN], "computer": res.tricks_won[COMPUTER]},
            "totals": {"you": res.totals[HUMAN], "computer": res.totals[COMPUTER]},
            "breakdown": {
                "you": points_breakdown(res, HUMAN),
                "computer": points_breakdown(res, COMPUTER),
            },
            "your_cards": _codes(sort_hand(yours, ts)),
            "computer_cards": _codes(sort_hand(theirs, ts)),
        }
    you, comp = session.score
    return {
        "game_id": gid,
        "opponent": session.opponent_name,
        "rules": session.rules.name,
        "match": {
            "score": {"you": you, "computer": comp},
            "target": session.rules.match_target,
            "over": session.is_over(),
            "winner": _side(session.winner),
            "hands": [
                {
                    "number": i + 1,
                    "winner": _side(r.winner),
                    "game_points": {"you": g[HUMAN], "computer": g[COMPUTER]},
                    "explain": explain_result(r),
                }
                for i, (r, g) in enumerate(session.history)
            ],
        },
        "hand": hand,
        "result": result,
        "steps": [step_json(s) for s in steps],
    }


class _Game:
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
        clock=time.monotonic,
    ) -> None:
        self.max_games = max_games
        self.ttl_s = ttl_s
        self.per_client = per_client
        self.per_minute = per_minute
        self.clock = clock
        self._games: OrderedDict[str, _Game] = OrderedDict()
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
            self._games[gid] = _Game(session, client)
            self._games[gid].used = self.clock()
        return gid

    def get(self, gid: str) -> _Game | None:
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


def _json_depth(raw: bytes) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (a bound checked before parsing)."""
    depth = deepest = 0
    in_str = esc = False
    for b in raw:
        if in_str:
            if esc:
                esc = False
            elif b == 0x5C:  # backslash
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x5B, 0x7B):
            depth += 1
            if depth > deepest:
                deepest = depth
        elif b in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _host_name(host: str) -> str:
    """The name in a ``Host`` header, without the port or IPv6 brackets, lower case."""
    h = host.strip().lower()
    if h.startswith("["):
        return h[1:].split("]", 1)[0]
    if h.count(":") == 1:
        h = h.split(":", 1)[0]
    return h.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def create_app(
    opponents: Sequence[str] = (),
    default: str | None = None,
    seed: int | None = None,
    deck: str | Sequence[str] | None = None,
    max_games: int = MAX_GAMES,
    allowed_hosts: Sequence[str] = (),
    think_seconds: float | None = THINK_SECONDS,
    store: GameStore | None = None,
) -> Flask:
    """The web app.

    ``opponents`` adds choices beyond the registered agents (for example an
    exported policy file); the page may pick only from these and
    :func:`agent_names`, never name a file of its own. ``seed`` makes every
    new match deal the same way (seeded ``seed``, ``seed + 1``, ...) and
    ``deck`` deals each match's first hand from a fixed deck: both are for
    tests and demonstrations, set by whoever starts the server, never by a
    request. ``allowed_hosts`` are host names (besides ``localhost`` and IP
    addresses) the server answers to. ``think_seconds`` bounds the expert's
    search per move (ignored when ``seed`` is set, to keep matches
    reproducible). ``store`` replaces the game store (tests).
    """
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = 16 * 1024  # a move is a few bytes
    store = store if store is not None else GameStore(max_games=max_games)
    choices = list(dict.fromkeys([*opponents, *agent_names()]))
    default_name = default or (opponents[0] if opponents else default_opponent())
    if default_name not in choices:
        choices.insert(0, default_name)
    counter = {"seed": seed}
    counter_lock = threading.Lock()
    thinking = threading.BoundedSemaphore(THINKING_AT_ONCE)
    app.config["THINKING"] = thinking
    hosts = {"localhost", *(_host_name(h) for h in allowed_hosts)}
    app.config["GAMES"] = store

    def next_seed() -> int | None:
        if counter["seed"] is None:
            return None
        with counter_lock:
            s = counter["seed"]
            counter["seed"] = s + 1
            return s

    def opponent_spec(name: str) -> object:
        # The expert's search time is what a request can cost: bound it per
        # move (an unseeded server only: a time budget is not reproducible).
        if name == "expert" and seed is None and think_seconds is not None:
            from ..agents import make_agent

            agent = make_agent("expert", time_budget=think_seconds)
            return agent
        return name

    def body() -> dict[str, Any]:
        if request.mimetype != "application/json":
            raise ApiError(
                400, "send the request body as JSON, with Content-Type: application/json"
            )
        raw = request.get_data(cache=True)
        if not raw.strip():
            return {}
        brackets = raw.count(b"[") + raw.count(b"{")  # fast: the scan only when it may matter
        if brackets > MAX_JSON_DEPTH and _json_depth(raw) > MAX_JSON_DEPTH:
            raise ApiError(400, "the request body is nested too deeply: send a flat JSON object")
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            raise ApiError(400, "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return data

    def game(gid: str) -> _Game:
        g = store.get(gid)
        if g is None:
            raise ApiError(404, "no game with this id (it may have expired): start a new match")
        return g

    class _Thinking:
        """At most THINKING_AT_ONCE requests compute the computer's moves at once."""

        def __enter__(self):
            if not thinking.acquire(timeout=THINKING_WAIT_S):
                raise ApiError(503, "the server is busy: try again in a moment")

        def __exit__(self, *exc):
            thinking.release()

    @app.before_request
    def _same_site():
        name = _host_name(request.host)
        if not (name in hosts or _is_ip(name)):
            # DNS rebinding: a foreign page reaching us under its own name.
            raise ApiError(
                400,
                f"this server does not answer to the host name {name!r}; "
                "use localhost or an IP address (or start it with --allow-host NAME)",
            )
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            origin = request.headers.get("Origin")
            if origin is not None and origin != request.host_url.rstrip("/"):
                raise ApiError(403, "requests from other sites are not accepted")
            if request.headers.get("Sec-Fetch-Site", "same-origin") not in (
                "same-origin",
                "none",
            ):
                raise ApiError(403, "requests from other sites are not accepted")

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        resp = jsonify({"error": e.message, **e.extra})
        resp.status_code = e.status
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        resp = jsonify({"error": f"{e.name}: {e.description}"})
        resp.status_code = e.code or 500
        return resp

    @app.errorhandler(OpponentError)
    def _agent_error(e: OpponentError):
        # A session set to raise on a failing opponent; its message holds
        # nothing hidden (see OpponentError).
        app.logger.warning("opponent failed: %s", e)
        resp = jsonify({"error": str(e)})
        resp.status_code = 500
        return resp

    @app.after_request
    def _headers(resp):
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        resp.headers["X-Frame-Options"] = "DENY"
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'"
        )
        if request.path.startswith("/api/"):
            resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/options")
    def options():
        return jsonify(
            {
                "opponents": choices,
                "default_opponent": default_name,
                "rules": sorted(PRESETS),
                "default_rules": "altmisalti",
            }
        )

    @app.post("/api/games")
    def new_game():
        data = body()
        unknown = sorted(set(data) - {"opponent", "rules"})
        if unknown:
            raise ApiError(400, f"unknown field(s) {', '.join(unknown)}; allowed: opponent, rules")
        opponent = data.get("opponent", default_name)
        rules = data.get("rules", "altmisalti")
        if not isinstance(opponent, str) or opponent not in choices:
            raise ApiError(
                400, f"unknown opponent {opponent!r}; choose one of: {', '.join(choices)}"
            )
        if not isinstance(rules, str) or rules not in PRESETS:
            raise ApiError(
                400, f"unknown rules {rules!r}; choose one of: {', '.join(sorted(PRESETS))}"
            )
        client = request.remote_addr or ""
        try:
            store.admit(client)
        except TooManyGames:
            raise ApiError(
                429, f"too many new matches from this address (at most {store.per_minute} "
                "a minute): wait a minute", retry_after=60
            ) from None
        try:
            session = GameSession(
                opponent=opponent_spec(opponent), rules=rules, seed=next_seed(), deck=deck
            )
        except Exception as e:  # noqa: BLE001 - an opponent (policy file) that cannot load
            raise ApiError(500, f"cannot start a match against {opponent!r}: {e}") from None
        with _Thinking():
            steps = session.start()
        gid = store.add(session, client)
        resp = jsonify(game_json(gid, session, steps))
        resp.status_code = 201
        return resp

    @app.get("/api/games/<gid>")
    def show_game(gid: str):
        g = game(gid)
        with g.lock:
            return jsonify(game_json(gid, g.session))

    @app.post("/api/games/<gid>/act")
    def act(gid: str):
        g = game(gid)
        data = body()
        action = data.get("action")
        if not isinstance(action, str) or not action.strip():
            raise ApiError(
                400,
                'send {"action": NAME}: a card code such as "KH", "marry-KH", '
                '"exchange" or "close"',
            )
        if len(data) != 1:
            raise ApiError(400, "the request may only contain \"action\"")
        with g.lock:
            s = g.session
            if s.is_hand_over():
                raise ApiError(
                    409,
                    "the match is over: start a new match"
                    if s.is_over()
                    else "the hand is over: deal the next hand",
                )
            try:
                with _Thinking():
                    steps = s.act(action.strip())
            except IllegalMove as e:
                try:
                    parse_action(action.strip())
                    status = 409  # a real action, not legal now
                except ValueError:
                    status = 400  # not an action at all
                raise ApiError(status, str(e), legal=list(e.legal)) from None
            return jsonify(game_json(gid, s, steps))

    @app.post("/api/games/<gid>/next")
    def next_hand(gid: str):
        g = game(gid)
        data = body()
        if data:
            raise ApiError(400, "this request takes no fields")
        with g.lock:
            try:
                with _Thinking():
                    steps = g.session.next_hand()
            except IllegalMove as e:
                raise ApiError(409, str(e)) from None
            return jsonify(game_json(gid, g.session, steps))

    @app.delete("/api/games/<gid>")
    def delete_game(gid: str):
        if not store.remove(gid):
            raise ApiError(404, "no game with this id")
        return "", 204

    return app


# -- the command ----------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8066, help="port (default 8066)")
    parser.add_argument(
        "--opponent",
        action="append",
        default=[],
        metavar="NAME_OR_POLICY_FILE",
        help="offer this opponent on the page (repeatable; the first is the default); "
        f"registered agents ({', '.join(agent_names())}) are always offered",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer to this host name (localhost and IP addresses always work); "
        "other names are refused, against DNS rebinding",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="deal every new match the same way (for testing)"
    )
    parser.add_argument(
        "--deck",
        default=None,
        metavar="CODES",
        help="deal each match's first hand from this deck: 24 card codes, top first (for testing)",
    )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    from werkzeug.serving import make_server

    if not (STATIC / "index.html").is_file():
        print(
            f"sixtysix serve: the page's files are missing from this installation ({STATIC}); "
            "reinstall the package with its package data",
            file=sys.stderr,
        )
        return 2
    for spec in args.opponent:  # fail now, not on the first match
        try:
            GameSession(opponent=spec, seed=0)
        except Exception as e:  # noqa: BLE001 - a policy file may fail in many ways
            print(f"sixtysix serve: opponent {spec!r}: {e}", file=sys.stderr)
            return 2
    if args.deck is not None:
        try:
            GameSession(opponent="random", seed=0, deck=args.deck)
        except ValueError as e:
            print(f"sixtysix serve: --deck: {e}", file=sys.stderr)
            return 2
    app = create_app(
        opponents=args.opponent,
        seed=args.seed,
        deck=args.deck,
        allowed_hosts=[*args.allow_host, args.host],
    )
    if not _is_loopback(args.host):
        print(
            f"warning: serving on {args.host}, reachable from other machines; "
            "the game has no login",
            file=sys.stderr,
        )
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as e:
        print(f"sixtysix serve: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Sixty-Six: open http://{host}:{server.server_port}/ in a browser (Ctrl-C stops).")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print()
    finally:
        server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
