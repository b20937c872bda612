"""``sixtysix play``: a match against the computer in the terminal.

    sixtysix play                          # against the default opponent
    sixtysix play --opponent random --seed 7 --rules pagat66
    sixtysix play --opponent path/to/policy.npz

You are seat 0. Type a card (``KH``, ``10h``, ``K♥``), a number from the
list shown, or ``exchange``, ``close``, ``help``, ``quit``. Leading a king
or queen whose marriage you may declare declares it. A king or queen played
without its marriage while the marriage could still be declared (now, or once
you have won a trick) is played only when asked for twice: the first time, the
terminal says what it gives up (:func:`marriage_given_up`). End of input quits.

:class:`TerminalGame` reads and writes the streams it is given, so tests
drive it with ``io.StringIO``.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TextIO

from ..agents import agent_names
from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, marriage_action, parse_marriage
from ..game.cards import (
    KING,
    NUM_CARDS,
    NUM_RANKS,
    QUEEN,
    RANK_NAMES,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card,
    card_code,
    card_label,
)
from ..game.rules import (
    MARRIAGE_POINTS,
    ONE_POINT_TOTAL,
    PRESETS,
    TRUMP_MARRIAGE_POINTS,
    RuleConfig,
    marriage_points,
)
from ..game.view import PlayerView
from ..game.wording.refusals import explain_illegal, strict_reason
from .session import (
    COMPUTER,
    HUMAN,
    MIN_THINK_SECONDS,
    GameSession,
    IllegalMove,
    Step,
    add_min_think_argument,
    card_for_move,
    default_opponent,
    moves,
    parse_card_text,
    sort_hand,
    suit_order,
)
from .wording import (
    explain_result,
    match_headline,
    narrate,
    points_breakdown,
    result_headline,
)

HELP = """\
How to play ({game}, {deck} cards: {ranks}; A=11 10=10 K=4 Q=3 J=2{nine_points})
  The first to {going_out} points in a hand (cards won plus marriages) wins it.
  While the stock lasts you may play any card; once it is used up{or_closed}
  you must follow suit{beat}, or else play a trump if you can.
  Marriage: lead the {marriage_cards} of a suit while holding both ({marriage}, or
  {trump_marriage} in trumps){marriage_when}. Cards marked * can do it now.
  Exchange: when about to lead{exchange_when}, swap the {low} of trumps
  for the trump card under the stock.
{close}  A hand scores 1 game point, 2 if the loser has under {one_point}, 3 if the loser
  won no trick.{last_trick} The first to {target} game points wins the match.
What to type
  a card: KH, 10h, th, K\u2665      a number from the list
  exchange (x)   close (c)   hint   help (?)   quit (q)
  Playing a marked king or queen declares its marriage. A king or queen whose
  marriage you could still declare, played without it, asks first: type it again.
  hint: the cards the computer likely holds, read from its moves so far (your
  view only; --hints shows it before each of your moves)."""

#: What a failed close gives the opponent, per ``failed_close_penalty``.
_FAILED_CLOSE_WORDS = {
    "2": "2 game points",
    "3": "3 game points",
    "2-or-3": "3 game points if it had won no trick\n  when you closed, else 2",
}


def game_name(rules: RuleConfig) -> str:
    """``Sixty-Six``, or ``Schnapsen`` for the 20-card presets."""
    return "Schnapsen" if rules.deck == 20 else "Sixty-Six"


def help_text(rules: RuleConfig) -> str:
    """The help, with the figures and switches of ``rules`` (docs/rules.md §7, §12, §13,
    §16, §20): the deck, the exchange card, closing, marriages, the last trick."""
    short = rules.deck == 20
    close = (
        "  Close: when about to lead, stop the drawing; if you then do not reach\n"
        f"  {rules.going_out}, the computer scores "
        f"{_FAILED_CLOSE_WORDS[rules.failed_close_penalty]}.\n"
        if rules.closing else ""
    )
    return HELP.format(
        game=game_name(rules),
        deck=rules.deck,
        ranks="J Q K 10 A" if short else "9 J Q K 10 A",
        nine_points="" if short else " 9=0",
        going_out=rules.going_out,
        or_closed=" or closed" if rules.closing else "",
        beat=" (with a higher card\n  if you have one)" if rules.must_beat_in_suit else "",
        marriage_cards="king" if rules.marriage_lead == "king" else "king or queen",
        marriage_when=(
            "; you must have won a trick" if rules.marriage_needs_trick
            else ";\n  it counts when you next win a trick" if rules.marriage_points_pending
            else ";\n  it counts once you have won a trick"
        ),
        exchange_when=", having won a trick" if rules.exchange_needs_trick else "",
        low=RANK_NAMES[rules.exchange_rank],
        close=close,
        last_trick=(" A hand played out goes to\n  the last trick's winner, for 1 game point."
                    if rules.last_trick_wins else ""),
        target=rules.match_target,
        marriage=MARRIAGE_POINTS,
        trump_marriage=TRUMP_MARRIAGE_POINTS,
        one_point=ONE_POINT_TOTAL,
    )


_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_YELLOW = "\x1b[33m"
_RESET = "\x1b[0m"


@dataclass(eq=False)
class TerminalGame:
    """The text front end of a :class:`GameSession`, over two streams."""

    session: GameSession
    stdin: TextIO
    stdout: TextIO
    ascii: bool = False
    color: bool = False
    hints: bool = False

    # -- output helpers -----------------------------------------------------

    def write(self, text: str = "") -> None:
        self.stdout.write(text + "\n")

    def _style(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text

    def name(self, c: int) -> str:
        """A card as shown: ``K♥`` (``KH`` in ascii mode), red suits in color."""
        text = card_code(c) if self.ascii else card_label(c)
        if self.color and c // NUM_RANKS in (1, 2):
            return self._style(text, _RED)
        return text

    def suit(self, s: int) -> str:
        return SUIT_NAMES[s] if self.ascii else f"{SUIT_NAMES[s]} {SUIT_SYMBOLS[s]}"

    def read(self, prompt: str) -> str | None:
        """A line of input without its newline, or None at end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.write()
            return None
        if not (hasattr(self.stdin, "isatty") and self.stdin.isatty()):
            self.write(line.rstrip("\n"))  # a transcript reads like a session
        return line.strip()

    # -- the game loop --------------------------------------------------------

    def run(self) -> int:
        s = self.session
        self.write(
            self._style(game_name(s.rules), _BOLD)
            + f" against {s.opponent_name} (rules: {s.rules.name}; "
            f"first to {s.rules.match_target} game points). Type help for help."
        )
        self.show_hand_start(self._paced(s.start()))
        while True:
            if s.is_hand_over():
                self.show_hand_over()
                if s.is_over():
                    return 0
                line = self.read("Press Enter for the next hand (or type quit): ")
                if line is None or line.lower() in ("q", "quit", "exit"):
                    return self.goodbye()
                self.show_hand_start(self._paced(s.next_hand()))
                continue
            self.show_table()
            steps = self.ask_move()
            if steps is None:
                return self.goodbye()
            self.show_steps(self._paced(steps))

    def ask_move(self) -> list[Step] | None:
        """The steps of the person's move, asked for until it is legal; None to quit.

        A move that gives up a marriage (:func:`marriage_given_up`) is played when it is
        asked for a second time in a row: the first time it is explained, as a refused move
        is, and nothing is played."""
        s = self.session
        warned = None
        while True:
            line = self.read("Your move> ")
            if line is None:
                return None
            word = line.lower()
            if word in ("q", "quit", "exit"):
                return None
            if word in ("h", "help", "?"):
                self.write(help_text(s.rules))
                continue
            if word == "hint":
                self.show_hint()
                continue
            if word == "":
                continue
            try:
                action = self.parse(line, s.view())
                warning = None if action == warned else self.marriage_warning(s.view(), action)
                warned = action if warning else None
                if warning:
                    self.write(self._style(warning, _YELLOW) + " Type it again to play it anyway.")
                    continue
                return s.act(action)
            except IllegalMove as e:
                warned = None
                self.write(self._style(str(e), _YELLOW) + " Try again (help shows the rules).")

    def _paced(self, steps: list) -> list:
        """``steps``, once the computer's decisions among them have taken their least time
        (``GameSession.pause``: no answer is instant because it was forced)."""
        self.session.pause()
        return steps

    def goodbye(self) -> int:
        you, comp = self.session.score
        self.write(f"Goodbye. The match stood at you {you} - {comp} the computer.")
        return 0

    # -- input ------------------------------------------------------------------

    def numbered(self, view: PlayerView) -> list[int]:
        """Actions by the numbers shown: each card that may be played now, in the hand's
        order (a card that cannot, once the stock is closed or used up, gets no number),
        then exchange, close."""
        return [m.action for m in moves(view)]

    def parse(self, text: str, view: PlayerView) -> int:
        """The action meant by a line of input; IllegalMove (with the reason) if none."""
        t = text.strip()
        low = t.lower()
        legal = [m.name for m in moves(view)]
        if low.isdigit():
            nums = self.numbered(view)
            i = int(low)
            if not 1 <= i <= len(nums):
                raise IllegalMove(f"Choose a number from 1 to {len(nums)}.", legal)
            action = nums[i - 1]
        elif low in ("exchange", "x"):
            action = EXCHANGE
        elif low in ("close", "c"):
            action = CLOSE
        else:
            try:
                action = self.parse_card_words(t, view)
            except ValueError:
                raise IllegalMove(
                    f"I do not understand {t!r}: type a card such as KH or 10H, "
                    "a number from the list, exchange, close, help or quit.",
                    legal,
                ) from None
        if not view.legal_mask >> action & 1:
            raise IllegalMove(explain_illegal(view, action, self.name), legal)
        return action

    @staticmethod
    def parse_card_words(text: str, view: PlayerView) -> int:
        """``KH`` (declaring its marriage when possible), ``marry KH``, ``play KH``."""
        low = text.strip().lower()
        marriage = parse_marriage(low, parse_card_text)
        if marriage is not None:
            return marriage
        if low.startswith("play "):
            return parse_card_text(low[5:])  # a king or queen without declaring
        return card_for_move(view, parse_card_text(low))

    def marriage_warning(self, view: PlayerView, action: int) -> str | None:
        """What playing ``action`` gives up, when it plays a king or queen without declaring
        a marriage that could still be declared (:func:`marriage_given_up`); else None."""
        suit = marriage_given_up(view, action)
        if suit is None:
            return None
        c = action
        partner = card(suit, QUEEN if c % NUM_RANKS == KING else KING)
        marriage = (
            f"your marriage in {SUIT_NAMES[suit]} "
            f"({marriage_points(suit, view.trump_suit)})"
        )
        if view.legal_mask >> marriage_action(c) & 1:
            return (
                f"Playing {self.name(c)} without declaring gives up {marriage}: "
                f"typed alone, {self.name(c)} declares it."
            )
        verb = "Leading" if view.lead_card is None else "Playing"
        when = "" if view.tricks_won[view.seat] else " once you have won a trick"
        return (
            f"{verb} {self.name(c)} gives up {marriage}: you hold {self.name(partner)} too, "
            f"and leading either declares it{when}."
        )

    # -- pictures ---------------------------------------------------------------

    def show_steps(self, steps: list[Step]) -> None:
        for step in steps:
            for line in narrate(step, self.name):
                # The hand's end is told in full by show_hand_over.
                if step.after.result is not None and line == explain_result(step.after.result):
                    continue
                self.write("  " + line)

    def show_hand_start(self, steps: list[Step]) -> None:
        """A new hand's heading, then what the computer did before your first turn."""
        s = self.session
        dealer = "You deal" if s.view().dealer == HUMAN else "The computer deals"
        self.write()
        self.write(self._style(f"=== Hand {s.hand_number}: {dealer}. ===", _BOLD))
        self.show_steps(steps)

    def show_table(self) -> None:
        s = self.session
        view = s.view()
        you, comp = s.score
        dealt = "you dealt" if view.dealer == HUMAN else "the computer dealt"
        self.write()
        self.write(
            self._style(
                f"--- Hand {s.hand_number} | match: you {you} - {comp} the computer "
                f"(first to {s.rules.match_target}) | {dealt} ---",
                _BOLD,
            )
        )
        self.write(f"Trumps: {self.suit(view.trump_suit)}")
        self.write(self.stock_line(view))
        self.write(
            f"Tricks won: you {view.tricks_won[HUMAN]}, the computer {view.tricks_won[COMPUTER]}"
            f"   Your points: {self.points_text(view)}"
        )
        self.write(self.opponent_line(view))
        if view.lead_card is not None:
            self.write(f"On the table: the computer led {self.name(view.lead_card)}. Your answer.")
        else:
            self.write("You lead.")
        self.show_hand(view)
        if self.hints:
            self.show_hint()

    def opponent_line(self, view: PlayerView) -> str:
        """``The computer holds 5 cards including K♥ Q♥.`` while some of them are unknown;
        ``The computer holds: A♠ K♠ 10♥.`` once all of them are known."""
        known = sort_hand(view.opponent_known, view.trump_suit)
        cards = " ".join(self.name(c) for c in known)
        n = view.opponent_hand_size
        if known and len(known) == n:
            return f"The computer holds: {cards}."
        line = f"The computer holds {n} card{'s' if n != 1 else ''}"
        return line + (f" including {cards}." if known else ".")

    def show_hint(self) -> None:
        """The cards the computer likely holds (``GameSession.hint``): those more likely
        than not, at most four, or the likeliest one."""
        hint = self.session.hint()
        if not hint:
            self.write("Hint: every card's place is known now.")
            return
        likely = [(c, p) for c, p in hint if p > 0.5][:4] or hint[:1]
        said = ", ".join(f"{self.name(c)} {100 * p:.0f}%" for c, p in likely)
        lead = "likely holds" if likely[0][1] > 0.5 else "holds no unseen card more likely " \
            "than not; the likeliest:"
        self.write(self._style(f"Hint (read from the computer's moves): it {lead} {said}", _DIM))

    def show_hand(self, view: PlayerView) -> None:
        """Your cards by suit, numbered, with the marriages, the strict-play limit and the
        special moves (exchange, close) you may make now."""
        self.write("Your hand:")
        nums = self.numbered(view)
        number = {m.card: (i, m.action) for i, m in enumerate(moves(view), start=1)
                  if m.card is not None}
        marriage_suits = set()
        hand = sort_hand(view.hand, view.trump_suit)
        for suit in suit_order(view.trump_suit):
            cs = [c for c in hand if c // NUM_RANKS == suit]
            if not cs:
                continue
            items = []
            for c in cs:
                if c not in number:  # not playable now: no number to type
                    items.append(f"    {self._style(self.name(c), _DIM)}")
                    continue
                n, action = number[c]
                mark = ""
                if action >= FIRST_MARRIAGE:
                    mark = self._style("*", _YELLOW)
                    marriage_suits.add(suit)
                items.append(f"{n:>2}) {self.name(c)}{mark}")
            tag = "  (trumps)" if suit == view.trump_suit else ""
            sym = SUIT_NAMES[suit][0].upper() if self.ascii else SUIT_SYMBOLS[suit]
            self.write(f"  {sym}  " + "  ".join(items) + tag)
        for suit in sorted(marriage_suits):
            pts = marriage_points(suit, view.trump_suit)
            self.write(
                f"  * marriage: leading the king or queen of {SUIT_NAMES[suit]} declares {pts}"
            )
        legal_cards = [m.card for m in moves(view) if m.card is not None]
        if len(legal_cards) < len(hand):
            self.write(
                "  You may play only: "
                + " ".join(self.name(c) for c in sort_hand(legal_cards, view.trump_suit))
                + f"  ({strict_reason(view)})"
            )
        specials = []
        for i, a in enumerate(nums[len(number):], start=len(number) + 1):
            if a == EXCHANGE:
                low = card(view.trump_suit, view.rules.exchange_rank)
                specials.append(
                    f"{i}) exchange your {self.name(low)} for the {self.name(view.trump_card)}"
                )
            else:
                specials.append(f"{i}) close the stock")
        if specials:
            self.write("Also possible: " + "   ".join(specials))

    def points_text(self, view: PlayerView) -> str:
        cp, mp = view.card_points[HUMAN], view.marriage_points[HUMAN]
        if mp:
            return f"{view.points(HUMAN)} ({cp} in cards + {mp} in marriages)"
        return str(cp)

    def stock_line(self, view: PlayerView) -> str:
        if view.closed_by is not None:
            by = "you" if view.closed_by == HUMAN else "the computer"
            return (
                f"Stock: closed by {by} ({view.stock_size} cards; the trump card "
                f"was {self.name(view.trump_card)}). Follow suit, or trump if you cannot."
            )
        if view.stock_left == 0:
            return "Stock: used up. Follow suit, or trump if you cannot."
        return (
            f"Stock: {view.stock_size} cards; under it, face up: {self.name(view.trump_card)}"
        )

    def show_hand_over(self) -> None:
        s = self.session
        view = s.view()
        res = view.result
        you_hand, comp_hand = s.revealed_hands()
        self.write()
        self.write(self._style(f"=== Hand {s.hand_number} is over ===", _BOLD))
        self.write(result_headline(res))
        self.write(explain_result(res))
        self.write(f"  You:          {points_breakdown(res, HUMAN)}")
        self.write(f"  The computer: {points_breakdown(res, COMPUTER)}")
        if you_hand or comp_hand:
            self.write("Cards left in the hands:")
            self.write(f"  You:          {self.cards_text(you_hand, view.trump_suit)}")
            self.write(f"  The computer: {self.cards_text(comp_hand, view.trump_suit)}")
        you, comp = s.score
        if s.is_over():
            self.write(self._style(match_headline(s.winner, (you, comp)), _BOLD))
        else:
            self.write(
                f"Match: you {you} - {comp} the computer (first to {s.rules.match_target})."
            )

    def cards_text(self, mask: int, trump_suit: int) -> str:
        cs = sort_hand(mask, trump_suit)
        return " ".join(self.name(c) for c in cs) if cs else "-"


def _breaks_marriage(view: PlayerView, c: int) -> bool:
    """Whether playing card ``c`` (no declaration) parts a king and queen of the person's
    hand whose marriage could be declared now or on a later lead: the stock open after this
    trick (or ``marriage_after_close``), so a trick won before then lets either declare it."""
    if c >= NUM_CARDS or c % NUM_RANKS not in (QUEEN, KING):
        return False
    partner = card(c // NUM_RANKS, QUEEN if c % NUM_RANKS == KING else KING)
    if not view.hand >> partner & 1:
        return False
    if view.legal_mask >> marriage_action(c) & 1:
        return True  # it may be declared now
    # Each trick draws two cards: the stock is open after this one while 3 or more lie face down.
    later = view.closed_by is None and view.stock_left > 2
    return later or view.rules.marriage_after_close


def marriage_given_up(view: PlayerView, action: int) -> int | None:
    """The suit of the marriage that ``action`` gives up, else None.

    That is a king or queen played without declaring (``play KS``, or leading one before
    winning a trick, or following with one) while its partner is in the hand and the
    marriage could still be declared, now or on a later lead (docs/rules.md §8), when
    another legal move keeps every such pair (declaring, or a card that parts none): a move
    the rules force gives nothing up by choice."""
    if action >= FIRST_MARRIAGE or not _breaks_marriage(view, action):
        return None
    legal = [a for a in range(EXCHANGE) if view.legal_mask >> a & 1]  # cards, marriages
    if any(a >= FIRST_MARRIAGE or not _breaks_marriage(view, a) for a in legal):
        return action // NUM_RANKS
    return None


# -- the command ----------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--opponent",
        metavar="NAME_OR_POLICY_FILE",
        default=None,
        help=f"the computer: an agent ({', '.join(agent_names())}) or an exported "
        f"policy file (default: {default_opponent()})",
    )
    parser.add_argument(
        "--rules", default="altmisalti", choices=sorted(PRESETS), help="rule preset"
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="fix the deals and the computer's choices"
    )
    parser.add_argument(
        "--deck",
        default=None,
        metavar="CODES",
        help="deal the first hand from this deck (the rules' card codes: 24, or 20 under "
        "schnapsen and schnapsen-vu; top card first; you lead)",
    )
    parser.add_argument(
        "--ascii", action="store_true", help="card codes (TH) instead of suit symbols (10\u2665)"
    )
    parser.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colored output"
    )
    parser.add_argument(
        "--hints", action="store_true",
        help="before each of your moves, show the cards the computer likely holds, read "
        "from its moves so far (from your view only; type hint for it once)",
    )
    add_min_think_argument(parser)


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    try:
        session = GameSession(
            opponent=args.opponent,
            rules=args.rules,
            seed=args.seed,
            deck=args.deck,
            min_think_seconds=getattr(args, "min_think", MIN_THINK_SECONDS),
        )
    except Exception as e:  # noqa: BLE001 - an unknown agent, a broken policy file, ...
        print(f"sixtysix play: {e}", file=sys.stderr)
        return 2
    if args.color == "auto":
        color = hasattr(stdout, "isatty") and stdout.isatty() and not os.environ.get("NO_COLOR")
    else:
        color = args.color == "always"
    ascii_only = args.ascii or not _can_encode(stdout, "\u2660\u2665\u2666\u2663")
    game = TerminalGame(session, stdin, stdout, ascii=ascii_only, color=color,
                        hints=getattr(args, "hints", False))
    try:
        return game.run()
    except KeyboardInterrupt:
        stdout.write("\n")
        return game.goodbye()


def _can_encode(stream: TextIO, text: str) -> bool:
    enc = getattr(stream, "encoding", None)
    if not enc:
        return True  # a StringIO or similar holds any text
    try:
        text.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True
