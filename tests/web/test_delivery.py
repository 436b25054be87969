"""The portal as the private channel (issue 24): a private message is delivered when its
recipient opened his page while it showed it; "À poster" lists only the private messages
still due by MP under the game's setting; a message to several players goes to each."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from django.test import Client
from django.urls import reverse

from ronde.web.games import delivery, service
from ronde.web.games.models import Game, Receipt

from .conftest import World, at, gm_client

EXTRAS = ["Ida", "Jo", "Kim", "Lou", "Max", "Ned"]


def _theme(world: World, clock: Any, when: str = "J2 10:00", theme: str = "la pluie") -> None:
    clock(when)
    out = service.record(world.game, world.gms["Mj"], "set_theme", "Mj", {"day": 2, "theme": theme})
    assert out.ok, out.message


def _to_post(client: Any, world: World) -> str:
    gm_client(client, world)
    url = reverse("gm_to_post", args=[world.game.slug]) + "?jour=tous"  # (every day)
    return unescape(client.get(url).content.decode())


def _private_part(html: str) -> str:
    return html.split('id="mp-h"')[1].split("</section>")[0]


def _mp_about(html: str, word: str) -> set[str]:
    """The recipients of the MPs still to send whose text holds ``word``."""
    out = set()
    for card in _private_part(html).split('class="card post-group')[1:]:
        m = re.search(r'<h3 id="gh-[0-9a-f]+">(?:J\d+ — )?MP à ([^<]+)</h3>', card)
        if m and word in card:
            out.add(m.group(1))
    return out


def _open_page(world: World, pseudo: str) -> None:
    c = Client()
    c.force_login(world.users[pseudo])
    assert c.get(reverse("player", args=[world.game.slug])).status_code == 200


def _set(world: World, mode: str, delay: int = 6) -> None:
    Game.objects.filter(pk=world.game.pk).update(delivery=mode, delivery_delay=delay)
    world.game.refresh_from_db()


def test_the_extras_theme_is_one_mp_per_extra_never_a_group(
    client: Any, world: World, clock: Any
) -> None:
    """R1.12: a group MP would tell each Extra who the others are."""
    _set(world, Game.MP)
    _theme(world, clock)
    html = _to_post(client, world)
    assert _mp_about(html, "pluie") == set(EXTRAS)
    private = _private_part(html)
    assert "MP à Ida, " not in private and ", Jo" not in private
    # each copy is marked on its own
    keys = re.findall(r'name="key" value="([0-9a-f]+)"', private)
    assert len(set(keys)) >= len(EXTRAS)


def test_by_mp_lists_every_private_message_as_before(client: Any, world: World, clock: Any) -> None:
    _set(world, Game.MP)
    _theme(world, clock)
    for pseudo in world.users:
        _open_page(world, pseudo)
    assert _mp_about(_to_post(client, world), "pluie") == set(EXTRAS)


def test_default_portal_then_mp_after_the_delay_for_whoever_has_not_seen_it(
    client: Any, world: World, clock: Any
) -> None:
    assert world.game.delivery == Game.PORTAL_THEN_MP and world.game.delivery_delay == 6
    _theme(world, clock)
    clock("J2 11:00")
    _open_page(world, "Ida")
    _open_page(world, "Jo")
    # within the delay: the portal carries it, nothing to send by hand
    assert _mp_about(_to_post(client, world), "pluie") == set()
    # six hours after it was sent: due by MP for those who have not opened their page
    clock("J2 16:01")
    assert _mp_about(_to_post(client, world), "pluie") == {"Kim", "Lou", "Max", "Ned"}
    # Kim opens his page: his MP is no longer due
    _open_page(world, "Kim")
    assert _mp_about(_to_post(client, world), "pluie") == {"Lou", "Max", "Ned"}


def test_after_everyone_opened_his_page_nothing_is_due_by_hand(
    client: Any, world: World, clock: Any
) -> None:
    _theme(world, clock)
    clock("J2 10:30")
    for pseudo in world.users:
        _open_page(world, pseudo)
    clock("J4 10:00")  # long after the delay, and the role reveals of J1 too
    html = _to_post(client, world)
    assert "Aucun MP à envoyer." in _private_part(html)
    _set(world, Game.PORTAL)
    assert "Aucun MP à envoyer." in _private_part(_to_post(client, world))


def test_receipts_record_when_each_recipient_saw_it_and_the_gms_see_them(
    client: Any, world: World, clock: Any
) -> None:
    _theme(world, clock)
    clock("J2 12:34")
    _open_page(world, "Ida")
    member = world.member("Ida")
    rows = Receipt.objects.filter(membership=member)
    assert rows.exists()
    assert all(r.seen_at == service.game_now(world.game) for r in rows)
    # a second look keeps the first time
    clock("J2 15:00")
    delivery.forget()
    _open_page(world, "Ida")
    assert {r.seen_at for r in Receipt.objects.filter(membership=member)} == {
        r.seen_at for r in rows
    }
    gm_client(client, world)
    page = unescape(
        client.get(reverse("gm_delivery", args=[world.game.slug]) + "?jour=2").content.decode()
    )
    assert "lu le J2 12:34" in page
    assert page.count("thème des Répétitions") >= len(EXTRAS)
    assert "<td>Lou</td><td>—</td><td>0 / 2</td>" in page  # per player: nothing read
    detail = page[page.index("Qui a lu quoi") :]
    lou = detail[detail.index("<td>Lou</td>") :].split("</tr>")[0]
    assert "non lu" in lou


def test_a_player_sees_only_his_own_messages_marked_read(
    client: Any, world: World, clock: Any
) -> None:
    """Opening Ana's page delivers nothing to anybody else."""
    _theme(world, clock)
    _open_page(world, "Ana")
    assert not Receipt.objects.exclude(membership=world.member("Ana")).exists()


def test_the_setting_is_chosen_on_the_delivery_page(client: Any, world: World) -> None:
    gm_client(client, world)
    url = reverse("gm_delivery", args=[world.game.slug])
    page = client.get(url).content.decode()
    assert 'name="delivery" value="portal_mp" checked' in page
    r = client.post(url, {"op": "setting", "delivery": "portal", "delivery_delay": "12"})
    assert r.status_code == 302
    world.game.refresh_from_db()
    assert (world.game.delivery, world.game.delivery_delay) == ("portal", 12)
    r = client.post(url, {"op": "setting", "delivery": "nimporte", "delivery_delay": "12"})
    world.game.refresh_from_db()
    assert world.game.delivery == "portal"  # refused, nothing changed
    r = client.post(url, {"op": "setting", "delivery": "mp", "delivery_delay": "0"})
    world.game.refresh_from_db()
    assert world.game.delivery == "portal"


def test_a_rehearsals_visits_are_game_times(client: Any, world: World, clock: Any) -> None:
    """On a game with a manual clock (a rehearsal, the demo), a player's last visit is the
    game's time, as his receipts are: the "Remise" page shows J3 09:15, not the wall
    clock's day."""
    _theme(world, clock)
    clock("J2 11:00")  # the wall clock, which the manual game does not follow
    Game.objects.filter(pk=world.game.pk).update(clock=Game.MANUAL, clock_at=at("J3 09:15"))
    world.game.refresh_from_db()
    _open_page(world, "Ida")
    gm_client(client, world)
    page = unescape(
        client.get(reverse("gm_delivery", args=[world.game.slug]) + "?jour=2").content.decode()
    )
    ida = page[page.index("<td>Ida</td>") :].split("</tr>")[0]
    assert "<td>J3 09:15</td>" in ida, ida
