"""The library's errors: one base class, precise subclasses.

Every message quotes the bad input and says what would be right, so the CLI
can print it as one line and exit with status 1.
"""


class TutorError(Exception):
    """Base class of every error the tutor reports to a player."""


class CardError(TutorError, ValueError):
    """A card name that cannot be parsed."""


class MoveError(TutorError, ValueError):
    """A move token that cannot be parsed."""


class RulesError(TutorError, ValueError):
    """An unknown variant name or an impossible combination of options."""


class DealError(TutorError, ValueError):
    """A deal number or deal file that does not describe a valid deal."""

    #: What a file read for this kind of error should hold, said when it holds no JSON (:mod:`tutor.inputs`).
    holds = "a deal file (osmosis-deal/1), as osmosis deal N --json writes"


class IllegalMoveError(TutorError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class RecordError(TutorError, ValueError):
    """A game record that cannot be read, or that does not replay."""

    holds = "a game record (osmosis-record/1), as osmosis play saves"


class LessonError(TutorError, ValueError):
    """A lesson file that is malformed or whose claims do not hold."""
