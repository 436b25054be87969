"""``ronde serve`` and ``ronde tick``: the web app from the command line.

Django is imported only when one of these commands runs, so the rest of the
command line starts as fast as before.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer

DEMO_GM_PASSWORD = "demo-mj-ronde"
DEMO_PLAYER_PASSWORD = "demo-joueur-ronde"


def _django(sqlite: Path | None) -> None:
    if sqlite is not None:
        os.environ["RONDE_SQLITE_PATH"] = str(sqlite)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
    import django

    django.setup()


def serve_command(
    port: Annotated[int, typer.Option(help="Port HTTP.")] = 8000,
    host: Annotated[str, typer.Option(help="Adresse d'écoute.")] = "127.0.0.1",
    demo: Annotated[
        bool, typer.Option(help="Base neuve avec une partie de démonstration jouée jusqu'à J5.")
    ] = False,
    db: Annotated[
        Path | None,
        typer.Option(help="Fichier SQLite (sans DATABASE_URL). Défaut : out/web/ronde.sqlite3."),
    ] = None,
) -> None:
    """Lance le site web (MJ, joueurs, public) sur http://HOST:PORT."""
    if demo and db is None and not os.environ.get("DATABASE_URL"):
        db = Path("out/web/demo.sqlite3")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    if db is not None:
        db.parent.mkdir(parents=True, exist_ok=True)
    _django(db.resolve() if db is not None else None)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if demo:
        _demo(host, port)
    typer.echo(f"Ronde : http://{host}:{port}/  (Ctrl-C pour arrêter)")
    call_command("runserver", f"{host}:{port}", use_reloader=False, use_threading=True)


def _demo(host: str, port: int) -> None:
    from ronde.web.games import demo, service
    from ronde.web.games.models import Game

    now = service.now()
    if Game.objects.filter(slug="demo").exists():
        typer.echo("La partie de démonstration existe déjà dans cette base.")
        return
    start = (now - timedelta(days=4)).date()
    played = demo.play_until(now, start=start, seed=2026)
    game = demo.store(
        played,
        slug="demo",
        name="Ronde de démonstration",
        gm_password=DEMO_GM_PASSWORD,
        player_password=DEMO_PLAYER_PASSWORD,
        clock=Game.MANUAL,
    )
    v = service.view_for(game, "game_master")
    masked = [p for p in v["players"] if p["masked"] and p["character"] != "extra"]
    chorus = [p for p in v["players"] if not p["masked"]]
    shown = masked[:1] + (chorus[:1] or masked[1:2])
    base = f"http://{host}:{port}"
    typer.echo(f"Partie de démonstration au J{v['day']} : {base}/partie/demo/")
    typer.echo(f"  MJ      : Mj / {DEMO_GM_PASSWORD}  ->  {base}/mj/demo/")
    for p in shown:
        state = "démasqué, chœur" if not p["masked"] else p["character"]
        typer.echo(
            f"  Joueur  : {p['pseudo']} / {DEMO_PLAYER_PASSWORD}  ({state})"
            f"  ->  {base}/partie/demo/moi/"
        )


def tick_command(
    db: Annotated[Path | None, typer.Option(help="Fichier SQLite (sans DATABASE_URL).")] = None,
) -> None:
    """Applique les échéances dues de chaque partie (pour un cron : annonces à l'heure)."""
    _django(db.resolve() if db is not None else None)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("ronde_tick")
