"""The full-screen board (Textual): ``osmosis play`` and ``osmosis replay`` on a terminal.

Line mode (pipes, scripts, ``--plain``) stays in :mod:`tutor.cli.session`; the
board is a view over the same game, session and review. :func:`screen_text`
gives the screen as plain text, for tests and for the README's captures.
"""

from __future__ import annotations


def screen_text(app) -> str:
    """The app's screen as plain text (with the board under a dialog), one line per row, trailing blanks cut.

    Drawn as Textual's own ``export_screenshot`` draws it, into a recording
    console instead of an SVG.
    """
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system=None, record=True, legacy_windows=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    lines = console.export_text(styles=False).splitlines()
    return "\n".join(line.rstrip() for line in lines)
