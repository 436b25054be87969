"""The players' portal (issue 13): every request kind renders where requests are shown;
a crawl of every page as every viewer of a simulated mid-game (each character once,
a member of the chorus, a game master, the public) finds no raw identifier and no
English; a player sees only the actions he may take now; "new since your last visit".
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.engine import game as engine_game
from ronde.engine.chorus import chorus_actions
from ronde.engine.clock import parse_time
from ronde.engine.names import CAST_TABLE
from ronde.engine.options import HOUSE_RULES
from ronde.engine.registry import REGISTRY
from ronde.web.games import demo, labels, service, vocabulary
from ronde.web.games.models import Game, Membership, Request

from .conftest import World, gm_client

pytestmark = pytest.mark.django_db

START = date(2026, 12, 1)
CRAWL_AT = "J7 19:00"
CRAWL_SEED = 12

# -- what no page may show -----------------------------------------------------------------
SNAKE = re.compile(r"(?<![\w\-/.#])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w\-/.])")
STATUSES = {
    "open",
    "concluded",
    "just",
    "unjust",
    "lapsed",
    "cancelled",
    "void",
    "pending",
    "accepted",
    "refused",
    "withdrawn",
    "success",
    "failed",
    "missing",
    "obeyed",
    "disobeyed",
}
ENGLISH = {
    "the",
    "and",
    "of",
    "is",
    "are",
    "was",
    "were",
    "with",
    "for",
    "from",
    "yes",
    "no",
    "None",
    "True",
    "False",
    "trial",
    "trials",
    "Trial",
    "Trials",
    "player",
    "players",
    "Player",
    "Players",
    "request",
    "requests",
    "Request",
    "Requests",
    "status",
    "items",
    "item",
    "day",
    "days",
    "send",
    "Send",
    "save",
    "Save",
    "Dashboard",
    "dashboard",
    "board",
    "anonymous",
    "Anonymous",
    "complaint",
    "complaints",
    "unmasked",
    "masked",
    "hunted",
    "declared",
    "orders",
    "order",
    "sleepers",
    "defends",
    "against",
    "given",
    "roles",
    "Language",
    "English",
    "Logout",
    "Login",
    "Submit",
    "Cancel",
    "Delete",
    "Home",
    "Accept",
    "Refuse",
    "Withdraw",
    "Announce",
    "Score",
    "Scores",
    "Timeline",
    "Settings",
}


#: identifiers that are also plain French words
#: ("post": the forum's word for a message, in French too)
FRENCH_TOO = {"public", "original", "message", "points", "action", "total", "standard", "post"}


def vocabulary_ids() -> set[str]:
    """Identifiers of the engine's vocabulary: actions, chorus actions, characters,
    option values, statuses."""
    ids = set(engine_game.CORE_ACTIONS) | set(chorus_actions(REGISTRY.values())) | STATUSES
    for module in REGISTRY.values():
        ids |= set(module.actions()) | set(module.gm_actions())
    ids |= {c.id for c in CAST_TABLE}
    for default, others in HOUSE_RULES.values():
        ids |= {default, *others}
    ids |= {s.name for s in vocabulary.SPECS}
    return {i for i in ids if re.fullmatch(r"[a-z][a-z0-9_]*", i)} - FRENCH_TOO


def visible(page: str) -> str:
    """The text a person reads: tags, scripts and styles out; the accessible names
    people hear (aria-label, title, placeholder, alt) in."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    names = re.findall(r'(?:aria-label|title|placeholder|alt)="([^"]*)"', page)
    body = re.sub(r"<[^>]+>", " ", page)
    return html.unescape(body + "\n" + "\n".join(names))


def problems(page: str, allowed: set[str], ids: set[str]) -> list[str]:
    """Raw identifiers and English words on a page (``allowed``: pseudos and names)."""
    text = visible(page)
    for name in sorted(allowed, key=len, reverse=True):
        text = text.replace(name, " ")
    out = []
    for m in SNAKE.finditer(text):
        out.append(f"identifiant {m.group(0)!r}: …{text[max(0, m.start() - 60) : m.end() + 40]!r}")
    for word in re.findall(r"[^\W\d_]+", text):
        if word in ids or word in ENGLISH:
            i = text.find(word)
            out.append(f"mot {word!r}: …{text[max(0, i - 60) : i + 40]!r}")
    return sorted(set(out))


def test_the_crawl_checks_catch_identifiers_and_english() -> None:
    ids = vocabulary_ids()
    assert problems("<p>Vous avez déjà endormi : Joueur02 (J3).</p>", {"Joueur02"}, ids) == []
    for bad in (
        "<p>was —</p>",
        "<p>declared_today non</p>",
        "<dd>status : pending</dd>",
        "<li>Actions possibles : investigate</li>",
        "<p>The trial is open</p>",
        '<button aria-label="Accept">OK</button>',
        "<td>item_lamp</td>",
    ):
        assert problems(bad, set(), ids), bad


# -- every request kind ---------------------------------------------------------------------
REQUEST_ARGS: dict[str, dict[str, Any]] = {
    "open_trial": {"against": "Bob", "as": "woody", "anonymous": True, "arguments": "Indices."},
    "complain": {"trial": 1, "anonymous": False},
    "cancel_trial": {"trial": 1},
    "shorten_trial": {"trial": 1},
    "ask": {"player": "Bob", "as": "woody"},
    "put_to_sleep": {"player": "Bob"},
    "reveal_secret": {"player": "Bob"},
    "grant_anonymous": {"player": "Bob"},
    "order": {"player": "Bob", "kind": "take_item", "item": "item_lamp"},
    "choose_phrase": {"text": "le petit chat de la voisine chante faux le soir"},
    "prompt": {"player": "Bob", "theme_found": True},
    "designate_monster": {"character": "extra"},
    "accuse_monster": {"player": "Bob"},
    "declare_not": {"player": "Bob"},
    "declare_destiny": {"list": ["alice", "woody"]},
    "shift_destiny": {"append": "halus"},
    "designate": {"character": "halus"},
    "last_breath": {"character": "halus"},
    "guess_ronde": {"order": ["alice", "woody", "pierrot"]},
    "send_items": {"to": "Mj2", "items": ["item_lamp", "item_home_box"]},
    "use_joker": {"to": "Mj2", "items": ["item_cards"]},
    "chorus_vote": {"action": "investigate", "player": "Bob", "as": "woody"},
}


def test_every_requestable_action_has_arguments_here() -> None:
    assert {s.name for s in vocabulary.SPECS if s.requestable} == set(REQUEST_ARGS)


REFUSAL = "L'action « put_to_sleep » n'est pas (encore) disponible."


def _every_request(member: Membership, t: Any) -> list[Request]:
    out = []
    statuses = [Request.PENDING, Request.ACCEPTED, Request.REFUSED, Request.WITHDRAWN]
    for i, (action, args) in enumerate(REQUEST_ARGS.items()):
        out.append(
            Request.objects.create(
                game=member.game,
                membership=member,
                action=action,
                args=args,
                created_at=t,
                status=statuses[i % len(statuses)],
                message=REFUSAL if i % 4 == 2 else "",
            )
        )
    return out


def test_every_request_kind_renders_on_the_player_page_and_the_console(
    client: Client, world: World, clock: Any
) -> None:
    t = clock("J2 10:00")
    ana = world.member("Ana")
    requests = _every_request(ana, t)
    ids = vocabulary_ids()
    client.force_login(world.users["Ana"])
    page = client.get(reverse("player", args=[world.game.slug]))
    assert page.status_code == 200
    body = page.content.decode()
    for r in requests:
        assert html.escape(labels.request_sentence(r.action, r.args)) in body, r.action
    assert "Ouvrir un procès contre Bob (Woody), anonyme" in html.unescape(body)
    assert "Envoyer à Mj2 : Lampe" in html.unescape(body)
    assert "« Endormir »" in html.unescape(body)  # the refusal, in French
    allowed = set(world.users) | {"Mj", "Mj2", "Partie de test", "Ronde"}
    assert problems(body, allowed, ids) == []
    # every one pending, on the game masters' dashboard
    Request.objects.filter(game=world.game).update(status=Request.PENDING)
    gm = gm_client(Client(), world)
    dash = gm.get(reverse("gm_dashboard", args=[world.game.slug]))
    assert dash.status_code == 200
    text = html.unescape(dash.content.decode())
    for r in requests:
        assert labels.request_sentence(r.action, r.args) in text, r.action
    assert "Accepter la demande de Ana" in text


# -- only what the player may do --------------------------------------------------------------
def test_forms_only_for_actions_the_player_may_take_now(
    client: Client, db: Any, clock: Any
) -> None:
    from .conftest import make_world

    service.clear_cache()
    cast = {"Ana": "alice", "Bob": "woody", "Cid": "tragic_hero", "Dan": "halus", "Eve": "extra"}
    world = make_world(cast=cast, ronde=["alice", "woody", "tragic_hero", "halus"], slug="seul")
    clock("J2 10:00")
    client.force_login(world.users["Cid"])
    page = html.unescape(client.get(reverse("player", args=["seul"])).content.decode())
    assert 'id="power-open_trial"' not in page  # the Tragic Hero never opens (R7.17.4)
    assert "Vous ne pouvez pas ouvrir de procès : Le Héros tragique" in page
    assert 'id="power-declare_not"' in page
    today = page[page.index('id="aujourdhui"') : page.index("</section>")]
    assert "Vous n'avez pas encore fait votre déclaration « je ne suis pas … » du jour" in today
    assert "declared_today" not in page
    r = client.post(
        reverse("player_request", args=["seul", "open_trial"]), {"against": "Bob", "as": "woody"}
    )
    assert r.status_code == 302 and not Request.objects.filter(action="open_trial").exists()
    client.force_login(world.users["Ana"])
    page = html.unescape(client.get(reverse("player", args=["seul"])).content.decode())
    assert 'id="power-open_trial"' in page
    assert 'id="power-complain"' not in page  # no open trial to complain in
    # Alice's Joker: chosen by name among her three items, sent as their ids
    joker = page[page.index('id="power-use_joker"') :]
    joker = joker[: joker.index("</details>")]
    assert "Jeu de cartes" in joker and "item_" not in visible(joker)
    assert len(re.findall(r"<option value=\"item_", joker)) == 3
    client.post(
        reverse("player_request", args=["seul", "use_joker"]), {"to": "Mj", "items": "item_cards"}
    )
    assert Request.objects.get(action="use_joker").args == {"to": "Mj", "items": ["item_cards"]}
    deliveries = page[page.index('id="power-send_items"') :]
    assert "multiple" in deliveries[: deliveries.index("</details>")]
    client.post(
        reverse("player_request", args=["seul", "send_items"]),
        {"to": "Mj", "items": ["item_lamp", "item_home_box"]},
    )
    assert Request.objects.get(action="send_items").args == {
        "to": "Mj",
        "items": ["item_lamp", "item_home_box"],
    }


def test_chorus_offers_only_todays_actions_and_no_ruling(
    client: Client, world: World, clock: Any
) -> None:
    from .test_pages import open_and_complain

    gm_client(client, world)
    open_and_complain(client, world, clock)  # Bob (Woody) unmasked by a just verdict
    clock("J2 13:00")
    client.post(reverse("gm_action", args=[world.game.slug, "announce"]), {"trial": "1"})
    bob = Client()
    bob.force_login(world.users["Bob"])
    page = html.unescape(bob.get(reverse("chorus", args=[world.game.slug])).content.decode())
    form = page[page.index('id="power-chorus_vote"') :]
    options = re.findall(r'<option value="([a-z_]+)"', form[: form.index("</select>")])
    assert options == ["investigate"]
    assert "theme_found" not in form and "Thème trouvé" not in form
    assert "Enquêter" in page and "investigate" not in visible(page)
    r = bob.post(
        reverse("player_request", args=[world.game.slug, "chorus_vote"]),
        {"action": "cut_thread", "player": "Ana"},
    )
    assert r.status_code == 302 and not Request.objects.filter(action="chorus_vote").exists()


def test_messages_new_since_the_last_visit(client: Client, world: World, clock: Any) -> None:
    client.force_login(world.users["Ana"])
    url = reverse("player", args=[world.game.slug])
    clock("J2 08:00")
    client.get(url)
    first = Membership.objects.get(pk=world.member("Ana").pk)
    assert first.last_visit is not None
    clock("J2 18:00")
    gm_client(Client(), world).post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "2", "theme": "lune"}
    )
    page = html.unescape(client.get(url).content.decode())
    today = page[page.index('id="aujourdhui"') : page.index("</section>")]
    assert "Nouveau depuis votre dernière visite" in today
    clock("J2 19:00")
    page = html.unescape(client.get(url).content.decode())
    today = page[page.index('id="aujourdhui"') : page.index("</section>")]
    assert "Nouveau depuis votre dernière visite" in today  # one visit: the same news
    clock("J3 09:00")
    page = html.unescape(client.get(url).content.decode())
    m = Membership.objects.get(pk=first.pk)
    assert m.visit_before is not None and m.last_visit - m.visit_before >= timedelta(hours=1)


# -- the crawl ------------------------------------------------------------------------------
@dataclass
class Crawl:
    game: Game
    viewers: list[tuple[str, Any]]  # (who, user or None for the public)
    allowed: set[str]


def crawl_game(slug: str = "ronde-crawl", seed: int = CRAWL_SEED, until: str = CRAWL_AT) -> Crawl:
    """A simulated 28-player game at J7 evening, stored with requests of every kind; one
    viewer per character (the original one), a chorus member, a game master, the public."""
    service.clear_cache()
    t = parse_time(until, START)
    played = demo.play_until(t, start=START, seed=seed)
    service.set_clock(t)
    game = demo.store(played, slug=slug, name="Ronde de test")
    g = played.game.state
    members = {m.pseudo: m for m in game.memberships.select_related("user")}
    by_character: dict[str, str] = {}
    chorus = None
    for p in g.players.values():
        by_character.setdefault(p.original, p.pseudo)
        if not p.masked and p.alive and chorus is None:
            chorus = p.pseudo
    picked = sorted(set(by_character.values()) | ({chorus} if chorus else set()))
    first = members[picked[0]]
    for i, (action, args) in enumerate(REQUEST_ARGS.items()):
        fixed = {
            k: (picked[1] if v == "Bob" else "Mj2" if v == "Mj2" else v) for k, v in args.items()
        }
        Request.objects.create(
            game=game,
            membership=members[picked[i % len(picked)]],
            action=action,
            args=fixed,
            created_at=t,
            status=Request.PENDING if i % 2 else Request.REFUSED,
            message="L'action « put_to_sleep » n'est pas (encore) disponible."
            if i % 2 == 0
            else "",
        )
    del first
    viewers: list[tuple[str, Any]] = [(p, members[p].user) for p in picked]
    gm_user = game.game_masters.get(name="Mj").user
    viewers += [("Mj", gm_user), ("public", None)]
    allowed = set(members) | set(g.game_masters) | {"Ronde de test", "Ronde"}
    return Crawl(game, viewers, allowed)


def crawl_urls(crawl: Crawl, who: str) -> list[str]:
    slug = crawl.game.slug
    if who == "public":
        return [reverse("home"), reverse("public", args=[slug]), reverse("login")]
    if who == "Mj":
        return [
            reverse("gm_dashboard", args=[slug]),
            reverse("gm_actions", args=[slug]),
            reverse("gm_journal", args=[slug]),
            reverse("gm_scores", args=[slug]),
            reverse("gm_players", args=[slug]),
            reverse("public", args=[slug]),
            reverse("home"),
        ] + [
            reverse("gm_action", args=[slug, s.name])
            for s in vocabulary.SPECS
            if s.who == "game_master"
        ]
    urls = [reverse("player", args=[slug]), reverse("public", args=[slug]), reverse("home")]
    v = service.view_for(crawl.game, who)
    if "chorus" in v:
        urls.append(reverse("chorus", args=[slug]))
    return urls


@pytest.fixture
def crawl(db: Any) -> Any:
    yield crawl_game()
    service.set_clock(None)


MOMENTS = [(CRAWL_SEED, CRAWL_AT), (13, "J3 12:00"), (14, "J12 22:00")]


@pytest.mark.parametrize(("seed", "until"), MOMENTS, ids=[m[1] for m in MOMENTS])
def test_crawl_every_page_as_every_viewer_no_identifier_no_english(
    db: Any, seed: int, until: str
) -> None:
    try:
        crawl = crawl_game(seed=seed, until=until)
        _crawl(crawl)
    finally:
        service.set_clock(None)


def _crawl(crawl: Crawl) -> None:
    ids = vocabulary_ids()
    found: list[str] = []
    pages = 0
    characters_seen = set()
    for who, user in crawl.viewers:
        client = Client()
        if user is not None:
            client.force_login(user)
        if who not in ("Mj", "public"):
            v = service.view_for(crawl.game, who)
            characters_seen.add(v["me"].get("character") or v["me"].get("was"))
        for url in crawl_urls(crawl, who):
            r = client.get(url)
            assert r.status_code == 200, (who, url, r.status_code)
            page = r.content.decode()
            found += [f"{who} {url}: {p}" for p in sorted(set(problems(page, crawl.allowed, ids)))]
            pages += 1
    assert not found, "\n".join(found[:40])
    assert pages >= 3 * 20
    assert len(characters_seen) >= 18  # (nearly) every character of the cast, once


def test_player_page_has_today_first(crawl: Crawl) -> None:
    _who, user = crawl.viewers[0]
    client = Client()
    client.force_login(user)
    page = html.unescape(client.get(reverse("player", args=[crawl.game.slug])).content.decode())
    main = page[page.index('<main id="main"') :]
    assert main.index("Aujourd'hui — J7") < main.index("Mon personnage")
    assert main.index("Aujourd'hui") < main.index("Procès ouverts")
    assert "Messages pour vous" in main and "Annonces publiques" in main
    assert "Procès terminés" in main
    assert 'class="skip" href="#main"' in page


def test_items_are_chosen_by_name(client: Client, world: World, clock: Any) -> None:
    clock("J2 10:00")
    client.force_login(world.users["Eve"])  # the Little Mermaid: an order to take an item
    page = client.get(reverse("player", args=[world.game.slug])).content.decode()
    order = page[page.index('id="power-order"') :]
    order = order[: order.index("</details>")]
    assert '<option value="item_lamp">Lampe de chevet éteinte</option>' in order
    assert 'type="text" name="item"' not in order
    assert not [p for p in problems(order, set(world.users), vocabulary_ids()) if "item" in p]


def test_today_shows_the_constraint_verdict_once_recorded(
    client: Client, world: World, clock: Any
) -> None:
    url = reverse("player", args=[world.game.slug])
    client.force_login(world.users["Bob"])
    clock("J2 10:00")

    def today() -> str:
        page = html.unescape(client.get(url).content.decode())
        return page[page.index('id="aujourdhui"') : page.index("</section>")]

    assert "Votre contrainte du jour" in today() and "Pas encore jugée par les MJ." in today()
    gm = gm_client(Client(), world)
    clock("J2 20:00")
    r = gm.post(
        reverse("gm_action", args=[world.game.slug, "record_constraint"]),
        {"player": "Bob", "day": "2", "met": "on"},
    )
    assert r.status_code in (200, 302)
    assert "Verdict des MJ : respectée." in today()


def test_a_player_cannot_flood_the_game_masters_with_requests(
    client: Client, db: Any, clock: Any
) -> None:
    """An oversized value is refused; the same request twice waits once; at most
    ``MAX_PENDING`` requests wait at once (the game masters' dashboard stays readable)."""
    from ronde.web.games.views_player import MAX_PENDING

    from .conftest import make_world

    service.clear_cache()
    cast = {"Ana": "alice", "Bob": "woody", "Cid": "pierrot", "Dan": "halus", "Eve": "extra"}
    world = make_world(cast=cast, ronde=["alice", "woody", "pierrot", "halus"], slug="flot")
    clock("J2 10:00")
    client.force_login(world.users["Ana"])
    url = reverse("player_request", args=["flot", "guess_ronde"])
    client.post(url, {"order": "halus\n" * 5000})
    assert not Request.objects.filter(action="guess_ronde").exists()  # too many entries
    client.post(url, {"order": "woody, pierrot, halus"})
    client.post(url, {"order": "woody, pierrot, halus"})
    assert Request.objects.filter(action="guess_ronde").count() == 1  # the same, once
    trial_url = reverse("player_request", args=["flot", "open_trial"])
    for k in range(MAX_PENDING + 3):
        client.post(trial_url, {"against": "Bob", "as": "woody", "arguments": f"essai {k}"})
    pending = Request.objects.filter(membership__pseudo="Ana", status=Request.PENDING)
    assert pending.count() == MAX_PENDING
