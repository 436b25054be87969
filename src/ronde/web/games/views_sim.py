"""The console's page of simulated house rules (issue 29): how to compare house rules
with ``ronde simulate --compare``, and the report of this game's last comparison.

A report is shown from its raw figures only (``parties.csv``), read and checked by
:func:`ronde.simreport.read_csv` and drawn by our own code (every text escaped): an
uploaded HTML file is never shown. The figures are kept in the data folder, under
``simulations/<slug>/parties.csv``, where ``ronde simulate --report`` can also write
them on the server.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from ronde.engine.options import HOUSE_RULES
from ronde.simreport import MAX_CSV_BYTES, ReportError, html_fragment, read_csv

from .access import gm_page
from .models import Game, GameMaster


def report_folder(game: Game) -> Path:
    """Where this game's comparison is kept (``ronde simulate --report`` may write it)."""
    return Path(settings.DATA_DIR) / "simulations" / game.slug


def _save(folder: Path, text: str) -> None:
    """Replace the figures at once (a reader sees the old file or the new one)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, folder / "parties.csv")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@gm_page
def simulations(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    folder = report_folder(game)
    error = ""
    if request.method == "POST":
        upload = request.FILES.get("report")
        if upload is None:
            error = _("Choisissez le fichier parties.csv d'une simulation.")
        elif upload.size is None or upload.size > MAX_CSV_BYTES:
            error = _("Fichier trop gros pour un rapport de simulation.")
        else:
            try:
                text = upload.read().decode("utf-8-sig")
                read_csv(text)
            except UnicodeDecodeError:
                error = _("Ce fichier n'est pas un CSV en UTF-8.")
            except ReportError as exc:
                error = str(exc)
            else:
                _save(folder, text)
                return redirect("gm_simulations", slug=game.slug)
    report = ""
    problem = ""
    path = folder / "parties.csv"
    if path.is_file():
        try:
            run = read_csv(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, ReportError) as exc:
            problem = str(exc) if isinstance(exc, ReportError) else _("Rapport illisible.")
        else:
            # (every text of the fragment is escaped by html_fragment; numbers are ours)
            report = mark_safe(html_fragment(run))
    chosen = [
        f"{rid}={value}"
        for rid, value in (game.options or {}).items()
        if rid in HOUSE_RULES and value != HOUSE_RULES[rid][0]
    ]
    return render(
        request,
        "games/gm_simulations.html",
        {
            "game": game,
            "gm": gm,
            "error": error,
            "problem": problem,
            "report": report,
            "chosen": " ".join(chosen) if chosen else "A9=grace_60 A17=continue",
            "folder": str(folder),
        },
    )
