"""Setting a game up: dates and house rules, game masters, roster, cast and Ronde,
then the start (``GameCreated``) with an invitation for every player."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ronde.engine.clock import day_start, start_problem
from ronde.engine.errors import RuleViolation
from ronde.engine.names import RONDE_IDS, french_name, resolve_character
from ronde.engine.options import validate_options
from ronde.setup import draw, new_seed

from . import accounts, delivery, house_rules, service
from .access import gm_page, parse_roster
from .models import Game, GameMaster


class NewGameForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Nom de la partie"), max_length=120)
    start = forms.DateField(
        label=gettext_lazy("Date du J1"), widget=forms.DateInput(attrs={"type": "date"})
    )
    gm_name = forms.CharField(
        label=gettext_lazy("Votre nom de MJ dans la partie"), max_length=60, required=False
    )
    clock = forms.ChoiceField(
        label=gettext_lazy("Horloge"),
        choices=(
            (
                Game.WALL,
                gettext_lazy("Horloge réelle : la partie se joue en vrai, au jour le jour"),
            ),
            (
                Game.MANUAL,
                gettext_lazy(
                    "Horloge manuelle : répétition ou tutoriel, le temps n'avance que "
                    "quand vous enregistrez une action plus tardive"
                ),
            ),
        ),
        initial=Game.WALL,
        required=False,  # a form posted without it: the wall clock
        widget=forms.RadioSelect,
    )

    def clean_clock(self) -> str:
        return str(self.cleaned_data.get("clock") or Game.WALL)

    def clean_start(self) -> date:
        start: date = self.cleaned_data["start"]
        problem = start_problem(start)
        if problem is not None:
            raise forms.ValidationError(problem[0].upper() + problem[1:])
        return start


def _unique_slug(name: str) -> str:
    base = slugify(name)[:50] or "partie"
    slug, n = base, 1
    while Game.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@login_required
def gm_home(request: HttpRequest) -> HttpResponse:
    """The games this user runs, and a new one (organisers only: ``games.organise``)."""
    user = request.user
    assert isinstance(user, User)  # login_required
    organiser = accounts.can_organise(user)
    refused = request.method == "POST" and not organiser
    if refused:
        messages.error(request, _("Seuls les organisateurs peuvent créer une partie."))
    form = NewGameForm(request.POST or None)
    if request.method == "POST" and organiser and form.is_valid():
        with transaction.atomic():
            game = Game.objects.create(
                slug=_unique_slug(form.cleaned_data["name"]),
                name=form.cleaned_data["name"],
                start=form.cleaned_data["start"],
                created_by=user,
                clock=form.cleaned_data["clock"],
            )
            GameMaster.objects.create(
                game=game,
                user=user,
                # (a user name may be longer than a game master's name: cut)
                name=form.cleaned_data["gm_name"].strip() or user.get_username()[:60],
            )
        return redirect("gm_setup", slug=game.slug)
    games = [gm.game for gm in GameMaster.objects.filter(user=user)]
    return render(
        request,
        "games/gm_home.html",
        {"form": form, "games": games, "can_organise": organiser},
        status=403 if refused else 200,
    )


def _house_rules(game: Game) -> list[dict[str, Any]]:
    return house_rules.rows(game.options)


def _cast_text(game: Game) -> str:
    return "\n".join(f"{p}: {french_name(c)}" for p, c in game.cast.items())


@gm_page
def setup(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The draft of a game; each form on the page posts an ``op``. Once the game has
    started, its setup stays in view: the Ronde, the cast and the house rules."""
    if game.started:
        return redirect("gm_ronde", slug=game.slug)
    error = ""
    if request.method == "POST":
        try:
            done = _setup_op(request, game)
        except RuleViolation as rv:
            error = rv.message
        else:
            if done is not None:
                return done
            return redirect("gm_setup", slug=game.slug)
    gms = GameMaster.objects.filter(game=game).select_related("user")
    counts: dict[str, int] = {}
    for c in game.cast.values():
        counts[c] = counts.get(c, 0) + 1
    return render(
        request,
        "games/gm_setup.html",
        {
            "game": game,
            "gm": gm,
            "gms": gms,
            "error": error,
            "rules": _house_rules(game),
            "deliveries": Game.DELIVERIES,
            "cast_text": _cast_text(game),
            "ronde_text": "\n".join(french_name(c) for c in game.ronde),
            "cast_rows": [
                {"player": p, "character": c, "name": french_name(c)} for p, c in game.cast.items()
            ],
            "ronde_names": [french_name(c) for c in game.ronde],
            "characters": [(c, french_name(c)) for c in ("extra", *RONDE_IDS)],
        },
        status=400 if error else 200,
    )


def _setup_op(request: HttpRequest, game: Game) -> HttpResponse | None:
    op = request.POST.get("op")
    if op == "info":
        form = NewGameForm(request.POST)
        if not form.is_valid():
            wrong = form.errors.get("start") if form.data.get("start") else None
            raise RuleViolation(
                "invalid_argument", str(wrong[0]) if wrong else _("Nom et date du J1 sont requis.")
            )
        game.name = form.cleaned_data["name"]
        game.start = form.cleaned_data["start"]
        options = house_rules.read(request.POST)
        validate_options(options)
        game.options = options
        setting = delivery.read_setting(request.POST)  # (not a house rule: the game's own)
        if setting is not None:
            game.delivery, game.delivery_delay = setting
        game.save()
        messages.success(request, _("Partie mise à jour."))
    elif op == "roster":
        game.roster = parse_roster(str(request.POST.get("roster", "")))
        game.cast, game.ronde = {}, []
        game.save()
        messages.success(request, _("%(n)d joueurs.") % {"n": len(game.roster)})
    elif op == "draw":
        try:
            cast, ronde = draw(game.roster)
        except ValueError as exc:
            raise RuleViolation("invalid_argument", str(exc)) from None
        game.cast, game.ronde = cast, ronde
        game.save()
        messages.success(request, _("Personnages et Ronde tirés au sort."))
    elif op == "cast":
        _enter_cast(request, game)
    elif op == "add_gm":
        _add_gm(request, game)
    elif op == "start":
        return _start(request, game)
    return None


def _enter_cast(request: HttpRequest, game: Game) -> None:
    cast: dict[str, str] = {}
    for line in str(request.POST.get("cast", "")).splitlines():
        if not line.strip():
            continue
        if ":" not in line:
            raise RuleViolation(
                "invalid_argument", _("Une ligne par joueur : « pseudo: personnage ».")
            )
        player, character = (s.strip() for s in line.split(":", 1))
        cast[player] = resolve_character(character)
    ronde = [
        resolve_character(s.strip())
        for s in str(request.POST.get("ronde", "")).replace(",", "\n").splitlines()
        if s.strip()
    ]
    game.cast, game.ronde = cast, ronde
    if not game.roster:
        game.roster = list(cast)
    game.save()
    messages.success(request, _("Distribution enregistrée."))


def _add_gm(request: HttpRequest, game: Game) -> None:
    name = str(request.POST.get("name", "")).strip()
    if not name:
        raise RuleViolation("invalid_argument", _("Nom du MJ manquant."))
    try:
        with transaction.atomic():
            accounts.add_game_master(game, name)
    except IntegrityError:
        raise RuleViolation("invalid_argument", _("Ce MJ est déjà dans la partie.")) from None
    messages.success(
        request,
        _("MJ ajouté : %(n)s. Envoyez-lui son lien d'invitation (page Joueurs).") % {"n": name},
    )


def _start(request: HttpRequest, game: Game) -> HttpResponse:
    if not game.cast:
        raise RuleViolation("invalid_argument", _("Tirez ou saisissez d'abord la distribution."))
    gm_names = list(GameMaster.objects.filter(game=game).values_list("name", flat=True))
    eng = service.new_engine(
        start=game.start,
        cast=game.cast,
        ronde=list(game.ronde),
        seed=new_seed(),
        players=list(game.roster) or list(game.cast),
        game_masters=gm_names,
        options=game.options,
        # started before J1: the game exists from now, so that what must exist before
        # J1 (themes, the Mime's model, Guignol's constraint) can be recorded
        at=min(service.now(), day_start(game.start, 1)),
    )
    with transaction.atomic():
        service.start(game, eng, request.user)
        for pseudo in eng.state.players:
            accounts.add_player(game, pseudo)
    messages.success(
        request, _("La partie commence. Envoyez à chaque joueur son lien d'invitation.")
    )
    return redirect("gm_players", slug=game.slug)
