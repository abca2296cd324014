"""Every sentence a player reads from the hint and the review: facts in, words out.

- :mod:`.moves`: the one move describer (:func:`move_fact` and its spellings),
- :mod:`.tips`: the one tip table (:data:`TIPS`),
- :mod:`.hint`: the reason behind a hint and the tutor's warning in play,
- :mod:`.review`: the review's comments, luck and critical moments.

The analysis (:mod:`tutor.hints`, :mod:`tutor.review`) returns facts; this
package turns them into text. A sentence that uses cards the player has not
seen is built from a fact marked as hindsight and says so itself.
"""

from __future__ import annotations

from .hint import cards_figure, pct, reason_for, win_figure
from .moves import (
                    MoveFact,
                    MoveKind,
                    card_word,
                    destination_phrase,
                    move_fact,
                    move_gerund,
                    move_label,
                    move_long,
                    move_past,
                    move_phrase,
                    move_short,
)
from .question import tutor_question, tutor_warning
from .tips import TIPS, Tip, TipId, tip

__all__ = ["TIPS", "Tip", "TipId", "tip", "reason_for", "tutor_question", "tutor_warning", "pct", "win_figure", "cards_figure",
           "MoveFact", "MoveKind", "move_fact", "card_word", "move_label", "move_short", "move_phrase",
           "move_gerund", "move_long", "move_past", "destination_phrase"]
