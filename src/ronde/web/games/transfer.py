"""Games for the command line: create one, find one by slug, export and import.

An export is JSON Lines: a header line (``ronde_export``), then the current log in
order, each recorded action's line (``action``, with how many ``events`` it
produced) just before its events (``event``, with the ``action`` id or ``null`` for
the creation and the engine's timers), then the actions without events (struck out,
or refused by a later correction) and the strikes, and an ``end`` line. That is
enough to import the game elsewhere with its corrections still possible (the
recorded actions are replayed by a correction). Older generations are not exported.

Every line ends with its fingerprint, ``"h"``: the first 16 hexadecimal digits of the
SHA-256 of the fingerprint of the line before (none for the header) and of the line's
text without its fingerprint. A changed digit, a line copied twice, removed or moved
breaks the chain at that very line.

Importing refuses a truncated, corrupt or altered file, naming the first line that is
not what the export wrote, and imports nothing; with ``drop_incomplete`` it keeps
every complete action before that line (and the timers before it). An export written
before the fingerprints (none in its header) proves its content otherwise: the events
re-derived from its recorded actions (each executed again in order, the timers
between them) must be the file's, line by line.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import orjson
from django.contrib.auth.models import User
from django.db import transaction

from ronde.catalog import default_catalog
from ronde.engine.clock import check_instant, start_problem
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import Event as EngineEvent
from ronde.engine.events import EventFormatError, GameCreated, from_json
from ronde.engine.evolve import evolve
from ronde.engine.game import Game as EngineGame
from ronde.engine.game import validate_setup
from ronde.text import clean_value

from . import accounts, delivery, eventstore, service
from .eventstore import event_json
from .models import Action, Event, Game, GameMaster, Strike

FORMAT = 1
#: a game's name as the store keeps it, and the delay of an MP's fallback by default
NAME_LENGTH = Game._meta.get_field("name").max_length or 120
DEFAULT_DELAY = Game._meta.get_field("delivery_delay").default


class ImportError_(Exception):
    """A file that cannot be imported: its line and the problem (French)."""

    def __init__(self, line: int | None, problem: str) -> None:
        where = f"ligne {line} : " if line else ""
        super().__init__(f"{where}{problem}")
        self.line, self.problem = line, problem


# -- creating and finding --------------------------------------------------------------------
def find(slug: str) -> Game:
    """The game called ``slug``.

    Raises:
        Game.DoesNotExist: no such game.
    """
    return Game.objects.get(slug=slug)


def create(
    slug: str,
    eng: EngineGame,
    *,
    name: str = "",
    clock: str = Game.WALL,
    invitations: dict[str, str] | None = None,
) -> Game:
    """Store a new game (the engine game holds its cast, Ronde and game masters):
    accounts for its game masters and players, then ``GameCreated``. A game master
    seat gets an invitation (its token in ``invitations``), never an existing account.

    Raises:
        ValueError: the slug is taken.
        RuleViolation: a pseudo, a game master's name or the title longer than the store
            keeps (nothing is written).
    """
    g = eng.state
    service.check_names([p.pseudo for p in g.players.values()])
    service.check_names(g.game_masters, "Nom de MJ")
    title = name or slug
    limit = Game._meta.get_field("name").max_length or 120
    if len(title) > limit:
        raise RuleViolation(
            "invalid_argument", f"Titre trop long ({len(title)} caractères, {limit} au plus)."
        )
    with transaction.atomic():
        if Game.objects.filter(slug=slug).exists():
            raise ValueError(f"la partie « {slug} » existe déjà")
        game = Game.objects.create(
            slug=slug,
            name=name or slug,
            start=g.start,
            created_by=None,  # made from the command line: no creating account
            roster=[p.pseudo for p in g.players.values()],
            cast={p.pseudo: p.character or "extra" for p in g.players.values()},
            ronde=list(g.ronde),
            options=dict(g.options),
            clock=clock,
        )
        # game masters' seats: each taken by whoever accepts its invitation (issue 9: no
        # account is ever matched by name)
        for n in g.game_masters:
            accounts.add_game_master(game, n)
        if invitations is not None:
            for (kind, _pk), inv in accounts.open_invitations(game).items():
                if kind == "gm" and inv.game_master is not None:
                    invitations[inv.game_master.name] = inv.token
        for p in g.players.values():
            accounts.add_player(game, p.pseudo)
    service.start(game, eng, None)
    return game


def game_master_user(game: Game, name: str | None = None) -> User | None:
    """The account of the game master called ``name`` (default: the first one); ``None``
    while that seat's invitation has not been accepted."""
    gms = GameMaster.objects.filter(game=game).select_related("user").order_by("pk")
    if name is not None:
        for gm in gms:
            if gm.name.casefold() == name.casefold():
                return gm.user
    first = gms.first()
    assert first is not None, "une partie a au moins un MJ"
    return first.user


# -- export ------------------------------------------------------------------------------------
def _time(t: datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def _action_line(a: Action, n_events: int, gm_of: dict[int, str]) -> dict[str, Any]:
    return {
        "action": {
            "id": a.pk,
            "action": a.action,
            "by": a.by,
            "at": a.at.isoformat(),
            "args": a.args,
            "note": a.note,
            "recorded_at": a.recorded_at.isoformat(),
            "struck": a.struck,
            "outcome": a.outcome,
            "message": a.message,
            "events": n_events,
            "recorded_by": gm_of.get(a.recorded_by_id) if a.recorded_by_id else None,
        }
    }


#: the end of a line with its fingerprint: ``,"h":"`` 16 hexadecimal digits ``"}``
_PRINT_LEN = 24


def _fingerprint(previous: str, body: bytes) -> str:
    return hashlib.sha256(previous.encode() + body).hexdigest()[:16]


def _signed(lines: Iterator[bytes]) -> Iterator[bytes]:
    """Each JSON object line (without its newline) with its fingerprint, chained."""
    previous = ""
    for body in lines:
        previous = _fingerprint(previous, body)
        yield body[:-1] + b',"h":"' + previous.encode() + b'"}\n'


def _check_print(raw: str, previous: str) -> str:
    """The fingerprint of a line if it is the one its chain says; else ``ValueError``."""
    data = raw.encode()
    if len(data) <= _PRINT_LEN or not data.endswith(b'"}') or data[-_PRINT_LEN:-18] != b',"h":"':
        raise ValueError("ligne sans empreinte (le fichier a été modifié)")
    body = data[:-_PRINT_LEN] + b"}"
    if _fingerprint(previous, body) != data[-18:-2].decode(errors="replace"):
        raise ValueError(
            "cette ligne n'est pas celle que l'export a écrite (modifiée, copiée, déplacée, "
            "ou une ligne manque avant elle)"
        )
    return data[-18:-2].decode()


def export_lines(game: Game) -> Iterator[bytes]:
    """The game as JSON Lines with fingerprints (see the module's docstring)."""
    return _signed(_export_lines(game))


def _export_lines(game: Game) -> Iterator[bytes]:
    service.current(game)
    game.refresh_from_db()
    rows = service.log_rows(game)
    counts: dict[int, int] = {}
    for r in rows:
        if r.action_id is not None:
            counts[r.action_id] = counts.get(r.action_id, 0) + 1
    actions = {a.pk: a for a in Action.objects.filter(game=game)}
    gms = list(GameMaster.objects.filter(game=game).order_by("pk").values_list("user_id", "name"))
    gm_names = [n for _u, n in gms]
    gm_of = dict(gms)
    header = {
        "ronde_export": FORMAT,
        "slug": game.slug,
        "name": game.name,
        "start": game.start.isoformat(),
        "clock": game.clock,
        "clock_at": _time(game.clock_at),
        "game_masters": gm_names,
        # the game's settings that are not house rules (those are in GameCreated)
        "delivery": game.delivery,
        "delivery_delay": game.delivery_delay,
        "etwin_auto": game.etwin_auto,
        "etwin_only": game.etwin_only,
        "prints": True,  # (each line ends with its fingerprint)
    }
    opt = 0  # (no newline: the fingerprint closes the line)
    yield orjson.dumps(header, option=opt)
    done: set[int] = set()
    for r in rows:
        if r.action_id is not None and r.action_id not in done:
            done.add(r.action_id)
            yield orjson.dumps(
                _action_line(actions[r.action_id], counts[r.action_id], gm_of), option=opt
            )
        yield orjson.dumps({"event": r.data, "action": r.action_id}, option=opt)
    for a in sorted(actions.values(), key=lambda a: (a.at, a.pk)):
        if a.pk not in done:
            yield orjson.dumps(_action_line(a, 0, gm_of), option=opt)
    for s in Strike.objects.filter(game=game).order_by("pk"):
        line = {"strike": {"action": s.action_id, "reason": s.reason, "at": s.at.isoformat()}}
        yield orjson.dumps(line, option=opt)
    yield orjson.dumps({"end": {"events": len(rows), "actions": len(actions)}}, option=opt)


# -- import ------------------------------------------------------------------------------------
@dataclass
class _ActionIn:
    line: int
    data: dict[str, Any]
    declared: int
    events: list[int] = field(default_factory=list)  # indexes in the log


@dataclass
class Parsed:
    header: dict[str, Any]
    events: list[tuple[EngineEvent, int | None]]  # (event, export action id)
    actions: dict[int, _ActionIn]
    strikes: list[dict[str, Any]]
    dropped: int = 0  # actions dropped as incomplete
    problem: str = ""  # what was dropped, for the report
    lines: list[int] = field(default_factory=list)  # the line of each event


def _reference_check(eng: EngineGame, e: EngineEvent) -> None:
    from ronde import store

    store.check_references(eng.state, e)


def parse(text: str, *, drop_incomplete: bool = False) -> Parsed:
    """Read and check an export (every event is replayed).

    Raises:
        ImportError_: the first bad line (without ``drop_incomplete``).
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise ImportError_(None, "fichier vide")
    try:
        header = clean_value(orjson.loads(lines[0]))  # (no control character enters Ronde)
    except orjson.JSONDecodeError as exc:
        raise ImportError_(1, f"JSON invalide : {exc}") from None
    if not isinstance(header, dict) or header.get("ronde_export") != FORMAT:
        raise ImportError_(1, "ce n'est pas un export de Ronde (ligne « ronde_export » attendue)")
    if (problem := _header_problem(header)) is not None:
        raise ImportError_(1, problem)
    signed = header.get("prints") is True
    previous = ""
    if signed:
        try:
            previous = _check_print(lines[0], previous)
        except ValueError as exc:
            raise ImportError_(1, str(exc)) from None
    out = Parsed(header, [], {}, [])
    eng: EngineGame | None = None
    current: _ActionIn | None = None
    ended = False
    bad: tuple[int, str] | None = None
    for n, raw in enumerate(lines[1:], 2):
        try:
            if ended:
                raise ValueError("ligne après la fin de l'export")
            if signed:
                previous = _check_print(raw, previous)
            item = clean_value(orjson.loads(raw))
            if not isinstance(item, dict) or len(item) == 0:
                raise ValueError("chaque ligne est un objet JSON")
            if "event" in item:
                e = from_json(item["event"])
                aid = item.get("action")
                if eng is None:
                    if not isinstance(e, GameCreated):
                        raise ValueError("un journal de partie commence par game_created")
                    validate_setup(list(e.players), e.cast, list(e.ronde), list(e.game_masters))
                    if (problem := start_problem(date.fromisoformat(e.start))) is not None:
                        raise ValueError(problem)
                    service.check_names(e.players)
                    service.check_names(e.game_masters, "Nom de MJ")
                    eng = EngineGame(e, default_catalog())
                else:
                    _reference_check(eng, e)
                    evolve(eng.state, e)
                    eng.log.append(e)
                if aid is not None:
                    if current is None or current.data["id"] != aid:
                        raise ValueError(f"événement d'une action absente ({aid})")
                    current.events.append(len(out.events))
                    if len(current.events) > current.declared:
                        raise ValueError("plus d'événements que l'action n'en déclare")
                out.events.append((e, aid))
                out.lines.append(n)
            elif "action" in item:
                a = item["action"]
                for key in ("id", "action", "by", "at", "args", "events"):
                    if key not in a:
                        raise ValueError(f"action sans « {key} »")
                check_instant(datetime.fromisoformat(a["at"]))
                if not isinstance(a["args"], dict) or not isinstance(a["id"], int):
                    raise ValueError("action mal formée (id entier, args objet)")
                # (what the store could not keep: refused as a live command is)
                service.check_command(str(a["action"]), str(a["by"]), a["args"])
                if a["id"] in out.actions:
                    raise ValueError(f"action {a['id']} en double")
                if current is not None and len(current.events) < current.declared:
                    raise ValueError(f"l'action de la ligne {current.line} est incomplète")
                current = _ActionIn(n, a, int(a["events"]))
                out.actions[a["id"]] = current
            elif "strike" in item:
                s = item["strike"]
                if s.get("action") not in out.actions:
                    raise ValueError("correction d'une action absente")
                out.strikes.append(s)
            elif "end" in item:
                if current is not None and len(current.events) < current.declared:
                    raise ValueError(f"l'action de la ligne {current.line} est incomplète")
                if item["end"].get("events") != len(out.events):
                    raise ValueError("nombre d'événements différent de celui annoncé")
                ended = True
            else:
                raise ValueError("ligne inconnue")
        except orjson.JSONDecodeError as exc:
            bad = (n, f"ligne tronquée ou JSON invalide ({exc})")
        except (EventFormatError, ValueError, KeyError, TypeError) as exc:
            bad = (n, str(exc))
        except RuleViolation as rv:
            bad = (n, rv.message)
        except Exception as exc:  # an event that does not fit the game so far
            bad = (n, f"événement incohérent avec la partie : {exc!r}")
        if bad is not None:
            break
    if bad is None and not ended:
        bad = (len(lines) + 1, "fichier tronqué (pas de ligne de fin)")
    if not signed and len(out.events) > 1:
        # (an export without fingerprints: the first event its actions do not give is
        # named, if it comes before what the reading found)
        derived = _rederived(out, complete=bad is None)
        if derived is not None and (bad is None or derived[0] < bad[0]):
            bad = derived
    if bad is None:
        return out
    if not drop_incomplete:
        raise ImportError_(*bad)
    kept = _drop_incomplete(out, bad)
    if not signed and (still := _rederived(kept, complete=False)) is not None:
        raise ImportError_(*still)  # (what would be kept is not what the actions give)
    return kept


def _header_problem(h: dict[str, Any]) -> str | None:
    """What the header holds that the store cannot keep (French), or ``None``. The
    settings an older export does not hold take their defaults."""
    name = h.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > NAME_LENGTH):
        return f"nom de partie invalide (du texte, {NAME_LENGTH} caractères au plus)"
    if _delivery(h) is None:
        return (
            f"remise des messages privés invalide (« {h.get('delivery')} », "
            f"{h.get('delivery_delay')} h : l'une de {', '.join(dict(Game.DELIVERIES))}, "
            "un délai de 1 à 72 heures)"
        )
    for key in ("etwin_auto", "etwin_only"):
        if not isinstance(h.get(key, False), bool):
            return f"réglage « {key} » invalide (vrai ou faux)"
    return None


def _delivery(h: dict[str, Any]) -> tuple[str, int] | None:
    """The header's delivery of private messages and its delay, read as the setup page
    reads them (an older export without them: the defaults); ``None`` if invalid."""
    mode = h.get("delivery", Game.PORTAL_THEN_MP)
    delay = h.get("delivery_delay", DEFAULT_DELAY)
    return delivery.read_setting({"delivery": str(mode), "delivery_delay": str(delay)})


def _rederived(parsed: Parsed, *, complete: bool = True) -> tuple[int, str] | None:
    """An export without fingerprints: its events must be those its recorded actions give
    when executed again in order from ``GameCreated`` (the timers between them). The
    first line that differs and why, or ``None``.

    ``complete``: the file's last timers too (not when what follows was dropped)."""
    events = parsed.events
    created = events[0][0]
    assert isinstance(created, GameCreated)
    eng = EngineGame(created, default_catalog())
    derived: list[EngineEvent] = [created]
    order: list[int] = []
    for _e, aid in events:
        if aid is not None and (not order or order[-1] != aid):
            order.append(aid)
    for aid in order:
        a = parsed.actions[aid].data
        cmd = Command(str(a["action"]), str(a["by"]), datetime.fromisoformat(a["at"]), a["args"])
        try:
            derived += eng.advance(cmd.at)  # (the timers before it)
            derived += eng.execute(cmd)
        except RuleViolation as rv:
            first = next(i for i, (_e, x) in enumerate(events) if x == aid)
            return parsed.lines[first], f"action refusée quand on la rejoue : {rv.message}"
    if len(events) > 1:
        derived += eng.advance(events[-1][0].at)
    for i, (e, _aid) in enumerate(events):
        if i >= len(derived) or eventstore.canonical(derived[i]) != eventstore.canonical(e):
            return parsed.lines[i], (
                "cet événement n'est pas celui que donnent les actions enregistrées (le "
                "fichier a été modifié)"
            )
    if complete and len(derived) > len(events):
        return parsed.lines[-1], "il manque des événements après cette ligne"
    return None


def _drop_incomplete(out: Parsed, bad: tuple[int, str]) -> Parsed:
    """Keep the log up to the last complete action before the bad line: every event
    from the bad line on, and every action with an event there (or read there), go."""
    n, problem = bad
    cut = sum(1 for line in out.lines if line < n)
    for a in out.actions.values():
        if a.events and a.events[0] < cut and (a.events[-1] >= cut or len(a.events) < a.declared):
            cut = a.events[0]  # (an action is kept whole or not at all)
    dropped = 0
    for aid, a in list(out.actions.items()):
        if a.line >= n or len(a.events) < a.declared or any(i >= cut for i in a.events):
            del out.actions[aid]
            dropped += 1
    out.events = out.events[:cut]
    out.lines = out.lines[:cut]
    if not out.events:
        raise ImportError_(n, f"{problem} (rien de complet avant cette ligne)")
    out.dropped = dropped
    out.problem = f"ligne {n} : {problem}"
    return out


def _imported_note(d: dict[str, Any]) -> str:
    """An imported action's note, with the game master who recorded it originally."""
    note = str(d.get("note", ""))
    who = d.get("recorded_by")
    if who:
        note = f"{note} (enregistré par {who} avant l'import)".strip()
    return note


def import_game(parsed: Parsed, slug: str) -> Game:
    """Store a parsed export as a new game called ``slug`` (one transaction).

    Raises:
        ValueError: the slug is taken.
    """
    h = parsed.header
    created = parsed.events[0][0]
    assert isinstance(created, GameCreated)
    with transaction.atomic():
        if Game.objects.filter(slug=slug).exists():
            raise ValueError(f"la partie « {slug} » existe déjà")
        names = list(h.get("game_masters") or created.game_masters)
        t = service.now()
        clock_at = h.get("clock_at")
        setting = _delivery(h)
        assert setting is not None  # (checked by parse)
        game = Game.objects.create(
            slug=slug,
            name=str(h.get("name") or slug),
            start=date.fromisoformat(created.start),
            created_by=None,  # imported from the command line: no creating account
            roster=list(created.players),
            cast=dict(created.cast),
            ronde=list(created.ronde),
            options=dict(created.options),
            started_at=t,
            generation=1,
            clock=Game.MANUAL if h.get("clock") == Game.MANUAL else Game.WALL,
            clock_at=datetime.fromisoformat(clock_at) if clock_at else None,
            delivery=setting[0],
            delivery_delay=setting[1],
            etwin_auto=h.get("etwin_auto", False),
            etwin_only=h.get("etwin_only", False),
        )
        for n in names:
            accounts.add_game_master(game, n)  # seats with invitations, no account by name
        saved: dict[int, Action] = {}
        # in the order they were recorded (their ids): among the actions of one instant, a
        # correction executes them again in that order, and those that made no event (a
        # refused one) come after the others in the file
        for aid, a in sorted(parsed.actions.items()):
            d = a.data
            saved[aid] = Action.objects.create(
                game=game,
                action=str(d["action"]),
                by=str(d["by"]),
                at=datetime.fromisoformat(d["at"]),
                args=dict(d["args"]),
                note=_imported_note(d),
                recorded_at=datetime.fromisoformat(d.get("recorded_at") or d["at"]),
                struck=bool(d.get("struck", False)),
                outcome=str(d.get("outcome", "applied")),
                message=str(d.get("message", "")),
                recorded_by=None,  # accounts do not travel; the note keeps who recorded it
            )
        rows = [
            Event(
                game=game,
                seq=i + 1,
                generation=1,
                type=e.TYPE,
                at=e.at,
                data=event_json(e),
                action=saved.get(aid) if aid is not None else None,
                recorded_by=saved[aid].recorded_by if aid is not None and aid in saved else None,
                recorded_at=t,
            )
            for i, (e, aid) in enumerate(parsed.events)
        ]
        Event.objects.bulk_create(rows, batch_size=500)
        for s in parsed.strikes:
            if s["action"] in saved:
                Strike.objects.create(
                    game=game,
                    action=saved[s["action"]],
                    reason=str(s.get("reason", "")),
                    by=None,
                    at=datetime.fromisoformat(s["at"]),
                    generation=1,
                )
        game.last_seq = len(rows)
        game.version = uuid.uuid4().hex
        game.save(update_fields=["last_seq", "version"])
        eng = service.load(game)
        for p in eng.state.players.values():
            accounts.add_player(game, p.pseudo)
    return game
