"""The player's pages: "Aujourd'hui" first, then his character, messages, trials and
requests folded by topic; the chorus.

Every page is built from the player's own view (``ronde.engine.views.view``) and
his "today" view (``ronde.engine.today.today_view``); the forms offered are those
of the actions he may take now, items are chosen by their French name among
those his Joker or a delivery accepts (asked of his character's rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Case, Max, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_POST

from ronde.catalog import default_catalog
from ronde.engine.clock import day_of, parse_time
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import MessageSent
from ronde.engine.items import BOX_POINTS
from ronde.engine.names import BY_ID
from ronde.engine.state import GameState
from ronde.engine.today import items_requested, joker_refusal, jokers_allowed, today_view
from ronde.engine.views import View, player_brief, view

from . import clocks, delivery, labels, notify, rawrows, service, viewcache, vocabulary
from .access import number, player_page
from .models import Action, Game, Membership, Request
from .vocabulary import Spec

if TYPE_CHECKING:  # a type only: the web holds the engine's game through its service
    from ronde.engine.game import Game as EngineGame

#: requests a player may have waiting for the game masters at once
MAX_PENDING = 12

#: two looks at the page closer than this are one visit ("new" stays new meanwhile)
VISIT_GAP = timedelta(minutes=20)


@dataclass
class Seen:
    """A player's page data: his view, his "today", and the state to ask the rules."""

    v: View
    today: View
    g: GameState
    seat: str
    #: the engine's game (to ask its rules whether a power may be used now)
    eng: Any = None
    #: a copy of it the rules are asked on (unchanged by a refusal: kept until a command
    #: is accepted on it)
    copy: Any = None


def _player_view(request: HttpRequest, game: Game, member: Membership) -> Seen:
    return _seen(service.current(game, request.user), member)


def _seen(eng: EngineGame, member: Membership) -> Seen:
    g = eng.state
    seat = g.seat_of(member.pseudo)
    if seat is None:
        # replaced (replace_player): this account no longer plays
        raise Http404(_("Ce compte ne joue plus dans cette partie."))
    return Seen(view(g, member.pseudo), today_view(g, seat), g, seat, eng)


# -- items, by French name ----------------------------------------------------------------
def _by_name(ids: list[str]) -> list[tuple[str, str]]:
    catalog = default_catalog()
    return sorted(((i, catalog.name(i)) for i in ids), key=lambda r: r[1].casefold())


def delivery_items(g: GameState, seat: str) -> list[tuple[str, str]]:
    """Items a delivery to the game masters accepts without being reported: decoration
    items (A73's definition), boxes, and what his character asks him to send."""
    catalog = g.catalog
    requested = items_requested(g, seat)
    definition = g.opt("A73")
    ids = [
        i
        for i in catalog.deco
        if catalog.is_decoration(i, definition=definition) or i in BOX_POINTS or i in requested
    ]
    return _by_name(ids)


def joker_items(g: GameState, seat: str) -> list[tuple[str, str]]:
    """The items (or pairs of identical items, the Mime) that make his Joker, as his
    character's rules say (``joker_refusal``); the value is the list sent."""
    if not jokers_allowed(g, seat):
        return []
    out = []
    for item, name in _by_name(list(g.catalog.deco)):
        if joker_refusal(g, seat, [item]) is None:
            out.append((item, name))
        elif joker_refusal(g, seat, [item, item]) is None:
            out.append((f"{item},{item}", _("2 × %(item)s") % {"item": name}))
    return out


# -- the forms a player may send now --------------------------------------------------------
def _held(v: View) -> str | None:
    me = v["me"]
    return me.get("character") if me.get("masked") else None


#: a power used once and for all, as the player's own view tells it
_ONCE: dict[str, Any] = {
    "declare_destiny": lambda me: bool(me.get("schedule")),
    "choose_phrase": lambda me: bool(me.get("phrase")),
    "ask": lambda me: me.get("questions_left") == 0,
}


def _done(action: str, me: View) -> bool:
    check = _ONCE.get(action)
    return bool(check and check(me))


#: a power used once a day, as the player's own view tells it (``me``, the day)
_ONCE_A_DAY: dict[str, Any] = {
    "ask": lambda me, day: any(q.get("day") == day for q in me.get("questions") or ()),
    # a sleep chosen today starts tomorrow (``day`` of a sleeper: the day he sleeps)
    "put_to_sleep": lambda me, day: any(s.get("day") == day + 1 for s in me.get("sleepers") or ()),
    "order": lambda me, day: bool(me.get("ordered_today")),
    "declare_not": lambda me, day: bool(me.get("declared_today")),
    "reveal_secret": lambda me, day: any(s.get("day") == day for s in me.get("secrets") or ()),
    # the Hero accuses his monster once he has one (R7.17)
    "accuse_monster": lambda me, day: not me.get("monster_character"),
    # the Hero hunts a monster: a new one only when the rules ask him for it (R7.17)
    "designate_monster": lambda me, day: "new_target_due" in me and me["new_target_due"] is None,
}


def _done_today(action: str, me: View, day: int) -> bool:
    check = _ONCE_A_DAY.get(action)
    return bool(check and check(me, day))


def offered_players(seen: Seen, action: str) -> list[str]:
    """The players a form of ``action`` offers: the masked players other than himself,
    as he knows the game (an accused whose verdict is not announced is still masked for
    him, A77), less those his own power already named (Pierrot's sleepers, the Little
    Mermaid's orders, the Hero's declarations)."""
    brief = player_brief(seen.g, seen.seat)
    me = seen.v["me"]
    viewer = seen.v["viewer"]
    masked = [p for p in brief["masked_players"] if p != viewer]
    if action == "chorus_vote":
        return sorted(masked, key=str.casefold)
    used: set[str] = set()
    if action == "put_to_sleep":
        used = {str(x.get("player")) for x in me.get("sleepers") or ()}
    elif action == "order":
        used = {str(x.get("player")) for x in me.get("orders") or ()}
    elif action == "declare_not":
        used = {str(x) for x in me.get("declared") or ()}
    return sorted((p for p in masked if p not in used), key=str.casefold)


def _after_unmasking(seen: Seen) -> list[Spec]:
    """What the rules still give an unmasked player (R8.4: no trial action, no power):
    the Diva's last breath (R7.14.6) and the guess of the Ronde (R10.3, A71: masked or
    unmasked). The chorus votes on its own page."""
    out = []
    if seen.today["last_breath_until"] is not None:
        out.append(vocabulary.BY_NAME["last_breath"])
    if not seen.v.get("guess_made"):
        out.append(vocabulary.BY_NAME["guess_ronde"])
    return out


def available_specs(seen: Seen, *, chorus: bool) -> list[Spec]:
    """The requests the player may send now (the engine still judges each one)."""
    v, today = seen.v, seen.today
    if seen.g.game_ended:
        return []
    if chorus:
        if "chorus" not in v or not today["chorus_actions"]:
            return []
        return vocabulary.player_powers(None, chorus=True)
    character = _held(v)
    if character is None:
        # a masked player without a character yet (before the roles are revealed at the
        # end of J1) has nothing to ask; an unmasked one keeps what R8.4 leaves him
        return [] if v["me"].get("masked") else _after_unmasking(seen)
    roles = [character, *dict(v["me"].get("given_roles") or {})]
    specs: list[Spec] = []
    seen_names: set[str] = set()
    for role in roles:
        for s in vocabulary.player_powers(role, chorus=False):
            if s.name not in seen_names:
                seen_names.add(s.name)
                specs.append(s)
    out = []
    for s in specs:
        if s.name == "open_trial" and not today["may_open"]:
            continue
        if s.name == "complain" and not (today["complain_in"] and today["anonymous"]):
            continue  # a public complaint is a post in the trial's topic (R5.1)
        if s.name == "guess_ronde" and v.get("guess_made"):
            continue
        if _done(s.name, v["me"]) or _done_today(s.name, v["me"], int(today["day"])):
            continue
        if s.name == "last_breath":  # only once unmasked (R7.14.6)
            continue
        if s.name == "use_joker" and not (today["jokers_left"] and today["constraint"]):
            continue
        if (
            s.name == "use_joker"
            and today["constraint"].get("covered")
            and seen.g.opt("A24") != "named_day"
        ):
            continue  # today's constraint is already waived: a Joker would cover nothing
        out.append(s)
    return out


def power_forms(game: Game, seen: Seen, *, chorus: bool) -> list[dict[str, Any]]:
    """The request forms a player may send now, with the choices each field offers.

    Built from the player's own view, his "today", public facts (pseudos of the game,
    every character's name in alphabetical order, the game masters' names) and the
    items his own character's rules accept.
    """
    v, today = seen.v, seen.today
    g = seen.g
    open_trials = [
        (t["number"], _("n°%(n)s — %(who)s") % {"n": t["number"], "who": ", ".join(t["accused"])})
        for t in v["trials"]
        if t["status"] == "open"
    ]
    complain_in = [
        (
            t["number"],
            _("n°%(n)s — %(who)s (%(as)s), jusqu'à %(until)s")
            % {
                "n": t["number"],
                "who": ", ".join(t["accused"]),
                "as": labels.character(t["supposed"]),
                "until": t["deadline"],
            },
        )
        for t in today["complain_in"]
    ]
    gms = list(g.game_masters)  # the engine refuses any other name
    targets = [(c, labels.character(c)) for c in v["targets"]]
    out = []
    for s in available_specs(seen, chorus=chorus):
        offered = offered_players(seen, s.name)
        if not offered and any(a.kind in ("player", "accused") and a.required for a in s.args):
            continue  # nobody he may name
        if s.name == "send_items":
            items = delivery_items(seen.g, seen.seat)
        elif s.name == "use_joker":
            items = joker_items(seen.g, seen.seat)
            if not items:
                continue
        else:
            items = []
        fields = field_choices(
            s,
            players=offered,
            characters=_characters_for(seen, s.name),
            trials=complain_in if s.name == "complain" else open_trials,
            targets=targets,
            gms=gms,
            items=items,
            chorus_actions=today["chorus_actions"],
            catalog_items=_by_name(list(seen.g.catalog.deco)) if s.name == "order" else None,
        )
        shown = [f for f in fields if not f["arg"].ruling]
        form: dict[str, Any] = {"spec": s, "fields": shown, "hidden": []}
        if s.name == "complain":
            # only an anonymous complaint is sent to the game masters (R5.6); a public
            # one is a post in the trial's topic (R5.1)
            form["fields"] = [f for f in shown if f["arg"].name != "anonymous"]
            form["hidden"] = [("anonymous", "on")]
            form["label"] = _("Porter plainte anonymement (par MP aux MJ)")
            form["note"] = _(
                "Une plainte publique est un message dans le sujet du Procès sur le forum "
                "(la formule de la page) : les MJ la relèvent. Ici, seulement une plainte "
                "anonyme, à l'heure où les MJ la reçoivent."
            )
        if s.name in _ONE_BY_ONE:
            _keep_accepted(game, seen, s, form, _ONE_BY_ONE[s.name])
        if any(f["arg"].required and f.get("choices") == [] for f in form["fields"]):
            continue  # nothing it could name
        if _refused_now(game, seen, s, form):
            continue
        if s.name == "use_joker":
            form["note"] = _(
                "Un Joker vous dispense de votre contrainte pour un jour. Envoyez d'abord "
                "l'objet par MP dans le coffre d'un MJ, puis cette demande en nommant ce MJ. "
                "Jokers restants : %(n)s."
            ) % {"n": seen.today["jokers_left"]}
        if s.name == "last_breath":
            form["note"] = _(
                "Une seule fois, jusqu'à la fin du J%(d)s : un Personnage que vous n'avez "
                "jamais désigné ; s'il a porté plainte contre vous, il est démasqué."
            ) % {"d": seen.today["last_breath_until"]}
        out.append(form)
    return out


def _characters_for(seen: Seen, action: str) -> list[tuple[str, str]] | None:
    """The Characters a form may name (``None``: every one): a question (Woody), the
    chorus's investigation, the Diva's designations name a masked Character (R2.12), the
    Diva never her own."""
    if action == "ask":
        return offered_characters(seen)
    if action == "designate_monster":  # never his own Character (R7.17)
        own = seen.v["me"].get("character")
        return [(c, n) for c, n in offered_characters(seen) if c != own]
    if action in ("chorus_vote", "designate", "last_breath"):
        own = seen.v["me"].get("character") if action == "designate" else None
        return [(c, n) for c, n in offered_characters(seen) if c not in ("extra", own)]
    return None


def publicly_fallen(seen: Seen) -> dict[str, int]:
    """How many players of each Character everyone knows to be unmasked: the forum's
    announcements of an unmasking (R8.1; those of a verdict not yet announced wait for
    it, A77), and the unmasked identities he knows (a transfigured player's old
    Character stays fallen)."""
    fallen: dict[str, set[str]] = {}
    log = seen.eng.log if seen.eng is not None else ()
    for e in log:
        if isinstance(e, MessageSent) and e.public and e.kind == "unmasking":
            if e.data.get("held") is not None:
                continue  # (published again when its verdict is announced)
            character, who = e.data.get("character"), e.data.get("pseudo")
            if isinstance(character, str) and isinstance(who, str):
                fallen.setdefault(character, set()).add(who)
    brief = player_brief(seen.g, seen.seat)
    masked = set(brief["masked_players"])
    for pseudo, character in (brief["known"] or {}).items():
        if pseudo not in masked:
            fallen.setdefault(character, set()).add(pseudo)
    return {c: len(who) for c, who in fallen.items()}


def offered_characters(seen: Seen) -> list[tuple[str, str]]:
    """The Characters a question may name (Woody, R2.12): every one but those he knows
    to be unmasked in full (all their players unmasked, as he knows the game; under A75
    ``any_unmasked``, every one)."""
    every = vocabulary.character_choices(extra=True)
    if seen.g.opt("A75") == "any_unmasked":
        return every
    fallen = publicly_fallen(seen)
    return [
        (c, name)
        for c, name in every
        if c == "extra" or fallen.get(c, 0) < (BY_ID[c].players if c in BY_ID else 1)
    ]


#: refusals about the player's own power and the day, whatever he names (a window, a
#: daily or a game-long limit): a form the rules refuse so now is not offered
_NOT_NOW = frozenset({"out_of_window", "daily_limit", "power_exhausted"})


#: and for some powers, a refusal about his own state whatever he names (Destiny's
#: shift: only when the Character of her day is unmasked, as she knows the game)
_NOT_NOW_TOO: dict[str, frozenset[str]] = {"shift_destiny": frozenset({"not_allowed"})}
#: fields whose every option is asked of the rules: a complaint's legal target when
#: anonymous; the Devil's Advocate and Chucky in a trial where they posted (A37); the
#: Diva's last breath, never a Character she designated (R7.14.6)
_ONE_BY_ONE: dict[str, str] = {
    "complain": "trial",
    "cancel_trial": "trial",
    "shorten_trial": "trial",
    "last_breath": "character",
}


def _askable(seen: Seen) -> bool:
    """Whether the rules may be asked about his forms: not for the accused of a verdict
    still to be announced (A77: a refusal could tell him the verdict)."""
    viewer = seen.v["viewer"]
    return seen.eng is not None and not any(
        t["status"] == "concluded" and viewer in t["accused"] for t in seen.v["trials"]
    )


def _first_args(form: dict[str, Any]) -> dict[str, Any]:
    """The form's arguments with the first choice of each field (hidden ones included)."""
    args: dict[str, Any] = {name: True for name, _v in form.get("hidden", [])}
    for f in form["fields"]:
        choices = f.get("choices")
        if not choices:
            continue
        value = choices[0][0]
        if f["arg"].kind == "items":
            value = str(value).split(",")
        args[f["arg"].name] = value
    return args


def _refusal(game: Game, seen: Seen, action: str, args: dict[str, Any]) -> str | None:
    """The code of the engine's refusal of ``action`` now (``None``: accepted), asked of
    a copy of the game: nothing is recorded. The engine reads a player's command as he
    knows the game (A77)."""
    copy = seen.copy if seen.copy is not None else service.replayed(seen.eng)
    now = service.game_now(game)
    clock = copy.state.clock
    at = now if clock is None or now >= clock else clock
    try:
        copy.execute(Command(action, seen.v["viewer"], at, args))
    except RuleViolation as rv:
        seen.copy = copy  # (a refused command changed nothing)
        return rv.code
    seen.copy = None
    return None


def _refused_now(game: Game, seen: Seen, spec: Spec, form: dict[str, Any]) -> bool:
    """Whether the engine refuses ``spec`` now for a reason of the player's own (one of
    :data:`_NOT_NOW`), with the form's first choices."""
    if spec.chorus or not _askable(seen):
        return False
    code = _refusal(game, seen, spec.name, _first_args(form))
    return code is not None and (code in _NOT_NOW or code in _NOT_NOW_TOO.get(spec.name, ()))


def _keep_accepted(game: Game, seen: Seen, spec: Spec, form: dict[str, Any], name: str) -> None:
    """Keep in the form's picker ``name`` only the options the rules accept for him now."""
    if not _askable(seen):
        return
    for f in form["fields"]:
        if f["arg"].name != name or not f.get("choices"):
            continue
        base = _first_args(form)
        f["choices"] = [
            (n, label)
            for n, label in f["choices"]
            if _refusal(game, seen, spec.name, {**base, f["arg"].name: n}) is None
        ]


def field_choices(
    spec: Spec,
    *,
    players: list[str],
    characters: list[tuple[str, str]] | None = None,
    trials: list[tuple[int, str]],
    targets: list[tuple[str, str]] | None,
    gms: list[str],
    items: list[tuple[str, str]] | None = None,
    chorus_actions: list[str] | None = None,
    catalog_items: list[tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Each argument of ``spec`` with the options of its ``<select>`` (if any);
    ``multiple`` for a list of items chosen by name."""
    out = []
    for arg in spec.args:
        choices: list[tuple[Any, Any]] | None = None
        multiple = False
        if arg.kind in ("player", "accused"):
            choices = [(p, p) for p in players]
        elif arg.kind == "trial":
            choices = list(trials)
        elif arg.kind == "target":
            choices = list(targets) if targets is not None else vocabulary.character_choices()
        elif arg.kind == "character":
            choices = list(characters) if characters is not None else vocabulary.character_choices()
        elif arg.kind == "character_or_extra":
            every = vocabulary.character_choices(extra=True)
            choices = list(characters) if characters is not None else every
        elif arg.kind == "gm":
            choices = [(g, g) for g in gms]
        elif arg.kind == "choice":
            choices = list(arg.choices)
            if spec.name == "chorus_vote" and chorus_actions is not None:
                choices = [c for c in choices if c[0] in chorus_actions]
            if spec.name == "order" and not trials:  # no open trial to complain in
                choices = [c for c in choices if c[0] != "complain"]
        elif arg.kind == "items" and items:
            choices = list(items)
            multiple = spec.name != "use_joker"
        elif arg.name == "item" and catalog_items:  # an item to take (the Mermaid's order)
            choices = list(catalog_items)
        elif spec.name == "order" and arg.name == "trial":  # the trial of an order to complain
            choices = list(trials)
        out.append({"arg": arg, "choices": choices, "multiple": multiple})
    return out


# -- "new since your last visit" ------------------------------------------------------------
def _visit(game: Game, member: Membership) -> datetime | None:
    """Record this look at the page; return the instant before which nothing is new.
    Game time (a rehearsal's manual clock): what is new is told by the game's times, and
    the game masters' "Remise" page shows the visit as a game time."""
    now = clocks.game_now(game)
    last = member.last_visit
    if last is not None and timedelta(0) <= now - last < timedelta(minutes=1):
        return member.visit_before  # a reload: no write
    if last is None or now - last >= VISIT_GAP:
        member.visit_before = last
    member.last_visit = now
    Membership.objects.filter(pk=member.pk).update(
        last_visit=member.last_visit, visit_before=member.visit_before
    )
    return member.visit_before


def _messages(
    game: Game, v: View, since: datetime | None, today: int, asked: str = ""
) -> dict[str, Any]:
    """The viewer's messages, newest first: new ones (since ``since``, at most 30), and
    the private ones and public announcements of one day (``asked``: ``"3"`` for J3;
    by default today, or the last day with a message), with the days that have some."""
    new: list[View] = []
    by_day: dict[int, dict[str, list[View]]] = {}
    for m in reversed(v["messages"]):
        row = dict(m)
        try:
            at = parse_time(m["time"], game.start)
        except (RuleViolation, ValueError):
            at = None
        row["new"] = since is None or (at is not None and at >= since.replace(second=0))
        if row["new"] and len(new) < 30:
            new.append(row)
        day = max(day_of(game.start, at), 0) if at is not None else 0
        lists = by_day.setdefault(day, {"private": [], "public": []})
        lists["public" if m["public"] else "private"].append(row)
    # what was said to him first, then the public announcements (each newest first)
    new.sort(key=lambda m: bool(m["public"]))
    days = sorted(set(by_day) | {max(today, 0)})
    day = int(asked) if asked.isdigit() and int(asked) in days else max(today, 0)
    if day not in by_day and not asked and by_day:
        day = max(by_day)  # nothing yet today: the last day that said something
    shown = by_day.get(day, {"private": [], "public": []})
    return {
        "new": new,
        "private": shown["private"],
        "public": shown["public"],
        "day": day,
        "days": [
            {
                "day": d,
                "private": len(by_day.get(d, {}).get("private", [])),
                "public": len(by_day.get(d, {}).get("public", [])),
            }
            for d in days
        ],
        "n_private": sum(len(x["private"]) for x in by_day.values()),
        "n_public": sum(len(x["public"]) for x in by_day.values()),
    }


#: an accepted request whose action no longer counts (``undone``: 2 struck out by the
#: game masters, 1 refused by a later correction); the reason, a game masters' note, is
#: never shown to the player
_UNDONE = {
    2: _lazy("acceptée, puis annulée par les MJ (action rayée)"),
    1: _lazy("acceptée, puis devenue impossible après une correction des MJ"),
}


def _request_rows(requests: Any, start: date) -> list[dict[str, Any]]:
    out = []
    for r in requests:
        status = labels.request_status(r.status)
        undone = int(getattr(r, "undone", 0) or 0)
        if r.status == Request.ACCEPTED and undone in _UNDONE:
            status = str(_UNDONE[undone])
        out.append(
            {
                "req": r,
                "time": vocabulary.game_time_label(start, r.created_at),
                "sentence": labels.request_sentence(r.action, r.args),
                "status": status,
                "message": labels.humanize_all(r.message) if r.message else "",
            }
        )
    return out


def _about_today(sentences: list[str], day: int) -> list[str]:
    """The sentences of what his character knows that speak of today (its duty of the
    day, today's theme, a right still open today ...): repeated in "Aujourd'hui"."""
    today = re.compile(rf"aujourd'hui|du jour|^J{day} |(?:du|au) J{day}(?![\w])", re.IGNORECASE)
    return [s for s in sentences if today.search(s)]


def _split_trials(v: View) -> tuple[list[View], list[View]]:
    trials = list(reversed(v["trials"]))
    return (
        [t for t in trials if t["status"] == "open"],
        [t for t in trials if t["status"] != "open"],
    )


def _player_body(
    game: Game, member: Membership, eng: EngineGame, since: datetime | None, asked: str
) -> dict[str, Any]:
    """What the player page shows of the engine, rendered (cached per version)."""
    seen = _seen(eng, member)
    v = seen.v
    forms = power_forms(game, seen, chorus=False)
    open_trials, ended_trials = _split_trials(v)
    ctx = {
        "game": game,
        "v": v,
        "today": seen.today,
        "was": labels.character(v["me"]["was"]) if v["me"].get("was") else "",
        "private": v["me"].get("private_fr", []),
        "private_today": _about_today(v["me"].get("private_fr", []), seen.today["day"]),
        "powers": forms,
        "power_names": [(p["spec"].name, p["spec"].label) for p in forms],
        "chorus_actions": [labels.chorus_action(a) for a in seen.today["chorus_actions"]],
        "msgs": _messages(game, v, since, seen.today["day"], asked),
        "asked": bool(asked),
        "since": since,
        "open_trials": open_trials,
        "ended_trials": ended_trials,
        # the same cards for most players: rendered once per content
        "open_cards": viewcache.rendered("games/_trial_cards.html", {"trials": open_trials}),
        "ended_cards": viewcache.rendered("games/_trial_cards.html", {"trials": ended_trials}),
    }
    # the body depends on nothing but this: rendered again only when it changes
    shown = (game.slug, game.start, v, seen.today, forms, since, asked)
    return viewcache.once(
        ("player-body", shown),
        lambda: {
            "viewer": v["viewer"],
            "chorus": "chorus" in v,
            "top": render_to_string("games/_player_top.html", ctx),
            "points": render_to_string("games/_player_points.html", ctx),
        },
    )


#: the requests listed on the player's page (newest first)
SHOWN_REQUESTS = 50
#: every column of a request (all but its game and membership: the page's own)
_REQUEST = rawrows.Columns(Request, "r", exclude=("game", "membership"))
_REQUESTS_SQL: dict[str, str] = {}


def _stored_requests(member: Membership) -> tuple[tuple[Any, ...], ...]:
    """The player's requests shown on his page, as stored (one hand-written query, see
    :mod:`.rawrows`): the page's key (built again when they change), and what it lists."""
    conn = connections[DEFAULT_DB_ALIAS]
    sql = _REQUESTS_SQL.get(conn.vendor)
    if sql is None:
        qn = conn.ops.quote_name
        r = qn("r")
        a = qn("a")
        undone = (
            f"(SELECT MAX(CASE WHEN {a}.{qn('struck')} THEN 2 "
            f"WHEN {a}.{qn('outcome')} = 'refused' THEN 1 ELSE 0 END) "
            f"FROM {qn(Action._meta.db_table)} {a} WHERE {a}.{qn('request_id')} = {r}.{qn('id')})"
        )
        sql = _REQUESTS_SQL[conn.vendor] = (
            f"SELECT {_REQUEST.sql(conn)}, {undone} FROM {qn(Request._meta.db_table)} {r} "
            f"WHERE {r}.{qn('membership_id')} = %s "
            f"ORDER BY {r}.{qn('created_at')} DESC, {r}.{qn('id')} DESC LIMIT {SHOWN_REQUESTS}"
        )
    return tuple(tuple(row) for row in rawrows.fetch(sql, [member.pk]))


def _hashable(rows: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    try:
        hash(rows)
    except TypeError:  # a driver that decodes JSON itself
        return tuple(repr(r) for r in rows)
    return rows


def _player_context(
    request: HttpRequest,
    game: Game,
    member: Membership,
    since: datetime | None,
    asked: str,
    stored: tuple[tuple[Any, ...], ...],
) -> dict[str, Any]:
    body = viewcache.cached(
        game,
        member.pseudo,
        ("player", since, asked),
        lambda eng: _player_body(game, member, eng, since, asked),
        request.user,
    )
    conn = connections[DEFAULT_DB_ALIAS]
    requests = []
    for row in stored:  # its columns, then whether its action was undone
        r = _REQUEST.build(conn, row[:-1])
        r.membership = member
        r.undone = row[-1]
        requests.append(r)
    return {
        "game": game,
        "member": member,
        "body": body,
        "requests": _request_rows(requests, game.start),
    }


@player_page
def player(request: HttpRequest, game: Game, member: Membership) -> HttpResponse:
    """Today first (constraint, quota, rights, trials to join, news), then the rest.

    Everything the engine tells is built once per version of the game, viewer, last
    visit and day of messages shown (:mod:`.viewcache`), and the whole page once per
    version and state of the player's requests: a request then costs three queries
    (the user, his membership with its game, his requests as stored; a fourth, once
    a minute, records the visit) and two
    substitutions (this response's CSRF token, one-time form tokens: see
    :mod:`.middleware`). A page with a note to show (``messages``) is rendered for
    this request alone.
    """
    since = _visit(game, member)
    delivery.saw(game, member, request.user)  # what his page shows him is delivered
    asked = request.GET.get("jour", "")
    asked = asked if number(asked) is not None and len(asked) <= 2 else ""
    stored = _stored_requests(member)
    return viewcache.whole_page(
        request,
        game,
        member.pseudo,
        ("player", member.pk, since, asked, _hashable(stored)),
        "games/player.html",
        lambda: _player_context(request, game, member, since, asked, stored),
    )


@player_page
def chorus(request: HttpRequest, game: Game, member: Membership) -> HttpResponse:
    """The chorus of the Unmasked: members, Secretary, today's votes, the vote form."""
    seen = _player_view(request, game, member)
    v = seen.v
    if "chorus" not in v:
        raise Http404(_("Seuls les Démasqués vivants forment le chœur."))
    c = v["chorus"]
    votes = [
        (who, labels.chorus_choice({**vote["args"], "action": vote["action"]}))
        for who, vote in c["votes_today"].items()
    ]
    return render(
        request,
        "games/chorus.html",
        {
            "game": game,
            "member": member,
            "v": v,
            "c": c,
            "available": [labels.chorus_action(a) for a in c["available"]],
            "votes": votes,
            "powers": power_forms(game, seen, chorus=True),
            "requests": _request_rows(
                member.requests.filter(action="chorus_vote").annotate(
                    undone=Max(
                        Case(
                            When(actions__struck=True, then=Value(2)),
                            When(actions__outcome="refused", then=Value(1)),
                            default=Value(0),
                        )
                    )
                )[:20],
                game.start,
            ),
        },
    )


def _form_data(spec: Spec, post: Any) -> dict[str, Any]:
    """The posted form as one value per field; items chosen in a list are joined."""
    data: dict[str, Any] = {k: post.get(k) for k in post}
    for arg in spec.args:
        if arg.kind == "items":
            data[arg.name] = ",".join(x for x in post.getlist(arg.name) if x)
    return data


@require_POST
@player_page
def send_request(request: HttpRequest, game: Game, member: Membership, action: str) -> HttpResponse:
    """A request to the game masters; the time that counts is now (MP receipt)."""
    spec = vocabulary.BY_NAME.get(action)
    if spec is None or not spec.requestable:
        raise Http404(_("Action inconnue."))
    seen = _player_view(request, game, member)
    allowed = {s.name for s in available_specs(seen, chorus=False)}
    allowed |= {s.name for s in available_specs(seen, chorus=True)}
    back = "chorus" if spec.chorus else "player"
    if action not in allowed:
        messages.error(request, _("Cette action n'est pas à votre portée aujourd'hui."))
        return redirect(back, slug=game.slug)
    try:
        args = vocabulary.parse_args(spec, _form_data(spec, request.POST))
    except RuleViolation as rv:
        messages.error(request, labels.humanize_all(rv.message))
        return redirect(back, slug=game.slug)
    if spec.name == "chorus_vote" and args.get("action") not in seen.today["chorus_actions"]:
        messages.error(request, _("Cette action du chœur n'est pas disponible aujourd'hui."))
        return redirect(back, slug=game.slug)
    for arg in spec.args:  # a ruling of the game masters is never the player's to give
        if arg.ruling:
            args.pop(arg.name, None)
    if action == "complain":
        args["anonymous"] = True  # a public complaint is a forum post (R5.1)
    offered = _not_offered(game, seen, spec, args)
    if offered:
        messages.error(request, offered)
        return redirect(back, slug=game.slug)
    refusal = _send(game, member, action, args)
    if refusal:
        messages.error(request, refusal)
    else:
        messages.success(
            request, _("Demande envoyée aux MJ. Leur réponse s'affichera plus bas sur cette page.")
        )
    return redirect(back, slug=game.slug)


def _not_offered(game: Game, seen: Seen, spec: Spec, args: dict[str, Any]) -> str:
    """Why a value sent is none of those its form offers now ("" if all are): the
    request would only be refused by the game masters hours later."""
    forms = power_forms(game, seen, chorus=spec.chorus)
    form = next((f for f in forms if f["spec"].name == spec.name), None)
    if form is None:
        return _("Cette action n'est pas à votre portée aujourd'hui.")
    for f in form["fields"]:
        choices = f.get("choices")
        value = args.get(f["arg"].name)
        if choices is None or value in (None, "", []):
            continue
        allowed = {str(c[0]) for c in choices}
        values = value if isinstance(value, list) else [value]
        if f["arg"].kind == "items" and not f.get("multiple"):
            values = [",".join(str(x) for x in values)]  # (one choice: the list sent)
        if f["arg"].kind == "accused" and isinstance(value, list):
            values = list(value)
        if any(str(x) not in allowed for x in values):
            return _("« %(f)s » : ce choix n'est pas proposé aujourd'hui.") % {"f": f["arg"].label}
    return ""


def _send(game: Game, member: Membership, action: str, args: dict[str, Any]) -> str:
    """Store the player's request unless the same one is already waiting, or too many
    are: one player's requests are checked and stored one at a time (his row locked), so
    the same form sent twice at once from two pages is stored once. Returns the refusal
    ("" when stored)."""
    with transaction.atomic():
        Membership.objects.select_for_update().filter(pk=member.pk).first()
        pending = list(Request.objects.filter(membership=member, status=Request.PENDING))
        if any(r.action == action and r.args == args for r in pending):
            return _("Cette demande attend déjà la réponse des MJ.")
        if len(pending) >= MAX_PENDING:
            return _("Vous avez déjà %(n)s demandes en attente : attendez la réponse des MJ.") % {
                "n": len(pending)
            }
        req = Request.objects.create(
            game=game,
            membership=member,
            action=action,
            args=args,
            created_at=service.game_now(game),
        )
        notify.request_received(req)  # (the game masters who asked to be told)
    return ""


@require_POST
@player_page
def withdraw_request(request: HttpRequest, game: Game, member: Membership, pk: int) -> HttpResponse:
    req = get_object_or_404(Request, pk=pk, membership=member, status=Request.PENDING)
    # not once a game master accepted it meanwhile (its action recorded)
    withdrawn = Request.objects.filter(
        pk=req.pk, status=Request.PENDING, actions__isnull=True
    ).update(status=Request.WITHDRAWN, decided_at=service.now())
    if not withdrawn:
        messages.error(request, _("Trop tard : les MJ ont déjà traité cette demande."))
    else:
        messages.success(request, _("Demande retirée."))
    return redirect("chorus" if req.action == "chorus_vote" else "player", slug=game.slug)
