"""The forum bridge in the console: read a pasted thread page, confirm and record its
steps at their forum times, the helpers' suggestions beside each constraint to
judge; the game's forum templates ("À poster" is :mod:`.views_post`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from ronde.engine.errors import RuleViolation
from ronde.engine.names import CAST_TABLE
from ronde.forum.apply import plan, record_or_refuse, step_order
from ronde.forum.markup import problems as markup_problems
from ronde.forum.proposals import Proposal
from ronde.forum.render import ForumContext, check_template, forum_messages, template_source
from ronde.forum.render import render as render_message
from ronde.text import clean

from . import forum_console as fc
from . import judging, service
from .access import gm_page, number
from .models import Action, ForumTemplate, Game, GameMaster, Request
from .views_gm import _diff_rows

MAX_UPLOAD = 5 * 1024 * 1024
MAX_FILES = 30


def _characters() -> list[tuple[str, str]]:
    return sorted(((c.id, c.fr) for c in CAST_TABLE if c.in_ronde), key=lambda c: c[1])


def _base(game: Game, gm: GameMaster, v: dict[str, Any]) -> dict[str, Any]:
    return {
        "game": game,
        "gm": gm,
        "v": v,
        "players": sorted((str(p["pseudo"]) for p in v["players"]), key=str.casefold),
        "gms": fc._gm_names(game),
        "characters": _characters(),
        "trials": v["trials"],
    }


@gm_page
def forum(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """GET: paste or upload a thread page. POST ``op=read``: its proposals;
    ``op=record``: record the confirmed ones at their forum times."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    v = service.view_for(game, "game_master", request.user)
    ctx = _base(game, gm, v)
    if request.method == "POST" and request.POST.get("op") == "record":
        return _record(request, game, gm, ctx)
    if request.method == "POST" and request.POST.get("op") == "read":
        return _read(request, game, gm, ctx)
    return render(request, "games/gm_forum.html", ctx)


def _read(request: HttpRequest, game: Game, gm: GameMaster, ctx: dict[str, Any]) -> HttpResponse:
    v = ctx["v"]
    pages: list[str] = []
    uploads = request.FILES.getlist("files")
    problems: list[str] = []
    if len(uploads) > MAX_FILES:
        problems.append(f"{len(uploads)} fichiers : seuls les {MAX_FILES} premiers sont lus")
        uploads = uploads[:MAX_FILES]
    for f in uploads:
        if f.size is not None and f.size > MAX_UPLOAD:
            problems.append(f"{f.name} : fichier trop gros (5 Mo au plus)")
            continue
        # (uploaded pages skip the forms' middleware: control characters removed here)
        pages.extend(clean(p) for p in fc.read_uploads([(f.name or "", f.read())]))
    pasted = str(request.POST.get("page", ""))
    if pasted.strip():
        pages.append(pasted)
    if not pages:
        ctx["error"] = "Collez une page du forum ou choisissez des pages enregistrées."
        return render(request, "games/gm_forum.html", ctx, status=400)
    today: date | None = None
    if request.POST.get("today"):
        try:
            today = date.fromisoformat(str(request.POST["today"]))
        except ValueError:
            problems.append("date de la copie illisible (AAAA-MM-JJ) : ignorée")
    trial = fc._int(request.POST.get("trial"))
    result = fc.parse(game, v, pages, today=today, trial=trial)
    steps = fc.steps_from(result, game.start)
    fc.mark_recorded(game, v, steps)
    posts = result.thread.posts
    day = fc._int(request.POST.get("day")) or fc.posts_day(posts, game.start, int(v["day"]))
    registre = {
        "model": str(request.POST.get("registre_model", "")),
        "mime": str(request.POST.get("registre_mime", "")),
        "before": str(request.POST.get("registre_before", "")),
        "model_name": str(request.POST.get("registre_model_name", "")),
    }
    helpers = fc.helpers(
        v,
        posts,
        game.start,
        day,
        sentence=str(request.POST.get("sentence", "")),
        registre=registre,
        judged=fc.judged_labels(service.constraint_verdicts(game)),
    )
    judging.remember(game, helpers, request.user)  # the dashboard's list shows them
    ctx.update(
        {
            "result": result,
            "thread": result.thread,
            "steps": steps,
            "count": len(steps),
            "problems": problems
            + [fc.diagnostic_text(d) for d in result.diagnostics if d.level != "info"],
            "infos": [fc.diagnostic_text(d) for d in result.diagnostics if d.level == "info"],
            "ignored": result.ignored,
            "participation": fc.participation_rows(posts, game.start, fc._gm_names(game))
            if result.kind == "rehearsals"
            else None,
            "helpers": helpers,
            "helper_day": day,
            "next": reverse("gm_forum", args=[game.slug]),
        }
    )
    return render(request, "games/gm_forum.html", ctx)


def _record(request: HttpRequest, game: Game, gm: GameMaster, ctx: dict[str, Any]) -> HttpResponse:
    """Record the confirmed steps: :func:`ronde.forum.apply.plan` orders them and holds
    back those of a trial whose opening is not confirmed, then each goes through
    :func:`ronde.forum.apply.record_or_refuse` (the one writer ``ronde forum parse
    --apply`` uses too)."""
    v = ctx["v"]
    steps = fc.steps_from_post(request.POST)
    fc.mark_recorded(game, v, steps)
    chosen = [s for s in steps if s.checked and not s.recorded]
    errors: list[str] = []
    props: list[tuple[Proposal, fc.Step]] = []
    for s in chosen:
        try:
            props.append((s.proposal(game.start), s))
        except RuleViolation as rv:
            s.problem = rv.message
            errors.append(rv.message)
    if errors:
        return _again(request, ctx, steps, errors)
    # a trial this paste opens takes the number of its opening time; steps follow it
    openings = [(p, s) for p, s in props if s.action == "open_trial" and s.new_trial]
    shift: list[Action] = []
    early = 0
    for p, s in openings:
        assert p.at is not None
        rank = fc.opening_rank(v, game.start, p.at)
        for other_p, other in props:
            if other.new_trial == s.new_trial and other.action != "open_trial":
                other.trial = str(rank)
                other_p.args["trial"] = rank
        if rank <= len(v["trials"]):
            shift = fc.shifted_actions(game, rank)
            early += 1
    if early > 1 or (early and len(openings) > 1):
        return _again(
            request,
            ctx,
            steps,
            [
                "Plusieurs Procès à ouvrir dont un avant des Procès déjà enregistrés : "
                "enregistrez-les un sujet à la fois."
            ],
        )
    # steps of a trial whose opening is neither confirmed nor recorded wait for it
    unopened = {
        n
        for s in steps
        if s.action == "open_trial" and not s.checked and not s.recorded
        for n in [number(s.new_trial)]
        if n is not None
    }
    step_of = {id(p): s for p, s in props}
    ready, held = plan([p for p, _s in props], unopened=unopened)
    for h in held:
        step_of[id(h.proposal)].problem = "Procès pas encore ouvert : confirmez aussi son ouverture"
    if held:
        return _again(request, ctx, steps, [step_of[id(held[0].proposal)].problem])
    if shift and request.POST.get("renumber") != "yes":
        ctx.update(
            {
                "steps": steps,
                "count": len(steps),
                "shift": [
                    {"a": a, "old": a.args.get("trial"), "new": int(a.args["trial"]) + 1}
                    for a in shift
                ],
                "renumber": True,
            }
        )
        return render(request, "games/gm_forum_confirm.html", ctx)
    todo = [
        _Rec(
            p,
            f"forum : message {step_of[id(p)].post} de {step_of[id(p)].author}",
            None,
            step_of[id(p)],
        )
        for p in ready
    ]
    if shift:
        todo += _renumber(request, game, shift)
        todo.sort(key=lambda r: step_order(r.prop))
    confirm_n = fc._int(request.POST.get("confirm_step"))
    recorded = 0
    for rec in todo:
        s = rec.step or fc.Step(n=-1, action=rec.prop.action, by=rec.prop.by, at="")
        writer = fc.ServiceWriter(game, request.user, rec.request)
        confirmed = request.POST.get("confirm")
        token = str(confirmed) if confirmed and confirm_n == s.n >= 0 else None
        out = record_or_refuse(rec.prop, writer, confirm=token, note=rec.note)
        if shift and out.status == "preview" and rec.prop.action == "open_trial":
            # the renumbering the game master confirmed: later trials take the next
            # numbers (their events are the ones the preview lists)
            out = record_or_refuse(rec.prop, writer, confirm=out.token, note=rec.note)
        if out.status == "conflict":
            messages.warning(request, out.message)
            break
        if out.status == "preview":
            game.refresh_from_db()
            ctx.update(
                {
                    "steps": steps,
                    "count": len(steps),
                    "diff": _diff_rows(game, out.preview),
                    "token": out.token,
                    "confirm_step": s.n,
                    "pending": s,
                    "recorded_now": recorded,
                }
            )
            return render(request, "games/gm_forum_confirm.html", ctx)
        if out.status == "recorded":
            recorded += rec.step is not None
            s.recorded = "enregistré"
        elif out.status == "as_post":
            recorded += rec.step is not None
            s.recorded = "enregistrée comme message dans le Procès"
            messages.info(
                request,
                f"{s.label} de {s.by} ({s.at}) refusée : {out.message} — enregistrée comme "
                "message dans le Procès.",
            )
        elif out.status == "already":
            s.recorded = out.message
        else:
            s.problem = f"refusé ({out.code}) : {out.message}"
            errors.append(f"{s.label} de {s.by} ({s.at}) : {out.message}")
            if out.posted:
                # the post is in the trial's topic all the same (R4.5)
                s.problem += " — enregistré comme message dans le Procès"
    if recorded:
        messages.success(
            request, f"Enregistré : {recorded} action(s) du forum, à leurs heures du forum."
        )
    for e in errors:
        messages.error(request, e)
    return redirect("gm_forum", slug=game.slug)


def _again(
    request: HttpRequest, ctx: dict[str, Any], steps: list[fc.Step], errors: list[str]
) -> HttpResponse:
    ctx.update({"steps": steps, "count": len(steps), "problems": errors, "again": True})
    return render(request, "games/gm_forum.html", ctx, status=400)


@dataclass
class _Rec:
    """One write: a step of the page, or a recorded action again with its new number."""

    prop: Proposal
    note: str
    request: Request | None
    step: fc.Step | None


def _renumber(request: HttpRequest, game: Game, shift: list[Action]) -> list[_Rec]:
    """An earlier trial is inserted: the recorded actions naming the later trials are
    struck (with the reason), to be recorded again with the new numbers at their times
    (after the earlier opening)."""
    again = [
        _Rec(
            Proposal(a.action, a.by, a.at, {**a.args, "trial": int(a.args["trial"]) + 1}, 0, ""),
            (a.note + " — " if a.note else "") + "renuméroté",
            a.request,
            None,
        )
        for a in shift
    ]
    for a in shift:
        game.refresh_from_db()
        token = service.preview_strike(game, a).token
        service.strike(
            game,
            a,
            "renuméroté : un Procès ouvert avant a été enregistré après (page du forum)",
            request.user,
            token,
        )
    messages.info(
        request,
        f"{len(again)} action(s) renumérotée(s) : un Procès ouvert plus tôt prend son numéro.",
    )
    return again


# -- the forum templates ------------------------------------------------------------------
@gm_page
def templates(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The game's forum templates: each editable, with a preview on a message of the game."""
    tpl = fc.templates_for(game)
    names = [n for n in tpl.names() if not n.startswith("_") or n == "_default.txt"]
    name = str(request.POST.get("name") or request.GET.get("nom") or "")
    own = fc.game_templates(game)
    ctx: dict[str, Any] = {
        "game": game,
        "gm": gm,
        "names": [(n, n in own) for n in names],
        "name": name if name in names else "",
    }
    if not ctx["name"]:
        return render(request, "games/gm_post_templates.html", ctx)
    text = str(request.POST.get("text")) if "text" in request.POST else template_source(tpl, name)
    op = request.POST.get("op")
    if request.method == "POST" and op in ("save", "reset"):
        new = "" if op == "reset" else text
        ForumTemplate.objects.create(
            game=game,
            name=name,
            text=new,
            saved_by=request.user if request.user.is_authenticated else None,
            saved_at=service.now(),
        )
        problem = check_template(new) if new else ""
        if problem:
            messages.warning(
                request,
                f"Modèle enregistré, mais il a une erreur ({problem}) : les messages de ce "
                "modèle reprennent le texte du moteur.",
            )
        else:
            messages.success(request, "Modèle enregistré." if new else "Modèle par défaut rétabli.")
        return redirect(reverse("gm_post_templates", args=[game.slug]) + f"?nom={name}")
    ctx["text"] = text
    ctx["own"] = name in own
    ctx["problem"] = check_template(text)
    if game.started:
        eng = service.current(game, request.user)
        kind = name.removesuffix(".txt")
        sample = [
            m
            for m in forum_messages(eng)
            if (m.get("kind") == kind or kind == "_default") and (m.get("public") or m.get("to"))
        ]
        if sample:
            r = render_message(
                sample[-1], fc.templates_for(game, {name: text}), ForumContext.from_game(eng)
            )
            ctx["preview"] = r.text
            ctx["preview_problem"] = r.problem
            found = markup_problems(r.text)
            if found and not r.problem:
                messages.warning(
                    request,
                    "Balisage du forum à revoir dans l'aperçu : " + " ; ".join(found[:3]) + ".",
                )
        else:
            ctx["preview"] = None
    return render(request, "games/gm_post_templates.html", ctx)
