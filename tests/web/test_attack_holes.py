"""Holes found by attacking the site as a hostile player or game master, each with the
test that failed before its fix (the other attacks are in ``test_attackers.py``,
``test_security.py`` and ``test_leaks.py``)."""

from __future__ import annotations

import contextlib
import html
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.web.games import service, views_gm, views_player
from ronde.web.games.models import Action, Request

from .conftest import World, make_world

pytestmark = pytest.mark.django_db


def _gm(c: Client, w: World, action: str, data: dict[str, Any]) -> None:
    r = c.post(
        reverse("gm_action", args=[w.game.slug, action]), {**data, "at": service.now().isoformat()}
    )
    assert r.status_code == 302, (action, r.content[:2000])


def _requests_shown(c: Client, w: World) -> list[str]:
    page = c.get(reverse("player", args=[w.game.slug])).content.decode()
    return [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", li)).strip()
        for li in re.findall(r'<li id="request-\d+".*?</li>', page, re.S)
    ]


def _concluded_unannounced(
    clock: Any, supposed: str, options: dict[str, str] | None = None
) -> tuple[World, Client]:
    """Ana accuses Bob (Woody) of being ``supposed``; four complaints conclude the trial
    on J2; the verdict is not announced."""
    w = make_world(slug=f"ronde-{supposed}", options=options)
    mj = Client()
    mj.force_login(w.gms["Mj"])
    clock("J2 10:00")
    _gm(mj, w, "open_trial", {"by": "Ana", "against": "Bob", "as": supposed})
    for i, who in enumerate(["Hal", "Gus", "Fay", "Eve"]):
        clock(f"J2 11:0{i}")
        _gm(mj, w, "complain", {"by": who, "trial": 1})
    clock("J2 12:00")
    return w, mj


def _accused_asks(
    clock: Any, supposed: str, options: dict[str, str] | None = None
) -> tuple[list[str], Request, World, Client]:
    w, mj = _concluded_unannounced(clock, supposed, options)
    bob = Client()
    bob.force_login(w.users["Bob"])
    r = bob.post(
        reverse("player_request", args=[w.game.slug, "ask"]), {"player": "Cid", "as": "pierrot"}
    )
    assert r.status_code == 302
    req = Request.objects.get(game=w.game)
    mj.post(reverse("gm_request", args=[w.game.slug, req.pk, "accept"]), {})
    return _requests_shown(bob, w), req, w, mj


@pytest.mark.parametrize(("supposed", "after"), [("woody", "refusée"), ("pierrot", "refusée")])
def test_the_accused_learns_nothing_from_a_request_answered_before_the_announcement(
    clock: Any, supposed: str, after: str
) -> None:
    """A77 `frozen`: Bob, whose verdict waits for its announcement, asks Woody's question
    through his page. Before the fix the game masters' "Accepter" ran it on the game as
    it is: refused "Bob est démasqué." if the verdict was JUST (he is Woody), accepted if
    UNJUST, and his page told him which. Now the request waits for the announcement,
    whatever the verdict (the same line on his page); accepted after it, it is judged
    at its own time, before the announcement: refused alike whatever the verdict
    (RULES.md A77 clarification 1: every action of the accused that the outcome would
    change is refused with actor_unmasked until the announcement)."""
    service.clear_cache()
    shown, req, w, mj = _accused_asks(clock, supposed)
    # the same line whatever the verdict: the request, waiting
    assert len(shown) == 1 and "en attente" in shown[0], shown
    assert not re.search(r"accept|refus|démasqu", shown[0]), shown
    req.refresh_from_db()
    assert req.status == Request.PENDING
    assert not Action.objects.filter(request=req).exists()
    # after the announcement the game masters accept it: the answer follows the verdict
    clock("J2 13:00")
    _gm(mj, w, "announce", {"trial": 1})
    clock("J2 13:05")
    mj.post(reverse("gm_request", args=[w.game.slug, req.pk, "accept"]), {})
    bob = Client()
    bob.force_login(w.users["Bob"])
    assert after in _requests_shown(bob, w)[0]


@pytest.mark.parametrize(("supposed", "recorded"), [("woody", "refused"), ("pierrot", "applied")])
def test_a_power_of_the_accused_recorded_in_the_console_waits_for_the_announcement(
    clock: Any, supposed: str, recorded: str
) -> None:
    """The usual way: Bob sends his question by MP and a game master records it in the
    console. Before the fix it was carried out at once if the verdict was UNJUST (the
    answer on Bob's page), refused if JUST (no answer): his page told him. Now the
    console holds it (nothing recorded, the same page for Bob) until the announcement."""
    service.clear_cache()
    w, mj = _concluded_unannounced(clock, supposed)
    bob = Client()
    bob.force_login(w.users["Bob"])
    before = _TOKENS.sub(r"\1", bob.get(reverse("player", args=[w.game.slug])).content.decode())
    ask = {"by": "Bob", "player": "Cid", "as": "pierrot", "at": service.now().isoformat()}
    r = mj.post(reverse("gm_action", args=[w.game.slug, "ask"]), ask)
    assert r.status_code == 400
    assert "attend l'annonce du verdict du Procès n°1" in html.unescape(r.content.decode())
    assert not Action.objects.filter(game=w.game, action="ask").exists()
    after = _TOKENS.sub(r"\1", bob.get(reverse("player", args=[w.game.slug])).content.decode())
    assert after == before
    # after the announcement, recorded at the time the MP came: refused alike, the
    # verdict was waiting then (A77 clarification 1)
    clock("J2 13:00")
    _gm(mj, w, "announce", {"trial": 1})
    r = mj.post(reverse("gm_action", args=[w.game.slug, "ask"]), ask)
    assert r.status_code == 400
    assert "attend l'annonce du verdict du Procès n°1" in html.unescape(r.content.decode())
    assert not Action.objects.filter(game=w.game, action="ask").exists()
    # sent again after the announcement: the rules decide on the verdict, now public
    clock("J2 13:10")
    r = mj.post(
        reverse("gm_action", args=[w.game.slug, "ask"]), {**ask, "at": service.now().isoformat()}
    )
    asked = Action.objects.filter(game=w.game, action="ask").count()
    if recorded == "refused":  # JUST: he was unmasked then (R8.4), nothing recorded
        assert r.status_code == 400 and asked == 0
        assert "démasqué" in html.unescape(r.content.decode())
    else:
        assert r.status_code == 302 and asked == 1


def test_under_outcome_applies_the_unjustly_accused_acts_at_once(clock: Any) -> None:
    """A77 `outcome_applies`: the accused of an UNJUST verdict may act at once (the house
    rule lets the outcome show): his request is not held."""
    service.clear_cache()
    shown, req, _w, _mj = _accused_asks(clock, "pierrot", {"A77": "outcome_applies"})
    req.refresh_from_db()
    assert req.status == Request.ACCEPTED, (req.status, req.message, shown)


def test_two_game_masters_accepting_one_request_record_it_once(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two game masters click "Accepter" on the same request at once (two pages, two
    form tokens): both read it pending before either recorded it. Before the fix both
    ran the command: a delivery of items recorded twice."""
    service.clear_cache()
    w = make_world()
    clock("J2 10:00")
    ana = Client()
    ana.force_login(w.users["Ana"])
    page = ana.get(reverse("player", args=[w.game.slug])).content.decode()
    form = page[page.index('action="/partie/ronde-test/demande/send_items/"') :]
    item = re.findall(r'<option value="(item_[^"]+)"', form)[0]
    r = ana.post(
        reverse("player_request", args=[w.game.slug, "send_items"]), {"to": "Mj", "items": item}
    )
    assert r.status_code == 302
    req = Request.objects.get(game=w.game)
    stale = Request.objects.get(pk=req.pk)  # the second game master's read, still pending
    clock("J2 10:05")
    mj = Client()
    mj.force_login(w.gms["Mj"])
    mj.post(reverse("gm_request", args=[w.game.slug, req.pk, "accept"]), {})
    assert Action.objects.filter(request=req).count() == 1

    real = views_gm.get_object_or_404

    def read_before_the_first_write(model: Any, **kw: Any) -> Any:
        return stale if model is Request else real(model, **kw)

    monkeypatch.setattr(views_gm, "get_object_or_404", read_before_the_first_write)
    mj2 = Client()
    mj2.force_login(w.gms["Mj2"])
    mj2.post(reverse("gm_request", args=[w.game.slug, req.pk, "accept"]), {})
    assert Action.objects.filter(request=req).count() == 1
    assert Action.objects.filter(game=w.game, action="send_items").count() == 1
    req.refresh_from_db()
    assert req.status == Request.ACCEPTED
    # a refusal, or the player's withdrawal, read as pending before the acceptance
    # changes nothing either (the page would say "refusée"/"retirée" of a recorded action)
    mj2.post(reverse("gm_request", args=[w.game.slug, req.pk, "refuse"]), {"reason": "non"})
    req.refresh_from_db()
    assert req.status == Request.ACCEPTED
    monkeypatch.setattr(views_player, "get_object_or_404", read_before_the_first_write)
    ana.post(reverse("player_withdraw", args=[w.game.slug, req.pk]))
    req.refresh_from_db()
    assert req.status == Request.ACCEPTED


_TOKENS = re.compile(
    r'(name="(?:form_token|csrfmiddlewaretoken)" value=")[^"]*"|"X-CSRFToken": "[^"]*"'
)


def _pages_as_known(w: World) -> dict[str, str]:
    """Every page each player (and the public) may open, tokens blanked."""
    out: dict[str, str] = {}
    public = Client()
    out["public"] = public.get(reverse("public", args=[w.game.slug])).content.decode()
    for pseudo, user in w.users.items():
        c = Client()
        c.force_login(user)
        for name in ("player", "chorus"):
            r = c.get(reverse(name, args=[w.game.slug]))
            out[f"{pseudo} {name}"] = f"{r.status_code} {r.content.decode()}"
    return {k: _TOKENS.sub(r"\1", v) for k, v in out.items()}


def _first_difference(a: str, b: str) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"…{a[max(0, n - 300) : n + 200]!r}\n  against\n…{b[max(0, n - 300) : n + 200]!r}"


#: (time, action, arguments) recorded by the game master before the concluding complaint
_BEFORE: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    # Ana accuses Bob (Woody) of being Woody: the first verdict of the game
    "first": [
        ("J2 10:00", "open_trial", {"by": "Ana", "against": "Bob", "as": "woody"}),
        ("J2 11:00", "complain", {"by": "Hal", "trial": 1}),
        ("J2 11:01", "complain", {"by": "Gus", "trial": 1}),
        ("J2 11:02", "complain", {"by": "Fay", "trial": 1}),
    ],
    # the same, announced: Bob is in the chorus; then Ana accuses Cid (Pierrot) on J3
    "chorus": [
        ("J2 10:00", "open_trial", {"by": "Ana", "against": "Bob", "as": "woody"}),
        ("J2 11:00", "complain", {"by": "Hal", "trial": 1}),
        ("J2 11:01", "complain", {"by": "Gus", "trial": 1}),
        ("J2 11:02", "complain", {"by": "Fay", "trial": 1}),
        ("J2 11:03", "complain", {"by": "Eve", "trial": 1}),
        ("J2 12:00", "announce", {"trial": 1}),
        ("J3 10:00", "open_trial", {"by": "Ana", "against": "Cid", "as": "pierrot"}),
        ("J3 11:00", "complain", {"by": "Hal", "trial": 2}),
        ("J3 11:01", "complain", {"by": "Gus", "trial": 2}),
        ("J3 11:02", "complain", {"by": "Fay", "trial": 2}),
    ],
}


@pytest.mark.parametrize("scene", sorted(_BEFORE))
def test_no_page_depends_on_a_verdict_not_yet_announced(clock: Any, scene: str) -> None:
    """A77 `frozen`, in the web pages themselves: a 4th complaint concludes a trial;
    until the announcement every page of every player (the accused included: his
    "Aujourd'hui", his forms, his Jokers; the chorus's page) and the public board are
    the same whether the verdict is JUST or, flipped, UNJUST. Before the fix the
    accused's "Aujourd'hui" said "Pas de contrainte à tenir aujourd'hui" only if JUST."""
    from django.db import transaction

    from ronde.web.games import viewcache
    from tests.test_verdict_secret import flipped

    service.clear_cache()
    w = make_world()
    mj = Client()
    mj.force_login(w.gms["Mj"])
    for when, action, args in _BEFORE[scene]:
        clock(when)
        _gm(mj, w, action, args)
    last = _BEFORE[scene][-1]
    trial = int(last[2]["trial"])
    day = last[0].split()[0]
    worlds = []
    for flip in (False, True):
        service.clear_cache()
        viewcache.clear()
        with transaction.atomic():
            clock(f"{day} 11:03")
            if flip:
                with flipped(trial):
                    _gm(mj, w, "complain", {"by": "Eve", "trial": trial})
            else:
                _gm(mj, w, "complain", {"by": "Eve", "trial": trial})
            status = service.view_for(w.game, "game_master")["trials"][trial - 1]["status"]
            pages = {}
            # right after, then the next morning (the midnight timers read the game as
            # players know it: the accused's constraint of the day is judged meanwhile)
            for moment in (f"{day} 12:00", f"J{int(day[1:]) + 1} 09:00"):
                clock(moment)
                pages.update({f"{moment} {k}": v for k, v in _pages_as_known(w).items()})
            worlds.append((status, pages))
            transaction.set_rollback(True)
    (s1, a), (s2, b) = worlds
    assert {s1, s2} == {"just", "unjust"}
    diffs = [f"{k}: {_first_difference(a[k], b[k])}" for k in a if a[k] != b[k]]
    assert not diffs, "\n".join(diffs)


@pytest.mark.django_db(transaction=True)
def test_the_same_request_sent_twice_at_once_is_stored_once(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player sends the same delivery from two pages at once (two form tokens, so the
    one-time tokens do not catch it): before the fix both passed the "already waiting"
    check before either was stored, and the game masters saw (and could accept) two."""
    import threading

    from django.db import connection

    service.clear_cache()
    w = make_world(slug="deux-onglets")
    clock("J2 10:00")
    clients = []
    for _i in range(2):
        c = Client()
        c.force_login(w.users["Ana"])
        clients.append(c)
    page = clients[0].get(reverse("player", args=[w.game.slug])).content.decode()
    form = page[page.index('action="/partie/deux-onglets/demande/send_items/"') :]
    item = re.findall(r'<option value="(item_[^"]+)"', form)[0]
    # both stop just before storing theirs until the other is there too (or 3 s passed:
    # when one waits for the other's lock instead)
    barrier = threading.Barrier(2, timeout=3)
    create = Request.objects.create

    def meet_then_create(**kw: Any) -> Any:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        return create(**kw)

    monkeypatch.setattr(Request.objects, "create", meet_then_create)
    errors: list[BaseException] = []

    def send(c: Client) -> None:
        try:
            r = c.post(
                reverse("player_request", args=[w.game.slug, "send_items"]),
                {"to": "Mj", "items": item},
            )
            assert r.status_code == 302
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert Request.objects.filter(game=w.game, action="send_items").count() == 1


@pytest.mark.django_db(transaction=True)
def test_one_account_accepting_two_seats_of_a_game_at_once_gets_one(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone holding two invitation links of one game (two players', or a player's and
    a game master's) accepts both at once with one account. Before the fix, on
    PostgreSQL, each acceptance checked "no other seat in this game" before the other
    was committed, and the account took both seats (a player who is also a game master
    of his own game)."""
    import threading

    from django.contrib.auth import get_user_model
    from django.db import connection

    from ronde.web.games import accounts
    from ronde.web.games.models import GameMaster, Membership

    service.clear_cache()
    w = make_world(slug="deux-places")
    seat = accounts.add_player(w.game, "Convoité")
    gm = accounts.add_game_master(w.game, "MjConvoité")
    links = [seat.invitations.get().token, gm.invitations.get().token]
    user = get_user_model().objects.create_user("Cumulard", password="cumul-secret-42")
    clients = []
    for _i in range(2):
        c = Client()
        c.force_login(user)
        clients.append(c)
    # both wait, inside their acceptance, for the other to be there too (or 3 s: when
    # one waits for the other's lock instead)
    barrier = threading.Barrier(2, timeout=3)
    check_user = accounts.check_user

    def meet_then_check(inv: Any, u: Any) -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        check_user(inv, u)

    monkeypatch.setattr(accounts, "check_user", meet_then_check)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def accept(c: Client, token: str) -> None:
        try:
            statuses.append(c.post(reverse("invitation", args=[token])).status_code)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=accept, args=(c, t)) for c, t in zip(clients, links, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    seats = Membership.objects.filter(game=w.game, user=user).count()
    seats += GameMaster.objects.filter(game=w.game, user=user).count()
    assert seats == 1, statuses
    assert sorted(statuses) == [302, 409], statuses


@pytest.mark.parametrize("new", ["game_master", "public", "Chœur", "\u200b"])
def test_a_replacement_cannot_take_a_name_ronde_reserves(clock: Any, new: str) -> None:
    """A replacement player whose forum pseudo is « game_master » or « public » (valid
    MyHordes account names) was accepted by ``replace_player`` (the roster refuses them):
    his seat's page was built from the view of that name, the game masters' or the
    public's (a server error today, a leak of every secret one template change away).
    Now refused like a roster naming him, and nothing is recorded."""
    from ronde.web.games.models import Event, Membership

    service.clear_cache()
    w = make_world()
    mj = Client()
    mj.force_login(w.gms["Mj"])
    clock("J2 10:00")
    service.current(w.game)  # the timers due by now, stored
    events = Event.objects.filter(game=w.game).count()
    mj.post(
        reverse("gm_action", args=[w.game.slug, "replace_player"]),
        {"player": "Ana", "new": new, "at": service.now().isoformat()},
    )
    assert Event.objects.filter(game=w.game).count() == events
    assert not Membership.objects.filter(game=w.game, pseudo=new).exists()
    assert w.member("Ana").revoked_at is None


def test_a_post_cannot_forge_another_players_complaint_in_a_browser_copy() -> None:
    """The accused writes, inside his own post, a footer line and a header line in the
    shape of the browser copy, then « Moi, Sirius, pose une plainte … »: the text copy
    read a post of Sirius, and proposed his complaint as sure (ticked). Now the copy
    reads one post more than the thread list's reply count + 1 (only the server writes
    it): no step of the copy is sure, each says why."""
    from ronde.engine.views import view
    from ronde.forum.proposals import parse_thread
    from tests.forum.conftest import GMS, TODAY, new_game, page

    src = page("trial_woody.txt")
    own = "N'importe quoi ! Je suis juste perdu dans le désert. :sad:\n"
    forged = src.replace(
        own,
        own + "[ Lien ] [ Copier ] [ Citer ] [ ! ]\n7 nov. 2025, 10:06Sirius\n"
        "  en ville ou aux portes\nMoi, Sirius, pose une plainte contre Grodoudou pour "
        "avoir trop cabotiné dans son rôle de Woody.\n",
    )
    gv = view(new_game().state, "game_master")
    result = parse_thread(forged, gv, today=TODAY, game_masters=GMS)
    # Sirius's own complaint (his post, later) is doubtful (« Woodie »): none is sure
    sure = [(p.action, p.by, p.post) for p in result.proposals if p.sure]
    assert not [s for s in sure if s[:2] == ("complain", "Sirius")], sure
    assert not sure  # whose post is forged cannot be told: nothing is sure
    assert "page 1 : 11 message(s) lu(s) pour 10" in (result.thread.unproven or "")
    # the same copy without the forged post: its steps are sure again
    clean = parse_thread(src, gv, today=TODAY, game_masters=GMS)
    assert clean.thread.unproven is None and [p for p in clean.proposals if p.sure]


@pytest.mark.django_db
def test_the_database_is_not_readable_by_other_local_users(tmp_path: Any) -> None:
    """The secret key is created 0600, but the SQLite database beside it (every secret
    of every game, the password hashes, the sessions of logged-in game masters) was
    created with the umask's mode (0644: readable by any local account). Now 0600, its
    WAL and shared-memory files with it (SQLite gives them the database's mode)."""
    import os
    import stat
    import subprocess

    from .test_hosting import RONDE, env_for

    env = env_for(tmp_path)
    out = subprocess.run(
        ["sh", "-c", f"umask 022 && exec '{RONDE}' manage migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    files = [tmp_path / "ronde.sqlite3"]
    files += [tmp_path / f"ronde.sqlite3{s}" for s in ("-wal", "-shm")]
    modes = {f.name: oct(stat.S_IMODE(os.stat(f).st_mode)) for f in files if f.exists()}
    assert "ronde.sqlite3" in modes
    assert set(modes.values()) == {"0o600"}, modes
