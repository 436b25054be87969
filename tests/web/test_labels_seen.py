"""French names where the game masters read them: an action on the page that strikes it,
the forum templates on their page (never a file name, never an identifier)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from ronde.web.games import service
from ronde.web.games.models import Action

from .conftest import World, gm_client

pytestmark = pytest.mark.django_db


def visible(page: bytes) -> str:
    """The text a reader sees (tags removed, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page.decode()))


def test_the_strike_page_names_the_action_in_french(client: Any, world: World, clock: Any) -> None:
    clock("J2 09:00")
    assert service.record(world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"})
    action = Action.objects.get(game=world.game, action="open_trial")
    gm_client(client, world)
    text = visible(client.get(f"/mj/{world.game.slug}/rayer/{action.pk}/").content)
    assert re.search(r"Ouvrir un Procès\s+— Ana —", text), text[text.find("Rayer une") :][:300]
    assert "open_trial" not in text and "None" not in text


def test_the_templates_page_names_each_template(client: Any, world: World) -> None:
    gm_client(client, world)
    page = visible(client.get(f"/mj/{world.game.slug}/modeles/").content)
    for name in (
        "Tout autre message (texte du moteur)",
        "Démasquage",
        "Verdict d'un Procès",
        "Rappel du J13 13:13",
        "Transfiguration en Figurant",
    ):
        assert name in page
    assert "None" not in page and ".txt" not in page
    # one template opened: its name heads the editor
    one = visible(client.get(f"/mj/{world.game.slug}/modeles/?nom=unmasking.txt").content)
    assert "Démasquage" in one.split("Modèles")[-1] and "unmasking" not in one


@pytest.mark.parametrize(
    ("file", "shown"),
    [
        # a template added to the forum since the table of names: named by its kind
        ("gift.txt", "Cadeau de Polichinelle"),
        ("diva_last_breath.txt", "Dernier souffle de la Diva"),
        # a name the forum does not know: in words, never as a file name
        ("annonce_speciale.txt", "Modèle « annonce speciale »"),
    ],
)
def test_a_template_without_a_name_of_its_own_is_named_in_words(file: str, shown: str) -> None:
    from ronde.web.games.templatetags.ronde import template_name

    assert template_name(file) == shown


def _requests_on_the_dashboard(
    client: Any, world: World, clock: Any, requests: list[tuple[str, dict[str, Any]]]
) -> tuple[list[str], str]:
    """Ana's ``requests`` (action, args) pending at J2 09:00: how the game masters'
    dashboard words each, in order, and the page's visible text."""
    from ronde.web.games.models import Request

    clock("J2 09:00")
    now = service.now()
    for action, args in requests:
        Request.objects.create(
            game=world.game,
            membership=world.member("Ana"),
            action=action,
            args=args,
            created_at=now,
        )
    gm_client(client, world)
    text = " ".join(visible(client.get(f"/mj/{world.game.slug}/").content).split())
    return re.findall(r"J2 09:00 Ana (.+?) Accepter Refuser", text), text


def test_the_dashboard_words_each_pending_request(client: Any, world: World, clock: Any) -> None:
    """A player's requests waiting on the dashboard, each as a French sentence naming
    whom it concerns (never "—", never a field's name)."""
    shown, text = _requests_on_the_dashboard(
        client,
        world,
        clock,
        [
            ("ask", {"player": "Bob", "as": "woody"}),
            ("order", {"player": "Cid", "kind": "complain", "trial": 1}),
            ("order", {"player": "Dan", "kind": "go_to", "cell": [3, 4]}),
            ("complain", {"trial": 1}),
            ("post", {"trial": 2}),
            ("grant_anonymous", {"player": "Eve"}),
            ("prompt", {"player": "Fay", "theme_found": True}),
            ("last_breath", {"character": "woody"}),
            ("guess_ronde", {"order": ["alice", "woody"]}),
        ],
    )
    assert shown == [
        "Demander si Bob est Woody",
        "Ordonner à Cid de porter plainte dans le procès n°1",
        "Ordonner à Dan d'aller à la case 3,4",
        "Porter plainte dans le procès n°1",
        "Message dans le procès n°2",
        "Offrir une plainte anonyme à Eve",
        "Souffler à Fay (thème trouvé) Thème trouvé (décision des MJ)",
        "Dernier souffle contre Woody",
        "Deviner la Ronde : Alice, Woody",
    ], text


def test_the_dashboard_words_a_chorus_vote_and_requests_without_a_sentence_of_their_own(
    client: Any, world: World, clock: Any
) -> None:
    """A chorus vote names its action, the player and the character it aims at; an
    action without a sentence of its own is worded by its form: its name, then each
    argument's label and value in French."""
    shown, text = _requests_on_the_dashboard(
        client,
        world,
        clock,
        [
            ("chorus_vote", {"action": "investigate", "player": "Bob", "as": "woody"}),
            ("chorus_vote", {"action": "investigate", "player": "Cid"}),
            ("shift_destiny", {"append": "halus"}),
            ("rehearse", {}),
        ],
    )
    # (a chorus vote's acceptance asks the game masters whether the theme was found)
    assert shown == [
        "Voter pour : Enquêter — Bob (Woody) Thème trouvé",
        "Voter pour : Enquêter — Cid Thème trouvé",
        "Décaler sa destinée (Destinée) — Personnage ajouté au J13 : Halus",
        "Message aux Répétitions",
    ], text
