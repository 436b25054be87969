"""The ``ronde`` command line (Typer + Rich), messages in French.

A game lives in the store (the web app's database: embedded SQLite by default,
PostgreSQL by ``DATABASE_URL``) and is named by its slug; every write goes through
the same service as the web (:mod:`ronde.web.games.service`), Django being set up
only by the commands that need it. ``show``, ``scores`` and ``announce`` also read
a JSON Lines file, read-only; ``check`` and ``simulate`` never touch the store.

Exit status: 0 success; 1 a refused action or a failed scenario; 2 a file that
cannot be read (named with its line and the problem).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import cli_french, store
from .catalog import default_catalog
from .engine.clock import parse_time, start_problem
from .engine.errors import RuleViolation
from .engine.game import Game
from .engine.names import french_name
from .engine.views import view
from .extras import missing
from .scenario import check_paths
from .setup import draw, new_seed
from .text import clean, clean_value
from .text import printable as _t

# Click's and Typer's own words (help, usage, errors) in French
cli_french.install()

app = typer.Typer(
    help="Ronde : le moteur de règles et les outils de La Ronde des Pantins.",
    no_args_is_help=True,
    add_completion=False,
    # a traceback never shows local variables (a database password, a session): an
    # unexpected error prints one French line (main() below)
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    options_metavar="[OPTIONS]",
    subcommand_metavar="COMMANDE [ARGUMENTS]...",
    context_settings={"help_option_names": ["--help", "-h"]},
)
console = Console()
err = Console(stderr=True, soft_wrap=True)  # (a message is one line, however long)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ronde {installed_version()}")
        raise typer.Exit()


def installed_version() -> str:
    """The installed distribution's version (the wheel's), else the source's."""
    # (lazy: only --version reads the installed metadata)
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    try:
        return version("ronde")
    except PackageNotFoundError:  # a source folder on sys.path, not installed
        return __version__


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_version,
            is_eager=True,
            help="Affiche la version de Ronde et quitte.",
        ),
    ] = False,
) -> None:
    """Ronde : le moteur de règles et les outils de La Ronde des Pantins."""


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]Erreur :[/red] {_t(message)}", highlight=False)
    return typer.Exit(code)


def _is_file(name: str) -> bool:
    """A game named by a file (read-only commands) rather than by its slug."""
    return name.endswith((".jsonl", ".json")) or Path(name).is_file()


def _load(path: Path) -> Game:
    try:
        return store.load_game(path)
    except store.LogError as exc:
        raise _fail(str(exc)) from None


def open_store() -> None:
    """Set up Django (lazily: ``check`` and ``simulate`` never pay for it) and bring the
    database's tables up to date."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
    # (lazy: Django is set up only by the commands that use the store)
    from django.apps import apps

    if not apps.ready:
        # (lazy: Django is set up only by the commands that use the store)
        import django

        django.setup()
    # (lazy: Django is set up only by the commands that use the store)
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        Path(str(db["NAME"])).parent.mkdir(parents=True, exist_ok=True)
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.migrating import migrate_if_needed

    # a fresh database is made at first use; migrations run under a lock (two commands
    # at once never apply one twice)
    migrate_if_needed()


def _game(slug: str) -> Any:
    """The stored game called ``slug`` (exit 2 if there is none)."""
    open_store()
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games.models import Game as StoredGame

    try:
        stored = StoredGame.objects.get(slug=slug)
    except StoredGame.DoesNotExist:
        raise _fail(f"partie inconnue : « {slug} » (ronde games : la liste)") from None
    if (problem := start_problem(stored.start)) is not None:
        # (a game stored before dates were bounded: no command can read its calendar)
        raise _fail(f"partie « {slug} » illisible : {problem}")
    return stored


def require_started(stored: Any) -> None:
    """Exit 2 with a French line when ``stored`` is a draft of the console (no cast drawn
    yet: nothing to show)."""
    if not stored.started:
        raise _fail(
            f"la partie « {stored.slug} » est en préparation (pas encore lancée) : rien à "
            "montrer avant son lancement, depuis la console (page Préparation)."
        )


def _when(text: str, start: date) -> datetime:
    try:
        return parse_time(text, start)
    except (ValueError, OverflowError) as exc:
        raise _fail(str(exc)) from None


@contextmanager
def _busy_refused() -> Iterator[None]:
    """A game whose lock stayed taken past the wait (``busy.WAIT_SECONDS``): one French
    line, exit 1, never a traceback."""
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import busy

    try:
        yield
    except Exception as exc:
        if not busy.is_busy(exc):
            raise
        err.print(f"[red]Refusé[/red] : {busy.MESSAGE}", highlight=False)
        raise typer.Exit(1) from None


def _refused(code: str, message: str) -> typer.Exit:
    err.print(f"[red]Refusé[/red] [bold]{_t(code)}[/bold] : {_t(message)}", highlight=False)
    return typer.Exit(1)


def _read_roster(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise _fail(f"{path}: liste des joueurs illisible : {exc}") from None
    names = [clean(ln).strip().lstrip("-*• ").strip() for ln in lines]
    return [n for n in names if n and not n.startswith("#")]


_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,59}$")


@app.command()
def new(
    slug: Annotated[str, typer.Argument(help="Nom court de la partie (lettres, chiffres, -).")],
    roster: Annotated[Path, typer.Option(help="Un pseudo par ligne.")],
    start: Annotated[str, typer.Option(help="Date du J1 (AAAA-MM-JJ, Europe/Paris).")],
    cast: Annotated[
        Path | None,
        typer.Option(help="YAML avec « ronde: [...] » et « cast: {pseudo: personnage} »."),
    ] = None,
    gm: Annotated[list[str] | None, typer.Option(help="Pseudo d'un MJ (répétable).")] = None,
    options: Annotated[
        Path | None,
        typer.Option(help="YAML des règles maison, par exemple {A7: standard_only, A27: cap_3}."),
    ] = None,
    clock: Annotated[
        str,
        typer.Option(help="« wall » : l'heure réelle ; « manual » : l'horloge de la partie."),
    ] = "wall",
    name: Annotated[str | None, typer.Option(help="Titre de la partie.")] = None,
) -> None:
    """Crée une partie : distribution et Ronde tirées au sort, ou données par --cast."""
    if not _SLUG.match(slug):
        raise _fail(f"nom de partie invalide : « {slug} » (lettres, chiffres, - et _)")
    if clock not in ("wall", "manual"):
        raise _fail(f"--clock : « wall » ou « manual », pas « {clock} »")
    try:
        start_date = date.fromisoformat(start)
    except ValueError:
        raise _fail(f"date illisible : {start!r} (AAAA-MM-JJ)") from None
    if (problem := start_problem(start_date)) is not None:
        raise _fail(problem)
    players = _read_roster(roster)
    opts: dict[str, Any] = {}
    if options is not None:
        opts = _yaml_file(options)
    if cast is not None:
        data = _yaml_file(cast)
        raw_cast, raw_ronde = data.get("cast") or {}, data.get("ronde") or []
        if not isinstance(raw_cast, dict) or not isinstance(raw_ronde, list):
            raise _fail(
                f"{cast}: « cast » est un dictionnaire pseudo: personnage, « ronde » une liste"
            )
        given_cast = {str(k): str(v) for k, v in raw_cast.items()}
        ronde = [str(c) for c in raw_ronde]
        opts = {**(data.get("options") or {}), **opts}
    else:
        try:
            given_cast, ronde = draw(players)
        except ValueError as exc:
            raise _fail(str(exc)) from None
    try:
        game = Game.create(
            start=start_date,
            cast=given_cast,
            ronde=ronde,
            catalog=default_catalog(),
            seed=new_seed(),
            players=players,
            game_masters=gm or ["Mj"],
            options=opts,
        )
    except RuleViolation as rv:
        raise _fail(f"{rv.code} : {rv.message}") from None
    open_store()
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import transfer
    from .web.games.models import Game as StoredGame

    invitations: dict[str, str] = {}
    try:
        transfer.create(slug, game, name=name or slug, clock=clock, invitations=invitations)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    except RuleViolation as rv:
        raise _fail(f"{rv.code} : {rv.message}") from None
    kind = str(dict(StoredGame.CLOCKS)[clock])
    console.print(
        f"Partie créée : {slug} — {len(players)} joueurs, "
        f"Ronde de {len(game.state.ronde)} cases, "
        f"J1 le {start_date.isoformat()}, {kind}."
    )
    for gm_name, token in invitations.items():
        console.print(
            f"Invitation du MJ {gm_name} (site web) : /invitation/{token}/", highlight=False
        )


def _yaml_file(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise _fail(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise _fail(f"{path}: un dictionnaire YAML est attendu")
    return clean_value(data)  # type: ignore[no-any-return]


def _parse_args(pairs: list[str]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for pair in map(clean, pairs):
        if "=" not in pair:
            raise _fail(f"argument « {pair} » : la forme est clé=valeur", 2)
        key, value = pair.split("=", 1)
        try:
            args[key.strip()] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            args[key.strip()] = value
    return args


def _print_diff(stored: Any, diff: Any) -> None:
    """The difference a correction makes, one line per event or action."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .engine.clock import format_time
    from .web.games.describe import describe

    def line(sign: str, e: Any) -> None:
        console.print(
            f"  {sign} {format_time(stored.start, e.at)} {_t(describe(e))}", highlight=False
        )

    for e in diff.removed:
        line("-", e)
    for e in diff.added:
        line("+", e)
    for a, message in diff.newly_refused:
        console.print(f"  ! action n°{a.pk} ({_t(a.action)} de {_t(a.by)}) refusée : {_t(message)}")
    for a in diff.newly_applied:
        console.print(f"  ! action n°{a.pk} ({_t(a.action)} de {_t(a.by)}) acceptée désormais")
    if not (diff.removed or diff.added or diff.newly_refused or diff.newly_applied):
        console.print("  (aucune différence)")


def _print_announcements(events: Sequence[Any]) -> None:
    """The public messages among ``events`` (what the forum is told)."""
    for e in events:
        text = getattr(e, "text", None)
        if text and getattr(e, "public", False):
            console.print(f"[bold]Annonce[/bold] : {_t(text)}", highlight=False)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def act(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="La partie.")],
    action: Annotated[str, typer.Argument(help="Action (open_trial, complain, ...).")],
    by: Annotated[str, typer.Option(help="Le joueur ou le MJ qui agit.")],
    at: Annotated[
        str | None, typer.Option(help="Heure : « J3 10:00 » ou ISO 8601 (défaut : maintenant).")
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Confirmer une correction qui change le passé.")
    ] = False,
) -> None:
    """Enregistre une action (même vocabulaire que les scénarios) : clé=valeur ..."""
    stored = _game(slug)
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import service, transfer

    args = _parse_args(list(ctx.args))
    when = _when(at, stored.start) if at is not None else None
    is_gm = stored.game_masters.filter(name__iexact=by).exists()
    user = transfer.game_master_user(stored, by) if is_gm else None
    with _busy_refused():
        try:
            out = service.record(stored, user, action, by, args, at=when)
            if out.preview is not None and not out.ok:
                console.print("Cette action, insérée à son heure, change ce qui est enregistré :")
                _print_diff(stored, out.preview)
                if not yes:
                    err.print("Rien n'est enregistré : relancez avec --yes pour confirmer.")
                    raise typer.Exit(1)
                out = service.record(stored, user, action, by, args, at=when, confirm=out.token)
        except service.Conflict:
            err.print(f"[red]Refusé[/red] : {service.Conflict.message}", highlight=False)
            raise typer.Exit(1) from None
        if not out.ok:
            raise _refused(out.code, out.message)
        # (the seats follow a replacement or a correction in the same write: the service)
    _print_announcements(out.events)
    if out.preview is not None and not out.preview.destructive:
        console.print("Inséré à son heure : rien de ce qui était enregistré ne change.")
    number = out.action.pk if out.action is not None else "?"
    console.print(f"Enregistré : {action} n°{number} ({len(out.events)} événement(s)).")


@app.command()
def log(slug: Annotated[str, typer.Argument(help="La partie.")]) -> None:
    """Les actions enregistrées avec leur numéro (pour ronde strike)."""
    stored = _game(slug)
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .engine.clock import format_time
    from .web.games.models import Action

    table = Table(title=f"Actions de {_t(slug)}")
    for col in ("n°", "Heure", "Par", "Action", "Arguments", "État", "Enregistrée par"):
        table.add_column(col)
    rows = Action.objects.filter(game=stored).select_related("recorded_by").order_by("at", "pk")
    gm_names = {n.casefold(): n for n in stored.game_masters.values_list("name", flat=True)}
    gm_of_user = dict(stored.game_masters.values_list("user_id", "name"))
    for a in rows:
        if a.struck:
            state = "rayée"
        elif a.outcome == "refused":
            state = f"refusée : {a.message}"
        else:
            state = "appliquée"
        args = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in a.args.items())
        if a.recorded_by is not None:
            who = gm_of_user.get(a.recorded_by.pk) or a.recorded_by.get_username()
        else:  # a game master's own action from the command line names him
            who = gm_names.get(a.by.casefold(), "ligne de commande")
        table.add_row(
            str(a.pk),
            format_time(stored.start, a.at),
            _t(a.by),
            _t(a.action),
            _t(args),
            _t(state),
            _t(who),
        )
    console.print(table)


@app.command()
def strike(
    slug: Annotated[str, typer.Argument(help="La partie.")],
    action_id: Annotated[int, typer.Argument(metavar="ID", help="Numéro (ronde log).")],
    reason: Annotated[str, typer.Option(help="Pourquoi cette action est rayée.")],
    yes: Annotated[bool, typer.Option("--yes", help="Confirmer.")] = False,
    gm: Annotated[str | None, typer.Option(help="Le MJ qui raye (défaut : le premier).")] = None,
) -> None:
    """Raye une action enregistrée et reconstruit la partie sans elle (rien n'est effacé)."""
    stored = _game(slug)
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import service, transfer
    from .web.games.models import Action

    target = Action.objects.filter(game=stored, pk=action_id).first()
    if target is None:
        raise _fail(f"pas d'action n°{action_id} dans {slug} (ronde log {slug})")
    if target.struck:
        raise _refused("not_allowed", "Cette action est déjà rayée.")
    if not reason.strip():
        raise _refused("invalid_argument", "Donnez la raison de la correction.")
    service.current(stored)
    pv = service.preview_strike(stored, target)
    console.print(f"Rayer l'action n°{target.pk} ({_t(target.action)} de {_t(target.by)}) change :")
    assert pv.preview is not None
    _print_diff(stored, pv.preview)
    if not yes:
        err.print("Rien n'est rayé : relancez avec --yes pour confirmer.")
        raise typer.Exit(1)
    with _busy_refused():
        try:
            out = service.strike(
                stored, target, reason, transfer.game_master_user(stored, gm), pv.token
            )
        except service.Conflict:
            err.print(f"[red]Refusé[/red] : {service.Conflict.message}", highlight=False)
            raise typer.Exit(1) from None
        if not out.ok:
            raise _refused(out.code, out.message)
    console.print(f"Action n°{target.pk} rayée ; la partie a été reconstruite sans elle.")


def _late_bound(game: Game, t: datetime) -> None:
    """A file game: the same bounds as the store (no year 9999)."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from datetime import timedelta

    if t > game.state.end_of_play() + timedelta(days=3):
        raise _fail("heure trop tardive : plus de 3 jours après la fin du jeu")


def _state_of(name: str, at: str | None) -> tuple[Any, Any]:
    """(engine game, stored game or None) for ``show`` and ``scores``: a file, read-only,
    or a stored game (at ``at`` if given: a preview, nothing is recorded)."""
    if _is_file(name):
        game = _load(Path(name))
        if at is not None:
            t = _when(at, game.state.start)
            _late_bound(game, t)
            game.advance(t)
        return game, None
    stored = _game(name)
    require_started(stored)
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import service

    if at is None:
        return service.current(stored), stored
    try:
        return service.preview(stored, _when(at, stored.start)), stored
    except RuleViolation as rv:
        raise _refused(rv.code, rv.message) from None


@app.command()
def show(
    game: Annotated[str, typer.Argument(help="La partie (ou un fichier .jsonl, en lecture).")],
    as_: Annotated[
        str | None, typer.Option("--as", help="Voir ce que sait ce joueur (ou « public »).")
    ] = None,
    at: Annotated[
        str | None,
        typer.Option(help="Aperçu : la partie à cette heure si rien d'autre n'est enregistré."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Sortie JSON.")] = False,
) -> None:
    """Affiche la vue du MJ, ou ce que sait un joueur (--as), ou le tableau public."""
    eng, stored = _state_of(game, at)
    viewer = as_ or "game_master"
    try:
        v = view(eng.state, viewer)
    except KeyError:
        raise _fail(f"joueur inconnu : {viewer}") from None
    if as_json:
        console.print_json(json.dumps(v, ensure_ascii=False, default=str))
        return
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .render import render_view

    if stored is not None and viewer == "game_master":
        # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
        from .engine.clock import format_time
        from .web.games import clocks

        kind = clocks.describe(stored)
        now = format_time(stored.start, clocks.game_now(stored))
        preview = " — aperçu, rien n'est enregistré" if at is not None else ""
        console.print(f"Partie {_t(stored.slug)} ({_t(kind)}, maintenant : {now}){preview}")
    render_view(console, v)


@app.command()
def scores(
    game: Annotated[str, typer.Argument(help="La partie (ou un fichier .jsonl, en lecture).")],
) -> None:
    """Les points de chaque joueur, ligne par ligne."""
    eng, _stored = _state_of(game, None)
    g = eng.state
    table = Table(title="Points", show_lines=False)
    table.add_column("Rang", justify="right")
    table.add_column("Joueur")
    table.add_column("Personnage")
    table.add_column("Points", justify="right")
    table.add_column("Détail")
    ranked = sorted(g.players.values(), key=lambda p: (-p.points, p.pseudo.casefold()))
    rank, last = 0, None
    for i, p in enumerate(ranked, 1):
        if p.points != last:
            rank, last = i, p.points
        detail = (
            "\n".join(f"{line.points:+d} {line.reason} [{line.rule}]" for line in p.lines) or "—"
        )
        table.add_row(
            str(rank), _t(p.pseudo), _t(french_name(p.original)), str(p.points), _t(detail)
        )
    console.print(table)


@app.command()
def games() -> None:
    """Les parties enregistrées."""
    open_store()
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .engine.clock import format_time
    from .web.games import clocks
    from .web.games.models import Game as StoredGame

    table = Table(title="Parties")
    for col in ("Partie", "Titre", "J1", "Horloge", "Maintenant", "Événements"):
        table.add_column(col)
    for g in StoredGame.objects.order_by("slug"):
        now = format_time(g.start, clocks.game_now(g)) if g.started else "pas commencée"
        table.add_row(
            _t(g.slug),
            _t(g.name),
            g.start.isoformat(),
            _t(clocks.describe(g)),
            _t(now),
            str(g.last_seq),
        )
    console.print(table)


@app.command()
def advance(
    slug: Annotated[str, typer.Argument(help="Une partie à horloge manuelle.")],
    to: Annotated[str, typer.Option(help="Nouvelle heure : « J3 10:00 » ou ISO 8601.")],
) -> None:
    """Avance l'horloge d'une partie « manual » ; les échéances dues sont appliquées."""
    stored = _game(slug)
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import service

    try:
        fired = service.advance_clock(stored, _when(to, stored.start))
    except RuleViolation as rv:
        raise _refused(rv.code, rv.message) from None
    _print_announcements(fired)
    console.print(f"Horloge de {slug} : {to} ({len(fired)} événement(s) d'échéance).")


@app.command("export")
def export_command(
    slug: Annotated[str, typer.Argument(help="La partie.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Fichier (défaut : la sortie).")
    ] = None,
) -> None:
    """Exporte une partie (JSON Lines : actions et événements) pour ronde import."""
    stored = _game(slug)
    require_started(stored)
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import transfer

    data = b"".join(transfer.export_lines(stored))
    if output is None:
        sys.stdout.write(data.decode("utf-8"))
        return
    try:
        _write_private(output, data)
    except OSError as exc:
        raise _fail(f"{output}: écriture impossible : {exc}") from None
    err.print(f"Exporté : {output}", highlight=False)


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` readable by its owner only (0600, whatever the umask):
    an export holds every secret of the game, as the database does."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)  # (a file that existed keeps its mode otherwise)
        f.write(data)


@app.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(help="Un export de ronde export.")],
    slug: Annotated[str | None, typer.Option(help="Nom de la partie importée.")] = None,
    drop_incomplete: Annotated[
        bool,
        typer.Option(
            "--drop-incomplete", help="Garder les actions complètes avant une ligne abîmée."
        ),
    ] = False,
) -> None:
    """Importe une partie exportée ; une ligne tronquée ou abîmée est refusée (son numéro)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(f"{file}: fichier illisible : {exc}") from None
    open_store()
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .web.games import transfer

    try:
        parsed = transfer.parse(text, drop_incomplete=drop_incomplete)
    except transfer.ImportError_ as exc:
        raise _fail(
            f"{file}: {exc} — rien n'est importé (--drop-incomplete : garder ce qui précède)"
        ) from None
    name = slug or str(parsed.header.get("slug") or "")
    if not _SLUG.match(name):
        raise _fail(f"nom de partie invalide : « {name} » (--slug)")
    try:
        transfer.import_game(parsed, name)
    except ValueError as exc:
        raise _fail(f"{exc} (--slug pour un autre nom)") from None
    if parsed.problem:
        err.print(
            f"Abandonné à partir de {parsed.problem} ({parsed.dropped} action(s) incomplète(s)).",
            highlight=False,
        )
    console.print(
        f"Importé : {name} — {len(parsed.actions)} action(s), {len(parsed.events)} événement(s)."
    )


@app.command()
def check(paths: Annotated[list[Path], typer.Argument(help="Scénarios ou dossiers.")]) -> None:
    """Exécute des scénarios (FORMAT.md) : une ligne PASS/FAIL chacun, puis le bilan."""
    for p in paths:
        if not p.exists():
            raise _fail(f"{p}: fichier introuvable")
    outcomes, errors = check_paths(paths)
    for o in outcomes:
        typer.echo(o.line())
    for e in errors:
        typer.echo(f"ERROR {e}", err=True)
    failed = sum(1 for o in outcomes if not o.passed)
    passed = len(outcomes) - failed
    typer.echo(f"{passed} passed, {failed} failed")
    if errors:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


@app.command()
def simulate(
    rules: Annotated[
        list[str] | None,
        typer.Argument(
            help="Avec --compare : les variantes, OPTION=VALEUR (A9=grace_60), ou plusieurs "
            "règles ensemble séparées par des virgules (A9=grace_60,A17=continue).",
            show_default=False,
        ),
    ] = None,
    compare: Annotated[
        bool,
        typer.Option(
            "--compare",
            help="Comparer les règles par défaut et chaque variante sur les mêmes parties.",
        ),
    ] = False,
    players: Annotated[
        int, typer.Option(help="Nombre de joueurs (28 : distribution complète).")
    ] = 28,
    games: Annotated[int, typer.Option(help="Nombre de parties.", min=1)] = 1,
    seed: Annotated[int | None, typer.Option(help="Graine (parties reproductibles).")] = None,
    jobs: Annotated[
        int, typer.Option(help="Processus en parallèle (avec --compare).", min=1, max=64)
    ] = 1,
    report: Annotated[
        Path | None,
        typer.Option(help="Avec --compare : dossier du rapport (CSV brut et page HTML)."),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="PNG : part de chaque personnage encore masqué, jour par jour."),
    ] = None,
    log: Annotated[
        Path | None, typer.Option(help="Enregistrer le journal de la (dernière) partie.")
    ] = None,
) -> None:
    """Des robots jouent des parties complètes de 13 jours sur leur seule vue.

    Avec --compare, les règles par défaut et chaque variante sont jouées sur les mêmes
    parties (même graine, mêmes rôles) et comparées (docs/simulator.md)."""
    if compare or rules:
        if not (compare and rules):
            raise _fail("écrivez --compare suivi d'au moins une variante, par exemple A9=grace_60.")
        # (lazy: only this command needs it)
        from .simcompare import run_cli as compare_cli
        from .simreport import ReportError

        try:
            status = compare_cli(
                console,
                compare=rules,
                games=games,
                players=players,
                seed=seed,
                jobs=jobs,
                report=report,
            )
        except ReportError as exc:
            raise _fail(str(exc)) from None
        except ValueError as exc:  # (the cast's draw: too many or too few players)
            raise _fail(str(exc)) from None
        raise typer.Exit(status)
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .sim import run_cli

    if games < 1:
        raise _fail("--games : au moins 1 partie")
    for path, option in ((plot, "--plot"), (log, "--log")):
        if path is not None and not path.expanduser().resolve().parent.is_dir():
            raise _fail(f"{option} : le dossier de {path} n'existe pas")
    if plot is not None:
        try:
            # (lazy: matplotlib is an optional extra, for --plot only)
            import matplotlib  # noqa: F401
        except ImportError:
            raise _fail(missing("plot")) from None
    try:
        run_cli(console, players=players, games=games, seed=seed, plot=plot, log=log)
    except ValueError as exc:  # the cast's French refusals (too few or too many players)
        raise _fail(str(exc)) from None


# The forum bridge (ronde.forum): `ronde announce` and `ronde forum parse`.
from .forum.cli import announce_command, forum_app  # noqa: E402

app.command("announce")(announce_command)
app.add_typer(forum_app, name="forum")

# The web app (ronde.web): serve, tick, manage, backup, restore, organiser (Django is
# imported lazily).
from .web import cli as web_cli  # noqa: E402

app.command("serve")(web_cli.serve_command)
app.command("tick")(web_cli.tick_command)
app.command("manage", context_settings=web_cli.MANAGE_SETTINGS, add_help_option=False)(
    web_cli.manage_command
)
app.command("backup")(web_cli.backup_command)
app.command("restore")(web_cli.restore_command)
app.add_typer(web_cli.organiser_app, name="organiser")


def main() -> None:
    """Entry point of the ``ronde`` script (and of ``python -m ronde``): Click's and Typer's
    words in French, and an error the commands did not foresee said in one French line
    (exit 2 for the configuration or the database, 3 otherwise), never a traceback."""
    # (lazy: only the last resort needs it)
    from .failures import explain

    # control characters never enter Ronde from its arguments (ronde.text)
    sys.argv[1:] = [clean(arg) for arg in sys.argv[1:]]
    try:
        app()
    except Exception as exc:  # the last resort: one line, no local variable shown
        message, code = explain(exc)
        err.print(f"[red]Erreur :[/red] {escape(message)}", highlight=False, soft_wrap=True)
        if os.environ.get("RONDE_TRACEBACK"):
            raise
        sys.exit(code)


if __name__ == "__main__":
    main()
