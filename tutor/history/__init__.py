"""The player's history: every game, its review, and drills from the player's own mistakes.

- :mod:`.db`: the SQLite file, its schema and migrations, setting a damaged file aside;
- :mod:`.games`: games into the history (as played, the games folder, record files);
- :mod:`.reviews`: reviews stored per move;
- :mod:`.stats`: the player's figures (``osmosis history``);
- :mod:`.coach`: the recurring kinds of error (``osmosis coach``);
- :mod:`.drill`: spaced repetition over the player's mistakes (``osmosis drill``);
- :mod:`.transfer`: export as JSON lines, import them or any record.

Values only: the words and the drawing are in :mod:`tutor.cli.history_render`.
"""

from .db import DB_NAME, History, HistoryError, db_path
from .games import add_record, note_game, open_history
from .schema import VERSION

__all__ = ["DB_NAME", "VERSION", "History", "HistoryError", "add_record", "db_path", "note_game", "open_history"]
