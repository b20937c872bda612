"""``sixtysix serve``: a web page to play a match against the computer.

    sixtysix serve                         # http://127.0.0.1:8066/
    sixtysix serve --port 9000 --opponent path/to/policy.npz

The server (Flask) keeps every match in memory, each under its own
unguessable id (:func:`secrets.token_urlsafe`), and answers with JSON built
only from the person's :class:`~sixtysix_env.game.view.PlayerView` (and, once a
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
``GET  /api/games/ID/hint`` the cards the computer likely holds, read from its
                            moves (the person's view only; the page asks only
                            when its Hints box is ticked)
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
page is refused with 400 before anything is created). A client is an IPv4
address, an IPv6 /64 or the loopback machine (:mod:`.limits`); each may keep
at most :data:`MAX_GAMES_PER_CLIENT` matches (a new one retires its own
least recently used) and start at most :data:`NEW_GAMES_PER_MINUTE` per
minute, and all together :data:`~.store.ALL_NEW_GAMES_PER_MINUTE` (429 after
that; a share of both caps is kept for clients that hold no match,
:data:`~.store.RESERVED_SHARE`). When the store is full, only a match idle for
:data:`~.store.PROTECTED_S` makes room (else 503). The computer's thinking
is bounded per request: at most :data:`THINKING_AT_ONCE` requests compute
at a time, one per client, the waiting clients served in turn (503 when the
wait is too long), and the expert searches for at most ``think_seconds`` per
move when the server is not seeded. Every computer decision takes at least
``min_think_seconds`` as seen from the page (:meth:`.GameSession.pause`):
under ``sixtysix serve`` the server holds the answer back without a thread
(:data:`~.limits.HOLD_UNTIL`), and no answer about that match leaves sooner.

This module is the app and its command; the JSON it answers is built in
:mod:`.webjson`, the rules for requests are in :mod:`.webrequest`, the
matches are kept in :mod:`.store`, and the production server with its limits
per connection and per client is :mod:`.server` (docs/serving.md).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from ..agents import agent_names, make_agent
from ..agents.registry import parse_agent_spec
from ..game.actions import parse_action
from ..game.cards import card_code
from ..game.rules import PRESETS
from .limits import HOLD_UNTIL, Busy, FairThinking, client_key, proxy_address
from .session import (
    MIN_THINK_SECONDS,
    GameSession,
    IllegalMove,
    OpponentError,
    Step,
    add_min_think_argument,
    default_opponent,
    sort_hand,
)
from .store import (
    GAME_TTL_S,
    MAX_GAMES,
    MAX_GAMES_PER_CLIENT,
    NEW_GAMES_PER_MINUTE,
    GameStore,
    StoredGame,
    StoreFull,
    TooManyGames,
)
from .webjson import SIDE, game_json, step_json
from .webrequest import MAX_JSON_DEPTH, ApiError, check_same_site, host_name, request_body

__all__ = [
    "GAME_TTL_S",
    "MAX_GAMES",
    "MAX_GAMES_PER_CLIENT",
    "MAX_JSON_DEPTH",
    "NEW_GAMES_PER_MINUTE",
    "SIDE",
    "ApiError",
    "GameStore",
    "TooManyGames",
    "add_arguments",
    "create_app",
    "game_json",
    "run",
    "sort_hand",
    "step_json",
]

STATIC = Path(__file__).resolve().parent / "static"
#: Requests that may compute the computer's moves at the same time.
THINKING_AT_ONCE = max(1, min(4, os.cpu_count() or 1))
#: Seconds a request waits for its turn to compute before answering 503.
THINKING_WAIT_S = 30.0
#: The expert's search time per move in an unseeded server (seconds).
THINK_SECONDS = 2.0
#: Search agents whose thinking time an unseeded server bounds by THINK_SECONDS.
SEARCHERS = ("expert", "guided", "lbr")
#: Bytes a request body may have: a move is a few.
MAX_BODY_BYTES = 16 * 1024


# -- answering -------------------------------------------------------------------------


def _json_response(data: Any, status: int) -> Response:
    resp = jsonify(data)
    resp.status_code = status
    return resp


def _api_error(e: ApiError) -> Response:
    return _json_response({"error": e.message, **e.extra}, e.status)


def _http_error(e: HTTPException) -> Response:
    return _json_response({"error": f"{e.name}: {e.description}"}, e.code or 500)


def _security_headers(resp: Response) -> Response:
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


def _index() -> Response:
    return send_from_directory(STATIC, "index.html")


def _static_file(name: str) -> Response:
    return send_from_directory(STATIC, name)


class _Api:
    """The API's routes over one store, with the server's fixed choices."""

    def __init__(
        self,
        store: GameStore,
        opponents: Sequence[str],
        default: str | None,
        seed: int | None,
        deck: str | Sequence[str] | None,
        think_seconds: float | None,
        min_think_seconds: float = MIN_THINK_SECONDS,
    ) -> None:
        self.store = store
        self.min_think_seconds = min_think_seconds
        self.choices = list(dict.fromkeys([*opponents, *agent_names()]))
        self.default_name = default or (opponents[0] if opponents else default_opponent())
        if self.default_name not in self.choices:
            self.choices.insert(0, self.default_name)
        self.seed = seed
        self.deck = deck
        self.think_seconds = think_seconds
        self._next_seed = seed
        self._seed_lock = threading.Lock()
        self.thinking = FairThinking(THINKING_AT_ONCE, THINKING_WAIT_S)

    # -- helpers

    def next_seed(self) -> int | None:
        if self._next_seed is None:
            return None
        with self._seed_lock:
            s = self._next_seed
            self._next_seed = s + 1
            return s

    def opponent_spec(self, name: str) -> object:
        # The expert's search time is what a request can cost: bound it per
        # move, whatever the spec's own options ask (expert:samples=100000,
        # time_budget=60); an unseeded server only: a time budget is not reproducible.
        base, options = parse_agent_spec(name)
        if base in SEARCHERS and self.seed is None and self.think_seconds is not None:
            asked = options.get("time_budget")
            if isinstance(asked, (int, float)) and not isinstance(asked, bool) and asked > 0:
                options["time_budget"] = min(float(asked), self.think_seconds)
            else:
                options["time_budget"] = self.think_seconds
            return make_agent(base, **options)
        return name

    def game(self, gid: str) -> StoredGame:
        g = self.store.get(gid)
        if g is None:
            raise ApiError(404, "no game with this id (it may have expired): start a new match")
        return g

    @contextmanager
    def _locked(self, g: StoredGame) -> Iterator[None]:
        """The match's lock; the answer, whatever it is, leaves no sooner than the pause
        the match's last computer decisions owe (held by the server, see :meth:`_pause`)."""
        with g.lock:
            try:
                yield
            finally:
                hold = request.environ.get(HOLD_UNTIL)
                if hold is not None and g.release_at > time.monotonic():
                    hold(g.release_at)

    @staticmethod
    def _pause(session: GameSession, g: StoredGame | None = None) -> None:
        """Wait out the pause the computer's decisions owe (:meth:`GameSession.pause`).
        Under ``sixtysix serve`` the server holds the answer back until then without a
        thread, and until then no answer about the match leaves (``g.release_at``);
        elsewhere (Flask's test client, ``--dev``) this thread sleeps."""
        hold = request.environ.get(HOLD_UNTIL)
        if hold is None:
            session.pause()
            return
        due = session.take_pause()  # what pause() would sleep, without sleeping
        until = time.monotonic() + due
        if g is not None:
            g.release_at = max(g.release_at, until)
        hold(until)

    def _new_game_request(self) -> tuple[str, str]:
        """The opponent and rules a new-game request asks for, checked."""
        data = request_body()
        unknown = sorted(set(data) - {"opponent", "rules"})
        if unknown:
            raise ApiError(400, f"unknown field(s) {', '.join(unknown)}; allowed: opponent, rules")
        opponent = data.get("opponent", self.default_name)
        rules = data.get("rules", "altmisalti")
        if not isinstance(opponent, str) or opponent not in self.choices:
            raise ApiError(
                400, f"unknown opponent {opponent!r}; choose one of: {', '.join(self.choices)}"
            )
        if not isinstance(rules, str) or rules not in PRESETS:
            raise ApiError(
                400, f"unknown rules {rules!r}; choose one of: {', '.join(sorted(PRESETS))}"
            )
        return opponent, rules

    def _admit(self, client: str) -> None:
        try:
            self.store.admit(client)
        except TooManyGames as e:
            if e.everyone:
                raise ApiError(
                    429, "the server is starting too many matches just now: try again in a "
                    "minute", retry_after=60
                ) from None
            raise ApiError(
                429, f"too many new matches from this address (at most {self.store.per_minute} "
                "a minute): wait a minute", retry_after=60
            ) from None

    @contextmanager
    def _thinking(self) -> Iterator[None]:
        """The requesting client's turn at the computer's thinking (503 if none comes)."""
        try:
            with self.thinking.turn(client_key(request.remote_addr)):
                yield
        except Busy:
            raise ApiError(503, "the server is busy: try again in a moment") from None

    @staticmethod
    def _action_request() -> str:
        data = request_body()
        action = data.get("action")
        if not isinstance(action, str) or not action.strip():
            raise ApiError(
                400,
                'send {"action": NAME}: a card code such as "KH", "marry-KH", '
                '"exchange" or "close"',
            )
        if len(data) != 1:
            raise ApiError(400, "the request may only contain \"action\"")
        return action.strip()

    def _answer(self, gid: str, session: GameSession, steps: Sequence[Step] = ()) -> Response:
        return jsonify(game_json(gid, session, steps))

    # -- routes

    def options(self) -> Response:
        return jsonify(
            {
                "opponents": self.choices,
                "default_opponent": self.default_name,
                "rules": sorted(PRESETS),
                "default_rules": "altmisalti",
            }
        )

    def new_game(self) -> Response:
        opponent, rules = self._new_game_request()
        client = client_key(request.remote_addr)
        self._admit(client)
        try:
            session = GameSession(
                opponent=self.opponent_spec(opponent),
                rules=rules,
                seed=self.next_seed(),
                deck=self.deck,
                min_think_seconds=self.min_think_seconds,
            )
        except Exception as e:  # noqa: BLE001 - an opponent (policy file) that cannot load
            raise ApiError(500, f"cannot start a match against {opponent!r}: {e}") from None
        session.opponent_name = opponent  # the choice as offered, its options included
        with self._thinking():
            steps = session.start()
        self._pause(session)  # outside the thinking slots; the id is not out before it ends
        try:
            gid = self.store.add(session, client)
        except StoreFull:
            raise ApiError(
                503, "the server holds as many matches as it can, all in play: try again later",
                retry_after=60,
            ) from None
        resp = self._answer(gid, session, steps)
        resp.status_code = 201
        return resp

    def show_game(self, gid: str) -> Response:
        g = self.game(gid)
        with self._locked(g):
            return self._answer(gid, g.session)

    def hint(self, gid: str) -> Response:
        """``{"hint": [{"card": CODE, "probability": P}, ...]}``, most likely first
        (:meth:`GameSession.hint`: from the person's own view)."""
        g = self.game(gid)
        with self._locked(g):
            with self._thinking():  # a belief is a computation like the computer's move
                hint = g.session.hint()
        return _json_response(
            {"hint": [{"card": card_code(c), "probability": round(p, 4)} for c, p in hint]}, 200
        )

    def act(self, gid: str) -> Response:
        g = self.game(gid)
        action = self._action_request()
        with self._locked(g):
            s = g.session
            if s.is_hand_over():
                raise ApiError(
                    409,
                    "the match is over: start a new match"
                    if s.is_over()
                    else "the hand is over: deal the next hand",
                )
            try:
                with self._thinking():
                    steps = s.act(action)
                self._pause(s, g)
            except IllegalMove as e:
                try:
                    parse_action(action)
                    status = 409  # a real action, not legal now
                except ValueError:
                    status = 400  # not an action at all
                raise ApiError(status, str(e), legal=list(e.legal)) from None
            return self._answer(gid, s, steps)

    def next_hand(self, gid: str) -> Response:
        g = self.game(gid)
        if request_body():
            raise ApiError(400, "this request takes no fields")
        with self._locked(g):
            try:
                with self._thinking():
                    steps = g.session.next_hand()
                self._pause(g.session, g)
            except IllegalMove as e:
                raise ApiError(409, str(e)) from None
            return self._answer(gid, g.session, steps)

    def delete_game(self, gid: str) -> tuple[str, int]:
        if not self.store.remove(gid):
            raise ApiError(404, "no game with this id")
        return "", 204


def _opponent_failed(app: Flask, e: OpponentError) -> Response:
    # A session set to raise on a failing opponent; its message holds
    # nothing hidden (see OpponentError).
    app.logger.warning("opponent failed: %s", e)
    return _json_response({"error": str(e)}, 500)


def create_app(
    opponents: Sequence[str] = (),
    default: str | None = None,
    seed: int | None = None,
    deck: str | Sequence[str] | None = None,
    max_games: int = MAX_GAMES,
    allowed_hosts: Sequence[str] = (),
    think_seconds: float | None = THINK_SECONDS,
    store: GameStore | None = None,
    min_think_seconds: float = MIN_THINK_SECONDS,
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
    ``min_think_seconds``: every computer decision takes at least this long
    as seen from the page, forced or not, so that the answer's speed does
    not tell whether the computer had a choice (default
    :data:`~.session.MIN_THINK_SECONDS`, as ``sixtysix serve``; 0 for none, as
    tests that play many moves pass). The wait holds no thinking slot, and
    under :func:`make_server` no thread either.
    """
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    store = store if store is not None else GameStore(max_games=max_games)
    api = _Api(store, opponents, default, seed, deck, think_seconds, min_think_seconds)
    app.config["GAMES"] = store
    app.config["THINKING"] = api.thinking
    hosts = {"localhost", *(host_name(h) for h in allowed_hosts)}

    app.before_request(lambda: check_same_site(hosts))
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(OpponentError, lambda e: _opponent_failed(app, e))
    app.after_request(_security_headers)

    app.add_url_rule("/", "index", _index, methods=["GET"])
    app.add_url_rule("/static/<path:name>", "static_file", _static_file, methods=["GET"])
    app.add_url_rule("/api/options", "options", api.options, methods=["GET"])
    app.add_url_rule("/api/games", "new_game", api.new_game, methods=["POST"])
    app.add_url_rule("/api/games/<gid>", "show_game", api.show_game, methods=["GET"])
    app.add_url_rule("/api/games/<gid>/act", "act", api.act, methods=["POST"])
    app.add_url_rule("/api/games/<gid>/next", "next_hand", api.next_hand, methods=["POST"])
    app.add_url_rule("/api/games/<gid>/hint", "hint", api.hint, methods=["GET"])
    app.add_url_rule("/api/games/<gid>", "delete_game", api.delete_game, methods=["DELETE"])
    return app


# -- the server -----------------------------------------------------------------


def make_server(app: Flask, host: str, port: int, **options: Any):
    """The production server for ``app`` (waitress, pure Python, with limits per
    connection and per client): :func:`sixtysix_env.play.server.make_server`, whose
    keyword options (``trusted_proxy``, ``read_timeout``, ``request_deadline``,
    ``cleanup_interval``, ``connection_limit``, ``connections_per_client``,
    ``requests_per_client``, ``threads``) it takes."""
    from .server import make_server as make_waitress_server

    return make_waitress_server(app, host, port, **options)


# -- the command ----------------------------------------------------------------


MIN_PORT, MAX_PORT = 1, 65535


def port_number(text: str) -> int:
    """A TCP port from 1 to 65535 (argparse type). 0, which would let the system pick a
    free port, is refused too: the page's address must be one a person can type."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a port is a whole number from {MIN_PORT} to {MAX_PORT}, got {text!r}"
        ) from None
    if not MIN_PORT <= port <= MAX_PORT:
        raise argparse.ArgumentTypeError(
            f"a port is a whole number from {MIN_PORT} to {MAX_PORT}, got {port}"
        )
    return port


def trusted_proxy_address(text: str) -> str:
    """``--trusted-proxy``'s value (argparse type): one IP address, never ``*`` nor a range."""
    try:
        return proxy_address(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=port_number, default=8066,
                        help=f"port, {MIN_PORT}-{MAX_PORT} (default 8066)")
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
        help="deal each match's first hand from this deck: the rules' card codes (24, or 20 "
        "under schnapsen and schnapsen-vu), top first (for testing)",
    )
    parser.add_argument(
        "--trusted-proxy",
        type=trusted_proxy_address,
        default=None,
        metavar="ADDRESS",
        help="the one IP address of a reverse proxy in front of the server (not * nor a "
        "range): its requests count for the client named in X-Forwarded-For "
        "(see docs/serving.md)",
    )
    parser.add_argument(
        "--dev",
        action="store_true",
        help="Werkzeug's development server instead of the production one (waitress)",
    )
    add_min_think_argument(parser)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_options(args: argparse.Namespace) -> str | None:
    """What is wrong with the opponents, --min-think or --deck, or None."""
    for spec in args.opponent:
        try:
            GameSession(opponent=spec, seed=0)
        except Exception as e:  # noqa: BLE001 - a policy file may fail in many ways
            return f"opponent {spec!r}: {e}"
    try:
        GameSession(opponent="random", seed=0, min_think_seconds=args.min_think)
    except ValueError as e:
        return f"--min-think: {e}"
    if args.deck is not None:
        try:
            GameSession(opponent="random", seed=0, deck=args.deck)
        except ValueError as e:
            return f"--deck: {e}"
    return None


def run(args: argparse.Namespace) -> int:
    if not (STATIC / "index.html").is_file():
        print(
            f"sixtysix serve: the page's files are missing from this installation ({STATIC}); "
            "reinstall the package with its package data",
            file=sys.stderr,
        )
        return 2
    problem = _check_options(args)  # fail now, not on the first match
    if problem:
        print(f"sixtysix serve: {problem}", file=sys.stderr)
        return 2
    app = create_app(
        opponents=args.opponent,
        seed=args.seed,
        deck=args.deck,
        allowed_hosts=[*args.allow_host, args.host],
        min_think_seconds=args.min_think,
    )
    if not _is_loopback(args.host):
        print(
            f"warning: serving on {args.host}, reachable from other machines; "
            "the game has no login",
            file=sys.stderr,
        )
    try:
        if args.dev:
            from werkzeug.serving import make_server as make_dev_server

            server = make_dev_server(args.host, args.port, app, threaded=True)
            port, serve, close = server.server_port, server.serve_forever, server.server_close
        else:
            server = make_server(app, args.host, args.port, trusted_proxy=args.trusted_proxy)
            # One address, or several (a name such as localhost on IPv4 and IPv6).
            port = getattr(server, "effective_port", None) or server.effective_listen[0][1]
            serve, close = server.run, server.close
    except OSError as e:
        print(f"sixtysix serve: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    kind = "development server" if args.dev else "waitress"
    print(f"Sixty-Six: open http://{host}:{port}/ in a browser ({kind}; Ctrl-C stops).")
    sys.stdout.flush()
    try:
        serve()
    except KeyboardInterrupt:
        print()
    finally:
        close()
    return 0
