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
    except (MemoryError, ImportError) as exc:
        _out_of_memory(exc)
    try:
        main()
    except (MemoryError, ImportError, SystemError) as exc:  # outside a command's own handler (its modules load)
        _out_of_memory(exc)


def _out_of_memory(exc: BaseException) -> None:
    """A memory limit (``ulimit -v``) too low to load the tutor (a library that cannot be mapped is an
    ImportError) or to go on (Python's calls return with no exception set, a SystemError) in the one line a
    command that runs out of memory gives; any other ImportError or SystemError as it is."""
    if isinstance(exc, ImportError) and not any(
            words in str(exc) for words in ("failed to map segment", "Cannot allocate memory")):
        raise exc
    # Python's own calls failing with no exception set: what a memory limit does to it (ulimit -v, solve --graph)
    if isinstance(exc, SystemError) and "without" not in str(exc):
        raise exc
    sys.stderr.write("error: the command ran out of memory: raise the memory limit (ulimit -v) or free some "
                     "memory, and run it again\n")
    sys.exit(1)
