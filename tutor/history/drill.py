"""Drills: the player's own mistakes asked again, with spaced repetition (Leitner boxes).

A reviewed move becomes a drill when the review labelled it a mistake or a
blunder, another move was better, and the drop is real by the review's own
numbers (:func:`clear_mistake`). The question is the position before
that move, as the player saw it, and the answer is judged by the lessons'
engine (:func:`tutor.lessons.judge_answer`): a drill is a lesson step built
from the player's game. If the engine, asked afresh, rates the move that was
played within its margin of the best, the drill is retired instead of asked.

Scheduling: a right answer moves the drill up one box and it comes back
after that box's interval (1, 3, 7, 16, 35, 90 days); a wrong one sends it
back to box 0, due again in ten minutes.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..hints import DEFAULT_SAMPLES
from ..record import Record
from .db import BUSY_MS, History, HistoryError, iso, parse_iso
from .reviews import StoredMove, StoredReview, review_of, reviews
from .schema import next_drill_id

if TYPE_CHECKING:  # the lessons are imported when a drill is asked, not with the history
    from ..lessons import Step, Verdict
    from ..notation import Move
    from ..state import State

DAY = 86400.0
#: box -> seconds until the drill is due again after a right answer that put it there.
INTERVALS = (600.0, 1 * DAY, 3 * DAY, 7 * DAY, 16 * DAY, 35 * DAY, 90 * DAY)
WRONG_DELAY = 600.0
DRILL_LABELS = ("mistake", "blunder")


def schedule(box: int, right: bool, now: float) -> tuple[int, float]:
    """The new box and due time after an answer: right -> up a box and later, wrong -> box 0, soon."""
    if right:
        box = min(box + 1, len(INTERVALS) - 1)
        return box, now + INTERVALS[box]
    return 0, now + WRONG_DELAY


def _variance(win: float, samples: int) -> float:
    if samples <= 0:
        return 0.0
    p = (win * samples + 1) / (samples + 2)
    return p * (1 - p) / samples


def clear_mistake(m: StoredMove, budget: int | None = None) -> bool:
    """A mistake or blunder with a better move that is clearly better by the review's own numbers.

    The review's scores are the hint's, and the hint stops sampling before
    its budget only when its leader is clearly ahead of every other move by
    a paired test over the same samples, is certain to lose nothing, or
    every consistent deal was solved. So fewer samples than the budget
    means the lead is real; at the full budget the lead must be more than
    twice the sampling error of the two win chances.
    """
    if not m.graded or m.label not in DRILL_LABELS or m.best == m.move:
        return False
    if m.drop_interval is not None:
        # the review gave the label on the paired interval of the drop (over the same deals, up to 512 while
        # in doubt): its lower end above zero says the better move is better, whatever the candidates' noise
        return m.drop_interval[0] > 0
    by_move = {c.get("move"): c for c in m.candidates}
    best, played = by_move.get(m.best), by_move.get(m.move)
    if best is None or played is None:
        return m.drop > 0  # no candidates stored: the label is all there is
    lead = float(best["win"]) - float(played["win"])
    if lead <= 0:
        return False
    n = int(best.get("samples") or 0)
    if n and n < (budget or DEFAULT_SAMPLES):
        return True
    noise = 2 * math.sqrt(_variance(float(best["win"]), n)
                          + _variance(float(played["win"]), int(played.get("samples") or 0)))
    return lead > noise


@dataclass(frozen=True)
class DropFigure:
    """What a drill's drop (the review's, in win points) rests on, as far as the history kept it.

    ``interval``: its paired 95% interval in points; ``samples``: the deals behind it; ``exact``: every
    consistent deal was solved. None where the stored review did not keep it (an older one).
    """

    interval: tuple[float, float] | None = None
    samples: int | None = None
    exact: bool = False


def sync_drills_if_free(history: History) -> None:
    """:func:`sync_drills` where it can be done at once (a better review imported or made since the last drill
    command changed the drills' costs); a history another process is writing, or one that cannot be written,
    is left as it is without waiting (what reads it, an export, never waits)."""
    history.conn.execute("PRAGMA busy_timeout = 0")
    try:
        if history.write_refused() is None:
            sync_drills(history)
    except HistoryError:
        pass
    finally:
        history.conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")


def _played_on(history: History) -> dict[int, StoredReview]:
    """The reviews of games played on since (resumed, or imported again further on) whose reviewed moves are
    the game's first ones as they stand: their mistakes are still the game's, and drills (made from them
    whether or not a drill command ran before the game went on)."""
    from .copies import record_of
    from .reviews import went_on

    out: dict[int, StoredReview] = {}
    for game_id in went_on(history):
        rev, game = review_of(history, game_id), history.game(game_id)
        if rev is not None and game is not None and _fits(rev, record_of(game), rev.moves_reviewed):
            out[game_id] = rev
    return out


def _fits(rev: StoredReview, record: Record, upto: int) -> bool:
    """The review's moves up to ply ``upto`` are the game's as it stands (every one of them stored)."""
    if upto > min(rev.moves_reviewed, len(record.moves)):
        return False
    by_ply = {m.ply: m.move for m in rev.moves}
    return all(by_ply.get(ply) == str(record.moves[ply - 1]) for ply in range(1, upto + 1))


def drill_review(history: History, d: Drill, record: Record,
                 current: dict[int, StoredReview] | None = None) -> StoredReview | None:
    """The review a drill came from, where it still speaks of the drill's position: the game's current review,
    or one made before the game went on, whose moves up to the drill's are the game's as they stand (a game
    resumed and played on keeps its earlier mistakes: retiring their drills lost box and answers for good).
    ``current``: :func:`reviews` when the caller has it."""
    rev = (current if current is not None else reviews(history, with_moves=False)).get(d.game_id)
    if rev is not None and rev.moves:
        return rev
    rev = review_of(history, d.game_id)  # the current one without its moves, or one the game went on from
    return rev if rev is not None and _fits(rev, record, d.ply) else None


def drop_figure(m: StoredMove | None) -> DropFigure:
    """The basis of a reviewed move's drop: the paired interval and its deals stored with the move; for a
    review stored before those were kept, the played move's own scores where they give it."""
    if m is None:
        return DropFigure()
    played = m.candidate(m.move)
    if m.drop_interval is not None:
        lo, hi = m.drop_interval
        samples = m.drop_samples
        if samples is None and played is not None and "drop_interval" in played and "drop_samples" in played:
            # the hint's own paired drop, when it is the one the review kept (the review may have drawn more)
            same = all(abs(a * 100 - b) < 0.01 for a, b in zip(played["drop_interval"], (lo, hi), strict=True))
            samples = played["drop_samples"] if same else None
        return DropFigure((lo, hi), samples, exact=abs(hi - lo) < 1e-9)
    if played is None:
        return DropFigure()
    if played.get("exact") or played.get("drop_exact"):
        return DropFigure(exact=True)
    if "drop_interval" in played:
        lo, hi = played["drop_interval"]
        return DropFigure((lo * 100, hi * 100), played.get("drop_samples"))
    return DropFigure(samples=played.get("samples") or None)


@dataclass(frozen=True)
class Drill:
    id: int
    game_id: int
    ply: int
    played: str
    best: str
    label: str
    tags: tuple[str, ...]
    drop: float
    box: int
    due_at: str
    answers: int = 0
    right: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game_id, "ply": self.ply, "played": self.played, "best": self.best,
                "label": self.label, "tags": list(self.tags), "drop": round(self.drop, 1), "box": self.box,
                "due_at": self.due_at, "answers": self.answers, "right": self.right}


#: Why a drill is no longer asked when its game was reviewed again (by a newer osmosis, say).
NO_LONGER = "reviewed again: no longer a clear mistake"


def sync_drills(history: History) -> int:
    """Bring the drills up to the current reviews; returns how many were new.

    Every clear mistake of a current review is a drill. A drill whose game was reviewed again takes the
    new review's figures (label, tags, drop, the better move), its box and answers kept; one the new
    review no longer calls a clear mistake is retired (:data:`NO_LONGER`), and comes back, box and answers
    kept, if a later review calls it one again. A drill whose move at that ply is now another one (the
    game went another way there) is a new question: it starts again in box 0, its old answers dropped.
    So a drill never asks about a mistake, or gives a cost, that the coach no longer reports.
    """
    now = iso(history.now())
    current: dict[int, dict[int, tuple[str, str, str, str, float]]] = {}
    for game_id, rev in {**_played_on(history), **reviews(history)}.items():
        current[game_id] = {m.ply: (m.move, m.best, m.label, json.dumps(list(m.tags)), m.drop)
                            for m in rev.moves if clear_mistake(m, rev.samples)}
    known = {(r["game_id"], r["ply"]): r for r in history.query(
        "SELECT id, game_id, ply, played, best, label, tags, drop_points, retired FROM drills")}
    new, changed, restarted, retired = [], [], [], []
    for game_id, mistakes in current.items():
        for ply, fields in mistakes.items():
            old = known.get((game_id, ply))
            if old is None:
                new.append((game_id, ply, *fields, now, now))
            elif old["played"] != fields[0]:  # another move at that ply: another question
                restarted.append((*fields, now, now, old["id"]))
            elif old["retired"] is not None and old["retired"] != NO_LONGER:
                continue  # retired by the engine asked afresh: left so
            elif old["retired"] == NO_LONGER or (old["played"], old["best"], old["label"], old["tags"],
                                                 old["drop_points"]) != fields:
                changed.append((*fields, old["id"]))
    for (game_id, ply), old in known.items():
        if old["retired"] is None and game_id in current and ply not in current[game_id]:
            retired.append((NO_LONGER, old["id"]))
    if not (new or changed or restarted or retired):
        return 0
    with history.write() as conn:
        conn.executemany("UPDATE drills SET played = ?, best = ?, label = ?, tags = ?, drop_points = ?, "
                         "retired = NULL WHERE id = ?", changed)
        conn.executemany("DELETE FROM drill_answers WHERE drill_id = ?", [(r[-1],) for r in restarted])
        conn.executemany("UPDATE drills SET played = ?, best = ?, label = ?, tags = ?, drop_points = ?, box = 0, "
                         "due_at = ?, created_at = ?, retired = NULL WHERE id = ?", restarted)
        conn.executemany("UPDATE drills SET retired = ? WHERE id = ?", retired)
        before, first = conn.total_changes, next_drill_id(conn)
        conn.executemany("INSERT OR IGNORE INTO drills (id, game_id, ply, played, best, label, tags, drop_points, "
                         "due_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [(first + i, *row) for i, row in enumerate(new)])
        return conn.total_changes - before


_SELECT = """SELECT d.*, (SELECT COUNT(*) FROM drill_answers a WHERE a.drill_id = d.id) AS n_answers,
                    (SELECT COUNT(*) FROM drill_answers a WHERE a.drill_id = d.id AND a.right) AS n_right
             FROM drills d"""


def _drill(r: sqlite3.Row) -> Drill:
    return Drill(r["id"], r["game_id"], r["ply"], r["played"], r["best"], r["label"], tuple(json.loads(r["tags"])),
                 r["drop_points"], r["box"], r["due_at"], r["n_answers"], r["n_right"])


def due(history: History, limit: int | None = None, tag: str | None = None) -> list[Drill]:
    """The drills due now, the longest-waiting first (then the costliest)."""
    rows = history.query(_SELECT + " WHERE d.retired IS NULL AND d.due_at <= ? ORDER BY d.due_at, d.drop_points DESC, d.id",
                         (iso(history.now()),))
    found = [_drill(r) for r in rows if tag is None or tag in json.loads(r["tags"])]
    return found[:limit] if limit is not None else found


def all_drills(history: History) -> list[Drill]:
    return [_drill(r) for r in history.query(_SELECT + " WHERE d.retired IS NULL ORDER BY d.due_at, d.id")]


def drill(history: History, drill_id: int) -> Drill | None:
    rows = history.query(_SELECT + " WHERE d.id = ?", (drill_id,))
    return _drill(rows[0]) if rows else None


def next_due(history: History, tag: str | None = None) -> str | None:
    """When the next drill (of ``tag``, if given) is due; None when there is none."""
    if tag is not None:
        times = [r["due_at"] for r in history.query("SELECT due_at, tags FROM drills WHERE retired IS NULL")
                 if tag in json.loads(r["tags"])]
        return min(times, default=None)
    row = history.query("SELECT MIN(due_at) FROM drills WHERE retired IS NULL")
    first: str | None = row[0][0] if row else None
    return first


def answer(history: History, d: Drill, answer_text: str, right: bool) -> Drill:
    """Store an answer and reschedule the drill; returns it as it is now. The box is read again in the write:
    another session may have answered the same drill since this one asked it (a wrong answer there puts it
    in box 0, and a right one here then moves it up from there, not from the box it was asked in)."""
    now = history.now()
    with history.write() as conn:
        row = conn.execute("SELECT box FROM drills WHERE id = ?", (d.id,)).fetchone()
        box, due_at = schedule(int(row[0]) if row is not None else d.box, right, now)
        conn.execute("UPDATE drills SET box = ?, due_at = ? WHERE id = ?", (box, iso(due_at), d.id))
        conn.execute("INSERT INTO drill_answers (drill_id, answered_at, answer, right, box_after) VALUES (?, ?, ?, ?, ?)",
                     (d.id, iso(now), answer_text, int(right), box))
    return drill(history, d.id) or replace(d, box=box, due_at=iso(due_at), answers=d.answers + 1,
                                           right=d.right + int(right))


def retire(history: History, d: Drill, why: str) -> None:
    """Stop asking a drill (the engine no longer calls the move played a mistake)."""
    with history.write() as conn:
        conn.execute("UPDATE drills SET retired = ? WHERE id = ?", (why, d.id))


def seconds_until(history: History, when: str) -> float:
    return parse_iso(when) - history.now()


# ---- the question, as a lesson step ------------------------------------------

def position(record: Record, d: Drill) -> tuple[list[State], list[Move]] | None:
    """The states up to the drill's position (before the move in question) and the moves to it."""
    if d.ply < 1 or d.ply > len(record.moves) or str(record.moves[d.ply - 1]) != d.played:
        return None
    states = record.states()
    return states[: d.ply], list(record.moves[: d.ply - 1])


def step_for(record: Record, d: Drill, tip: str = "", samples: int | None = None) -> Step:
    """A :class:`tutor.lessons.Step` asking the drill's position, with the judge the lessons would use.

    A hint-judged drill may draw as many deals as the review could for a label
    (:data:`tutor.grading.LABEL_BUDGET`; the hint stops early once every move's
    band is settled): the move played came from a label resting on up to that
    many, and the judge only calls an answer wrong when it is clearly worse.
    """
    from ..grading import LABEL_BUDGET
    from ..lessons import Step, full_information

    moves = tuple(record.moves[: d.ply - 1])
    step = Step(lesson="drill", source="history", number=d.id, text="", deal=record.deal, rules=record.rules,
                moves=moves, question="What is the best move here?", expect=d.best, teaches="", judge="hint",
                explain=f"Tip: {tip}" if tip else "", samples=samples or LABEL_BUDGET)
    if full_information(step.state):
        step = replace(step, judge="solver")
    return step


def verdict_for_drill(step: Step) -> tuple[Step, Verdict]:
    """The engine's verdict (the lessons' :func:`~tutor.lessons.verdict_for`); the hint judge if the solver
    cannot decide. A hint verdict's scores keep their intervals and deals, to be said with them. The hint
    judge draws every deal its doubt rule asks for, past the hint's work budget, as the review that called
    the move a mistake did: a drill is retired when the engine no longer calls it one, not when fewer deals
    could not tell."""
    from ..lessons import LessonError, verdict_for

    if step.judge != "hint":
        try:
            return step, verdict_for(step)
        except LessonError:
            step = replace(step, judge="hint")
    return step, verdict_for(step, budget=False)
