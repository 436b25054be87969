"""An error a command did not foresee, said in one French line with an exit status
(``ronde``'s last resort: never a traceback, never a local variable).

Exit status: 2 for what the host can fix (the configuration, the database, a file,
a missing optional part), 3 for anything else (a bug: rerun with ``RONDE_TRACEBACK=1``
for the traceback).
"""

from __future__ import annotations

import errno
import os
import re

#: errno -> French
OS_ERRORS = {
    errno.ENOENT: "fichier ou dossier introuvable",
    errno.EACCES: "permission refusée",
    errno.EPERM: "opération non permise",
    errno.EISDIR: "c'est un dossier",
    errno.ENOTDIR: "un élément du chemin n'est pas un dossier",
    errno.ENOSPC: "plus de place sur le disque",
    errno.EROFS: "système de fichiers en lecture seule",
    errno.EEXIST: "existe déjà",
    errno.EADDRINUSE: "adresse déjà utilisée",
    errno.EADDRNOTAVAIL: "adresse indisponible sur cette machine",
    errno.ECONNREFUSED: "connexion refusée",
}


def os_error(exc: OSError) -> str:
    what = OS_ERRORS.get(exc.errno or 0) or (exc.strerror or type(exc).__name__)
    return f"{exc.filename} : {what}" if exc.filename else what


def _without_password(text: str) -> str:
    """``text`` without the password of DATABASE_URL (nor any ``password=...``)."""
    url = os.environ.get("DATABASE_URL", "")
    match = re.match(r"^[a-z0-9+]+://[^:/@]*:([^@]*)@", url)
    if match and match.group(1):
        text = text.replace(match.group(1), "***")
    return re.sub(r"(password\s*=\s*)\S+", r"\1***", text, flags=re.IGNORECASE)


def first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return _without_password(lines[0] if lines else type(exc).__name__)


def database_error(exc: BaseException) -> str:
    """A database that cannot be reached or does not exist, in one line."""
    # (lazy: Django's settings are read only once a command has set them up)
    from django.conf import settings

    db = settings.DATABASES["default"]
    if str(db.get("ENGINE", "")).endswith("sqlite3"):
        where = f"SQLite {db.get('NAME')}"
    else:
        where = f"PostgreSQL {db.get('HOST') or 'local'}:{db.get('PORT') or 5432}/{db.get('NAME')}"
    reason = first_line(exc)
    if "does not exist" in reason:
        reason = "cette base n'existe pas (créez-la : docs/hosting.md)"
    elif "Connection refused" in reason or "could not connect" in reason:
        reason = "le serveur ne répond pas"
    elif "password authentication failed" in reason:
        reason = "mot de passe refusé"
    return f"base de données injoignable ({where}) : {reason}. Vérifiez DATABASE_URL."


def explain(exc: Exception) -> tuple[str, int]:
    """(a French line, the exit status) for ``exc``."""
    # (lazy: Django may not be installed in the command's path... it is, but the
    # configuration's error class needs no setup)
    from django.core.exceptions import ImproperlyConfigured
    from django.db import DatabaseError, OperationalError

    if isinstance(exc, ImproperlyConfigured):
        return first_line(exc), 2
    if isinstance(exc, OperationalError):
        return database_error(exc), 2
    if isinstance(exc, DatabaseError):
        return f"erreur de la base de données : {first_line(exc)}", 2
    if isinstance(exc, OSError):
        return os_error(exc), 2
    if isinstance(exc, MemoryError):
        return "mémoire insuffisante pour cette commande", 2
    return (
        f"erreur inattendue ({type(exc).__name__}). Relancez avec RONDE_TRACEBACK=1 pour "
        "le détail, et signalez-la.",
        3,
    )
