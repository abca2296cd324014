"""What a hint's figures rest on, in words: its deals, the work budget that stopped them, the deals left undecided.

Split from :mod:`tutor.narrate.hint`, which builds the reasons these clauses end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .play import plural

if TYPE_CHECKING:
    from ..hints import ScoredPosition


class Figured(Protocol):
    """A scored move as a figure reads it: a hint's candidate or a review's."""

    @property
    def win(self) -> float: ...
    @property
    def exact(self) -> bool: ...
    @property
    def interval(self) -> tuple[float, float]: ...


def win_solved(c: Figured) -> bool:
    """The win of a sampled move known in every consistent deal: its interval is the one value, which a
    sampled (Wilson) interval never is; a settled hint (:mod:`tutor.advice`) sets it so. The cards stay sampled."""
    return not c.exact and c.interval[0] == c.interval[1]


BUDGET_SPENT = "the hint's search budget was spent on them"
"""What a hint stopped by its searches' work budget says of its deals (:data:`tutor.hints.HINT_NODES`)."""


def budget_sentence(scored: ScoredPosition, said: str) -> list[str]:
    """The sentence that sampling stopped for the work budget, where the reason (``said``) has not told it with
    its deals (the reasons that count the deals in their own words: none of them won, the search's overturn)."""
    if not scored.budget_spent or BUDGET_SPENT in " ".join(said.split()):
        return []
    return [f"(Sampling stopped at {plural(scored.samples, 'deal')}: {BUDGET_SPENT}.)"]


def basis(scored: ScoredPosition) -> str:
    """The deals a hint's figures rest on, as the clause that ends their sentence ("from 64 deals consistent with
    what you have seen, the same ones for every move")."""
    if scored.exact:
        n = scored.samples
        if n == 1:
            return "exact: only one deal fits what you have seen, and the position was solved"
        return f"exact: every one of the {n} deals consistent with what you have seen was solved"
    same = (", the same one for every move" if scored.samples == 1 else ", the same ones for every move") \
        if len(scored.candidates) > 1 else ""
    # fewer deals than a settled answer wants: the searches' work budget stopped the sampling (tutor.hints.HINT_NODES)
    spent = f"; {BUDGET_SPENT}, so no more were drawn" if scored.budget_spent else ""
    if all(win_solved(c) for c in scored.candidates):  # the win is known: only the cards were sampled
        return f"the cards on {plural(scored.samples, 'sampled deal')} consistent with what you have seen{same}{spent}"
    return f"from {plural(scored.samples, 'deal')} consistent with what you have seen{same}{spent}"


def undecided(scored: ScoredPosition) -> list[str]:
    """The deals the node limit left undecided (counted as not won), with the moves they belong to where the
    count differs between moves (it said 5 beside a best move with 3)."""
    counts = {c.move: c.undecided for c in scored.candidates if c.undecided}
    if not counts:
        return []
    deals = plural(scored.samples, "deal")
    if len(set(counts.values())) == 1 and len(counts) == len(scored.candidates):
        n = next(iter(counts.values()))
        one = n == 1
        return [f"({n} of the {deals} {'was' if one else 'were'} too deep to decide within the search limit and "
                f"count{'s' if one else ''} as not won.)"]
    if len(counts) == 1:
        (move, n), = counts.items()
        one = n == 1
        return [f"({n} of the {deals} {'was' if one else 'were'} too deep to decide within the search limit after "
                f"{move} and count{'s' if one else ''} as not won.)"]
    ranked = sorted(counts, key=lambda m: m != scored.best)  # the best move first, then as listed
    each = ", ".join(f"{counts[m]}{f' of the {deals}' if i == 0 else ''} after {m}" for i, m in enumerate(ranked))
    return [f"(Some deals were too deep to decide within the search limit and count as not won: {each}.)"]
