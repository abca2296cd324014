"""Backups never lose anything: an export found where another file is to be written, and an export read back.

An export is a backup of whole games (:mod:`tutor.history.transfer`): ``osmosis export FILE`` writes over an
earlier one only when the new export keeps every game in it (the same moves or more, the review, the drills
and their answers), and over no other file (:func:`other_file`); no other output (a graph, per-deal lines,
an annotated record) writes over one. The other way, an export imported never takes from the history what it
holds: a review is replaced only by a better one (:func:`keep_better_review`), and a drill keeps its
answers and progress, taking those of the export it lacks (:func:`merge_drill`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..inputs import read_at_most
from ..storage import is_regular_file
from .jsonvalues import MAX_EXPORT_BYTES, json_values, laid_out
from .reviews import review_of
from .schema import next_drill_id

if TYPE_CHECKING:
    from .db import History

__all__ = ["ExportFile", "Held", "LINE_FORMAT", "MAX_LINE", "dropped_games", "export_in", "export_lines",
           "export_text", "held_in", "keep_better_review", "merge_drill", "other_file"]


@dataclass(frozen=True)
class Held:
    """What an export line holds of one game, as far as writing over that export goes."""

    moves: list[Any]
    deal: str
    review: bool
    drills: int
    answers: int
    game: str = ""
    """The deal and rules as the line writes them: two lines of one key and other deals are two games."""


@dataclass(frozen=True)
class ExportFile:
    """An export found where another is to be written: its games by ``key``, and the lines that are not export
    lines (a damaged or edited file: what they hold cannot be checked)."""

    games: dict[str, Held]
    unreadable: int
    laid_out: bool = False
    """Not one export line a line of text (laid out over several, or a note added on top): its games cannot
    be read line by line (``unreadable`` is then 1, for the file)."""


LINE_FORMAT = "osmosis-history/1"
"""The format of an export's lines."""


def export_lines(history: History) -> Iterator[dict[str, Any]]:
    """Every game with its review and drills, oldest first: the games the history counts, a game every move of
    which was taken back (a file resumed and undone to its start) none, as in ``osmosis history``."""
    for game in history.games(played_only=True):
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
        line = {"format": LINE_FORMAT, "id": game.id, "key": game.key, "source": game.source,
                "started_at": game.started_at, "played_at": game.played_at, "record": game.record,
                "review": rev.to_json() if rev is not None else None, "drills": drills}
        if history.query("SELECT from_import FROM games WHERE id = ?", (game.id,))[0][0]:
            line["from_import"] = True  # a record file imported: an export line of its game takes it over
        yield line


def export_text(history: History) -> str:
    """The history as an export: one JSON line a game (:mod:`tutor.history.transfer` reads it back)."""
    return "".join(json.dumps(line, sort_keys=True) + "\n" for line in export_lines(history))


MAX_LINE = 1 << 24
"""The longest line read from an export found in the way (16 MB; a game with its review is far less)."""


def held_in(line: bytes | str) -> tuple[str, Held] | None:
    """The game of one export line (its key and what it holds), None for a line that is not one."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    record = data.get("record") if isinstance(data, dict) else None
    if not (isinstance(data, dict) and str(data.get("format", "")).startswith("osmosis-history/")
            and isinstance(data.get("key"), str) and isinstance(record, dict) and isinstance(record.get("moves"), list)):
        return None
    deal = record.get("deal")
    number = deal.get("number") if isinstance(deal, dict) else None
    found = data.get("drills")
    drills: list[Any] = found if isinstance(found, list) else []
    answers = 0
    for d in drills:
        if isinstance(d, dict) and isinstance(d.get("answers"), list):
            answers += len(d["answers"])
    game = json.dumps([record.get("variant"), deal], sort_keys=True)
    return data["key"], Held(record["moves"], f"deal {number}" if isinstance(number, int) else "a deal given in full",
                             isinstance(data.get("review"), dict), len(drills), answers, game)


def export_in(path: str | Path) -> ExportFile | None:
    """The osmosis export at ``path``; None when there is no such file or its first line is not an export line
    (another output file, which may be written over). A line past :data:`MAX_LINE` counts as unreadable."""
    games: dict[str, Held] = {}
    unreadable, first = 0, True
    try:
        if not Path(path).is_file():
            return None
        with open(path, "rb") as fh:
            while raw := fh.readline(MAX_LINE):
                if len(raw) == MAX_LINE and not raw.endswith(b"\n"):
                    while (more := fh.readline(MAX_LINE)) and not more.endswith(b"\n"):
                        pass  # the rest of a line too long to be one
                    found = None
                elif not raw.strip():
                    continue
                else:
                    found = held_in(raw.removeprefix(b"\xef\xbb\xbf") if first else raw)  # a BOM, as import reads
                if first and found is None:
                    if b"\r" in raw.rstrip(b"\r\n"):  # lines ended by a lone CR, as import reads them too
                        return _as_import_reads(path) or _not_lines(path)
                    return _not_lines(path)
                first = False
                if found is None:
                    unreadable += 1
                else:
                    _keep(games, found[0], found[1])
    except OSError:
        return None
    if first:
        return None
    return ExportFile(games, unreadable) if not unreadable else _as_import_reads(path) or ExportFile(games, unreadable)


def _keep(games: dict[str, Held], key: str, held: Held) -> None:
    """``held`` into ``games`` under ``key``, keeping what each line of that key holds: two backups joined in
    one file hold a game twice (4 moves, then 2), and keeping only the last let an export that held 2 write
    over the 4. One line further on the same moves stands for both; two other games under one key each stay."""
    was = games.get(key)
    if was is None:
        games[key] = held
        return
    long, short = (was, held) if len(was.moves) >= len(held.moves) else (held, was)
    if long.game != short.game or long.moves[:len(short.moves)] != short.moves:
        # two games (another deal, or not one line of play): the new export must keep each
        n = 2
        while f"{key}#{n}" in games:
            n += 1
        games[f"{key}#{n}"] = held
        return
    games[key] = Held(long.moves, long.deal, long.review or short.review, max(long.drills, short.drills),
                      max(long.answers, short.answers), long.game)


def _as_import_reads(path: str | Path) -> ExportFile | None:
    """An export whose first line is one but not each line after it, read as ``osmosis import`` reads it
    (:func:`tutor.history.jsonvalues.json_values`): a game laid out over several lines among the others is
    no damage (import takes it whole), and a damaged value is one line that cannot be read, not each of its
    fragments. None when the file cannot be read so (too large, not UTF-8: each line is then as it was read)."""
    try:
        with open(path, "rb") as fh:
            data = read_at_most(fh, MAX_EXPORT_BYTES + 1)
        text = data.decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError, MemoryError):
        return None
    if len(data) > MAX_EXPORT_BYTES:
        return None
    values, damaged = json_values(text)
    games: dict[str, Held] = {}
    unreadable = len(damaged)
    for _, value in values:
        found = held_in(value)
        if found is None:
            unreadable += 1
        else:
            _keep(games, found[0], found[1])
    if not unreadable and any(laid_out(value) for _, value in values):
        return ExportFile(games, 1, laid_out=True)  # kept as every export laid out over several lines is
    return ExportFile(games, unreadable)


MARK = b'"osmosis-history/'
"""What every export line holds (its ``format``), however the JSON is laid out."""


def _not_lines(path: str | Path) -> ExportFile | None:
    """A file whose first line is no export line: one export line laid out over several lines (``osmosis
    import`` reads it: a pretty-printed backup), else, where the file holds an export's mark anywhere (a
    note added on top, several games indented), an export all the same that cannot be read as one; None for
    anything else (another output file)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(MAX_LINE + 1)
            if len(head) <= MAX_LINE:
                found = held_in(head.removeprefix(b"\xef\xbb\xbf"))
                if found is not None:
                    return ExportFile(dict([found]), 0)
            tail = b""
            while head:  # the mark, read in pieces (a piece's end may cut it: the last bytes go on with the next)
                if MARK in tail + head:
                    return ExportFile({}, 1, laid_out=True)
                tail = head[-len(MARK):]
                head = fh.read(1 << 20)
    except OSError:
        return None
    return None


def dropped_games(old: dict[str, Held], new: dict[str, Held]) -> list[str]:
    """What an export ``new`` written over ``old`` would lose, a phrase a game: a game it does not hold, or
    holds as another deal or with other moves (not the same ones or more), without the review, or with fewer
    drills or answers."""
    out = []
    for key, was in old.items():
        now = new.get(key)
        if now is None or now.game != was.game or now.moves[:len(was.moves)] != was.moves:
            out.append(f"{was.deal}, {len(was.moves)} move{'s' if len(was.moves) != 1 else ''}")
        elif was.review and not now.review:
            out.append(f"the review of {was.deal}")
        elif now.drills < was.drills or now.answers < was.answers:
            out.append(f"the drills of {was.deal}")
    return out


def other_file(path: str | Path) -> bool:
    """Whether ``path`` is a file that holds something other than an export of the history (a script, notes,
    any other output): ``osmosis export`` never writes over it. An empty file holds nothing to lose."""
    if not is_regular_file(path) or export_in(path) is not None:
        return False
    try:
        with open(path, "rb") as fh:
            return bool(fh.read(1 << 16).strip())
    except OSError:
        return False  # unreadable: the write itself says what is wrong


# ---- an export read back: never what the history holds lost ------------------------------

class _Undo(Exception):
    """Leaves a review stored on trial out again."""


def _rule(history: History, game_id: int, data: Mapping[str, Any]) -> str | None:
    """The review command's rule (:func:`tutor.history.reviews.not_kept`) on a stored or exported review."""
    from ..errors import TutorError
    from ..review.grades import Thresholds
    from .reviews import not_kept

    raw = data.get("thresholds")
    try:  # thresholds that cannot be read are not the coach's: such a review is a one-off look
        thresholds = Thresholds(**{str(k): float(v) for k, v in raw.items()}) if isinstance(raw, dict) else None
    except (TypeError, ValueError, TutorError):
        thresholds = None
    return not_kept(history, game_id, thresholds, data.get("samples"))


def keep_better_review(history: History, game_id: int, data: Mapping[str, Any],
                       store: Callable[[History, int, Mapping[str, Any], str | None], None]) -> str:
    """An exported review of a stored game, stored only where it is the better one; call inside a write.

    The rule is the review command's (:func:`tutor.history.reviews.not_kept`): a review on other thresholds,
    or on fewer samples than the current one kept, is a one-off look and does not replace it. Asked both
    ways, so that a review as good as the history's own leaves that one. Returns ``"stored"`` (the game had
    none, or none that fits it as it stands); ``"replaced"``: the file's took the place of the history's own
    current review, made on fewer samples;
    ``"rougher"``: the history keeps its own, and the file's is a one-off look beside it; ``"kept"``: the
    history keeps its own, and the file's is no better (the same one, or no current review of the game).
    ``store`` stores a review (:func:`tutor.history.reviews.store_review`).
    """
    from .reviews import reviews

    old = review_of(history, game_id)
    if old is None:
        store(history, game_id, data, data.get("reviewed_at"))
        return "stored"
    if json.dumps(old.to_json(), sort_keys=True) == json.dumps(dict(data), sort_keys=True):
        return "kept"  # the same review, read back from an export of it
    if _rule(history, game_id, data) is not None:
        return "rougher"
    was_current = game_id in reviews(history, with_moves=False, tags_current=True)
    try:
        with history.write():  # on trial: the rule asked the other way round reads the history as it would be
            store(history, game_id, data, data.get("reviewed_at"))
            current = game_id in reviews(history, with_moves=False, tags_current=True)
            if not current or (was_current and _rule(history, game_id, old.to_json()) is None):
                raise _Undo
    except _Undo:
        return "kept"
    return "replaced" if was_current else "stored"  # one that no longer fit the game (played on) is no rival


def _answer_key(answer: Mapping[str, Any]) -> tuple[str, str, int, int]:
    return str(answer["at"]), str(answer["answer"]), int(bool(answer["right"])), int(answer["box"])


def merge_drill(history: History, game_id: int, d: Mapping[str, Any]) -> bool:
    """An exported drill into the history; True when that changed it. Call inside a write.

    A drill the history lacks goes in as it is. One it holds (the same move at that point of the game)
    keeps its box, due time and answers, and takes the export's answers it lacks (answered on another
    machine, say); when the last answer of all is one of those, it takes the box and due time that answer
    left in the export too, as the player's last answer sets them. One whose move there is another one
    (the game went another way) is the history's question and stays as it is.
    """
    conn = history.conn
    row = conn.execute("SELECT id, played FROM drills WHERE game_id = ? AND ply = ?", (game_id, int(d["ply"]))).fetchone()
    answers = list(d.get("answers") or [])
    if row is None:
        cur = conn.execute(
            "INSERT INTO drills (id, game_id, ply, played, best, label, tags, drop_points, box, due_at, created_at, "
            "retired) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (next_drill_id(conn), game_id, int(d["ply"]), d["played"], d["best"], d["label"], json.dumps(list(d.get("tags") or [])),
             float(d["drop"]), int(d["box"]), d["due_at"], d["created_at"], d.get("retired")))
        drill_id = cur.lastrowid
    elif row["played"] != d["played"]:
        return False
    else:
        drill_id = row["id"]
    held = Counter((r[0], r[1], int(r[2]), int(r[3])) for r in conn.execute(
        "SELECT answered_at, answer, right, box_after FROM drill_answers WHERE drill_id = ?", (drill_id,)))
    last_held = max((at for at, *_ in held), default="")
    missing = []
    for a in answers:
        key = _answer_key(a)
        if held[key]:
            held[key] -= 1
        else:
            missing.append(key)
    conn.executemany("INSERT INTO drill_answers (drill_id, answered_at, answer, right, box_after) "
                     "VALUES (?, ?, ?, ?, ?)", [(drill_id, *key) for key in missing])
    if row is not None and missing and max(at for at, *_ in missing) > last_held:
        conn.execute("UPDATE drills SET box = ?, due_at = ? WHERE id = ?", (int(d["box"]), d["due_at"], drill_id))
    return row is None or bool(missing)
