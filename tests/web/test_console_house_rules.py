"""House rules on the setup page: each with its French question and the meaning of
each value (one data file), defaults marked, no English value shown."""

from __future__ import annotations

import html
import re
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from ronde.engine.options import HOUSE_RULES
from ronde.web.games import house_rules
from ronde.web.games.models import Game


def test_every_house_rule_has_its_french_question_and_meanings() -> None:
    fr = house_rules.texts()
    for rid, (default, others) in HOUSE_RULES.items():
        assert rid in fr, rid
        assert fr[rid]["question"].strip(), rid
        for value in (default, *others):
            assert str(fr[rid]["values"].get(value, "")).strip(), (rid, value)


def test_setup_page_shows_questions_meanings_and_defaults(client: Client, db: Any) -> None:
    from ronde.web.games.accounts import organise_permission

    user = get_user_model().objects.create_user("Mj", password="motdepasse-mj")
    user.user_permissions.add(organise_permission())  # creating games needs it (issue 9)
    client.force_login(user)
    client.post(reverse("gm_home"), {"name": "Maison", "start": "2026-12-01", "gm_name": "Mj"})
    game = Game.objects.get(name="Maison")
    url = reverse("gm_setup", args=[game.slug])
    page = html.unescape(client.get(url).content.decode())
    assert "Qui voit les points pendant la partie ?" in page
    assert 'les MJ seulement <strong class="default">(par défaut)</strong>' in page
    visible = re.sub(r"<[^>]+>", " ", page)  # text only: values stay in attributes
    for _rid, (default, others) in HOUSE_RULES.items():
        for value in (default, *others):
            if "_" in value:
                assert value not in visible, value
    assert page.count("(par défaut)") == len(HOUSE_RULES)
    # choosing values, a numbered one with its N
    data = {
        "op": "info",
        "name": "Maison",
        "start": "2026-12-01",
        "opt_A70": "public",
        "opt_A9": "grace_N",
        "opt_A9_n": "15",
        "opt_A1": "presume_met",
    }
    r = client.post(url, data)
    assert r.status_code == 302
    game.refresh_from_db()
    assert game.options == {"A70": "public", "A9": "grace_15"}
    page = html.unescape(client.get(url).content.decode())
    assert 'name="opt_A9_n" min="0" max="180" value="15"' in page
    assert re.search(r'value="public" checked', page)
    r = client.post(url, {**data, "opt_A9_n": ""})
    assert r.status_code == 400 and "remplacez N par un nombre" in html.unescape(r.content.decode())
