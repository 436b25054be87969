"""The game masters' console: dashboard, action forms, timeline, corrections,
scoreboard, players and their requests."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ronde.engine.clock import format_time, parse_time
from ronde.engine.errors import RuleViolation
from ronde.engine.events import Event as EngineEvent
from ronde.engine.events import PlayerReplaced, from_json
from ronde.engine.views import View, view

from . import accounts, labels, readers, service, vocabulary
from .access import gm_page
from .describe import describe
from .models import Action, Game, GameMaster, Invitation, Request
from .views_player import field_choices

_ANNOUNCE = re.compile(r"^Annoncer le verdict du Procès n°(\d+)")
_THEME = re.compile(r"^Donner le thème du J(\d+)")
_PLAYER_ITEM = re.compile(r"^(?P<player>[^:]{1,60}?) : (?P<item>.+)$")


def _todo(v: View) -> list[dict[str, Any]]:
    """The engine's to-do lines, each with the buttons that settle it."""
    out = []
    day = v["day"]
    for text in v["todo"]:
        item: dict[str, Any] = {"text": text, "buttons": [], "link": None}
        if m := _ANNOUNCE.match(text):
            item["buttons"].append(("announce", {"trial": m.group(1)}, _("Annoncer")))
        elif m := _THEME.match(text):
            item["link"] = ("set_theme", f"day={m.group(1)}")
        elif m := _PLAYER_ITEM.match(text):
            player = m.group("player")
            if "contrainte" in m.group("item"):
                base = {"player": player, "day": str(day)}
                item["buttons"].append(("record_constraint", {**base, "met": "on"}, _("Respectée")))
                item["buttons"].append(("record_constraint", base, _("Non respectée")))
            item["link"] = ("", f"player={player}")
        out.append(item)
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


def _dashboard_context(request: HttpRequest, game: Game, gm: GameMaster) -> dict[str, Any]:
    eng = service.current(game, request.user)
    v = view(eng.state, "game_master")
    game.refresh_from_db(fields=["last_seq", "version", "generation"])
    due = service.next_timer(eng)
    pending = (
        Request.objects.filter(game=game, status=Request.PENDING)
        .select_related("membership")
        .order_by("created_at")
    )
    return {
        "game": game,
        "gm": gm,
        "v": v,
        "now": service.now(),
        "next_timer": format_time(eng.state.start, due) if due else None,
        "trials": _trial_rows(v),
        "duties": [p for p in v["players"] if p["masked"] and p["constraint_today"]],
        "todo": _todo(v),
        "pending": [
            {
                "req": r,
                "spec": vocabulary.BY_NAME.get(r.action),
                "args": labels.request_sentence(r.action, r.args),
            }
            for r in pending
        ],
    }


@gm_page
def dashboard(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The day: open trials and counts, duties, rulings waiting, players' requests."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    ctx = _dashboard_context(request, game, gm)
    partial = request.headers.get("HX-Request") == "true"
    template = "games/gm_dashboard_body.html" if partial else "games/gm_dashboard.html"
    return render(request, template, ctx)


def _choices(game: Game, v: View) -> dict[str, Any]:
    return {
        "players": sorted((p["pseudo"] for p in v["players"]), key=str.casefold),
        "trials": [
            (
                t["number"],
                f"n°{t['number']} — {', '.join(t['accused'])} ({labels.trial_status(t['status'])})",
            )
            for t in v["trials"]
        ],
        "targets": None,
        "gms": list(GameMaster.objects.filter(game=game).values_list("name", flat=True)),
    }


def _form_context(
    game: Game, gm: GameMaster, spec: vocabulary.Spec, v: View, values: dict[str, Any]
) -> dict[str, Any]:
    c = _choices(game, v)
    ctx: dict[str, Any] = {
        "game": game,
        "gm": gm,
        "spec": spec,
        "fields": field_choices(spec, **c),
        "players": c["players"],
        "values": values,
        "seen": game.last_seq,
        "day": v["day"],
    }
    ctx["f"] = ctx
    return ctx


def _parse_when(game: Game, text: str) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    try:
        return parse_time(text, game.start)
    except ValueError as exc:
        raise RuleViolation("invalid_argument", str(exc)) from None


@gm_page
def actions_index(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """A form for every action of the vocabulary."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    v = service.view_for(game, "game_master", request.user)
    game.refresh_from_db(fields=["last_seq", "version", "generation"])
    values = dict(request.GET.items())
    forms = [_form_context(game, gm, s, v, values) for s in vocabulary.SPECS]
    return render(
        request,
        "games/gm_actions.html",
        {"game": game, "gm": gm, "forms": forms, "v": v, "values": values},
    )


@gm_page
def action_form(request: HttpRequest, game: Game, gm: GameMaster, name: str) -> HttpResponse:
    """GET: the form of one action; POST: record it (as a player or as this game master)."""
    spec = vocabulary.BY_NAME.get(name)
    if spec is None:
        raise Http404(name)
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    data = request.POST if request.method == "POST" else request.GET
    values = dict(data.items())
    if request.method != "POST":
        v = service.view_for(game, "game_master", request.user)
        game.refresh_from_db(fields=["last_seq", "version", "generation"])
        return render(request, "games/gm_action.html", _form_context(game, gm, spec, v, values))
    by = gm.name if spec.who == "game_master" else str(data.get("by", "")).strip()
    seen = _int(data.get("seen"))
    try:
        if not by:
            raise RuleViolation("invalid_argument", "Qui agit ? Choisissez un joueur.")
        args = vocabulary.parse_args(spec, data)
        when = _parse_when(game, str(data.get("at", "")))
        out = service.record(
            game,
            request.user,
            name,
            by,
            args,
            at=when,
            note=str(data.get("note", "")),
            seen=seen,
            confirm=str(data["confirm"]) if data.get("confirm") else None,
        )
    except RuleViolation as rv:
        out = service.Outcome(False, rv.code, rv.message)
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
    if not out.ok:
        v = service.view_for(game, "game_master", request.user)
        ctx = _form_context(game, gm, spec, v, values)
        ctx["error"] = out
        return render(request, "games/gm_action.html", ctx, status=400)
    _after_write(request, game, name, by, args, out)
    nxt = str(data.get("next", ""))
    if nxt.startswith("/") and not nxt.startswith("//"):
        return redirect(nxt)
    return redirect("gm_dashboard", slug=game.slug)


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
            _(
                "%(n)d événement(s) enregistré(s) entre-temps (un autre MJ, une échéance) : "
                "votre action a été appliquée sur l'état à jour."
            )
            % {"n": out.moved},
        )
    for e in out.events:
        if isinstance(e, PlayerReplaced):
            accounts.replaced(game, e.old, e.new)
    if out.preview is not None:
        accounts.reconcile(game)
    announced = [getattr(e, "text", "") for e in out.events if getattr(e, "public", False)]
    summary = _("Enregistré : %(action)s (%(n)d événement(s)).") % {
        "action": vocabulary.BY_NAME[name].label,
        "n": len(out.events),
    }
    messages.success(request, summary)
    for text in announced:
        messages.info(request, _("Annonce : %(text)s") % {"text": text})


def _diff_rows(game: Game, diff: service.Diff) -> dict[str, Any]:
    def rows(events: list[EngineEvent]) -> list[dict[str, str]]:
        return [{"time": format_time(game.start, e.at), "text": describe(e)} for e in events]

    return {
        "removed": rows(diff.removed),
        "added": rows(diff.added),
        "refused": [
            {"action": a, "message": msg, "args": vocabulary.describe_args(a.args)}
            for a, msg in diff.newly_refused
        ],
        "applied": diff.newly_applied,
        "empty": not (diff.removed or diff.added or diff.newly_refused or diff.newly_applied),
    }


@gm_page
def journal(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """Every event of the current log, who recorded it, and the struck actions."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    service.current(game, request.user)
    game.refresh_from_db()
    day = _int(request.GET.get("jour"))
    rows = service.log_rows(game)
    actions = {
        a.pk: a for a in Action.objects.filter(game=game).select_related("recorded_by", "request")
    }
    names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
    out = []
    for row in rows:
        e = from_json(row.data)
        when = format_time(game.start, e.at)
        if day is not None and not when.startswith(f"J{day} "):
            continue
        a = actions.get(row.action_id or 0)
        if a is None:
            who = _("horloge") if row.type != "game_created" else _("création")
        else:
            who = names.get(a.recorded_by_id or 0) or (
                a.recorded_by.get_username() if a.recorded_by else "?"
            )
        out.append({"row": row, "time": when, "text": describe(e), "who": who, "action": a})
    struck = (
        Action.objects.filter(game=game, struck=True)
        .prefetch_related(Prefetch("strikes", to_attr="strike_list"))
        .select_related("recorded_by")
    )
    refused = Action.objects.filter(game=game, struck=False, outcome="refused")
    return render(
        request,
        "games/gm_journal.html",
        {
            "game": game,
            "gm": gm,
            "rows": out,
            "struck": struck,
            "refused": refused,
            "day": day,
            "days": range(1, 15),
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
            accounts.reconcile(game)
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
            "args": vocabulary.describe_args(action.args),
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
    """Accounts: invitation links, revoked accounts, game masters."""
    if request.method == "POST":
        op = request.POST.get("op")
        member = get_object_or_404(game.memberships, pk=_int(request.POST.get("member")))
        if op == "invite":
            accounts.invite(game, member.user)
            messages.success(
                request, _("Nouveau lien d'invitation pour %(p)s.") % {"p": member.pseudo}
            )
        elif op == "revoke" and member.revoked_at is None:
            member.revoked_at = service.now()
            member.revoked_reason = str(request.POST.get("reason", "")) or _("retiré par les MJ")
            member.save(update_fields=["revoked_at", "revoked_reason"])
            messages.success(request, _("Accès retiré à %(p)s.") % {"p": member.pseudo})
        return redirect("gm_players", slug=game.slug)
    invitations = {
        inv.user_id: inv
        for inv in Invitation.objects.filter(game=game, used_at__isnull=True).order_by("created_at")
    }
    members = [
        {"m": m, "invitation": invitations.get(m.user_id)}
        for m in game.memberships.select_related("user").order_by("revoked_at", "pseudo")
    ]
    gms = [
        {"gm": g, "invitation": invitations.get(g.user_id)}
        for g in GameMaster.objects.filter(game=game).select_related("user")
    ]
    return render(
        request,
        "games/gm_players.html",
        {"game": game, "gm": gm, "members": members, "gms": gms},
    )


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
        req.status = Request.REFUSED
        req.message = str(request.POST.get("reason", "")).strip() or _("Refusée par les MJ.")
        req.decided_by = request.user if request.user.is_authenticated else None
        req.decided_at = service.now()
        req.save(update_fields=["status", "message", "decided_by", "decided_at"])
        messages.success(request, _("Demande refusée."))
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
        )
    except service.Conflict:
        messages.warning(request, service.Conflict.message)
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
    req.save(update_fields=["status", "message", "decided_by", "decided_at", "args"])
    return redirect("gm_dashboard", slug=game.slug)
