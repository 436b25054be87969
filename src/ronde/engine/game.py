"""The game: commands in, events out, timers in time order (DESIGN.md).

``Game.execute(command)`` first fires every timer due at or before the
command's time (trial expiry, end of day, J13 13:13, end of play), then checks
the command against the rules and records its events. ``Game.replay(events)``
rebuilds the same state from a log without deciding anything again.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, date, datetime
from typing import Any

from . import accusations, admin, chorus, constraints, trials, unmasking, verdicts
from .character import Character, answering, character_of
from .clock import LAST_DAY, cutoff_1313, day_start, format_time, start_problem
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import (
    ComplaintFiled,
    CutoffPassed,
    DayClosed,
    Event,
    GameCreated,
    MessageSent,
    PointsAwarded,
    Rehearsed,
)
from .evolve import evolve_all, new_state
from .items import ItemCatalog
from .names import (
    EXTRAS,
    FULL_CAST,
    MAX_PLAYERS,
    RESERVED_NAMES,
    RONDE_IDS,
    fold_name,
    french_name,
    nearest,
    resolve_character,
)
from .options import validate_options
from .registry import REGISTRY
from .state import CHORUS, GameState
from .unmasking import as_known, awaiting_verdict, truly
from .verdicts import unmask

Handler = Callable[[Context, Command, str], None]

#: events whose application reads and writes nothing the game as players know it
#: changes (masks, Characters, the revealed, the Secretary, the flags, A77): applied to
#: it as they are (the chorus's points, in the flags under A64 ``at_end``, excepted)
_APART_FROM_MASKS: frozenset[type[Event]] = frozenset(
    {MessageSent, Rehearsed, ComplaintFiled, PointsAwarded}
)

#: action -> (who may do it: "player" | "game_master", handler)
CORE_ACTIONS: dict[str, tuple[str, Handler]] = {
    "open_trial": ("player", accusations.open_trial),
    "complain": ("player", accusations.complain),
    "post": ("player", admin.post),
    "rehearse": ("player", admin.rehearse),
    "guess_ronde": ("player", admin.guess_ronde),
    "send_items": ("player", constraints.send_items),
    "use_joker": ("player", constraints.use_joker),
    "chorus_vote": ("player", chorus.chorus_vote),
    "record_constraint": ("game_master", constraints.record_constraint),
    "exempt": ("game_master", constraints.exempt),
    "set_theme": ("game_master", admin.set_theme),
    "transfigure": ("game_master", admin.transfigure),
    "appoint_secretary": ("game_master", chorus.appoint_secretary),
    "award": ("game_master", admin.award),
    "replace_player": ("game_master", admin.replace_player),
    "record_death": ("game_master", admin.record_death),
    "announce": ("game_master", verdicts.announce),
    "end_game": ("game_master", admin.end_game),
}


#: the arguments of the core actions (FORMAT.md): any other key is refused, so that a
#: misspelt ``anonymus`` never files a public complaint by mistake
CORE_ARGS: dict[str, frozenset[str]] = {
    name: frozenset(keys.split())
    for name, keys in {
        "open_trial": "against as anonymous arguments",
        "complain": "trial anonymous",
        "post": "trial defends",
        "rehearse": "",
        "guess_ronde": "order",
        "send_items": "to items",
        "use_joker": "items to day kind",
        "chorus_vote": "action player as theme_found",
        "record_constraint": "player day met note",
        "exempt": "player days until",
        "set_theme": "day theme",
        "transfigure": "player",
        "appoint_secretary": "player",
        "award": "player points reason",
        "replace_player": "player new",
        "record_death": "player",
        "announce": "trial",
        "end_game": "",
    }.items()
}


def check_arguments(cmd: Command) -> None:
    """Refuse an argument a core action does not take (``invalid_argument``)."""
    allowed = CORE_ARGS.get(cmd.action)
    if allowed is None:
        return
    for key in cmd.args:
        if key not in allowed:
            near = nearest(str(key), sorted(allowed)) if allowed else None
            hint = f" Vouliez-vous dire « {near} » ?" if near else ""
            raise RuleViolation(
                "invalid_argument", f"Argument inconnu pour {cmd.action} : « {key} ».{hint}"
            )


def all_actions(
    characters: Mapping[str, Character] = REGISTRY,
) -> dict[str, tuple[str, Handler]]:
    """Core actions plus every character module's powers (by scenario name)."""
    out = dict(CORE_ACTIONS)
    for module in characters.values():
        for name in module.actions():
            out.setdefault(name, ("player", _power(module, name)))
        for name, handler in module.gm_actions().items():
            out.setdefault(name, ("game_master", handler))
    return out


def _power(owner: Character, name: str) -> Handler:
    """Dispatch a player power to the module of the actor's character when it has that
    power (e.g. the Revenant holding a role), else to the module that defines it (which
    refuses with ``not_allowed``)."""

    def handler(ctx: Context, cmd: Command, actor: str) -> None:
        p = ctx.g.players[actor]
        module = character_of(ctx.g, p)
        own = module.actions().get(name)
        (own or owner.actions()[name])(ctx, cmd, actor)

    return handler


def too_many_players(n: int) -> str:
    """The French refusal for a roster beyond 32 players (A76)."""
    return (
        f"{n} joueurs : c'est trop. La distribution compte {FULL_CAST} places et accueille "
        f"au plus {MAX_PLAYERS - FULL_CAST} Figurants de plus, soit {MAX_PLAYERS} joueurs "
        "au maximum (A76)."
    )


def check_names(names: Sequence[str]) -> None:
    """Pseudos and game masters' names are matched after folding (R0.4): two that fold
    alike could never both act, so they are refused first (a roster naming someone
    twice included), as are empty and reserved names.

    Raises:
        RuleViolation: ``invalid_argument`` (French message naming the names).
    """
    folded: dict[str, str] = {}
    for name in names:
        key = fold_name(name)
        if not key:
            raise RuleViolation("invalid_argument", f"Pseudo vide ou illisible : « {name} ».")
        if key in RESERVED_NAMES:
            raise RuleViolation("invalid_argument", f"Pseudo réservé par Ronde : « {name} ».")
        if key in folded:
            raise RuleViolation(
                "invalid_argument",
                f"Pseudos indiscernables : « {folded[key]} » et « {name} » (casse, accents, "
                "caractères invisibles).",
            )
        folded[key] = name


def validate_setup(
    players: list[str],
    cast: Mapping[str, str],
    ronde: list[str],
    game_masters: list[str],
) -> tuple[dict[str, str], tuple[str, ...]]:
    """Check a cast and Ronde (R1.6, R1.7, R2.1, A2); return them with ids resolved.

    Raises:
        RuleViolation: ``unknown_character`` or ``invalid_argument`` (French message).
    """
    if not players:
        raise RuleViolation("invalid_argument", "Aucun joueur.")
    if not game_masters:
        raise RuleViolation("invalid_argument", "Il faut au moins un MJ.")
    check_names([*players, *game_masters])
    if len(players) > MAX_PLAYERS:
        raise RuleViolation("invalid_argument", too_many_players(len(players)))
    resolved = {p: resolve_character(c) for p, c in cast.items()}
    missing = [p for p in players if p not in resolved]
    if missing:
        raise RuleViolation("invalid_argument", f"Joueurs sans personnage : {', '.join(missing)}.")
    slots = tuple(resolve_character(c) for c in ronde)
    if len(set(slots)) != len(slots) or "extra" in slots:
        raise RuleViolation(
            "invalid_argument", "La Ronde nomme chaque case une fois, sans Figurant."
        )
    counts: dict[str, int] = {}
    for c in resolved.values():
        counts[c] = counts.get(c, 0) + 1
    for c, n in counts.items():
        if c == "extra":
            continue
        if c not in slots:
            raise RuleViolation(
                "invalid_argument", f"{french_name(c)} est distribué mais absent de la Ronde."
            )
        limit = 2 if c == "decorators" else 1
        if n > limit:
            raise RuleViolation("invalid_argument", f"{french_name(c)} est tenu par {n} joueurs.")
    extras = counts.get("extra", 0)
    allowed = EXTRAS + max(0, len(players) - FULL_CAST)
    if extras > allowed:
        raise RuleViolation(
            "invalid_argument",
            f"{extras} Figurants pour {len(players)} joueurs : au plus {allowed} "
            f"({EXTRAS}, plus un par joueur au-delà de {FULL_CAST}, A76).",
        )
    for c in slots:
        if c not in counts:
            raise RuleViolation("invalid_argument", f"Personne n'incarne {french_name(c)}.")
        if c == "decorators" and counts[c] != 2:
            raise RuleViolation("invalid_argument", "Les Décorateurs sont deux joueurs.")
    assert set(slots) <= set(RONDE_IDS)
    return resolved, slots


TIMER_KINDS = ("expiry", "cutoff", "day_end", "end_of_play")

#: the base hooks a holder's duties run (a module that keeps them has none: not called)
BASE_ON_DAY_CLOSED = Character.on_day_closed
BASE_ON_CUTOFF = Character.on_cutoff


def timer_key(kind: int, arg: int) -> str:
    """The identity of a timer for its draws: its kind and its argument (the trial that
    expires, the day that ends). Not its instant: under A9 ``grace_N`` the same day ends
    N minutes later and must draw alike (``tests/test_grace.py``)."""
    return f"timer:{TIMER_KINDS[kind]}:{arg}"


def command_key(cmd: Command, day: int) -> str:
    """The identity of a recorded command for its draws (``Context.rng``): its verb, its
    author, the day it counts for (A9) and its arguments in a canonical form. Not its
    instant: a command recorded a few minutes off, or a whole game moved by A9's grace
    (``tests/test_grace.py``), draws alike. Identical commands of one day are told
    apart by their order that day (``Game.execute``)."""
    return f"cmd:{cmd.action}:{fold_name(cmd.by)}:J{day}:{canonical_args(cmd.args)}"


def _draw_key(
    seen: list[tuple[Command, list[str]]], mine: tuple[Command, list[str]], day: int
) -> str:
    """The key of a command's draws: :func:`command_key` and how many identical commands
    were accepted before it that day (``seen``, each with its key once made)."""
    cmd, made = mine
    key = command_key(cmd, day)
    made.append(key)
    before = 0
    for other, keys in seen:
        if not keys:
            keys.append(command_key(other, day))
        if keys[0] == key:
            before += 1
    return f"{key}#{before}"


_encode_string = json.encoder.encode_basestring  # (what ``json.dumps`` uses, ensure_ascii off)


def canonical_args(args: Mapping[str, Any]) -> str:
    """``json.dumps(dict(args), sort_keys=True, ensure_ascii=False, default=str)``, the
    same text, written directly for the arguments commands carry (strings, whole numbers,
    booleans, ``None`` and lists of them); anything else goes through ``json.dumps``."""
    if not args:
        return "{}"
    parts = []
    for key in sorted(args):
        if type(key) is not str:
            break
        value = args[key]
        kind = type(value)
        if kind is str:
            text = _encode_string(value)
        elif kind is bool:
            text = "true" if value else "false"
        elif kind is int:
            text = int.__repr__(value)
        elif value is None:
            text = "null"
        elif kind is list and all(type(v) is str for v in value):
            text = "[" + ", ".join([_encode_string(v) for v in value]) + "]"
        else:
            break
        parts.append(f"{_encode_string(key)}: {text}")
    else:
        return "{" + ", ".join(parts) + "}"
    return json.dumps(dict(args), sort_keys=True, ensure_ascii=False, default=str)


#: the lists of the state ``evolve`` only appends to (their items never change): shared
#: item by item by a fork (``Game.fork``)
_APPEND_ONLY = ("messages", "unmask_order", "investigations", "constraint_failures", "items_log")


def _fork_state(g: GameState) -> GameState:
    """A deep copy of ``g`` but for its registry and catalog (shared), its memos
    (emptied: recomputed when read) and its append-only lists (copied shallowly)."""
    memo: dict[int, Any] = {id(g.catalog): g.catalog, id(g.characters): g.characters}
    memo[id(g.memo_cache)] = {}
    for name in _APPEND_ONLY:
        items = getattr(g, name)
        memo[id(items)] = list(items)
    for p in g.players.values():
        memo[id(p.lines)] = list(p.lines)
    forked: GameState = copy.deepcopy(g, memo)
    return forked


class Game:
    """One game: its state and its event log (in memory).

    Attributes:
        state: the :class:`GameState` (read it through :mod:`ronde.engine.views`).
        log: every event so far, starting with ``GameCreated``.
    """

    def __init__(
        self,
        created: GameCreated,
        catalog: ItemCatalog,
        characters: Mapping[str, Character] = REGISTRY,
    ) -> None:
        self.catalog = catalog
        self.characters = characters
        self.state: GameState = new_state(created, catalog, characters)
        self.log: list[Event] = [created]
        # (the actions' table is made on the first command: a replay never needs it)
        self._actions: dict[str, tuple[str, Handler]] | None = None
        # the commands accepted on the current counting day, with their keys once asked:
        # identical ones draw apart by their order that day (see ``command_key``); an
        # identical command on a later day is another key anyway
        self._seen_day: int | None = None
        self._seen: list[tuple[Command, list[str]]] = []
        # the commands of that day recorded before those seen here, read only when a
        # command of that day draws (a replayed game: see ``count_earlier``)
        self._earlier: Callable[[], Iterable[Command]] | None = None

    # -- creation and replay ----------------------------------------------------------
    @classmethod
    def create(
        cls,
        *,
        start: date,
        cast: Mapping[str, str],
        ronde: list[str],
        catalog: ItemCatalog,
        seed: int,
        players: list[str] | None = None,
        game_masters: list[str] | None = None,
        options: Mapping[str, object] | None = None,
        at: datetime | None = None,
        characters: Mapping[str, Character] = REGISTRY,
    ) -> Game:
        """A new game with the given (already drawn) cast and Ronde.

        Raises:
            RuleViolation: an invalid setup (see :func:`validate_setup`) or option.
        """
        problem = start_problem(start)
        if problem is not None:
            raise RuleViolation("invalid_argument", problem[0].upper() + problem[1:])
        roster = list(players if players is not None else cast)
        gms = list(game_masters or ["Mj"])
        resolved, slots = validate_setup(roster, cast, ronde, gms)
        opts = validate_options(options)
        created = GameCreated(
            at=at or day_start(start, 1),
            start=start.isoformat(),
            players=tuple(roster),
            cast=resolved,
            ronde=slots,
            game_masters=tuple(gms),
            options=opts,
            seed=seed,
        )
        return cls(created, catalog, characters)

    @classmethod
    def replay(
        cls,
        events: Iterable[Event],
        catalog: ItemCatalog,
        characters: Mapping[str, Character] = REGISTRY,
        *,
        commands: Iterable[Command] = (),
    ) -> Game:
        """Rebuild a game from its log (nothing is decided or drawn again).

        ``commands``: the accepted commands whose events are in ``events``, in the order
        they were recorded (at least those of the last one's counting day; the store
        knows them: each stored event names its action). They are counted as
        :meth:`execute` counts them, so that an identical command recorded after the
        replay keys its draws as it would have without it (:func:`_draw_key`).

        Raises:
            ValueError: the log does not start with ``GameCreated``.
        """
        it = iter(events)
        first = next(it, None)
        if not isinstance(first, GameCreated):
            raise ValueError("un journal de partie commence par game_created")
        game = cls(first, catalog, characters)
        rest = list(it)
        evolve_all(game.state, rest)
        game.log += rest
        for cmd in commands:
            game.count_command(cmd)
        return game

    def replay_more(self, events: Iterable[Event]) -> None:
        """Apply ``events``, recorded after this game's log, as :meth:`replay` applies
        them (nothing decided or drawn again): a replay continued, so that reading a game
        at each of its days costs one replay, not one per day."""
        rest = list(events)
        evolve_all(self.state, rest)
        self.log += rest

    def fork(self) -> Game:
        """A private copy of this game to run forward without touching it (what the next
        timers would record: the game masters' forecast of the next midnight): its state
        copied, its events (immutable) shared. The long lists ``evolve`` only ever
        appends to, whose items it never changes (the messages, each player's score
        lines, the logs of items, investigations, failures and unmaskings), are copied
        shallowly: a fork costs about the same whatever the log's length. So is the list of
        the day's commands counted so far (thousands on a busy day): an entry's key, made
        when a draw first needs it, is the same in both games (the same command counted
        the same day), so both share the entries and whichever makes a key makes it for
        both."""
        other = Game.__new__(Game)
        other.catalog = self.catalog
        other.characters = self.characters
        other.state = _fork_state(self.state)
        other.log = list(self.log)
        other._actions = None
        other._seen_day = self._seen_day
        other._seen = list(self._seen)
        other._earlier = self._earlier
        return other

    def count_command(self, cmd: Command) -> None:
        """Count ``cmd``, accepted and whose events this game already applied (a replay,
        or events another process recorded), among the commands of its counting day, as
        :meth:`execute` does: the keys of later identical commands' draws depend on it."""
        at = cmd.at if cmd.at.tzinfo is UTC else cmd.at.astimezone(UTC)
        day = self.state.day(at)
        if self._seen_day != day:
            self._seen_day, self._seen, self._earlier = day, [], None
        self._seen.append((Command(cmd.action, cmd.by, at, cmd.args), []))

    def count_earlier(self, day: int, load: Callable[[], Iterable[Command]]) -> None:
        """The accepted commands of counting day ``day`` whose events this game already
        applied, counted as :meth:`count_command` counts each (they come before the
        commands counted after this call), but read (``load()``) only if a command of
        that day draws: most never do, and a long day has thousands of commands."""
        self._seen_day, self._seen, self._earlier = day, [], load

    def _counted(self, seen: list[tuple[Command, list[str]]]) -> list[tuple[Command, list[str]]]:
        """``seen``, the commands of the day counted so far, with the earlier ones read
        first if they are still to be read (``count_earlier``)."""
        load = self._earlier
        if load is not None and seen is self._seen:
            self._earlier = None
            seen[:0] = [(Command(c.action, c.by, c.at.astimezone(UTC), c.args), []) for c in load()]
        return seen

    # -- time ----------------------------------------------------------------------
    def _emit(self, e: Event) -> None:
        # (rules may read the game as players know it, A77: events apply to the game,
        # except those that touch nothing the game and players' knowledge differ on)
        g = self.state
        known = unmasking.KNOWN
        key = id(g)
        if key not in known:  # (the game is read as it is: nothing to show)
            evolve_all(g, (e,))
            self.log.append(e)
            return
        if known[key] is None and not unmasking.pending_now(g):
            # read as known, but no verdict waits: the game is itself and every reading
            # of it as known gives what it gives (``truly`` would show nothing); a verdict
            # waits after the event only if it moved the trials (``board_count``)
            board = g.board_count
            evolve_all(g, (e,))
            self.log.append(e)
            if g.board_count != board and unmasking.pending_now(g):
                with truly(g):  # (hidden from now on: what the verdict changed)
                    pass
            return
        apart = type(e) in _APART_FROM_MASKS and not (
            g.verdict_flags and unmasking.moves_a_verdict_instant(g, e)
        )
        if apart and not (isinstance(e, PointsAwarded) and e.player == CHORUS):
            evolve_all(g, (e,))
            self.log.append(e)
            return
        with truly(g):
            evolve_all(g, (e,))
        self.log.append(e)

    def _next_timer(self) -> tuple[datetime, int, int] | None:
        # the timers depend only on the open trials (an event that opens or ends one moves
        # ``board_count``), the days closed, the cut-off and the end of play: kept until
        # one of them changes, not recomputed after each message or score line
        g = self.state
        hit = g.memo_cache.get("next_timer")
        if hit is not None:
            board, closed, cutoff, ended, kept = hit[1]
            if (
                board == g.board_count
                and closed == g.days_closed
                and cutoff is g.cutoff_done
                and ended is g.play_ended
            ):
                timer: tuple[datetime, int, int] | None = kept
                return timer
        nxt = self._compute_next_timer()
        g.memo_cache["next_timer"] = (
            -1,
            (g.board_count, g.days_closed, g.cutoff_done, g.play_ended, nxt),
        )
        return nxt

    def _compute_next_timer(self) -> tuple[datetime, int, int] | None:
        g = self.state
        # (the instants depend on the start date, options and opening times only)
        instants = g.times("timers")
        if not instants:
            instants["cutoff"], instants["end"] = cutoff_1313(g.start), g.end_of_play()
        due: list[tuple[datetime, int, int]] = []
        for t in g.unsettled_trials():
            if t.status == "open":
                deadline = instants.get(t.opened_at)
                if deadline is None:
                    deadline = instants[t.opened_at] = t.deadline
                due.append((deadline, 0, t.number))
        if not g.cutoff_done:
            due.append((instants["cutoff"], 1, 0))
        if g.days_closed < LAST_DAY:
            # the end of the day (A9: N minutes after midnight under ``grace_N``)
            due.append((g.day_start(g.days_closed + 2), 2, g.days_closed + 1))
        if not g.play_ended:
            due.append((instants["end"], 3, 0))
        return min(due) if due else None

    def advance(self, t: datetime) -> list[Event]:
        """Fire every timer due at or before ``t``, in time order; return the new events."""
        start = len(self.log)
        t = t.astimezone(UTC)
        if self.state.game_ended:
            return []
        while True:
            nxt = self._next_timer()
            if nxt is None or nxt[0] > t:
                break
            when, kind, arg = nxt
            ctx = Context(self.state, when, self._emit, timer_key(kind, arg))
            if kind == 3:
                admin.end_play(ctx)
                continue
            # a timer reads the game as players know it while verdicts wait (A77)
            with as_known(self.state):
                if kind == 0:
                    trial = self.state.trial(arg)
                    assert trial is not None
                    verdicts.expire(ctx, trial)
                elif kind == 1:
                    self._cutoff(ctx)
                else:
                    self._close_day(ctx, arg)
        return self.log[start:]

    def _close_day(self, ctx: Context, day: int) -> None:
        """End of ``day`` (R6.2, R6.21, R8.17): reveal on J1, failures, duties, chorus."""
        g = ctx.g
        if day == 1:
            self._reveal(ctx)
        if day < LAST_DAY:
            for seat in constraints.failures_due(g, day):
                unmask(ctx, seat, "constraint", "R6.2", detail=f"J{day}", cause_day=day)
        for seat in list(g.players):
            p = g.players[seat]
            if p.masked:
                module = character_of(g, p)
                if type(module).on_day_closed is not BASE_ON_DAY_CLOSED:
                    module.on_day_closed(ctx, p, day)
        for module in answering(g, "after_day_closed"):
            module.after_day_closed(ctx, day)
        chorus.decide(ctx, day)
        ctx.emit(DayClosed(at=ctx.now, day=day))

    def _cutoff(self, ctx: Context) -> None:
        """J13 13:13 (R3.3, R6.5): J13 failures and duties."""
        g = ctx.g
        for seat in constraints.failures_due(g, LAST_DAY):
            unmask(ctx, seat, "constraint", "R6.5", detail="J13", cause_day=LAST_DAY)
        for seat in list(g.players):
            p = g.players[seat]
            if p.masked:
                module = character_of(g, p)
                if type(module).on_cutoff is not BASE_ON_CUTOFF:
                    module.on_cutoff(ctx, p)
        for module in answering(g, "after_cutoff"):
            module.after_cutoff(ctx)
        ctx.emit(CutoffPassed(at=ctx.now))

    def _reveal(self, ctx: Context) -> None:
        """The role reveal at the end of J1 (R1.8)."""
        g = ctx.g
        for seat, p in g.players.items():
            module = character_of(g, p)
            visible = module.visible_set(g, p)
            names = ", ".join(french_name(c) for c in sorted(visible)) or "aucun"
            ctx.tell(
                [seat],
                "role_reveal",
                f"Vous incarnez : {french_name(p.character or 'extra')}. "
                f"Personnages à démasquer : {names}.",
                character=p.character,
                characters=sorted(visible),  # never the Ronde order (R2.4)
            )

    # -- commands -----------------------------------------------------------------------
    def execute(self, cmd: Command) -> list[Event]:
        """Fire due timers, then check and apply ``cmd``; return the events it recorded.

        Raises:
            RuleViolation: the command is refused; timers fired before it stay, the
                command itself changed nothing.
        """
        g = self.state
        if cmd.at.tzinfo is None:
            raise RuleViolation("invalid_argument", "Heure sans fuseau horaire.")
        # every recorded instant is UTC, whatever zone the caller used (see clock.py)
        if cmd.at.tzinfo is not UTC:
            cmd = Command(cmd.action, cmd.by, cmd.at.astimezone(UTC), cmd.args)
        if g.clock is not None and cmd.at < g.clock:
            raise RuleViolation(
                "invalid_argument",
                f"Heure antérieure au dernier événement ({format_time(g.start, g.clock)}).",
            )
        # (the next timer is kept: no call to ``advance`` when none is due)
        if not g.game_ended and (nxt := self._next_timer()) is not None and nxt[0] <= cmd.at:
            self.advance(cmd.at)
        start = len(self.log)
        actions = self._actions
        if actions is None:
            actions = self._actions = all_actions(self.characters)
        entry = actions.get(cmd.action)
        if entry is None:
            raise RuleViolation("invalid_argument", f"Action inconnue : {cmd.action}.")
        who, handler = entry
        for name in cmd.args:
            if type(name) is not str:
                # (its key, made only if it draws, or when a later identical-day command
                # draws, needs names that order: refused here, nothing recorded)
                raise RuleViolation("invalid_argument", f"Nom d'argument illisible : {name!r}.")
        day = g.day(cmd.at)
        if self._seen_day != day:
            self._seen_day, self._seen, self._earlier = day, [], None
        seen = self._seen
        mine: tuple[Command, list[str]] = (cmd, [])
        # (the key of its draws, made only if it draws: most commands draw nothing)
        ctx = Context(g, cmd.at, self._emit, lambda: _draw_key(self._counted(seen), mine, day))
        previous_clock = g.clock
        g.clock = cmd.at  # checks read the acting instant; restored if refused
        seat = g.seat_of(cmd.by)
        try:
            with self.reading_as(seat):
                self._dispatch(ctx, cmd, who, handler, seat)
        except BaseException:
            if len(self.log) == start:
                g.clock = previous_clock
            raise
        seen.append(mine)
        return self.log[start:]

    def reading_as(self, seat: str | None) -> AbstractContextManager[None]:
        """How a command of the player at ``seat`` reads the game (A77): as players know it
        while verdicts wait for their announcement; under ``outcome_applies`` a verdict's
        accused reads his own verdict as it left him (under ``frozen`` he knows it no
        better than the others, and every action of his that it would change is refused
        alike); a game master's command (no seat) reads it as it is."""
        g = self.state
        if seat is None:
            return nullcontext()  # (the game masters see everything)
        if (
            not unmasking.pending_now(g)
            or g.opt("A77") == "frozen"
            or awaiting_verdict(g, seat) is None
        ):
            return as_known(g)
        own = frozenset(
            t.number for t in g.trials if t.concluded and not t.announced and seat in t.accused
        )
        return as_known(g, keep=own)

    def _dispatch(
        self, ctx: Context, cmd: Command, who: str, handler: Handler, seat: str | None
    ) -> None:
        g = self.state
        if who == "game_master":
            if not g.is_game_master(cmd.by):
                raise RuleViolation("not_game_master", f"{cmd.by} n'est pas MJ de cette partie.")
            if g.game_ended:
                raise RuleViolation("game_not_running", "La partie est close.")
            check_arguments(cmd)
            handler(ctx, cmd, cmd.by)
        else:
            if seat is None:
                if g.is_game_master(cmd.by):
                    raise RuleViolation(
                        "not_allowed", f"{cmd.by} est MJ : cette action est celle d'un joueur."
                    )
                trials.player_seat(g, cmd.by)
                raise AssertionError("unreachable")
            if not g.game_ended:  # in a closed game the handler refuses (R5.17 order)
                check_arguments(cmd)
                if cmd.action not in trials.ALIKE_WHATEVER_THE_OUTCOME:
                    trials.check_not_awaiting(g, seat)
            handler(ctx, cmd, seat)

    def act(self, verb: str, by: str, at: datetime, **args: Any) -> list[Event]:
        """Shorthand for ``execute(Command(verb, by, at, args))``."""
        return self.execute(Command(verb, by, at, args))
