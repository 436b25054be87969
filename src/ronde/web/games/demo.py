"""A game played by the simulator's bots, stored as if game masters had recorded it.

Used by ``ronde serve --demo`` (a game in progress, played up to now) and by the
leak tests (many states). Every accepted command becomes an :class:`Action`
recorded by one of the game masters, and every event is stored with its action
(or none, for the engine's timers), exactly as the web app would have stored them.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.db import transaction

from ronde import sim
from ronde.catalog import default_catalog
from ronde.engine.clock import at_clock
from ronde.engine.commands import Command
from ronde.engine.events import Event as EngineEvent
from ronde.engine.game import Game as EngineGame
from ronde.setup import draw

from . import accounts, service
from .models import Action, Event, Game, GameMaster

GAME_MASTERS = ("Mj", "Mj2", "Mj3", "Mj4")


class RecordingGame(EngineGame):
    """An engine game that remembers which events each accepted command produced."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (command, index of its first event, index after its last event)
        self.commands: list[tuple[Command, int, int]] = []

    def execute(self, cmd: Command) -> list[EngineEvent]:
        self.advance(cmd.at)  # timers are nobody's action
        first = len(self.log)
        out = super().execute(cmd)
        self.commands.append((cmd, first, len(self.log)))
        return out


@dataclass
class Played:
    game: RecordingGame
    until: datetime
    refused: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def play_until(
    until: datetime,
    *,
    start: date,
    players: int = 28,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    game_masters: tuple[str, ...] = GAME_MASTERS,
    between: Callable[[RecordingGame, datetime], None] | None = None,
) -> Played:
    """Bots play a ``players``-player game from J1 up to ``until`` (the simulator's turns).
    ``between(game, t)`` is called before each time of day ``t`` (benchmarks add their
    own actions there)."""
    rng = random.Random(seed)
    names = [f"Joueur{i:02d}" for i in range(1, players + 1)]
    cast, ronde = draw(names, random.Random(rng.random()))  # type: ignore[arg-type]
    game = RecordingGame.create(
        start=start,
        cast=cast,
        ronde=ronde,
        catalog=default_catalog(),
        seed=rng.getrandbits(63),
        players=names,
        game_masters=list(game_masters),
        options=options,
    )
    assert isinstance(game, RecordingGame)
    res = sim.SimResult(game)
    order = list(game.state.players)
    for day in range(1, 14):
        for i, (hour, minute) in enumerate(sim.SLOTS):
            t = at_clock(start, day, hour, minute)
            if t > until:
                game.advance(until)
                return Played(game, until, res.refused)
            if between is not None:
                between(game, t)
            game.advance(t)
            sim._game_master_turn(game, day, t, rng, res, first=i == 0)
            if day >= 2:
                rng.shuffle(order)
                for seat in order:
                    if rng.random() < 0.35:
                        sim._bot_turn(game, seat, t, rng, res)
                if i == 1:
                    for seat in order:
                        if rng.random() < 0.7:
                            sim._act(game, "rehearse", game.state.pseudo(seat), t, res)
    game.advance(until)
    return Played(game, until, res.refused)


def _gm_user(name: str, password: str | None) -> User:
    """A demo account (a fresh demo database: the name is free)."""
    user = User.objects.filter(username=accounts.username_for(name)).first()
    if user is None:
        user = User(username=accounts.username_for(name))
    if password is not None:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    return user


@transaction.atomic
def store(
    played: Played,
    *,
    slug: str,
    name: str,
    gm_password: str | None = None,
    player_password: str | None = None,
    clock: str = Game.WALL,
) -> Game:
    """Store a played game: game masters, accounts, actions and events (generation 1).

    ``clock="manual"`` gives the game its own clock, stopped where the bots stopped
    (the demo: ``ronde advance demo --to ...`` moves it)."""
    eng = played.game
    g = eng.state
    gms = {n: _gm_user(n, gm_password) for n in g.game_masters}
    first_gm = gms[g.game_masters[0]]
    t = service.now()
    game = Game.objects.create(
        slug=slug,
        name=name,
        start=g.start,
        created_by=first_gm,
        roster=[p.pseudo for p in g.players.values()],
        options=dict(g.options),
        started_at=t,
        generation=1,
        clock=clock,
        clock_at=played.until if clock == Game.MANUAL else None,
    )
    for n, user in gms.items():
        GameMaster.objects.create(game=game, user=user, name=n)
    owner: dict[int, Action] = {}
    recorders = list(gms.values())
    actions = []
    for k, (cmd, first, end) in enumerate(eng.commands):
        who = gms.get(cmd.by) or recorders[k % len(recorders)]
        a = Action(
            game=game,
            action=cmd.action,
            by=cmd.by,
            at=cmd.at,
            args=service.args_json(cmd.args),
            recorded_by=who,
            recorded_at=cmd.at,
        )
        actions.append((a, first, end))
    Action.objects.bulk_create([a for a, _f, _e in actions], batch_size=500)
    for a, first, end in actions:
        for idx in range(first, end):
            owner[idx] = a
    rows = []
    for idx, e in enumerate(eng.log):
        by = owner.get(idx)
        rows.append(
            Event(
                game=game,
                seq=idx + 1,
                generation=1,
                type=e.TYPE,
                at=e.at,
                data=service.event_json(e),
                action=by,
                recorded_by=by.recorded_by if by is not None else None,
                recorded_at=by.recorded_at if by is not None else e.at,
            )
        )
    Event.objects.bulk_create(rows, batch_size=500)
    game.last_seq = len(rows)
    game.version = uuid.uuid4().hex
    game.save(update_fields=["last_seq", "version"])
    # one (slow) hash for every demo player; without a password, accounts that cannot log in
    hashed = make_password(player_password)
    for pseudo in [p.pseudo for p in g.players.values()]:
        user = User.objects.create(username=accounts.propose_username(pseudo), password=hashed)
        accounts.add_player(game, pseudo, user=user)
    return game
