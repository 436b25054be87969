"""The ``ronde`` command line (Typer + Rich), messages in French.

Exit status: 0 success; 1 a refused action or a failed scenario; 2 a file that
cannot be read (named with its line and the problem).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.table import Table

from . import store
from .catalog import default_catalog
from .engine.clock import parse_time
from .engine.commands import Command
from .engine.errors import RuleViolation
from .engine.game import Game
from .engine.names import french_name
from .engine.views import view
from .scenario import check_paths
from .setup import draw, new_seed

app = typer.Typer(
    help="Ronde : le moteur de règles et les outils de La Ronde des Pantins.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
err = Console(stderr=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]Erreur :[/red] {message}", highlight=False)
    return typer.Exit(code)


def _load(path: Path) -> Game:
    try:
        return store.load_game(path)
    except store.LogError as exc:
        raise _fail(str(exc)) from None


def _read_roster(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise _fail(f"{path}: liste des joueurs illisible : {exc}") from None
    names = [ln.strip().lstrip("-*• ").strip() for ln in lines]
    return [n for n in names if n and not n.startswith("#")]


@app.command()
def new(
    game_file: Annotated[Path, typer.Argument(help="Fichier de la partie (JSON Lines) à créer.")],
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
    force: Annotated[bool, typer.Option(help="Écraser un fichier existant.")] = False,
) -> None:
    """Crée une partie : distribution et Ronde tirées au sort, ou données par --cast."""
    if game_file.exists() and not force:
        raise _fail(f"{game_file} existe déjà (--force pour l'écraser).")
    try:
        start_date = date.fromisoformat(start)
    except ValueError:
        raise _fail(f"date illisible : {start!r} (AAAA-MM-JJ)") from None
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
    try:
        store.write_events(game_file, game.log)
    except OSError as exc:
        raise _fail(f"{game_file}: écriture impossible : {exc}") from None
    console.print(
        f"Partie créée : {game_file} — {len(players)} joueurs, "
        f"Ronde de {len(game.state.ronde)} cases, "
        f"J1 le {start_date.isoformat()}."
    )


def _yaml_file(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise _fail(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise _fail(f"{path}: un dictionnaire YAML est attendu")
    return data


def _parse_args(pairs: list[str]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise _fail(f"argument « {pair} » : la forme est clé=valeur", 2)
        key, value = pair.split("=", 1)
        try:
            args[key.strip()] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            args[key.strip()] = value
    return args


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def act(
    ctx: typer.Context,
    game_file: Annotated[Path, typer.Argument(help="Fichier de la partie.")],
    action: Annotated[str, typer.Argument(help="Action (open_trial, complain, ...).")],
    at: Annotated[str, typer.Option(help="Heure : « J3 10:00 » ou ISO 8601.")],
    by: Annotated[str, typer.Option(help="Le joueur ou le MJ qui agit.")],
) -> None:
    """Enregistre une action (même vocabulaire que les scénarios) : clé=valeur ..."""
    game = _load(game_file)
    try:
        when = parse_time(at, game.state.start)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    args = _parse_args(list(ctx.args))
    before = len(game.log)
    try:
        game.execute(Command(action, by, when, args))
    except RuleViolation as rv:
        # timers that fired before the refused action are facts: keep them
        store.append_events(game_file, game.log[before:])
        err.print(f"[red]Refusé[/red] [bold]{rv.code}[/bold] : {rv.message}", highlight=False)
        raise typer.Exit(1) from None
    new_events = game.log[before:]
    store.append_events(game_file, new_events)
    shown = 0
    for e in new_events:
        text = getattr(e, "text", None)
        if text and getattr(e, "public", False):
            console.print(f"[bold]Annonce[/bold] : {text}", highlight=False)
            shown += 1
    console.print(f"Enregistré : {action} ({len(new_events)} événement(s)).")


@app.command()
def show(
    game_file: Annotated[Path, typer.Argument(help="Fichier de la partie.")],
    as_: Annotated[
        str | None, typer.Option("--as", help="Voir ce que sait ce joueur (ou « public »).")
    ] = None,
    at: Annotated[
        str | None,
        typer.Option(help="Faire avancer le temps jusqu'à cette heure (sans l'enregistrer)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Sortie JSON.")] = False,
) -> None:
    """Affiche la vue du MJ, ou ce que sait un joueur (--as), ou le tableau public."""
    game = _load(game_file)
    if at is not None:
        try:
            game.advance(parse_time(at, game.state.start))
        except ValueError as exc:
            raise _fail(str(exc)) from None
    viewer = as_ or "game_master"
    try:
        v = view(game.state, viewer)
    except KeyError:
        raise _fail(f"joueur inconnu : {viewer}") from None
    if as_json:
        console.print_json(json.dumps(v, ensure_ascii=False, default=str))
        return
    from .render import render_view

    render_view(console, v)


@app.command()
def scores(game_file: Annotated[Path, typer.Argument(help="Fichier de la partie.")]) -> None:
    """Les points de chaque joueur, ligne par ligne."""
    game = _load(game_file)
    g = game.state
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
        table.add_row(str(rank), p.pseudo, french_name(p.original), str(p.points), detail)
    console.print(table)


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
    players: Annotated[
        int, typer.Option(help="Nombre de joueurs (28 : distribution complète).")
    ] = 28,
    games: Annotated[int, typer.Option(help="Nombre de parties.")] = 1,
    seed: Annotated[int | None, typer.Option(help="Graine (parties reproductibles).")] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="PNG : part de chaque personnage encore masqué, jour par jour."),
    ] = None,
    log: Annotated[
        Path | None, typer.Option(help="Enregistrer le journal de la (dernière) partie.")
    ] = None,
) -> None:
    """Des robots jouent des parties complètes de 13 jours sur leur seule vue."""
    from .sim import run_cli

    run_cli(console, players=players, games=games, seed=seed, plot=plot, log=log)


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
    """Entry point of the ``ronde`` script."""
    app()


if __name__ == "__main__":
    main()
