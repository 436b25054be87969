"""Backups of the web app's database: SQLite's online backup API (a consistent copy while
the server runs); PostgreSQL has pg_dump."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path

from ronde.failures import os_error
from ronde.web.paths import private_folder

PG_HELP = (
    "La base est PostgreSQL : sauvegardez-la avec pg_dump, qui fait une copie cohérente "
    "pendant que le serveur tourne :\n"
    '  pg_dump --format=custom --file=ronde-$(date +%F).dump "$DATABASE_URL"\n'
    "et restaurez-la (serveur arrêté) avec :\n"
    '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" ronde-AAAA-MM-JJ.dump\n'
    "puis `ronde manage migrate`."
)


class BackupError(Exception):
    """A backup or restore that cannot be done, with a French message."""


def _database() -> tuple[str, Path | None]:
    from django.db import connections

    conn = connections["default"]
    if conn.vendor != "sqlite":
        return conn.vendor, None
    return "sqlite", Path(str(conn.settings_dict["NAME"]))


def default_name(folder: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return folder / "sauvegardes" / f"ronde-{stamp}.sqlite3"


def backup(dest: Path) -> Path:
    """A consistent copy of the SQLite database in ``dest`` (written aside, then renamed).
    ``dest`` may be a folder: the copy is then ``ronde-DATE.sqlite3`` inside it.

    The copy is readable by its owner only from its first byte: the file is made 0600
    before SQLite writes into it, under a umask of 077 (SQLite's journal too), in a
    folder made 0700."""
    vendor, path = _database()
    if path is None:
        raise BackupError(PG_HELP if vendor == "postgresql" else f"Base {vendor} : pg_dump ?")
    if not path.exists():
        raise BackupError(f"Base introuvable : {path}")
    dest = dest.expanduser().resolve()
    if dest.is_dir():
        dest = dest / default_name(dest).name
    old_umask = os.umask(0o077)
    try:
        return _copy(path, dest)
    except OSError as exc:
        raise BackupError(f"{dest} : écriture impossible ({os_error(exc)}).") from None
    finally:
        os.umask(old_umask)


def _copy(path: Path, dest: Path) -> Path:
    if not dest.parent.exists():
        private_folder(dest.parent)
    part = dest.with_name(dest.name + ".partiel")
    part.unlink(missing_ok=True)
    # the file exists, empty and private, before a byte of the database is in it
    os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    source = sqlite3.connect(path, timeout=30)
    try:
        target = sqlite3.connect(part)
        try:
            source.backup(target)  # one step: one read transaction, one snapshot
            ok = target.execute("PRAGMA quick_check").fetchone()
        finally:
            target.close()
    finally:
        source.close()
    if not ok or ok[0] != "ok":
        part.unlink(missing_ok=True)
        raise BackupError(f"Copie incohérente ({ok}) : recommencez.")
    os.chmod(part, 0o600)
    part.replace(dest)
    return dest


def _check_backup(source: Path) -> None:
    try:
        conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA quick_check").fetchone()
            tables = {
                row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{source} n'est pas une sauvegarde de Ronde ({exc}).") from None
    if not ok or ok[0] != "ok" or "games_game" not in tables:
        raise BackupError(f"{source} n'est pas une sauvegarde de Ronde lisible.")


def restore(source: Path, safety_folder: Path) -> Path | None:
    """Replace the SQLite database by the backup ``source`` (the server should be stopped).
    The current database is first saved in ``safety_folder``; returns that copy."""
    vendor, path = _database()
    if path is None:
        raise BackupError(PG_HELP if vendor == "postgresql" else f"Base {vendor} : pg_restore ?")
    source = source.expanduser().resolve()
    if not source.is_file():
        raise BackupError(f"Fichier introuvable : {source}")
    _check_backup(source)
    saved = None
    if path.exists():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        private_folder(safety_folder)
        saved = backup(safety_folder / f"avant-restauration-{stamp}.sqlite3")
    private_folder(path.parent)
    from django.db import connections

    connections["default"].close()
    old_umask = os.umask(0o077)  # a database made anew is private from its first byte
    try:
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            dst = sqlite3.connect(path, timeout=30)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
    finally:
        os.umask(old_umask)
    return saved
