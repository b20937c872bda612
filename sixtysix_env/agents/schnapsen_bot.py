"""Any agent of this project as a ``schnapsen.game.Bot``, for the ``schnapsen`` platform.

    from schnapsen.game import SchnapsenGamePlayEngine
    from sixtysix_env.agents.schnapsen_bot import SixtySixBot

    bot = SixtySixBot("expert", seed=1)   # any make_agent spec: a shipped network, a file
    SchnapsenGamePlayEngine().play_game(bot, RdeepBot(16, 4, rng), rng)

At each move the bot rebuilds, in this project's reference engine, the hand its
``PlayerPerspective`` shows: the public moves of its history (tricks, marriages, the
exchange) replayed from a deal that agrees with them, the cards it cannot see placed from
its own seeded generator. The agent is then asked with :func:`~sixtysix_env.game.view.player_view`
of that hand, which holds only what this seat may know (docs/rules.md §18), so the
placement changes nothing the agent sees; its action is the package's move (a card: a
``RegularMove``; marry-K: ``Marriage(Q, K)``; the exchange: ``TrumpExchange``).

It needs the package, the ``[schnapsen]`` extra: ``pip install "sixtysix[schnapsen]"``.
"""

from __future__ import annotations

import random
from typing import Any

from ..game.actions import EXCHANGE, FIRST_MARRIAGE, action_name
from ..game.cards import KING, QUEEN, card
from ..game.engine import State, deal_from_deck
from ..game.view import PlayerView, player_view
from .base import Agent
from .registry import make_agent
from .schnapsen import (
    SchnapsenBridgeError,
    Step,
    check_rules,
    consistent_deck,
    our_action,
    our_card,
    our_deck,
    require_schnapsen,
    sg,
    their_move,
)

_Bot: Any = sg.Bot if sg is not None else object


def _steps(history, seat: int) -> list[Step]:
    """The public moves of a perspective's history (``seat``: ours, the other 1 - seat)."""
    steps = []
    for i, (p, trick) in enumerate(history[:-1]):
        leader = seat if p.am_i_leader() else 1 - seat
        if trick.is_trump_exchange():
            steps.append(Step(leader))
            continue
        nxt = history[i + 1][0]
        winner = seat if nxt.am_i_leader() else 1 - seat
        lead = our_action(trick.leader_move)
        shown = our_card(trick.leader_move.queen_card) if trick.leader_move.is_marriage() else None
        steps.append(Step(leader, lead, our_card(trick.follower_move.card), winner, shown))
    return steps


def _lead_ids(action: int) -> list[int]:
    if action < FIRST_MARRIAGE:
        return [action]
    suit = (action - FIRST_MARRIAGE) // 2
    return [card(suit, KING), card(suit, QUEEN)]


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << our_card(c)
    return m


class SixtySixBot(_Bot):
    """A ``schnapsen.game.Bot`` that plays the agent ``spec`` names (or an agent object).

    ``rules`` must be ``schnapsen-vu``, the rules the package's engine plays; ``seed``
    seeds the generator the agent and the placing of the unseen cards draw from; ``name``
    is the bot's name in the package's tables (default: the agent's). Options of the
    agent go after the spec (``SixtySixBot("expert", samples=16)``).
    """

    def __init__(
        self,
        spec: str | Agent = "expert",
        rules: str = "schnapsen-vu",
        seed: int | None = 0,
        name: str | None = None,
        **options: Any,
    ) -> None:
        require_schnapsen("SixtySixBot")
        self.rules = check_rules(rules, "SixtySixBot")
        self.agent = make_agent(spec, **options)
        self.rng = random.Random(seed)
        self.name = name or str(getattr(self.agent, "name", spec))
        super().__init__(self.name)

    def view(self, perspective, leader_move) -> PlayerView:
        """Our view of the hand the perspective (and the leader's move) shows."""
        history = perspective.get_game_history()
        seat = 0 if history[0][0].am_i_leader() else 1  # seat 0: the first leader
        steps = _steps(history, seat)
        mine = _mask(perspective.get_hand())
        won = _mask(perspective.get_won_cards()) | _mask(perspective.get_opponent_won_cards())
        seen = mine | won
        opp = _mask(perspective.get_known_cards_of_opponent_hand())
        lead = None
        if leader_move is not None:
            lead = our_action(leader_move)
            for c in _lead_ids(lead):
                opp |= 1 << c
        face_up = perspective.get_trump_card()
        if face_up is not None:
            seen |= 1 << our_card(face_up)
        # the opponent's hand: the cards neither in ours, nor won, nor in the talon
        opp_size = self.rules.deck - (mine | won).bit_count() - perspective.get_talon_size()
        unseen = [c for c in self.rules.deck_cards if not (seen | opp) >> c & 1]
        for c in self.rng.sample(unseen, opp_size - opp.bit_count()):
            opp |= 1 << c
        hands = (mine, opp) if seat == 0 else (opp, mine)
        first_trump = our_card(history[0][0].get_trump_card())
        deck = consistent_deck(steps, 0, hands, first_trump, self.rules, self.rng)
        state = self._replay(our_deck(deck), steps, lead)
        return player_view(state, seat)

    def _replay(self, deck: list[int], steps: list[Step], lead: int | None) -> State:
        state = deal_from_deck(deck, dealer=1, rules=self.rules)
        for st in steps:
            if st.follow is None:
                state = state.apply(EXCHANGE)
            else:
                state = state.apply(st.lead).apply(st.follow)
        return state.apply(lead) if lead is not None else state

    def get_move(self, perspective, leader_move):
        view = self.view(perspective, leader_move)
        action = self.agent.act(view, self.rng)
        if not view.legal_mask >> int(action) & 1:
            legal = ", ".join(action_name(a) for a in view.legal_actions())
            raise SchnapsenBridgeError(
                f"agent {self.name!r} returned the illegal action {action_name(int(action))}; "
                f"legal actions: {legal}"
            )
        return their_move(int(action), view.trump_suit)


__all__ = ["SixtySixBot"]
