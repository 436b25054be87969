"""Where the web app keeps its files (read before Django starts)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """The data folder: ``RONDE_DATA_DIR``, else the per-user data folder of platformdirs
    (``~/.local/share/ronde`` on Linux), never the current folder. Always absolute."""
    configured = os.environ.get("RONDE_DATA_DIR", "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    return Path(platformdirs.user_data_dir("ronde", appauthor=False)).resolve()


def sqlite_path() -> Path:
    """The SQLite database when ``DATABASE_URL`` is not set."""
    configured = os.environ.get("RONDE_SQLITE_PATH", "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    return data_dir() / "ronde.sqlite3"


def private_folder(path: Path) -> Path:
    """``path`` made (with its parents) and narrowed to its owner (0700): the data folder and
    its backups hold every secret of every game. A folder of another owner is left as it is."""
    old = os.umask(0o077)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    finally:
        os.umask(old)
    info = path.stat()
    if info.st_uid == os.geteuid() and info.st_mode & 0o077:
        path.chmod(0o700)
    return path
