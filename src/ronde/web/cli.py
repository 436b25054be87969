"""The web app from the command line: ``ronde serve``, ``tick``, ``manage``, ``backup``,
``restore`` and ``organiser``.

Django is imported only when one of these commands runs, so the rest of the
command line starts as fast as before.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from ronde.engine.names import french_name

DEMO_GM_PASSWORD = "demo-mj-ronde"
DEMO_PLAYER_PASSWORD = "demo-joueur-ronde"


def _django(sqlite: Path | None = None) -> None:
    if sqlite is not None:
        os.environ["RONDE_SQLITE_PATH"] = str(sqlite)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
    import django

    django.setup()


def _where() -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"SQLite {db['NAME']}"
    return f"PostgreSQL {db.get('HOST') or 'local'}/{db.get('NAME')}"


def serve_command(
    port: Annotated[int, typer.Option(help="Port HTTP.")] = 8000,
    host: Annotated[str, typer.Option(help="Adresse d'écoute.")] = "127.0.0.1",
    demo: Annotated[
        bool,
        typer.Option(
            help="Base de démonstration neuve (dossier de données, demo.sqlite3) avec une "
            "partie jouée jusqu'à J5 ; serveur de développement."
        ),
    ] = False,
    dev: Annotated[
        bool, typer.Option(help="Serveur de développement de Django (jamais sur internet).")
    ] = False,
    threads: Annotated[
        int, typer.Option(min=1, max=256, help="Fils de traitement par processus.")
    ] = 8,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Processus (Linux : plus d'un lance gunicorn ; ailleurs, waitress à un "
            "processus). Avec plusieurs serveurs ou processus, réglez RONDE_CACHE_URL.",
        ),
    ] = 1,
    db: Annotated[
        Path | None,
        typer.Option(help="Fichier SQLite (sans DATABASE_URL). Défaut : le dossier de données."),
    ] = None,
) -> None:
    """Lance le site web (MJ, joueurs, public) sur http://HOST:PORT (waitress, ou gunicorn
    avec --workers). La base doit être à jour : « ronde manage migrate » d'abord."""
    from ronde.web.paths import data_dir

    if workers > 1 and not sys.platform.startswith("linux"):
        typer.echo(
            "Erreur : --workers plus grand que 1 demande Linux (gunicorn) ; ailleurs, un "
            "processus waitress (--threads pour plus de fils).",
            err=True,
        )
        raise typer.Exit(2)
    _check_port(host, port)
    if demo or dev:
        os.environ["RONDE_STATIC_FINDERS"] = "1"  # static files straight from the package
    if demo and db is None and not os.environ.get("DATABASE_URL"):
        db = data_dir() / "demo.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    if db is not None:
        db = db.expanduser().resolve()
        db.parent.mkdir(parents=True, exist_ok=True)
    _django(db)
    from django.conf import settings
    from django.core.management import call_command

    from ronde.web import migrating

    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)

    if demo or dev:
        migrating.migrate(verbosity=0)  # a fresh demo or a developer's own database
    else:
        _require_migrated()
    if demo:
        _demo(host, port)
    typer.echo(f"Base : {_where()}")
    _notifications(host, port, start=workers == 1)
    if demo or dev:
        typer.echo(f"Ronde : http://{host}:{port}/  (Ctrl-C pour arrêter)")
        call_command("runserver", f"{host}:{port}", use_reloader=False, use_threading=True)
        return
    call_command("collectstatic", interactive=False, verbosity=0)
    from ronde.web.wsgi import application

    proxy = os.environ.get("RONDE_PROXY_ADDRESS", "127.0.0.1")
    if workers > 1:
        if not settings.CACHE_URL:
            typer.echo(
                "Attention : sans RONDE_CACHE_URL, chaque processus garde ses sessions en "
                "mémoire une minute (une déconnexion n'est vue par les autres qu'ensuite).",
                err=True,
            )
        typer.echo(
            f"Ronde : http://{host}:{port}/  (gunicorn, {workers} processus de {threads} "
            "fils ; Ctrl-C pour arrêter)"
        )
        _gunicorn(application, host, port, workers, threads, proxy if settings.HTTPS_PROXY else "")
        return
    import waitress

    typer.echo(f"Ronde : http://{host}:{port}/  (waitress, {threads} fils ; Ctrl-C pour arrêter)")
    if settings.HTTPS_PROXY:
        # waitress drops X-Forwarded-* headers unless they come from the proxy's address
        waitress.serve(
            application,
            host=host,
            port=port,
            threads=threads,
            ident="Ronde",
            trusted_proxy=proxy,
            trusted_proxy_headers={"x-forwarded-proto", "x-forwarded-for"},
            trusted_proxy_count=1,
        )
    else:
        waitress.serve(application, host=host, port=port, threads=threads, ident="Ronde")


def _check_port(host: str, port: int) -> None:
    """Stop with one French line if ``host:port`` cannot be listened on (busy, or an address
    this machine does not have), before anything is loaded."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        typer.echo(f"Erreur : adresse d'écoute inconnue : {host} (--host).", err=True)
        raise typer.Exit(2) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                message = (
                    f"le port {port} est déjà utilisé sur {host} (un autre serveur y tourne) : "
                    "arrêtez-le ou choisissez un autre port avec --port."
                )
            elif exc.errno == errno.EACCES:
                message = f"le port {port} est réservé (au-dessous de 1024) : prenez --port 8000."
            else:
                message = f"impossible d'écouter sur {host}:{port} (--host, --port)."
            typer.echo(f"Erreur : {message}", err=True)
            raise typer.Exit(2) from None


def _start_notifications(_server: Any, _worker: Any) -> None:
    from ronde.web.games import notify

    notify.start_worker()


def _require_migrated() -> None:
    from ronde.web import migrating

    try:
        migrating.require_migrated()
    except migrating.NotMigrated as exc:
        typer.echo(f"Erreur : {exc}", err=True)
        raise typer.Exit(2) from None


def _gunicorn(
    application: Any, host: str, port: int, workers: int, threads: int, proxy: str
) -> None:
    """Serve ``application`` with gunicorn: ``workers`` processes of ``threads`` threads."""
    from django.conf import settings
    from django.db import connections
    from gunicorn.app.base import BaseApplication

    connections.close_all()  # (no connection of the master is shared by its workers)
    options: dict[str, Any] = {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "threads": threads,
        "worker_class": "gthread" if threads > 1 else "sync",
        "proc_name": "ronde",
        "errorlog": "-",
        "accesslog": None,  # the application writes its own (ronde.access)
        "loglevel": str(settings.LOG_LEVEL).lower(),
        "timeout": 120,
        "graceful_timeout": 30,
        "forwarded_allow_ips": proxy or "127.0.0.1",
        "secure_scheme_headers": {"X-FORWARDED-PROTO": "https"} if proxy else {},
        # gunicorn >= 25 opens a control socket in the home folder (none under systemd)
        "control_socket_disable": True,
        # each worker process runs its own notification worker (ronde.web.games.notify)
        "post_fork": _start_notifications,
    }

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings:  # (a setting of this gunicorn's version)
                    self.cfg.set(key, value)

        def load(self) -> Any:
            return application

    Server().run()


def _notifications(host: str, port: int, *, start: bool = True) -> None:
    """Start the server's notification worker (e-mail, Web Push: sent after each commit,
    retried, reminders of deadlines); links in e-mails use RONDE_SITE_URL, or this server.
    ``start=False`` (gunicorn): each worker process starts its own after the fork (a
    thread does not cross a fork; the outbox's leases keep them from sending twice)."""
    from django.conf import settings

    from ronde.web.games import notify

    if not settings.SITE_URL:
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        settings.SITE_URL = f"http://{shown}:{port}"
    if start:
        notify.start_worker()


def _demo(host: str, port: int) -> None:
    from ronde.web.games import accounts, demo, service
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
    first_gm = game.game_masters.select_related("user").first()
    if first_gm is not None and first_gm.user is not None:
        first_gm.user.user_permissions.add(accounts.organise_permission())
    v = service.view_for(game, "game_master")
    masked = [p for p in v["players"] if p["masked"] and p["character"] != "extra"]
    chorus = [p for p in v["players"] if not p["masked"]]
    shown = masked[:1] + (chorus[:1] or masked[1:2])
    usernames = {
        m.pseudo: m.user.get_username() for m in game.memberships.select_related("user") if m.user
    }
    base = f"http://{host}:{port}"
    typer.echo(f"Partie de démonstration au J{v['day']} : {base}/partie/demo/")
    typer.echo(f"  MJ      : Mj / {DEMO_GM_PASSWORD}  ->  {base}/mj/demo/")
    for p in shown:
        state = "démasqué, chœur" if not p["masked"] else french_name(p["character"])
        typer.echo(
            f"  Joueur  : {usernames.get(p['pseudo'], p['pseudo'])} / {DEMO_PLAYER_PASSWORD}"
            f"  ({state})  ->  {base}/partie/demo/moi/"
        )


def _require_database() -> None:
    """Refuse to work on a SQLite file that does not exist (a cron in another folder, a
    wrong RONDE_DATA_DIR) instead of creating an empty one."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3") and not Path(str(db["NAME"])).exists():
        typer.echo(
            f"Base introuvable : {db['NAME']}. Le serveur et cette commande doivent voir la "
            "même base : vérifiez RONDE_DATA_DIR (ou DATABASE_URL) dans leur environnement.",
            err=True,
        )
        raise typer.Exit(2)


def tick_command(
    db: Annotated[Path | None, typer.Option(help="Fichier SQLite (sans DATABASE_URL).")] = None,
) -> None:
    """Applique les échéances dues de chaque partie (pour un cron : annonces à l'heure)."""
    _django(db.expanduser().resolve() if db is not None else None)
    _require_database()
    _require_migrated()
    from django.core.management import call_command

    call_command("ronde_tick")


def manage_command(ctx: typer.Context) -> None:
    """Les commandes de gestion de Django : createsuperuser, migrate, collectstatic,
    check --deploy, changepassword, shell ... (ronde manage help : la liste)."""
    _django()
    from django.core.management import execute_from_command_line

    execute_from_command_line(["ronde manage", *ctx.args])


MANAGE_SETTINGS = {"allow_extra_args": True, "ignore_unknown_options": True}


def backup_command(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Fichier de la copie. Défaut : sauvegardes/ronde-DATE.sqlite3 dans le "
            "dossier de données.",
        ),
    ] = None,
) -> None:
    """Copie cohérente de la base pendant que le serveur tourne (SQLite ; PostgreSQL : pg_dump)."""
    _django()
    from django.conf import settings

    from ronde.web import backup
    from ronde.web.paths import private_folder

    try:
        if output is None:  # the data folder's backups: readable by the owner only
            private_folder(settings.DATA_DIR / "sauvegardes")
        path = backup.backup(output or backup.default_name(settings.DATA_DIR))
    except backup.BackupError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Sauvegarde : {path}")


def restore_command(
    source: Annotated[Path, typer.Argument(help="Une copie faite par ronde backup.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Sans confirmation.")] = False,
) -> None:
    """Remplace la base par une sauvegarde (arrêtez le serveur d'abord). La base actuelle
    est d'abord copiée dans sauvegardes/ du dossier de données."""
    _django()
    from django.conf import settings
    from django.core.management import call_command

    from ronde.web import backup

    if not yes and not typer.confirm(f"Remplacer {_where()} par {source} ?"):
        raise typer.Exit(1)
    try:
        saved = backup.restore(source, settings.DATA_DIR / "sauvegardes")
    except backup.BackupError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    if saved is not None:
        typer.echo(f"Ancienne base copiée dans {saved}")
    call_command("migrate", verbosity=0)
    typer.echo(f"Base restaurée depuis {source}.")


organiser_app = typer.Typer(
    help="Les organisateurs : les comptes qui peuvent créer des parties (permission "
    "games.organise ; le superutilisateur l'a toujours).",
    no_args_is_help=True,
)


def _user(name: str):  # type: ignore[no-untyped-def]
    from ronde.web.games.accounts import find_user

    user = find_user(name)
    if user is None:
        typer.echo(f"Compte inconnu : {name}", err=True)
        raise typer.Exit(1)
    return user


@organiser_app.command("add")
def organiser_add(username: Annotated[str, typer.Argument(help="Identifiant du compte.")]) -> None:
    """Donne à un compte le droit de créer des parties."""
    _django()
    from ronde.web.games.accounts import organise_permission

    user = _user(username)
    user.user_permissions.add(organise_permission())
    typer.echo(f"{user.get_username()} peut créer des parties.")


@organiser_app.command("remove")
def organiser_remove(
    username: Annotated[str, typer.Argument(help="Identifiant du compte.")],
) -> None:
    """Retire ce droit (les parties déjà créées restent à leurs MJ)."""
    _django()
    from ronde.web.games.accounts import organise_permission

    user = _user(username)
    user.user_permissions.remove(organise_permission())
    typer.echo(f"{user.get_username()} ne peut plus créer de parties.")


@organiser_app.command("list")
def organiser_list() -> None:
    """Les comptes qui peuvent créer des parties."""
    _django()
    from django.contrib.auth.models import User
    from django.db.models import Q

    from ronde.web.games.accounts import organise_permission

    perm = organise_permission()
    users = User.objects.filter(
        Q(is_superuser=True) | Q(user_permissions=perm) | Q(groups__permissions=perm)
    ).distinct()
    for user in users.order_by("username"):
        note = " (superutilisateur)" if user.is_superuser else ""
        typer.echo(f"{user.get_username()}{note}")
