"""A Mime's model recorded before J1 (the console's preparation) is his J1 model
(R7.9.1): stored as J1, told with the role reveal at the end of J1, and the J2
constraint reads the model's J1 Registre."""

from __future__ import annotations

from datetime import timedelta

from ronde.catalog import default_catalog
from ronde.engine.events import CharacterFact
from ronde.engine.game import Game
from ronde.engine.views import view

from .conftest import SMALL_CAST, SMALL_RONDE, START, at


def _game() -> Game:
    cast = dict(SMALL_CAST)
    cast["Cid"] = "mime"
    ronde = ["mime" if c == "pierrot" else c for c in SMALL_RONDE]
    return Game.create(
        start=START,
        cast=cast,
        ronde=ronde,
        catalog=default_catalog(),
        seed=7,
        players=list(cast),
        game_masters=["Mj"],
        at=at("J1 10:00") - timedelta(days=3),
    )


def test_a_model_recorded_two_days_before_j1_is_the_j1_model() -> None:
    g = _game()
    before = at("J1 10:00") - timedelta(days=2)
    assert g.state.day(before) < 1  # the case: a day before the game's first
    events = g.act("assign_mime_target", "Mj", before, player="Ana")
    fact = next(e for e in events if isinstance(e, CharacterFact))
    assert fact.data["day"] == 1
    assert g.state.players["Cid"].data["mime"]["history"] == [[1, "Ana"]]
    # not told before the role reveal, told with it (R1.8)
    assert not [m for m in view(g.state, "Cid")["messages"] if m["kind"] == "mime_target"]
    g.advance(at("J2 10:00"))
    told = [m for m in view(g.state, "Cid")["messages"] if m["kind"] == "mime_target"]
    assert [m["text"] for m in told] == ["Votre modèle : Ana."]
    assert told[0]["time"] == "J2 00:00"
    gm = view(g.state, "game_master")
    texts = " ".join(str(t) for t in gm.get("todo", []))
    assert "copiées de celui de Ana au J1" in texts


def test_a_log_stored_with_day_minus_one_replays_as_j1() -> None:
    g = _game()
    g.act("assign_mime_target", "Mj", at("J1 10:00") - timedelta(days=2), player="Ana")
    log = []
    for e in g.log:
        if isinstance(e, CharacterFact) and e.kind == "model":
            e = CharacterFact(
                at=e.at,
                character=e.character,
                player=e.player,
                kind=e.kind,
                data={**e.data, "day": -1},
            )
        log.append(e)
    again = Game.replay(log, default_catalog())
    assert again.state.players["Cid"].data["mime"]["history"] == [[1, "Ana"]]
