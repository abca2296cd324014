"""The rule set of Osmosis and its named presets.

One frozen :class:`Rules` value holds every option; a preset is just a named
combination. The command line takes a preset and then options one by one,
which override it (:meth:`Rules.with_options`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from .errors import RulesError
from .textsafe import brief

PILE_SIZE = 4
# Each redeal needs a card played since the last one and 51 cards can be
# played, so a game has at most 52 passes: a larger limit means nothing.
MAX_PASSES = 52


@dataclass(frozen=True, slots=True)
class Rules:
    """Options of the game.

    ``turn``: cards turned from the stock at a time (1 or 3).
    ``passes``: passes through the talon allowed, 0 for unlimited.
    ``open_reserve``: every reserve card is face up from the start (Peek).
    ``reserve_piles``: number of reserve piles of four cards (0 to 4).
    """

    turn: int = 3
    passes: int = 0
    open_reserve: bool = False
    reserve_piles: int = 4

    def __post_init__(self) -> None:
        if self.turn not in (1, 3):
            raise RulesError(f"turn {brief(self.turn)} is not allowed: expected 1 or 3")
        if isinstance(self.passes, bool) or not isinstance(self.passes, int) or not 0 <= self.passes <= MAX_PASSES:
            raise RulesError(f"passes {brief(self.passes)} is not allowed: expected 0 (unlimited) to {MAX_PASSES} "
                             f"(a game has at most {MAX_PASSES} passes)")
        if self.reserve_piles not in range(0, 5):
            raise RulesError(f"reserve piles {brief(self.reserve_piles)} is not allowed: expected 0 to 4")

    @property
    def reserve_size(self) -> int:
        return self.reserve_piles * PILE_SIZE

    @property
    def talon_size(self) -> int:
        return 51 - self.reserve_size

    @property
    def name(self) -> str | None:
        """The preset this rule set is, or None for a custom combination."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None

    def describe(self) -> str:
        parts = [f"turn {self.turn}", "unlimited passes" if self.passes == 0 else f"{self.passes} pass" + ("es" if self.passes != 1 else "")]
        if self.reserve_piles == 0:
            parts.append("no reserve")
        else:
            parts.append(f"{self.reserve_piles} reserve pile" + ("s" if self.reserve_piles != 1 else "")
                         + (" all face up" if self.open_reserve else " with the top card up"))
        label = self.name
        return (f"{label}: " if label else "custom: ") + ", ".join(parts)

    def warning(self) -> str | None:
        """A word of warning about a combination that is almost never winnable, or None."""
        if self.reserve_piles == 0 and self.passes == 1:
            # measured: osmosis stats --reserve-piles 0 --passes 1 --turn 3|1 --deals 1-1000 --policy solver
            # (every best score exact: 9.41 and 24.59 cards)
            cards = f"it places {9.4 if self.turn == 3 else 24.6} cards on average"
            return ("with no reserve and a single pass through the talon the game is almost never "
                    f"winnable: the solver found no win in deals 1-1000 ({cards})")
        return None

    def to_json(self) -> str | dict[str, int | bool]:
        """A preset name where one matches, else the object of options."""
        return self.name or asdict(self)

    @classmethod
    def from_json(cls, value: object) -> Rules:
        if isinstance(value, str):
            return preset(value)
        if isinstance(value, dict):
            unknown = set(value) - {"turn", "passes", "open_reserve", "reserve_piles", "preset"}
            if unknown:
                raise RulesError(f"unknown variant option(s) {brief(sorted(unknown))}: expected turn, passes, open_reserve, reserve_piles")
            base = preset(value["preset"]) if "preset" in value else cls()
            opts = {k: v for k, v in value.items() if k != "preset"}
            for k in ("turn", "passes", "reserve_piles"):
                if k in opts and (not isinstance(opts[k], int) or isinstance(opts[k], bool)):
                    raise RulesError(f"variant option {k}={brief(opts[k])} is not a whole number")
            if "open_reserve" in opts and not isinstance(opts["open_reserve"], bool):
                raise RulesError(f"variant option open_reserve={brief(opts['open_reserve'])} is not true or false")
            return replace(base, **opts)
        raise RulesError(f"variant {brief(value)} is neither a preset name nor an object of options")

    def with_options(self, turn: int | None = None, passes: int | None = None, open_reserve: bool | None = None,
                     reserve_piles: int | None = None) -> Rules:
        """This rule set with the given options (None keeps the current one)."""
        return replace(self,
                       turn=self.turn if turn is None else turn,
                       passes=self.passes if passes is None else passes,
                       open_reserve=self.open_reserve if open_reserve is None else open_reserve,
                       reserve_piles=self.reserve_piles if reserve_piles is None else reserve_piles)


PRESETS: dict[str, Rules] = {
    "osmosis": Rules(),
    "peek": Rules(open_reserve=True),
    "single": Rules(turn=1),
    "limited": Rules(passes=3),
    "bridesmaids": Rules(reserve_piles=0),
}

ALIASES: dict[str, str] = {
    "treasure-trove": "osmosis",
    "open-osmosis": "peek",
    "single-card": "single",
    "strict": "limited",
}

PRESET_NOTES: dict[str, str] = {
    "osmosis": "the standard game (PySolFC game 715): turn 3, unlimited passes, 4 reserve piles of 4 with the top card up",
    "peek": "Open Osmosis (PySolFC 716): the whole reserve is face up from the start",
    "single": "cards are turned from the talon one at a time",
    "limited": "only three passes through the talon",
    "bridesmaids": "no reserve (PySolFC 409): the base card comes first and the talon holds 51 cards; "
                   "with --passes 1 (a single deal) it is almost never winnable",
}


def preset(name: str) -> Rules:
    """The rule set of a preset name or alias; :class:`RulesError` if unknown."""
    if not isinstance(name, str):
        raise RulesError(f"variant {brief(name)} is not a name: expected one of {', '.join(list(PRESETS) + list(ALIASES))}")
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in PRESETS:
        names = ", ".join(list(PRESETS) + list(ALIASES))
        raise RulesError(f"unknown variant {brief(name)}: expected one of {names}")
    return PRESETS[key]
