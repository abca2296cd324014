"""The review of a game: grade every move from what the player knew, tag the errors, add luck and hindsight.

:func:`review` scores the game (:mod:`tutor.grading`), solves the true deal
(:mod:`tutor.review.full_knowledge`), and assembles one :class:`MoveReview`
a move with the facts its comment is built from; :mod:`tutor.narrate.review`
then puts those facts into words.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import replace

from .. import search
from ..errors import TutorError
from ..estimate import Estimate
from ..grading import LABEL_BUDGET, REVIEW_SAMPLES, PlyScore, lost_by_reserves, score_game
from ..knowledge import observe
from ..notation import Move
from ..practical import check_games
from ..record import Record
from ..state import State
from .facts import Candidate, Comment, Decided, Grade, OnlyMove, ThrewAwayWin, Ungraded, cards_choice
from .full_knowledge import hindsight, name_blind_best, only_moves
from .grades import DEFAULT_THRESHOLDS, Label, Thresholds, accuracy_interval, game_accuracy, move_accuracy
from .luck import luck_of
from .moments import critical
from .practical import add_practical
from .tags import find_tags, is_free, placement_plies
from .values import Hindsight, MoveReview, Review

__all__ = ["DEFAULT_SAMPLES", "analyse", "review", "score_position", "assemble"]

#: Shared sampled deals per position (every move of a graded position is
#: scored on them; a label in doubt gets more, up to LABEL_BUDGET).
DEFAULT_SAMPLES = REVIEW_SAMPLES


def score_position(state: State, samples: int | None = None) -> tuple[Move, list[Candidate]]:
    """The hint's best move and every legal move's win chance and expected cards, from what the player saw.

    This is the hint machinery: :func:`tutor.hints.score_moves` on
    :func:`tutor.knowledge.observe`; it never looks at a hidden card.
    """
    from ..hints import score_moves
    from ..knowledge import observe

    scored = score_moves(observe(state), samples=samples)
    return scored.best, [Candidate(c.move, float(c.win), float(c.cards), int(c.samples))
                         for c in scored.candidates]


def analyse(record: Record, samples: int | None = DEFAULT_SAMPLES, thresholds: Thresholds = DEFAULT_THRESHOLDS,
            progress: Callable[[int, int], None] | None = None, workers: int | None = None,
            limit: search.Limit | None = None, label_budget: int | None = None, practical: int | None = None,
            practical_progress: Callable[[int, int], None] | None = None) -> Review:
    """The review of a game as facts only: every figure, label, tag and hindsight fact, no words yet.

    Each move's ``facts`` say what its comment will tell, each moment's
    ``fact`` what its text will; ``comment`` and ``text`` are empty until
    :func:`tutor.narrate.review.tell` writes them (:func:`review` does both).
    The arguments are :func:`review`'s.
    """
    if practical is not None:
        check_games(practical)
    samples = DEFAULT_SAMPLES if samples is None else samples
    if samples < 1:
        raise TutorError(f"samples {samples!r} is not allowed: expected a positive number")
    budget = label_budget if label_budget is not None else max(samples, LABEL_BUDGET * samples // REVIEW_SAMPLES)
    states = record.states()
    moves = list(record.moves)
    n = len(moves)
    graded = {i for i in range(n) if len(states[i].legal_moves()) > 1 and not is_free(states[i], moves[i])}
    total = n + 1
    pool = min(2, os.cpu_count() or 1)
    grading_workers = workers if workers is not None else pool if n >= 24 else 1
    scores = score_game(states, moves, graded, samples, budget, thresholds.bands(), grading_workers, progress,
                        total)
    facts = hindsight(states, limit)
    if facts.winnable is False and lost_by_reserves(observe(states[0])):
        facts = replace(facts, seen=True)  # the face-up reserve piles showed it: no hindsight
    if facts.lost_at_ply is not None:
        facts = name_blind_best(facts, states, moves, scores[facts.lost_at_ply - 1].best, limit)
    only = only_moves(states, moves, facts, limit)
    if progress:
        progress(total, total)
    rev = assemble(record, states, moves, scores, facts, thresholds, samples, only)
    if practical is not None:
        add_practical(rev, practical, pool if workers is None else workers, practical_progress)
    return rev


def review(record: Record, samples: int | None = DEFAULT_SAMPLES, thresholds: Thresholds = DEFAULT_THRESHOLDS,
           progress: Callable[[int, int], None] | None = None, workers: int | None = None,
           limit: search.Limit | None = None, label_budget: int | None = None, practical: int | None = None,
           practical_progress: Callable[[int, int], None] | None = None) -> Review:
    """Review a game record: grade every move, tag the errors, add hindsight and accuracy, and put it in words.

    ``samples``: shared sampled deals per position (default
    :data:`DEFAULT_SAMPLES`; None also means the default). ``label_budget``:
    the most deals for a label in doubt (default: :data:`tutor.grading.LABEL_BUDGET`
    at the default ``samples``, in proportion otherwise: eight times). ``thresholds``: where
    the labels start. ``progress(done, total)`` is called as positions are
    scored. ``workers``: processes (default: up to 2, the CPUs, when the game
    is long enough). ``limit``: the solver limit for hindsight. ``practical``: blind games a move for the
    practical win chance at each error moment (:mod:`.practical`; None, the default: not computed), with
    ``practical_progress(done, total)`` after each game.

    The facts come from :func:`analyse`, the words from :mod:`tutor.narrate.review`.
    """
    from ..narrate.review import tell

    return tell(analyse(record, samples, thresholds, progress, workers, limit, label_budget, practical,
                        practical_progress))


def _candidate(move: Move, est: Estimate, ps: PlyScore | None = None) -> Candidate:
    blind = ps.blind.get(move) if ps is not None else None
    lost = ps is not None and move in ps.lost
    if blind is None or ps is None:
        return Candidate(move, est.win, est.cards, est.samples, (est.win_lo, est.win_hi),
                         (est.cards_lo, est.cards_hi), est.exact, lost=lost)
    from ..narrate.blind import blind_interval, search_count

    # the search and its correction rest on the shared deals (ps.estimates), not on any drawn for the label;
    # each interval is centred on the value before its clamp to 0..1, so that it keeps the fusion found
    searched, shared = search_count(ps.samples), ps.estimates[move]
    raw = ps.blind_raw.get(move, blind)
    if ps.blind_exact or est.samples == shared.samples:
        interval = blind_interval(raw, shared.win, shared.samples, searched, ps.blind_exact)
    else:
        # the figures are on the deals drawn for the label: the blind chance is their share less the fusion the
        # search found (as the hint corrects its 128 deals by the 32 searched), so it never tops the win beside it
        raw = est.win - max(0.0, shared.win - raw)
        interval = blind_interval(raw, est.win, est.samples, searched, False)
        blind = min(1.0, max(0.0, raw))
    return Candidate(move, est.win, est.cards, est.samples, (est.win_lo, est.win_hi), (est.cards_lo, est.cards_hi),
                     est.exact, blind=blind, blind_deals=ps.samples if ps.blind_exact else searched,
                     blind_interval=interval)


def _ungraded(i: int, state: State, move: Move, ps: PlyScore, final: State, last: bool) -> MoveReview:
    """A forced move or a free play: its own value on the shared deals (the result, after the last move)."""
    card = state.card_of(move)
    forced = len(state.legal_moves()) == 1
    est = ps.estimates[move]
    value, interval = est.win, (est.win_lo, est.win_hi)
    ended = ""
    if last and final.over:  # the result, not an estimate: the text and the JSON say the same
        value, interval = (1.0, (1.0, 1.0)) if final.won else (0.0, (0.0, 0.0))
        ended = "won" if final.won else "blocked"
    fact = Ungraded(forced, card, value, interval, est.samples, est.exact, ended, ps.no_progress, state.cards,
                    ps.blocked and not ended and not est.exact)
    return MoveReview(i + 1, move, move, value, value, Label.BEST, (), "", graded=False, forced=forced, card=card,
                      samples=est.samples, exact=est.exact, win_before_interval=interval,
                      win_after_interval=interval, facts=Comment(fact))


def _decided(i: int, state: State, move: Move, ps: PlyScore, facts: Hindsight) -> MoveReview:
    """A move in a position already lost whatever is played (no move wins in any consistent deal): not graded.

    Its figures stay (every legal move's, exact), with the move that places the most cards. A position where
    every move keeps the win is never decided (a later move can still lose it): it is graded.
    """
    value = 0.0
    # the win is known in every consistent deal, whatever the samples behind the cards
    # lost in every consistent deal (``lost`` in the JSON): a 0% that is certain, not a share of the samples
    cands = sorted((replace(_candidate(m, e), interval=(value, value), lost=True) for m, e in ps.estimates.items()),
                   key=lambda c: (-c.win, -c.cards))
    played = next(c for c in cands if c.move == move)
    # a move placing more cards, named only when its paired gap over the same deals is sure to be one
    gap = ps.cards_gap
    more = next((c for c in cands if gap is not None and c.move == gap[0]), None)
    if gap is None or more is None or gap[2] <= 0 or round(more.cards) <= round(played.cards):
        more, gap = None, None
    threw = ThrewAwayWin(facts.better) if facts.lost_at_ply == i + 1 else None
    # the best move is the one the comment names, placing surely more cards (the hint's tie-break), else this one
    return MoveReview(i + 1, move, more.move if more is not None else move, value, value, Label.BEST, (), "",
                      graded=False, decided=True,
                      card=state.card_of(move), cards_after=played.cards, candidates=tuple(cands),
                      samples=ps.decided_deals or ps.samples, exact=not ps.blocked,
                      win_before_interval=(value, value),
                      win_after_interval=(value, value),
                      facts=Comment(Decided(played, ps.decided_deals, more, ps.blocked,
                                            gap=None if gap is None or (ps.exact and not ps.bounded)
                                            else (gap[2], gap[3])),
                                    threw_away=threw))


def _blind_ahead(other: Candidate, played: Candidate, exact: bool) -> bool:
    """``other``'s blind win chance above ``played``'s: where the search is exact, or beyond both intervals'
    noise (:func:`tutor.narrate.blind.blind_apart`)."""
    from ..narrate.blind import blind_apart

    if other.blind is None or played.blind is None or other.blind <= played.blind:
        return False
    return exact or blind_apart(other.blind, other.blind_interval, played.blind, played.blind_interval)


def _graded(i: int, state: State, move: Move, ps: PlyScore, th: Thresholds, placed: dict[int, int],
            facts: Hindsight, ended: bool = True) -> MoveReview:
    card = state.card_of(move)
    cands = [_candidate(m, e, ps) for m, e in ps.estimates.items()]
    by_move = {c.move: c for c in cands}
    played = by_move.get(move)
    if played is None:
        raise TutorError(f"the hint machinery gave no score for move {i + 1} '{move}'")
    top = by_move[ps.best]
    paired = ps.drop
    if paired is None:  # the played move is the best one
        label, close = Label.BEST, False
    else:
        label, close = th.grade(paired)
    if label == Label.BEST and played.lost and not top.lost and top.move != move:
        # lost in every consistent deal beside a move that is not: never the best, at most level with it (the
        # hint names the other; "Best move: ... lost for certain" beside it contradicted the hint)
        label = Label.GOOD
    other = by_move.get(ps.blind_better) if ps.blind_better is not None else None
    if (label == Label.BEST and other is not None and not played.lost and _blind_ahead(other, played, ps.blind_exact)):
        # level on the deals solved with every card known, behind for a blind player beyond the search's noise
        # (the hint's choice; a gap within it, which the hint calls so, leaves the move best)
        label, close, top = Label.GOOD, False, other
    best = move if label == Label.BEST else top.move
    lead = max(cands, key=lambda c: c.win) if top.win < played.win else top
    if ps.wide and label >= Label.INACCURACY:
        # more deals were drawn for the label, every move that could matter scored on them: an error's figures
        # are those, so no win chance in the comment, a tag or the JSON disagrees with the drop (before - after
        # is it). A move graded best or good keeps the shared deals' figures, as its neighbours do, and its
        # comment says which deals the drop rests on: the chart's line mixed 64-deal and 512-deal figures
        # there, and rose 11.5 points between two moves with nothing new shown
        cands = [replace(_candidate(m, ps.wide[m], ps), cards_samples=ps.samples) if m in ps.wide
                 else _candidate(m, e, ps) for m, e in ps.estimates.items()]
        by_move = {c.move: c for c in cands}
        top, played = by_move[ps.best], by_move[move]
        lead = top if top.win >= played.win else played
    if label == Label.BEST:
        # graded best, the move names itself best: the chance before is its own, as ``best`` says (another move
        # ahead within the noise gave win_before - win_after of 1.6 points beside "best": w)
        lead = played
    win_before = max(lead.win, played.win)
    tags, cycle = (find_tags(state, move, by_move, played, top, th, placed, paired, ended)
                   if label >= Label.INACCURACY else ((), None))
    threw = ThrewAwayWin(facts.better) if facts.lost_at_ply == i + 1 else None
    fused = by_move.get(ps.fused) if ps.fused is not None else None
    comment = Comment(Grade(label, move, best, played, top, paired, close, th.inaccuracy, fused, ps.blind_exact,
                            (th.best, th.inaccuracy, th.mistake, th.blunder), blind_better=best == ps.blind_better),
                      tags, cycle, threw)
    drop_pts = max(0.0, paired.estimate * 100) if paired is not None else 0.0
    fusion = fused is not None and fused.blind is not None and played.blind is not None
    if label == Label.BEST and not fusion and cards_choice(played, top, paired):
        best = top.move  # the same chance, surely more cards: the hint's choice, as the comment says (JSON too)
    return MoveReview(i + 1, move, best, win_before, played.win, label, tuple(t.tag for t in tags), "",
                      card=card, cards_after=played.cards,
                      candidates=tuple(sorted(cands, key=lambda c: (-c.win, -c.cards))),
                      accuracy=move_accuracy(drop_pts), samples=played.samples, exact=ps.exact,
                      win_before_interval=(lead if lead.win >= played.win else played).interval,
                      win_after_interval=played.interval, paired=paired, close=close, facts=comment,
                      shared=ps.samples if ps.wide and label >= Label.INACCURACY else 0)


def assemble(record: Record, states: list[State], moves: list[Move], scores: dict[int, PlyScore],
             facts: Hindsight, th: Thresholds, samples: int | None, only: Collection[int] = frozenset()) -> Review:
    """The :class:`Review` of the scored game, every figure and fact in place and no words yet (``comment`` empty)."""
    n = len(moves)
    final = states[-1]
    placed = placement_plies(states, moves)
    lucky = luck_of(states, scores, final, th)
    out: list[MoveReview] = []
    for i, move in enumerate(moves):
        ps = scores[i]
        if ps.graded and ps.decided:
            m = _decided(i, states[i], move, ps, facts)
        elif ps.graded:
            m = _graded(i, states[i], move, ps, th, placed, facts, final.over)
        else:
            m = _ungraded(i, states[i], move, ps, final, i == n - 1)
        luck, alone = lucky.get(i), i in only
        if (luck is not None or alone) and m.facts is not None:
            m = replace(m, facts=replace(m.facts, luck=luck, only_move=OnlyMove() if alone else None),
                        only_move=alone)
            if luck is not None:
                m = replace(m, luck=luck.swing, seen=luck.seen, luck_interval=luck.interval,
                            luck_samples=(luck.deals, luck.deals_after))
        out.append(m)
    graded = [m for m in out if m.graded]
    wins = [m.win_before * 100 for m in graded] + ([graded[-1].win_after * 100] if graded else [])
    accuracy = game_accuracy(wins, [m.accuracy for m in graded if m.accuracy is not None])
    drops = [m.paired.points() if m.paired is not None else (0.0, 0.0, 0.0) for m in graded]
    return Review(record, out, accuracy, facts, {"cards": final.cards, "won": final.won}, th, samples,
                  critical(out), tuple(states), accuracy_interval=accuracy_interval(wins, drops))

