"""Paths given on the command line, treated one way by every command (issue 20).

A command writes the file (or the folder of plots) it is given, in a folder that exists: it never
creates missing folders on the way, and it says so in the same sentence whichever option named
the path (``par -o``, ``risk --plot``, ``design -o``, ``count --out``, an SQLite file of ``serve
--database-url``). Only the default database folder, ``./var/``, is made on demand, as the
README says.

>>> output_file(Path("/no/dir/par.html"), option="--out")
Traceback (most recent call last):
...
puntobanco.errors.PuntoBancoError: Cannot write /no/dir/par.html: the folder /no/dir does not exist.
"""

from __future__ import annotations

from pathlib import Path

from puntobanco.errors import PuntoBancoError


def _folder_exists(path: Path) -> None:
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise PuntoBancoError(f"Cannot write {path}: the folder {folder} {what}.",
                              code="bad-out")


def output_file(path: Path, *, option: str, suffixes: tuple[str, ...] = ()) -> Path:
    """A file a command is about to write: not a folder, in a folder that exists, and (when
    ``suffixes`` are given) named with one of them, so that what is written is what is named.

    >>> output_file(Path("risk.txt"), option="--plot", suffixes=(".png", ".svg"))
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: --plot writes a .png or .svg file; 'risk.txt' is not one.
    """
    if suffixes and path.suffix.lower() not in suffixes:
        names = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}" if len(suffixes) > 1 \
            else suffixes[0]
        raise PuntoBancoError(f"{option} writes a {names} file; {str(path)!r} is not one.",
                              code="bad-out")
    if path.is_dir():
        raise PuntoBancoError(f"{option} {path} is a folder; give a file name.", code="bad-out")
    _folder_exists(path)
    return path


def output_folder(path: Path, *, option: str) -> Path:
    """A folder a command writes files into: made if missing, inside a folder that exists."""
    if path.exists() and not path.is_dir():
        raise PuntoBancoError(f"{option} {path} is a file, not a folder.", code="bad-out")
    if not path.exists():
        _folder_exists(path)
    return path


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (``None`` for another database or an in-memory one)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # the server's own check says what is wrong with it
    if parsed.get_backend_name() != "sqlite" or not parsed.database or \
            parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def database_folder(url: str) -> None:
    """An SQLite file given by ``--database-url`` lies in a folder that exists."""
    path = sqlite_file(url)
    if path is not None and not path.parent.is_dir():
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise PuntoBancoError(f"Cannot open the database {path}: the folder {path.parent} "
                              f"{what}.", code="bad-database")


def read_text(path: Path, *, what: str) -> str:
    """The text of a file a command reads (``replay --cards-file``, ``verify --shoe-file``), or
    one sentence of the same form for every command: ``Cannot read the cards file 'x': …``.

    >>> read_text(Path("/no/such/file"), what="the cards file")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: Cannot read the cards file '/no/such/file': No such file or directory.
    """
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        reason = "not a UTF-8 text file"
    except IsADirectoryError:
        reason = "it is a folder"
    except OSError as error:
        reason = error.strerror or str(error)
    raise PuntoBancoError(f"Cannot read {what} {str(path)!r}: {reason}.", code="bad-file")
