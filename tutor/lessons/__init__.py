"""Guided lessons: lesson files (TOML data) that the engine checks and judges.

One job a module: :mod:`.format` (the ``osmosis-lesson/1`` file, the Step
and Lesson values), :mod:`.files` (finding the shipped lessons),
:mod:`.judge` (the rules, solver and hint verdicts; an answer's Feedback),
:mod:`.words` (the feedback sentences), :mod:`.claims` (every claim checked
against the engine) and :mod:`.progress` (the player's progress file).
The public names are re-exported here: ``from tutor.lessons import X``.
"""

from __future__ import annotations

from ..errors import LessonError
from ..knowledge import has_seen_everything as full_information
from ..storage import progress_path
from .claims import StepCheck, check_lesson, check_step
from .files import all_lessons, find_lesson, lesson_files, load_lesson_file
from .format import (
                     CARDS_MARGIN,
                     DEFAULT_SAMPLES,
                     JUDGES,
                     LESSON_FORMAT,
                     MAX_LEVEL,
                     MAX_SAMPLES,
                     NAME_PATTERN,
                     SOLVER_NODES,
                     WIN_MARGIN,
                     Lesson,
                     Step,
                     parse_lesson,
)
from .judge import (
                     Feedback,
                     Score,
                     Verdict,
                     hint_result_verdict,
                     hint_score,
                     hint_verdict,
                     judge_answer,
                     rules_verdict,
                     solver_verdict,
                     verdict_for,
                     worded_answer,
)
from .progress import PROGRESS_FORMAT, Progress, load_progress
from .words import describe_move

__all__ = [
    "CARDS_MARGIN", "DEFAULT_SAMPLES", "JUDGES", "LESSON_FORMAT", "MAX_LEVEL", "MAX_SAMPLES", "NAME_PATTERN",
    "PROGRESS_FORMAT", "SOLVER_NODES", "WIN_MARGIN", "Feedback", "Lesson", "LessonError", "Progress", "Score",
    "Step", "StepCheck", "Verdict", "all_lessons", "check_lesson", "check_step", "describe_move", "find_lesson",
    "full_information", "hint_result_verdict", "hint_score", "hint_verdict", "judge_answer", "lesson_files", "load_lesson_file", "load_progress",
    "parse_lesson", "progress_path", "rules_verdict", "solver_verdict", "verdict_for", "worded_answer",
]
