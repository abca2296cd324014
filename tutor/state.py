"""The position: what is where, the legal moves, and applying one.

A :class:`State` is immutable; :meth:`State.apply` returns a new one. Cards
are ints (see :mod:`tutor.cards`). The talon is kept as one sequence in
turning order, ``talon[:pos]`` being the waste (its top is ``talon[pos-1]``)
and ``talon[pos:]`` the stock: a redeal turns the waste over unshuffled, which
keeps that order and sets ``pos`` back to 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .cards import NAMES, RANKS, SUIT_NAMES
from .deals import Deal
from .errors import IllegalMoveError
from .notation import RESERVE_MOVES, TURN, WASTE, Move
from .rules import Rules

FULL_ROW = (1 << 13) - 1



def foundation_row(rows: tuple[int, ...], found: tuple[int, ...], base: int,
                   card: int) -> int:
    """The foundation row (0-based) ``card`` may go to, or -1: the osmosis filter, the one copy of it.

    ``rows``: the suits of the open rows in order; ``found``: each suit's
    placed ranks as a bit mask; ``base``: the starting card. Shared by
    :meth:`State.destination`, the player's :class:`~tutor.knowledge.Observation`
    and the information-set search.
    """
    suit = card // 13
    if suit in rows:
        k = rows.index(suit)
        if k == 0:
            return 0
        return k if found[rows[k - 1]] >> (card % 13) & 1 else -1
    if card % 13 == base % 13 and len(rows) < 4:
        return len(rows)
    return -1

class State(NamedTuple):
    """One position of a game.

    ``reserves``: the piles now, bottom to top. ``base``: the base card.
    ``rows``: the suit of each started foundation row, top row first.
    ``found``: per suit (S H D C), a bit mask of the ranks on its row
    (bit ``rank - 1``). ``talon``/``pos``: see the module docstring.
    ``pass_no``: the pass through the talon, from 1. ``progress``: a card
    was played since the last redeal (or the start); a redeal needs it.
    """

    rules: Rules
    reserves: tuple[tuple[int, ...], ...]
    base: int
    rows: tuple[int, ...]
    found: tuple[int, int, int, int]
    talon: tuple[int, ...]
    pos: int
    pass_no: int
    progress: bool
    cards: int

    # ---- construction -------------------------------------------------
    @classmethod
    def initial(cls, deal: Deal, rules: Rules) -> State:
        """The layout before the first move (the waste is empty)."""
        from .deals import check_rules

        check_rules(deal, rules)
        suit = deal.base // 13
        found = [0, 0, 0, 0]
        found[suit] = 1 << (deal.base % 13)
        return cls(rules, deal.reserves, deal.base, (suit,), (found[0], found[1], found[2], found[3]),
                   deal.talon, 0, 1, False, 1)

    # ---- derived facts ------------------------------------------------
    @property
    def start_rank(self) -> int:
        """The starting rank, 1..13 (the base card's rank)."""
        return self.base % 13 + 1

    @property
    def waste(self) -> tuple[int, ...]:
        return self.talon[: self.pos]

    @property
    def stock(self) -> tuple[int, ...]:
        return self.talon[self.pos:]

    @property
    def waste_top(self) -> int | None:
        return self.talon[self.pos - 1] if self.pos else None

    @property
    def won(self) -> bool:
        return self.cards == 52

    @property
    def score(self) -> int:
        """Cards on the foundations, 1 to 52."""
        return self.cards

    def row_cards(self, row: int) -> list[int]:
        """The cards on foundation row ``row`` (0-based), in rank order."""
        if row >= len(self.rows):
            return []
        suit = self.rows[row]
        mask = self.found[suit]
        return [suit * 13 + r for r in range(13) if mask >> r & 1]

    def is_placed(self, card: int) -> bool:
        return bool(self.found[card // 13] >> (card % 13) & 1)

    def face_up(self, pile: int, depth: int) -> bool:
        """Whether the card ``depth`` places below the top of reserve pile ``pile`` is face up."""
        return depth == 0 or self.rules.open_reserve

    def mask(self) -> int:
        """The placed cards as one 52-bit mask (bit = card index)."""
        f = self.found
        return f[0] | f[1] << 13 | f[2] << 26 | f[3] << 39

    def key(self) -> int:
        """A compact hashable key of the position within its deal.

        The reserve and the talon follow from the placed cards; with unlimited
        passes only 'first pass or later' of the pass number matters (for what
        the player has seen).
        """
        rows_code = len(self.rows)
        for i, s in enumerate(self.rows):
            rows_code |= s << (3 + 2 * i)
        passes = self.pass_no if self.rules.passes else min(self.pass_no, 2)
        # bits: 0-51 placed cards, 52-62 rows, 63-68 pos, 69 progress, 70+ pass
        return (self.mask() | rows_code << 52 | self.pos << 63 | int(self.progress) << 69
                | passes << 70)

    # ---- the rules ----------------------------------------------------
    def destination(self, card: int) -> int:
        """The foundation row (0-based) that ``card`` may go to now, or -1.

        A suit with a row goes there: row 1 takes any rank; a lower row only a
        rank already in the row above (the osmosis filter). A card of the
        starting rank in a suit with no row opens the next row.
        """
        return foundation_row(self.rows, self.found, self.base, card)

    def can_turn(self) -> bool:
        """Turning is possible: cards in the stock, or a redeal that is allowed."""
        if self.pos < len(self.talon):
            return True
        return self.can_redeal()

    def can_redeal(self) -> bool:
        return (self.pos == len(self.talon) and self.pos > 0 and self.progress
                and (self.rules.passes == 0 or self.pass_no < self.rules.passes))

    def legal_moves(self) -> list[Move]:
        """Legal moves in a fixed order: r1..r4, w, d."""
        moves = []
        dest = self.destination
        for i, pile in enumerate(self.reserves):
            if pile and dest(pile[-1]) >= 0:
                moves.append(RESERVE_MOVES[i])
        if self.pos and dest(self.talon[self.pos - 1]) >= 0:
            moves.append(WASTE)
        if self.can_turn():
            moves.append(TURN)
        return moves

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    @property
    def over(self) -> bool:
        """No legal move is left (won, or blocked)."""
        return not self.legal_moves()

    @property
    def blocked(self) -> bool:
        return not self.won and self.over

    def card_of(self, move: Move) -> int | None:
        """The card a play move would place (None for a turn)."""
        if move.kind == "r":
            pile = self.reserves[move.pile] if move.pile < len(self.reserves) else ()
            return pile[-1] if pile else None
        if move.kind == "w":
            return self.talon[self.pos - 1] if self.pos else None
        return None

    def move_for_card(self, card: int) -> Move:
        """The move that plays ``card``; :class:`IllegalMoveError` if it is not playable now."""
        for move in self.legal_moves():
            if move.is_play and self.card_of(move) == card:
                return move
        where = self._where(card)
        raise IllegalMoveError(f"{NAMES[card]} cannot be played now: it is {where}")

    def _where(self, card: int) -> str:
        if self.is_placed(card):
            return "already on a foundation"
        for i, pile in enumerate(self.reserves):
            if card in pile:
                if pile[-1] != card:
                    return f"under the top card of reserve pile {i + 1}"
                return f"on top of reserve pile {i + 1}, but {self.why_not(card)}"
        if self.pos and self.talon[self.pos - 1] == card:
            return f"on top of the waste, but {self.why_not(card)}"
        return "not on top of a reserve pile or the waste"

    def why_not(self, card: int) -> str:
        """Why a card has no destination now, in words."""
        suit, rank = card // 13, card % 13
        if suit in self.rows:
            k = self.rows.index(suit)
            above = self.rows[k - 1]
            return (f"row {k + 1} ({SUIT_NAMES[suit]}) takes {'an' if RANKS[rank] in 'A8' else 'a'} {RANKS[rank]} only once row {k} "
                    f"({SUIT_NAMES[above]}) holds one")
        if len(self.rows) == 4:  # pragma: no cover - every suit has a row then
            return "every row is taken"
        start = RANKS[self.base % 13]
        return (f"{SUIT_NAMES[suit]} have no row yet, and a new row is opened only by a "
                f"card of the starting rank {start}")

    def apply(self, move: Move) -> State:
        """The position after ``move``; :class:`IllegalMoveError` if it is not legal."""
        kind = move.kind
        if kind == "d":
            talon, pos = self.talon, self.pos
            if pos < len(talon):
                return State(self.rules, self.reserves, self.base, self.rows, self.found, talon,
                             min(pos + self.rules.turn, len(talon)), self.pass_no, self.progress, self.cards)
            if self.can_redeal():
                return State(self.rules, self.reserves, self.base, self.rows, self.found, talon,
                             0, self.pass_no + 1, False, self.cards)
            raise IllegalMoveError(self._why_no_turn())
        if kind == "r":
            if move.pile >= len(self.reserves):
                n = len(self.reserves)
                raise IllegalMoveError(f"{move} is not possible: reserve pile {move.pile + 1} does not exist; "
                                       + (f"this game has {n} reserve pile{'s' * (n > 1)} (r1{f'-r{n}' * (n > 1)})"
                                          if n else "this game has no reserve"))
            if not self.reserves[move.pile]:
                raise IllegalMoveError(f"{move} is not possible: reserve pile {move.pile + 1} is empty")
            pile = self.reserves[move.pile]
            card = pile[-1]
            row = self.destination(card)
            if row < 0:
                raise IllegalMoveError(f"{move} is not possible: {NAMES[card]} cannot be played, {self.why_not(card)}")
            reserves = self.reserves[: move.pile] + (pile[:-1],) + self.reserves[move.pile + 1:]
            return self._place(card, row, reserves, self.talon, self.pos)
        if kind == "w":
            if not self.pos and self.talon:
                raise IllegalMoveError("w is not possible: the waste is empty (turn the talon with d)")
            if not self.pos:  # every talon card played: no turn either
                left = " ".join(str(m) for m in self.legal_moves())
                raise IllegalMoveError("w is not possible: the waste is empty and the talon is used up; "
                                       + (f"the moves left: {left}" if left else "the game is over"))
            card = self.talon[self.pos - 1]
            row = self.destination(card)
            if row < 0:
                raise IllegalMoveError(f"w is not possible: {NAMES[card]} cannot be played, {self.why_not(card)}")
            pos = self.pos
            return self._place(card, row, self.reserves, self.talon[: pos - 1] + self.talon[pos:], pos - 1)
        raise IllegalMoveError(f"unknown move {move!r}")  # pragma: no cover

    def _place(self, card: int, row: int, reserves: tuple[tuple[int, ...], ...], talon: tuple[int, ...],
               pos: int) -> State:
        suit = card // 13
        rows = self.rows if row < len(self.rows) else self.rows + (suit,)
        found = list(self.found)
        found[suit] |= 1 << (card % 13)
        return State(self.rules, reserves, self.base, rows, (found[0], found[1], found[2], found[3]), talon, pos,
                     self.pass_no, True, self.cards + 1)

    def _why_no_turn(self) -> str:
        if not self.talon:
            return "d is not possible: the talon is used up"
        if self.rules.passes and self.pass_no >= self.rules.passes:
            # the passes first: with them used up no play would allow a redeal
            used = "the one pass" if self.rules.passes == 1 else f"all {self.rules.passes} passes"
            return f"d is not possible: {used} through the talon {'is' if self.rules.passes == 1 else 'are'} used"
        since = "since the last redeal" if self.pass_no > 1 else "since the start"
        return f"d is not possible: no card was played {since}, so the game is blocked"

    def play(self, moves: Iterable[Move | str]) -> State:
        """Apply moves in turn (Move objects or tokens)."""
        state = self
        for m in moves:
            state = state.apply(m if isinstance(m, Move) else Move.parse(m))
        return state

    def all_cards(self) -> list[int]:
        """Every card of the position, wherever it is (for invariants: always the 52)."""
        placed = [s * 13 + r for s in range(4) for r in range(13) if self.found[s] >> r & 1]
        return placed + [c for p in self.reserves for c in p] + list(self.talon)
