"""What the player has seen, and deals consistent with it.

An :class:`Observation` is the information set of a position: every card that
has been face up, and the places (hidden slots) where the cards not yet seen
can be. It is built from a :class:`~tutor.state.State` by :func:`observe` and
keeps no hidden card at all, so anything computed from it (a hint, a tutor
warning) is honest by construction.

What the player has seen in a position:

- the foundations, the base card and the row order;
- the top card of every reserve pile (every reserve card with an open
  reserve); the cards below the top are face down and have never been seen,
  since nothing is put back on a reserve pile;
- the waste, ``talon[:pos]``: every card turned, all three of a turn of three;
- the stock, ``talon[pos:]``: in the first pass its cards have not been turned
  yet; from the second pass on every card of it was turned in the first pass,
  and a memory-perfect player knows their order (redeals do not shuffle).

:meth:`Observation.sample` shuffles the unseen cards into the hidden slots and
returns a full position consistent with the observation.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import permutations
from math import factorial

from .cards import NAMES
from .errors import IllegalMoveError, TutorError
from .notation import Move
from .rules import Rules
from .state import State, foundation_row

Slot = tuple[str, int, int]  # ("r", pile, depth from the bottom) or ("s", index into the stock, 0)


@dataclass(frozen=True, slots=True)
class Observation:
    """A position as the player sees it; ``None`` marks a card not seen yet.

    ``reserves``: piles bottom to top, ``None`` for a face-down card.
    ``waste``: the turned cards (``talon[:pos]``), top last.
    ``stock``: the cards still to turn, next first; ``None`` for one not seen
    yet (the whole stock in the first pass, none of it later).
    """

    rules: Rules
    base: int
    rows: tuple[int, ...]
    found: tuple[int, int, int, int]
    reserves: tuple[tuple[int | None, ...], ...]
    waste: tuple[int, ...]
    stock: tuple[int | None, ...]
    pass_no: int
    progress: bool
    cards: int

    # ---- facts the player can read off the table ------------------------
    @property
    def pos(self) -> int:
        return len(self.waste)

    @property
    def talon_size(self) -> int:
        return len(self.waste) + len(self.stock)

    @property
    def start_rank(self) -> int:
        return self.base % 13 + 1

    @property
    def waste_top(self) -> int | None:
        return self.waste[-1] if self.waste else None

    @property
    def won(self) -> bool:
        return self.cards == 52

    def tops(self) -> tuple[int | None, ...]:
        """The face-up top card of each reserve pile (None for an empty pile)."""
        return tuple(p[-1] if p else None for p in self.reserves)

    def is_placed(self, card: int) -> bool:
        return bool(self.found[card // 13] >> (card % 13) & 1)

    def seen_cards(self) -> frozenset[int]:
        """Every card the player knows the place of (including the foundations)."""
        seen = {s * 13 + r for s in range(4) for r in range(13) if self.found[s] >> r & 1}
        seen.update(c for p in self.reserves for c in p if c is not None)
        seen.update(self.waste)
        seen.update(c for c in self.stock if c is not None)
        return frozenset(seen)

    def unseen_cards(self) -> tuple[int, ...]:
        """The cards not seen yet, in card order: they fill the hidden slots in some order."""
        seen = self.seen_cards()
        return tuple(c for c in range(52) if c not in seen)

    def hidden_slots(self) -> tuple[Slot, ...]:
        """The places of the unseen cards, in a fixed order: reserve slots, then stock slots."""
        slots: list[Slot] = []
        for i, pile in enumerate(self.reserves):
            slots.extend(("r", i, d) for d, c in enumerate(pile) if c is None)
        slots.extend(("s", j, 0) for j, c in enumerate(self.stock) if c is None)
        return tuple(slots)

    @property
    def complete(self) -> bool:
        """Nothing is hidden: the observation is the position itself."""
        return not any(c is None for p in self.reserves for c in p) and None not in self.stock

    def consistent_deals(self) -> int:
        """How many positions are consistent with the observation (the unseen cards' orders)."""
        return factorial(len(self.unseen_cards()))

    # ---- positions consistent with it ---------------------------------
    def fill(self, cards: Iterable[int]) -> State:
        """The position with the hidden slots (in :meth:`hidden_slots` order) holding ``cards``."""
        given = list(cards)
        slots = self.hidden_slots()
        if len(given) != len(slots):
            raise TutorError(f"{len(given)} cards given for {len(slots)} hidden slots")
        reserves = [list(p) for p in self.reserves]
        stock = list(self.stock)
        for slot, card in zip(slots, given):
            if slot[0] == "r":
                reserves[slot[1]][slot[2]] = card
            else:
                stock[slot[1]] = card
        return State(self.rules, tuple(_full(p) for p in reserves), self.base, self.rows, self.found,
                     self.waste + _full(stock), len(self.waste), self.pass_no, self.progress, self.cards)

    def sample(self, rng: random.Random) -> State:
        """A full position consistent with the observation: the unseen cards shuffled into the hidden slots."""
        cards = list(self.unseen_cards())
        rng.shuffle(cards)
        return self.fill(cards)

    def samples(self, count: int, rng: random.Random | None = None) -> list[State]:
        """``count`` sampled positions from the observation's own seed (or ``rng``).

        When there are no more consistent positions than ``count``, every one
        of them is returned once instead, so the answer is exact.
        """
        unseen = self.unseen_cards()
        if factorial(len(unseen)) <= count:
            return [self.fill(p) for p in permutations(unseen)]
        rng = rng or random.Random(self.seed())
        return [self.sample(rng) for _ in range(count)]

    def every_state(self) -> list[State]:
        """Every position consistent with the observation, once each (for an exact answer when they are few)."""
        return [self.fill(p) for p in permutations(self.unseen_cards())]

    def _view(self) -> State:
        """One fixed consistent position (unseen cards in card order), for the legal moves only.

        The legal moves and the card each play would place depend only on what
        is face up, so every consistent position gives the same answers; the
        hidden cards of this position are an arbitrary choice and mean nothing.
        """
        return self.fill(self.unseen_cards())

    def legal_moves(self) -> list[Move]:
        return self._view().legal_moves()

    def card_of(self, move: Move) -> int | None:
        return self._view().card_of(move)

    def destination(self, card: int) -> int:
        """The foundation row (0-based) ``card`` may go to now, or -1 (the osmosis filter, as for a State)."""
        return foundation_row(self.rows, self.found, self.base, card)

    # ---- determinism ----------------------------------------------------
    def canonical_text(self) -> str:
        """A stable text of everything in the observation (for seeding and equality checks)."""
        def cards(seq: Iterable[int | None]) -> str:
            return " ".join("??" if c is None else NAMES[c] for c in seq)

        rules = self.rules
        parts = [
            f"turn={rules.turn} passes={rules.passes} open={int(rules.open_reserve)} piles={rules.reserve_piles}",
            f"base={NAMES[self.base]} rows={','.join(str(r) for r in self.rows)}",
            "found=" + ",".join(str(f) for f in self.found),
            "reserves=" + "|".join(cards(p) for p in self.reserves),
            "waste=" + cards(self.waste),
            "stock=" + cards(self.stock),
            f"pass={self.pass_no} progress={int(self.progress)} cards={self.cards}",
        ]
        return "\n".join(parts)

    def seed(self) -> int:
        """A seed from the observation alone: the same on every run and machine."""
        digest = hashlib.sha256(self.canonical_text().encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big")


def observe(state: State) -> Observation:
    """What the player of ``state`` has seen; the hidden cards are left out."""
    rules = state.rules
    reserves: tuple[tuple[int | None, ...], ...]
    if rules.open_reserve:
        reserves = tuple(tuple(p) for p in state.reserves)
    else:
        reserves = tuple((*(None for _ in p[:-1]), p[-1]) if p else () for p in state.reserves)
    stock: tuple[int | None, ...] = state.talon[state.pos:]
    if state.pass_no == 1:
        stock = (None,) * len(stock)
    return Observation(rules, state.base, state.rows, state.found, reserves, state.talon[: state.pos],
                       tuple(stock), state.pass_no, state.progress, state.cards)


# ---- the one rule for what the player has seen -------------------------------
# Every text path (hint, review comment and tags, lesson feedback, play
# messages, tutor warnings) asks these, never the State's hidden cards.

def seen_cards(state: State) -> frozenset[int]:
    """Every card the player of ``state`` has seen (a memory-perfect player).

    Placed cards, reserve tops (the whole reserve when it is open), and the
    talon: in pass 1 the cards turned so far, from pass 2 on all of it.
    """
    return observe(state).seen_cards()


def has_seen_everything(state: State) -> bool:
    """Whether nothing of ``state`` is hidden from its player (full-knowledge advice is then fair)."""
    return observe(state).complete


def move_for_card(state: State, card: int) -> Move:
    """The move that plays a typed ``card``; the error never tells where an unseen card lies."""
    try:
        return state.move_for_card(card)
    except IllegalMoveError:
        if card in seen_cards(state):
            raise
        raise IllegalMoveError(f"{NAMES[card]} cannot be played now: it is not on top of a reserve pile "
                               "or the waste") from None


class SharedWorlds:
    """Sampled hidden cards shared by the successive positions of one game (for the review).

    A *world* gives every hidden slot of the first position a card, drawn
    from that position's own seed exactly as :meth:`Observation.samples`
    draws (so at the first position the worlds are the hint's samples). When
    a move shows a card X that a world had put elsewhere, only that clash is
    repaired: X goes where it was seen and the card the world had there moves
    to the slot where the world had X. The swap maps a uniform draw among the
    deals consistent with the old observation to a uniform draw among those
    consistent with the new one, so the worlds stay fair samples, and a world
    that the new card does not contradict is left as it was: the position
    after a move that shows nothing is scored on exactly the same deals.

    A world is kept as a relabelling of the true game's hidden cards (true
    card -> the world's card). The relabelling is built from the slot draw
    and the true position, so the world itself (which card lies in which
    slot) depends only on what the player has seen: two games that differ
    only in unseen cards get the same worlds.
    """

    def __init__(self, first: State, count: int) -> None:
        obs = observe(first)
        self.count = count
        slots = obs.hidden_slots()
        true_cards = [_slot_card(first, s) for s in slots]
        self._maps: list[list[int]] = []
        self._inverse: list[list[int]] = []
        rng = random.Random(obs.seed())
        for _ in range(count):
            cards = list(obs.unseen_cards())
            rng.shuffle(cards)
            pi = list(range(52))
            for true, card in zip(true_cards, cards):
                pi[true] = card
            inv = [0] * 52
            for c, d in enumerate(pi):
                inv[d] = c
            self._maps.append(pi)
            self._inverse.append(inv)
        self._seen = obs.seen_cards()

    def advance(self, state: State) -> set[int]:
        """Move on to ``state`` (the next position of the game): repair what its new cards contradict.

        Returns the indices of the worlds that changed.
        """
        seen = observe(state).seen_cards()
        new = sorted(seen - self._seen)
        self._seen = self._seen | seen
        changed: set[int] = set()
        for k, (pi, inv) in enumerate(zip(self._maps, self._inverse)):
            touched = False
            for x in new:
                y = pi[x]
                if y == x:
                    continue
                z = inv[x]  # the true card the world put X in place of
                pi[z], inv[y] = y, z
                pi[x], inv[x] = x, x
                touched = True
            if touched:
                changed.add(k)
        return changed

    def states(self, state: State, count: int | None = None) -> list[State]:
        """The first ``count`` worlds' versions of ``state`` (all of them by default)."""
        maps = self._maps[: self.count if count is None else count]
        return [_relabel(state, pi) for pi in maps]


def _full(cards: Iterable[int | None]) -> tuple[int, ...]:
    """Cards of a filled position: every hidden slot holds a card by now."""
    out: list[int] = []
    for c in cards:
        if c is None:
            raise TutorError("a hidden slot of the observation was left without a card")
        out.append(c)
    return tuple(out)


def _slot_card(state: State, slot: Slot) -> int:
    if slot[0] == "r":
        return state.reserves[slot[1]][slot[2]]
    return state.talon[state.pos + slot[1]]


def _relabel(state: State, pi: list[int]) -> State:
    reserves = tuple(tuple(pi[c] for c in pile) for pile in state.reserves)
    talon = tuple(pi[c] for c in state.talon)
    return state._replace(reserves=reserves, talon=talon)
