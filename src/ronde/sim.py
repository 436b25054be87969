"""``ronde simulate``: bots that act only on their own view play whole games.

Bots open trials and complain on their targets, the chorus votes, a game-master
bot gives themes, announces verdicts, records a small rate of failed
constraints and transfigures the unmasked into new Extras. Every duty-holder's bot
meets its duties first at each time of the day (:mod:`ronde.bots.duties`).

Randomness comes from :class:`Streams`: one generator per (seed, game, purpose[,
seat, day]), so runs are reproducible, a game is the same whichever worker plays it,
and a house rule that changes one bot's day does not shift anyone else's draws (the
paired games of ``ronde simulate --compare``, :mod:`ronde.simcompare`).
"""

from __future__ import annotations

import functools
import hashlib
import random
import time as wallclock
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bots import CHORUS, GAME_MASTER, POWERS, Act
from .bots.duties import DUTIES, monstrous
from .catalog import default_catalog
from .engine.clock import PARIS, at_clock
from .engine.errors import RuleViolation
from .engine.events import PlayerUnmasked
from .engine.game import Game
from .engine.names import CAUSES_FR, RONDE_IDS, french_name
from .engine.ronde import boost_on
from .engine.views import (
    drop_briefs,
    game_master_brief,
    player_brief,
    private_brief,
    settle_briefs,
)
from .setup import draw

if TYPE_CHECKING:
    from rich.console import Console

SLOTS = ((9, 0), (12, 30), (17, 0), (21, 30))
FAIL_RATE = 0.015
#: ``play(late=...)``: the time after midnight at which a late bot does the duties of the
#: day before (under A9 ``grace_N`` with N > 20 they still count for that day)
LATE_SLOT = (0, 20)
#: the chance that a duty-holder does a day's duties late (``ronde simulate --compare``:
#: forum players do post after midnight; what the grace of A9 is for)
LATE = 0.05


class Streams:
    """The random generators of one game, each keyed by (seed, game, purpose, keys):
    drawing from one never moves another."""

    __slots__ = ("_cache", "game", "seed")

    def __init__(self, seed: int, game: int = 0) -> None:
        self.seed, self.game = seed, game
        self._cache: dict[tuple[object, ...], random.Random] = {}

    def rng(self, purpose: str, *keys: object) -> random.Random:
        """The generator of ``purpose`` (and ``keys``), made at its first use."""
        key = (purpose, *keys)
        r = self._cache.get(key)
        if r is None:
            text = "/".join(str(k) for k in (self.seed, self.game, *key)).encode()
            digest = hashlib.blake2b(text, digest_size=8).digest()
            r = self._cache[key] = random.Random(int.from_bytes(digest, "big"))
        return r

    def forget(self, purpose: str, *keys: object) -> None:
        """Drop a generator no longer used (a day's, once the day is over)."""
        self._cache.pop((purpose, *keys), None)


@dataclass
class SimResult:
    """What one simulated game gives to the statistics."""

    game: Game
    masked_by_day: dict[str, list[float]] = field(default_factory=dict)
    refused: int = 0
    actions: int = 0
    #: unmasked players still alive (the chorus, R8.5) at the end of each day J1–J13
    chorus_by_day: list[int] = field(default_factory=list)
    #: the first day whose end saw the boost on (R2.8), ``None`` if it never came
    boost_day: int | None = None


def _act(game: Game, verb: str, by: str, at: datetime, res: SimResult, **args: Any) -> bool:
    # what the actor read of his brief stays as it was before his action
    settle_briefs(game.state, by)
    return _act_done(game, verb, by, at, res, **args)


def _act_done(game: Game, verb: str, by: str, at: datetime, res: SimResult, **args: Any) -> bool:
    """:func:`_act` for an actor who reads no more of his brief (nothing to settle: a
    brief read after a change raises, it never reads wrong)."""
    res.actions += 1
    try:
        game.act(verb, by, at, **args)
        return True
    except RuleViolation:
        res.refused += 1
        return False


def _bot_turn(game: Game, seat: str, at: datetime, rng: random.Random, res: SimResult) -> None:
    g = game.state
    p = g.players[seat]
    behaviour = POWERS.get(p.character or "") if p.masked else None
    if behaviour is not None:
        behaviour(game, seat, at, rng, _recorder(game, res, settle=False))
    v = player_brief(g, seat)
    me = v["pseudo"]
    if v["chorus"]:
        if rng.random() < 0.5 and v["day"] < 13:
            suspects = [p for p in v["masked_players"] if p not in v["known"]]
            if suspects:
                _act_done(
                    game,
                    "chorus_vote",
                    me,
                    at,
                    res,
                    action="investigate",
                    player=rng.choice(suspects),
                    **{"as": rng.choice(RONDE_IDS)},
                )
        for chorus_behaviour in CHORUS:
            chorus_behaviour(game, seat, at, rng, _recorder(game, res, settle=False))
        return
    if "monstrous" in v["told"] and at.astimezone(PARIS).hour >= 21 and rng.random() < 0.3:
        # the monstrous Character's one Joker (an item worth at least 5, R7.17.3)
        _act(game, "use_joker", me, at, res, items=["item_pet_cat"], kind="monstrous")
    if not v["can_act"]:
        return
    # he joins a trial he may join (55 %), else opens one (12 %): drawn first, so that
    # a turn with neither reads no more of his brief
    join, opening = rng.random() < 0.55, rng.random() < 0.12
    if not (join or opening) or not v["targets"]:
        return
    # a new Extra only acts anonymously; others use an anonymous right they hold
    # (Halus's period, Pinocchio's daily one, a Polichinelle gift) half the time
    anonymous = bool(v["new_extra"]) or (bool(v["anonymous_right"]) and rng.random() < 0.5)
    if join:
        targets = set(v["targets"])
        joinable = [
            t
            for t in v["open_trials"]
            if t["open"] and not t["mine"] and t["supposed"] in targets and me not in t["accused"]
        ]
        if joinable:
            t = max(joinable, key=lambda t: t["public_complaints"] + rng.random())
            _act_done(game, "complain", me, at, res, trial=t["number"], anonymous=anonymous)
            return
    if opening:
        known = v["known"]
        suspects = [p for p in v["masked_players"] if p != me and p not in known]
        if not suspects:
            return
        supposed = rng.choice(v["targets"])  # (sorted, each once: ``sorted(targets)``)
        if supposed == "decorators":
            return
        _act_done(
            game,
            "open_trial",
            me,
            at,
            res,
            against=rng.choice(suspects),
            anonymous=anonymous,
            arguments="Son jeu trahit son rôle.",
            **{"as": supposed},
        )


def _duty_turn(game: Game, seat: str, at: datetime, rng: random.Random, res: SimResult) -> None:
    """A masked bot's duties (:mod:`ronde.bots.duties`), at every time of the day: his
    Character's, those of the roles he was given (the Revenant) and a monstrous one's."""
    g = game.state
    p = g.players[seat]
    if not p.masked:
        return
    act = _recorder(game, res, settle=False)
    duty = DUTIES.get(p.character or "")
    if duty is not None:
        duty(game, seat, at, rng, act)
    if p.character == "revenant":
        for role in private_brief(g, seat).get("given_roles", {}):
            given = DUTIES.get(role)
            if given is not None and g.players[seat].masked:
                given(game, seat, at, rng, act)
    if g.players[seat].masked and g.told_kinds.get(seat):
        monstrous(game, seat, at, rng, act)


def _recorder(game: Game, res: SimResult, *, settle: bool = True) -> Act:
    """The ``act`` callback of a behaviour; ``settle=False`` for the player behaviours
    (``ronde.bots``), which read all they use of a brief before acting on it, or fetch a
    new one (:func:`_act_done`)."""
    record = _act if settle else _act_done

    def act(verb: str, by: str, at: datetime, **args: Any) -> bool:
        return record(game, verb, by, at, res, **args)

    return act


def _game_master_turn(
    game: Game, day: int, at: datetime, rng: random.Random, res: SimResult, first: bool
) -> None:
    for behaviour in GAME_MASTER:
        behaviour(game, at, rng, _recorder(game, res))
    gm = game.state.game_masters[0]
    v = game_master_brief(game.state)
    # (everything read of the brief is read before acting: nothing to settle)
    theme_set, to_announce = v["theme_set"], v["to_announce"]
    constraint_today = v["constraint_today"] if first and day >= 2 else []
    vacancies = v["extra_vacancies"]
    chorus = list(v["chorus"]) if vacancies > 0 else []
    if first and not theme_set:
        theme = rng.choice(["noix", "pluie", "miroir", "horloge", "lune"])
        _act_done(game, "set_theme", gm, at, res, day=day, theme=theme)
    for number in to_announce:
        _act_done(game, "announce", gm, at, res, trial=number)
    for name in constraint_today:
        if rng.random() < FAIL_RATE:
            _act_done(game, "record_constraint", gm, at, res, player=name, day=day, met=False)
    if vacancies > 0:
        rng.shuffle(chorus)
        for name in chorus[:vacancies]:
            _act_done(game, "transfigure", gm, at, res, player=name)


@functools.lru_cache(maxsize=8)
def _slot_times(start: date) -> tuple[tuple[datetime, ...], ...]:
    """The instants of the :data:`SLOTS` of each day J1–J13 of a game started on
    ``start`` (the same for every game started that day)."""
    return tuple(tuple(at_clock(start, day, h, m) for h, m in SLOTS) for day in range(1, 14))


def play(
    players: int,
    rng: random.Random | Streams,
    start: date = date(2026, 12, 1),
    *,
    posts: float = 0.0,
    options: dict[str, Any] | None = None,
    late: float = 0.0,
) -> SimResult:
    """Play one whole game of ``players`` bots on a drawn cast; return it with its statistics.
    ``rng``: the game's :class:`Streams`, or a generator one is seeded from. ``posts``,
    ``late``: see :func:`play_cast`."""
    streams = rng if isinstance(rng, Streams) else Streams(rng.getrandbits(64))
    names = [f"Joueur{i:02d}" for i in range(1, players + 1)]
    cast, ronde = draw(names, streams.rng("cast"))  # type: ignore[arg-type]
    return play_cast(cast, ronde, streams, start=start, posts=posts, options=options, late=late)


def play_cast(
    cast: dict[str, str],
    ronde: list[str],
    rng: random.Random | Streams,
    *,
    start: date = date(2026, 12, 1),
    options: dict[str, Any] | None = None,
    posts: float = 0.0,
    late: float = 0.0,
) -> SimResult:
    """Play one whole game of bots on the given cast and Ronde. ``rng``: the game's
    :class:`Streams`, or a generator one is seeded from. ``posts``: the chance that a
    player also posts his opinion in each open trial's topic at each of the day's times
    (R4.5; 0, the default, posts nothing and draws nothing). ``late``: the chance that a
    bot leaves a day's duties (J2–J12) to :data:`LATE_SLOT` the next night (0: never)."""
    streams = rng if isinstance(rng, Streams) else Streams(rng.getrandbits(64))
    names = list(cast)
    game = Game.create(
        start=start,
        cast=cast,
        ronde=ronde,
        catalog=default_catalog(),
        seed=streams.rng("engine").getrandbits(63),
        players=names,
        game_masters=["Mj"],
        options=options,
    )
    res = SimResult(game)
    characters = sorted(set(cast.values()))
    res.masked_by_day = {c: [] for c in characters}
    seats = list(game.state.players)
    # the seats of each original Character (never changes)
    originals = {
        c: [s for s, p in game.state.players.items() if p.original == c] for c in characters
    }
    tardy: list[str] = []  # (the bots who left yesterday's duties to the night)
    for day, slots in enumerate(_slot_times(start), 1):
        gm_rng = streams.rng("game_master", day)
        bots = {seat: streams.rng("bot", seat, day) for seat in seats}
        if tardy:
            at = at_clock(start, day, *LATE_SLOT)
            game.advance(at)
            for seat in tardy:
                _duty_turn(game, seat, at, streams.rng("late", seat, day - 1), res)
        tardy = (
            [s for s in seats if streams.rng("late", s, day).random() < late]
            if late and 2 <= day <= 12
            else []
        )
        for i, at in enumerate(slots):
            game.advance(at)
            _game_master_turn(game, day, at, gm_rng, res, first=i == 0)
            if day >= 2:
                order = list(seats)
                streams.rng("order", day).shuffle(order)
                for seat in order:
                    if seat not in tardy:
                        _duty_turn(game, seat, at, bots[seat], res)
                for seat in order:
                    if bots[seat].random() < 0.35:
                        _bot_turn(game, seat, at, bots[seat], res)
                if i == 1:
                    for seat in order:
                        if bots[seat].random() < 0.7:
                            _act_done(game, "rehearse", game.state.pseudo(seat), at, res)
                if posts:
                    _post(game, order, at, bots, res, posts)
        for seat in seats:
            streams.forget("bot", seat, day)
        streams.forget("game_master", day)
        g = game.state
        for c in characters:
            holders = originals[c]
            masked = len(
                [s for s in holders if g.players[s].masked and g.players[s].character == c]
            )
            res.masked_by_day[c].append(masked / len(holders) if holders else 0.0)
        res.chorus_by_day.append(sum(1 for p in g.players.values() if not p.masked and p.alive))
        if res.boost_day is None and boost_on(g):
            res.boost_day = day
    end = at_clock(start, 13, 23, 30)
    game.advance(end)
    _act(game, "end_game", "Mj", end, res)
    drop_briefs(game.state)  # (no bot reads any more: the game is freed once dropped)
    return res


def _post(
    game: Game,
    order: list[str],
    at: datetime,
    bots: dict[str, random.Random],
    res: SimResult,
    share: float,
) -> None:
    """Players post in the open trials' topics (each with the chance ``share``)."""
    for t in [t.number for t in game.state.open_trials()]:
        for seat in order:
            if bots[seat].random() < share:
                _act_done(game, "post", game.state.pseudo(seat), at, res, trial=t)


def _print_game(console: Console, res: SimResult) -> None:
    g = res.game.state
    current = None
    for at, _to, _kind, text, _data, public in g.messages:
        if not public:
            continue
        day = g.day(at)
        if day != current:
            current = day
            console.rule(f"J{day}")
        console.print(f"{at.astimezone(PARIS).strftime('%H:%M')}  {text}", highlight=False)
    # (lazy: the terminal's tables only; the workers of --compare never print)
    from rich.table import Table

    table = Table(title="Classement final")
    for col in ("Rang", "Joueur", "Personnage", "Points"):
        table.add_column(col)
    ranked = sorted(g.players.values(), key=lambda p: (-p.points, p.pseudo))
    rank, last = 0, None
    for i, p in enumerate(ranked, 1):
        if p.points != last:
            rank, last = i, p.points
        table.add_row(str(rank), p.pseudo, french_name(p.original), str(p.points))
    console.print(table)


def run_cli(
    console: Console,
    *,
    players: int,
    games: int,
    seed: int | None,
    plot: Path | None,
    log: Path | None,
) -> None:
    """The body of ``ronde simulate``."""
    rng = random.Random(seed)
    results: list[SimResult] = []
    began = wallclock.perf_counter()
    if games == 1:
        results.append(play(players, rng))
        _print_game(console, results[0])
    else:
        # (lazy: the terminal's progress bar only)
        from rich.progress import Progress

        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("Parties simulées", total=games)
            for _ in range(games):
                results.append(play(players, rng))
                progress.advance(task)
        _summary(console, results)
    elapsed = wallclock.perf_counter() - began
    events = sum(len(r.game.log) for r in results)
    console.print(
        f"{len(results)} partie(s), {events} événements en {elapsed:.2f} s "
        f"({len(results) / elapsed:.1f} parties/s)."
    )
    if log is not None:
        from .store import write_events

        write_events(log, results[-1].game.log)
        console.print(f"Journal enregistré : {log}")
    if plot is not None:
        _plot(results, plot)
        console.print(f"Graphique enregistré : {plot}")


def _summary(console: Console, results: list[SimResult]) -> None:
    # (lazy: the terminal's tables only)
    from rich.table import Table

    causes: Counter[tuple[str, int]] = Counter()
    points: dict[str, list[int]] = defaultdict(list)
    for r in results:
        g = r.game.state
        for e in r.game.log:
            if isinstance(e, PlayerUnmasked):
                causes[(e.cause, g.day(e.at))] += 1
        for p in g.players.values():
            points[p.original].append(p.points)
    table = Table(
        title=f"Démasquages par jour et par cause ({len(results)} parties, moyenne par partie)"
    )
    table.add_column("Jour")
    kinds = sorted({c for c, _ in causes})
    for cause in kinds:
        table.add_column(CAUSES_FR.get(cause, cause), justify="right")
    for d in range(1, 15):
        label = f"J{d}" if d <= 13 else "fin"
        table.add_row(label, *[f"{causes[(cause, d)] / len(results):.2f}" for cause in kinds])
    console.print(table)
    ptable = Table(title="Points par personnage (moyenne par joueur)")
    ptable.add_column("Personnage")
    ptable.add_column("Moyenne", justify="right")
    ptable.add_column("Min", justify="right")
    ptable.add_column("Max", justify="right")
    for c, values in sorted(points.items(), key=lambda kv: -sum(kv[1]) / len(kv[1])):
        ptable.add_row(
            french_name(c), f"{sum(values) / len(values):.0f}", str(min(values)), str(max(values))
        )
    console.print(ptable)


def _plot(results: list[SimResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shares: dict[str, list[list[float]]] = defaultdict(list)
    for r in results:
        for c, series in r.masked_by_day.items():
            shares[c].append(series)
    fig, ax = plt.subplots(figsize=(11, 7))
    days = list(range(1, 14))
    cmap = plt.get_cmap("tab20")
    colours = [cmap(k) for k in range(20)]
    styles = ["-", "--", ":", "-."]
    for i, (c, runs) in enumerate(sorted(shares.items())):
        mean = [sum(run[d] for run in runs) / len(runs) for d in range(13)]
        ax.plot(
            days,
            mean,
            label=french_name(c),
            color=colours[i % len(colours)],
            linestyle=styles[(i // len(colours)) % len(styles)],
            marker="o",
            markersize=3,
        )
    ax.set_xlabel("Jour")
    ax.set_ylabel("Part encore masquée")
    ax.set_title(f"Personnages encore masqués ({len(results)} parties)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
