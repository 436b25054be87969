"""The forum bridge in the console: a pasted thread page read into steps, confirmed
and recorded at their forum times (never twice, overlapping trials in any order),
Rehearsals participation, the constraint helpers, "À poster" and the templates."""

from __future__ import annotations

import json
from html import unescape
from typing import Any

import pytest

from ronde.web.games import service
from ronde.web.games.models import Action, ForumTemplate, Posting
from tests.conftest import SMALL_RONDE
from tests.forum.fixtures.build_fixtures import P, ThreadSpec, page_html, page_text

from .conftest import World, at, gm_client

pytestmark = pytest.mark.django_db

FORMULA = "pose une plainte contre Bob pour avoir trop cabotiné dans son rôle de Woody."


def complaint(who: str, when: str) -> P:
    return P(who, when, "town", [("text", f"Moi, {who}, {FORMULA}", "")])


TRIAL = ThreadSpec(
    name="t",
    title="Procès : Bob est Woody !",
    posts=[
        P("Ana", "2 déc. 2026, 10:00", "town", [("text", "J'accuse Bob d'être Woody !", "")]),
        complaint("Hal", "2 déc. 2026, 10:10"),
        complaint("Gus", "2 déc. 2026, 10:20"),
        P("Bob", "2 déc. 2026, 10:30", "[-2, 1]", [("text", "N'importe quoi ! Qui ? Moi ?", "")]),
    ],
)
# the same thread, its opening doubtful (a typo in the accused's name)
DOUBTFUL = ThreadSpec(
    name="d",
    title="Procès : Bobb est Woody",
    posts=[
        P("Ana", "2 déc. 2026, 10:00", "town", [("text", "J'accuse Bobb d'être Woody !", "")]),
        complaint("Hal", "2 déc. 2026, 10:10"),
    ],
)


def url(world: World, name: str) -> str:
    return f"/mj/{world.game.slug}/{name}/"


def read(client: Any, world: World, text: str, **extra: Any) -> Any:
    return client.post(url(world, "forum"), {"op": "read", "page": text, **extra})


def rows(res: Any) -> dict[str, str]:
    """The confirmation form's fields as a browser would post them (checked boxes)."""
    import re

    html = res.content.decode()
    form = html[html.index('name="op" value="record"') :]
    data: dict[str, str] = {"op": "record"}
    for m in re.finditer(r"<input ([^>]*)>", form):
        attrs = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m.group(1)))
        name = attrs.get("name")
        if not name or name == "csrfmiddlewaretoken":
            continue
        if attrs.get("type") == "checkbox":
            if " checked" in m.group(0) and " disabled" not in m.group(0):
                data[name] = attrs.get("value", "on")
            continue
        data[name] = unescape(attrs.get("value", ""))
    for m in re.finditer(r'<select name="([^"]+)">(.*?)</select>', form, re.S):
        sel = re.search(r'<option value="([^"]*)" selected', m.group(2))
        data[m.group(1)] = sel.group(1) if sel else ""
    for m in re.finditer(r'<textarea name="([^"]+)"[^>]*>(.*?)</textarea>', form, re.S):
        data[m.group(1)] = unescape(m.group(2))
    return data


def test_pages_render_for_game_masters_only(client: Any, world: World) -> None:
    for name in ("forum", "a-poster", "modeles"):
        assert client.get(url(world, name)).status_code == 302  # to the login
    client.force_login(world.users["Ana"])
    assert client.get(url(world, "forum")).status_code == 404
    gm_client(client, world)
    for name in ("forum", "a-poster", "modeles"):
        res = client.get(url(world, name))
        assert res.status_code == 200, name
    assert "Lire la page" in client.get(url(world, "forum")).content.decode()


def test_a_trial_page_is_proposed_then_recorded_at_forum_times(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    res = read(client, world, page_text(TRIAL, 1, 1))
    html = res.content.decode()
    assert res.status_code == 200
    assert "Ouvrir un Procès" in html and html.count("Plainte</strong>") == 2
    assert "J&#x27;accuse Bob d&#x27;être Woody" in html or "J'accuse Bob" in html
    data = rows(res)
    assert data["s0-at"] == "J2 10:00" and data["s0-ok"] == "1"
    res = client.post(url(world, "forum"), data)
    assert res.status_code == 302
    recorded = {(a.action, a.by): a.at for a in Action.objects.filter(game=world.game)}
    assert recorded[("open_trial", "Ana")] == at("J2 10:00")
    assert recorded[("complain", "Hal")] == at("J2 10:10")
    assert recorded[("complain", "Gus")] == at("J2 10:20")
    trial = service.view_for(world.game, "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]] == ["Hal", "Gus"]
    # read again: recognised, not recorded twice
    res = read(client, world, page_text(TRIAL, 1, 1))
    assert (
        "plainte déjà comptée" in res.content.decode() or "déjà enregistré" in res.content.decode()
    )
    again = rows(res)
    assert not any(k.endswith("-ok") for k in again)
    client.post(url(world, "forum"), {**rows(res), "s1-ok": "1"})
    assert Action.objects.filter(game=world.game, action="complain").count() == 2


def test_a_doubtful_opening_waits_for_its_confirmation(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    res = read(client, world, page_text(DOUBTFUL, 1, 1))
    data = rows(res)
    assert "s0-ok" not in data  # the doubtful opening is not ticked
    assert "s1-ok" in data
    res = client.post(url(world, "forum"), data)
    assert res.status_code == 400
    assert "pas encore ouvert" in res.content.decode()
    assert not Action.objects.filter(game=world.game).exists()
    # the game master confirms the opening (the accused corrected): everything is recorded
    data["s0-ok"] = "1"
    data["s0-against"] = "Bob"
    res = client.post(url(world, "forum"), data)
    assert res.status_code == 302
    trial = service.view_for(world.game, "game_master")["trials"][0]
    assert trial["accused"] == ["Bob"] and [c["author"] for c in trial["complaints"]] == ["Hal"]


SECOND = ThreadSpec(
    name="b",
    title="Procès : Cid est Pierrot !",
    posts=[
        P("Ida", "2 déc. 2026, 09:00", "town", [("text", "J'accuse Cid d'être Pierrot.", "")]),
        P(
            "Jo",
            "2 déc. 2026, 09:30",
            "town",
            [
                (
                    "text",
                    "Moi, Jo, pose une plainte contre Cid pour avoir trop cabotiné dans son rôle "
                    "de Pierrot.",
                    "",
                )
            ],
        ),
    ],
)


def test_overlapping_trials_recorded_in_either_order(client: Any, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    client.post(url(world, "forum"), rows(read(client, world, page_text(TRIAL, 1, 1))))
    # the second thread was opened earlier (09:00): it takes n°1, the first becomes n°2
    res = client.post(url(world, "forum"), rows(read(client, world, page_html(SECOND, 1, 1))))
    html = res.content.decode()
    assert "Un Procès ouvert plus tôt" in html
    data = rows_hidden(html)
    res = client.post(url(world, "forum"), {**data, "renumber": "yes"})
    assert res.status_code == 302
    trials = service.view_for(world.game, "game_master")["trials"]
    got = {t["number"]: (t["accused"], [c["author"] for c in t["complaints"]]) for t in trials}
    assert got == {1: (["Cid"], ["Jo"]), 2: (["Bob"], ["Hal", "Gus"])}


def rows_hidden(html: str) -> dict[str, str]:
    import re

    form = html[html.index('name="op" value="record"') :]
    found = re.finditer(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
    return {"op": "record", **{m.group(1): unescape(m.group(2)) for m in found}}


def test_uploaded_pages_are_put_in_order_and_a_missing_page_is_reported(
    client: Any, world: World, clock: Any
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    gm_client(client, world)
    clock("J3 12:00")
    long = ThreadSpec(
        name="l",
        title=TRIAL.title,
        posts=[TRIAL.posts[0]]
        + [
            P("Kim", f"2 déc. 2026, 11:{k:02d}", "town", [("text", f"Message {k}.", "")])
            for k in range(20)
        ]
        + [complaint("Fay", "2 déc. 2026, 12:00")],
    )
    files = [
        SimpleUploadedFile(f"p{k}.html", page_html(long, k, 3).encode(), "text/html")
        for k in (3, 1)
    ]
    res = client.post(url(world, "forum"), {"op": "read", "page": "", "files": files})
    html = res.content.decode()
    assert "page(s) manquante(s) : 2" in html
    assert "pages 1, 3" in html
    data = rows(res)
    meta = {k: json.loads(v) for k, v in data.items() if k.endswith("-meta")}
    assert meta["s0-meta"]["action"] == "open_trial"
    steps = {(m["action"], data[k.replace("-meta", "-by")]) for k, m in meta.items()}
    assert ("complain", "Fay") in steps


def test_rehearsals_page_gives_the_participation(client: Any, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 20:00")
    spec = ThreadSpec(
        name="r",
        title="Répétitions du J2",
        posts=[
            P("Ana", "2 déc. 2026, 08:00", "town", [("rp", "Un\nDeux\nTrois", "Ana la fée")]),
            P("Bob", "2 déc. 2026, 09:00", "town", [("rp", "Un\nDeux", "Bob le shérif")]),
            P("Mj", "2 déc. 2026, 09:30", "town", [("text", "Un\nDeux\nTrois", "")]),
        ],
    )
    html = read(client, world, page_text(spec, 1, 1)).content.decode()
    table = html[html.index("Participation aux Répétitions") :]
    assert "<td>Ana</td><td>J2</td>" in table
    assert "<td>Bob</td><td>—</td>" in table
    assert "<td>Mj</td>" not in table


def test_helpers_suggest_a_verdict_beside_each_constraint(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 20:00")
    spec = ThreadSpec(
        name="x",
        title="Discussion",
        posts=[
            P("Ana", "2 déc. 2026, 08:00", "town", [("text", "Qui est Woody ? Et Pierrot ?", "")]),
            P("Bob", "2 déc. 2026, 08:00", "[-2, 0]", [("text", "Je suis à l'ouest.", "")]),
            P("Bob", "2 déc. 2026, 15:00", "[-3, 1]", [("text", "Toujours à l'ouest.", "")]),
        ],
    )
    html = read(client, world, page_text(spec, 1, 1)).content.decode()
    helpers = html[html.index("ce que disent les messages") :]
    assert "<strong>Ana</strong>" in helpers and "suggéré : respectée" in helpers
    assert "2 questions" in helpers
    bob = helpers[helpers.index("<strong>Bob</strong>") :]
    assert "suggéré : respectée" in bob.split("</div></div>")[0]
    assert "record_constraint" in helpers


def test_to_post_lists_announcements_and_marks_them_posted(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    client.post(url(world, "forum"), rows(read(client, world, page_text(TRIAL, 1, 1))))
    html = client.get(url(world, "a-poster")).content.decode()
    assert "Sujet du Procès n°1 (Bob)" in html
    assert 'data-copy="t-' in html
    import re

    key = re.search(r'name="key" value="([0-9a-f]+)"', html)
    assert key is not None
    res = client.post(url(world, "a-poster"), {"key": key.group(1)})
    assert res.status_code == 302
    posting = Posting.objects.get(game=world.game, key=key.group(1))
    assert posting.posted_by == world.gms["Mj"]
    html = client.get(url(world, "a-poster")).content.decode()

    def forms_with(op: str) -> list[str]:
        found = re.findall(r"<form[^>]*>(.*?)</form>", html, re.S)
        return [f for f in found if f'name="op" value="{op}"' in f]

    # left the list: only the form that puts it back holds it, on its line "posté"
    assert not any(key.group(1) in f for f in forms_with("mark"))
    assert any(key.group(1) in f for f in forms_with("unmark"))
    assert "marqué par Mj" in html
    # a mark made by mistake is undone: the message is back in the list
    client.post(url(world, "a-poster"), {"op": "unmark", "key": key.group(1)})
    html = client.get(url(world, "a-poster")).content.decode()
    assert any(key.group(1) in f for f in forms_with("mark"))


def test_a_broken_template_falls_back_with_a_warning(client: Any, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    client.post(url(world, "forum"), rows(read(client, world, page_text(TRIAL, 1, 1))))
    res = client.post(
        url(world, "modeles"),
        {"name": "trial_opened.txt", "op": "preview", "text": "[b]Procès {{ trial.number }}[/b]"},
    )
    assert "[b]Procès 1[/b]" in res.content.decode()
    res = client.post(
        url(world, "modeles"),
        {"name": "trial_opened.txt", "op": "save", "text": "{% if %}cassé"},
        follow=True,
    )
    assert "erreur" in res.content.decode()
    assert ForumTemplate.objects.filter(game=world.game).count() == 1
    html = client.get(url(world, "a-poster")).content.decode()
    assert "Modèle en erreur" in html


def test_a_step_that_changes_the_record_shows_its_preview_first(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    g = world.game
    service.record(
        g, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"}, at=at("J2 10:00")
    )
    for who, when in (
        ("Hal", "J2 10:15"),
        ("Gus", "J2 11:15"),
        ("Fay", "J2 12:15"),
        ("Jo", "J2 14:00"),
    ):
        assert service.record(g, None, "complain", who, {"trial": 1}, at=at(when)).ok
    # Kim's complaint, posted at 13:00, was missed: it is the 4th, the verdict moves
    spec = ThreadSpec(
        name="k",
        title="Procès : Bob est Woody !",
        posts=[
            TRIAL.posts[0],
            complaint("Hal", "2 déc. 2026, 10:15"),
            complaint("Kim", "2 déc. 2026, 13:00"),
            complaint("Jo", "2 déc. 2026, 14:00"),
        ],
    )
    data = rows(read(client, world, page_text(spec, 1, 1)))
    assert [k for k in data if k.endswith("-ok")] == ["s1-ok"]  # only Kim's is new
    res = client.post(url(world, "forum"), data)
    html = res.content.decode()
    assert "change ce qui est déjà enregistré" in html
    assert "Événements qui disparaissent" in html
    assert not Action.objects.filter(game=g, by="Kim").exists()
    res = client.post(url(world, "forum"), rows_hidden(html))
    assert res.status_code == 302
    kim = Action.objects.get(game=g, by="Kim")
    assert kim.at == at("J2 13:00")
    trial = service.view_for(g, "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]] == ["Hal", "Gus", "Fay", "Kim", "Jo"]


def test_a_posted_message_undone_by_a_correction_is_flagged(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    out = service.record(
        world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"}, at=at("J2 10:00")
    )
    assert out.ok and out.action is not None
    html = client.get(url(world, "a-poster")).content.decode()
    start = html.index("Sujet du Procès n°1")
    import re

    key = re.search(r'name="key" value="([0-9a-f]+)"', html[start:])
    assert key is not None
    client.post(url(world, "a-poster"), {"key": key.group(1)})
    world.game.refresh_from_db()
    token = service.preview_strike(world.game, out.action).token
    assert service.strike(world.game, out.action, "erreur de saisie", world.gms["Mj"], token).ok
    html = client.get(url(world, "a-poster")).content.decode()
    assert "Postés puis changés par une correction" in html
    assert "Sujet du Procès n°1 (Bob)" in html.split("Postés puis changés")[1]


def test_a_game_masters_template_runs_in_a_sandbox(client: Any, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    service.record(
        world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"}, at=at("J2 10:00")
    )
    attack = "{{ ''.__class__.__mro__[1].__subclasses__() }}"
    res = client.post(
        url(world, "modeles"), {"name": "trial_opened.txt", "op": "preview", "text": attack}
    )
    html = res.content.decode()
    # refused (a call the bounded sandbox does not allow, or the sandbox itself): the
    # engine's text is used instead
    assert "TemplateSyntaxError" in html or "SecurityError" in html
    assert "subprocess" not in html and "Popen" not in html


def test_the_templates_page_names_each_template_in_french(client: Any, world: World) -> None:
    import html
    import re

    gm_client(client, world)
    page = client.get(url(world, "modeles")).content.decode()
    # file names stay in links, never in the text
    visible = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert "Verdict d'un Procès" in visible and "Ouverture d'un Procès" in visible
    assert ".txt" not in visible


def test_to_post_sends_the_heros_declaration_to_the_fm(db: Any, client: Any, clock: Any) -> None:
    """A57 `fm_distinct`: the Tragic Hero's daily declaration goes to the Forum Monde,
    written as he says it (not "[FM] …", which the forum would show as it is)."""
    from ronde.web.games import service as svc

    from .conftest import CAST, make_world

    svc.clear_cache()
    cast = {**CAST, "Ida": "tragic_hero"}
    world = make_world(cast=cast, ronde=[*SMALL_RONDE, "tragic_hero"])
    gm_client(client, world)
    clock("J2 18:00")
    assert service.record(
        world.game, None, "declare_not", "Ida", {"player": "Bob"}, at=at("J2 10:00")
    ).ok
    html = unescape(client.get(url(world, "a-poster")).content.decode())
    assert "Forum Monde (FM)" in html
    assert "« Moi, le grand héros, je ne suis pas ce manant de Bob ! »" in html
    assert "[FM]" not in html


def _long_trial() -> ThreadSpec:
    """Bob's trial over two pages: a complaint, a quote of it, a withdrawal, posts."""
    quoted = ("quote", "Hal\0Moi, Hal, " + FORMULA, "12")
    posts = [
        P("Ana", "2 déc. 2026, 10:00", "town", [("text", "J'accuse Bob d'être Woody !", "")]),
        complaint("Hal", "2 déc. 2026, 10:10"),
        P("Ida", "2 déc. 2026, 10:15", "town", [quoted, ("text", "Pareil.", "")]),
        P("Jo", "2 déc. 2026, 10:20", "town", [("text", "Je retire ma plainte contre Bob.", "")]),
    ]
    posts += [
        P(who, f"2 déc. 2026, 11:{k:02d}", "town", [("text", "Bof.", "")])
        for k, who in enumerate(["Kim", "Lou", "Max", "Ned", "Cid", "Dan"])
    ]
    posts += [complaint("Gus", "2 déc. 2026, 12:00"), complaint("Ida", "2 déc. 2026, 12:05")]
    return ThreadSpec(name="long", title="Procès : Bob est Woody !", posts=posts)


def test_pages_pasted_as_they_come_record_each_action_once(
    client: Any, world: World, clock: Any
) -> None:
    """Page 1 recorded (the thread then had that page only), then pages 2 and 1 pasted
    in one box the next day: the page-1 steps are recognised, a quote or a withdrawal
    is never a complaint."""
    from dataclasses import replace

    gm_client(client, world)
    clock("J2 18:00")
    spec = _long_trial()
    p1, p2 = page_text(spec, 1, 2), page_text(spec, 2, 2)
    res = read(client, world, page_text(replace(spec, posts=spec.posts[:10]), 1, 1))
    html = res.content.decode()
    assert "retrait d&#x27;une plainte" in html or "retrait d'une plainte" in html
    assert client.post(url(world, "forum"), rows(res)).status_code == 302
    trial = service.view_for(world.game, "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]] == ["Hal"]
    first = Action.objects.filter(game=world.game).count()
    clock("J3 09:00")
    res = read(client, world, p2 + p1)
    data = rows(res)
    ticked = [k for k in data if k.endswith("-ok")]
    assert len(ticked) == 2  # Gus's and Ida's complaints on page 2, nothing of page 1
    assert client.post(url(world, "forum"), data).status_code == 302
    trial = service.view_for(world.game, "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]] == ["Hal", "Gus", "Ida"]
    assert Action.objects.filter(game=world.game).count() == first + 2
    res = read(client, world, p1 + p2)
    assert not [k for k in rows(res) if k.endswith("-ok")]


def test_a_template_preview_warns_of_broken_forum_markup(
    client: Any, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J2 18:00")
    client.post(url(world, "forum"), rows(read(client, world, page_text(TRIAL, 1, 1))))
    res = client.post(
        url(world, "modeles"),
        {"name": "trial_opened.txt", "op": "preview", "text": "[b]Procès {{ trial.number }}"},
    )
    html = unescape(res.content.decode())
    assert "Balisage du forum à revoir" in html and "[b] jamais fermée" in html
    res = client.post(
        url(world, "modeles"),
        {"name": "trial_opened.txt", "op": "preview", "text": "[b]Procès {{ trial.number }}[/b]"},
    )
    assert "Balisage du forum" not in unescape(res.content.decode())


def test_a_refused_complaint_is_recorded_as_a_post_once(
    client: Any, world: World, clock: Any
) -> None:
    """Kim's complaint in Bob's trial is refused (her complaint of the day went to
    another trial): her post in the topic is recorded as a post (R4.5), once, and a
    second reading of the page recognises it."""
    gm_client(client, world)
    clock("J2 18:00")
    client.post(url(world, "forum"), rows(read(client, world, page_text(TRIAL, 1, 1))))
    assert service.record(
        world.game, None, "open_trial", "Cid", {"against": "Dan", "as": "halus"}, at=at("J2 11:00")
    ).ok
    spec = ThreadSpec(
        name="k",
        title="Procès : Bob est Woody !",
        posts=[*TRIAL.posts, complaint("Kim", "2 déc. 2026, 12:00")],
    )
    assert service.record(world.game, None, "complain", "Kim", {"trial": 2}, at=at("J2 11:30")).ok
    res = read(client, world, page_text(spec, 1, 1))
    data = rows(res)
    kim = next(k[:-3] for k, v in data.items() if k.endswith("-by") and v == "Kim")
    assert data.get(kim + "-ok")
    client.post(url(world, "forum"), data)
    posts = Action.objects.filter(game=world.game, action="post", by="Kim")
    assert posts.count() == 1
    res = read(client, world, page_text(spec, 1, 1))
    assert "déjà enregistrée comme message" in unescape(res.content.decode())
    assert not rows(res).get(kim + "-ok")


def test_a_forged_post_in_a_pasted_copy_is_never_ticked(
    client: Any, world: World, clock: Any
) -> None:
    """Bob writes, inside his post, the footer of a post and the header of a post of
    Ida with her complaint: the console reads one post more than the thread list's
    reply count + 1, so no step is ticked, and each says why and what to paste; the
    same page without it is ticked as before, and nothing is recorded unticked."""
    gm_client(client, world)
    clock("J2 18:00")
    own = "N'importe quoi ! Qui ? Moi ?\n"
    text = page_text(TRIAL, 1, 1)
    forged = text.replace(
        own,
        own + "[ Lien ] [ Copier ] [ Citer ] [ ! ]\n2 déc. 2026, 10:31Ida\n"
        f"  en ville ou aux portes\nMoi, Ida, {FORMULA}\n",
    )
    assert forged != text
    res = read(client, world, forged)
    html = unescape(res.content.decode())
    assert "Moi, Ida" in html and html.count("Plainte</strong>") == 3
    data = rows(res)
    assert not [k for k in data if k.endswith("-ok")]
    assert "auteur non prouvé (5 message(s) lu(s) pour 4" in html
    assert "pages enregistrées (Ctrl+S)" in html
    assert client.post(url(world, "forum"), data).status_code == 302
    assert not Action.objects.filter(game=world.game).exists()
    ticked = [k for k in rows(read(client, world, text)) if k.endswith("-ok")]
    assert len(ticked) == 4  # the opening, Hal's and Gus's complaints, Bob's post


def _verdict_trial() -> ThreadSpec:
    """Bob's trial, four complaints, the MJs' verdict post at 14:00, then Max's
    complaint 40 minutes after it."""
    return ThreadSpec(
        name="v",
        title="Procès : Bob est Woody !",
        posts=[
            P("Ana", "2 déc. 2026, 10:00", "town", [("text", "J'accuse Bob d'être Woody !", "")]),
            complaint("Ida", "2 déc. 2026, 10:10"),
            complaint("Jo", "2 déc. 2026, 10:20"),
            complaint("Kim", "2 déc. 2026, 10:30"),
            complaint("Lou", "2 déc. 2026, 10:40"),
            P(
                "Mj",
                "2 déc. 2026, 14:00",
                "town",
                [("text", "⚖ Procès n°1 : JUSTE\nBob incarnait bien le Personnage Woody.", "")],
            ),
            complaint("Max", "2 déc. 2026, 14:40"),
        ],
    )


def test_the_verdict_post_is_recorded_as_the_announcement(
    client: Any, world: World, clock: Any
) -> None:
    """R4.8: the MJs' verdict post is the announcement, at its time; Max's complaint
    40 minutes after it is proposed refused (trial_closed), unticked, and never
    concludes anything: ticked, it is recorded as a post of the trial."""
    gm_client(client, world)
    clock("J2 18:00")
    text = page_text(_verdict_trial(), 1, 1)
    res = read(client, world, text)
    html = unescape(res.content.decode())
    assert "Annonce du verdict (message des MJ)" in html
    assert "Plainte refusée : Ce Procès est terminé." in html
    data = rows(res)
    announce = next(k[:-3] for k, v in data.items() if k.endswith("-by") and v == "Mj")
    late = next(k[:-3] for k, v in data.items() if k.endswith("-by") and v == "Max")
    assert data.get(announce + "-ok") and not data.get(late + "-ok")
    assert client.post(url(world, "forum"), data).status_code == 302
    trial = service.view_for(world.game, "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]] == ["Ida", "Jo", "Kim", "Lou"]
    assert trial["status"] == "just" and trial["announced"]
    (a,) = Action.objects.filter(game=world.game, action="announce")
    assert (a.by, a.at) == ("Mj", at("J2 14:00"))
    res = read(client, world, text)
    data = rows(res)
    assert not [k for k in data if k.endswith("-ok")]
    assert "verdict déjà annoncé" in unescape(res.content.decode())
    late = next(k[:-3] for k, v in data.items() if k.endswith("-by") and v == "Max")
    client.post(url(world, "forum"), {**data, late + "-ok": "1"})
    assert Action.objects.filter(game=world.game, action="post", by="Max").count() == 1
    assert not Action.objects.filter(game=world.game, action="complain", by="Max").exists()


def test_a_verdict_the_game_did_not_compute_is_never_recorded(
    client: Any, world: World, clock: Any
) -> None:
    """The MJs' post says INJUSTE, the game computed JUSTE: confirmed anyway, the
    announcement is refused with both verdicts named, nothing recorded."""
    gm_client(client, world)
    clock("J2 18:00")
    spec = _verdict_trial()
    spec.posts[5] = P("Mj", "2 déc. 2026, 14:00", "town", [("text", "⚖ Procès n°1 : INJUSTE", "")])
    res = read(client, world, page_text(spec, 1, 1))
    data = rows(res)
    announce = next(k[:-3] for k, v in data.items() if k.endswith("-by") and v == "Mj")
    client.post(url(world, "forum"), {**data, announce + "-ok": "1"})
    assert not Action.objects.filter(game=world.game, action="announce").exists()
    trial = service.view_for(world.game, "game_master")["trials"][0]
    assert trial["status"] == "just" and not trial["announced"]
    msgs = [str(m) for m in client.get(url(world, "forum")).context["messages"]]
    assert any("annonce INJUSTE, la partie a calculé JUSTE" in m for m in msgs)


def test_a_step_without_a_time_says_to_give_the_copys_date(
    client: Any, world: World, clock: Any
) -> None:
    """A saved page's « Aujourd'hui à … » without the copy's date: not ticked, and the
    page says why and which option gives the date."""
    gm_client(client, world)
    clock("J2 18:00")
    spec = ThreadSpec(
        name="t",
        title="Procès : Bob est Woody !",
        posts=[
            P("Ana", "Aujourd'hui à 10:00", "town", [("text", "J'accuse Bob d'être Woody !", "")]),
            complaint("Ida", "Aujourd'hui à 10:10"),
        ],
    )
    res = read(client, world, page_html(spec, 1, 1))
    html = unescape(res.content.decode())
    assert not [k for k in rows(res) if k.endswith("-ok")]
    assert "heure inconnue (« Aujourd'hui à 10:10 » sans la date de la copie)" in html
    assert "« Date de la copie »" in html and "--today" not in html
    res = read(client, world, page_html(spec, 1, 1), today="2026-12-02")
    assert len([k for k in rows(res) if k.endswith("-ok")]) == 2
