"""The game masters' console: dashboard, action forms, timeline, corrections,
scoreboard, players and their requests."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from ronde.engine.clock import PARIS, day_of, day_start
from ronde.engine.errors import RuleViolation
from ronde.engine.events import Event as EngineEvent
from ronde.engine.events import from_json
from ronde.engine.names import french_name
from ronde.engine.views import View, view

from . import (
    accounts,
    clocks,
    etwin_links,
    judging,
    labels,
    nights,
    notify,
    rawrows,
    readers,
    service,
    viewcache,
    vocabulary,
)
from .access import gm_page
from .describe import describe
from .models import (
    Action,
    ConstraintHint,
    Game,
    GameMaster,
    Invitation,
    Membership,
    Posting,
    Request,
    TodoMark,
)

_KIND_FR = {
    "announce": "annonce",
    "setup": "à préparer",
    "send": "à envoyer",
    "ruling": "à juger",
    "watch": "à surveiller",
    "note": "pour info",
}


def deadline_label(start: date, iso: str | None) -> str:
    """« fin du J5 » for a midnight, « J13 13:13 » otherwise; "" without deadline."""
    if not iso:
        return ""
    t = datetime.fromisoformat(iso)
    text = vocabulary.game_time_label(start, t)
    if text.endswith(" 00:00") and text.startswith("J"):
        return f"fin du J{int(text[1:].split()[0]) - 1}"
    return text


def item_key(day: int, w: dict[str, Any]) -> str:
    """A stable name for a to-do item of ``day`` (its mark is keyed by it)."""
    ident = [day, w["kind"], w.get("player"), w.get("action"), sorted(w.get("args", {}).items())]
    if not w.get("action"):
        ident.append(w["text"].split(" (")[0])
    return hashlib.sha1(repr(ident).encode()).hexdigest()[:40]


def _work(
    request: HttpRequest,
    game: Game,
    v: View,
    choices: vocabulary.Choices,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """The engine's to-do items, each with its mark, its form prefilled, and for a
    constraint the verdict already recorded."""
    day = v["day"]
    marks = {
        m.key: m
        for m in TodoMark.objects.filter(game=game, day=max(day, 0)).select_related(
            "taken_by", "done_by"
        )
    }
    verdicts = service.constraint_verdicts(game)
    names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
    back = reverse("gm_dashboard", args=[game.slug])
    out = []
    for i, w in enumerate(v["work"]):
        if w.get("action") == "record_constraint":
            continue  # judged as one list (:mod:`.judging`)
        key = item_key(day, w)
        mark = marks.get(key)
        item: dict[str, Any] = {
            **w,
            "key": key,
            "kind_fr": _KIND_FR.get(w["kind"], ""),
            "deadline_label": deadline_label(game.start, w.get("deadline_at")),
            "late": bool(
                now is not None
                and w.get("deadline_at")
                and datetime.fromisoformat(w["deadline_at"]) < now
            ),
            "mark": mark,
            "taken_by": names.get(mark.taken_by_id) if mark and mark.taken_by_id else None,
            "done_by": names.get(mark.done_by_id) if mark and mark.done_by_id else None,
            "done": bool(mark and mark.done_at),
            "form": None,
            "verdict": None,
        }
        spec = vocabulary.BY_NAME.get(w.get("action") or "")
        if spec is not None:
            initial = {**w.get("args", {}), "by": w.get("by") or ""}
            form = vocabulary.action_form(spec, choices, initial=initial, ident=f"w{i}")
            item["form"] = {
                "spec": spec,
                "form": form,
                "seen": game.last_seq,
                "next": back,
                "suffix": f"-w{i}",
            }
        if w.get("action") == "record_constraint":
            args = w.get("args", {})
            found = verdicts.get((str(args.get("player")), int(args.get("day", 0))))
            if found is not None:
                item["verdict"] = {
                    "met": service.verdict_met(found),
                    "by": names.get(found.recorded_by_id or 0, ""),
                    "at": vocabulary.game_time_label(game.start, found.at),
                }
        out.append(item)
    out.sort(key=lambda x: x["done"])  # ticked-off items last, the rest by deadline
    return out


def _trial_rows(v: View) -> list[dict[str, Any]]:
    rows = []
    for t in v["trials"]:
        # open trials, and concluded verdicts the game masters have not announced yet
        if t["status"] != "open" and (
            t.get("announced", True) or t["status"] not in ("just", "unjust")
        ):
            continue
        complaints = t["complaints"]
        rows.append(
            {
                **t,
                "n_valid": t["valid"],
                "n_null": sum(1 for c in complaints if c["null"]),
                "n_anonymous": sum(1 for c in complaints if c["anonymous"]),
            }
        )
    return rows


def _dashboard_context(
    request: HttpRequest, game: Game, gm: GameMaster, now: datetime | None = None
) -> dict[str, Any]:
    eng = service.current(game, request.user)
    # the game masters' view, built once per version (the game was just brought up to date)
    v = viewcache.cached(
        game, "game_master", ("gm-view",), lambda e: view(e.state, "game_master"), request.user
    )
    game.refresh_from_db(fields=["last_seq", "version", "generation"])
    due = service.next_timer(eng)
    pending = (
        Request.objects.filter(game=game, status=Request.PENDING)
        .select_related("membership")
        .order_by("created_at", "pk")
    )
    t = now or service.game_now(game)
    choices = _choices(game, v, now=t)
    night_day, night = nights.last_night(eng)
    midnight_day, midnight = nights.next_midnight(eng, (game.pk, game.version))
    j1 = day_start(game.start, 1)
    judge = judging.rows(game, v)
    return {
        "game": game,
        "gm": gm,
        "v": v,
        "now": t,
        "game_now": vocabulary.game_time_label(game.start, t),
        "before_j1": t < j1,
        "j1": j1,
        "next_timer": vocabulary.game_time_label(game.start, due) if due else None,
        "trials": _trial_rows(v),
        "duties": [p for p in v["players"] if p["masked"] and p["constraint_today"]],
        "work": _work(request, game, v, choices, now=t),
        "manual": clocks.is_manual(game),
        "now_label": vocabulary.game_time_label(game.start, t),
        "next_label": vocabulary.game_time_label(game.start, due) if due else "",
        "midnight_label": _midnight_label(game, eng, t),
        "clock_back": reverse("gm_dashboard", args=[game.slug]),
        "clock_id": "d",
        "judge": judge,
        "judge_open": sum(1 for r in judge if r.verdict is None),
        "night_day": night_day,
        "night": [x for x in night if x.kind != "message"],
        "night_messages": [x for x in night if x.kind == "message"],
        "midnight_day": midnight_day,
        "midnight": [x for x in midnight if x.kind != "message"],
        "midnight_messages": [x for x in midnight if x.kind == "message"],
        "refresh": int(getattr(settings, "RONDE_DASHBOARD_REFRESH", 30)),
        "constraint_buttons": [
            (True, _("Respectée"), _("Corriger : respectée")),
            (False, _("Non respectée"), _("Corriger : non respectée")),
        ],
        "items": vocabulary.item_names(),
        "pending": [
            {
                "req": r,
                "spec": vocabulary.BY_NAME.get(r.action),
                "args": labels.request_sentence(r.action, r.args),
                "time": vocabulary.game_time_label(game.start, r.created_at),
            }
            for r in pending
        ],
    }


@gm_page
def dashboard(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The day as a work list: what fired last night and will fire at midnight, open
    trials, players' requests, the engine's to-do items by deadline with their forms."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    partial = request.headers.get("HX-Request") == "true"
    template = "games/gm_dashboard_body.html" if partial else "games/gm_dashboard.html"
    # the game masters' view (built once per version): the day whose marks are shown
    v = viewcache.cached(
        game, "game_master", ("gm-view",), lambda e: view(e.state, "game_master"), request.user
    )
    now = service.game_now(game).replace(second=0, microsecond=0)  # shown to the minute
    return viewcache.whole_page(
        request,
        game,
        "game_master",
        ("gm-dashboard", gm.pk, gm.name, now, _dashboard_rows(game, max(int(v["day"]), 0))),
        template,
        lambda: _dashboard_context(request, game, gm, now),
    )


def _midnight_label(game: Game, eng: Any, t: datetime) -> str:
    """The next midnight (a manual game's "play the night"), "" past the game."""
    m = day_start(game.start, max(day_of(game.start, t), 0) + 1)
    return vocabulary.game_time_label(game.start, m) if m <= clocks.bounds(eng)[1] else ""


def _dashboard_rows(game: Game, day: int) -> tuple[Any, ...]:
    """What the dashboard shows besides the engine (whose version is the cache's key),
    read as stored by hand-written queries (:mod:`.rawrows`): the day's to-do marks,
    the pending requests with their player, the game masters' seats, the marks of "À
    poster" (the navigation's count), the forum helpers' suggestions. The page is built
    again when any of it changes."""
    conn = connections[DEFAULT_DB_ALIAS]
    sqls = _DASHBOARD_SQL.get(conn.vendor)
    if sqls is None:
        qn = conn.ops.quote_name
        marks, requests = qn(TodoMark._meta.db_table), qn(Request._meta.db_table)
        members, seats = qn(Membership._meta.db_table), qn(GameMaster._meta.db_table)
        postings = qn(Posting._meta.db_table)
        hints = qn(ConstraintHint._meta.db_table)
        mark_cols = ("id", "key", "text", "taken_by_id", "taken_at", "done_by_id", "done_at")
        req_cols = ("id", "action", "args", "created_at", "status")
        sqls = _DASHBOARD_SQL[conn.vendor] = (
            f"SELECT {', '.join(qn(c) for c in mark_cols)} FROM {marks} "
            f"WHERE {qn('game_id')} = %s AND {qn('day')} = %s ORDER BY {qn('id')}",
            f"SELECT {', '.join(f'r.{qn(c)}' for c in req_cols)}, m.{qn('pseudo')} "
            f"FROM {requests} r INNER JOIN {members} m ON m.{qn('id')} = r.{qn('membership_id')} "
            f"WHERE r.{qn('game_id')} = %s AND r.{qn('status')} = %s ORDER BY r.{qn('id')}",
            f"SELECT {qn('id')}, {qn('user_id')}, {qn('name')} FROM {seats} "
            f"WHERE {qn('game_id')} = %s ORDER BY {qn('id')}",
            # the navigation's "À poster" count
            f"SELECT COUNT(*), MAX({qn('id')}) FROM {postings} WHERE {qn('game_id')} = %s",
            # the forum helpers' suggestions beside the constraints to judge
            f"SELECT COUNT(*), MAX({qn('id')}) FROM {hints} WHERE {qn('game_id')} = %s",
        )
    return (
        rawrows.key(sqls[0], [game.pk, day]),
        rawrows.key(sqls[1], [game.pk, Request.PENDING]),
        rawrows.key(sqls[2], [game.pk]),
        rawrows.key(sqls[3], [game.pk]),
        rawrows.key(sqls[4], [game.pk]),
    )


_DASHBOARD_SQL: dict[str, tuple[str, str, str, str, str]] = {}


@require_POST
@gm_page
def todo_mark(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """Take a to-do item, give it back, tick it off or reopen it (the others see it)."""
    key = str(request.POST.get("key", ""))[:64]
    op = request.POST.get("op")
    if not key or op not in ("take", "release", "done", "reopen"):
        raise Http404(op)
    v = service.view_for(game, "game_master", request.user)
    day = max(int(v["day"]), 0)
    t = service.now()
    with transaction.atomic():
        mark, _created = TodoMark.objects.select_for_update().get_or_create(
            game=game,
            key=key,
            defaults={"day": day, "text": str(request.POST.get("text", ""))[:300]},
        )
        if op == "take":
            mark.taken_by, mark.taken_at = request.user, t  # type: ignore[assignment]
        elif op == "release":
            mark.taken_by, mark.taken_at = None, None
        elif op == "done":
            mark.done_by, mark.done_at = request.user, t  # type: ignore[assignment]
        else:
            mark.done_by, mark.done_at = None, None
        mark.save()
    # back to the item itself: on a phone the work list is long
    anchor = f"todo-{key}" if re.fullmatch(r"[0-9a-f]{1,64}", key) else "todo-h"
    return redirect(f"{reverse('gm_dashboard', args=[game.slug])}#{anchor}")


@require_POST
@gm_page
def judge_constraints(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The day's list of constraints: every one listed (``player``) is respected but those
    ticked (``failed``), recorded in one locked write (:func:`.judging.record`)."""
    back = f"{reverse('gm_dashboard', args=[game.slug])}#contraintes"
    day = _int(request.POST.get("day"))
    players = [str(p)[:60] for p in request.POST.getlist("player")][:200]
    failed = {str(p)[:60] for p in request.POST.getlist("failed")}
    if day is None or not players:
        messages.error(request, _("Aucune contrainte à juger dans ce formulaire."))
        return redirect(back)
    unknown = failed - set(players)
    if unknown:
        messages.error(request, _("Joueur coché absent de la liste : rien n'est enregistré."))
        return redirect(back)
    try:
        done = judging.record(game, request.user, gm.name, day, players, failed)
    except service.Conflict:
        messages.warning(request, service.Conflict.message)
        return redirect(back)
    ok = [(p, met) for p, met, out in done if out.ok]
    if ok:
        bad = sum(1 for _p, met in ok if not met)
        messages.success(
            request,
            ngettext(
                "%(n)d verdict du J%(d)d enregistré (%(b)d non respectée).",
                "%(n)d verdicts du J%(d)d enregistrés (%(b)d non respectées).",
                len(ok),
            )
            % {"n": len(ok), "d": day, "b": bad},
        )
    for p, _met, out in done:
        if out.ok:
            for e in out.events:
                if getattr(e, "public", False):
                    messages.info(
                        request, _("Annonce : %(text)s") % {"text": getattr(e, "text", "")}
                    )
        elif out.code == service.SKIPPED:
            messages.info(request, f"{p} : {out.message}")
        else:
            messages.error(
                request, _("%(p)s : refusé par les règles : %(m)s") % {"p": p, "m": out.message}
            )
    return redirect(back)


def player_label(p: dict[str, Any]) -> str:
    """« Ana — Alice » (« démasqué » after it): the game masters' picker label."""
    label = f"{p['pseudo']} — {french_name(p['character'] or p['original'] or 'extra')}"
    if not p["masked"]:
        label += " (démasqué)"
    if not p.get("alive", True):
        label += " (mort)"
    return label


def _choices(game: Game, v: View, now: datetime | None = None) -> vocabulary.Choices:
    players = sorted(v["players"], key=lambda p: str(p["pseudo"]).casefold())
    trials = []
    for t in reversed(v["trials"]):
        status = labels.trial_status(t["status"])
        if t["status"] in ("just", "unjust") and not t.get("announced", True):
            status += ", à annoncer"
        accused = ", ".join(t["accused"])
        trials.append((t["number"], f"n°{t['number']} — {accused} ({t['supposed_fr']}, {status})"))
    # masked as the players know it: the accused of a verdict not announced yet still is
    waiting = {
        a
        for t in v["trials"]
        if t["status"] in ("just", "unjust") and not t.get("announced", True)
        for a in t["accused"]
    }
    return vocabulary.Choices(
        players=[(p["pseudo"], player_label(p)) for p in players],
        trials=trials,
        ended=frozenset(
            int(t["number"])
            for t in v["trials"]
            if t["status"] != "open"
            and not (t["status"] in ("just", "unjust") and not t.get("announced", True))
        ),
        accusable=[
            (p["pseudo"], player_label(p)) for p in players if p["masked"] or p["pseudo"] in waiting
        ],
        gms=list(GameMaster.objects.filter(game=game).values_list("name", flat=True)),
        start=game.start,
        now=now or service.game_now(game),
    )


def _form_context(
    game: Game,
    gm: GameMaster,
    spec: vocabulary.Spec,
    v: View,
    values: dict[str, Any],
    form: vocabulary.ActionForm | None = None,
) -> dict[str, Any]:
    if form is None:
        form = vocabulary.action_form(spec, _choices(game, v), initial=values)
    ctx: dict[str, Any] = {
        "game": game,
        "gm": gm,
        "spec": spec,
        "form": form,
        "values": values,
        "seen": game.last_seq,
        "day": v["day"],
        "next": values.get("next", ""),
    }
    ctx["f"] = ctx
    return ctx


@gm_page
def actions_index(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """A form for every action of the vocabulary."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    v = service.view_for(game, "game_master", request.user)
    game.refresh_from_db(fields=["last_seq", "version", "generation"])
    values = dict(request.GET.items())
    choices = _choices(game, v)
    forms = []
    for s in vocabulary.SPECS:
        initial = values if values.get("action") == s.name else {}
        form = vocabulary.action_form(s, choices, initial=initial)
        ctx = _form_context(game, gm, s, v, initial, form)
        label = str(s.label)
        ctx["holders"] = [french_name(c) for c in s.characters if french_name(c) not in label]
        forms.append(ctx)
    return render(
        request,
        "games/gm_actions.html",
        {
            "game": game,
            "gm": gm,
            "forms": forms,
            "v": v,
            "values": values,
            "items": vocabulary.item_names(),
        },
    )


@gm_page
def action_form(request: HttpRequest, game: Game, gm: GameMaster, name: str) -> HttpResponse:
    """GET: the form of one action; POST: record it (as a player or as this game master)."""
    spec = vocabulary.BY_NAME.get(name)
    if spec is None:
        raise Http404(name)
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    v = service.view_for(game, "game_master", request.user)
    game.refresh_from_db(fields=["last_seq", "version", "generation"])
    if request.method != "POST":
        values = dict(request.GET.items())
        ctx = _form_context(game, gm, spec, v, values)
        ctx["items"] = vocabulary.item_names()
        return render(request, "games/gm_action.html", ctx)
    data = request.POST
    values = dict(data.items())
    form = vocabulary.action_form(spec, _choices(game, v), data=data)
    if not form.is_valid():
        ctx = _form_context(game, gm, spec, v, values, form)
        ctx["items"] = vocabulary.item_names()
        return render(request, "games/gm_action.html", ctx, status=400)
    by, args, when, note = form.command()
    if spec.who == "game_master":
        by = gm.name
    held = _held_for_verdict(spec, by, game, request)
    if held:
        ctx = _form_context(game, gm, spec, v, values, form)
        ctx["error"] = service.Outcome(False, "verdict_pending", held)
        ctx["items"] = vocabulary.item_names()
        return render(request, "games/gm_action.html", ctx, status=400)
    if name == "record_constraint":
        stop = _one_verdict(request, game, gm, args, data)
        if stop is not None:
            return stop
    out = _record(request, game, gm, name, by, args, when, note, data)
    if isinstance(out, HttpResponse):
        return out
    if not out.ok:
        v = service.view_for(game, "game_master", request.user)
        ctx = _form_context(game, gm, spec, v, values, form)
        ctx["error"] = out
        ctx["items"] = vocabulary.item_names()
        return render(request, "games/gm_action.html", ctx, status=400)
    _after_write(request, game, name, by, args, out)
    nxt = str(data.get("next", ""))
    if nxt.startswith("/") and not nxt.startswith("//"):
        return redirect(nxt)
    return redirect("gm_dashboard", slug=game.slug)


def _one_verdict(
    request: HttpRequest, game: Game, gm: GameMaster, args: dict[str, Any], data: Any
) -> HttpResponse | None:
    """One verdict per constraint: the same verdict again records nothing; the opposite
    one is a correction, confirmed with a reason, that strikes the first (``None``: go
    on and record)."""
    try:
        previous = service.constraint_verdicts(game).get((str(args["player"]), int(args["day"])))
    except (KeyError, TypeError, ValueError):
        return None
    if previous is None:
        return None
    back = str(data.get("next", "")) or reverse("gm_dashboard", args=[game.slug])
    if not back.startswith("/") or back.startswith("//"):
        back = reverse("gm_dashboard", args=[game.slug])
    was = service.verdict_met(previous)
    verdict = _("respectée") if was else _("non respectée")
    names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
    who = names.get(previous.recorded_by_id or 0, "?")
    if was == bool(args.get("met")):
        messages.info(
            request,
            _("Contrainte de %(p)s au J%(d)s déjà jugée %(v)s (%(who)s) : rien de plus.")
            % {"p": args["player"], "d": args["day"], "v": verdict, "who": who},
        )
        return redirect(back)
    reason = str(data.get("reason", "")).strip()
    error = ""
    if data.get("correct") == str(previous.pk):
        if not reason:
            error = _("Donnez la raison de la correction.")
        else:
            try:
                out = service.strike(
                    game, previous, reason, request.user, str(data.get("strike_token", ""))
                )
            except service.Conflict:
                messages.warning(request, service.Conflict.message)
                return redirect(back)
            if not out.ok:
                messages.error(request, out.message)
                return redirect(back)
            messages.info(
                request,
                _("Premier verdict (%(v)s) rayé : %(r)s") % {"v": verdict, "r": reason},
            )
            game.refresh_from_db()
            return None
    preview = service.preview_strike(game, previous)
    assert preview.preview is not None
    skip = ("csrfmiddlewaretoken", "correct", "reason", "strike_token")
    return render(
        request,
        "games/gm_correct.html",
        {
            "game": game,
            "gm": gm,
            "player": args["player"],
            "day": args["day"],
            "was": verdict,
            "now_met": bool(args.get("met")),
            "who": who,
            "at": vocabulary.game_time_label(game.start, previous.at),
            "diff": _diff_rows(game, preview.preview),
            "token": preview.token,
            "previous": previous,
            "post": [(k, val) for k, val in data.items() if k not in skip],
            "target": reverse("gm_action", args=[game.slug, "record_constraint"]),
            "error": error,
            "reason": reason,
        },
        status=400 if error else 200,
    )


def _record(
    request: HttpRequest,
    game: Game,
    gm: GameMaster,
    name: str,
    by: str,
    args: dict[str, Any],
    when: datetime | None,
    note: str,
    data: Any,
) -> service.Outcome | HttpResponse:
    """Record one action; a change to what was recorded asks for confirmation first."""
    try:
        out = service.record(
            game,
            request.user,
            name,
            by,
            args,
            at=when,
            note=note,
            seen=_int(data.get("seen")),
            confirm=str(data["confirm"]) if data.get("confirm") else None,
        )
    except RuleViolation as rv:
        return service.Outcome(False, rv.code, rv.message)
    except service.Conflict:
        messages.warning(request, service.Conflict.message)
        return redirect("gm_dashboard", slug=game.slug)
    game.refresh_from_db()
    if out.preview is not None and not out.ok:
        return render(
            request,
            "games/gm_confirm.html",
            {
                "game": game,
                "gm": gm,
                "title": _("Action antérieure au dernier événement"),
                "diff": _diff_rows(game, out.preview),
                "token": out.token,
                "post": [(k, val) for k, val in data.items() if k not in ("csrfmiddlewaretoken",)],
                "target": reverse("gm_action", args=[game.slug, name]),
            },
        )
    return out


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _after_write(
    request: HttpRequest, game: Game, name: str, by: str, args: dict[str, Any], out: service.Outcome
) -> None:
    if out.moved:
        messages.info(
            request,
            ngettext(
                "%(n)d événement enregistré entre-temps (un autre MJ, une échéance) : "
                "votre action a été appliquée sur l'état à jour.",
                "%(n)d événements enregistrés entre-temps (un autre MJ, une échéance) : "
                "votre action a été appliquée sur l'état à jour.",
                out.moved,
            )
            % {"n": out.moved},
        )
    announced = [getattr(e, "text", "") for e in out.events if getattr(e, "public", False)]
    summary = ngettext(
        "Enregistré : %(action)s (%(n)d événement).",
        "Enregistré : %(action)s (%(n)d événements).",
        len(out.events),
    ) % {
        "action": vocabulary.BY_NAME[name].label,
        "n": len(out.events),
    }
    messages.success(request, summary)
    for text in announced:
        messages.info(request, _("Annonce : %(text)s") % {"text": text})


def _diff_rows(game: Game, diff: service.Diff) -> dict[str, Any]:
    def rows(events: list[EngineEvent]) -> list[dict[str, str]]:
        return [
            {"time": vocabulary.game_time_label(game.start, e.at), "text": describe(e)}
            for e in events
        ]

    return {
        "removed": rows(diff.removed),
        "added": rows(diff.added),
        "refused": [
            {
                "action": a,
                "label": labels.action_label(a.action),
                "message": msg,
                "args": vocabulary.describe_args(a.args, a.action),
            }
            for a, msg in diff.newly_refused
        ],
        "applied": diff.newly_applied,
        "empty": not (diff.removed or diff.added or diff.newly_refused or diff.newly_applied),
    }


@gm_page
def journal(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The events of the current log day by day (today's first), who recorded each,
    and the struck actions."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    eng = service.current(game, request.user)
    game.refresh_from_db()
    today = eng.state.day()
    asked = request.GET.get("jour", "")
    every = asked == "tous"
    day = _int(asked) if asked and not every else (None if every else max(today, 0))
    rows = service.log_rows(game)
    actions = {
        a.pk: a for a in Action.objects.filter(game=game).select_related("recorded_by", "request")
    }
    names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
    out = []
    seen_days: set[int] = set()
    for row in rows:
        e = from_json(row.data)
        n = day_of(game.start, e.at)
        seen_days.add(max(n, 0))
        if day is not None and max(n, 0) != day:
            continue
        a = actions.get(row.action_id or 0)
        if a is None:
            who = _("horloge") if row.type != "game_created" else _("création")
        else:
            who = names.get(a.recorded_by_id or 0) or (
                a.recorded_by.get_username() if a.recorded_by else "?"
            )
        out.append(
            {
                "row": row,
                "time": vocabulary.game_time_label(game.start, e.at),
                "full": e.at,
                "text": describe(e),
                "who": who,
                "action": a,
            }
        )
    struck = (
        Action.objects.filter(game=game, struck=True)
        .prefetch_related(Prefetch("strikes", to_attr="strike_list"))
        .select_related("recorded_by")
    )
    refused = Action.objects.filter(game=game, struck=False, outcome="refused")

    def label(a: Action) -> str:
        spec = vocabulary.BY_NAME.get(a.action)
        return str(spec.label) if spec else a.action

    return render(
        request,
        "games/gm_journal.html",
        {
            "game": game,
            "gm": gm,
            "rows": out,
            "struck": [
                {
                    "a": a,
                    "label": label(a),
                    "time": vocabulary.game_time_label(game.start, a.at),
                    "strikes": [
                        {
                            "s": st,
                            "time": vocabulary.game_time_label(game.start, st.at),
                        }
                        for st in a.strike_list
                    ],
                }
                for a in struck
            ],
            "refused": [
                {
                    "a": a,
                    "label": label(a),
                    "time": vocabulary.game_time_label(game.start, a.at),
                }
                for a in refused
            ],
            "day": day,
            "today": today,
            "every": every,
            "days": [d for d in range(0, 15) if d in seen_days or d == max(today, 0)],
            "gm_names": names,
        },
    )


@gm_page
def strike(request: HttpRequest, game: Game, gm: GameMaster, pk: int) -> HttpResponse:
    """Strike out a recorded action: GET shows the difference, POST confirms it."""
    action = get_object_or_404(Action, pk=pk, game=game)
    if action.struck:
        messages.error(request, _("Cette action est déjà rayée."))
        return redirect("gm_journal", slug=game.slug)
    if request.method == "POST":
        try:
            out = service.strike(
                game,
                action,
                str(request.POST.get("reason", "")),
                request.user,
                str(request.POST.get("token", "")),
            )
        except service.Conflict:
            messages.warning(request, service.Conflict.message)
            return redirect("gm_strike", slug=game.slug, pk=pk)
        if out.ok:
            messages.success(request, _("Action rayée ; la partie a été reconstruite sans elle."))
            return redirect("gm_journal", slug=game.slug)
        messages.error(request, out.message)
    game.refresh_from_db()
    service.current(game, request.user)
    game.refresh_from_db()
    preview = service.preview_strike(game, action)
    assert preview.preview is not None
    return render(
        request,
        "games/gm_strike.html",
        {
            "game": game,
            "gm": gm,
            "action": action,
            "args": vocabulary.describe_args(action.args, action.action),
            "diff": _diff_rows(game, preview.preview),
            "token": preview.token,
        },
    )


@gm_page
def scores(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The live scoreboard with every line of every score."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    eng = service.current(game, request.user)
    v = view(eng.state, "game_master")
    lines = readers.score_lines(eng.state)
    rows = [{**r, "lines": lines.get(r["player"], [])} for r in v["scoreboard"]]
    return render(request, "games/gm_scores.html", {"game": game, "gm": gm, "rows": rows, "v": v})


@gm_page
def players(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """Seats: invitation links, accounts, revoked accounts, game masters."""
    if request.method == "POST":
        op = request.POST.get("op")
        if op == "invite_gm":
            other = get_object_or_404(GameMaster, game=game, pk=_int(request.POST.get("gm")))
            accounts.invite(game, other)
            messages.success(
                request, _("Nouveau lien d'invitation pour %(p)s.") % {"p": other.name}
            )
            return redirect("gm_players", slug=game.slug)
        member = get_object_or_404(game.memberships, pk=_int(request.POST.get("member")))
        if op == "invite" and member.revoked_at is None:
            accounts.invite(game, member)
            messages.success(
                request, _("Nouveau lien d'invitation pour %(p)s.") % {"p": member.pseudo}
            )
        elif op == "revoke" and member.revoked_at is None:
            accounts.revoke(member, str(request.POST.get("reason", "")) or _("retiré par les MJ"))
            messages.success(request, _("Accès retiré à %(p)s.") % {"p": member.pseudo})
        return redirect("gm_players", slug=game.slug)
    invitations = accounts.open_invitations(game)
    members = [
        {"m": m, "invitation": invitations.get(("player", m.pk))}
        for m in _by_pseudo(game.memberships.select_related("user"))
    ]
    gms = [
        {"gm": g, "invitation": invitations.get(("gm", g.pk))}
        for g in GameMaster.objects.filter(game=game).select_related("user")
    ]
    return render(
        request,
        "games/gm_players.html",
        {
            "game": game,
            "gm": gm,
            "members": members,
            "gms": gms,
            "etwin": etwin_links.console(game),
        },
    )


def _by_pseudo(members: Any) -> list[Membership]:
    """Seats in the order a French reader expects (« Élodie » between « Dédé » and
    « Fanfan », case ignored), the seats whose access was withdrawn last."""

    def folded(text: str) -> str:
        plain = unicodedata.normalize("NFD", text)
        return "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()

    return sorted(members, key=lambda m: (m.revoked_at is not None, folded(m.pseudo), m.pseudo))


def invitation_message(game: Game, pseudo: str, url: str, expires: datetime, gm: bool) -> str:
    """The private message that carries a seat's invitation link, in French."""
    seat = _("mener la partie en tant que MJ") if gm else _("jouer")
    until = expires.astimezone(PARIS).strftime("%d/%m/%Y à %H:%M")
    return _(
        "Bonjour %(pseudo)s,\n\n"
        "Voici votre lien personnel pour %(seat)s dans « %(game)s » sur Ronde :\n"
        "%(url)s\n\n"
        "Ouvrez-le pour créer votre compte (ou, si vous en avez déjà un, pour y ajouter "
        "cette place). Il ne sert qu'une fois et expire le %(until)s (heure de Paris) : "
        "ne le transmettez à personne. S'il ne marche plus, demandez-nous-en un nouveau."
    ) % {"pseudo": pseudo, "seat": seat, "game": game.name, "url": url, "until": until}


def _seat_state(seat_user: Any, revoked: bool, last: Invitation | None, now: datetime) -> str:
    """Why a seat has no open invitation, in French."""
    if revoked:
        return _("place retirée")
    if seat_user is not None:
        return _("lien utilisé : compte « %(u)s »") % {"u": seat_user.get_username()}
    if last is None:
        return _("aucun lien")
    if last.used_at is not None:
        return _("lien utilisé")
    if last.revoked_at is not None:
        return _("lien annulé")
    if last.expires_at <= now:
        return _("lien expiré le %(d)s") % {
            "d": last.expires_at.astimezone(PARIS).strftime("%d/%m/%Y")
        }
    return _("aucun lien")


@gm_page
def invitations(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """Every seat's invitation in one page: the ready private message with its link (open
    invitations only), a copy button each and one for all; a used, expired or revoked
    link shows its state and a "Nouveau lien" button."""
    if request.method == "POST":
        op = request.POST.get("op")
        if op == "invite_gm":
            other = get_object_or_404(GameMaster, game=game, pk=_int(request.POST.get("gm")))
            if other.pk != gm.pk:
                accounts.invite(game, other)
                messages.success(
                    request, _("Nouveau lien d'invitation pour %(p)s.") % {"p": other.name}
                )
        elif op == "invite":
            member = get_object_or_404(game.memberships, pk=_int(request.POST.get("member")))
            if member.revoked_at is None:
                accounts.invite(game, member)
                messages.success(
                    request, _("Nouveau lien d'invitation pour %(p)s.") % {"p": member.pseudo}
                )
        return redirect("gm_invitations", slug=game.slug)
    now = service.now()
    open_ = accounts.open_invitations(game)
    last: dict[tuple[str, int], Invitation] = {}
    for inv in Invitation.objects.filter(game=game).order_by("created_at", "pk"):
        if inv.membership_id is not None:
            last[("player", inv.membership_id)] = inv
        elif inv.game_master_id is not None:
            last[("gm", inv.game_master_id)] = inv

    def row(key: tuple[str, int], name: str, user: Any, revoked: bool, may_renew: bool) -> Any:
        inv = open_.get(key)
        out: dict[str, Any] = {"key": f"{key[0]}-{key[1]}", "pk": key[1], "name": name}
        if inv is not None and not revoked:
            url = request.build_absolute_uri(reverse("invitation", args=[inv.token]))
            out["message"] = invitation_message(game, name, url, inv.expires_at, key[0] == "gm")
            out["expires"] = inv.expires_at
        else:
            out["state"] = _seat_state(user, revoked, last.get(key), now)
        out["renew"] = may_renew and not revoked
        out["taken"] = user is not None  # a new link would let someone else take the seat
        return out

    players = [
        row(("player", m.pk), m.pseudo, m.user, m.revoked_at is not None, True)
        for m in _by_pseudo(game.memberships.select_related("user"))
    ]
    gms = [
        row(("gm", g.pk), g.name, g.user, False, g.pk != gm.pk)
        for g in GameMaster.objects.filter(game=game).select_related("user").order_by("name")
    ]
    players.sort(key=lambda r: "message" not in r)  # the links to send first
    ready = [r["key"] for r in players + gms if "message" in r]
    return render(
        request,
        "games/gm_invitations.html",
        {"game": game, "gm": gm, "players": players, "gms": gms, "ready": ready},
    )


def _verdict_awaited_by(game: Game, request: HttpRequest, pseudo: str) -> int | None:
    """The number of a concluded trial against ``pseudo`` whose verdict the game masters
    have not announced yet, under A77 ``frozen`` (``None`` otherwise)."""
    v = service.view_for(game, "game_master", request.user)
    if v["options"].get("A77", "frozen") != "frozen":
        return None
    for t in v["trials"]:
        if t["status"] in ("just", "unjust") and not t["announced"] and pseudo in t["accused"]:
            return int(t["number"])
    return None


#: the player's own commands that name a trial: the engine refuses them alike to the
#: accused of a verdict not yet announced (A77), whatever it is
_REFUSED_ALIKE = frozenset({"open_trial", "complain", "cancel_trial", "shorten_trial"})


def _held_for_verdict(spec: vocabulary.Spec, by: str, game: Game, request: HttpRequest) -> str:
    """Why a player's own command recorded from the console waits for the announcement
    of a verdict against him (A77 ``frozen``: its answer, a power refused because the
    verdict unmasked him or carried out, would tell him the verdict), or ""."""
    if not spec.requestable or spec.name in _REFUSED_ALIKE:
        return ""
    trial = _verdict_awaited_by(game, request, by)
    if trial is None:
        return ""
    return _(
        "%(p)s attend l'annonce du verdict du Procès n°%(n)s : enregistrez cette action "
        "après l'annonce, à son heure (d'ici là, sa réponse lui apprendrait le verdict)."
    ) % {"p": by, "n": trial}


@require_POST
@gm_page
def decide_request(
    request: HttpRequest, game: Game, gm: GameMaster, pk: int, decision: str
) -> HttpResponse:
    """Accept (execute as the player, at the request's time) or refuse a request."""
    if decision not in ("accept", "refuse"):
        raise Http404(decision)
    req = get_object_or_404(Request, pk=pk, game=game)
    if req.status != Request.PENDING:
        messages.warning(request, _("Cette demande a déjà été traitée."))
        return redirect("gm_dashboard", slug=game.slug)
    if decision == "refuse":
        # only while no other game master decided it meanwhile (read as pending by both)
        with transaction.atomic():  # (the answer and its notification, together)
            refused = Request.objects.filter(
                pk=req.pk, status=Request.PENDING, actions__isnull=True
            ).update(
                status=Request.REFUSED,
                message=str(request.POST.get("reason", "")).strip() or _("Refusée par les MJ."),
                decided_by=request.user if request.user.is_authenticated else None,
                decided_at=service.now(),
            )
            if refused:
                notify.request_answered(req)
        if not refused:
            messages.warning(request, _("Cette demande a déjà été traitée."))
        else:
            messages.success(request, _("Demande refusée."))
        return redirect("gm_dashboard", slug=game.slug)
    trial = _verdict_awaited_by(game, request, req.membership.pseudo)
    if trial is not None:
        # A77 (frozen): his answer would depend on the verdict (a power refused because
        # it unmasked him, or accepted): it waits for the announcement, whatever it is
        messages.error(
            request,
            _(
                "La demande de %(p)s attend l'annonce du verdict du Procès n°%(n)s : "
                "acceptez-la après l'annonce (d'ici là, la réponse lui apprendrait le "
                "verdict)."
            )
            % {"p": req.membership.pseudo, "n": trial},
        )
        return redirect("gm_dashboard", slug=game.slug)
    spec = vocabulary.BY_NAME[req.action]
    args = dict(req.args)
    for arg in spec.args:
        if arg.ruling:
            present, value = vocabulary.parse_value(arg, request.POST)
            if present:
                args[arg.name] = value
    try:
        out = service.record(
            game,
            request.user,
            req.action,
            req.membership.pseudo,
            args,
            at=req.created_at,
            request=req,
            confirm=str(request.POST["confirm"]) if request.POST.get("confirm") else None,
            deciding=True,
        )
    except service.Conflict:
        messages.warning(request, service.Conflict.message)
        return redirect("gm_dashboard", slug=game.slug)
    if out.code == service.REQUEST_DECIDED:  # another game master was first
        messages.warning(request, _("Cette demande a déjà été traitée."))
        return redirect("gm_dashboard", slug=game.slug)
    if out.preview is not None and not out.ok:
        game.refresh_from_db()
        return render(
            request,
            "games/gm_confirm.html",
            {
                "game": game,
                "gm": gm,
                "title": _("Accepter une demande reçue avant le dernier événement"),
                "diff": _diff_rows(game, out.preview),
                "token": out.token,
                "post": [(k, v) for k, v in request.POST.items() if k != "csrfmiddlewaretoken"],
                "target": reverse("gm_request", args=[game.slug, pk, "accept"]),
            },
        )
    req.decided_by = request.user if request.user.is_authenticated else None
    req.decided_at = service.now()
    req.args = args
    if out.ok:
        req.status = Request.ACCEPTED
        req.message = ""
        _after_write(request, game, req.action, req.membership.pseudo, args, out)
    else:
        req.status = Request.REFUSED
        req.message = out.message
        messages.error(request, _("Refusée par les règles : %(m)s") % {"m": out.message})
    with transaction.atomic():  # (the answer and its notification, together)
        req.save(update_fields=["status", "message", "decided_by", "decided_at", "args"])
        notify.request_answered(req)
    return redirect("gm_dashboard", slug=game.slug)


@gm_page
def complaints(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """Several complaints of one trial at once, each at its forum time (recorded in
    time order, one transaction each; each row says what happened to it)."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    v = service.view_for(game, "game_master", request.user)
    game.refresh_from_db(fields=["last_seq", "version", "generation"])
    choices = _choices(game, v)
    results: list[dict[str, Any]] = []
    if request.method == "POST":
        head = vocabulary.BatchComplaints(request.POST, choices=choices)
        rows = vocabulary.ComplaintRows(request.POST, form_kwargs={"choices": choices})
        if head.is_valid() and rows.is_valid():
            trial = head.cleaned_data["trial"]
            todo = [r.cleaned_data for r in rows if r.cleaned_data.get("by")]
            todo.sort(key=lambda r: r["when"])
            for row in todo:
                args = {"trial": trial, "anonymous": bool(row.get("anonymous"))}
                try:
                    out = service.record(
                        game, request.user, "complain", row["by"], args, at=row["when"]
                    )
                except service.Conflict:
                    out = service.Outcome(False, "conflict", service.Conflict.message)
                except RuleViolation as rv:
                    out = service.Outcome(False, rv.code, rv.message)
                if out.preview is not None and not out.ok:
                    out = service.Outcome(
                        False,
                        "confirm",
                        _(
                            "Cette plainte change ce qui est déjà enregistré : "
                            "enregistrez-la seule pour voir la différence."
                        ),
                    )
                results.append(
                    {
                        "by": row["by"],
                        "time": vocabulary.game_time_label(game.start, row["when"]),
                        "ok": out.ok,
                        "message": out.message,
                    }
                )
            if not todo:
                head.add_error(None, _("Aucune plainte saisie."))
            elif all(r["ok"] for r in results):
                messages.success(
                    request,
                    _("%(n)d plainte(s) enregistrée(s) au Procès n°%(t)d.")
                    % {"n": len(results), "t": trial},
                )
                return redirect("gm_dashboard", slug=game.slug)
            game.refresh_from_db()
    else:
        head = vocabulary.BatchComplaints(initial=dict(request.GET.items()), choices=choices)
        rows = vocabulary.ComplaintRows(form_kwargs={"choices": choices})
    return render(
        request,
        "games/gm_complaints.html",
        {"game": game, "gm": gm, "head": head, "rows": rows, "results": results},
        status=400 if request.method == "POST" and not results else 200,
    )
