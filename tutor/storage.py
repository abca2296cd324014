"""The data folder and how files are written there.

One home for the paths the tutor keeps (games, lesson progress, the history
database, the survey store) and for writing a file safely: through a
temporary file and a rename, so a failure never truncates the old one.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

# A temporary file of ours is ``.NAME.XXXXXXXX.tmp`` beside NAME (tempfile's
# eight random characters). One older than this was left by a killed save.
STALE_SECONDS = 15 * 60
_TMP_CHARS = "[a-z0-9_]{8}"
_TIDIED: set[Path] = set()


def data_dir() -> Path:
    """The tutor's data folder.

    ``$OSMOSIS_HOME``, else ``$XDG_DATA_HOME/osmosis-tutor``, else
    ``~/.local/share/osmosis-tutor``. A relative ``$XDG_DATA_HOME`` is ignored, as the XDG
    specification says (it would name another folder from every folder the command is run in).
    """
    home = os.environ.get("OSMOSIS_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "osmosis-tutor"


def games_dir() -> Path:
    """Where ``play`` keeps its autosaved records."""
    return data_dir() / "games"


def progress_path() -> Path:
    """The lesson progress file."""
    return data_dir() / "progress.json"


CWD_GONE = "the current folder no longer exists (it was removed): change to a folder that exists, or give a full path"


def cwd_gone() -> bool:
    """Whether the current folder was removed under the command (a relative name can then name no file)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def file_in_the_way(folder: str | os.PathLike[str]) -> Path | None:
    """The file (not a folder) that stands where ``folder`` or one of the folders above it should be, so
    that it can never be made; None when there is none (``OSMOSIS_HOME`` set to a file, say)."""
    p = Path(folder)
    for candidate in (p, *p.parents):
        try:
            if candidate.exists():
                return None if candidate.is_dir() else candidate
        except OSError:
            return None
    return None


def folder_reason(folder: str | os.PathLike[str], exc: OSError) -> str:
    """Why ``folder`` could not be made, in words: a link to a folder that is not there, a link that loops, or a
    file where it (or a folder above it) should be; mkdir said only "File exists" of all three."""
    from .textsafe import os_reason, quoted

    broken = broken_link(folder)
    if broken is not None:
        return broken
    blocked = file_in_the_way(folder)
    return f"{quoted(blocked)} is a file, not a folder" if blocked is not None else os_reason(exc)


def broken_link(folder: str | os.PathLike[str]) -> str | None:
    """``'X' is a link to 'Y', which is not there`` (or ``... a symbolic link that loops``) where ``folder`` or
    a folder above it is such a link; None where there is none."""
    from .textsafe import quoted

    for candidate in (Path(folder), *Path(folder).parents):
        try:
            if candidate.is_symlink() and not candidate.exists():
                try:
                    os.stat(candidate)
                except OSError as err:
                    if err.errno == errno.ELOOP:
                        return f"{quoted(candidate)} is a symbolic link that loops"
                return f"{quoted(candidate)} is a link to {quoted(os.readlink(candidate))}, which is not there"
            if candidate.exists():
                return None
        except (OSError, ValueError):
            return None
    return None


def _check_name(p: Path) -> None:
    if "\0" in str(p):
        raise OSError(errno.EINVAL, "a file name cannot hold a NUL character")


def _write_synced(fd: int, text: str) -> None:
    """Write ``text`` to the open file ``fd`` and sync it to the disk before it is named or renamed."""
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


#: The longest file name most file systems take (bytes), and what a temporary name adds to the one it is for:
#: the dot before it, the dot and eight random characters after it, ".tmp".
NAME_MAX = 255
_TEMP_EXTRA = 14


def temp_prefix(name: str) -> str:
    """The prefix of a temporary file for the file ``name`` (``.NAME.``; then mkstemp's random part and
    ``.tmp``), ``NAME`` cut to fit the name limit: a legal name of 242-255 bytes made every save of it fail
    ("File name too long")."""
    room = NAME_MAX - _TEMP_EXTRA
    cut = name
    while len(os.fsencode(cut)) > room:
        cut = cut[:-1]
    return f".{cut}."


def _write_temp(p: Path, text: str) -> str:
    """A fully written and synced temporary file beside ``p``; its name."""
    directory = p.parent if str(p.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(p.name), suffix=".tmp", dir=directory)
    try:
        _write_synced(fd, text)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(name: str | os.PathLike[str]) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a file through a temporary file and a rename, so a failure never truncates it.

    Raises OSError (a NUL character in the name is one too). After a good
    write, temporary files that a killed save of the same file left behind
    are removed.
    """
    p = Path(path)
    _check_name(p)
    check_writable_target(p)  # as named, through any link: /dev/stdout on a pipe is a pipe
    if p.is_symlink():
        p = Path(os.path.realpath(p))  # write the file the link points to, and keep the link
    check_writable_target(p)
    tmp = _write_temp(p, text)
    try:
        _chmod(tmp, _mode_for(p))  # mkstemp makes it 0600: keep the old file's mode, or the umask's
        os.replace(tmp, p)
    except BaseException:
        _unlink(tmp)
        raise
    if p not in _TIDIED:  # once per file and process: a game saves after every move
        _TIDIED.add(p)
        remove_stale_temps(p)


def keep_mode(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Give a temporary file about to replace ``target`` the mode ``target`` has, or the umask's for a new one
    (mkstemp makes it 0600, and a published file read by others became owner-only)."""
    _chmod(str(tmp), _mode_for(Path(target)))


def _mode_for(p: Path) -> int:
    """The permission bits a saved file gets: those of the file it replaces, else :func:`_new_mode`."""
    try:
        return stat.S_IMODE(os.stat(p).st_mode)
    except OSError:
        return _new_mode()


def _chmod(name: str, mode: int) -> None:
    """Set a file's mode where the file system keeps modes (a FAT stick may refuse it: the save goes on)."""
    try:
        os.chmod(name, mode)
    except OSError:
        pass


def _new_mode() -> int:
    """What ``open`` gives a new file: 0666 less the process's umask (read from /proc where it can be, as
    setting the umask to read it is not safe beside other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            mask = next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def folder_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive lock on the folder of ``path`` (``flock``) while checking and writing a file there, so
    two processes saving the same file take turns: the second sees what the first wrote. Where locks are
    not to be had (another system, a file system without them) the block runs unlocked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)) or ".", os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # closing the last descriptor lets the lock go


def record_files(folder: Path) -> list[Path]:
    """The ``*.json`` files in ``folder``; none where there is no such folder. An OSError where it is a folder
    that cannot be read: ``Path.glob`` took that for an empty one, and the history's first look at the games
    folder was marked done with none of its games in it, for good."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [folder / name for name in names if name.endswith(".json")]


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an existing regular file (not a pipe, device or folder)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def unreadable(path: str | os.PathLike[str]) -> str | None:
    """Why the regular file at ``path`` cannot be read (``Permission denied``), or None (readable, or none
    there). A file whose content cannot be checked is never written over: it may be a game or a backup."""
    if not is_regular_file(path):
        return None
    try:
        with open(path, "rb"):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def _link_chain(path: str | os.PathLike[str], hops: int = 40) -> list[str]:
    """``path`` as an absolute name (".." taken as written), then each name a symbolic link on the way leads to,
    one hop at a time (a loop or a dangling link ends the chain; the system says so when the file is opened)."""
    name = os.path.abspath(path)
    chain = [name]
    for _ in range(hops):
        folder = os.path.realpath(os.path.dirname(name))
        here = os.path.join(folder, os.path.basename(name))
        chain.append(here)
        try:
            target = os.readlink(here)
        except OSError:  # not a link (or not there): the end of the chain
            break
        name = os.path.abspath(os.path.join(folder, target))
        chain.append(name)
    return chain


def check_writable_target(path: str | os.PathLike[str]) -> None:
    """Refuse to replace anything but a regular file: a save to ``/dev/null`` or a pipe must not swap it out.

    A name under ``/dev`` or ``/proc`` is a device or one of this program's streams even where it leads to a
    regular file (``/dev/stdout`` with the output sent to a file): replacing that file would throw away what
    it held, and an append (``>>``) with it. ``/dev/shm`` is the exception: a folder of plain files in memory."""
    stream = OSError(errno.EINVAL, "it is a device or a stream of this program, not a file: give a file name")
    if _in_dev(os.path.abspath(path)):
        raise stream
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder: give a file name")
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "it is not a regular file (a device or a pipe): give a file name")
    # a regular file reached through a link to /proc/self/fd/1 (or /dev/stdout) is that stream's file too
    if any(_in_dev(name) for name in _link_chain(path)):
        raise stream


def _in_dev(name: str) -> bool:
    """Whether an absolute ``name`` lies under /dev or /proc: a device or a stream. /dev/shm is the exception,
    a folder of plain files in memory (tmpfs)."""
    parts = Path(name).parts
    return parts[1:2] in (("dev",), ("proc",)) and parts[1:3] != ("dev", "shm")


def create_new_file(directory: Path, stem: str, suffix: str, text: str) -> Path:
    """Write ``text`` to a new file ``stem{suffix}`` (or ``stem-2{suffix}``, ...) that no one else has.

    The name is taken atomically: the full text is written to a temporary
    file which is then hard-linked to the name, and a link never replaces a
    file, so two processes starting at the same moment get two files and no
    one sees a half-written one. Where hard links are not supported, the file
    is created with ``O_EXCL``.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(directory / f"{stem}{suffix}", text)
    try:
        _chmod(tmp, _new_mode())  # mkstemp makes it 0600; the links share its mode
        for n in range(1, 10_000):
            path = directory / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
            try:
                os.link(tmp, path)
                return path
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
            try:  # no hard links here: take the name with O_EXCL and write it
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            try:
                _write_synced(fd, text)
            except BaseException:
                _unlink(path)
                raise
            return path
        raise OSError(errno.EEXIST, f"no free file name for {stem}{suffix}")
    finally:
        _unlink(tmp)


def lock_file(fh: IO[bytes], wait: bool = True) -> bool:
    """An exclusive lock on the open file (released when it is closed, or its process ends); False when
    another process holds one (``wait`` False) or locks do not exist here."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def remove_stale_temps(path: str | os.PathLike[str], older_than: float = STALE_SECONDS,
                       locked: bool = False) -> list[Path]:
    """Remove the temporary files of ours (``.NAME.XXXXXXXX.tmp``) that a killed save of ``path`` left.

    With ``path`` a directory, those of every file in it. Only files older
    than ``older_than`` seconds go: a younger one may belong to a save in
    progress. ``locked``: the writer holds a lock on its file (:func:`lock_file`) while it writes, so only one
    whose lock can be taken goes, whatever its age beyond ``older_than`` (a gzip survey's file goes unwritten
    for minutes). Returns what was removed; errors are ignored (this is tidying).
    """
    p = Path(path)
    try:
        is_dir = p.is_dir()
    except (OSError, ValueError):
        return []
    if is_dir:
        directory, pattern = p, re.compile(rf"\..+\.{_TMP_CHARS}\.tmp")
    else:
        directory = p.parent if str(p.parent) else Path(".")
        pattern = re.compile(rf"{re.escape(temp_prefix(p.name))}{_TMP_CHARS}\.tmp")
    removed: list[Path] = []
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not pattern.fullmatch(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime > older_than:
                if locked:
                    with open(entry.path, "rb") as fh:
                        if not lock_file(fh, wait=False):
                            continue  # its writer is still at it
                        os.unlink(entry.path)
                else:
                    os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def set_aside(path: Path, when: float | None = None) -> Path:
    """Move a damaged database out of the way, its ``-wal`` and ``-shm`` files with it: ``NAME.damaged-<time>``.

    Returns the new name (``-2``, ``-3`` ... added when one of that time exists). Raises OSError when
    the file itself cannot be moved; a side file that cannot is left.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if when is None else when))
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = Path(str(path) + suffix)
        if side.exists():
            try:
                os.replace(side, Path(str(aside) + suffix))
            except OSError:
                pass
    return aside


def damaged_database(exc: Exception) -> bool:
    """Whether an SQLite error means the file itself is bad (not merely locked by another process)."""
    name = getattr(exc, "sqlite_errorname", "")
    return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "malformed" in str(exc) or "not a database" in str(exc)
