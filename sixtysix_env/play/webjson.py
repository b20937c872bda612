"""The web page's JSON: a game as the person may see it, and the steps to replay.

Everything here is built from the person's
:class:`~sixtysix_env.game.view.PlayerView`, the match score and results, and,
once a hand is over, both hands as they lay at its end: nothing hidden
leaves the server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE
from ..game.cards import CARD_POINTS, SUIT_NAMES, SUITS, card, card_code
from ..game.engine import Close, Exchange, Marriage, Trick
from .session import COMPUTER, HUMAN, GameSession, Step, moves, sort_hand
from .wording import explain_result, narrate, points_breakdown, result_headline

SIDE = ("you", "computer")


def _code(c: int | None) -> str | None:
    return None if c is None else card_code(c)


def _codes(cards: Iterable[int]) -> list[str]:
    return [card_code(c) for c in cards]


def _side(seat: int | None) -> str | None:
    return None if seat is None else SIDE[seat]


def _both(pair: Sequence[Any]) -> dict[str, Any]:
    """A per-seat pair as ``{"you": ..., "computer": ...}``."""
    return {"you": pair[HUMAN], "computer": pair[COMPUTER]}


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


def _stock_json(view) -> dict[str, Any]:
    return {
        "size": view.stock_size,
        "face_down": view.stock_left,
        "closed_by": _side(view.closed_by),
        # The trump card lies face up under the stock while cards remain; it
        # stays known (turned down) after a close.
        "trump_card": card_code(view.trump_card) if view.stock_left else None,
    }


def _phase(view) -> str:
    if view.result is not None:
        return "over"
    return "strict" if view.is_strict else "open"


def _hand_json(session: GameSession, view) -> dict[str, Any]:
    """The hand in play (or just over) as the person sees it, with the moves open to them."""
    ts = view.trump_suit
    ms = moves(view) if view.result is None else []
    hand: dict[str, Any] = {
        "number": session.hand_number,
        "dealer": SIDE[view.dealer],
        "leader": SIDE[view.leader],
        "to_move": None if view.to_move < 0 else SIDE[view.to_move],
        "trump_suit": SUITS[ts],
        "trump_suit_name": SUIT_NAMES[ts],
        "trump_card": card_code(view.trump_card),
        "stock": _stock_json(view),
        "phase": _phase(view),
        "table": None
        if view.lead_card is None
        else {"card": card_code(view.lead_card), "by": SIDE[view.leader]},
        "your_cards": _codes(sort_hand(view.hand, ts)),
        "your_points": view.points(HUMAN),
        "your_card_points": view.card_points[HUMAN],
        "your_marriage_points": view.marriage_points[HUMAN],
        "tricks": _both(view.tricks_won),
        "computer_cards": view.opponent_hand_size,
        "computer_known": _codes(sort_hand(view.opponent_known, ts)),
        "events": [_event(e) for e in view.events],
        "moves": _moves_json(view, ms),
    }
    if any(m.kind == "exchange" for m in ms):
        give = card(ts, view.rules.exchange_rank)  # the trump 9, or jack with 20 cards
        hand["exchange"] = {"give": card_code(give), "take": card_code(view.trump_card)}
    return hand


def _result_json(session: GameSession, view) -> dict[str, Any]:
    """A finished hand: who won, why, the points, and both hands as they lay at its end."""
    res = view.result
    ts = view.trump_suit
    yours, theirs = session.revealed_hands()
    return {
        "winner": _side(res.winner),
        "game_points": res.game_points,
        "reason": res.reason,
        "headline": result_headline(res),
        "explain": explain_result(res),
        "card_points": _both(res.card_points),
        "marriage_points": _both(res.marriage_points),
        "tricks": _both(res.tricks_won),
        "totals": _both(res.totals),
        "breakdown": {
            "you": points_breakdown(res, HUMAN),
            "computer": points_breakdown(res, COMPUTER),
        },
        "your_cards": _codes(sort_hand(yours, ts)),
        "computer_cards": _codes(sort_hand(theirs, ts)),
    }


def _match_json(session: GameSession) -> dict[str, Any]:
    return {
        "score": _both(session.score),
        "target": session.rules.match_target,
        "over": session.is_over(),
        "winner": _side(session.winner),
        "hands": [
            {
                "number": i + 1,
                "winner": _side(r.winner),
                "game_points": _both(g),
                "explain": explain_result(r),
            }
            for i, (r, g) in enumerate(session.history)
        ],
    }


def game_json(gid: str, session: GameSession, steps: Sequence[Step] = ()) -> dict[str, Any]:
    """The game as the person may see it.

    Built from ``session.view()`` (the person's PlayerView), the match score
    and results, and, once the hand is over, the hands as they lay at its end.
    """
    view = session.view()
    return {
        "game_id": gid,
        "opponent": session.opponent_name,
        "rules": session.rules.name,
        "match": _match_json(session),
        "hand": _hand_json(session, view),
        "result": _result_json(session, view) if view.result is not None else None,
        "steps": [step_json(s) for s in steps],
    }
