"""Export the history as JSON lines, and import them (or any record file) back.

Each exported line is one game: ``{"format": "osmosis-history/1", "key",
"source", "started_at", "played_at", "record": {...osmosis-record/1...},
"review": {...} | null, "drills": [...]}``. Import reads those lines, or a
plain record file (``osmosis-record/1``, say one written by hand from a
PySolFC deal number), so ``export`` then ``import`` on another machine gives
the same history, and a second import changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RecordError, TutorError
from ..record import Record
from ..textsafe import quoted
from .db import History
from .games import add_file, add_record
from .reviews import review_of, store_review

LINE_FORMAT = "osmosis-history/1"


def export_lines(history: History) -> Iterator[dict[str, Any]]:
    """Every game with its review and drills, oldest first."""
    for game in history.games():
        rev = review_of(history, game.id)
        drills = []
        for d in history.query("SELECT * FROM drills WHERE game_id = ? ORDER BY ply", (game.id,)):
            answers = [{"at": a["answered_at"], "answer": a["answer"], "right": bool(a["right"]),
                        "box": a["box_after"]}
                       for a in history.query("SELECT * FROM drill_answers WHERE drill_id = ? ORDER BY id", (d["id"],))]
            drills.append({"ply": d["ply"], "played": d["played"], "best": d["best"], "label": d["label"],
                           "tags": json.loads(d["tags"]), "drop": d["drop_points"], "box": d["box"],
                           "due_at": d["due_at"], "created_at": d["created_at"], "retired": d["retired"],
                           "answers": answers})
        yield {"format": LINE_FORMAT, "key": game.key, "source": game.source, "started_at": game.started_at,
               "played_at": game.played_at, "record": game.record,
               "review": rev.to_json() if rev is not None else None, "drills": drills}


def export_text(history: History) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in export_lines(history))


@dataclass
class ImportResult:
    games: int = 0
    reviews: int = 0
    drills: int = 0
    problems: list[str] = field(default_factory=list)


def import_line(history: History, data: dict[str, Any], where: str) -> tuple[int, int]:
    """One exported line into the history; returns (reviews, drills) stored."""
    if not isinstance(data.get("record"), dict):
        raise RecordError(f"{where}: an {LINE_FORMAT} line needs a 'record' object")
    record = Record.from_json(data["record"], source=where)
    game_id = add_record(history, record, key=data.get("key") or None, source=data.get("source"),
                         started_at=data.get("started_at"), played_at=data.get("played_at"))
    reviews = 0
    if isinstance(data.get("review"), dict):
        rev = data["review"]
        try:
            store_review(history, game_id, rev, rev.get("reviewed_at"))
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"{where}: the review is incomplete ({exc})") from None
        reviews = 1
    drills = 0
    for d in data.get("drills") or []:
        try:
            with history.write() as conn:
                conn.execute("DELETE FROM drills WHERE game_id = ? AND ply = ?", (game_id, int(d["ply"])))
                cur = conn.execute(
                    "INSERT INTO drills (game_id, ply, played, best, label, tags, drop_points, box, due_at, "
                    "created_at, retired) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, int(d["ply"]), d["played"], d["best"], d["label"], json.dumps(list(d.get("tags") or [])),
                     float(d["drop"]), int(d["box"]), d["due_at"], d["created_at"], d.get("retired")))
                conn.executemany("INSERT INTO drill_answers (drill_id, answered_at, answer, right, box_after) "
                                 "VALUES (?, ?, ?, ?, ?)",
                                 [(cur.lastrowid, a["at"], a["answer"], int(bool(a["right"])), int(a["box"]))
                                  for a in d.get("answers") or []])
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"{where}: a drill is incomplete ({exc})") from None
        drills += 1
    return reviews, drills


def import_file(history: History, path: str | Path) -> ImportResult:
    """A record file, or a file of exported JSON lines, into the history.

    A line or file that cannot be read is reported in ``problems`` and the
    rest still goes in.
    """
    p = Path(path)
    result = ImportResult()
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = "it is a folder: give a file name" if p.is_dir() else (getattr(exc, "strerror", None) or exc)
        result.problems.append(f"{quoted(path)}: cannot be read ({reason})")
        return result
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and whole.get("format", "osmosis-record/1") != LINE_FORMAT:
        try:
            add_file(history, p)
            result.games += 1
        except TutorError as exc:
            result.problems.append(str(exc))
        return result
    # One JSON object that is not a record: an exported line written over several lines of text.
    entries: Iterable[tuple[int, str | dict[str, Any]]] = (
        [(1, whole)] if isinstance(whole, dict) else enumerate(text.splitlines(), 1))
    for number, entry in entries:
        where = f"{quoted(path)} line {number}"
        data: object
        if isinstance(entry, str):
            if not entry.strip():
                continue
            try:
                data = json.loads(entry)
            except json.JSONDecodeError as exc:
                result.problems.append(f"{where}: not JSON ({exc.msg}): expected one {LINE_FORMAT} object a line "
                                       "or an osmosis-record/1 file")
                continue
        else:
            data = entry
        if not isinstance(data, dict):

            result.problems.append(f"{where}: expected a JSON object")
            continue
        try:
            if data.get("format") == LINE_FORMAT:
                reviews, drills = import_line(history, data, where)
                result.reviews += reviews
                result.drills += drills
            else:
                add_record(history, Record.from_json(data, source=where), source=str(path))
            result.games += 1
        except TutorError as exc:
            result.problems.append(str(exc))
    return result
