"""A game being played: the positions so far, with play, undo and annotations, and its record.

:class:`Game` is what ``osmosis play`` and the board play on; :meth:`Game.to_record` gives the
:class:`tutor.record.Record` that is saved after every move.
"""

from __future__ import annotations

from collections.abc import Iterable

from .deals import Deal, deal_for
from .errors import DealError, IllegalMoveError, RecordError
from .notation import Move
from .record import Record, result_of
from .record_notes import Annotation, check_annotation
from .rules import Rules, preset
from .state import State
from .talon import why_illegal


class Game:
    """A game being played: the states so far, with play and undo.

    ``states[i]`` is the position before move ``i``; ``state`` the current one.
    """

    def __init__(self, rules: Rules, deal: Deal, moves: Iterable[Move | str | int] = (),
                 annotations: Iterable[Annotation | None] | None = None) -> None:
        self.rules = rules
        self.deal = deal
        try:
            first = State.initial(deal, rules)
        except DealError as exc:
            raise RecordError(f"bad deal: {exc}") from None
        self.states: list[State] = [first]
        self.moves: list[Move] = []
        self.annotations: list[Annotation | None] = []
        for move in moves:
            self.push(move)
        for i, note in enumerate(annotations or []):
            self.annotate(i + 1, note)
        #: the record's fields the tutor does not read, kept for its saves (:attr:`Record.extra`)
        self.extra: dict[str, object] = {}
        self.deal_extra: dict[str, object] = {}  # the deal's own fields (:attr:`Record.deal_extra`)

    @classmethod
    def from_record(cls, record: Record) -> Game:
        game = cls(record.rules, record.deal, record.moves, record.annotations)
        game.extra = dict(record.extra)
        game.deal_extra = dict(record.deal_extra)
        return game

    @classmethod
    def new(cls, number: int, rules: Rules | str = "osmosis") -> Game:
        rules = preset(rules) if isinstance(rules, str) else rules
        return cls(rules, deal_for(number, rules))

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def ply(self) -> int:
        """Moves played so far."""
        return len(self.moves)

    def push(self, move: Move | str | int) -> State:
        """Play a move (a Move, a token like ``r2``, or a card int); return the new position.

        Raises :class:`IllegalMoveError` (and leaves the game unchanged) if it is not legal.
        """
        state = self.state
        played: Move
        if isinstance(move, Move):
            played = move
        elif isinstance(move, str):
            played = Move.parse(move)
        elif isinstance(move, int) and not isinstance(move, bool):
            if not 0 <= move < 52:
                raise IllegalMoveError(f"no card number {move}: expected 0 to 51")
            played = state.move_for_card(move)
        else:
            raise TypeError(f"expected a Move, a move token or a card number, not {move!r}")
        if played not in state.legal_moves():
            raise IllegalMoveError(why_illegal(state, played))
        new = state.apply(played)
        self.states.append(new)
        self.moves.append(played)
        self.annotations.append(None)
        return new

    def can_undo(self) -> bool:
        return bool(self.moves)

    def undo(self, count: int = 1) -> list[Move]:
        """Take back the last ``count`` moves; return them, last first."""
        if count < 1:
            return []
        if count > len(self.moves):
            raise IllegalMoveError(f"cannot undo {count} move{'s' if count != 1 else ''}: "
                                   f"only {len(self.moves)} played")
        taken = []
        for _ in range(count):
            self.states.pop()
            self.annotations.pop()
            taken.append(self.moves.pop())
        return taken

    def annotate(self, ply: int, note: Annotation | None) -> None:

        """Attach an annotation to move ``ply`` (1-based)."""
        if not 1 <= ply <= len(self.moves):
            raise RecordError(f"no move {ply} to annotate: the game has {len(self.moves)} moves")
        self.annotations[ply - 1] = check_annotation(note, f"annotation {ply}")

    def last_card(self) -> int | None:
        """The card the last move placed, or None (a turn, or no move yet)."""
        if not self.moves:
            return None
        return self.states[-2].card_of(self.moves[-1])

    def describe_last(self) -> str:
        """The last move in words: ``r2 played 7H``, ``d turned the talon``."""
        if not self.moves:
            return "no move yet"
        from .narrate.moves import move_past

        return move_past(self.states[-2], self.moves[-1])

    def to_record(self) -> Record:
        return Record(self.rules, self.deal, list(self.moves), list(self.annotations), result_of(self.state),
                      extra=dict(self.extra), deal_extra=dict(self.deal_extra))
