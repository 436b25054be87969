"""Every action of the vocabulary has a form in the console: it renders, and what it
submits reaches the engine (one test per action)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.web.games import service, vocabulary
from ronde.web.games.models import Action

from .conftest import World, at, make_world

CAST = {
    "Pro": "prompter",
    "Avo": "devils_advocate",
    "Ali": "alice",
    "Gui": "guignol",
    "Deco": "decorators",
    "Dora": "decorators",
    "Chu": "chucky",
    "Voy": "seer",
    "Mim": "mime",
    "Sir": "little_mermaid",
    "Hal": "halus",
    "Woo": "woody",
    "Pie": "pierrot",
    "Div": "diva",
    "Pia": "pianist",
    "Des": "destiny",
    "Her": "tragic_hero",
    "Che": "knight",
    "Pol": "polichinelle",
    "Pai": "straw_man",
    "Pin": "pinocchio",
    "Rev": "revenant",
    "Fa": "extra",
    "Fb": "extra",
    "Fc": "extra",
    "Fd": "extra",
}
RONDE = [
    "prompter",
    "devils_advocate",
    "alice",
    "guignol",
    "decorators",
    "chucky",
    "seer",
    "mime",
    "little_mermaid",
    "halus",
    "woody",
    "pierrot",
    "diva",
    "pianist",
    "destiny",
    "tragic_hero",
    "knight",
    "polichinelle",
    "straw_man",
    "pinocchio",
    "revenant",
]

#: action -> (when, form data, expected: "ok" or the engine's refusal code)
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "open_trial": ("J2 10:00", {"by": "Fa", "against": "Woo", "as": "woody"}, "ok"),
    "complain": ("J2 10:00", {"by": "Fb", "trial": "1"}, "ok"),
    "post": ("J2 10:00", {"by": "Fc", "trial": "1"}, "ok"),
    "rehearse": ("J2 10:00", {"by": "Fd"}, "ok"),
    "cancel_trial": ("J2 10:00", {"by": "Avo", "trial": "1"}, "ok"),
    "shorten_trial": ("J2 10:00", {"by": "Chu", "trial": "1"}, "ok"),
    "ask": ("J2 10:00", {"by": "Woo", "player": "Ali", "as": "alice"}, "ok"),
    "put_to_sleep": ("J2 10:00", {"by": "Pie", "player": "Ali"}, "ok"),
    "reveal_secret": ("J4 10:00", {"by": "Pol", "player": "Ali"}, "ok"),
    "grant_anonymous": ("J2 10:00", {"by": "Pol", "player": "Fa"}, "ok"),
    "order": ("J2 10:00", {"by": "Sir", "player": "Ali", "kind": "go_to", "cell": "1,1"}, "ok"),
    "choose_phrase": (
        "J2 10:00",
        {"by": "Pro", "text": "la lune se lève toujours sur la ville endormie"},
        "ok",
    ),
    "prompt": ("J2 10:00", {"by": "Pro", "player": "Ali", "theme_found": "on"}, "out_of_window"),
    "designate_monster": ("J1 10:00", {"by": "Her", "character": "alice"}, "ok"),
    "accuse_monster": ("J2 10:00", {"by": "Her", "player": "Ali"}, "ok"),
    "declare_not": ("J2 10:00", {"by": "Her", "player": "Ali"}, "ok"),
    "declare_destiny": (
        "J2 10:00",
        {
            "by": "Des",
            "list": "Alice, Woody, Mime, Voyante, Halus, Diva, Pianiste, Chucky, "
            "Guignol, Pinocchio, Revenant, Souffleur",
        },
        "ok",
    ),
    "shift_destiny": ("J2 10:00", {"by": "Des", "append": "knight"}, "not_allowed"),
    "designate": ("J2 10:00", {"by": "Div", "character": "alice"}, "ok"),
    "last_breath": ("J2 10:00", {"by": "Div", "character": "alice"}, "not_allowed"),
    "guess_ronde": ("J2 10:00", {"by": "Ali", "order": ", ".join(RONDE)}, "ok"),
    "send_items": ("J2 10:00", {"by": "Deco", "to": "Mj", "items": "Tapis persan"}, "ok"),
    "use_joker": ("J2 10:00", {"by": "Ali", "to": "Mj2", "items": "gros chat mignon"}, "ok"),
    "chorus_vote": (
        "J2 10:00",
        {"by": "Woo", "action": "investigate", "player": "Ali", "as": "alice"},
        "ok",
    ),
    "announce": ("J2 10:00", {"trial": "1"}, "ok"),
    "record_constraint": ("J2 10:00", {"player": "Woo", "day": "2", "met": "on"}, "ok"),
    "set_theme": ("J2 10:00", {"day": "2", "theme": "la pluie"}, "ok"),
    "exempt": ("J2 10:00", {"player": "Ali", "days": "3, 4"}, "ok"),
    "transfigure": ("J2 10:00", {"player": "Woo"}, "not_allowed"),  # no Extra's seat free
    "assign_mime_target": ("J2 10:00", {"player": "Ali"}, "ok"),
    "give_revenant_role": ("J2 10:00", {"character": "woody"}, "ok"),
    "appoint_secretary": ("J2 10:00", {"player": "Woo"}, "ok"),
    "award": ("J2 10:00", {"player": "Ali", "points": "10", "reason": "belle enquête"}, "ok"),
    "replace_player": ("J2 10:00", {"player": "Ali", "new": "Alix"}, "ok"),
    "record_death": ("J2 10:00", {"player": "Fd"}, "ok"),
    "set_guignol_constraint": ("J1 10:00", {"text": "finir chaque message par « hélas »"}, "ok"),
    "send_excerpt": ("J2 10:00", {"player": "Ali", "text": "« … il ment … »"}, "ok"),
    "record_order": ("J2 10:00", {"player": "Ali", "obeyed": "on"}, "ok"),
    "end_game": ("J2 10:00", {}, "ok"),
}


def test_every_action_has_a_case() -> None:
    assert set(CASES) == {s.name for s in vocabulary.SPECS}
    for name in ("announce", "record_death", "shift_destiny", "set_guignol_constraint"):
        assert name in vocabulary.BY_NAME
    for name in ("send_excerpt", "record_order"):
        assert name in vocabulary.BY_NAME


@pytest.fixture
def big(db: Any, clock: Any) -> World:
    service.clear_cache()
    return make_world(cast=CAST, ronde=RONDE, slug="toutes-actions")


def _trial_one(world: World) -> None:
    """Fa opens trial 1 against Woody on J2 09:00 (for the actions that need a trial)."""
    out = service.record(
        world.game, None, "open_trial", "Fa", {"against": "Woo", "as": "woody"}, at=at("J2 09:00")
    )
    assert out.ok, out.message


def _page(r: Any) -> str:
    return html.unescape(r.content.decode())


def _why(r: Any) -> str:
    """The refusal and field errors of a form page (for assertion messages)."""
    return " | ".join(re.findall(r'role="alert"[^>]*>(.*?)</p>', _page(r), re.S))


def _unmask_woody(world: World) -> None:
    """Trial 1 against Woody gets four valid complaints and its verdict is announced."""
    _trial_one(world)
    gm = service.view_for(world.game, "game_master")
    authors = [
        p["pseudo"]
        for p in gm["players"]
        if "woody" in p["targets"] and p["pseudo"] not in ("Fa", "Woo")
    ][:4]
    for i, who in enumerate(authors):
        out = service.record(world.game, None, "complain", who, {"trial": 1}, at=at(f"J2 09:1{i}"))
        assert out.ok, out.message
    out = service.record(world.game, None, "announce", "Mj", {"trial": 1}, at=at("J2 09:30"))
    assert out.ok, out.message


def _prepare(name: str, world: World) -> None:
    """What must exist before ``name`` can be recorded (all before its step's time)."""
    if name in ("complain", "post"):
        _trial_one(world)
    elif name in ("cancel_trial", "shorten_trial"):
        _trial_one(world)
        who = "Avo" if name == "cancel_trial" else "Chu"
        out = service.record(world.game, None, "post", who, {"trial": 1}, at=at("J2 09:05"))
        assert out.ok, out.message
    elif name == "announce":
        _trial_one(world)
        gm = service.view_for(world.game, "game_master")
        authors = [
            p["pseudo"]
            for p in gm["players"]
            if "woody" in p["targets"] and p["pseudo"] not in ("Fa", "Woo")
        ][:4]
        for i, who in enumerate(authors):
            t = at(f"J2 09:1{i}")
            out = service.record(world.game, None, "complain", who, {"trial": 1}, at=t)
            assert out.ok, out.message
    elif name in ("transfigure", "give_revenant_role", "appoint_secretary", "chorus_vote"):
        _unmask_woody(world)
    elif name == "record_order":
        args = {"player": "Ali", "kind": "go_to", "cell": [1, 1]}
        out = service.record(world.game, None, "order", "Sir", args, at=at("J2 09:00"))
        assert out.ok, out.message


@pytest.mark.parametrize("name", list(CASES))
def test_action_form_renders_and_submits(name: str, big: World, clock: Any) -> None:
    when, data, expected = CASES[name]
    spec = vocabulary.BY_NAME[name]
    client = Client()
    client.force_login(big.gms["Mj"])
    clock(when)
    _prepare(name, big)
    url = reverse("gm_action", args=[big.game.slug, name])
    page = _page(client.get(url))
    assert f'id="form-{name}"' in page
    assert str(spec.label) in page
    for arg in spec.args:  # every argument has its French label
        assert str(arg.label) in page, arg.name
    if spec.forum:
        assert "Heure du message sur le forum" in page
    assert not re.search(r">\s*(true|false|None)\s*<", page)
    before = Action.objects.filter(game=big.game, action=name).count()
    post = dict(data)
    if spec.forum:
        post["at"] = when
    r = client.post(url, post)
    after = Action.objects.filter(game=big.game, action=name).count()
    if expected == "ok":
        assert r.status_code == 302, _why(r)
        assert after == before + 1
        recorded = Action.objects.filter(game=big.game, action=name).latest("pk")
        assert recorded.at == at(when)
    else:
        assert r.status_code == 400
        assert r.context["error"].code == expected  # the code stays off the page
        assert after == before


def test_forum_time_is_required_for_a_forum_post(big: World, clock: Any) -> None:
    client = Client()
    client.force_login(big.gms["Mj"])
    clock("J2 20:00")
    url = reverse("gm_action", args=[big.game.slug, "open_trial"])
    r = client.post(url, {"by": "Fa", "against": "Woo", "as": "woody"})
    assert r.status_code == 400
    assert "Ce champ est obligatoire" in _page(r)
    assert not Action.objects.filter(game=big.game).exists()
    r = client.post(url, {"by": "Fa", "against": "Woo", "as": "woody", "at": "14:04"})
    assert r.status_code == 302
    assert Action.objects.get(game=big.game).at == at("J2 14:04")


def test_pickers_show_pseudo_with_character_and_items_by_french_name(
    big: World, clock: Any
) -> None:
    client = Client()
    client.force_login(big.gms["Mj"])
    clock("J2 10:00")
    page = _page(client.get(reverse("gm_action", args=[big.game.slug, "send_items"])))
    assert ">Ali — Alice<" in page
    assert ">Woo — Woody<" in page
    r = client.post(
        reverse("gm_action", args=[big.game.slug, "send_items"]),
        {"by": "Deco", "to": "Mj", "items": "tapis persen"},
    )
    assert r.status_code == 400
    assert "objet inconnu « tapis persen » (voulez-vous dire « Tapis persan » ?)" in _page(r)


def test_batch_complaints_of_one_trial(big: World, clock: Any) -> None:
    clock("J2 09:00")
    _trial_one(big)
    clock("J2 20:00")
    client = Client()
    client.force_login(big.gms["Mj"])
    url = reverse("gm_complaints", args=[big.game.slug])
    assert "Plusieurs plaintes" in _page(client.get(url + "?trial=1"))
    rows = [("Fc", "J2 11:30", False), ("Fb", "J2 10:15", True), ("Fd", "12:00", False)]
    data: dict[str, Any] = {"trial": "1", "form-TOTAL_FORMS": "8", "form-INITIAL_FORMS": "0"}
    for i, (who, t, anonymous) in enumerate(rows):
        data[f"form-{i}-by"] = who
        data[f"form-{i}-at"] = t
        if anonymous:
            data[f"form-{i}-anonymous"] = "on"
    r = client.post(url, data)
    # Fb has no anonymous complaint to use: his row says so, the others are recorded
    assert r.status_code == 200
    assert "refusée : Fb n'a pas de plainte anonyme à utiliser." in _page(r)
    got = list(
        Action.objects.filter(game=big.game, action="complain")
        .order_by("at")
        .values_list("by", "at", "args")
    )
    assert [(b, a) for b, a, _x in got] == [("Fc", at("J2 11:30")), ("Fd", at("J2 12:00"))]
    data["form-1-anonymous"] = ""
    for i in (0, 2):
        data[f"form-{i}-by"] = ""
    r = client.post(url, data)
    assert r.status_code == 302
    times = Action.objects.filter(game=big.game, action="complain").values_list("by", "at")
    assert ("Fb", at("J2 10:15")) in set(times)


def test_arguments_are_described_in_french() -> None:
    text = vocabulary.describe_args({"trial": 1, "anonymous": True}, "complain")
    assert text == "Procès : 1 ; Anonyme : oui"  # the form's hint is left out
    # in the declaration's order, whatever the stored order
    text = vocabulary.describe_args({"as": "woody", "against": ["Bob"]}, "open_trial")
    assert text == "Accusé : Bob ; Personnage supposé : Woody"
    text = vocabulary.describe_args({"items": ["item_carpet"], "to": "Mj"}, "send_items")
    assert text == "MJ : Mj ; Objets envoyés : Tapis persan"
    assert "Voyante" in vocabulary.describe_args({"character": "seer"}, "designate")
