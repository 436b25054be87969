"""``ronde announce`` and ``ronde forum …``: the forum bridge on the command line.

``ronde announce GAME [--day N] [--to PLAYER] [--public] [--templates DIR]``
prints every selected message ready to paste, each after a ``#`` heading line.

``ronde forum parse --game GAME FILE… [--today DATE] [--trial N] [--apply
[--confirm 3,5]]`` reads pasted thread pages (browser text or saved HTML; ``-``
for standard input; the pages of one thread, same title, are read together in
the order of their numbers) and prints YAML steps (scenario vocabulary) on
stdout, each with its source post; doubtful steps are commented out (``#? ``)
until a game master confirms them. Nothing is recorded without ``--apply``,
which records the sure steps and the doubtful ones named by ``--confirm``, in
time order (trials that overlap in time, given together, in any order), through
the store's service (each one its own locked write; a refused one records
nothing); a step of a trial whose opening is not confirmed is held back (see
:mod:`ronde.forum.apply`). Without ``--today`` the copy date comes from the page
header ("Jour N").

``GAME`` is a stored game's name, or a JSON Lines file (read-only).
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from ..text import clean

forum_app = typer.Typer(
    help="Le pont avec le forum de ville : lire des pages collées.", no_args_is_help=True
)


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"Erreur : {message}", err=True)
    return typer.Exit(code)


GAME_HELP = "La partie (son nom) ou un fichier .jsonl (lecture seule)."


def _stored(name: str) -> Any:
    """The stored game called ``name``, or ``None`` when ``name`` is a file."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from ..cli import _game, _is_file

    return None if _is_file(name) else _game(name)


def _load(name: str | Path) -> Any:
    """The engine game of ``--game``: a stored game (brought to now) or a file."""
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from .. import store

    stored = _stored(str(name))
    if stored is not None:
        # (lazy: the store (Django) is loaded only by the commands that use it)
        from ..cli import require_started
        from ..web.games import service

        require_started(stored)
        return service.current(stored)
    try:
        return store.load_game(Path(name))
    except store.LogError as exc:
        raise _fail(str(exc)) from None


def announce_command(
    game_file: Annotated[str, typer.Argument(help=GAME_HELP)],
    day: Annotated[int | None, typer.Option(help="Seulement les messages de ce jour.")] = None,
    to: Annotated[
        str | None, typer.Option(help="Les messages privés (MP) envoyés à ce joueur.")
    ] = None,
    public: Annotated[bool, typer.Option("--public", help="Les annonces publiques (FV).")] = False,
    templates: Annotated[
        Path | None,
        typer.Option(help="Dossier de modèles qui remplacent ceux par défaut (<kind>.txt)."),
    ] = None,
) -> None:
    """Les annonces et MP de la partie, prêts à coller sur le forum (balises du forum)."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .render import ForumContext, forum_messages, heading, load_templates, render, select

    game = _load(game_file)
    try:
        tpl = load_templates(templates)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    ctx = ForumContext.from_game(game)
    seat = None
    if to is not None:
        seat = game.state.seat_of(to)
        if seat is None:
            raise _fail(f"joueur inconnu : {to}")
    chosen = select(forum_messages(game), ctx, day=day, to=seat, public=public)
    if not chosen:
        typer.echo("# Aucun message.")
    for m in chosen:
        r = render(m, tpl, ctx)
        typer.echo(clean(f"# {heading(m, ctx)}"))
        if r.problem:
            typer.echo(clean(f"# ! {r.problem} (texte du moteur à la place)"))
        typer.echo(clean(r.text))
        typer.echo("")


def _yaml_step(step: dict[str, Any]) -> str:
    text = yaml.safe_dump(
        [step], allow_unicode=True, default_flow_style=None, sort_keys=False, width=10_000
    )
    return text.rstrip("\n")


@forum_app.command("parse")
def parse_command(
    files: Annotated[
        list[str],
        typer.Argument(
            help="Pages collées : texte copié ou HTML enregistré (- : stdin) ; plusieurs "
            "sujets (Procès qui se chevauchent) sont lus et enregistrés ensemble."
        ),
    ],
    game: Annotated[str, typer.Option(help=GAME_HELP)],
    today: Annotated[
        str | None,
        typer.Option(
            help="Date de la copie (AAAA-MM-JJ), pour « Aujourd'hui » et « Hier » "
            "(sinon : déduite de l'en-tête « Jour N » de la page)."
        ),
    ] = None,
    trial: Annotated[
        int | None, typer.Option(help="Lire la page comme ce Procès (sinon : reconnu au titre).")
    ] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Enregistrer les actions sûres dans la partie.")
    ] = False,
    confirm: Annotated[
        str | None, typer.Option(help="Numéros des actions douteuses confirmées : 3,5")
    ] = None,
) -> None:
    """Lit une page du forum et propose ses actions (YAML) ; rien n'est enregistré sans --apply."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from ..engine.names import french_name
    from ..engine.views import view
    from .apply import number_new_trials, plan
    from .proposals import parse_pages
    from .thread import fold_text, read_thread

    texts = []
    for file in files:
        try:
            texts.append(clean(sys.stdin.read() if file == "-" else Path(file).read_text("utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(f"{file} : illisible : {exc}") from None
    day: date | None = None
    if today is not None:
        try:
            day = date.fromisoformat(today)
        except ValueError:
            raise _fail(f"date illisible : {today!r} (AAAA-MM-JJ)") from None
    g = _load(game)
    gm_view = view(g.state, "game_master")
    # pages of one thread (same title) are read together, in the order of their numbers
    groups: dict[str, list[str]] = {}
    for k, text in enumerate(texts):
        title = read_thread(text).title
        groups.setdefault(fold_text(title) if title else f"\x00{k}", []).append(text)
    results = [
        parse_pages(
            pages,
            gm_view,
            today=day,
            trial=trial,
            game_masters=g.state.game_masters,
            start=g.state.start,
        )
        for pages in groups.values()
    ]
    number_new_trials(results, len(gm_view["trials"]))
    typer.echo("steps:")
    wanted = {int(x) for x in (confirm or "").replace(" ", "").split(",") if x.isdigit()}
    chosen = []
    n = 0
    for result in results:
        th = result.thread
        typer.echo(
            f"# Sujet : {th.title or '(sans titre)'} — {len(th.posts)} message(s), "
            + ("page HTML enregistrée" if th.source == "html" else "copie du navigateur")
        )
        for p in th.posts:
            typer.echo(
                f"#   {p.index:>2}. {p.author} — {p.time_text} — {p.stamp_text()}"
                + (f" — édité ({p.edited})" if p.edited else "")
            )
        if result.trial is not None:
            t = result.trial
            state = "déjà enregistré" if t.exists else "à ouvrir"
            typer.echo(
                f"# Procès n°{t.number} ({state}) : {' et '.join(t.accused)} accusé(s) d'être "
                f"{french_name(t.supposed) if t.supposed else '?'}"
            )
        for d in result.diagnostics:
            typer.echo(f"# {d}")
        for prop in result.proposals:
            n += 1
            typer.echo(f"  # [{n}] message {prop.post} : « {prop.excerpt} »")
            for note in prop.notes:
                typer.echo(f"  # note : {note}")
            if prop.refusal is not None:
                typer.echo(
                    f"  # refusée ({prop.refusal[0]}) : {prop.refusal[1]} — confirmée, elle "
                    "s'enregistre comme message dans le Procès"
                )
            for doubt in prop.doubts:
                typer.echo(f"  # doute : {doubt}")
            line = _yaml_step(prop.step())
            prefix = "  " if prop.sure or n in wanted else "  #? "
            typer.echo("\n".join(prefix + ln for ln in line.splitlines()))
            if prop.sure or n in wanted:
                chosen.append(prop)
        if result.ignored:
            typer.echo("# Non retenus :")
            for f in result.ignored:
                typer.echo(f"#   message {f.post} ({f.author}) : {f.reason} — « {f.excerpt} »")
    if not apply:
        return
    stored = _stored(game)
    if stored is None:
        raise _fail(
            "--apply enregistre dans une partie du magasin : --game NOM (un fichier "
            "est en lecture seule)"
        )
    # (lazy: the store (Django) is loaded only by the commands that use it)
    from ..web.games.forum_console import ServiceWriter
    from .apply import record_or_refuse

    ready, held = plan(chosen, results)
    failed = len(held)
    for h in held:
        typer.echo(
            f"Non enregistré : {h.proposal.action} de {h.proposal.by} : {h.reason}", err=True
        )
    recorded = events = 0
    writer = ServiceWriter(stored)
    for prop in ready:
        out = record_or_refuse(prop, writer)
        events += out.events
        what = f"{prop.action} de {prop.by}"
        if out.status == "recorded":
            recorded += 1
        elif out.status == "as_post":
            recorded += 1
            typer.echo(
                f"Plainte refusée ({out.code}) : {prop.by} : {out.message} — enregistrée comme "
                f"message dans le Procès n°{prop.args['trial']}",
                err=True,
            )
        elif out.status == "already":
            typer.echo(f"Déjà enregistré : {what} ({out.message}), ignoré", err=True)
        elif out.status == "preview":
            failed += 1
            typer.echo(f"Refusé correction : {what} : {out.message} (ronde act … --yes)", err=True)
        else:
            failed += 1
            typer.echo(f"Refusé {out.code} : {what} : {out.message}", err=True)
            if out.posted:
                typer.echo(
                    f"  … enregistré comme message de {prop.by} dans le Procès "
                    f"n°{prop.args['trial']}",
                    err=True,
                )
    typer.echo(f"Enregistré : {recorded} action(s), {events} événement(s)", err=True)
    if failed:
        raise typer.Exit(1)


def _read_pages(
    files: list[Path], today: date | None, names: list[str], start: date | None = None
) -> list[Any]:
    """Read pasted pages; without ``today`` the copy date comes from each page's
    header. Warnings (posts without a time…) are printed on stderr."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .thread import read_thread

    threads = []
    for f in files:
        try:
            text = clean(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(f"{f} : illisible : {exc}") from None
        thread = read_thread(text, today=today, known_names=names, start=start)
        for d in thread.diagnostics:
            if d.level != "info" or today is None:
                typer.echo(f"# {f.name} : {d}", err=True)
        threads.append(thread)
    return threads


def _days_fr(days: list[int]) -> str:
    """``2 jours (J3, J5)``, ``aucun jour``."""
    if not days:
        return "aucun jour"
    listed = ", ".join(f"J{d}" for d in days)
    return f"{len(days)} jour{'s' if len(days) > 1 else ''} ({listed})"


def _iso_day(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise _fail(f"date illisible : {text!r} (AAAA-MM-JJ)") from None


@forum_app.command("check")
def check_command(
    player: Annotated[str, typer.Argument(help="Le joueur dont on vérifie la contrainte.")],
    files: Annotated[list[Path], typer.Argument(help="Pages collées (texte ou HTML).")],
    game: Annotated[str, typer.Option(help=GAME_HELP)],
    day: Annotated[int, typer.Option(help="Le jour vérifié (J n).")],
    as_: Annotated[
        str | None, typer.Option("--as", help="Le Personnage dont on vérifie la contrainte.")
    ] = None,
    sentence: Annotated[str | None, typer.Option(help="La phrase du J2 du Souffleur.")] = None,
    cell: Annotated[str | None, typer.Option(help="Ordre de la Sirène : la case x,y.")] = None,
    today: Annotated[str | None, typer.Option(help="Date de la copie (AAAA-MM-JJ).")] = None,
) -> None:
    """Une suggestion pour la contrainte d'un joueur (les MJ décident)."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from ..engine.names import resolve_character
    from .checks import AREAS, cell_posts, prompter_sentence, questions

    g = _load(game).state
    seat = g.seat_of(player)
    if seat is None:
        raise _fail(f"joueur inconnu : {player}")
    pseudo = g.pseudo(seat)
    character = resolve_character(as_) if as_ else (g.players[seat].character or "extra")
    threads = _read_pages(files, _iso_day(today), [p.pseudo for p in g.players.values()], g.start)
    posts = [p for t in threads for p in t.posts]
    if cell is not None:
        try:
            x, y = (int(v) for v in cell.replace(" ", "").split(","))
        except ValueError:
            raise _fail(f"case illisible : {cell!r} (x,y)") from None
        s = cell_posts(posts, pseudo, cell=(x, y), day=day, start=g.start)
    elif character in AREAS:
        s = cell_posts(posts, pseudo, character=character, day=day, start=g.start)
    elif character == "alice":
        s = questions(posts, pseudo, day=day, start=g.start)
    elif character == "seer":
        # (lazy: spaCy and its French model are heavy: loaded only for the Seer's check)
        from ..extras import missing
        from .future import load_model, seer

        if load_model() is None:
            raise _fail(missing("nlp"))
        s = seer(posts, pseudo, day=day, start=g.start)
    elif character == "prompter":
        if not sentence:
            raise _fail("--sentence : la phrase du J2 du Souffleur est nécessaire")
        s = prompter_sentence(posts, pseudo, sentence, day=day, start=g.start)
    else:
        raise _fail(f"pas d'aide pour la contrainte de ce Personnage ({character})")
    typer.echo(f"Suggestion : {_verdict_fr(s.met)} — {s.text}")
    for e in s.evidence:
        typer.echo(f"  • {e}")
    typer.echo("(Les MJ décident : ronde act … record_constraint player=… day=… met=…)")


@forum_app.command("participation")
def participation_command(
    game: Annotated[str, typer.Option(help=GAME_HELP)],
    rehearsals: Annotated[
        list[Path], typer.Option(help="Pages « Répétitions » collées (répétable).")
    ],
    other: Annotated[
        list[Path] | None, typer.Option(help="Autres pages du FV (Procès…), répétable.")
    ] = None,
    today: Annotated[str | None, typer.Option(help="Date de la copie (AAAA-MM-JJ).")] = None,
) -> None:
    """Jours de Répétitions (3 à 20 lignes écrites, A69) et jours de présence sur le FV (A68)."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .checks import participation

    g = _load(game).state
    names = [p.pseudo for p in g.players.values()]
    day = _iso_day(today)
    reh = [p for t in _read_pages(rehearsals, day, names, g.start) for p in t.posts]
    oth = [p for t in _read_pages(other or [], day, names, g.start) for p in t.posts]
    part = participation(reh, oth, g.start, game_masters=g.game_masters)
    for name in sorted(set(part.forum_days) | set(part.rehearsal_days), key=str.casefold):
        r = sorted(part.rehearsal_days.get(name, set()))
        f = sorted(part.forum_days.get(name, set()))
        typer.echo(f"{name} : Répétitions {_days_fr(r)} ; FV {_days_fr(f)}")
    for line in part.refused:
        typer.echo(f"# hors limites : {line}")
    for line in part.judge:
        typer.echo(f"# à juger par les MJ : {line}")


@forum_app.command("mime")
def mime_command(
    model_day: Annotated[Path, typer.Argument(help="Registre du modèle, la veille (lignes).")],
    mime_day: Annotated[Path, typer.Argument(help="Registre du Mime, ce jour (lignes).")],
    model: Annotated[str, typer.Option(help="Pseudo du modèle.")],
    mime: Annotated[str, typer.Option(help="Pseudo du Mime.")],
    before: Annotated[
        Path | None, typer.Option(help="Registre du modèle l'avant-veille (complément).")
    ] = None,
) -> None:
    """Le Mime : 7 entrées distinctes identiques au Registre de la veille de son modèle."""
    # (lazy: only this command needs it: `ronde check` and `simulate` start without it)
    from .registre import mime_check

    def read(p: Path) -> str:
        try:
            return clean(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(f"{p} : illisible : {exc}") from None

    r = mime_check(
        read(model_day),
        read(mime_day),
        model=model,
        mime=mime,
        model_day_before=read(before) if before else "",
    )
    typer.echo(f"Suggestion : {_verdict_fr(r.met)} — {r.text}")
    for line in r.matched:
        typer.echo(f"  = {line}")
    for problem in r.evidence:
        typer.echo(f"  ! {problem}")


def _verdict_fr(met: bool | None) -> str:
    """A helper's suggestion in French (``None``: the pages cannot settle it)."""
    return "à vérifier" if met is None else ("remplie" if met else "NON remplie")
