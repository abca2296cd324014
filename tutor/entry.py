"""The ``osmosis`` command's entry point: the CLI, with a Ctrl-C while its modules load said in one line.

Loading the command's modules takes about half a second; a Ctrl-C in that time would end in a Python
traceback. Once the CLI runs, it handles Ctrl-C itself (``interrupted``, exit status 130).
"""

from __future__ import annotations

import sys


def run() -> None:
    from .textsafe import encodable_streams

    # a C locale or PYTHONIOENCODING=ascii: ASCII stand-ins on stdout (stderr keeps Python's \u escapes)
    encodable_streams(sys.stdout)
    try:
        from .cli import main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    main()
