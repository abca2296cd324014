"""``osmosis deal``, ``osmosis play`` and ``osmosis replay``: the game a person plays in the terminal."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from ..cards import NAMES
from ..deals import Deal, random_deal_number
from ..errors import IllegalMoveError, MoveError, RecordError, TutorError
from ..notation import Move, parse_input
from ..record import Game, Record
from ..render import card_text, describe_move, prose, render_deal, render_hint, render_state, use_symbols
from ..state import State
from ..storage import games_dir, is_regular_file, remove_stale_temps
from ..textsafe import brief, clean, os_reason, quoted, shown_path
from .app import console_of
from .common import (
    DEAL_NUMBER,
    FiniteFloat,
    read_line,
    record_from_file,
    resolve_deal,
    rules_from_kwargs,
    variant_options,
)
from .saves import GameFiles

WELL_PLAYED = 40

HELP = """\
Moves:  r1-r4  play the top card of a reserve pile
        w      play the waste's top card
        d      turn the talon (a redeal when the stock is empty)
        7h     a card name (also 10H, 7♥) plays that card
        Several moves on one line are played in turn: d d w
Other:  u      undo the last move (u 3: the last three)
        h      hint: every move with its chance to win, and why
        s      save the game (s FILE: save it to FILE)
        q      quit (the game stays saved)
        ?      this help; an empty line shows the position again"""


# ---- where games are kept ------------------------------------------------
def autosave_stem(deal: Deal, when: float | None = None) -> str:
    """The name of a new autosave file, without ``.json``; storage makes it unique (``-2``, ...)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return f"deal-{deal.number}-{stamp}" if deal.number is not None else f"deal-file-{stamp}"


def prepare_games_dir() -> Path:
    """The games folder, made if need be and tidied of temporary files left by killed saves."""
    games = games_dir()
    try:
        games.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:
        reason = os_reason(exc) if isinstance(exc, OSError) else "not a usable folder name"
        raise RecordError(f"cannot create the games folder {quoted(games)}: {reason} "
                          "(set OSMOSIS_HOME to a writable folder)") from None
    remove_stale_temps(games)
    return games


# ---- what the player sees ------------------------------------------------
def waste_fan(states: list[State], moves: list[Move]) -> int:
    """How many waste cards the player sees: the top and the rest of the turn it came with.

    The cards turned by the last turn are ``talon[start:pos]`` where ``start``
    is the talon pointer before that turn; plays from the waste since then
    only remove cards above ``start``. After a redeal nothing of an earlier
    turn lies on the waste.
    """
    state = states[-1]
    for i in range(len(moves) - 1, -1, -1):
        if moves[i].kind != "d":
            continue
        before = states[i]
        if before.pos == len(before.talon):
            return 1
        return max(1, state.pos - before.pos)
    return 1


def end_message(state: State) -> str:
    """The result in words: won, or blocked with the score and why."""
    if state.won:
        return "Won! All 52 cards are on the foundations."
    why = _why_blocked(state)
    text = f"Blocked: {_plural(state.score, 'card')} on the foundations ({why})."
    if state.score >= WELL_PLAYED:
        text += f" Not a win, but {WELL_PLAYED} or more cards counts as well played."
    return text


def _why_blocked(state: State) -> str:
    passes = state.rules.passes
    if not state.talon:
        return "no card can be played and the talon is used up"
    if passes and state.pass_no >= passes:
        return f"no card can be played and all {passes} passes through the talon are used"
    return "a whole pass through the talon went by without a card played"


def _move_line(number: int, state: State, move: Move, symbols: bool) -> Text:
    """``Move 5: r2 7♥`` for the move played from ``state``."""
    text = Text()
    text.append(f"Move {number}: ", style="bold")
    text.append(str(move), style="bold")
    text.append(" ")
    card = state.card_of(move)
    if card is not None:
        text.append_text(card_text(card, symbols))
    else:
        text.append("turn" if state.pos < len(state.talon) else "redeal")
    return text


def _annotation_text(note: dict | None, symbols: bool = False) -> Text | None:
    if not note:
        return None
    text = Text("  ")
    # The annotations come from a file that may have been shared: no control codes reach the terminal.
    label = note.get("label")
    if label:
        text.append(clean(label), style="bold")
    tags = note.get("tags") or []
    if tags:
        text.append(f" [{', '.join(clean(t) for t in tags)}]")
    comment = note.get("comment")
    if comment:
        text.append(": " if label or tags else "")
        text.append_text(prose(clean(comment), symbols))
    return text if text.plain.strip() else None


def _say(console: Console, text: str | Text) -> None:
    """A message, never read as rich markup: on a terminal wrapped at word boundaries, else one line."""
    console.print(prose(text, use_symbols(console)) if isinstance(text, str) else text,
                  soft_wrap=not console.is_terminal)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def move_for_card(state: State, card: int) -> Move:
    """The move that plays a typed card; the error never tells where a face-down card lies."""
    try:
        return state.move_for_card(card)
    except IllegalMoveError:
        tops = {pile[-1] for pile in state.reserves if pile}
        seen = (state.is_placed(card) or card in tops or card == state.waste_top
                or (state.rules.open_reserve and any(card in pile for pile in state.reserves)))
        if seen:
            raise
        raise IllegalMoveError(f"{NAMES[card]} cannot be played now: it is not on top of a reserve pile "
                               "or the waste") from None


def _read(prompt: str, echo: bool) -> str | None:
    """One line of input, or None at the end of input (see :func:`common.read_line`)."""
    return read_line(prompt, echo)


# ---- osmosis deal --------------------------------------------------------
def deal_json(deal: Deal) -> str:
    """The deal file text (spec section 2), one pile per line."""
    data = deal.to_json()
    fields = [f'  "format": {json.dumps(data["format"])}',
              '  "reserves": [' + ",\n               ".join(json.dumps(p) for p in data["reserves"]) + "]",
              f'  "base": {json.dumps(data["base"])}',
              f'  "talon": {json.dumps(data["talon"])}']
    return "{\n" + ",\n".join(fields) + "\n}"


@click.command("deal")
@click.argument("number", type=DEAL_NUMBER, required=False)
@click.option("--deal-file", metavar="FILE", default=None, help="A deal file (osmosis-deal/1) instead of a number.")
@variant_options
@click.option("--json", "as_json", is_flag=True, help="Print the deal file (JSON) instead of the layout.")
@click.option("--reveal", is_flag=True, help="Show the face-down cards too.")
@click.pass_context
def deal_command(ctx: click.Context, number, deal_file, as_json, reveal, **kwargs) -> None:
    """Show deal NUMBER's layout (PySolFC's numbering), or print it as a deal file."""
    rules = rules_from_kwargs(kwargs, deal_file=deal_file)
    deal = resolve_deal(number, deal_file, rules)
    if as_json:
        click.echo(deal_json(deal))
        return
    console = console_of(ctx)
    console.print(render_deal(deal, rules, reveal=reveal, symbols=use_symbols(console)))


# ---- osmosis play --------------------------------------------------------
class Session:
    """One game at the terminal: the game, where it is saved, and the tutor's settings."""

    def __init__(self, ctx: click.Context, game: Game, files: GameFiles, tutor: bool, threshold: float) -> None:
        self.ctx = ctx
        self.console = console_of(ctx)
        self.symbols = use_symbols(self.console)
        self.game = game
        self.files = files
        self.tutor = tutor
        self.threshold = threshold
        self.interactive = sys.stdin.isatty()
        if self.interactive:
            try:  # line editing and history for the prompt, where the platform has it
                import readline  # noqa: F401
            except ImportError:
                pass
        self.echo = not self.interactive
        self._hints: dict[State, object] = {}
        self._ended = False
        self._warned_unsaved = False
        self.exit_code = 0

    # -- output
    def say(self, text) -> None:
        """A message on one line (the terminal wraps it, rich does not)."""
        _say(self.console, text)

    def draw(self, renderable) -> None:
        self.console.print(renderable)

    def show(self) -> None:
        game = self.game
        self.draw(render_state(game.state, symbols=self.symbols, fan=waste_fan(game.states, game.moves)))

    def record(self) -> Record:
        return self.game.to_record()

    def tell(self, sentences) -> None:
        for sentence in sentences:
            self.say(sentence)

    def autosave_now(self) -> None:
        """Save to the autosave file; a failure is reported and the game goes on."""
        self.tell(self.files.after_change())
        self._warned_unsaved = False  # the game changed: a q warns again if it is not saved
        if self.files.autosave is not None and not self.files.failed:
            from .history import note_game  # the game goes into the player's history as it is played

            note_game(self.record(), self.files.autosave, self.say)

    def saved_now(self) -> str:
        """Where the moves played now are kept, in a sentence that is true either way."""
        where = self.files.holding_now()
        return (f"The game is saved in {shown_path(where[0])}." if where
                else self.files.unsaved_sentence() + " Type s FILE to save it.")

    def finish(self, saved_line: bool = True) -> None:
        """At the end of a game: keep the finished file safe, say where it is and what the history shows."""
        self.tell(self.files.keep())
        if saved_line:
            self.say(f"{self.saved_now()} u takes back moves, q quits.")
        from .history import after_game  # one line of what the player's history shows

        after_game(self.record(), self.files.autosave, self.say)

    # -- the loop
    def run(self) -> None:
        self.show()
        while True:
            self._check_end()
            try:
                line = _read("move> ", self.echo)
            except KeyboardInterrupt:
                line = None
                self.say("")
            if line is None:
                self.quit(final=True)
                return
            words = line.split()
            if not words:
                self.show()
                continue
            cmd = words[0].lower()
            if cmd in ("q", "quit", "exit"):
                if self.quit(final=self._warned_unsaved):
                    return
                continue
            try:
                if cmd in ("?", "help"):
                    self.say(HELP)
                elif cmd in ("u", "undo"):
                    self.undo(words[1:])
                elif cmd in ("s", "save"):
                    self.save_command(line.strip()[len(words[0]):].strip())
                elif cmd in ("h", "hint"):
                    self.show_hint()
                else:
                    if not self.play_line(words):
                        self.quit(final=True)
                        return
            except TutorError as exc:
                self.say(str(exc))

    def _check_end(self) -> None:
        state = self.game.state
        if not state.over:
            self._ended = False
            return
        if self._ended:
            return
        self._ended = True
        self.say(Text(end_message(state), style="bold green" if state.won else "bold"))
        self.finish()
        if self.interactive:
            offer_review(self.ctx, self.record())

    def quit(self, final: bool) -> bool:
        """Leave the game, saying where it is kept. With moves not saved, the first q only warns (False)."""
        self.tell(self.files.keep())
        saved = self.files.saved_sentence()
        if saved is not None:
            self.say(saved)
            return True
        if self.files.nothing_to_save():
            self.say("No move was played, so no game file was written.")
            return True
        if not final:
            self._warned_unsaved = True
            self.say(f"{self.files.unsaved_sentence()} Type s FILE to save it, or q again to quit without saving.")
            return False
        self.say(self.files.unsaved_sentence())
        click.echo("error: the game was not saved (the last moves are lost): "
                   "the game files could not be written", err=True)
        self.exit_code = 1
        return True

    def play_line(self, words: list[str]) -> bool:
        """Play each word of a line as a move; stop at the first that fails. False means quit."""
        for word in words:
            state = self.game.state
            try:
                target = parse_input(word)
                move = target if isinstance(target, Move) else move_for_card(state, target)
                if move not in state.legal_moves():
                    state.apply(move)  # raises the rules' reason
            except (MoveError, IllegalMoveError) as exc:
                self.say(str(exc))
                return True
            if self.tutor:
                verdict = self.tutor_check(state, move)
                if verdict is None:
                    return False
                if not verdict:
                    self.say("Move not played.")
                    return True
            self.game.push(move)
            self.autosave_now()
            self.say("")
            self.say(_move_line(self.game.ply, state, move, self.symbols))
            self.show()
            if self.game.state.over:
                return True
        return True

    def undo(self, args: list[str]) -> None:
        count = 1
        if args:
            if not (args[0].isascii() and args[0].isdigit() and len(args[0]) <= 6):
                raise MoveError(f"u {brief(args[0])}: expected u, or u and a number of moves like u 3")
            count = int(args[0])
        if not self.game.can_undo():
            self.say("Nothing to undo: this is the start of the game.")
            return
        if count < 1:
            raise MoveError(f"u {count}: expected a number of moves of at least 1")
        count = min(count, self.game.ply)
        taken = self.game.undo(count)
        words = " ".join(str(m) for m in reversed(taken))
        self.say(f"Took back {count} move{'s' if count != 1 else ''} ({words}).")
        self.autosave_now()
        self.show()

    def save_command(self, arg: str) -> None:
        self.tell(self.files.save(arg))
        self._warned_unsaved = False

    # -- hints and the tutor
    def hint_for(self, state: State):
        """The hint at ``state`` from what the player has seen (cached per position)."""
        if state not in self._hints:
            from ..hints import hint
            from ..knowledge import observe

            def compute():
                return hint(observe(state))

            if self.console.is_terminal:
                with self.console.status("Thinking..."):
                    self._hints[state] = compute()
            else:
                self._hints[state] = compute()
        return self._hints[state]

    def show_hint(self) -> None:
        state = self.game.state
        if state.over:
            self.say("The game is over: there is no move to hint.")
            return
        self.draw(render_hint(self.hint_for(state), state, symbols=self.symbols))

    def tutor_check(self, state: State, move: Move) -> bool | None:
        """Before a move: warn if it is clearly worse than the best. True = play, False = not, None = input ended."""
        if len(state.legal_moves()) < 2:
            return True
        advice = self.hint_for(state)
        if move == advice.best or not advice.warns(move, self.threshold):
            return True  # the drop must reach the threshold with confidence
        from ..narrate import tutor_warning

        warning = tutor_warning(advice, move, describe_move(state, advice.best, self.symbols))
        if warning is None:
            return True
        self.say(warning)
        answer = _read("Play it anyway? [y/N] ", self.echo)
        if answer is None:
            return None
        return answer.strip().lower() in ("y", "yes")


def offer_review(ctx: click.Context, record: Record) -> None:
    """At the end of a game on a terminal, offer the post-game review."""
    answer = _read("Review this game? [y/N] ", echo=False)
    if answer and answer.strip().lower() in ("y", "yes"):
        from .review import review_after_play

        review_after_play(ctx, record)


@click.command("play")
@click.argument("number", type=DEAL_NUMBER, required=False)
@click.option("--deal-file", metavar="FILE", default=None, help="Play a deal file (osmosis-deal/1).")
@variant_options
@click.option("--tutor", is_flag=True, help="Warn before a move that is clearly worse than the best one.")
@click.option("--threshold", type=FiniteFloat(0, 100), default=10.0, show_default=True, metavar="PCT",
              help="Tutor mode warns when a move's win chance is this many points below the best.")
@click.option("--save", "save_path", metavar="PATH", default=None,
              help="Also save the record here (on s, at the end and on quit).")
@click.option("--resume", "resume_path", metavar="RECORD", default=None,
              help="Go on with a saved game (a file, 'last', or a number from osmosis games); "
                   "it is saved back to the same file as you play.")
@click.option("--plain", is_flag=True, help="Line mode (typed moves and Enter) even on a terminal.")
@click.pass_context
def play_command(ctx: click.Context, number, deal_file, tutor, threshold, save_path, resume_path, plain=False,
                 **kwargs) -> None:
    """Play a deal in the terminal (no argument: a random deal number).

    On a terminal a full-screen board with single keys: 1-4 w d t u r h s q ?.
    Piped input and --plain: line mode, type r1-r4, w, d or a card name to
    move; u undo, h hint, s save, q quit, ? help. The game is saved after
    every move.
    """
    console = console_of(ctx)
    if resume_path is not None:
        if number is not None or deal_file is not None or any(v is not None for v in kwargs.values()):
            raise click.UsageError("--resume takes the deal and the variant from the record: "
                                   "give no deal number, --deal-file or variant option with it")
        from .games import resolve_resume

        from_list = not os.path.exists(resume_path)  # "last" or a number from osmosis games
        resume_path = resolve_resume(resume_path)
        game = Game.from_record(record_from_file(resume_path))
        deal, rules = game.deal, game.rules
        if game.state.over and (from_list or (not plain and board_wanted(console))):
            # A finished game picked from the list, or on a terminal, opens as a replay; a
            # record file named in line mode opens as it ended, and an undo goes on in a
            # new copy (GameFiles says so). Either way the finished file is never rewritten.
            _say(console, f"That game is finished: {end_message(game.state)} It opens as a replay.")
            ctx.invoke(replay_command, record_path=str(resume_path))
            return
    else:
        rules = rules_from_kwargs(kwargs, deal_file=deal_file)
        if number is None and deal_file is None:
            number = random_deal_number()
            _say(console, f"Deal {number} (a random deal; play it again with: osmosis play {number})")
        deal = resolve_deal(number, deal_file, rules)
        game = Game(rules, deal)
    try:
        games = prepare_games_dir()
    except RecordError as exc:
        games = None
        if resume_path is None:
            _say(console, f"The game cannot be saved as you play: {exc}. Type s FILE to save it.")
    resumed = None
    if resume_path is not None:
        if is_regular_file(resume_path):
            resumed = Path(resume_path)
        else:  # read from a pipe or a device: it cannot be written back
            _say(console, f"{shown_path(resume_path)} is not a regular file, so the game goes on in a new file.")
    files = GameFiles(game, games, autosave_stem(deal), save_path, resumed=resumed)
    title = f"Deal {deal.number}" if deal.number is not None else "A deal given in full"
    _say(console, f"{title}, {rules.describe()}" + (f", after move {game.ply}." if game.ply else "."))
    if rules.warning():
        _say(console, f"Note: {rules.warning()}.")
    start = files.start_message()
    if start:
        _say(console, start)
    _say(console, "Type ? for help.")
    if tutor:
        _say(console, f"Tutor mode: moves {threshold:g} or more points below the best (with 95% confidence) "
                      "are questioned.")
    session = Session(ctx, game, files, tutor, threshold)
    if not plain and board_wanted(console):
        from ..board.play import run_board

        wants_review = run_board(session, use_symbols(console)) == "review"
        session.quit(final=True)
        if wants_review:
            review_after_play(ctx, session.record())
        ctx.exit(session.exit_code)
    session.run()
    ctx.exit(session.exit_code)


def board_wanted(console: Console) -> bool:
    """The full-screen board: only when both ends are a terminal that can draw it."""
    return (sys.stdin.isatty() and sys.stdout.isatty() and console.is_terminal
            and os.environ.get("TERM", "") not in ("", "dumb"))


def review_after_play(ctx: click.Context, record: Record) -> None:
    from .review import review_after_play as review

    review(ctx, record)


# ---- osmosis replay ------------------------------------------------------
@click.command("replay")
@click.argument("record_path", metavar="RECORD")
@click.option("--all", "show_all", is_flag=True, help="Print every position without waiting.")
@click.option("--review/--no-review", "with_review", default=True, show_default=True,
              help="Comment every move with the post-game review (computed unless the record is "
                   "annotated; --no-review shows only the record's own annotations).")
@click.option("--plain", is_flag=True, help="Line mode (Enter for the next move) even on a terminal.")
@click.option("--at", "at", type=click.IntRange(1), default=None, metavar="N",
              help="Open at move N (osmosis coach names the moves worth a look).")
@click.pass_context
def replay_command(ctx: click.Context, record_path: str, show_all: bool, with_review: bool = True,
                   plain: bool = False, at: int | None = None) -> None:
    """Step through a game record with commentary.

    On a terminal a viewer: arrows step both ways, Home/End, n/p jump to the
    labelled moves and critical moments, g goes to a move. In line mode
    (pipes, --plain) Enter shows the next move and q stops; when the input
    is not a terminal and ends, the rest of the game is printed. Each move
    gets the post-game review's label and comment. --at N opens at move N.
    """
    record = record_from_file(record_path)
    if at is not None and at > len(record.moves):
        raise RecordError(f"the record has {_plural(len(record.moves), 'move')}, so there is no move {at}: "
                          f"expected --at 1 to {len(record.moves)}")
    if not show_all and not plain and board_wanted(console_of(ctx)):
        from ..board.replay import run_replay
        from .review import review_for_viewer

        record, rev = review_for_viewer(ctx, record) if with_review else (record, None)
        run_replay(record, rev, use_symbols(console_of(ctx)), start=at or 0)
        return
    if with_review:
        from .review import annotate_for_replay

        record = annotate_for_replay(ctx, record)
    console = console_of(ctx)
    symbols = use_symbols(console)
    states = record.states()
    moves = record.moves
    where = f"deal {record.deal.number}" if record.deal.number is not None else "a deal given in full"
    _say(console, f"Replay of {where}, {record.rules.describe()}: {len(moves)} moves."
                  + (f" From move {at}, the position before it:" if at else ""))
    first = (at or 1) - 1
    console.print(render_state(states[first], symbols=symbols,
                               fan=waste_fan(states[: first + 1], moves[:first]), moves=False))
    echo = not sys.stdin.isatty()
    for i, move in enumerate(moves):
        if i < first:
            continue
        if not show_all:
            answer = _read("Enter: next move, q: stop ", echo)
            if answer is None and echo:
                show_all = True  # input from a pipe or file that ended: print the rest
            elif answer is None or answer.strip().lower() in ("q", "quit"):
                _say(console, f"Stopped after move {i} of {len(moves)}.")
                return
        _say(console, _move_line(i + 1, states[i], move, symbols))
        note = _annotation_text(record.annotations[i], symbols)
        if note is not None:
            _say(console, note)
        console.print(render_state(states[i + 1], symbols=symbols, fan=waste_fan(states[: i + 2], moves[: i + 1]),
                                   moves=False))
    final = states[-1]
    if final.over:
        _say(console, end_message(final))
    else:
        _say(console, f"End of the record: {_plural(final.score, 'card')} on the foundations, "
                      "the game was not finished.")
