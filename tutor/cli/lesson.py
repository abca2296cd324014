"""``osmosis lesson``: the list of lessons with the player's progress, taking one, checking one."""

from __future__ import annotations

import contextlib
import json
import sys

import click
from rich.text import Text

from ..errors import LessonError, MoveError
from ..knowledge import observe
from ..lessons import (
    Feedback,
    Lesson,
    Progress,
    Step,
    Verdict,
    all_lessons,
    check_lesson,
    describe_move,
    find_lesson,
    judge_answer,
    load_progress,
    verdict_for,
    worded_answer,
)
from ..lessons.words import remembered_talon, score_cells, second_try_lines
from ..notation import Move
from ..render import prose, render_state, use_symbols
from ..table import Table
from ..talon import memory
from ..textsafe import os_reason, quoted
from .app import console_of
from .common import read_line
from .play import waste_fan
from .words import MAX_WORD, answer_forms, too_long

QUIT = ("q", "quit", "exit")
#: A wrong first answer gets the step's hint and one more try.
MAX_TRIES = 2
HINT = ("h", "hint")
HELP = ("?", "help")


def answer_help(piles: int = 4) -> str:
    """How to answer a lesson's question on a board of ``piles`` reserve piles (only the piles it has)."""
    return (f"Answer with a move: {answer_forms(piles)}. h gives a hint (a "
            "second h shows the engine's view of the moves), q stops the lesson.")


@click.command("lesson")
@click.argument("name", required=False)
@click.option("--check", is_flag=True,
              help="Replay every step against the engine and confirm every claim (all lessons if no NAME).")
@click.option("--answers", default=None, metavar='"d w 7h"',
              help="Take the lesson without questions: one answer per question, in order; "
                   "'qc/qs' is a wrong first try and a second one.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the list, a check or a run).")
@click.pass_context
def lesson_command(ctx: click.Context, name: str | None, check: bool, answers: str | None, as_json: bool) -> None:
    """List the lessons, or take lesson NAME (a name, a level number or a lesson file).

    In a lesson, answer with a move (r1-r4, w, d) or a card (7h); h asks for
    a hint and q quits. A first wrong answer gets the step's hint and one
    more try; the verdict and the explanation come after the second. Progress is kept in the data directory
    ($OSMOSIS_HOME, default ~/.local/share/osmosis-tutor).
    """
    console = console_of(ctx)
    if check:
        if answers is not None:
            raise click.UsageError("give --check or --answers, not both")
        lessons = [find_lesson(name)] if name else all_lessons()
        ctx.exit(_check(console, lessons, as_json))
    if name is None:
        if answers is not None:
            raise click.UsageError("--answers needs a lesson NAME")
        _list(console, as_json)
        return
    lesson = find_lesson(name)
    key = _outside_key(name, lesson)
    progress = load_progress()
    if progress.warning:
        click.echo(f"warning: {progress.warning}", err=True)
    if answers is not None:
        given = answers.replace(",", " ").split()
        for token, step in zip(given, (s for s in lesson.steps if s.asks), strict=False):
            tries = token.split("/")
            if len(tries) > MAX_TRIES or not all(tries):
                raise LessonError(f"answer {quoted(token, limit=40)} is not one or two tries: "
                                  f"expected a move or card like 'qs', or a first try and a second like 'qc/qs'")
            for attempt in tries:
                worded_answer(step, attempt)
        if len(given) != lesson.questions:
            n, q = len(given), lesson.questions
            raise LessonError(f"{n} answer{'' if n == 1 else 's'} given but lesson {lesson.name!r} asks "
                              f"{q} question{'' if q == 1 else 's'}: give one answer per question, in order")
        run = Run(console, lesson, progress, answers=given, quiet=as_json, key=key)
        run.take()
    else:
        run = Run(console, lesson, progress, answers=None, quiet=False, key=key)
        # typed or piped answers with --json: the lesson itself goes to stderr, so stdout holds only the JSON
        # (it came before the JSON on stdout, and no JSON reader could take it)
        with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
            run.take()
    if as_json:
        click.echo(json.dumps(run.to_json(), indent=2))


def _outside_key(name: str, lesson: Lesson) -> str:
    """Where a lesson's progress is kept: a shipped lesson under its name; a lesson file of one's own under its
    name and a digest of its path (it marked the shipped lesson of that name done with its own score), and only once the
    engine confirms its claims, as ``--check`` does (a file it rejects was taught as if nothing were wrong)."""
    from pathlib import Path

    from ..lessons.claims import check_lesson
    from ..lessons.files import lesson_files

    if not name.endswith(".toml"):
        return lesson.name
    path = Path(name).resolve()
    shipped = {str(Path(str(f)).resolve()) for _, f in lesson_files()}
    if str(path) in shipped:
        return lesson.name
    failed = next((r for r in check_lesson(lesson) if not r.ok), None)
    if failed is not None:
        raise LessonError(f"{failed.message} (osmosis lesson {quoted(name, limit=60)} --check lists every claim)")
    import hashlib

    # a name the progress file takes (a lesson name's letters), one per file: "layout-file-1a2b3c4d"
    return f"{lesson.name}-file-{hashlib.sha256(str(path).encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


def _list(console, as_json: bool) -> None:
    progress = load_progress()
    if progress.warning:
        click.echo(f"warning: {progress.warning}", err=True)
    lessons = all_lessons()
    if as_json:
        click.echo(json.dumps([{"name": l.name, "title": l.title, "steps": len(l.steps),
                                "done": progress.done(l.name)} for l in lessons], indent=2))
        return
    symbols = use_symbols(console)
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("level", justify="right")
    table.add_column("name", no_wrap=True)  # the name to type: whole, on one line
    table.add_column("title")
    table.add_column("steps", justify="right")
    table.add_column("done")
    for lesson in lessons:
        entry = progress.lessons.get(lesson.name, {})
        done = "yes" if progress.done(lesson.name) else ""
        asks = sum(1 for step in lesson.steps if step.asks)
        if done and asks and entry.get("best_right", -1) >= 0:
            # the best finished run, not the last try (a run stopped after one wrong answer said "0/1 right")
            done += f" (best {min(entry['best_right'], asks)}/{asks} right)"
        table.add_row(str(lesson.level), lesson.name, prose(lesson.title, symbols), str(len(lesson.steps)), done)
    console.print(table)
    finished = sum(progress.done(l.name) for l in lessons)
    console.print(f"{finished} of {len(lessons)} lessons done. Take one with: osmosis lesson NAME", soft_wrap=True)


def _check(console, lessons: list[Lesson], as_json: bool) -> int:
    failed = 0
    report = []
    for lesson in lessons:
        for result in check_lesson(lesson):
            failed += not result.ok
            report.append({"lesson": lesson.name, "step": result.step.number, "ok": result.ok,
                           "message": result.message})
            if not as_json:
                mark = "ok  " if result.ok else "FAIL"
                text = (f"{mark} {lesson.name} step {result.step.number}: {result.message}" if result.ok
                        else f"{mark} {result.message}")
                console.print(prose(text, use_symbols(console)), soft_wrap=True)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        steps = len(report)
        console.print(f"{steps - failed} of {steps} steps confirmed by the engine"
                      + (f"; {failed} failed" if failed else ""), soft_wrap=True)
    if failed:
        first = next(r for r in report if not r["ok"])
        more = f" ({failed} steps failed)" if failed > 1 else ""
        click.echo(f"error: lesson {first['lesson']!r} step {first['step']} does not check out{more}", err=True)
    return 1 if failed else 0


def _fan(step: Step) -> int:
    """How many waste cards the player sees at the step (the top and the rest of its turn)."""
    from ..state import State

    states = [State.initial(step.deal, step.rules)]
    for move in step.moves:
        states.append(states[-1].apply(move))
    return waste_fan(states, list(step.moves))


class Run:
    """One pass through a lesson at the terminal, or from a list of answers."""

    def __init__(self, console, lesson: Lesson, progress: Progress, answers: list[str] | None,
                 quiet: bool, key: str | None = None) -> None:
        self.console = console
        self.lesson = lesson
        self.key = key or lesson.name  # where its progress is kept (:func:`_outside_key`)
        self.progress = progress
        self.answers = answers
        self.quiet = quiet
        self.symbols = use_symbols(console)
        self.interactive = answers is None and sys.stdin.isatty()
        self.results: list[Feedback] = []
        self.tries: list[tuple[str, ...]] = []  # every answer given to each question, in order
        self.shown: list[bool] = []  # whether the engine's verdict (the answer) was shown before the answer
        self.finished = False
        self.current = 1
        self.stopped = False  # stop() ran: its progress is recorded (a Ctrl-C after it records nothing twice)

    # -- output
    def say(self, text: str = "", style: str = "", **kw) -> None:
        """A line of the lesson in ``style``, wrapped at words on a terminal. Text only, never rich Text: every
        line goes through :func:`tutor.render.prose`, so its cards are spelt as the board spells them (a
        question or a verdict passed as rich Text kept ``6H`` under a board of ``6♥``)."""
        if self.quiet:
            return
        kw.pop("markup", None)  # never markup: prose() makes it rich Text
        self.console.print(prose(text, self.symbols, style), soft_wrap=not self.console.is_terminal, **kw)

    def read(self, prompt: str) -> str | None:
        """One line of input, or None at the end of it; piped lines are echoed for the transcript."""
        return read_line(prompt, echo=not self.interactive)

    # -- the lesson
    def take(self) -> None:
        lesson = self.lesson
        self.say(f"Lesson {lesson.level}: {lesson.title}", style="bold")
        self.say(lesson.introduction, markup=False)
        try:
            self.steps()
        except KeyboardInterrupt:  # the answers given so far count, as at q (Ctrl-C recorded none of them)
            if not self.stopped:
                self.stop()
            raise

    def steps(self) -> None:
        """The lesson's steps in order, then its end (:meth:`stop`); q stops it there."""
        lesson = self.lesson
        answers = iter(self.answers) if self.answers is not None else None
        total = len(lesson.steps)
        for step in lesson.steps:
            self.current = step.number
            self.say()
            self.say(f"Step {step.number} of {total}", style="bold")
            if not self.quiet:
                # A question's position hides the list of legal moves: it would give the answer away.
                fan = _fan(step)
                self.console.print(render_state(step.state, reveal=step.reveal, symbols=self.symbols,
                                                fan=fan, moves=not step.asks))
                seen = remembered_talon(memory(observe(step.state)), fan)
                if seen:
                    self.say(seen, markup=False)
            self.say(step.text, markup=False)
            if not step.asks:
                if answers is None and self.interactive:
                    line = self.read("(Enter to go on, q to quit) ")
                    if line is None or line.strip().lower() in QUIT:
                        return self.stop()
                continue
            if answers is not None:
                self.scripted(step, next(answers).split("/"))
                continue
            if not self.ask(step):
                return self.stop()
        self.finished = True
        self.stop()

    def scripted(self, step: Step, tries: list[str]) -> None:
        """A question answered from --answers: each try is one answer; a right first try ends it.

        A wrong first try with a second one gets the hint and then the second
        try's verdict; a wrong try with no second one gets its verdict at once.
        """
        self.say(step.question or "", style="bold")
        verdict = verdict_for(step)
        given: list[str] = []
        for number, answer in enumerate(tries, 1):
            self.say(f"answer: {answer}", markup=False)
            given.append(answer)
            feedback = judge_answer(step, answer, verdict)
            if feedback.right or number == len(tries):
                break
            self.second_try(feedback)
        self.feedback(feedback, tuple(given))

    def second_try(self, feedback: Feedback) -> None:
        first, *rest = second_try_lines(feedback)
        self.say(first, style="bold red")
        for line in rest:
            self.say(line, markup=False)

    def ask(self, step: Step) -> bool:
        """Ask the step's question until it gets an answer; False if the player quits.

        A first wrong answer gets the hint and a second try; the second
        answer (or a right first one) gets the verdict and the explanation.
        """
        hints = 0
        verdict: Verdict | None = None
        given: list[str] = []
        shown = False  # the second hint shows the verdict, and with it the answer
        while True:
            self.say(step.question or "", style="bold")
            line = self.read("answer (h hint, ? help, q quit)> ")
            if line is None:
                return False
            text = line.strip()
            if not text:
                continue
            if text.lower() in QUIT:
                return False
            if text.lower() in HELP:
                self.say(answer_help(step.rules.reserve_piles), markup=False)
                continue
            if text.lower() in HINT:
                if hints == 0 and step.hint:
                    self.say(f"Hint: {step.hint}", markup=False)
                else:
                    verdict = verdict or verdict_for(step)
                    self.show_verdict(step, verdict)
                    shown = True
                hints += 1
                continue
            try:
                feedback = judge_answer(step, text, verdict)
            except MoveError as exc:  # a word longer than any move is quoted cut, as in play
                self.say(too_long(text, step.rules.reserve_piles) if len(text) > MAX_WORD else f"{exc}",
                         markup=False)
                continue
            verdict = feedback.verdict
            given.append(feedback.answer)
            if not feedback.right and len(given) < MAX_TRIES:
                self.second_try(feedback)
                continue
            self.feedback(feedback, tuple(given), shown)
            return True

    def show_verdict(self, step: Step, verdict: Verdict) -> None:
        """The engine's view of the moves, best first (the second hint gives the answer away)."""
        state = step.state
        who = {"rules": "By the rules", "solver": "The solver, with every card known",
               "hint": "The tutor, from the cards you have seen"}[verdict.judge]
        self.say(f"{who}:")
        table = Table(box=None, pad_edge=False, header_style="bold")
        table.add_column("move")

        def move_cell(move: Move) -> Text:  # its card spelt as the board above spells it
            return prose(describe_move(state, move), self.symbols)

        if verdict.judge == "rules":
            table.add_column("answer")
            for s in verdict.scores:
                table.add_row(move_cell(s.move), "right" if s.move in verdict.right else "")
        elif verdict.judge == "hint":  # sampled figures say what they rest on, as osmosis hint's table does
            for name in ("win", "95%", "cards", "95%", "deals"):
                table.add_column(name, justify="right", no_wrap=True)
            for s in verdict.scores:
                table.add_row(move_cell(s.move), *score_cells(s))
        else:
            table.add_column("result")
            table.add_column("cards", justify="right")
            for s in verdict.scores:
                known = verdict.cards_exact or s.win >= 1
                table.add_row(move_cell(s.move), "win" if s.win else "lost",
                              f"{s.cards:.1f}" if known else "")
        if not self.quiet:
            self.console.print(table)
        if verdict.reason:
            self.say(verdict.reason, markup=False)

    def feedback(self, fb: Feedback, tries: tuple[str, ...], shown: bool = False) -> None:
        self.results.append(fb)
        self.tries.append(tries)
        self.shown.append(shown)
        style = "bold green" if fb.right else "bold red"
        first, *rest = fb.lines
        self.say(first, style=style)
        for line in rest:
            self.say(line, markup=False)

    def right_count(self) -> int:
        """Answers right before the answer was shown (one given after the verdict table counts as not found)."""
        return sum(f.right and not shown for f, shown in zip(self.results, self.shown))

    def stop(self) -> None:
        self.stopped = True
        right = self.right_count()
        asked = len(self.results)
        lesson = self.lesson
        second = sum(f.right and len(t) > 1 and not shown for f, t, shown in zip(self.results, self.tries, self.shown))
        told = sum(f.right and shown for f, shown in zip(self.results, self.shown))
        notes = [f"{second} at the second try"] * bool(second) + [f"{told} more after the answer was shown"] * bool(told)
        later = f" ({'; '.join(notes)})" if notes else ""
        self.say()
        if self.finished:
            if lesson.summary:
                self.say(lesson.summary, markup=False)
            score = f" {right} of {asked} answers right{later}." if asked else ""
            self.say(f"Lesson {lesson.level} ({lesson.name}) done.{score}", style="bold")
            missed = [f.step.number for f, shown in zip(self.results, self.shown) if not f.right or shown]
            if missed:
                self.say("Steps to look at again: " + ", ".join(map(str, missed)))
        else:
            kept = ("It stays done from an earlier run." if self.progress.done(self.key)
                    else "The lesson is not marked done.")
            self.say(f"Stopped at step {self.current}: {right} of {asked} answers right so far{later}. {kept}")
        self.progress.record(self.key, right, asked, self.finished)
        try:
            warning = self.progress.save()  # a file broken since the start is set aside: said in one line
            if warning:
                click.echo(f"warning: {warning}", err=True)
        except OSError as exc:
            from ..storage import file_in_the_way

            blocked = file_in_the_way(self.progress.path.parent)
            why = (f"{quoted(blocked)} is a file, not a folder (set OSMOSIS_HOME to a writable folder)"
                   if blocked is not None else os_reason(exc))
            click.echo(f"warning: progress not saved to {quoted(self.progress.path)}: {why}", err=True)

    def to_json(self) -> dict:
        return {
            "lesson": self.lesson.name,
            "done": self.finished,
            "right": self.right_count(),  # found before the answer was shown
            "asked": len(self.results),
            "answers": [{"step": f.step.number, "answer": f.answer, "right": f.right,
                         "best": str(f.verdict.best), "feedback": list(f.lines), "tries": list(t),
                         "answer_shown": shown}
                        for f, t, shown in zip(self.results, self.tries, self.shown)],
        }
