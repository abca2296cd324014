"""The figures a hint-judged lesson step and a drill show: every sampled one with its 95% interval and its deals
(or said to be exact), the same figures as the hint's, from one verdict built one way."""

from __future__ import annotations

import re

import pytest

from tutor.lessons import Score, find_lesson, full_information, hint_verdict, judge_answer
from tutor.lessons import words as lesson_words
from tutor.notation import Move

# A sampled win, as `osmosis hint` and the drill say it, and the cards beside it.
WIN = r"win \d+% \((95%: \d+-\d+%, \d+ deals?|exact|in every consistent deal)\)"
CARDS = (r"(about )?\d+(\.\d)? cards \((95%: \d+(\.\d)?-\d+(\.\d)?, \d+ deals?|exact|in each of the \d+ deals)\)")


def win_text(s: Score) -> str:
    return lesson_words.win_text(s)  # looked up when called: a missing name fails its test alone


def cards_text(s: Score) -> str:
    return lesson_words.cards_text(s)


def hint_step(index: int = 4):
    """Lesson 5 (waiting), step 5: deal 20, QH on the waste, the hint judges (32 deals: quick)."""
    step = find_lesson("waiting").steps[index]
    assert step.judge == "hint" and not full_information(step.state)
    return step


def test_a_hint_judged_wrong_answer_says_each_figure_with_its_interval_and_deals():
    """'d (turn the talon) gives win 0%, 13.0 cards; w (...) gives win 84%, 51.1 cards' were bare sampled figures."""
    wrong = judge_answer(hint_step(), "d")
    assert not wrong.right
    line = next(line for line in wrong.lines if line.startswith("By the tutor (from the cards you have seen): "))
    figures = line.split(": ", 1)[1].split(". ", 1)[0]
    said = re.fullmatch(rf"d \(turn the talon\) gives (?P<mine>{WIN}) and {CARDS}; "
                        rf"w \(play QH from the waste\) gives (?P<best>{WIN}) and {CARDS}", figures)
    assert said, figures
    for s in wrong.verdict.scores:  # the hint's own intervals and deals, not a bare 84%
        assert s.interval is not None and s.samples > 0 and s.cards_interval is not None
        assert win_text(s) in figures and cards_text(s) in figures
    # the win figures are the ones the hint's reason gives in the same line, not other ones
    for s in wrong.verdict.scores:
        assert s.interval is not None
        if s.lost:  # the turn ends the pass with no play: lost in every consistent deal, no interval to give
            assert s.interval == (0.0, 0.0) and "0% (in every consistent deal) if you turn" in line
            continue
        assert f"{s.win * 100:.0f}% (95%: {s.interval[0] * 100:.0f}-{s.interval[1] * 100:.0f}%)" in line
    assert any(s.lost for s in wrong.verdict.scores)


def test_the_verdicts_scores_are_the_hints_candidates_with_what_they_rest_on():
    from tutor.hints import hint
    from tutor.knowledge import observe
    from tutor.lessons import hint_result_verdict

    step = hint_step()
    result = hint(observe(step.state), samples=step.samples)
    verdict = hint_result_verdict(result, step.win_margin, step.cards_margin)
    assert verdict == hint_verdict(step.state, step.samples, step.win_margin, step.cards_margin)
    assert verdict.best == result.best and verdict.reason == result.reason
    for c in result.candidates:
        s = verdict.score_of(c.move)
        assert s is not None
        assert (s.win, s.cards, s.samples, s.interval, s.cards_interval, s.exact, s.lost) == (
            c.win, c.cards, c.samples, c.interval, c.cards_interval, c.exact, c.lost)


@pytest.mark.parametrize(("move", "win", "cards", "basis", "win_said", "cards_said"), [
    ("d", 0.56, 47.04, {"samples": 128, "interval": (0.48, 0.65), "cards_interval": (45.2, 49.1)},
     "win 56% (95%: 48-65%, 128 deals)", "about 47 cards (95%: 45-49, 128 deals)"),
    ("w", 0.5, 47.3, {"samples": 6, "interval": (0.5, 0.5), "cards_interval": (47.3, 47.3), "exact": True},
     "win 50% (exact)", "47.3 cards (exact)"),  # an exact mean that is not whole keeps its decimal
    ("w", 0.5, 47.0, {"samples": 6, "interval": (0.5, 0.5), "cards_interval": (47.0, 47.0), "exact": True},
     "win 50% (exact)", "47 cards (exact)"),
    # a settled win (the interval one value) or a move the reserves show lost: known in every deal
    ("w", 0.0, 13.0, {"samples": 32, "interval": (0.0, 0.0), "cards_interval": (13.0, 13.0)},
     "win 0% (in every consistent deal)", "13 cards (in each of the 32 deals)"),
    ("r1", 0.0, 20.4, {"samples": 64, "interval": (0.0, 0.06), "cards_interval": (19.6, 21.2), "lost": True},
     "win 0% (in every consistent deal)", "about 20 cards (95%: 20-21, 64 deals)"),
    # rounded ends that would read as one number get a decimal; one deal is one deal
    ("r2", 1.0, 52.0, {"samples": 1, "interval": (0.21, 1.0), "cards_interval": (51.6, 52.4)},
     "win 100% (95%: 21-100%, 1 deal)", "about 52.0 cards (95%: 51.6-52.4, 1 deal)"),
    # a score made without its basis says it is sampled rather than pass for a bare figure
    ("d", 0.43, 47.0, {}, "win 43% (sampled)", "about 47 cards (sampled)"),
])
def test_a_hint_score_is_said_with_its_interval_and_deals_or_as_exact(move, win, cards, basis, win_said,
                                                                      cards_said):
    score = Score(Move.parse(move), win, cards, **basis)
    assert win_text(score) == win_said and cards_text(score) == cards_said


def drill_of_the_waiting_step():
    """A drill as the history builds it: the game of lesson 5's step 5 where the player turned past QH."""
    from tutor.history.drill import Drill, step_for
    from tutor.record import Record

    lesson_step = hint_step()
    moves = [*lesson_step.moves, Move.parse("d")]
    record = Record(lesson_step.rules, lesson_step.deal, moves)
    d = Drill(1, 1, len(moves), "d", "w", "mistake", ("no-progress",), 84.0, 0, "2026-01-01T00:00:00+00:00")
    return step_for(record, d, samples=lesson_step.samples)


def hints_judged(monkeypatch) -> list:
    """The hints made into verdicts from now on (by :func:`tutor.lessons.judge.hint_result_verdict`), in order."""
    import tutor.lessons.judge

    built = []
    real = tutor.lessons.judge.hint_result_verdict

    def spy(result, *args, **kwargs):
        built.append(result)
        return real(result, *args, **kwargs)

    monkeypatch.setattr(tutor.lessons.judge, "hint_result_verdict", spy)
    return built


def test_the_drill_builds_its_verdict_the_lessons_way_and_says_figures_with_intervals(monkeypatch):
    """drill.py built the verdict itself through the private tutor.lessons.judge._verdict, and its feedback
    line said 'gives win 0%, 13.0 cards' beside the drill's own 'win 84% (95%: 68-93%, 32 deals)'."""
    from tutor.history.drill import verdict_for_drill

    built = hints_judged(monkeypatch)
    step = drill_of_the_waiting_step()
    assert step.judge == "hint"
    step, verdict = verdict_for_drill(step)
    assert len(built) == 1  # one run of the hint, made into a verdict by the lessons' function
    assert verdict == hint_verdict(step.state, step.samples, step.win_margin, step.cards_margin)
    # the drill says the verdict's scores as the lessons do: each with its interval and deals
    assert {str(s.move) for s in verdict.scores} == {str(c.move) for c in built[0].candidates}
    for s in verdict.scores:
        assert re.fullmatch(r"win \d+% \(95%: \d+-\d+%, \d+ deals?\)", win_text(s)) or (
            s.lost and win_text(s) == "win 0% (in every consistent deal)")
    wrong = judge_answer(step, "d", verdict)
    assert not wrong.right
    text = " ".join(wrong.lines)
    assert re.search(rf"gives {WIN} and {CARDS}; .* gives {WIN} and {CARDS}\.", text), text
    for s in verdict.scores:  # the feedback's figures and the drill's are the same ones
        assert win_text(s) in text


def _candidate(move: str, win: float, cards: float, drop=None, cards_interval=None):
    from tutor.hints import Candidate

    lo, hi = max(0.0, win - 0.08), min(1.0, win + 0.08)
    return Candidate(Move.parse(move), win, cards, samples=128, interval=(lo, hi),
                     cards_interval=cards_interval or (cards - 1.5, cards + 1.5), drop=drop)


def _hint_of(*candidates):
    from tutor.hints import Hint

    return Hint(best=candidates[0].move, candidates=list(candidates), reason="", samples=128)


def test_a_sampled_answer_is_wrong_only_when_clearly_worse_than_the_best():
    """Drill, Peek deal 33: 'Not quite: w was the move here, win 45% against 40%' while the same reply said the
    gap was within the noise (the paired drop 5.5 points, 95%: -6.8 to +17.5): right or wrong went by the point
    figures alone. Now an answer is wrong only when the low end of its paired drop clears the margin, as a
    review label goes by the low end of its drop."""
    from tutor.estimate import Drop
    from tutor.lessons import hint_result_verdict

    noisy = _hint_of(_candidate("w", 0.453, 33.0),
                     _candidate("d", 0.398, 32.5, Drop(0.055, -0.068, 0.175, 128)))
    assert hint_result_verdict(noisy).right == {Move.parse("w"), Move.parse("d")}
    clear = _hint_of(_candidate("d", 0.836, 46.7),
                     _candidate("w", 0.719, 43.2, Drop(0.117, 0.061, 0.17, 128)))
    assert hint_result_verdict(clear).right == {Move.parse("d")}
    # the low end just under the margin: not clearly worse; at it: clearly worse
    edge = _hint_of(_candidate("d", 0.60, 40.0), _candidate("w", 0.52, 40.0, Drop(0.08, 0.0499, 0.11, 128)))
    assert Move.parse("w") in hint_result_verdict(edge).right
    edge = _hint_of(_candidate("d", 0.60, 40.0), _candidate("w", 0.52, 40.0, Drop(0.08, 0.05, 0.11, 128)))
    assert Move.parse("w") not in hint_result_verdict(edge).right
    # no win either way: the cards decide, and far fewer cards with the intervals apart stays wrong
    cards = _hint_of(_candidate("d", 0.0, 30.0, cards_interval=(29.0, 31.0)),
                     _candidate("w", 0.0, 24.0, Drop(0.0, 0.0, 0.02, 128), cards_interval=(23.0, 25.0)))
    assert hint_result_verdict(cards).right == {Move.parse("d")}
    # an exact drop (every consistent deal solved) is the value: the point figures decide
    exact = _hint_of(_candidate("d", 0.60, 40.0), _candidate("w", 0.52, 40.0, Drop(0.08, 0.08, 0.08, 120, True)))
    assert hint_result_verdict(exact).right == {Move.parse("d")}


def test_a_drill_asks_the_engine_with_as_many_deals_as_a_review_label():
    """A drill's move came from a label resting on up to 512 deals; judged on the hint's 128 it was retired
    (w 11.7 points worse, 95%: 2.9-20, not clearly 5) where the review had 18 (13.6-21.6)."""
    from tutor.deals import deal_for
    from tutor.grading import LABEL_BUDGET
    from tutor.history.drill import Drill, step_for
    from tutor.record import Record
    from tutor.rules import preset

    rules = preset("peek")
    moves = [Move.parse(m) for m in "r2 d d d d d w w d".split()]
    record = Record(rules=rules, deal=deal_for(33, rules), moves=moves)
    drill = Drill(id=1, game_id=1, ply=8, played="w", best="d", label="mistake", tags=(), drop=18.0, box=0,
                  due_at="", answers=0, right=0)
    step = step_for(record, drill)
    assert step.samples == LABEL_BUDGET and step.judge == "hint"


def test_the_drill_asks_the_hint_judge_past_the_work_budget_and_the_lessons_within_it(monkeypatch):
    """A drill is retired when the engine, asked again, no longer calls the move a mistake. With the hint's work
    budget a verdict on fewer deals accepted more moves (limited deal 10 after r2: r4 beside d, on 134 deals where
    512 accepted d alone), so a drill could be retired for want of deals: its hint judge has no work budget, as
    the review that made the drill had none. A lesson's hint-judged step keeps the hint's (what h says in play)."""
    import tutor.hints
    from tutor.history.drill import verdict_for_drill

    built = hints_judged(monkeypatch)
    monkeypatch.setattr(tutor.hints, "HINT_NODES", 1)
    step, _ = verdict_for_drill(drill_of_the_waiting_step())
    lesson = hint_verdict(step.state, step.samples, step.win_margin, step.cards_margin)
    drill, taught = built
    assert not drill.budget_spent and drill.samples > tutor.hints.MIN_SAMPLES
    assert taught.budget_spent and taught.samples == tutor.hints.MIN_SAMPLES
    assert {s.samples for s in lesson.scores} == {tutor.hints.MIN_SAMPLES}
