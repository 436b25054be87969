"""Every notification of a simulated game read against what its recipient may know (issue
24): the bots' game is recorded again action by action through the service (each write
runs the outbox's hook), every player asked to be told; after each write, what each was
told is in his own view, a message held for a verdict not yet announced (A77) is told to
nobody, and no notification's text names a character, a player or a message's words."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from ronde.catalog import default_catalog
from ronde.engine.clock import at_clock
from ronde.engine.events import MessageSent, TrialAnnounced
from ronde.engine.game import Game as EngineGame
from ronde.engine.names import french_name
from ronde.engine.views import view
from ronde.web.games import accounts, delivery, demo, notify, service
from ronde.web.games.models import Game, GameMaster, Notification, NotifyChoice, PushSubscription

START = date(2026, 12, 1)


def _held_pending(eng: Any) -> set[tuple[str, str]]:
    """(seat, fingerprint) of each private message held for a verdict not announced yet."""
    g = eng.state
    announced = {e.trial for e in eng.log if isinstance(e, TrialAnnounced)}
    out = set()
    for e in eng.log:
        if isinstance(e, MessageSent) and not e.public:
            held = e.data.get("held")
            if isinstance(held, int) and held not in announced:
                for seat in e.to:
                    time = delivery.shown_time(g.start, e.at.isoformat())
                    out.add((seat, delivery.fingerprint(seat, time, e.kind, e.text)))
    return out


def _in_view(eng: Any, pseudo: str) -> set[str]:
    """What the player's own view shows, as fact keys (independently of the outbox)."""
    g = eng.state
    seat = g.seat_of(pseudo)
    v = view(g, pseudo)
    out = {
        "m:" + delivery.fingerprint(seat, m["time"], m["kind"], m["text"])
        for m in v["messages"]
        if not m["public"]
    }
    out |= {f"t:{t['number']}" for t in v["trials"] if pseudo in t["accused"]}
    return out


@pytest.mark.parametrize("seed", [3, 11])
def test_every_notification_holds_only_what_its_recipient_may_know(
    db: Any, seed: int, settings: Any
) -> None:
    settings.PUSH_HOSTS = []
    until = at_clock(START, 8, 23, 0)
    played = demo.play_until(until, start=START, players=16, seed=seed)
    eng = played.game
    g = eng.state
    User = get_user_model()
    service.set_clock(until)
    try:
        game = Game.objects.create(
            slug=f"secrets-{seed}",
            name="Secrets",
            start=START,
            roster=[p.pseudo for p in g.players.values()],
            options=dict(g.options),
            clock=Game.MANUAL,
        )
        for name in g.game_masters:
            GameMaster.objects.create(game=game, name=name)
        service.start(game, EngineGame.replay(eng.log[:1], default_catalog()), None)
        game.refresh_from_db()
        secrets_words = {french_name(c) for c in {p.character for p in g.players.values()} if c}
        secrets_words |= {"Figurant", "Démasqué", "démasqué", "verdict", "juste"}
        pseudos = [p.pseudo for p in g.players.values()]
        for pseudo in pseudos:
            user = User.objects.create(username=f"u-{seed}-{pseudo}")
            member = accounts.add_player(game, pseudo, user=user)
            NotifyChoice.objects.create(
                user=user,
                game=game,
                membership=member,
                push=True,
                updated_at=service.now(),
            )
            PushSubscription.objects.create(
                user=user,
                endpoint=f"https://fcm.googleapis.com/fcm/send/{seed}-{pseudo}",
                p256dh="x",
                auth="y",
                created_at=service.now(),
            )
        checked = 0
        before: dict[str, set[str]] = {p: set() for p in pseudos}
        for cmd, _first, _end in eng.commands:
            out = service.record(game, None, cmd.action, cmd.by, dict(cmd.args), at=cmd.at)
            if not out.ok:
                continue
            game.refresh_from_db()
            now_eng = service.current(game)
            held = _held_pending(now_eng)
            for c in NotifyChoice.objects.filter(game=game).select_related("membership"):
                pseudo = c.membership.pseudo
                seat = now_eng.state.seat_of(pseudo)
                told = {k for k in c.known if k[:2] in ("m:", "t:")}
                # what he was told by this write is in his own view now
                assert told - before[pseudo] <= _in_view(now_eng, pseudo), pseudo
                before[pseudo] = told
                assert not {("m:" + fp) for s, fp in held if s == seat} & told, (
                    f"{pseudo} told of a message held for a verdict not announced (A77)"
                )
            checked += 1
        assert checked > 50
        rows = list(Notification.objects.filter(game=game))
        assert rows, "the game told its players something"
        for n in rows:
            text = f"{n.title} {n.body} {n.url}"
            for word in secrets_words:
                assert word not in text, (word, text)
            for pseudo in pseudos:
                assert pseudo not in text, (pseudo, text)
            assert n.url.startswith(f"/partie/{game.slug}/moi/")
        # the facts told were exactly the news of each player's own view, once each
        for c in NotifyChoice.objects.filter(game=game).select_related("membership"):
            final = _in_view(service.current(game), c.membership.pseudo)
            assert final <= set(c.known)
        kinds = {n.kind for n in rows}
        assert "message" in kinds
    finally:
        service.set_clock(None)
        notify.wake()


def test_a_private_message_held_for_a_verdict_is_told_after_its_announcement() -> None:
    """A77: the facts a notification tells are read from the player's own view, which
    holds back what a verdict not yet announced sent him; the announcement releases it."""
    from ronde.engine.clock import parse_time
    from tests.test_verdict_secret import pianist_game

    game = pianist_game()
    g = game.state
    assert g.trial(1).status == "just" and not g.trial(1).announced  # type: ignore[union-attr]
    bob = g.seat_of("Bob")
    assert bob is not None
    # (as a verdict's consequence would send it: held for trial 1)
    g.messages.append((g.clock, (bob,), "target_added", "Nouveau : X.", {"held": 1}, False))
    held = {k for k in notify.player_facts(game, "Bob") if k.startswith("m:")}
    time = delivery.shown_time(START, g.clock.isoformat())  # type: ignore[union-attr]
    key = "m:" + delivery.fingerprint(bob, time, "target_added", "Nouveau : X.")
    assert key not in held
    game.act("announce", "Mj", parse_time("J2 12:00", START), trial=1)
    assert key in notify.player_facts(game, "Bob")
