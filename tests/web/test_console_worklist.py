"""The game masters' day in one click per batch (issue 25), without a browser: "À
poster" grouped by destination and marked a group at a time, a verdict's post that
records its announcement at its time (R4.8), the day's constraints judged as one list
in one locked write, the forms that offer only what can be done now, the Ronde and the
clock of a manual game, game times and French names everywhere."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.engine.events import TrialAnnounced
from ronde.forum import checks
from ronde.forum.thread import Block, Post
from ronde.web.games import labels, posting, service, views_player
from ronde.web.games.models import Action, ConstraintHint, Game, Posting, Request

from .conftest import START, World, at, gm_client

pytestmark = pytest.mark.django_db


def _page(response: Any) -> str:
    return unescape(response.content.decode())


def _visible(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def _forms(html: str, op: str) -> list[str]:
    found = re.findall(r"<form[^>]*>(.*?)</form>", html, re.S)
    return [f for f in found if f'name="op" value="{op}"' in f]


def _concluded(world: World, clock: Any) -> None:
    """Trial n°1 (Ana accuses Bob of being Woody: he is) concluded by its fourth complaint
    at J2 14:00 (the game's clock then at J2 18:00)."""
    clock("J2 18:00")
    g = world.game
    out = service.record(
        g, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"}, at=at("J2 10:00")
    )
    assert out.ok
    for who, when in (
        ("Hal", "J2 10:15"),
        ("Gus", "J2 11:15"),
        ("Fay", "J2 12:15"),
        ("Jo", "J2 14:00"),
    ):
        assert service.record(g, None, "complain", who, {"trial": 1}, at=at(when)).ok


# -- "À poster" --------------------------------------------------------------------------
def test_to_post_groups_a_day_by_destination_and_marks_a_group_at_once(
    client: Client, world: World, clock: Any
) -> None:
    clock("J3 09:00")
    g = world.game
    g.delivery = Game.MP  # private messages by MP, as on the forum alone: all of them listed
    g.save(update_fields=["delivery"])
    service.record(g, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"})
    service.record(g, None, "open_trial", "Dan", {"against": "Eve", "as": "little_mermaid"})
    # two private messages to Bob today: Woody's answer, the Little Mermaid's order
    assert service.record(g, None, "ask", "Bob", {"player": "Ana", "as": "alice"}).ok
    order = {"player": "Bob", "kind": "take_item", "item": "item_lamp"}
    assert service.record(g, None, "order", "Eve", order).ok
    items = posting.to_post(g, day=3)
    groups = posting.groups(items)
    topics = [gr for gr in groups if gr.public]
    # each trial's topic is its own post; the day's other announcements one post
    assert {gr.where for gr in topics} >= {"Sujet du Procès n°1 (Bob)", "Sujet du Procès n°2 (Eve)"}
    private = [gr for gr in groups if not gr.public]
    assert all(len({tuple(m.recipients) for m in gr.items}) == 1 for gr in private)
    several = next((gr for gr in groups if len(gr.pending) > 1), None)
    assert several is not None and several.where == "MP à Bob"  # one MP for both
    assert all(m.text.strip() in several.text for m in several.pending)
    # the page: today first, one mark for the whole group, the count left in the nav
    gm = gm_client(client, world)
    html = _page(gm.get(reverse("gm_to_post", args=[g.slug])))
    assert "À poster — J3 (aujourd'hui)" in html
    left = int(re.search(r'id="to-post-left"[^>]*>(\d+)', html).group(1))  # type: ignore[union-attr]
    assert left == len([m for m in items if m.pending])
    r = gm.post(
        reverse("gm_to_post", args=[g.slug]),
        {"op": "mark", "jour": "3", "anchor": "a-poster", "key": several.keys},
    )
    assert r.status_code == 302 and r["Location"].endswith("?jour=3#a-poster")
    assert Posting.objects.filter(game=g, key__in=several.keys).count() == len(several.keys)
    html = _page(gm.get(reverse("gm_to_post", args=[g.slug])))
    assert not any(k in f for f in _forms(html, "mark") for k in several.keys)
    after = int(re.search(r'id="to-post-left"[^>]*>(\d+)', html).group(1))  # type: ignore[union-attr]
    assert after == left - len(several.keys)
    # a message marked twice is one mark; keys that are not the game's mark nothing
    assert posting.mark(g, several.pending, world.gms["Mj2"]) == 0
    r = gm.post(reverse("gm_to_post", args=[g.slug]), {"op": "mark", "key": "nimportequoi"})
    assert Posting.objects.filter(game=g, key="nimportequoi").count() == 0


def test_combined_posts_keep_one_leading_zero_width_space() -> None:
    zw = "\u200b"  # (a rendering with an inert « @ » or « [ » starts with one: FORUM-PAGE.md)
    first, second = f"{zw}@{zw}Ana", f"{zw}[{zw}b] oui"
    assert posting.combined([first, second]) == f"{zw}@{zw}Ana\n\n[{zw}b] oui"
    assert posting.combined(["a", "", "b"]) == "a\n\nb"


def test_a_verdict_post_marked_posted_records_the_announcement_at_its_time(
    client: Client, world: World, clock: Any
) -> None:
    """R4.8: the announcement's instant is the game masters' verdict post."""
    _concluded(world, clock)
    clock("J2 18:00")
    g = world.game
    verdicts = [m for m in posting.to_post(g) if m.trial == 1]
    assert len(verdicts) == 1 and "Procès n°1" in verdicts[0].text
    assert not Action.objects.filter(game=g, action="announce").exists()  # nothing recorded
    gm = gm_client(client, world)
    html = _page(gm.get(reverse("gm_to_post", args=[g.slug])))
    assert 'name="op" value="verdict"' in html and "Heure du message sur le forum" in html
    r = gm.post(
        reverse("gm_to_post", args=[g.slug]),
        {"op": "verdict", "trial": "1", "at": "J2 15:00", "jour": "2"},
    )
    assert r.status_code == 302
    announce = Action.objects.get(game=g, action="announce")
    assert announce.at == at("J2 15:00") and announce.by == "Mj"
    eng = service.current(g)
    assert [e.at for e in eng.log if isinstance(e, TrialAnnounced)] == [at("J2 15:00")]
    # the verdict's own messages (the topic's post) are marked posted
    topic = [
        m for m in posting.to_post(g) if m.public and m.where.startswith("Sujet du Procès n°1")
    ]
    posted = [m for m in topic if m.at == at("J2 15:00")]
    assert posted and all(m.posting is not None for m in posted)
    # a complaint after the post is refused: the trial was closed by it
    late = service.record(g, None, "complain", "Kim", {"trial": 1}, at=at("J2 16:00"))
    assert not late.ok and late.code == "trial_closed"


def test_a_verdict_post_left_without_a_time_is_announced_now(
    client: Client, world: World, clock: Any
) -> None:
    _concluded(world, clock)
    clock("J2 18:00")
    g = world.game
    gm = gm_client(client, world)
    gm.post(reverse("gm_to_post", args=[g.slug]), {"op": "verdict", "trial": "1", "at": ""})
    assert Action.objects.get(game=g, action="announce").at == at("J2 18:00")
    # an unreadable time records nothing
    r = gm.post(reverse("gm_to_post", args=[g.slug]), {"op": "verdict", "trial": "1", "at": "x"})
    assert r.status_code == 302 and Action.objects.filter(action="announce").count() == 1


# -- the day's constraints as one list --------------------------------------------------------
def test_the_days_constraints_are_one_list_recorded_in_one_locked_write(
    client: Client, world: World, clock: Any, monkeypatch: Any
) -> None:
    clock("J2 20:00")
    g = world.game
    gm = gm_client(client, world)
    html = _page(gm.get(reverse("gm_dashboard", args=[g.slug])))
    listed = re.findall(r'<input type="hidden" name="player" value="([^"]+)">', html)
    assert len(listed) >= 5 and "toutes respectées sauf celles cochées" in html
    assert "Vérifier la contrainte" not in html.split('id="todo-h"')[1]  # not one by one
    commits: list[int] = []
    real = service._commit
    monkeypatch.setattr(service, "_commit", lambda *a, **k: (commits.append(1), real(*a, **k))[1])
    token = "t" * 24
    data = {"day": "2", "player": listed, "failed": [listed[0]], "form_token": token}
    r = gm.post(reverse("gm_constraints", args=[g.slug]), data)
    assert r.status_code == 302 and r["Location"].endswith("#contraintes")
    assert commits == [1]  # every verdict of the list: one locked write
    verdicts = service.constraint_verdicts(g)
    assert {p for p, d in verdicts if d == 2} == set(listed)
    assert service.verdict_met(verdicts[(listed[0], 2)]) is False
    assert all(service.verdict_met(verdicts[(p, 2)]) for p in listed[1:])
    # the same list submitted again records nothing (its one-time token) …
    n = Action.objects.filter(game=g, action="record_constraint").count()
    r = gm.post(reverse("gm_constraints", args=[g.slug]), data, follow=True)
    assert "déjà été envoyé" in _page(r)
    # … nor does the list of another game master who saw it unjudged (read under the lock)
    gm.post(reverse("gm_constraints", args=[g.slug]), {**data, "form_token": "u" * 24})
    assert Action.objects.filter(game=g, action="record_constraint").count() == n
    assert commits == [1]
    html = _page(gm.get(reverse("gm_dashboard", args=[g.slug])))
    assert "Toutes les contraintes du jour sont jugées." in html
    assert "jugée non respectée" in html and "Corriger" in html


def test_a_list_with_a_player_ticked_but_not_listed_records_nothing(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 20:00")
    gm = gm_client(client, world)
    r = gm.post(
        reverse("gm_constraints", args=[world.game.slug]),
        {"day": "2", "player": ["Ana"], "failed": ["Bob"]},
    )
    assert r.status_code == 302
    assert not Action.objects.filter(action="record_constraint").exists()


def test_record_many_writes_what_the_rules_accept_and_nothing_else(
    world: World, clock: Any
) -> None:
    clock("J2 20:00")
    g = world.game
    seq = Game.objects.get(pk=g.pk).last_seq
    outs = service.record_many(
        g,
        None,
        [
            ("record_constraint", "Mj", {"player": "Ana", "day": 2, "met": True}),
            ("record_constraint", "Mj", {"player": "Ana", "day": 9, "met": True}),  # future
        ],
    )
    assert [o.ok for o in outs] == [True, False] and outs[1].code == "out_of_window"
    assert Action.objects.filter(action="record_constraint").count() == 1
    g.refresh_from_db()
    assert g.last_seq > seq
    seq = g.last_seq
    outs = service.record_many(g, None, [("record_constraint", "Mj", {"player": "Zed", "day": 2})])
    assert not outs[0].ok
    g.refresh_from_db()
    assert g.last_seq == seq  # nothing accepted: nothing written
    skipped = service.record_many(
        g,
        None,
        [("award", "Mj", {"player": "Ana", "points": 1, "reason": "x"})],
        skip=lambda i: "déjà fait",
    )
    assert skipped[0].code == service.SKIPPED and not Action.objects.filter(action="award")


def test_a_page_of_a_thread_never_suggests_not_met() -> None:
    """Two posts 6 h apart may be on another page: one page proves a constraint met,
    never the contrary (« à vérifier »)."""
    from datetime import datetime

    from ronde.engine.clock import PARIS

    when = datetime(2026, 12, 5, 8, 0, tzinfo=PARIS)
    one = Post(1, "Bob", "08:00", when, (-2, 0), [Block("text", "Je suis à l'ouest. Qui ?")])
    s = checks.cell_posts([one], "Bob", character="woody", day=5, start=START)
    assert s.met is None and checks.UNSETTLED in s.text
    assert checks.questions([one], "Bob").met is None
    assert (
        checks.prompter_sentence([one], "Bob", "un deux trois quatre cinq six sept huit").met
        is None
    )


def test_the_list_shows_the_forum_helpers_suggestion_and_its_evidence(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 20:00")
    g = world.game
    ConstraintHint.objects.create(
        game=g,
        player="Bob",
        day=2,
        met=None,
        text="Bob : 1 message(s) — à vérifier",
        evidence=["message 4 (Bob, J2 10:30, [-2, 1])"],
        read_at=at("J2 19:00"),
    )
    ConstraintHint.objects.create(
        game=g,
        player="Ana",
        day=2,
        met=True,
        text="Ana : 2 questions",
        evidence=["message 1 (Ana)"],
        read_at=at("J2 19:00"),
    )
    # a later page that shows nothing of her does not hide the proof an earlier one gave
    ConstraintHint.objects.create(
        game=g, player="Ana", day=2, met=None, text="rien", evidence=["x"], read_at=at("J2 19:30")
    )
    html = _page(gm_client(client, world).get(reverse("gm_dashboard", args=[g.slug])))
    judge = html[html.index('id="contraintes"') :]
    bob = judge[judge.index("<strong>Bob</strong>") :].split("</tr>")[0]
    assert "à vérifier" in bob and "message 4 (Bob, J2 10:30" in bob
    assert "suggéré : non respectée" not in judge
    ana = judge[judge.index("<strong>Ana</strong>") :].split("</tr>")[0]
    assert "suggéré : respectée" in ana and "2 questions" in ana


# -- forms that offer only what can be done now ---------------------------------------------
def _player_page(client: Client, world: World, pseudo: str) -> str:
    client.force_login(world.users[pseudo])
    return _page(client.get(reverse("player", args=[world.game.slug])))


def _form(html: str, name: str) -> str:
    start = html.find(f'id="power-{name}"')
    return "" if start < 0 else html[start : html.index("</details>", start)]


def _options(form: str, field: str) -> list[str]:
    select = re.search(rf'<select name="{field}"[^>]*>(.*?)</select>', form, re.S)
    assert select is not None, field
    return [v for v in re.findall(r'<option value="([^"]*)"', select.group(1)) if v]


def test_the_portal_offers_no_public_complaint_and_says_it_is_a_forum_post(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    service.record(world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"})
    html = _player_page(client, world, "Hal")
    assert "Procès où vous pouvez porter plainte" in html
    assert 'id="power-complain"' not in html  # no anonymous complaint to send
    assert "Une plainte publique est un message dans le sujet du Procès sur le forum" in html
    # a crafted request for a public complaint is not stored
    client.post(reverse("player_request", args=[world.game.slug, "complain"]), {"trial": "1"})
    assert not Request.objects.filter(action="complain").exists()


def test_an_anonymous_complaint_is_the_only_one_the_portal_sends(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    g = world.game
    service.record(g, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"})
    # Dan (Halus) holds anonymous complaints
    html = _player_page(client, world, "Dan")
    form = _form(html, "complain")
    if not form:
        pytest.skip("Halus has no complaint to make in this trial (his targets)")
    assert "Porter plainte anonymement" in form and 'name="anonymous" value="on"' in form
    client.post(reverse("player_request", args=[g.slug, "complain"]), {"trial": "1"})
    assert Request.objects.get(action="complain").args == {"trial": 1, "anonymous": True}


def test_woody_is_not_offered_a_second_question_the_same_day(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    g = world.game
    assert 'id="power-ask"' in _player_page(client, world, "Bob")
    assert service.record(g, None, "ask", "Bob", {"player": "Ana", "as": "alice"}).ok
    assert 'id="power-ask"' not in _player_page(client, world, "Bob")
    clock("J3 10:00")
    form = _form(_player_page(client, world, "Bob"), "ask")
    assert form and "Bob" not in _options(form, "player")


def test_pierrot_is_not_offered_his_previous_sleeper(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    g = world.game
    assert "Dan" in _options(_form(_player_page(client, world, "Cid"), "put_to_sleep"), "player")
    assert service.record(g, None, "put_to_sleep", "Cid", {"player": "Dan"}).ok
    assert 'id="power-put_to_sleep"' not in _player_page(client, world, "Cid")  # one a day
    clock("J3 10:00")
    offered = _options(_form(_player_page(client, world, "Cid"), "put_to_sleep"), "player")
    assert "Dan" not in offered and "Ana" in offered and "Cid" not in offered
    r = client.post(reverse("player_request", args=[g.slug, "put_to_sleep"]), {"player": "Dan"})
    assert r.status_code == 302 and not Request.objects.filter(action="put_to_sleep").exists()


def test_an_accused_is_offered_until_his_verdict_is_announced(
    client: Client, world: World, clock: Any
) -> None:
    """A77: offering never reads a verdict not yet announced; once it is, the unmasked
    player is no target."""
    _concluded(world, clock)
    clock("J3 10:00")
    assert "Bob" in _options(_form(_player_page(client, world, "Dan"), "open_trial"), "against")
    assert service.record(world.game, None, "announce", "Mj", {"trial": 1}).ok
    assert "Bob" not in _options(_form(_player_page(client, world, "Dan"), "open_trial"), "against")


def test_the_joker_form_names_the_game_master_who_received_the_items(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    form = _form(_player_page(client, world, "Ana"), "use_joker")
    assert form and _options(form, "to") == ["Mj", "Mj2"]
    assert "MJ qui a reçu les objets" in form
    client.post(
        reverse("player_request", args=[world.game.slug, "use_joker"]),
        {"to": "Mj2", "items": "item_cards"},
    )
    assert Request.objects.get(action="use_joker").args == {"to": "Mj2", "items": ["item_cards"]}
    assert service.record(
        world.game, None, "use_joker", "Ana", {"to": "Mj2", "items": ["item_cards"]}
    ).ok
    assert service.current(world.game).state.gm_items == {"Mj2": ["item_cards"]}


def test_the_console_keeps_ended_trials_apart_and_offers_masked_accused_only(
    client: Client, world: World, clock: Any
) -> None:
    _concluded(world, clock)
    clock("J3 10:00")
    g = world.game
    service.record(g, None, "announce", "Mj", {"trial": 1})
    html = _page(gm_client(client, world).get(reverse("gm_action", args=[g.slug, "complain"])))
    assert '<optgroup label="Procès terminés">' in html
    html = _page(client.get(reverse("gm_action", args=[g.slug, "open_trial"])))
    against = re.search(r'<select name="against"[^>]*>(.*?)</select>', html, re.S)
    assert against is not None and 'value="Bob"' not in against.group(1)
    assert 'value="Ana"' in against.group(1)


# -- the Ronde and the clock --------------------------------------------------------------
def test_the_ronde_page_draws_every_slot_and_names_every_player(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    g = world.game
    gm = gm_client(client, world)
    assert gm.get(reverse("gm_setup", args=[g.slug]))["Location"].endswith("/ronde/")
    html = _page(gm.get(reverse("gm_ronde", args=[g.slug])))
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count('class="slot') == 8 and 'class="ring"' in svg
    for pseudo, character in {"Ana": "alice", "Bob": "woody", "Hal": "revenant"}.items():
        assert f">{pseudo}<" in svg or f">{pseudo} ·" in svg, pseudo
        del character
    assert "Règles maison" in html and "Ida" in html  # the cast, Extras included
    # coordinates are never localised (« 150,0 » would be two numbers in SVG)
    for value in re.findall(r' (?:x|y|cx|cy)="([^"]*)"', svg):
        assert re.fullmatch(r"-?\d+(\.\d)?", value), value


def test_a_manual_games_night_is_played_from_the_console(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    g = world.game
    g.clock, g.clock_at = Game.MANUAL, at("J2 22:00")
    g.save()
    gm = gm_client(client, world)
    html = _page(gm.get(reverse("gm_dashboard", args=[g.slug])))
    assert "Jouer la nuit : avancer jusqu'à J3 00:00" in html
    r = gm.post(reverse("gm_clock", args=[g.slug]), {"to": "midnight", "next": "/mj/ronde-test/"})
    assert r.status_code == 302
    g.refresh_from_db()
    assert g.clock_at == at("J3 00:00")
    assert service.current(g).state.days_closed == 2
    r = gm.post(reverse("gm_clock", args=[g.slug]), {"to": "J3 09:30"})
    g.refresh_from_db()
    assert g.clock_at == at("J3 09:30")
    # never backwards; a wall-clock game refuses
    gm.post(reverse("gm_clock", args=[g.slug]), {"to": "J3 08:00"})
    g.refresh_from_db()
    assert g.clock_at == at("J3 09:30")


# -- words and times ---------------------------------------------------------------------------
def test_one_word_for_a_lapsed_trial_and_a_french_name_for_every_template() -> None:
    from importlib import resources

    from ronde.forum.render import STATUS_FR

    assert str(labels.trial_status("lapsed")) == STATUS_FR["lapsed"] == "annulé faute de plaintes"
    folder = resources.files("ronde.forum").joinpath("templates")
    for f in folder.iterdir():
        if f.name.endswith(".txt"):
            name = labels.template_name(f.name)
            assert f.name.removesuffix(".txt") not in name and "Modèle «" not in name, f.name


def test_times_before_j1_are_game_times_not_iso(client: Client, clock: Any) -> None:
    from .conftest import make_world

    service.set_clock(at("J1 00:00").replace(day=25, month=11))  # a week before J1
    service.clear_cache()
    world = make_world(slug="avant")
    gm = gm_client(client, world)
    iso = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
    for name in ("gm_dashboard", "gm_to_post", "gm_ronde"):
        html = _visible(_page(gm.get(reverse(name, args=[world.game.slug]))))
        assert not iso.search(html), (name, iso.search(html))


def test_a_player_request_outside_the_offered_choices_is_not_stored(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    client.force_login(world.users["Ana"])
    r = client.post(
        reverse("player_request", args=[world.game.slug, "open_trial"]),
        {"against": "Ana", "as": "woody", "arguments": "moi"},
    )
    assert r.status_code == 302
    assert not Request.objects.filter(action="open_trial").exists()
    assert {"out_of_window", "daily_limit", "power_exhausted"} <= views_player._NOT_NOW
